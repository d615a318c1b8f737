#!/bin/bash
# Packs a corpus tarball with our tar2sqfs for every compressor and checks
# the image against GNU tar's extraction of the same tarball: mounted by
# the kernel where it can (lzma cannot be mounted by Linux: there the
# image is read through `unsquashfs -pf`). Needs root for the mounts and
# for an extraction that keeps owners and xattrs.
#   scripts/corpus-verify.sh BUILD_DIR TARBALL [COMPRESSOR...]
set -euo pipefail
build=$1 tarball=$2
shift 2
comps=${*:-gzip xz lzma lz4 zstd lzo}
top=$(cd "$(dirname "$0")/.." && pwd)
compare=$top/tests/integration/compare_tree.py
work=$(mktemp -d "${TMPDIR:-/var/tmp}/sqfs-verify.XXXXXX")
mnt=""
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

mkdir "$work/ref" "$work/mnt"
tar --same-owner --numeric-owner --xattrs --xattrs-include='*' \
	-C "$work/ref" -xf "$tarball"

status=0
for comp in $comps; do
	img=$work/$comp.sqfs
	"$build/tar2sqfs" -q -c "$comp" "$img" <"$tarball"
	if [ "$comp" = lzma ]; then
		/usr/bin/unsquashfs -pf "$work/pf" "$img" >/dev/null
		how="unsquashfs -pf"
		tree=pf:$work/pf
	else
		mount -t squashfs -o loop,ro "$img" "$work/mnt"
		mnt=$work/mnt
		how="kernel mount"
		tree=dir:$work/mnt
	fi
	if python3 "$compare" "$tree" "dir:$work/ref" >"$work/diff" 2>&1; then
		echo "$comp: $how equals GNU tar's extraction" \
			"($(python3 "$compare" --count "$tree") inodes)"
	else
		echo "$comp: $how DIFFERS from GNU tar's extraction:"
		head -20 "$work/diff"
		status=1
	fi
	if [ -n "$mnt" ]; then
		umount "$mnt"
		mnt=""
	fi
	rm -f "$img" "$work/pf"
done
exit $status

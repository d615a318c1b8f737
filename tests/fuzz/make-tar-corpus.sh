#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Regenerate the seed corpus of the tar-reader fuzzer (tests/fuzz/corpus-tar):
# small archives of one fixed tree in every format GNU tar and bsdtar
# write, the compressions the reader undoes, and the hand-built damaged
# archives of tests/integration/gen_tar.py, which no tar program writes.
#
# Seeds are kept to a few KiB each: 512-byte records (-b 1), short
# contents, sparse files whose data is a few 512-byte blocks
# (--hole-detection=raw), and no padding beyond the two end blocks. The
# fuzzer mutates small inputs faster and further.
#
# Inputs are fixed (contents, names, owners, mtimes; no atime or ctime,
# no process id in PAX header names), so running it again with the same
# tools gives the same files. Devices and a FIFO are added only when run
# as root (mknod); xattrs only where the file system takes user.* ones.
#
# Usage: tests/fuzz/make-tar-corpus.sh [OUTDIR]  (default: tests/fuzz/corpus-tar)
# Needs GNU tar, bsdtar (libarchive-tools), setfattr (attr), gzip, xz,
# zstd, bzip2, lz4 and python3.
set -euo pipefail

GNU_TAR=/usr/bin/tar
BSDTAR=/usr/bin/bsdtar
PYTHON=/usr/bin/python3
EPOCH=1700000000
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/corpus-tar}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C.UTF-8 TZ=UTC
unset SOURCE_DATE_EPOCH
umask 022

# The tree: a directory, a small and a two-block file, a hard and a
# symbolic link, an empty directory; names a ustar header has to split
# into prefix and name, and a 130-byte component it cannot hold; a
# symlink target longer than the 100-byte field; sparse files (data
# between holes, data then a final hole, only a hole, more data runs than
# an old GNU header holds); a file with xattrs; and as root, a FIFO and
# two devices.
src=$work/src
mkdir -p "$src/d/empty" "$src/dev" "$src/sparse"
seq 1 250 >"$src/d/seq"
printf 'small\n' >"$src/small"
ln "$src/small" "$src/d/hard"
ln -s ../small "$src/d/link"
deep=long/$(printf 'a%.0s' $(seq 1 60))/$(printf 'b%.0s' $(seq 1 60))
mkdir -p "$src/$deep"
printf 'deep\n' >"$src/$deep/file"
long=$(printf 'c%.0s' $(seq 1 130))
printf 'long\n' >"$src/long/$long"
ln -s "$(printf 'x/%.0s' $(seq 1 60))target" "$src/long/longlink"
at() { # FILE OFFSET TEXT
	printf '%s' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
truncate -s 20K "$src/sparse/middle"
at "$src/sparse/middle" 0 head
at "$src/sparse/middle" 9000 middle
at "$src/sparse/middle" 20476 tail
truncate -s 12K "$src/sparse/endhole"
at "$src/sparse/endhole" 0 data
truncate -s 8K "$src/sparse/allhole"
truncate -s 64K "$src/sparse/many"
for i in 1 2 3 4 5 6; do
	at "$src/sparse/many" $((i * 10000)) "run$i"
done
printf 'attrs\n' >"$src/attrs"
# 200 KiB that compress to almost nothing (see the compressed seeds)
mkdir "$src/big"
awk 'BEGIN { for (i = 0; i < 8000; i++) print "squashforge tar fuzz seed" }' \
	>"$src/big/text"
truncate -s 200K "$src/big/text"
xattrs=0
if setfattr -n user.k -v value "$src/attrs" 2>/dev/null; then
	setfattr -n user.empty "$src/attrs"
	setfattr -n user.bin -v 0x00ff00fe "$src/attrs"
	xattrs=1
fi
if [ "$(id -u)" = 0 ]; then
	mkfifo "$src/dev/fifo"
	mknod "$src/dev/null" c 1 3
	mknod "$src/dev/loop" b 7 0
fi
find "$src" -exec touch -h -d "@$EPOCH" {} +

gtar() { # NAME|PATH OPTIONS... FILES...   (a NAME goes to $out)
	local file=$1
	shift
	case $file in
	/*) ;;
	*) file=$out/$file ;;
	esac
	rm -f "$file"
	(cd "$src" && "$GNU_TAR" -c -b 1 --sort=name --owner=0 --group=0 \
		--numeric-owner --mtime="@$EPOCH" -f "$file" "$@")
}
pax_opts=(--pax-option='exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime')
sparse_opts=(-S --hole-detection=raw)
xattr_opts=()
[ "$xattrs" = 0 ] || xattr_opts=(--xattrs --xattrs-include='user.*')

# GNU tar puts the time of the run into a volume label and into the atime
# and ctime fields of incremental archives, and its process id into the
# names of sparse files in PAX archives ("GNUSparseFile.PID"): set these
# to fixed values and fix the checksums, so that the output is the same
# on every run.
normalise() { # FILE
	"$PYTHON" - "$1" "$EPOCH" <<'PY'
import re, sys

path, epoch = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
time = b"%011o\0" % epoch


def octal(field):
    field = bytes(field).strip(b" \0")
    return int(field, 8) if field else 0


pos = 0
while pos + 512 <= len(data) and any(data[pos:pos + 512]):
    h = data[pos:pos + 512]
    gnu = h[257:265] == b"ustar  \0"
    # name, and the ustar prefix (GNU headers have other fields there)
    for off, size in ((0, 100),) if gnu else ((0, 100), (345, 155)):
        field = bytes(h[off:off + size])
        fixed = re.sub(rb"GNUSparseFile\.\d+", b"GNUSparseFile.0", field)
        h[off:off + size] = fixed.ljust(size, b"\0")
    if h[156:157] == b"V":
        h[136:148] = time
    if gnu and octal(h[345:357]) != 0:
        h[345:357] = time
        h[357:369] = time
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    data[pos:pos + 512] = h
    # old GNU sparse headers: extension blocks follow while flagged
    ext = gnu and h[156:157] == b"S" and h[482] != 0
    pos += 512
    while ext:
        ext = data[pos + 504] != 0
        pos += 512
    pos += (octal(h[124:136]) + 511) // 512 * 512
open(path, "wb").write(data)
PY
}

gtar gnu-v7.tar --format=v7 small d
gtar gnu-ustar.tar --format=ustar small dev "$deep"
gtar gnu-gnu.tar --format=gnu "${sparse_opts[@]}" long sparse/middle
gtar gnu-oldgnu.tar --format=oldgnu "${sparse_opts[@]}" sparse
gtar gnu-posix.tar --format=posix "${pax_opts[@]}" small d/link d/hard long
for v in 0.0 0.1 1.0; do
	gtar "gnu-sparse-$v.tar" --format=posix "${pax_opts[@]}" \
		"${sparse_opts[@]}" --sparse-version="$v" sparse
	normalise "$out/gnu-sparse-$v.tar"
done
gtar gnu-xattrs.tar --format=posix "${pax_opts[@]}" "${xattr_opts[@]}" \
	small attrs
gtar gnu-label.tar --format=gnu -V 'volume label' small
normalise "$out/gnu-label.tar"
# GNU dump directories ('D' entries)
gtar gnu-incremental.tar --format=gnu --listed-incremental="$work/snar" d
normalise "$out/gnu-incremental.tar"

# bsdtar writes pax with LIBARCHIVE.xattr records and GNU.sparse 1.0
# maps, and its own ustar, gnutar and v7. It rewrites archives of GNU tar
# (@archive) so that nothing of the host (atime, ctime, user names) gets
# in.
bsd() { # FORMAT FILES...
	local fmt=$1
	shift
	gtar "$work/in.tar" --format=posix "${pax_opts[@]}" \
		"${sparse_opts[@]}" "${xattr_opts[@]}" "$@"
	rm -f "$out/bsd-$fmt.tar"
	"$BSDTAR" -c -b 1 --format "$fmt" -f "$out/bsd-$fmt.tar" \
		"@$work/in.tar"
}
# (libarchive 3.6.2 writes the all-hole file with an empty sparse map that
# it cannot read back, "Line too long": an archive that ends in a fatal
# error, kept as such)
bsd pax attrs long/longlink "long/$long" sparse/middle sparse/allhole
bsd ustar small d "$deep"
bsd gnutar small dev long
bsd v7 small d

# The compressions the reader recognises, around the pax archive, and
# around one of 200 KiB: the decompressors hand out 64 KiB or more at a
# time, so only a stream longer than that can go bad after the reader has
# started on the tar data (the small ones fail when opened).
gtar "$work/big.tar" --format=gnu small big
for t in gnu-posix big; do
	in=$out/$t.tar
	[ "$t" = gnu-posix ] || in=$work/$t.tar
	gzip -n -9 <"$in" >"$out/$t.tar.gz"
	xz -9 --check=crc64 <"$in" >"$out/$t.tar.xz"
	zstd -q -19 <"$in" >"$out/$t.tar.zst"
	bzip2 -9 <"$in" >"$out/$t.tar.bz2"
	lz4 -q -9 <"$in" >"$out/$t.tar.lz4"
done

# Damaged and unusual archives built header by header, with the padding
# after the two end blocks taken off.
for c in bad_checksum bad_size_garbage bad_size_huge bad_size_negative \
	bad_sparse_map bad_truncated_header bad_volume_label numbers \
	names xattrs_badns xattrs_libarchive duplicates_hardlink; do
	"$PYTHON" "$here/../integration/gen_tar.py" "$c" "$work/$c.tar"
	"$PYTHON" - "$work/$c.tar" "$out/gen-$c.tar" <<'EOF'
import sys

data = open(sys.argv[1], "rb").read()
end = len(data)
while end >= 512 and end % 512 == 0 and not any(data[end - 512:end]):
    end -= 512
end = min(len(data), end + 1024)
open(sys.argv[2], "wb").write(data[:end])
EOF
done
ls -l "$out"
du -sh "$out"

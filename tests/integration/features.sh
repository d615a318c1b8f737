#!/bin/sh
# SPDX-License-Identifier: MIT
# One archive per feature of tar2sqfs's input (doc/tar2sqfs.1), packed
# with the default options; each image is read by unsquashfs (-s, -lln, -pf),
# rdsquashfs (unpack) and, where possible, the kernel, and compared with
# the archive as Python's tarfile and GNU tar read it.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

# pack_case [--no-gnutar] [--no-pf] [--no-rd] CASE [compare options...]:
# pack the archive of CASE and check the image (kept in $WORK/CASE.sqfs).
pack_case() {
	local c tar img
	READERS=$ALL_READERS
	while :; do
		case $1 in
		--no-gnutar) without gnu ;;
		--no-pf) without pf ;;
		--no-rd) without rd ;;
		*) break ;;
		esac
		shift
	done
	c=$1
	shift
	tar=$(gen "$c")
	img=$WORK/$c.sqfs
	t2s "$img" -q <"$tar"
	if [ "$RC" != 0 ] || [ ! -s "$img" ]; then
		fail "$c: tar2sqfs exit status $RC: $(cat "$WORK/t2s.err")"
		return 1
	fi
	pass "$c: packed"
	t2s "$img.again" -q <"$tar"
	check "$c: packing twice gives identical bytes" cmp "$img" "$img.again"
	rm -f "$img.again"
	check_image "$c" "$img" "$tar" "$@"
}

# rd_stat IMAGE PATH FIELD: one field of `rdsquashfs -s`.
rd_stat() {
	"$RDSQUASHFS" -s "$2" "$1" 2>/dev/null | sed -n "s/^$3: *//p"
}

pack_case types
# device numbers beyond 8 bits need the full 32-bit encoding
expect_eq "types: /dev/nvme as rdsquashfs sees it" \
	"$(rd_stat "$WORK/types.sqfs" /dev/nvme 'Device number')" \
	"259:65600 (268501824)"

# base-256 owners; a base-256 mtime beyond 2^32 is clamped
pack_case --no-gnutar numbers --clamp

for c in long_gnu long_pax long_ustar; do
	pack_case "$c"
done

pack_case hardlinks
expect_eq "hardlinks: link count of a/file" \
	"$(rd_stat "$WORK/hardlinks.sqfs" /a/file 'Hard link count')" 3

# GNU tar cannot extract a link to an entry that comes later
pack_case --no-gnutar hardlink_forward

pack_case xattrs
xattrs_of() { "$RDSQUASHFS" -x "$2" "$1" 2>&1 | sort | tr '\n' ' '; }
expect_eq "xattrs: rdsquashfs -x /x/f1" \
	"$(xattrs_of "$WORK/xattrs.sqfs" /x/f1)" \
	"security.s=sec trusted.t=trusted value user.a=1 user.bin=0x0001FEFF "
xf1=$(rd_stat "$WORK/xattrs.sqfs" /x/f1 'Xattr index')
xf2=$(rd_stat "$WORK/xattrs.sqfs" /x/f2 'Xattr index')
check "xattrs: /x/f1 has an xattr id ($xf1)" \
	test -n "$xf1" -a "$xf1" != 0xFFFFFFFF
expect_eq "xattrs: equal xattr sets share one xattr id" "$xf2" "$xf1"
expect_eq "xattrs: a file without xattrs has none" \
	"$("$RDSQUASHFS" -x /x/plain "$WORK/xattrs.sqfs" 2>&1)" ""

pack_case --no-gnutar xattrs_libarchive
pack_case xattrs_badns
check "xattrs_badns: a warning names the dropped xattr foo.bar" \
	grep -q 'foo\.bar' "$WORK/t2s.err"

pack_case deep

new_feature "a duplicate path replaces the earlier entry"
pack_case duplicates
pack_case duplicates_hardlink
end_feature

pack_case implicit --implicit mode=0755,uid=0,gid=0,mtime=0
pack_case names
pack_case --no-gnutar mtimes --clamp
pack_case empty --implicit mode=0755,uid=0,gid=0,mtime=0

# sparse files of each GNU format: same contents, stored as sparse blocks
for c in sparse_gnu sparse_0.0 sparse_0.1 sparse_1.0; do
	pack_case "$c" || continue
	img=$WORK/$c.sqfs
	# mksquashfs caps `sparse` at file_size - 1, ng does not
	sparse=$(rd_stat "$img" /sp/allhole Sparse)
	check "$c: all-hole file is sparse throughout ($sparse)" \
		test "$sparse" -ge 5242879
	# 24 full blocks of 128 KiB, data in blocks 0, 1, 2, 8 and 16
	expect_eq "$c: holes become sparse blocks" \
		"$(rd_stat "$img" /sp/holes Sparse)" $((19 * 131072))
	size=$(file_size "$img")
	check "$c: image is small ($size bytes)" test "$size" -lt 262144
done

# a file over 4 GiB (sparse: the test stays small)
pack_case --no-pf --no-rd big
expect_eq "big: file size" \
	"$(rd_stat "$WORK/big.sqfs" /big/file 'File size')" 4298113041
expect_eq "big: an extended inode holds it" \
	"$(rd_stat "$WORK/big.sqfs" /big/file 'Inode type')" "extended file"
size=$(file_size "$WORK/big.sqfs")
check "big: image is small ($size bytes)" test "$size" -lt 1048576
# 32792 blocks of 128 KiB, data in blocks 0, 32767 and 32768
expect_eq "big: holes become sparse blocks" \
	"$(rd_stat "$WORK/big.sqfs" /big/file Sparse)" $((32789 * 131072))

# the archive formats GNU tar writes
for f in v7 ustar oldgnu gnu posix; do
	pack_case "fmt_$f"
done

finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# --offset N and --offset auto in every reader tool (rdsquashfs, sqfs2tar,
# sqfsdiff; lib/common/image_open.c): one image, made by mksquashfs, put
# after a real ELF executable (an AppImage), after 12345 arbitrary bytes
# and into a SIF container built here; each tool's output on each must be
# what it is on the plain image. Bad offsets and files holding no image
# give a message naming the file and exit status 1 (sqfsdiff: 2).

. "$(dirname "$0")/lib.sh"

RDSQ=${RDSQ:-$abs_top_builddir/rdsquashfs}
S2T=${SQFS2TAR:-$abs_top_builddir/sqfs2tar}
SD=${SQFSDIFF:-$abs_top_builddir/sqfsdiff}
for t in "$RDSQ" "$S2T" "$SD"; do
	[ -x "$t" ] || hard_error "no tool at $t"
done
[ -x "$MKSQUASHFS" ] || skip_all "$MKSQUASHFS is not installed"
ELF=/bin/true
[ -f "$ELF" ] || skip_all "no $ELF to make an AppImage of"

mkdir -p "$WORK/src/d"
seq 1 20000 >"$WORK/src/d/seq"
printf 'hello\n' >"$WORK/src/hello"
ln -s d/seq "$WORK/src/link"
"$MKSQUASHFS" "$WORK/src" "$WORK/plain.sqfs" -noappend -quiet -no-progress \
	-mkfs-time 0 -all-time 0 >/dev/null 2>&1 || hard_error "mksquashfs"

PREFIX=12345
head -c $PREFIX /dev/urandom >"$WORK/prefixed"
cat "$WORK/plain.sqfs" >>"$WORK/prefixed"
cat "$ELF" "$WORK/plain.sqfs" >"$WORK/appimage"
ELF_SIZE=$(file_size "$ELF")
# a SIF container: the global header, a definition file and the squashfs
# partition (sylabs' SIF layout: 128-byte header, 585-byte descriptors)
"$PYTHON" - "$WORK/plain.sqfs" "$WORK/sif" <<'PY' || hard_error "SIF"
import struct, sys
img = open(sys.argv[1], "rb").read()
sif = bytearray(32768)
sif[0:31] = b"#!/usr/bin/env run-singularity\n"
sif[32:42] = b"SIF_MAGIC\0"
sif[42:48] = b"01\x0002\0"
struct.pack_into("<qqqqqq", sif, 80, 46, 48, 4096, 2 * 585, 32768, len(img))
struct.pack_into("<iBIIIqqq", sif, 4096, 0x4001, 1, 1, 0xf0000001, 0,
                 30000, 5, 5)
struct.pack_into("<iBIIIqqq", sif, 4096 + 585, 0x4004, 1, 2, 0xf0000001, 0,
                 32768, len(img), len(img))
struct.pack_into("<ii3s", sif, 4096 + 585 + 201, 1, 2, b"02\0")
sif[30000:30005] = b"stub\n"
open(sys.argv[2], "wb").write(bytes(sif) + img)
PY

# outputs of the plain image
"$RDSQ" -d "$WORK/plain.sqfs" >"$WORK/plain.d" 2>&1 || hard_error "rdsquashfs"
"$RDSQ" -c d/seq "$WORK/plain.sqfs" >"$WORK/plain.c" 2>&1
"$S2T" "$WORK/plain.sqfs" >"$WORK/plain.tar" 2>&1 || hard_error "sqfs2tar"

# same OUTPUT_NAME FILE OPTIONS...: each tool on FILE with OPTIONS gives
# what it gives on the plain image
same() {
	name=$1 file=$2
	shift 2
	"$RDSQ" "$@" -d "$file" >"$WORK/out.d" 2>&1
	check "$name: rdsquashfs -d $*" cmp -s "$WORK/plain.d" "$WORK/out.d"
	"$RDSQ" "$@" -c d/seq "$file" >"$WORK/out.c" 2>&1
	check "$name: rdsquashfs -c $*" cmp -s "$WORK/plain.c" "$WORK/out.c"
	"$S2T" "$@" "$file" >"$WORK/out.tar" 2>&1
	check "$name: sqfs2tar $*" cmp -s "$WORK/plain.tar" "$WORK/out.tar"
	"$SD" "$@" -a "$file" -b "$file" >"$WORK/out.sd" 2>&1
	expect_eq "$name: sqfsdiff $* of the file with itself" "$?" 0
}

same plain "$WORK/plain.sqfs" --offset 0
same plain "$WORK/plain.sqfs" --offset auto
same prefixed "$WORK/prefixed" --offset $PREFIX
same prefixed "$WORK/prefixed" -o auto
same appimage "$WORK/appimage" --offset "$ELF_SIZE"
same appimage "$WORK/appimage" --offset auto
same sif "$WORK/sif" --offset 32K
same sif "$WORK/sif" --offset auto

# sqfsdiff: one offset per side, the plain image or the tree on the other
"$SD" --old-offset auto -a "$WORK/appimage" -b "$WORK/plain.sqfs" \
	>"$WORK/out.sd" 2>&1
expect_eq "sqfsdiff --old-offset auto: AppImage and plain image" "$?" 0
"$SD" --old-offset $PREFIX --new-offset auto -a "$WORK/prefixed" \
	-b "$WORK/sif" >"$WORK/out.sd" 2>&1
expect_eq "sqfsdiff --old-offset N --new-offset auto" "$?" 0
"$SD" -o auto --new-offset 0 -a "$WORK/appimage" -b "$WORK/plain.sqfs" \
	>"$WORK/out.sd" 2>&1
expect_eq "sqfsdiff: --new-offset wins over -o" "$?" 0
"$SD" -o auto -a "$WORK/appimage" -b "$WORK/src" >"$WORK/out.sd" 2>&1
expect_eq "sqfsdiff -o auto: a directory side ignores it" "$?" 0
"$SD" --new-offset 5 -a "$WORK/plain.sqfs" -b "$WORK/src" \
	>"$WORK/out.sd" 2>&1
expect_eq "sqfsdiff --new-offset on a directory: status" "$?" 2
check "sqfsdiff --new-offset on a directory: says so" \
	grep -q -- '--new-offset: the new side is a directory' "$WORK/out.sd"

# failures: status and words naming the file
fails() { # DESCRIPTION PATTERN TOOL ARGS...
	what=$1 pattern=$2
	shift 2
	"$@" >"$WORK/err" 2>&1
	st=$?
	if [ "$st" = 1 ] || { [ "$st" = 2 ] && [ "$1" = "$SD" ]; }; then
		if grep -q -E -- "$pattern" "$WORK/err"; then
			pass "$what"
		else
			fail "$what: said '$(cat "$WORK/err")'"
		fi
	else
		fail "$what: status $st"
	fi
}
size=$(file_size "$WORK/appimage")
fails "rdsquashfs: offset past the end" \
	"appimage: offset 1073741824 is past the end of the file \\($size" \
	"$RDSQ" -o 1G -l / "$WORK/appimage"
fails "sqfs2tar: no image at the offset" \
	"prefixed: at offset 100: .*magic" "$S2T" -o 100 "$WORK/prefixed"
fails "sqfsdiff: nothing found" \
	"true: no SquashFS image found: ELF: no image where the executable ends" \
	"$SD" -o auto -a "$ELF" -b "$WORK/plain.sqfs"
fails "rdsquashfs: a bad offset" "--offset: 'x12'" \
	"$RDSQ" --offset x12 -l / "$WORK/plain.sqfs"
fails "sqfs2tar: a negative offset" "--offset: '-5'" \
	"$S2T" --offset -5 "$WORK/plain.sqfs"
head -c 100000 /dev/zero >"$WORK/zeros"
fails "rdsquashfs: auto on zeros" \
	"zeros: no SquashFS image found: .*no valid superblock in the first 100000 bytes" \
	"$RDSQ" -o auto -l / "$WORK/zeros"

finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# The writer flags for parts stored uncompressed and for no padding, held
# against squashfs-tools 4.7.5: one tree (raw_image.c) packed by its
# mksquashfs with -noI, -noId, -noI -noId, -noD, -noF, -noX,
# -no-compression and -nopad, and written by the library with the flags
# standing for them. Its unsquashfs -s must say the same about what is
# compressed for both, its unsquashfs must extract ours to the tree, and
# the kernel must mount ours (as root; not the -nopad one, which the
# kernel refuses from a loop device as it does 4.7.5's) and show the tree.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_ref.sh"

RAW=$abs_top_builddir/tests/integration/raw_image
[ -x "$RAW" ] || hard_error "no helper at $RAW"

"$RAW" tree "$WORK/tree" || hard_error "raw_image tree failed"
# the times the library writes: 0
find "$WORK/tree" -exec touch -h -d @0 {} +

# what unsquashfs -s says about compression (the superblock flags)
flags_of() {
	"$REF_BIN/unsquashfs" -s "$1" 2>&1 |
		grep -E '(are|is) (un)?compressed$' | tr '\n' ';'
}

for opts in none noI noId noI,noId noD noF noX no-compression nopad; do
	img=$WORK/ours-$opts.sqfs
	ref=$WORK/ref-$opts.sqfs
	args=
	[ "$opts" = none ] || args=$(echo "-$opts" | sed 's/,/ -/g')
	# shellcheck disable=SC2086
	"$REF_BIN/mksquashfs" "$WORK/tree" "$ref" -noappend -quiet \
		-no-progress -mkfs-time 0 $args >/dev/null 2>&1 ||
		hard_error "mksquashfs $args failed"
	if ! "$RAW" image "$opts" "$img" 2>"$WORK/err"; then
		fail "$opts: raw_image failed: $(cat "$WORK/err")"
		continue
	fi
	expect_eq "$opts: unsquashfs -s says what 4.7.5's image says" \
		"$(flags_of "$img")" "$(flags_of "$ref")"

	rm -rf "$WORK/x"
	if "$REF_BIN/unsquashfs" -no-progress -d "$WORK/x" "$img" \
		>/dev/null 2>"$WORK/err"; then
		check "$opts: unsquashfs 4.7.5 extracts the tree" \
			cmp_tree --ignore-root "dir:$WORK/tree" "dir:$WORK/x"
	else
		fail "$opts: unsquashfs 4.7.5: $(cat "$WORK/err")"
	fi

	# a loop device ends at the last whole 512 bytes and the kernel reads
	# 1 KiB blocks: it refuses 4.7.5's -nopad images as well
	if [ "$opts" != nopad ] && can_mount; then
		if mount_image "$img" "$WORK/mnt" 2>"$WORK/err"; then
			check "$opts: the kernel mounts the tree" \
				cmp_tree --ignore-root "dir:$WORK/tree" \
				"dir:$WORK/mnt"
			umount_image "$WORK/mnt"
		else
			fail "$opts: mount: $(cat "$WORK/err")"
		fi
	fi
done

# -nopad: both end where bytes_used says
for who in ours ref; do
	img=$WORK/$who-nopad.sqfs
	expect_eq "$who -nopad: file size is bytes_used" \
		"$(file_size "$img")" "$(sb_field "$img" "Filesystem size")"
done
check "padded images are multiples of 4 KiB" \
	test $(($(file_size "$WORK/ours-none.sqfs") % 4096)) = 0

finish

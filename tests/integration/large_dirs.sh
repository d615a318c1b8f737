#!/bin/sh
# SPDX-License-Identifier: MIT
# Directories of 300 entries (more than one 256-entry header run) and of
# 20,000 (many metadata blocks, a directory index), read back by every
# reader; lookups of single names go through the index.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

# rd_stat IMAGE PATH FIELD: one field of `rdsquashfs -s`.
rd_stat() {
	"$RDSQUASHFS" -s "$2" "$1" 2>/dev/null | sed -n "s/^$3: *//p"
}

for c in dir300 dir20000; do
	tar=$(gen "$c")
	img=$WORK/$c.sqfs
	t2s "$img" -q <"$tar"
	if [ "$RC" != 0 ]; then
		fail "$c: tar2sqfs exit status $RC: $(cat "$WORK/t2s.err")"
		continue
	fi
	check_image "$c" "$img" "$tar"
done

img=$WORK/dir300.sqfs
expect_eq "dir300: rdsquashfs -l lists 302 entries" \
	"$("$RDSQUASHFS" -l /d300 "$img" | wc -l)" 302
new_feature "directory link count = 2 + subdirectories"
expect_eq "dir300: link count of /d300 (one subdirectory)" \
	"$(rd_stat "$img" /d300 'Hard link count')" 3
end_feature

img=$WORK/dir20000.sqfs
expect_eq "dir20000: rdsquashfs -l lists 20000 entries" \
	"$("$RDSQUASHFS" -l /d20k "$img" | wc -l)" 20000
expect_eq "dir20000: an extended directory inode (it has an index)" \
	"$(rd_stat "$img" /d20k 'Inode type')" "extended directory"
idx=$(rd_stat "$img" /d20k 'Directory index entries')
check "dir20000: the directory index has entries ($idx)" \
	test "${idx:-0}" -gt 1
new_feature "directory link count = 2 + subdirectories"
expect_eq "dir20000: link count of /d20k (20 subdirectories)" \
	"$(rd_stat "$img" /d20k 'Hard link count')" 22
end_feature
# single lookups of the first, a middle and the last names (gen_tar.py:
# name e%05d plus i % 37 underscores, content "i" when i % 4 == 0)
name_of() { $PYTHON -c "print('e%05d%s' % ($1, '_' * ($1 % 37)))"; }
for i in 0 9999 19996; do
	want=
	[ $((i % 4)) = 0 ] && want=$i
	expect_eq "dir20000: rdsquashfs -c of entry $i" \
		"$("$RDSQUASHFS" -c "/d20k/$(name_of $i)" "$img" 2>&1)" "$want"
done
if can_mount && mount_image "$img" "$WORK/mnt"; then
	expect_eq "dir20000: kernel lookup of entry 19996" \
		"$(cat "$WORK/mnt/d20k/$(name_of 19996)")" 19996
	expect_eq "dir20000: kernel readdir count (with . and ..)" \
		"$(ls -f "$WORK/mnt/d20k" | wc -l)" 20002
	umount_image "$WORK/mnt"
fi

finish

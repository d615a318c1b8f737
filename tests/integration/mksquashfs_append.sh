#!/bin/sh
# SPDX-License-Identifier: MIT
# mksquashfs appending (no -noappend) against squashfs-tools 4.7.5
# (lib_ref.sh): rounds of different trees appended by 4.7.5 and by ours
# from the same start, with every compressor, the images mounted by the
# kernel (or listed by unsquashfs -pf) and compared entry by entry after
# each round; -root-becomes; equal to one pack of everything where the
# names do not collide; the old data area a byte prefix of the new image;
# a new file equal to an old one adding no blocks; -offset; each tool
# appending to the other's image; a damaged DEST refused (exit 1) and left
# as it was. MK=/path overrides the tool under test.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_rdsquashfs.sh"
. "$HERE/lib_ref.sh"

MK=${MK:-$abs_top_builddir/mksquashfs}
RD=${RD:-$abs_top_builddir/rdsquashfs}
[ -x "$MK" ] || hard_error "no tool to test at $MK (set MK)"

# the trees of the rounds: T1 rich; T2 names T1 has (f1_1 ...), a copy of
# a T1 file; T3 small; T4 two sources (a directory and a file)
T=$WORK/trees
make_source "$T/t1"
mkdir -p "$T/t2/sub" "$T/t2/new" "$T/t3/x" "$T/t4"
cp "$T/t1/sub/rand_300000" "$T/t2/copy_of_rand"
cp "$T/t1/sub/rand_4095" "$T/t2/copy_of_small"
printf 'other hello\n' >"$T/t2/hello.txt"
printf 'in t2\n' >"$T/t2/sub/t2file"
printf 'new\n' >"$T/t2/new/file"
ln "$T/t2/new/file" "$T/t2/new/link"
printf 'three\n' >"$T/t3/x/y"
ln -s x/y "$T/t3/sl"
printf 'four\n' >"$T/t4/file4"
mkdir -p "$T/t4/d4"
printf 'in d4\n' >"$T/t4/d4/e"
chmod 750 "$T/t2"
find "$T" -depth -exec touch -h -d @1600000000 {} +
touch -d @1700000000 "$T/t2" "$T/t3"

# the superblock's inode_table_start of IMAGE (at OFFSET)
inode_table_start() {
	od -An -tu8 -j $((${2:-0} + 64)) -N8 "$1" | tr -d ' '
}

# same_tree NAME REF OURS: the images as the kernel sees them, or as
# unsquashfs -pf lists them where nothing mounts
same_tree() {
	local name=$1 r=$2 o=$3
	shift 3
	if can_mount; then
		mount_image "$r" "$WORK/mr" || {
			fail "$name: ref image does not mount"
			return
		}
		if mount_image "$o" "$WORK/mo"; then
			check "$name: mounted trees equal" \
				cmp_tree "$@" "dir:$WORK/mr" "dir:$WORK/mo"
			umount_image "$WORK/mo"
		else
			fail "$name: our image does not mount"
		fi
		umount_image "$WORK/mr"
	else
		"$REF_BIN/unsquashfs" -pf "$WORK/r.pf" "$r" >/dev/null 2>&1
		"$REF_BIN/unsquashfs" -pf "$WORK/o.pf" "$o" >/dev/null 2>&1
		check "$name: pseudo listings equal" \
			cmp_tree "$@" "pf:$WORK/r.pf" "pf:$WORK/o.pf"
	fi
}

# append TOOL IMAGE SOURCES... -- OPTIONS: one round; status in RC
append() {
	local tool=$1 img=$2 srcs=
	shift 2
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		srcs="$srcs $1"
		shift
	done
	shift
	if [ "$tool" = ref ]; then tool=$REF_BIN/mksquashfs; else tool=$MK; fi
	# shellcheck disable=SC2086
	"$tool" $srcs "$img" -no-progress -quiet "$@" >"$img.out" 2>"$img.err"
	RC=$?
	if grep -q 'Sanitizer\|runtime error' "$img.err"; then
		fail "$(basename "$img"): sanitizer report"
		head -20 "$img.err"
	fi
}

# rounds COMP START_TOOL: the same start (made by START_TOOL), then four
# rounds by each tool; trees compared after each, old data kept by ours
rounds() {
	local comp=$1 start=$2 d=$WORK/r-$1-$2 n its
	mkdir -p "$d"
	append "$start" "$d/start.img" "$T/t1" -- -noappend -comp "$comp" \
		-b 64K
	expect_eq "$comp/$start: start image" "$RC" 0
	cp "$d/start.img" "$d/ref.img"
	cp "$d/start.img" "$d/our.img"
	n=0
	for args in "$T/t2 --" "$T/t3 -- -root-becomes old" \
		"$T/t4/d4 $T/t4/file4 --" "$T/t2 -- -b 4K -comp gzip"; do
		n=$((n + 1))
		cp "$d/our.img" "$d/before.img"
		its=$(inode_table_start "$d/our.img")
		# shellcheck disable=SC2086
		append ref "$d/ref.img" $args
		expect_eq "$comp/$start round $n: 4.7.5 status" "$RC" 0
		# shellcheck disable=SC2086
		append ours "$d/our.img" $args
		expect_eq "$comp/$start round $n: status" "$RC" 0
		[ "$RC" = 0 ] || head -5 "$d/our.img.err"
		# the root's time is the run's where several sources make it
		if [ "$n" = 3 ]; then
			same_tree "$comp/$start round $n" "$d/ref.img" \
				"$d/our.img" --ignore-root
		else
			same_tree "$comp/$start round $n" "$d/ref.img" \
				"$d/our.img"
		fi
		check "$comp/$start round $n: old data area kept" \
			cmp -s -i 96 -n $((its - 96)) "$d/before.img" \
			"$d/our.img"
		expect_eq "$comp/$start round $n: compressor kept" \
			"$(sb_field "$d/our.img" Compression)" \
			"$(sb_field "$d/ref.img" Compression)"
		expect_eq "$comp/$start round $n: block size kept" \
			"$(sb_field "$d/our.img" 'Block size')" 65536
	done
	# the names 4.7.5 gives: f1_1 and the like
	expect_eq "$comp/$start: the same renames" \
		"$(grep -c 'already used' "$d/our.img.err")" \
		"$(grep -c 'already used' "$d/ref.img.err")"
}

for comp in gzip xz lz4 zstd lzo; do
	rounds "$comp" ref
done
rounds gzip ours

# each tool appends to the other's image
d=$WORK/cross
mkdir -p "$d"
append ours "$d/o.img" "$T/t1" -- -noappend -comp xz
append ref "$d/r.img" "$T/t1" -- -noappend -comp xz
append ref "$d/o.img" "$T/t2" --
expect_eq "4.7.5 appends to our image" "$RC" 0
append ours "$d/r.img" "$T/t2" --
expect_eq "we append to 4.7.5's image" "$RC" 0
same_tree "appended across" "$d/o.img" "$d/r.img"

# equal to one pack of everything when no name collides: T3 onto T1 is
# T1 and T3 in one directory that has T3's attributes
d=$WORK/whole
mkdir -p "$d/all"
cp -a "$T/t1/." "$d/all/"
cp -a "$T/t3/." "$d/all/"
chmod --reference="$T/t3" "$d/all"
touch -d @1700000000 "$d/all"
append ours "$d/app.img" "$T/t1" -- -noappend
append ours "$d/app.img" "$T/t3" --
append ours "$d/one.img" "$d/all" -- -noappend
same_tree "append = one pack" "$d/one.img" "$d/app.img"

# dedup against old data: the copy points at the old blocks and adds
# nothing but metadata
d=$WORK/dedup
mkdir -p "$d"
append ours "$d/i.img" "$T/t1" -- -noappend
size0=$(file_size "$d/i.img")
append ours "$d/i.img" "$T/t2" --
s1=$("$RD" --stat sub/rand_300000 "$d/i.img" | grep 'Blocks start')
s2=$("$RD" --stat copy_of_rand "$d/i.img" | grep 'Blocks start')
expect_eq "a new file equal to an old one: the old blocks" "$s2" "$s1"
f1=$("$RD" --stat sub/rand_4095 "$d/i.img" | grep 'Fragment')
f2=$("$RD" --stat copy_of_small "$d/i.img" | grep 'Fragment')
expect_eq "a new tail equal to an old one: the old fragment" "$f2" "$f1"
check "the image grew by less than the copy" \
	test $(($(file_size "$d/i.img") - size0)) -lt 300000

# -offset: the image after a prefix is appended to, the prefix kept
d=$WORK/offset
mkdir -p "$d"
head -c 5000 /dev/urandom >"$d/prefix"
for t in ref ours; do
	cp "$d/prefix" "$d/$t.img"
	append "$t" "$d/$t.img" "$T/t1" -- -noappend -offset 5000
	append "$t" "$d/$t.img" "$T/t2" -- -offset 5000
	expect_eq "-offset: $t status" "$RC" 0
done
check "-offset: prefix kept" cmp -s -n 5000 "$d/prefix" "$d/ours.img"
"$REF_BIN/unsquashfs" -o 5000 -lls "$d/ref.img" >"$d/ref.ls" 2>&1
"$REF_BIN/unsquashfs" -o 5000 -lls "$d/ours.img" >"$d/ours.ls" 2>&1
check "-offset: the same listing" cmp -s "$d/ref.ls" "$d/ours.ls"

# a damaged DEST: refused, exit 1, left as it was
d=$WORK/damaged
mkdir -p "$d"
append ours "$d/good.img" "$T/t1" -- -noappend
damage() { # NAME COMMAND...: make d/NAME.img from good.img, try to append
	local name=$1
	shift
	cp "$d/good.img" "$d/$name.img"
	"$@" "$d/$name.img"
	sum=$(sum_of "$d/$name.img")
	append ours "$d/$name.img" "$T/t3" --
	expect_eq "damaged ($name): exit status" "$RC" 1
	expect_eq "damaged ($name): left as it was" \
		"$(sum_of "$d/$name.img")" "$sum"
	check "damaged ($name): no temporary file left" \
		test "$(ls "$d" | grep -c tmp)" = 0
}
damage truncated truncate -s 20000
damage superblock sh -c 'printf "\377\377\377\377" |
	dd of="$0" bs=1 seek=40 conv=notrunc 2>/dev/null'
damage tables sh -c 'its=$(od -An -tu8 -j64 -N8 "$0" | tr -d " ");
	head -c 200 /dev/urandom | dd of="$0" bs=1 seek=$its conv=notrunc \
	2>/dev/null'
damage garbage sh -c 'head -c 100000 /dev/urandom >"$0"'

finish

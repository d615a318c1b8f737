#!/bin/sh
# SPDX-License-Identifier: MIT
# The mksquashfs personality against squashfs-tools 4.7.5 (lib_ref.sh),
# both run on the same tree (every entry type, hard-link groups, xattrs,
# sparse files, odd names, big ids) with the command lines of distribution
# build systems. For each: the same exit status; the two images mounted
# by the kernel and compared entry by entry (every attribute, xattrs,
# hard links, contents); `unsquashfs -s` of both the same but for sizes,
# times and counts. Then bad input of every kind (the same exit class, no
# image, an existing one untouched), -offset, -info, -percentage,
# -version, and the same bytes at any -processors.
# MK=/path overrides the tool under test.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_rdsquashfs.sh"
. "$HERE/lib_ref.sh"

MK=${MK:-$abs_top_builddir/mksquashfs}
[ -x "$MK" ] || hard_error "no tool to test at $MK (set MK)"

SRC=$WORK/src
make_source "$SRC"
mkdir -p "$SRC/links/x" "$SRC/links/y"
printf 'three\n' >"$SRC/links/a"
ln "$SRC/links/a" "$SRC/links/x/b"
ln "$SRC/links/a" "$SRC/links/y/c"
if [ "$IS_ROOT" = 1 ]; then
	chown 70000:80000 "$SRC/links/a"
	mknod "$SRC/links/bigdev" b 4095 1048575
fi
find "$SRC" -depth -exec touch -h -d @1600000000 {} +
TEXT=$WORK/text
mkdir -p "$TEXT/d"
for i in $(seq 1 50); do echo "file $i" >"$TEXT/d/f$i"; done
touch -d @1600000000 "$TEXT" "$TEXT/d" "$TEXT"/d/*

# run WHICH OUT SOURCES... -- OPTIONS...: one tool's run; status in RC,
# output in OUT.out and OUT.err
run() {
	local tool=$1 out=$2 srcs=
	shift 2
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		srcs="$srcs $1"
		shift
	done
	shift
	if [ "$tool" = ref ]; then tool=$REF_BIN/mksquashfs; else tool=$MK; fi
	# shellcheck disable=SC2086
	"$tool" $srcs "$out" "$@" >"$out.out" 2>"$out.err"
	RC=$?
	if grep -q 'Sanitizer\|runtime error' "$out.err"; then
		fail "$(basename "$out"): sanitizer report"
		head -20 "$out.err"
	fi
}

# What `unsquashfs -s` says that must agree: kinds and flags, not sizes,
# times or counts. With $NO_XATTRS_IN_SOURCE set, not the xattr line
# either: where a tree has no xattrs, 4.7.5 writes an empty xattr table
# and we write none (doc/compat.md); that line is checked on
# its own.
NO_XATTRS_IN_SOURCE=
sflags() {
	"$REF_BIN/unsquashfs" -s "$1" 2>&1 |
		grep -v 'size\|time\|Number of\|Found a valid\|bytes' |
		if [ -n "$NO_XATTRS_IN_SOURCE" ]; then
			grep -v '^Xattrs are'
		else
			cat
		fi
}

# same_tree NAME REF OURS [compare_tree options]: the two images as the
# kernel sees them, or as unsquashfs -pf writes them where nothing mounts
NO_MOUNT=
same_tree() {
	local name=$1 r=$2 o=$3
	shift 3
	# an unpadded image does not mount from a loop device (neither
	# 4.7.5's nor ours): its last block is short
	if [ -z "$NO_MOUNT" ] && can_mount; then
		mount_image "$r" "$WORK/mr" || { fail "$name: ref image does not mount"; return; }
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

# both NAME SOURCES... -- OPTIONS...: both tools, the same exit status,
# and when both succeed the same tree and flags. $CMP holds options for
# compare_tree (--ignore-root where the root is made at run time).
CMP=
both() {
	local name=$1 d=$WORK/inv/$1 rref
	shift
	mkdir -p "$d"
	run ref "$d/ref.img" "$@"
	rref=$RC
	run ours "$d/our.img" "$@"
	expect_eq "$name: exit status" "$RC" "$rref"
	if [ "$RC" != 0 ] || [ "$rref" != 0 ]; then
		head -5 "$d/our.img.err" "$d/ref.img.err"
		return
	fi
	# shellcheck disable=SC2086
	same_tree "$name" "$d/ref.img" "$d/our.img" $CMP
	expect_eq "$name: unsquashfs -s flags" "$(sflags "$d/our.img")" \
		"$(sflags "$d/ref.img")"
	if [ -n "$NO_XATTRS_IN_SOURCE" ]; then
		check "$name: no xattr table" sh -c "'$REF_BIN/unsquashfs' \
			-s '$d/our.img' | grep -qx 'Xattrs are not stored'"
	fi
}

# ---------------------------------------------------------- invocations
# The command lines of build systems (issue 22), on SRC.

both archiso "$SRC" -- -noappend -comp xz -Xbcj x86 -b 1M -Xdict-size 1M \
	-no-progress -quiet
printf 'sub/text\n\n# a comment\n  keep\n' >"$WORK/excludes"
both live-build "$SRC" -- -wildcards -ef "$WORK/excludes" \
	-Xcompression-level 6 -comp gzip -info -no-progress -noappend
both buildroot-gzip "$SRC" -- -noappend -processors 2 -b 4K -comp gzip \
	-Xcompression-level 9
both buildroot-zstd "$SRC" -- -noappend -processors 2 -b 1024K -comp zstd \
	-Xcompression-level 22
both buildroot-lz4 "$SRC" -- -noappend -processors 1 -b 64K -comp lz4 -Xhc
both buildroot-xz "$SRC" -- -noappend -b 256K -comp xz -Xbcj arm,armthumb
both buildroot-lzo "$SRC" -- -noappend -comp lzo -Xalgorithm lzo1x_999 \
	-Xcompression-level 9
SOURCE_DATE_EPOCH=1500000000
export SOURCE_DATE_EPOCH
both yocto "$SRC" -- -noappend -comp xz
SOURCE_DATE_EPOCH=0
both flatcar "$SRC" -- -all-root -noappend -xattrs-exclude '^user.b'
unset SOURCE_DATE_EPOCH
CMP=--ignore-root
both nixos "$SRC/sub" "$SRC/keep" "$SRC/hello.txt" -- \
	-p "nix D 1600000000 0755 0 0" -p "nix/store D 1600000000 0755 0 0" \
	-no-hardlinks -keep-as-directory -all-root -b 1048576 -comp xz \
	-Xdict-size 100% -processors 2 -root-mode 0755 -noappend
CMP=
both lorax "$SRC" -- -comp xz -Xbcj x86 -noappend
both kiwi "$SRC" -- -noappend -b 1M -comp xz -Xbcj x86 -wildcards \
	-e '... rand_1*' deep
both alpine "$SRC" -- -comp xz -exit-on-error -Xbcj x86 -noappend
both kiwi-raw "$SRC" -- -noappend -b 1M -comp xz -noI -noD -noF -noX
both buildroot-raw "$SRC" -- -noappend -processors 2 -b 4K -no-compression
both no-id "$SRC" -- -noappend -noId
NO_MOUNT=1
both openwrt "$SRC" -- -nopad -noappend -root-owned -comp xz -Xpreset 9 -Xe \
	-Xlc 0 -Xlp 2 -Xpb 2 -b 256k -p '/dev D 1600000000 755 0 0' \
	-p '/dev/console C 1600000000 600 0 0 5 1' -processors 2
NO_MOUNT=
both appimagetool "$SRC" -- -comp zstd -root-owned -noappend -b 128K \
	-wildcards -ef "$WORK/excludes" -mkfs-time 0
both snap "$SRC" -- -noappend -comp xz -no-fragments -no-progress \
	-all-root -no-xattrs
both systemd-repart "$SRC" -- -noappend
both chromeos "$SRC" -- -all-root -no-recovery -no-exports -exit-on-error \
	-no-progress -b 1M -root-mode 0755 -noappend
both apptainer "$SRC" -- -noappend -all-root -mem 1G -processors 2 \
	-comp gzip -quiet -percentage
CMP=--ignore-root NO_XATTRS_IN_SOURCE=1
both dracut-probe /dev/null -- -no-progress -comp xz -noappend
CMP= NO_XATTRS_IN_SOURCE=
both dracut "$SRC" -- -no-xattrs -no-exports -noappend -no-recovery \
	-always-use-fragments -no-progress -e sub
both catalyst "$SRC" -- -comp zstd -Xcompression-level 19 -b 1M \
	-no-recovery -noappend
both talos "$SRC" -- -all-root -noappend -no-progress -comp zstd \
	-Xcompression-level 18
both talos-selinux "$SRC" -- -all-root -noappend -xattrs-exclude '.*' \
	-p "hello.txt x security.selinux=system_u:object_r:etc_t:s0"
(cd "$SRC" && both ubuntu . -- -no-progress -xattrs -comp xz -noappend)

# ------------------------------------------------------- each option
CMP=--ignore-root
both multi "$SRC/sub" "$SRC/keep" "$SRC/hello.txt" "$SRC/link_rel" \
	"$TEXT/d" "$SRC/links/x" -- -noappend
both keep-as-dir "$SRC/sub" -- -keep-as-directory -noappend
both same-names "$SRC/sub" "$TEXT/d" "$SRC/links/x" "$SRC/links/y" -- \
	-noappend
CMP=
both tailends "$SRC" -- -tailends -noappend
both no-frag "$SRC" -- -no-fragments -noappend
both no-dup "$SRC" -- -no-duplicates -noappend
both no-hardlinks "$SRC" -- -no-hardlinks -noappend
both no-sparse "$SRC" -- -no-sparse -noappend
both no-exports "$SRC" -- -no-exports -noappend
both owners "$SRC" -- -force-uid 12 -force-gid 34 -noappend
both offset-ids "$SRC" -- -uid-gid-offset 1000 -noappend
both modes "$SRC" -- -force-file-mode go-rwx -force-dir-mode 0750 -noappend
both symbolic "$SRC" -- -force-file-mode u=rwX,g=u,o= -noappend
both root-attrs "$SRC" -- -root-mode 0700 -root-uid 5 -root-gid 6 \
	-root-time 1234 -noappend
both inode-time "$SRC" -- -inode-time 1000000 -noappend
both repro-time "$SRC" -- -repro-time 1000000 -noappend
both repro "$SRC" -- -repro -noappend
both max-depth "$SRC" -- -max-depth 2 -noappend
CMP=--ignore-root
both max-depth-multi "$SRC/sub" "$SRC/links" -- -max-depth 2 -noappend
CMP=
both exclude-plain "$SRC" -- -e sub/inner links/x hello.txt -noappend
both exclude-abs "$SRC" -- -e "$SRC/sub/inner" -noappend
both exclude-regex "$SRC" -- -regex -e '^sub$' '^link' -noappend
both xattrs-include "$SRC" -- -xattrs-include '^user.t' -noappend
both xattrs-add "$SRC" -- -xattrs-add user.added=1 \
	-xattrs-add 'trusted.hex=0x0102ff' -noappend
both no-xattrs "$SRC" -- -no-xattrs -noappend
both pseudo "$SRC" -- -p 'made D 1600000000 0750 7 8' \
	-p 'made/fifo I 1600000000 0644 1 2 f' \
	-p 'made/sym S 1600000000 0777 3 4 ../hello.txt' \
	-p 'made/blk B 1600000000 0600 0 6 8 1' \
	-p 'sub m 0700 9 9' -p 'made/hl L made/blk' \
	-p "made/host l $SRC/sub/text" -noappend
both pseudo-pd "$SRC" -- -pd 'D 1600000000 0711 3 3' \
	-p 'a/b/c C 1600000000 0600 0 0 1 7' -noappend
printf '%s\n' '# pseudo file' 'pf D 1600000000 0700 1 1' \
	'"pf/with space" S 1600000000 0777 0 0 target' 'zero x user.pf=yes' \
	>"$WORK/pseudo.txt"
both pseudo-file "$SRC" -- -pf "$WORK/pseudo.txt" -noappend
printf 'sub/text 100\nhello.txt -5\n./nowhere 3\n' >"$WORK/sort.txt"
both sort "$SRC" -- -sort "$WORK/sort.txt" -noappend
NO_XATTRS_IN_SOURCE=1
for c in gzip xz lzo lz4 zstd; do
	both "comp-$c" "$TEXT" -- -comp "$c" -noappend -b 8K
done
both gzip-options "$TEXT" -- -comp gzip -Xwindow-size 10 \
	-Xstrategy filtered,huffman_only -noappend
both xz-dict "$TEXT" -- -comp xz -Xdict-size 50% -noappend
NO_XATTRS_IN_SOURCE=

# ------------------------------------------------------- bad input
# the same exit class as 4.7.5, no image from us, an existing one kept
bad() {
	local name=$1 d=$WORK/bad/$1
	shift
	mkdir -p "$d"
	run ref "$d/ref.img" "$@"
	local rref=$RC
	printf 'keep me' >"$d/our.img"
	run ours "$d/our.img" "$@"
	expect_eq "bad $name: exit status as 4.7.5's" "$RC" "$rref"
	check "bad $name: exit status not 0" test "$RC" != 0
	expect_eq "bad $name: existing file untouched" "$(cat "$d/our.img")" \
		"keep me"
	check "bad $name: says why" test -s "$d/our.img.err" -o \
		-s "$d/our.img.out"
	check "bad $name: no temporary file left" \
		test "$(ls -A "$d" | grep -c tmp)" = 0
}
bad unknown-option "$SRC" -- -noappend -foo
bad block-size "$SRC" -- -noappend -b 3000
bad block-size-word "$SRC" -- -noappend -b big
bad block-missing "$SRC" -- -noappend -b
bad compressor "$SRC" -- -noappend -comp bogus
bad x-option "$SRC" -- -noappend -Xhc
bad x-value "$SRC" -- -noappend -comp zstd -Xcompression-level 99
bad dict-size "$SRC" -- -noappend -comp xz -Xdict-size 3000
bad no-source "$WORK/nowhere" -- -noappend
bad processors "$SRC" -- -noappend -processors 0
bad pseudo-parent "$SRC" -- -noappend -p 'x/y d 755 0 0'
bad pseudo-type "$SRC" -- -noappend -p 'x Q 755 0 0'
bad exclude-file "$SRC" -- -noappend -ef "$WORK/nowhere"
bad wildcard-abs "$SRC" -- -noappend -wildcards -e /abs
bad repro-mkfs "$SRC" -- -noappend -repro -mkfs-time 5
bad repro-times "$SRC" -- -noappend -repro-time 5 -mkfs-time 6
bad bad-time "$SRC" -- -noappend -mkfs-time 'not a date at all'
bad sort-line "$SRC" -- -noappend -sort "$WORK/excludes"
SOURCE_DATE_EPOCH=100
export SOURCE_DATE_EPOCH
bad sde-mkfs "$SRC" -- -noappend -mkfs-time 5
bad sde-inode "$SRC" -- -noappend -inode-time 5
bad sde-repro-time "$SRC" -- -noappend -repro-time 5
SOURCE_DATE_EPOCH=junk
bad sde-junk "$SRC" -- -noappend
unset SOURCE_DATE_EPOCH

# refused NAME OPTION SOURCES -- OPTIONS: what we refuse where 4.7.5 goes
# on: exit 1, no image, DEST kept, OPTION named
refused() {
	local name=$1 option=$2 d=$WORK/refused/$1
	shift 2
	mkdir -p "$d"
	printf 'keep me' >"$d/our.img"
	run ours "$d/our.img" "$@"
	expect_eq "refused $name: exit status" "$RC" 1
	expect_eq "refused $name: existing file untouched" \
		"$(cat "$d/our.img")" "keep me"
	check "refused $name: names $option" grep -q -- "$option" \
		"$d/our.img.err"
}
refused action -action "$SRC" -- -noappend -action 'prune@name(x)'
refused stream -stream "$SRC" -- -noappend -stream

# DEST a directory: refused by both
mkdir -p "$WORK/destdir"
run ours "$WORK/destdir" "$SRC" -- -noappend
check "DEST a directory: refused" test "$RC" = 1
run ref "$WORK/destdir" "$SRC" -- -noappend
check "DEST a directory: refused by 4.7.5 too" test "$RC" != 0

# appending: tests/integration/mksquashfs_append.sh; a file that is not an
# image is refused without -noappend and left as it is
head -c 5000 /dev/urandom >"$WORK/app.img"
cp "$WORK/app.img" "$WORK/app.before"
run ours "$WORK/app.img" "$SRC" -- -no-progress
expect_eq "append to a non-image refused" "$RC" 1
check "append: the file untouched" cmp -s "$WORK/app.img" \
	"$WORK/app.before"

# ------------------------------------------------------- unreadable input
# Packed by a user who cannot read all of the tree: 4.7.5 leaves out a
# directory it cannot list and packs an unreadable file empty, warning of
# each, and stops at the first with -exit-on-error. Ours the same.
if [ "$IS_ROOT" = 1 ] && id nobody >/dev/null 2>&1; then
	P=$WORK/perm
	mkdir -p "$P/tree/closed" "$P/tree/open"
	echo a >"$P/tree/open/ok"
	echo b >"$P/tree/secret"
	echo c >"$P/tree/closed/x"
	chmod 000 "$P/tree/secret" "$P/tree/closed"
	chmod 755 "$WORK"
	chmod 777 "$P"
	for o in "" -exit-on-error; do
		for t in ref ours; do
			bin=$MK
			[ "$t" = ref ] && bin=$REF_BIN/mksquashfs
			rm -f "$P/$t.img"
			su nobody -s /bin/sh -c "'$bin' '$P/tree' '$P/$t.img' \
				-noappend -quiet -no-progress $o \
				>'$P/$t.out' 2>&1; echo \$? >'$P/$t.rc'"
		done
		expect_eq "unreadable input ${o:-(default)}: exit status" \
			"$(cat "$P/ours.rc")" "$(cat "$P/ref.rc")"
		if [ -z "$o" ]; then
			CMP=--ignore-root
			same_tree "unreadable input" "$P/ref.img" "$P/ours.img" \
				--ignore-root
			CMP=
			check "unreadable input: both named" sh -c \
				"grep -q closed '$P/ours.out' && grep -q secret '$P/ours.out'"
		else
			check "-exit-on-error: no image" test ! -e "$P/ours.img"
		fi
	done
	chmod 755 "$P/tree/closed"
	chmod 644 "$P/tree/secret"
fi

# ------------------------------------------------------- -offset
head -c 5000 /dev/urandom >"$WORK/runtime"
cp "$WORK/runtime" "$WORK/off.img"
run ours "$WORK/off.img" "$SRC" -- -offset 5000 -noappend -comp zstd
expect_eq "-offset: status" "$RC" 0
check "-offset: the first 5000 bytes kept" cmp -s -n 5000 "$WORK/runtime" \
	"$WORK/off.img"
cp "$WORK/runtime" "$WORK/off-ref.img"
run ref "$WORK/off-ref.img" "$SRC" -- -offset 5000 -noappend -comp zstd
"$REF_BIN/unsquashfs" -o 5000 -lln -UTC "$WORK/off.img" >"$WORK/off.l" 2>&1
"$REF_BIN/unsquashfs" -o 5000 -lln -UTC "$WORK/off-ref.img" \
	>"$WORK/off-ref.l" 2>&1
check "-offset: unsquashfs -o lists the same tree" \
	cmp -s "$WORK/off.l" "$WORK/off-ref.l"
run ours "$WORK/off2.img" "$TEXT" -- -o 1K -noappend
check "-o on a new file: zeros before the image" \
	cmp -s -n 1024 "$WORK/off2.img" /dev/zero

# ------------------------------------------------------- output
run ours "$WORK/info.img" "$TEXT" -- -info -noappend
run ref "$WORK/info-ref.img" "$TEXT" -- -info -noappend
expect_eq "-info: the same file lines" \
	"$(grep '^file ' "$WORK/info.img.out" | sort)" \
	"$(grep '^file ' "$WORK/info-ref.img.out" | sort)"
check "-info: no progress bar" test "$(grep -c '\[=' "$WORK/info.img.out")" = 0
run ours "$WORK/pct.img" "$SRC" -- -percentage -noappend -quiet
check "-percentage: numbers, one a line, ending with 100 and a blank line" \
	sh -c "grep -qvx '[0-9]*' '$WORK/pct.img.out' && exit 1; tail -n 2 '$WORK/pct.img.out' | head -n 1 | grep -qx 100 && tail -n 1 '$WORK/pct.img.out' | grep -qx ''"
run ours "$WORK/q.img" "$TEXT" -- -quiet -no-progress -noappend
check "-quiet -no-progress: nothing on stdout" test ! -s "$WORK/q.img.out"
run ours "$WORK/bar.img" "$TEXT" -- -noappend
check "progress bar as 4.7.5 draws it" \
	grep -q '\[=*|\] 50/50 100%' "$WORK/bar.img.out"
check "header lines" grep -q '^Creating 4.0 filesystem on .*bar.img, block size 131072.$' \
	"$WORK/bar.img.out"
"$MK" -version >"$WORK/version" 2>&1
check "-version: first line mksquashfs version 4.7" \
	sh -c "head -n 1 '$WORK/version' | grep -q '^mksquashfs version 4\.7 '"

# ------------------------------------------------------- every option
# Each option of 4.7.5's -help-all is known here (honoured, accepted, or
# refused by name: never "invalid option"), and the man page names it.
"$REF_BIN/mksquashfs" -help-all 2>&1 | grep -E '^-[A-Za-z]' |
	sed 's/\t.*//' >"$WORK/ref-options"
check "4.7.5 -help-all lists options" test "$(wc -l <"$WORK/ref-options")" -gt 100
unknown=
undocumented=
while read -r opt arg; do
	case $opt in -e | -MKSQUASHFS.md) continue ;; esac
	set -- "$opt"
	[ -n "$arg" ] && set -- "$opt" 1
	# in WORK: an option's argument may name a file to write
	(cd "$WORK" && "$MK" "$TEXT" "$WORK/opt.img" -noappend "$@") \
		>"$WORK/opt.out" 2>&1
	grep -q 'is an invalid option' "$WORK/opt.out" &&
		unknown="$unknown $opt"
	roff=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
	grep -q -- "$roff" "$abs_top_srcdir/doc/squashforge-mksquashfs.1" ||
		undocumented="$undocumented $opt"
done <"$WORK/ref-options"
expect_eq "every 4.7.5 option known" "$unknown" ""
expect_eq "every 4.7.5 option in the man page" "$undocumented" ""

# ------------------------------------------------------- determinism
run ours "$WORK/j1.img" "$SRC" -- -noappend -processors 1 -mkfs-time 7
run ours "$WORK/j2.img" "$SRC" -- -noappend -processors 2 -mkfs-time 7
run ours "$WORK/j3.img" "$SRC" -- -noappend -processors 3 -mkfs-time 7
check "same bytes at -processors 1 and 2" cmp -s "$WORK/j1.img" \
	"$WORK/j2.img"
check "same bytes at -processors 1 and 3" cmp -s "$WORK/j1.img" \
	"$WORK/j3.img"

finish

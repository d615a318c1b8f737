#!/bin/sh
# SPDX-License-Identifier: MIT
# sqfsdiff: pairs of trees that differ in exactly one thing each (contents,
# size, mode, owner, mtime, an xattr, a symlink target, a device number,
# an entry added or removed, a type change, hard-link structure, a name
# that needs escaping), compared as directory/directory, image/image,
# directory/image and image/directory, the images made with different
# compressors and block sizes. Each must print exactly the expected lines
# and exit 1; the flag that hides the difference must make it exit 0.
# Then equal trees (images from two writers, basic and extended inodes),
# -I, -S, -e (and what it leaves when it fails), -j, paths longer than
# 16 KiB, bad input (FIFOs, sockets, devices as sides) and damaged images
# (exit 2, no verdict).
. "$(dirname "$0")/lib.sh"

SD=${SD:-$abs_top_builddir/sqfsdiff}
GS=${GS:-$abs_top_builddir/gensquashfs}
[ -x "$SD" ] || hard_error "no tool to test at $SD (set SD)"
[ -x "$GS" ] || hard_error "no gensquashfs at $GS (set GS)"

# sd ARGS...: status in RC, output in $WORK/sd.out and $WORK/sd.err
sd() {
	"$SD" "$@" >"$WORK/sd.out" 2>"$WORK/sd.err"
	RC=$?
	if [ "$RC" -ge 126 ]; then
		echo "sqfsdiff died (status $RC): $*"
		cat "$WORK/sd.err"
	fi
	if grep -q 'Sanitizer\|runtime error' "$WORK/sd.err"; then
		fail "sqfsdiff $*: sanitizer report"
		head -20 "$WORK/sd.err"
	fi
	return 0
}

# pack DIR IMAGE [OPTIONS...]: the root takes the --defaults attributes,
# here those the trees' roots have (0755, ours, T0), so that an image
# equals its directory
pack() {
	local dir=$1 img=$2
	shift 2
	"$GS" -q -f -k -x -d "mtime=$T0,uid=$(id -u),gid=$(id -g),mode=0755" \
		-D "$dir" "$@" "$img" >"$WORK/gs.err" 2>&1 ||
		{ cat "$WORK/gs.err"; hard_error "gensquashfs $dir failed"; }
}

T0=1600000000
BASE=$WORK/base
XATTRS=0
make_base() {
	local d=$1
	mkdir -p "$d/a/b" "$d/c" "$d/d"
	printf 'hello\n' >"$d/a/f"
	# compressible, three blocks of 128 KiB and a tail
	"$PYTHON" -c 'import sys
sys.stdout.write("".join("line %06d of the big file\n" % i
                         for i in range(12000)))' >"$d/a/b/big"
	: >"$d/a/b/empty"
	ln -s ../a/f "$d/c/l"
	ln "$d/a/f" "$d/c/hl"
	ln "$d/a/f" "$d/c/hl2"
	printf 'one\n' >"$d/d/1"
	printf 'same\n' >"$d/d/2"
	printf 'same\n' >"$d/d/3"
	printf 'spaced\n' >"$d/sp ace"
	printf 'newline\n' >"$d/$(printf 'new\nline')"
	mkfifo "$d/fifo"
	truncate -s 1M "$d/sparse"
	printf 'data' | dd of="$d/sparse" bs=1 seek=500000 conv=notrunc \
		2>/dev/null
	if [ "$IS_ROOT" = 1 ]; then
		mknod "$d/cdev" c 1 3
		# the largest device number an image holds
		mknod "$d/bdev" b 4095 1048575
	fi
	"$PYTHON" -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/sock"
	if setfattr -n user.x -v yes "$d/d/1" 2>/dev/null; then
		XATTRS=1
		setfattr -n security.y -v 0x00ff "$d/d/1"
	fi
	chmod 0644 "$d/sp ace" "$d/$(printf 'new\nline')"
	chmod 0755 "$d"
	find "$d" -exec touch -h -d @$T0 {} +
}
make_base "$BASE"
pack "$BASE" "$WORK/base.sqfs" -c gzip
# another writer's choices: zstd, 4 KiB blocks, no tail packing
pack "$BASE" "$WORK/base-z.sqfs" -c zstd -b 4096 -T

# ------------------------------------------------------------ equal trees

for pair in "$BASE $BASE" "$WORK/base.sqfs $WORK/base-z.sqfs" \
	"$BASE $WORK/base.sqfs" "$WORK/base-z.sqfs $BASE"; do
	set -- $pair
	sd -T -a "$1" -b "$2"
	name="equal $(basename "$1") $(basename "$2")"
	expect_eq "$name: exit status" "$RC" 0
	expect_eq "$name: output" "$(cat "$WORK/sd.out")" \
		"equal: $(find "$BASE" -printf x | wc -c) entries compared"
	check "$name: nothing on stderr" test ! -s "$WORK/sd.err"
done

# An image by another writer: mksquashfs (xz). Still the same tree.
if [ -x "$MKSQUASHFS" ]; then
	"$MKSQUASHFS" "$BASE" "$WORK/mk.sqfs" -quiet -no-progress \
		-comp xz >/dev/null 2>&1 || hard_error "mksquashfs failed"
	sd -T -a "$WORK/mk.sqfs" -b "$WORK/base.sqfs"
	expect_eq "mksquashfs image against ours: exit status" "$RC" 0
	sd -T -a "$WORK/mk.sqfs" -b "$BASE"
	expect_eq "mksquashfs image against the directory: exit status" \
		"$RC" 0
fi

# Basic and extended inodes: Debian's gensquashfs stores a directory of
# 300 entries in a basic inode, ours in an extended one with an index.
# (It also turns hard links into copies, which sqfsdiff reports, so the
# tree here has none.)
inode_type() { # IMAGE PATH
	"$abs_top_builddir/rdsquashfs" -s "$2" "$1" | sed -n 's/^Inode type: //p'
}
if [ -x /usr/bin/gensquashfs ]; then
	mkdir -p "$WORK/wide/d"
	for i in $(seq 1 300); do printf '%s' "$i" >"$WORK/wide/d/entry$i"; done
	/usr/bin/gensquashfs -q -f -D "$WORK/wide" "$WORK/wide-ng.sqfs" \
		>/dev/null 2>&1 || hard_error "Debian's gensquashfs failed"
	pack "$WORK/wide" "$WORK/wide.sqfs"
	expect_eq "basic and extended: the inodes differ" \
		"$(inode_type "$WORK/wide-ng.sqfs" d) / $(inode_type "$WORK/wide.sqfs" d)" \
		"directory / extended directory"
	sd -a "$WORK/wide-ng.sqfs" -b "$WORK/wide.sqfs"
	expect_eq "basic and extended inodes: exit status" "$RC" 0
	expect_eq "basic and extended inodes: output" "$(cat "$WORK/sd.out")" \
		"equal: 302 entries compared"
fi

# Names whose byte order is not their order as paths ("a" < "a/b" <
# "a-c", though '-' sorts below '/'), names in both Unicode normal forms,
# in other scripts, and not UTF-8 at all: a directory against its image
# is equal, and a difference deep among them is named at its own path.
O=$WORK/order
mkdir -p "$O/a/b" "$O/a-c" "$O/a.d/x" "$O/$(printf '\303\251')" \
	"$O/$(printf 'e\314\201')"
for n in a0 a-c/1 a.d/x/2 a/b/3 a/- '\303\251/nfc' 'e\314\201/nfd' \
	'\316\261\316\262' '\344\270\255\346\226\207' '\377\376' 'a/\001'; do
	printf "$n" >"$O/$(printf "$n")"
done
pack "$O" "$WORK/order.sqfs" -c lzo
sd -a "$O" -b "$WORK/order.sqfs"
expect_eq "names in every order: exit status" "$RC" 0
expect_eq "names in every order: output" "$(cat "$WORK/sd.out")" \
	"equal: $(find "$O" -printf x | wc -c) entries compared"
printf 'changed' >"$O/a.d/x/2"
printf 'changed' >"$O/$(printf 'e\314\201/nfd')"
chmod 0600 "$O/a/$(printf '\001')"
sd -a "$WORK/order.sqfs" -b "$O"
expect_eq "names in every order, three changed: lines" \
	"$(sed '$d' "$WORK/sd.out")" \
	"$(printf '/a/\\001: mode: 0644 -> 0600\n/a.d/x/2: contents differ from byte 0\n/e\314\201/nfd: contents differ from byte 0\n')"

# ------------------------------------------------------------ one difference

# mutation NAME FLAG COMMAND EXPECTED [deb]: apply COMMAND in a copy of the
# base tree ($M), expect EXPECTED (lines) from every kind of pair, and
# equality with FLAG (if not "-": "+T" means the difference shows only
# with -T); with deb, Debian's sqfsdiff must find a difference too.
DEB_SQFSDIFF=/usr/bin/sqfsdiff
N=0
mutation() {
	local name=$1 flag=$2 cmd=$3 expected=$4 M old new
	N=$((N + 1))
	M=$WORK/m$N
	cp -a "$BASE" "$M"
	(cd "$M" && eval "$cmd") || hard_error "$name: mutation failed"
	pack "$M" "$M.sqfs" -c zstd -b 4096
	for old in "$BASE" "$WORK/base.sqfs"; do
		for new in "$M" "$M.sqfs"; do
			local what="$name ($(basename "$old") vs $(basename "$new"))"
			local opts=
			[ "$flag" = "+T" ] && opts=-T
			sd $opts -a "$old" -b "$new"
			expect_eq "$what: exit status" "$RC" 1
			expect_eq "$what: lines" \
				"$(sed '$d' "$WORK/sd.out")" "$expected"
			check "$what: summary" \
				grep -q '^different: [0-9]* differences' \
				"$WORK/sd.out"
			check "$what: nothing on stderr" test ! -s "$WORK/sd.err"
			case $flag in
			-) ;;
			+T) sd -a "$old" -b "$new"
				expect_eq "$what: without -T" "$RC" 0 ;;
			*) sd "$flag" -a "$old" -b "$new"
				expect_eq "$what: with $flag" "$RC" 0 ;;
			esac
		done
	done
	# Debian's sqfsdiff (two images only) as a second opinion, where it
	# sees this kind of difference (it misses a changed symlink target
	# and xattr value, and calls basic and extended inodes different)
	if [ "${5:-}" = deb ] && [ -x "$DEB_SQFSDIFF" ]; then
		"$DEB_SQFSDIFF" -a "$WORK/base.sqfs" -b "$M.sqfs" >/dev/null 2>&1
		expect_eq "$name: Debian's sqfsdiff agrees" "$?" 1
	fi
}

mutation "contents" -C \
	"printf X | dd of=a/b/big bs=1 seek=200000 conv=notrunc 2>/dev/null; touch -d @$T0 a/b/big" \
	"/a/b/big: contents differ from byte 200000" deb
mutation "contents of a sparse file, in a hole" -C \
	"printf X | dd of=sparse bs=1 seek=100 conv=notrunc 2>/dev/null; touch -d @$T0 sparse" \
	"/sparse: contents differ from byte 100"
mutation "size" - \
	"printf X >>a/b/big; touch -d @$T0 a/b/big" \
	"/a/b/big: size: 336000 -> 336001" deb
mutation "mode" -P "chmod 0600 'sp ace'" \
	"/sp ace: mode: 0644 -> 0600" deb
mutation "mode of a name with a line break" -P \
	"chmod 0600 \"\$(printf 'new\\nline')\"" \
	"/new\\012line: mode: 0644 -> 0600"
mutation "mtime" +T "touch -d @$((T0 + 1)) d/2" \
	"/d/2: mtime: $T0 -> $((T0 + 1))"
mutation "symlink target" - \
	"ln -sfn ../a/b c/l; touch -h -d @$T0 c/l c" \
	"/c/l: link target: '../a/f' -> '../a/b'"
mutation "file added" - "printf new >d/4; touch -d @$T0 d/4 d" \
	"/d/4: only in new (regular file)" deb
mutation "file removed" - "rm d/3; touch -d @$T0 d" \
	"/d/3: only in old (regular file)" deb
mutation "directory added" - \
	"mkdir -p e/x; : >e/x/1; : >e/2; find e . -maxdepth 0 -exec touch -d @$T0 {} +; find e -exec touch -d @$T0 {} +" \
	"/e: only in new (directory, 3 entries below)"
mutation "directory removed" - "rm -r d; touch -d @$T0 ." \
	"/d: only in old (directory, 3 entries below)"
mutation "type: file to directory" - \
	"rm d/1; mkdir d/1; : >d/1/z; find d -exec touch -d @$T0 {} +" \
	"/d/1: type: regular file -> directory"
mutation "type: directory to file" - \
	"rm -r d; printf x >d; touch -d @$T0 d ." \
	"/d: type: directory -> regular file"
mutation "type: file to symlink" - \
	"rm d/2; ln -s 1 d/2; touch -h -d @$T0 d/2 d" \
	"/d/2: type: regular file -> symbolic link" deb
mutation "hard link broken" - \
	"rm c/hl2; cp -a a/f c/hl2.tmp; mv c/hl2.tmp c/hl2; touch -d @$T0 c" \
	"/c/hl2: hard link to: /a/f -> none"
mutation "hard link made" - \
	"rm d/3; ln d/2 d/3; touch -d @$T0 d" \
	"/d/3: hard link to: none -> /d/2"
if [ "$IS_ROOT" = 1 ]; then
	mutation "owner" -O "chown 1234:5678 a/b/empty" \
		"/a/b/empty: owner: 0:0 -> 1234:5678" deb
	mutation "device number" - \
		"rm cdev; mknod cdev c 1 5; touch -d @$T0 cdev ." \
		"/cdev: device: 1:3 -> 1:5" deb
	mutation "type: device" - \
		"rm cdev; mknod cdev b 1 3; touch -d @$T0 cdev ." \
		"/cdev: type: character device -> block device"
fi
if [ "$XATTRS" = 1 ]; then
	mutation "xattr value" - "setfattr -n user.x -v no d/1" \
		'/d/1: xattr user.x: "yes" -> "no"'
	mutation "binary xattr value" - "setfattr -n security.y -v 0x01ff d/1" \
		'/d/1: xattr security.y: 0x00FF -> 0x01FF'
	mutation "xattr added" - "setfattr -n user.z -v 1 d/3" \
		"/d/3: xattr user.z: only in new"
	mutation "xattr removed" - "setfattr -x user.x d/1" \
		"/d/1: xattr user.x: only in old"
fi

# ------------------------------------------------------------ options

# the report does not depend on the number of jobs
M=$WORK/many
cp -a "$BASE" "$M"
for f in a/b/big d/1 d/2 sparse; do
	printf Z | dd of="$M/$f" bs=1 seek=2 conv=notrunc 2>/dev/null
done
chmod 0700 "$M/a"
pack "$M" "$M.sqfs" -c xz
sd -j 1 -a "$WORK/base.sqfs" -b "$M.sqfs"
cp "$WORK/sd.out" "$WORK/j1.out"
for j in 2 4 16; do
	sd -j $j -a "$WORK/base.sqfs" -b "$M.sqfs"
	check "-j $j: the same report as -j 1" cmp -s "$WORK/sd.out" "$WORK/j1.out"
done
expect_eq "-j: differences found" \
	"$(sed '$d' "$WORK/j1.out" | cut -d: -f1 | tr '\n' ' ')" \
	"/a /a/b/big /d/1 /d/2 /sparse "

# -I: an image against itself is equal; a copied tree differs in every
# inode number
sd -I -a "$WORK/base.sqfs" -b "$WORK/base.sqfs"
expect_eq "-I: an image against itself" "$RC" 0
cp -a "$BASE" "$WORK/copy"
sd -I -a "$BASE" -b "$WORK/copy"
expect_eq "-I: a copy: exit status" "$RC" 1
expect_eq "-I: a copy: one line per entry but the hard links" \
	"$(grep -c 'inode number: ' "$WORK/sd.out")" \
	"$(find "$BASE" -printf x | wc -c)"
sd -a "$BASE" -b "$WORK/copy"
expect_eq "a copy without -I" "$RC" 0

# -S: superblocks
sd -S -a "$WORK/base.sqfs" -b "$WORK/base-z.sqfs"
expect_eq "-S: exit status" "$RC" 1
check "-S: compressor" grep -qx 'superblock: compressor: gzip -> zstd' \
	"$WORK/sd.out"
check "-S: block size" grep -qx 'superblock: block size: 131072 -> 4096' \
	"$WORK/sd.out"
expect_eq "-S: no entry differs" "$(grep -vc '^superblock: ' "$WORK/sd.out")" 1
sd -S -a "$WORK/base.sqfs" -b "$WORK/base.sqfs"
expect_eq "-S: an image against itself" "$RC" 0
sd -S -a "$WORK/base.sqfs" -b "$BASE"
expect_eq "-S with a directory: exit status" "$RC" 2
check "-S with a directory: says why" grep -q 'both sides must be images' \
	"$WORK/sd.err"

# -e: the two versions of each differing file, and one-sided files
M=$WORK/ex
cp -a "$BASE" "$M"
printf X | dd of="$M/a/b/big" bs=1 seek=5 conv=notrunc 2>/dev/null
printf 'grown' >>"$M/d/2"
printf 'added\n' >"$M/d/new"
rm "$M/d/3"
pack "$M" "$M.sqfs" -c lz4
for new in "$M" "$M.sqfs"; do
	for old in "$BASE" "$WORK/base.sqfs"; do
		what="-e ($(basename "$old") vs $(basename "$new"))"
		rm -rf "$WORK/x"
		sd -e "$WORK/x" -a "$old" -b "$new"
		expect_eq "$what: exit status" "$RC" 1
		check "$what: old big" cmp -s "$WORK/x/old/a/b/big" "$BASE/a/b/big"
		check "$what: new big" cmp -s "$WORK/x/new/a/b/big" "$M/a/b/big"
		check "$what: old d/2" cmp -s "$WORK/x/old/d/2" "$BASE/d/2"
		check "$what: new d/2" cmp -s "$WORK/x/new/d/2" "$M/d/2"
		check "$what: removed d/3" cmp -s "$WORK/x/old/d/3" "$BASE/d/3"
		check "$what: added d/new" cmp -s "$WORK/x/new/d/new" "$M/d/new"
		expect_eq "$what: nothing else" \
			"$(cd "$WORK/x" && find . -type f | sort | tr '\n' ' ')" \
			"./new/a/b/big ./new/d/2 ./new/d/new ./old/a/b/big ./old/d/2 ./old/d/3 "
	done
done
sd -e "$WORK/x" -a "$BASE" -b "$M"
expect_eq "-e into a folder used before: exit status" "$RC" 2
check "-e into a folder used before: says why" grep -q 'old: File exists' \
	"$WORK/sd.err"
check "-e into a folder used before: no verdict" \
	test ! -s "$WORK/sd.out"

# -e refuses before it makes anything: DIR/new there (DIR/old not) is
# refused as DIR/old is, and neither is made
for there in new old; do
	rm -rf "$WORK/x"
	mkdir "$WORK/x"
	: >"$WORK/x/$there"
	sd -e "$WORK/x" -a "$BASE" -b "$M"
	what="-e, DIR/$there there already"
	expect_eq "$what: exit status" "$RC" 2
	check "$what: says why" grep -q "x: $there: File exists" "$WORK/sd.err"
	check "$what: no verdict" test ! -s "$WORK/sd.out"
	expect_eq "$what: nothing made" "$(ls -A "$WORK/x" | xargs)" "$there"
done

# DIR/new that cannot be made after DIR/old was (mkdir_race_shim.c,
# preloaded: another program makes DIR/new between sqfsdiff's check and
# its mkdir, or the mkdir fails): DIR/old goes again, and so does DIR if
# this run made it; a DIR/old someone put a file into meanwhile stays.
RACE_SHIM=$abs_top_builddir/tests/integration/.libs/mkdir_race_shim.so
# race VAR=VALUE...: sd with the shim and these settings
race() {
	# the shim comes before the ASan runtime in the list of libraries
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		LD_PRELOAD="$RACE_SHIM" "$@" \
		"$SD" -e "$WORK/x" -a "$BASE" -b "$M" >"$WORK/sd.out" 2>"$WORK/sd.err"
	RC=$?
}
if [ -f "$RACE_SHIM" ]; then
	rm -rf "$WORK/x"
	race MKDIR_RACE_NAME=new
	what="-e, DIR/new made by another program meanwhile"
	expect_eq "$what: exit status" "$RC" 2
	check "$what: says why" grep -q "x: new: File exists" "$WORK/sd.err"
	check "$what: no verdict" test ! -s "$WORK/sd.out"
	expect_eq "$what: DIR/old made and removed again, the other's DIR/new kept" \
		"$(ls -A "$WORK/x" | xargs)" "new"
	check "$what: DIR/new still the other's file" test -f "$WORK/x/new"

	rm -rf "$WORK/x"
	race MKDIR_RACE_NAME=new MKDIR_RACE_FILL=theirs
	what="-e, DIR/new made and DIR/old filled by another program"
	expect_eq "$what: exit status" "$RC" 2
	check "$what: DIR/old not empty, kept" test -f "$WORK/x/old/theirs"

	rm -rf "$WORK/x"
	race MKDIR_FAIL_NAME=new
	what="-e, DIR/new cannot be made, DIR made by this run"
	expect_eq "$what: exit status" "$RC" 2
	check "$what: says why" grep -q "x: new: No space left" "$WORK/sd.err"
	check "$what: nothing left, not even DIR" test ! -e "$WORK/x"

	mkdir "$WORK/x"
	race MKDIR_FAIL_NAME=new
	what="-e, DIR/new cannot be made, DIR there before"
	expect_eq "$what: exit status" "$RC" 2
	expect_eq "$what: DIR kept, empty" "$(ls -A "$WORK/x" | xargs)" ""
	rm -rf "$WORK/x"
else
	fail "no $RACE_SHIM (make check builds it)"
fi

# -e and a file that cannot be read to its end (its second block damaged
# in an image) or written to its end (a file size limit): what is left
# in DIR/old and DIR/new is complete or absent, and no temporary file is
# left either.
D=$WORK/ex-fail
mkdir -p "$D/t"
cp "$BASE/a/b/big" "$D/t/big"
cp -a "$D/t" "$D/u"
printf X | dd of="$D/u/big" bs=1 seek=5 conv=notrunc 2>/dev/null
pack "$D/u" "$D/u.sqfs" -c gzip
"$abs_top_builddir/rdsquashfs" -s /big "$D/u.sqfs" >"$D/stat"
start=$(sed -n 's/^Blocks start: //p' "$D/stat")
b0=$(sed -n 's/^	Block #0 size: \([0-9]*\) .*/\1/p' "$D/stat")
b1=$(sed -n 's/^	Block #1 size: \([0-9]*\) .*/\1/p' "$D/stat")
[ -n "$start" ] && [ -n "$b0" ] && [ -n "$b1" ] ||
	hard_error "no block list for /big: $(cat "$D/stat")"
# every byte of the second block complemented
"$PYTHON" -c 'import sys
f = open(sys.argv[1], "r+b"); off, n = int(sys.argv[2]), int(sys.argv[3])
f.seek(off); b = bytes(x ^ 0xFF for x in f.read(n)); f.seek(off); f.write(b)' \
	"$D/u.sqfs" $((start + b0)) "$b1"
for pair in "$D/t $D/u.sqfs" "$D/u.sqfs $D/t"; do
	set -- $pair
	side=new
	[ "$1" = "$D/u.sqfs" ] && side=old
	what="-e, the $side side's file damaged in its second block"
	rm -rf "$D/x"
	sd -e "$D/x" -a "$1" -b "$2"
	expect_eq "$what: exit status" "$RC" 2
	check "$what: the image named" grep -q "sqfsdiff: $D/u.sqfs: " \
		"$WORK/sd.err"
	check "$what: the difference found in the first block" \
		grep -q '^/big: contents differ from byte 5$' "$WORK/sd.out"
	if [ "$1" = "$D/t" ]; then
		check "$what: the old version written whole" \
			cmp -s "$D/x/old/big" "$D/t/big"
		expected="./old/big "
	else
		expected=
	fi
	expect_eq "$what: no partial or temporary file" \
		"$(cd "$D/x" && find . -type f | sort | tr '\n' ' ')" "$expected"
done
# 100 blocks of 512 bytes: less than a third of big; SIGXFSZ ignored, so
# that the write fails with EFBIG rather than killing the tool
rm -rf "$D/x"
(
	trap '' XFSZ
	ulimit -f 100
	exec "$SD" -e "$D/x" -a "$D/t" -b "$D/u"
) >"$WORK/sd.out" 2>"$WORK/sd.err"
RC=$?
what="-e, a write that fails in the middle of a file"
expect_eq "$what: exit status" "$RC" 2
check "$what: says why" grep -q "x: old/big: File too large" "$WORK/sd.err"
expect_eq "$what: no partial or temporary file" \
	"$(cd "$D/x" && find . -type f | xargs)" ""
rm -rf "$D"

# Holes: a 64 GiB file of holes with a few bytes of data is compared in
# pieces of holes, not byte by byte (a timeout would catch a reader that
# reads them), whichever side it is on; a byte written into a hole is
# found at its offset, and -e writes both versions back as sparse files.
S=$WORK/holes
mkdir -p "$S"
truncate -s 64G "$S/huge"
printf 'mid' | dd of="$S/huge" bs=1 seek=$((40 << 30)) conv=notrunc 2>/dev/null
truncate -s 256M "$S/small"
printf 'end' | dd of="$S/small" bs=1 seek=$((200 << 20)) conv=notrunc 2>/dev/null
pack "$S" "$WORK/holes.sqfs" -c gzip
for pair in "$S $WORK/holes.sqfs" "$WORK/holes.sqfs $S" \
	"$WORK/holes.sqfs $WORK/holes.sqfs" "$S $S"; do
	set -- $pair
	what="holes: $(basename "$1") vs $(basename "$2")"
	timeout 60 "$SD" -a "$1" -b "$2" >"$WORK/sd.out" 2>"$WORK/sd.err"
	expect_eq "$what: exit status" "$?" 0
done
printf 'X' | dd of="$S/huge" bs=1 seek=$((50 << 30)) conv=notrunc 2>/dev/null
printf 'Y' | dd of="$S/small" bs=1 seek=$((100 << 20)) conv=notrunc 2>/dev/null
for pair in "$WORK/holes.sqfs $S" "$S $WORK/holes.sqfs"; do
	set -- $pair
	what="holes, a byte in each: $(basename "$1") vs $(basename "$2")"
	rm -rf "$WORK/hx"
	timeout 60 "$SD" -e "$WORK/hx" -a "$1" -b "$2" >"$WORK/sd.out" 2>"$WORK/sd.err"
	expect_eq "$what: exit status" "$?" 1
	expect_eq "$what: lines" "$(sed '$d' "$WORK/sd.out")" \
		"$(printf '/huge: contents differ from byte %s\n/small: contents differ from byte %s' \
			$((50 << 30)) $((100 << 20)))"
done
# the last run: old is the changed tree, new the image of the first
check "holes, -e: the old version back" cmp -s "$WORK/hx/old/small" "$S/small"
cp "$S/small" "$WORK/small.orig"
printf '\000' | dd of="$WORK/small.orig" bs=1 seek=$((100 << 20)) \
	conv=notrunc 2>/dev/null
check "holes, -e: the new version back" \
	cmp -s "$WORK/hx/new/small" "$WORK/small.orig"
expect_eq "holes, -e: sizes" \
	"$(stat -c %s "$WORK/hx/old/huge" "$WORK/hx/new/huge" | xargs)" \
	"$((64 << 30)) $((64 << 30))"
expect_eq "holes, -e: written sparse (at most 1 MiB of 64 GiB on disk)" \
	"$(du -k "$WORK/hx/old/huge" "$WORK/hx/new/huge" |
		awk '{ n += ($1 <= 1024) } END { print n }')" 2

# ------------------------------------------------------------ long paths

# Paths of 20 KB (80 directories of 250-byte names: more than PATH_MAX,
# so made and read one directory at a time), differing deep down in a
# file's contents, a file added, a hard link made and a symlink's target
# of 4095 control bytes (16 KB printed): every line names the whole path
# and prints whole values, whichever kind each side is. -e writes there.
L=$WORK/long
"$PYTHON" - "$L" <<'PYEOF' || hard_error "cannot make the long paths"
import os, sys
top = sys.argv[1]
names = ["%03d" % i * 83 + "x" for i in range(80)]
long = "/".join(names)
for side in ("old", "new"):
    os.makedirs(os.path.join(top, side))
    fd = os.open(os.path.join(top, side), os.O_RDONLY)
    for n in names:
        os.mkdir(n, dir_fd=fd)
        nfd = os.open(n, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    def put(name, data):
        f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644,
                    dir_fd=fd)
        os.write(f, data)
        os.close(f)
    if side == "old":
        put("f", b"old\n")
        put("g", b"same\n")
        os.symlink("\x01" * 4095, "s", dir_fd=fd)
    else:
        put("a", b"same\n")
        put("f", b"new\n")
        os.link("a", "g", src_dir_fd=fd, dst_dir_fd=fd)
        os.symlink("\x01" * 4094 + "x", "s", dir_fd=fd)
    os.close(fd)
with open(os.path.join(top, "expected"), "w") as out:
    out.write("/%s/a: only in new (regular file)\n" % long)
    out.write("/%s/f: contents differ from byte 0\n" % long)
    out.write("/%s/g: hard link to: none -> /%s/a\n" % (long, long))
    out.write("/%s/s: link target: '%s' -> '%s'\n" %
              (long, "\\001" * 4095, "\\001" * 4094 + "x"))
PYEOF
# the files -e wrote, read back one directory at a time
cat >"$L/readback.py" <<'PYEOF'
import os, sys
got = []
for side, name in (("old", "f"), ("new", "a"), ("new", "f")):
    fd = os.open(os.path.join(sys.argv[1], side), os.O_RDONLY)
    try:
        for i in range(80):
            nfd = os.open("%03d" % i * 83 + "x", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        f = os.open(name, os.O_RDONLY, dir_fd=fd)
        got.append("%s/%s=%s" % (side, name, os.read(f, 100).decode().strip()))
        os.close(f)
    except OSError as e:
        got.append("%s/%s: %s" % (side, name, e.strerror))
    os.close(fd)
print(" ".join(got))
PYEOF
pack "$L/old" "$L/old.sqfs" -c gzip
pack "$L/new" "$L/new.sqfs" -c gzip
for pair in "$L/old $L/new" "$L/old.sqfs $L/new" "$L/old $L/new.sqfs"; do
	set -- $pair
	what="paths of 20 KB ($(basename "$1") vs $(basename "$2"))"
	rm -rf "$L/x"
	sd -e "$L/x" -a "$1" -b "$2"
	expect_eq "$what: exit status" "$RC" 1
	sed '$d' "$WORK/sd.out" >"$L/got"
	expect_eq "$what: line lengths" "$(awk '{ print length }' "$L/got" | xargs)" \
		"$(awk '{ print length }' "$L/expected" | xargs)"
	check "$what: whole paths and values" cmp -s "$L/got" "$L/expected"
	check "$what: nothing on stderr" test ! -s "$WORK/sd.err"
	expect_eq "$what: -e wrote the whole paths" \
		"$("$PYTHON" "$L/readback.py" "$L/x")" \
		"old/f=old new/a=same new/f=new"
done
rm -rf "$L"

# ------------------------------------------------------------ bad input

sd -a "$WORK/missing" -b "$BASE"
expect_eq "missing old: exit status" "$RC" 2
check "missing old: named" grep -q "sqfsdiff: $WORK/missing: No such file" \
	"$WORK/sd.err"
sd -a "$BASE" -b "$WORK/missing"
expect_eq "missing new: exit status" "$RC" 2
head -c 20000 /dev/urandom >"$WORK/junk"
sd -a "$WORK/junk" -b "$BASE"
expect_eq "not an image: exit status" "$RC" 2
check "not an image: named" grep -q "sqfsdiff: $WORK/junk: " "$WORK/sd.err"
sd -a "$BASE"
expect_eq "no --new: exit status" "$RC" 2
sd -a "$BASE" -b "$BASE" extra
expect_eq "an extra argument: exit status" "$RC" 2
sd --bogus -a "$BASE" -b "$BASE"
expect_eq "an unknown option: exit status" "$RC" 2
sd -j 0 -a "$BASE" -b "$BASE"
expect_eq "-j 0: exit status" "$RC" 2
# Neither an image nor a directory: a FIFO (which an open for reading
# would wait on for a writer: a timeout catches a tool that waits), a
# socket, a character device; refused at once, as either side, with the
# reason.
mkfifo "$WORK/fifo"
for kind in "a named pipe:$WORK/fifo" "a socket:$BASE/sock" \
	"a character device:/dev/null"; do
	path=${kind#*:}
	for which in old new; do
		what="${kind%%:*} as the $which side"
		if [ "$which" = old ]; then
			set -- -a "$path" -b "$BASE"
		else
			set -- -a "$BASE" -b "$path"
		fi
		timeout 10 "$SD" "$@" >"$WORK/sd.out" 2>"$WORK/sd.err"
		expect_eq "$what: exit status" "$?" 2
		check "$what: says why" grep -qx \
			"sqfsdiff: $path: the $which side is neither an image nor a directory" \
			"$WORK/sd.err"
		check "$what: no verdict" test ! -s "$WORK/sd.out"
	done
done
sd --help
expect_eq "--help: exit status" "$RC" 0
sd --version
expect_eq "--version: exit status" "$RC" 0

# a damaged data block: found while comparing contents, after the lines
# for the entries before it; exit 2 and no verdict
cp "$WORK/base.sqfs" "$WORK/bad.sqfs"
# the first data block starts right after the superblock
printf '\377\377\377\377' | dd of="$WORK/bad.sqfs" bs=1 seek=120 \
	conv=notrunc 2>/dev/null
for other in "$BASE" "$WORK/base-z.sqfs"; do
	sd -a "$other" -b "$WORK/bad.sqfs"
	expect_eq "damaged data block vs $(basename "$other"): exit status" \
		"$RC" 2
	check "damaged data block: no verdict" \
		sh -c "! grep -q '^equal\\|^different' '$WORK/sd.out'"
	check "damaged data block: the image named" \
		grep -q "sqfsdiff: $WORK/bad.sqfs: " "$WORK/sd.err"
done
head -c 5000 "$WORK/base.sqfs" >"$WORK/short.sqfs"
sd -a "$WORK/short.sqfs" -b "$BASE"
expect_eq "a truncated image: exit status" "$RC" 2

# Damage everywhere: each byte of the superblock and the tables in turn,
# and every 29th of the data blocks, complemented (the padding after
# bytes_used is not read); the image compared
# with the directory it was made from. Never a crash or another status
# than 0, 1, 2, and a verdict never follows an error. Damage to a data
# block is never "equal" (contents are compared); elsewhere it can be,
# where the byte is one no reader needs (the superblock's time, an unused
# field): those offsets are printed.
"$PYTHON" - "$SD" "$WORK/base-z.sqfs" "$BASE" "$WORK/dmg.sqfs" <<'PYEOF' >"$WORK/sweep.out"
import struct, subprocess, sys
sd, image, tree, out = sys.argv[1:5]
data = open(image, "rb").read()
used = struct.unpack_from("<Q", data, 40)[0]
inode_table = struct.unpack_from("<Q", data, 64)[0]
bad = equal = runs = 0
off = 0
while off < used:
    d = bytearray(data)
    d[off] ^= 0xFF
    open(out, "wb").write(d)
    r = subprocess.run([sd, "-a", out, "-b", tree], capture_output=True)
    runs += 1
    verdict = r.stdout.startswith(b"equal") or b"\nequal" in r.stdout or \
        b"different:" in r.stdout
    if r.returncode not in (0, 1, 2) or b"Sanitizer" in r.stderr or \
            (r.returncode == 2 and verdict):
        bad += 1
        print("offset %d: status %d" % (off, r.returncode))
    if r.returncode == 0 and 96 <= off < inode_table:
        bad += 1
        print("offset %d (data): equal" % off)
    elif r.returncode == 0:
        equal += 1
        print("offset %d: equal" % off)
    off += 29 if 96 <= off < inode_table else 1
print("runs %d bad %d equal %d" % (runs, bad, equal))
PYEOF
grep equal "$WORK/sweep.out" | tr '\n' ' '; echo
expect_eq "damage everywhere: no crash, no verdict after an error" \
	"$(sed -n 's/^runs [0-9]* bad \([0-9]*\).*/\1/p' "$WORK/sweep.out")" 0

# an entry the user may not read (as root: run as nobody)
if [ "$IS_ROOT" = 1 ] && command -v setpriv >/dev/null; then
	chmod 0755 "$WORK"
	cp -a "$BASE" "$WORK/closed"
	chmod -R a+rX "$WORK/closed" "$BASE"
	chmod 0000 "$WORK/closed/d"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SD" -a "$BASE" -b "$WORK/closed" >"$WORK/sd.out" 2>"$WORK/sd.err"
	expect_eq "an unreadable directory: exit status" "$?" 2
	check "an unreadable directory: named" \
		grep -q "closed: d: Permission denied" "$WORK/sd.err"
	check "an unreadable directory: no verdict" \
		sh -c "! grep -q '^equal\\|^different' '$WORK/sd.out'"
fi

finish

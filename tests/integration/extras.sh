#!/bin/sh
# SPDX-License-Identifier: MIT
# The example programs of extras/, as make check builds them against the
# build tree's library. A tree made here (directories, files from empty to
# several blocks, compressible, random and all zeros, a symlink, a hard
# link, a FIFO, set-id and sticky modes, names with spaces) is packed by
# gensquashfs; list_files must list it as find(1) and unsquashfs see it,
# extract_file must give back every file's bytes, browse must answer a
# piped script, and mkimage's image must hold what it says. Errors
# (usage, a missing image, a file that is not an image, a truncated image,
# a damaged data block, missing paths, a full disk) must give a message
# and a non-zero exit, and leave no partial output behind.

. "$(dirname "$0")/lib.sh"

EX=$abs_top_builddir/extras
GS=$abs_top_builddir/gensquashfs
for prog in sqfs_info mkimage list_files extract_file browse; do
	[ -x "$EX/$prog" ] || hard_error "no example program at $EX/$prog"
done
[ -x "$GS" ] || hard_error "no gensquashfs at $GS"

# run PROGRAM ARGS...: run an example; its exit status in RC, its output
# in $WORK/out and $WORK/err. A crash or a sanitizer report is a failure.
run() {
	prog=$1
	shift
	"$EX/$prog" "$@" >"$WORK/out" 2>"$WORK/err"
	RC=$?
	if [ "$RC" -ge 126 ] ||
		grep -q -E 'Sanitizer|runtime error' "$WORK/err"; then
		fail "$prog $*: crashed (status $RC): $(head -c 2000 "$WORK/err")"
	fi
	return 0
}

# err_has DESCRIPTION PATTERN: the last run's messages match PATTERN
err_has() {
	if grep -q -E -- "$2" "$WORK/err"; then
		pass "$1"
	else
		fail "$1: no message matching '$2' in: $(head -c 500 "$WORK/err")"
	fi
}

umask 022

# ------------------------------------------------------------ the tree

SRC=$WORK/src
mkdir -p "$SRC/docs/deep" "$SRC/empty dir" "$SRC/tmp"
printf 'hello, world\n' >"$SRC/docs/hello.txt"
ln "$SRC/docs/hello.txt" "$SRC/docs/deep/hard.txt"
: >"$SRC/empty"
# 4 blocks of 128 KiB and a tail, compressible
seq 1 100000 >"$SRC/docs/big.txt"
# 2 blocks and a tail that do not compress (stored raw)
"$PYTHON" -c 'import random, sys
random.seed(13)
sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(300000)))' \
	>"$SRC/random.bin"
# 2 blocks of zeros (stored as sparse blocks)
head -c 262144 /dev/zero >"$SRC/zeros"
printf 'a space\n' >"$SRC/with space.txt"
ln -s docs/hello.txt "$SRC/link"
mkfifo "$SRC/docs/fifo"
printf '#!/bin/sh\n' >"$SRC/docs/tool"
chmod 4755 "$SRC/docs/tool"
chmod 1777 "$SRC/tmp"
chmod 0750 "$SRC/docs/deep"
chmod 0755 "$SRC"
touch -h -d @1700000000 "$SRC/docs/hello.txt" "$SRC/link"
FILES="docs/hello.txt docs/deep/hard.txt empty docs/big.txt random.bin
zeros docs/tool"

IMG=$WORK/tree.sqfs
"$GS" -q -k --all-root -D "$SRC" "$IMG" >"$WORK/gs.out" 2>&1 ||
	hard_error "gensquashfs failed: $(cat "$WORK/gs.out")"

# ------------------------------------------------------------ sqfs_info

run sqfs_info
expect_eq "sqfs_info: exit status" "$RC" 0
check "sqfs_info: names the library's version" \
	grep -q -E '^libsquashfs [0-9]+\.[0-9]+\.[0-9]+$' "$WORK/out"
# every compressor gensquashfs offers is one sqfs_info says is built
"$GS" --help | sed -n '/^Compressors of this build/,$p' |
	sed -n 's/^\t\([a-z0-9]*\).*/\1/p' >"$WORK/comps"
check "gensquashfs --help lists compressors" test -s "$WORK/comps"
while read -r comp; do
	check "sqfs_info: $comp is built" grep -q -E \
		"^  $comp +.* \(options block: [0-9]+ bytes\)\$" "$WORK/out"
done <"$WORK/comps"

# ------------------------------------------------------------ list_files

# What find sees, in list_files's form: mode, links, owner (the image is
# all root's), size, path (and a symlink's target). Directory sizes are
# the image's own: the unsquashfs comparison below checks them.
(
	cd "$SRC" &&
		find . ! -type d ! -type l -printf '%M %n 0/0 %s %p\n' &&
		find . -type d -printf '%M %n 0/0 DIR %p\n' &&
		find . -type l -printf '%M %n 0/0 %s %p -> %l\n'
) | LC_ALL=C sort >"$WORK/find"

run list_files "$IMG"
expect_eq "list_files: exit status" "$RC" 0
check "list_files: nothing on stderr" test ! -s "$WORK/err"
awk '$1 ~ /^d/ { $4 = "DIR" } { print }' "$WORK/out" | LC_ALL=C sort \
	>"$WORK/list"
if cmp -s "$WORK/find" "$WORK/list"; then
	pass "list_files: the tree as find sees it"
else
	fail "list_files: the tree as find sees it:" \
		"$(diff "$WORK/find" "$WORK/list")"
fi
expect_eq "list_files: the root comes first" \
	"$(head -n 1 "$WORK/out" | cut -d' ' -f5-)" "."
expect_eq "list_files: a directory before its entries" \
	"$(grep -n -E ' \./docs(/deep)?$' "$WORK/out" | cut -d: -f1 |
		tr '\n' ' ')" \
	"$(grep -n -E ' \./docs(/deep)?$' "$WORK/out" | cut -d: -f1 |
		sort -n | tr '\n' ' ')"

# unsquashfs, a reader of its own, agrees on modes, owners, sizes
# (directories' too) and targets
if "$UNSQUASHFS" -lln -UTC "$IMG" >"$WORK/lln" 2>"$WORK/lln.err"; then
	sed -E 's#^([^ ]+) +([^ ]+) +([^ ]+) +[^ ]+ [^ ]+ squashfs-root#\1 \2 \3 .#' \
		"$WORK/lln" | LC_ALL=C sort >"$WORK/lln.cut"
	sed -E 's/^([^ ]+) [0-9]+ /\1 /' "$WORK/out" | LC_ALL=C sort \
		>"$WORK/list.cut"
	if cmp -s "$WORK/lln.cut" "$WORK/list.cut"; then
		pass "list_files: as unsquashfs -lln lists it"
	else
		fail "list_files: as unsquashfs -lln lists it:" \
			"$(diff "$WORK/lln.cut" "$WORK/list.cut")"
	fi
else
	fail "unsquashfs -lln: $(cat "$WORK/lln.err")"
fi

run list_files "$IMG" /docs/
expect_eq "list_files DIR: exit status" "$RC" 0
(cd "$SRC/docs" && find . | LC_ALL=C sort) >"$WORK/find.docs"
expect_eq "list_files DIR: the subtree, relative to it" \
	"$(cut -d' ' -f5- "$WORK/out" | LC_ALL=C sort)" \
	"$(cat "$WORK/find.docs")"

run list_files
expect_eq "list_files without arguments: exit status" "$RC" 2
err_has "list_files without arguments: usage" '^usage: '
run list_files "$WORK/missing.sqfs"
expect_eq "list_files, missing image: exit status" "$RC" 1
err_has "list_files, missing image: message" \
	'missing\.sqfs: No such file or directory'
run list_files "$SRC/docs/big.txt"
expect_eq "list_files, not an image: exit status" "$RC" 1
err_has "list_files, not an image: message" \
	'big\.txt: not a SquashFS image'
run list_files "$SRC/with space.txt"
expect_eq "list_files, a file shorter than a superblock: exit status" "$RC" 1
err_has "list_files, a file shorter than a superblock: message" \
	'^list_files: .*with space\.txt: .'
head -c 4096 "$IMG" >"$WORK/short.sqfs"
run list_files "$WORK/short.sqfs"
expect_eq "list_files, truncated image: exit status" "$RC" 1
err_has "list_files, truncated image: message" '^list_files: .*short\.sqfs: .'
run list_files "$IMG" docs/nope
expect_eq "list_files, missing directory: exit status" "$RC" 1
err_has "list_files, missing directory: message" "'docs/nope'"
check "list_files, missing directory: nothing listed" test ! -s "$WORK/out"
"$EX/list_files" "$IMG" >/dev/full 2>"$WORK/err"
expect_eq "list_files, full disk: exit status" "$?" 1
err_has "list_files, full disk: message" 'No space left on device'

# ------------------------------------------------------------ extract_file

for f in $FILES; do
	run extract_file "$IMG" "$f"
	expect_eq "extract_file $f: exit status" "$RC" 0
	check "extract_file $f: the bytes, to stdout" \
		cmp -s "$WORK/out" "$SRC/$f"
	rm -f "$WORK/x"
	run extract_file "$IMG" "/$f" "$WORK/x"
	check "extract_file /$f FILE: the bytes, to the file" \
		cmp -s "$WORK/x" "$SRC/$f"
	check "extract_file /$f FILE: nothing on stdout or stderr" \
		test ! -s "$WORK/out" -a ! -s "$WORK/err"
done
run extract_file "$IMG" "with space.txt"
check "extract_file: a name with a space" \
	cmp -s "$WORK/out" "$SRC/with space.txt"

printf 'keep me\n' >"$WORK/x"
run extract_file "$IMG" docs/big.txt "$WORK/x"
expect_eq "extract_file to an existing file: exit status" "$RC" 1
err_has "extract_file to an existing file: message" 'x: File exists'
expect_eq "extract_file to an existing file: left as it was" \
	"$(cat "$WORK/x")" "keep me"
rm -f "$WORK/x"
for bad in docs link docs/fifo docs/nope nope/hello.txt docs/hello.txt/x \
	../etc; do
	run extract_file "$IMG" "$bad" "$WORK/x"
	expect_eq "extract_file $bad: exit status" "$RC" 1
	err_has "extract_file $bad: message" '^extract_file: .*tree\.sqfs: .'
	check "extract_file $bad: no output file" test ! -e "$WORK/x"
done
err_has "extract_file ../etc: the library's reason" "'\.\.'"
run extract_file "$IMG" docs
err_has "extract_file of a directory: message" 'docs: not a regular file'
run extract_file "$IMG" docs/nope
err_has "extract_file of a missing file: message" "'docs/nope'"
run extract_file "$IMG"
expect_eq "extract_file without a path: exit status" "$RC" 2
err_has "extract_file without a path: usage" '^usage: '
run extract_file "$WORK/missing.sqfs" docs/hello.txt
expect_eq "extract_file, missing image: exit status" "$RC" 1
err_has "extract_file, missing image: message" 'No such file or directory'
run extract_file "$SRC/docs/big.txt" docs/hello.txt
expect_eq "extract_file, not an image: exit status" "$RC" 1
err_has "extract_file, not an image: message" 'not a SquashFS image'
run extract_file "$IMG" docs/big.txt "$WORK/nodir/x"
expect_eq "extract_file into a missing directory: exit status" "$RC" 1
err_has "extract_file into a missing directory: message" \
	'nodir/x: No such file or directory'
"$EX/extract_file" "$IMG" docs/big.txt >/dev/full 2>"$WORK/err"
expect_eq "extract_file, full disk: exit status" "$?" 1
err_has "extract_file, full disk: message" \
	'standard output: No space left on device'

# A damaged data block, in the middle of the only file's blocks: the
# blocks before it may have been written, and must not stay behind.
mkdir -p "$WORK/one"
cp "$SRC/docs/big.txt" "$WORK/one/"
"$GS" -q -D "$WORK/one" "$WORK/one.sqfs" >"$WORK/gs.out" 2>&1 ||
	hard_error "gensquashfs failed: $(cat "$WORK/gs.out")"
cp "$WORK/one.sqfs" "$WORK/bad.sqfs"
"$PYTHON" - "$WORK/bad.sqfs" <<'EOF' || hard_error "damaging the image failed"
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(64)
    (inode_table,) = struct.unpack("<Q", f.read(8))
    # the data lies between the superblock and the inode table
    f.seek((96 + inode_table) // 2)
    f.write(b"\x55" * 64)
EOF
run extract_file "$WORK/one.sqfs" big.txt
check "extract_file: the undamaged image reads" \
	cmp -s "$WORK/out" "$SRC/docs/big.txt"
run extract_file "$WORK/bad.sqfs" big.txt "$WORK/x"
expect_eq "extract_file, damaged block: exit status" "$RC" 1
err_has "extract_file, damaged block: message" \
	'^extract_file: .*bad\.sqfs: big\.txt: .'
check "extract_file, damaged block: no partial file left" \
	test ! -e "$WORK/x"
run extract_file "$WORK/bad.sqfs" big.txt
expect_eq "extract_file, damaged block, to stdout: exit status" "$RC" 1
check "extract_file, damaged block: fewer bytes than the file" \
	test "$(file_size "$WORK/out")" -lt "$(file_size "$SRC/docs/big.txt")"

# ------------------------------------------------------------ browse

cat >"$WORK/script" <<'EOF'
pwd
ls
cd docs
pwd
ls
stat hello.txt
cat hello.txt
cd deep/..//deep/./
pwd
ls hard.txt
cat /with space.txt
  stat   ../../link  
cd ../../..
pwd
cd nope
cat .
ls missing

stat
frobnicate now
pwd too
cd docs/hello.txt
cd docs/deep
pwd
cd
pwd
quit
pwd
EOF
# Directory sizes are the image's own (list_files is checked against
# unsquashfs above); inode numbers are gensquashfs's choice.
cat >"$WORK/expect" <<'EOF'
/
drwxr-xr-x 3 0/0 DIR docs
-rw-r--r-- 1 0/0 0 empty
drwxr-xr-x 2 0/0 DIR empty dir
lrwxrwxrwx 1 0/0 14 link -> docs/hello.txt
-rw-r--r-- 1 0/0 300000 random.bin
drwxrwxrwt 2 0/0 DIR tmp
-rw-r--r-- 1 0/0 8 with space.txt
-rw-r--r-- 1 0/0 262144 zeros
/docs
-rw-r--r-- 1 0/0 588895 big.txt
drwxr-x--- 2 0/0 DIR deep
prw-r--r-- 1 0/0 0 fifo
-rw-r--r-- 2 0/0 13 hello.txt
-rwsr-xr-x 1 0/0 10 tool
path: /docs/hello.txt
type: regular file (extended inode)
mode: 0644
owner: 0/0
links: 2
size: 13
mtime: 2023-11-14 22:13:20 UTC
hello, world
/docs/deep
-rw-r--r-- 2 0/0 13 hard.txt
a space
path: /link
type: symbolic link
mode: 0777
owner: 0/0
links: 1
size: 14
mtime: 2023-11-14 22:13:20 UTC
target: docs/hello.txt
/
/docs/deep
/
EOF
run browse "$IMG" <"$WORK/script"
expect_eq "browse: exit status after quit" "$RC" 0
grep -v '^inode: ' "$WORK/out" |
	awk '$1 ~ /^d[-rwxsStT]+$/ { $4 = "DIR" } { print }' >"$WORK/got"
if cmp -s "$WORK/expect" "$WORK/got"; then
	pass "browse: the script's output"
else
	fail "browse: the script's output: $(diff "$WORK/expect" "$WORK/got")"
fi
expect_eq "browse: stat gives inode numbers" \
	"$(grep -c -E '^inode: [1-9][0-9]*$' "$WORK/out")" 2
expect_eq "browse: one message per bad line" "$(wc -l <"$WORK/err")" 7
err_has "browse: cd to a missing path" "^browse: cd: .*'nope'"
err_has "browse: cat of a directory" '^browse: cat: \.: not a regular file'
err_has "browse: ls of a missing path" "^browse: ls: .*'missing'"
err_has "browse: stat without a path" '^browse: stat: '
err_has "browse: an unknown command" '^browse: frobnicate: unknown command'
err_has "browse: pwd with an argument" '^browse: pwd: '
err_has "browse: cd to a file" \
	'^browse: cd: docs/hello\.txt: not a directory$'

printf 'cd docs\nls\n' | "$EX/browse" "$IMG" >"$WORK/out" 2>"$WORK/err"
expect_eq "browse: exit status at the end of input" "$?" 0
expect_eq "browse: no prompt when reading a pipe" \
	"$(grep -c 'sqfs:' "$WORK/out")" 0
printf 'ls\n' | "$EX/browse" "$IMG" >/dev/full 2>"$WORK/err"
expect_eq "browse, full disk: exit status" "$?" 1
err_has "browse, full disk: message" 'No space left on device'
run browse "$WORK/missing.sqfs" </dev/null
expect_eq "browse, missing image: exit status" "$RC" 1
err_has "browse, missing image: message" 'No such file or directory'
run browse "$SRC/empty" </dev/null
expect_eq "browse, not an image: exit status" "$RC" 1
err_has "browse, not an image: message" '^browse: .*empty: .'
run browse </dev/null
expect_eq "browse without an image: exit status" "$RC" 2

# On a terminal it prompts with the current directory (script(1) gives it
# one).
if command -v script >/dev/null 2>&1 && command -v timeout >/dev/null; then
	printf 'cd docs\npwd\n' |
		timeout 20 script -qec "'$EX/browse' '$IMG'" /dev/null \
			>"$WORK/tty" 2>&1
	check "browse: prompts on a terminal" grep -q 'sqfs:/docs> ' "$WORK/tty"
else
	echo "note: no script(1): the terminal prompt is not checked"
fi

# ------------------------------------------------------------ mkimage

run mkimage "$WORK/mk.sqfs"
expect_eq "mkimage: exit status" "$RC" 0
check "mkimage: reports the image" grep -q 'mk\.sqfs: .* inodes' "$WORK/out"
run mkimage "$WORK/mk2.sqfs"
check "mkimage: the same image on every run" \
	cmp -s "$WORK/mk.sqfs" "$WORK/mk2.sqfs"
if "$UNSQUASHFS" -lln -UTC "$WORK/mk.sqfs" >"$WORK/lln" 2>&1; then
	sed -E 's#^([^ ]+) +([^ ]+) +([^ ]+) +([^ ]+ [^ ]+) squashfs-root#\1 \2 \3 \4 .#' \
		"$WORK/lln" >"$WORK/lln.cut"
	cat >"$WORK/expect" <<'EOF'
drwxr-xr-x 0/0 51 2023-11-14 22:13 .
drwxr-xr-x 0/0 48 2023-11-14 22:13 ./docs
-rw-r--r-- 0/0 24000 2023-11-14 22:13 ./docs/hello.txt
-rw-r--r-- 0/0 24000 2023-11-14 22:13 ./docs/same.txt
lrwxrwxrwx 0/0 14 2023-11-14 22:13 ./hello -> docs/hello.txt
drwxr-xr-x 0/0 27 2023-11-14 22:13 ./run
prw------- 0/0 0 2023-11-14 22:13 ./run/fifo
EOF
	if cmp -s "$WORK/expect" "$WORK/lln.cut"; then
		pass "mkimage: unsquashfs lists what it added"
	else
		fail "mkimage: unsquashfs lists what it added:" \
			"$(diff "$WORK/expect" "$WORK/lln.cut")"
	fi
else
	fail "mkimage: unsquashfs -lln: $(cat "$WORK/lln")"
fi
i=0
while [ "$i" -lt 1000 ]; do
	echo 'Hello from libsquashfs!'
	i=$((i + 1))
done >"$WORK/hello.txt"
run extract_file "$WORK/mk.sqfs" docs/same.txt
check "mkimage: the hard link has the streamed data" \
	cmp -s "$WORK/out" "$WORK/hello.txt"
printf 'stat docs/hello.txt\n' | "$EX/browse" "$WORK/mk.sqfs" >"$WORK/out"
check "mkimage: the file's xattr, as browse shows it" \
	grep -q -x 'xattr: user.comment (15 bytes)' "$WORK/out"
run list_files "$WORK/mk.sqfs"
expect_eq "list_files on mkimage's image: the hard link's count" \
	"$(grep ' \./docs/same\.txt$' "$WORK/out" | cut -d' ' -f2)" 2

sum=$(sum_of "$WORK/mk.sqfs")
run mkimage "$WORK/mk.sqfs"
expect_eq "mkimage onto an existing file: exit status" "$RC" 1
err_has "mkimage onto an existing file: message" '^mkimage: .*mk\.sqfs: .'
expect_eq "mkimage onto an existing file: left as it was" \
	"$(sum_of "$WORK/mk.sqfs")" "$sum"
run mkimage "$WORK/nodir/mk.sqfs"
expect_eq "mkimage into a missing directory: exit status" "$RC" 1
err_has "mkimage into a missing directory: message" \
	'No such file or directory'
run mkimage
expect_eq "mkimage without arguments: exit status" "$RC" 2

finish

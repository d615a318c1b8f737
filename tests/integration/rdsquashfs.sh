#!/bin/sh
# SPDX-License-Identifier: MIT
# rdsquashfs: every operation and modifier, on images that mksquashfs (each
# of its compressors) and gensquashfs (lzma) make of a source tree built
# here, checked against the source tree (compare_tree.py) and against
# Debian's rdsquashfs output; describe output rebuilt by gensquashfs; and
# unpacking into a target that holds symlinks pointing outside.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_rdsquashfs.sh"

SRC=$WORK/src
make_source "$SRC"

# what to leave out of comparisons where this user cannot set it
CMP_USER=
RD_ATTR="-C -O -T -X"
if [ "$IS_ROOT" != 1 ]; then
	CMP_USER="--no-owner"
fi
[ "$XATTRS_OK" = 1 ] || CMP_USER="$CMP_USER --no-xattrs"

# ------------------------------------------------------------ images

IMAGES=
for comp in $(mksq_compressors); do
	if mksq "$SRC" "$WORK/m-$comp.sqfs" "$comp"; then
		IMAGES="$IMAGES m-$comp"
	else
		echo "note: mksquashfs -comp $comp failed: $(cat "$WORK/mksq.err")"
	fi
done
# Debian's gensquashfs keeps times and xattrs, but not hard links
if [ -x "$GENSQUASHFS" ] && "$GENSQUASHFS" -c lzma -D "$SRC" -k -x -q \
	"$WORK/g-lzma.sqfs" >/dev/null 2>&1; then
	IMAGES="$IMAGES g-lzma"
fi
[ -n "$IMAGES" ] || hard_error "no image could be made"
MAIN=$WORK/$(echo $IMAGES | cut -d" " -f1).sqfs

# ------------------------------------------------------------ unpack

for name in $IMAGES; do
	img=$WORK/$name.sqfs
	opts=$CMP_USER
	case $name in g-*) opts="$opts --no-hardlinks" ;; esac

	out=$WORK/u-$name
	# shellcheck disable=SC2086
	rd -q -u / -p "$out" $RD_ATTR "$img"
	if [ "$RC" = 0 ]; then
		# shellcheck disable=SC2086
		check "$name: -u / -C -O -T -X matches the source" \
			cmp_tree "dir:$SRC" "dir:$out" --ignore-root $opts
	else
		fail "$name: unpack failed: $(head -3 "$WORK/rd.err")"
	fi
	rm -rf "$out"

	# every regular file through --cat
	bad=
	for f in hello.txt zero sub/text sub/rand_131072 sub/rand_300000 \
		sparse_mid sparse_end sparse_all hard1 "with space"; do
		"$RDSQ" -c "/$f" "$img" >"$WORK/cat.out" 2>"$WORK/cat.err" &&
			cmp -s "$WORK/cat.out" "$SRC/$f" || bad="$bad $f"
	done
	expect_eq "$name: --cat gives every file's bytes" "$bad" ""

	# listing and stat as Debian's rdsquashfs prints them
	same_output "$name: -l /" -l / "$img"
	same_output "$name: -l /sub" -l /sub "$img"
	for p in / /sub/text /sparse_mid /hard1; do
		same_output "$name: -s $p" -s "$p" "$img"
	done
	if [ "$XATTRS_OK" = 1 ]; then
		same_output "$name: -x /hello.txt" -x /hello.txt "$img"
	fi
done

# every entry of one image (but the deep path's directories, all alike):
# -l, -s and -x as Debian's tool prints them
bad=
for p in $(cd "$SRC" && find . | sed 's#^\.##; s#^$#/#' | tr ' ' '?'); do
	case $p in *'?'* | /deep/d1/d2*) continue ;; esac
	for op in -l -s -x; do
		a=$("$RDSQ" $op "$p" "$MAIN" 2>>"$WORK/loop.err"; echo "rc=$?")
		b=$("$RDSQUASHFS" $op "$p" "$MAIN" 2>/dev/null; echo "rc=$?")
		[ "$a" = "$b" ] || bad="$bad $op:$p"
	done
done
expect_eq "-l, -s, -x of every entry as Debian's tool" "$bad" ""
check "... without a sanitizer report" \
	test -z "$(grep 'Sanitizer\|runtime error' "$WORK/loop.err")"

# ------------------------------------------------------------ expected values

if [ "$IS_ROOT" = 1 ]; then
	rd -l /hello.txt "$MAIN"
	expect_eq "-l of a file" "$(cat "$WORK/rd.out")" \
		"-rw------- 0/0 6 hello.txt"
	rd -l /link_rel "$MAIN"
	expect_eq "-l of a symlink" "$(cat "$WORK/rd.out")" \
		"lrwxrwxrwx 123/456 9 link_rel -> hello.txt"
fi
rd -s /sparse_mid "$MAIN"
expect_eq "-s: sparse bytes" "$(sed -n 's/^Sparse: //p' "$WORK/rd.out")" \
	917504
expect_eq "-s: block count" \
	"$(sed -n 's/^Block count: //p' "$WORK/rd.out")" 8
expect_eq "-s: sparse blocks have size 0" \
	"$(grep -c 'size: 0 (compressed)' "$WORK/rd.out")" 7
rd -s /hard1 "$MAIN"
expect_eq "-s: link count of a hard link" \
	"$(sed -n 's/^Hard link count: //p' "$WORK/rd.out")" 3
rd -s /hello.txt "$MAIN"
expect_eq "-s: mtime" "$(sed -n 's/^Last modified: //p' "$WORK/rd.out")" \
	"Fri, 13 Feb 2009 23:31:30 +0000 (1234567890)"
if [ "$XATTRS_OK" = 1 ]; then
	rd -x /hello.txt "$MAIN"
	expect_eq "-x: text and binary values" "$(cat "$WORK/rd.out")" \
		"$(printf 'user.text=some text\nuser.bin=0x00FF01')"
fi
rd -x /zero "$MAIN"
if [ "$IS_ROOT" = 1 ] && [ "$XATTRS_OK" = 1 ]; then
	expect_eq "-x: trusted.*" "$(cat "$WORK/rd.out")" "trusted.t=root"
fi
rd -x /keep/file "$MAIN"
expect_eq "-x: no xattrs, no output" "$RC:$(cat "$WORK/rd.out")" "0:"

# ------------------------------------------------------------ subtrees

rd -q -u /sub/inner -p "$WORK/sub" -C -T "$MAIN"
check "-u /sub/inner recreates sub/inner below the root" \
	test "$RC" = 0 -a -f "$WORK/sub/sub/inner/hard2" \
	-a ! -e "$WORK/sub/sub/text"
expect_eq "-u /sub/inner: the parent gets its attributes" \
	"$(stat -c '%a %Y' "$WORK/sub/sub")" "1777 1600000000"
rm -rf "$WORK/sub"
mkdir "$WORK/cwd"
(cd "$WORK/cwd" && "$RDSQ" -q -u /sub/text "$MAIN") &&
	cmp -s "$WORK/cwd/sub/text" "$SRC/sub/text"
check "-u of a file, into the current directory" test $? = 0
rm -rf "$WORK/cwd"
rd -q -u /deep -p "$WORK/new/missing/root" "$MAIN"
check "-p: a missing root is created with its parents" \
	test "$RC" = 0 -a -d "$WORK/new/missing/root/deep/d1/d2"
rm -rf "$WORK/new"

# ------------------------------------------------------------ modifiers

u() { # DIR OPTIONS...: unpack MAIN into a fresh DIR
	local d=$WORK/$1
	shift
	rm -rf "$d"
	rd -u / -p "$d" "$@" "$MAIN"
	[ "$RC" = 0 ] || fail "unpack $*: status $RC: $(head -3 "$WORK/rd.err")"
}

u plain -q
check "-q: nothing on stdout" test ! -s "$WORK/rd.out"
expect_eq "no -C: files 0644 less the umask, no set-id bits" \
	"$(stat -c %a "$WORK/plain/sub/rand_1")" \
	"$(printf '%o' $((0644 & ~$(umask))))"
check "no -T: times are not the image's" \
	test "$(stat -c %Y "$WORK/plain/hello.txt")" != 1234567890
if [ "$IS_ROOT" = 1 ]; then
	expect_eq "no -O: owned by the user" \
		"$(stat -c %u:%g "$WORK/plain/sub/rand_1")" "0:0"
fi
if [ "$XATTRS_OK" = 1 ]; then
	check "no -X: no xattrs" test -z \
		"$(getfattr --absolute-names -d "$WORK/plain/hello.txt" \
			2>/dev/null)"
fi
expect_eq "hard links are kept" \
	"$(stat -c %h "$WORK/plain/hard1"):$(stat -c %i "$WORK/plain/hard1")" \
	"3:$(stat -c %i "$WORK/plain/sub/inner/hard2")"
check "symlinks are unpacked as they are" \
	test "$(readlink "$WORK/plain/link_abs")" = /etc/passwd \
	-a "$(readlink "$WORK/plain/sub/link_dangling")" = ../../nowhere
check "sparse files have holes" \
	test "$(du -k "$WORK/plain/sparse_all" | cut -f1)" -lt 64
rm -rf "$WORK/plain"

u loud
check "without -q: one line per entry" \
	grep -q '^unpacking sub/text$' "$WORK/rd.out"
rm -rf "$WORK/loud"

u zs -q -Z
check "-Z: no holes" \
	test "$(du -k "$WORK/zs/sparse_all" | cut -f1)" -ge 2048
check "-Z: same contents" cmp -s "$WORK/zs/sparse_mid" "$SRC/sparse_mid"
rm -rf "$WORK/zs"

u chm -q -C
expect_eq "-C: modes" \
	"$(stat -c %a "$WORK/chm/sub/rand_1" "$WORK/chm/sub" \
		"$WORK/chm/sub/inner" "$WORK/chm/hello.txt" "$WORK/chm/fifo" |
		tr '\n' ' ')" "4755 1777 700 600 640 "
rm -rf "$WORK/chm"

u tim -q -T
expect_eq "-T: times of files, directories and symlinks" \
	"$(stat -c %Y "$WORK/tim/hello.txt" "$WORK/tim/sub" \
		"$WORK/tim/deep/d1" | tr '\n' ' ')$(stat -c %Y \
		"$WORK/tim/link_rel" 2>/dev/null)" \
	"1234567890 1600000000 1600000000 1000000000"
rm -rf "$WORK/tim"

if [ "$IS_ROOT" = 1 ]; then
	u own -q -O
	expect_eq "-O: owners, symlinks included" \
		"$(stat -c %u:%g "$WORK/own/sub/rand_1" "$WORK/own/sub/inner" \
			"$WORK/own/link_rel" | tr '\n' ' ')" \
		"1000:100 65534:65534 123:456 "
	check "-O without -C keeps the modes" \
		test "$(stat -c %a "$WORK/own/sub/inner")" != 700
	rm -rf "$WORK/own"
fi

if [ "$XATTRS_OK" = 1 ]; then
	u xat -q -X
	expect_eq "-X: xattrs of files and directories" \
		"$(getfattr --absolute-names -n user.bin -e hex \
			"$WORK/xat/hello.txt" 2>/dev/null | grep '=')$(getfattr \
			--absolute-names --only-values -n user.dir \
			"$WORK/xat/sub" 2>/dev/null)" "user.bin=0x00ff01yes"
	rm -rf "$WORK/xat"
fi

u flt -q -D -S -F -L
found=$(cd "$WORK/flt" && find . ! -type f ! -type d | wc -l)
expect_eq "-D -S -F -L: no devices, sockets, FIFOs, symlinks" "$found" 0
check "-D: the directory of a device stays (without -E)" \
	test -d "$WORK/flt/only_dev" -a -d "$WORK/flt/empty"
rm -rf "$WORK/flt"

u emp -q -E -D
check "-E: empty directories, and those emptied by -D, are left out" \
	test ! -e "$WORK/emp/empty" -a ! -e "$WORK/emp/only_dev" \
	-a -f "$WORK/emp/keep/file" -a -f "$WORK/emp/deep/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/d13/d14/d15/d16/d17/d18/d19/d20/d21/d22/d23/d24/d25/d26/d27/d28/d29/d30/d31/d32/d33/d34/d35/d36/d37/d38/d39/d40/file"
rm -rf "$WORK/emp"
rd -q -E -u /empty -p "$WORK/emp2" "$MAIN"
check "-E: nothing, not even the parents, for an empty subtree" \
	test "$RC" = 0 -a -z "$(ls -A "$WORK/emp2")"
rm -rf "$WORK/emp2"

rd -q -j 2 -u /keep -p "$WORK/jobs" "$MAIN"
check "-j 2 is accepted" test "$RC" = 0 -a -f "$WORK/jobs/keep/file"
rm -rf "$WORK/jobs"

# -j: the same tree and the same --cat bytes at every job count, for an
# image of every compressor: many small files (sharing fragment blocks),
# a few of many 4 KiB blocks, incompressible ones (raw blocks), a sparse
# one
JT=$WORK/jt
"$PYTHON" -c 'import os, random, sys
d = sys.argv[1]
os.makedirs(d + "/sub")
rnd = random.Random(5)
for i in range(300):
    n = 40000 + i * 997 if i % 40 == 0 else (i * 7919) % 3000 + 1
    with open("%s/%sf%03d" % (d, "sub/" if i % 3 else "", i), "wb") as f:
        if i % 50 == 7:
            f.write(bytes(rnd.getrandbits(8) for _ in range(9000)))
        else:
            f.write(b"".join(b"%d:%d text\n" % (i, k)
                             for k in range(n // 6 + 1))[:n])
with open(d + "/sparse", "wb") as f:
    f.seek(100000)
    f.write(b"x")
    f.seek(300000)
    f.write(b"y")' "$JT" || hard_error "cannot make the -j tree"
# tree_sums DIR: every regular file's path and contents
tree_sums() { (cd "$1" && find . -type f -exec sha256sum {} + | sort); }
for comp in $(mksq_compressors); do
	"$MKSQUASHFS" "$JT" "$WORK/jt.sqfs" -comp "$comp" -b 4K -noappend \
		-quiet -no-progress >/dev/null 2>&1 || continue
	for j in 1 2 3 8; do
		# shellcheck disable=SC2086
		rd -q -j "$j" -u / -p "$WORK/jt$j" $RD_ATTR "$WORK/jt.sqfs"
		expect_eq "-j $j, $comp: -u exit status" "$RC" 0
	done
	# shellcheck disable=SC2086
	check "-j 1, $comp: -u matches the source" \
		cmp_tree "dir:$JT" "dir:$WORK/jt1" --ignore-root $CMP_USER
	for j in 2 3 8; do
		check "-j $j, $comp: -u gives the tree of -j 1" \
			cmp_tree "dir:$WORK/jt1" "dir:$WORK/jt$j" --ignore-root
		rd -j "$j" -c /f000 "$WORK/jt.sqfs"
		check "-j $j, $comp: -c gives the file" \
			cmp -s "$WORK/rd.out" "$JT/f000"
	done
	rm -rf "$WORK"/jt[0-9]*
done

# a damaged data block: the same message, status and files at every -j
"$MKSQUASHFS" "$JT" "$WORK/jd.sqfs" -comp gzip -b 4K -noappend -quiet \
	-no-progress >/dev/null 2>&1 || hard_error "mksquashfs failed"
at=$("$PYTHON" -c 'import struct, sys
with open(sys.argv[1], "rb") as f:
    sb = f.read(96)
print((96 + struct.unpack_from("<Q", sb, 64)[0]) // 2)' "$WORK/jd.sqfs")
printf '\377\377\377\377\377\377\377\377' |
	dd of="$WORK/jd.sqfs" bs=1 seek="$at" conv=notrunc 2>/dev/null
for j in 1 2 3 8; do
	rd -j "$j" -u / -p "$WORK/jd$j" "$WORK/jd.sqfs"
	expect_eq "damaged, -j $j: -u exit status" "$RC" 1
	if [ "$j" = 1 ]; then
		cp "$WORK/rd.out" "$WORK/jd.out"
		cp "$WORK/rd.err" "$WORK/jd.err"
		check "damaged, -j 1: names a file" \
			grep -q '^rdsquashfs: .*f[0-9]*: ' "$WORK/jd.err"
		check "damaged, -j 1: names the inode and the block" \
			grep -E -q '^rdsquashfs: .*f[0-9]*: inode [0-9]+: (block [0-9]+|tail): ' "$WORK/jd.err"
		tree_sums "$WORK/jd1" >"$WORK/jd1.sums"
		continue
	fi
	check "damaged, -j $j: the same messages as -j 1" \
		cmp -s "$WORK/jd.err" "$WORK/rd.err"
	check "damaged, -j $j: the same progress as -j 1" \
		cmp -s "$WORK/jd.out" "$WORK/rd.out"
	check "damaged, -j $j: the same files as -j 1" \
		test "$(tree_sums "$WORK/jd$j")" = "$(cat "$WORK/jd1.sums")"
done

# a file that cannot be written (over the file size limit: EFBIG) stops
# the unpacking with status 1 and names the file, whether its bytes are
# written on the main thread (a file bigger than a block) or by the
# finisher thread (a block at most), alone or amid a whole tree
small=$(cd "$JT" && find . -type f -size +2k -size -5k | sort | head -n 1)
[ -n "$small" ] || hard_error "no file of 2-4 KiB in the -j tree"
for what in /f000 "${small#.}" /; do
	for j in 1 2; do
		rm -rf "$WORK/wf"
		(
			trap '' XFSZ
			ulimit -f 2
			exec "$RDSQ" -q -j "$j" -u "$what" -p "$WORK/wf" \
				"$WORK/jt.sqfs"
		) >"$WORK/rd.out" 2>"$WORK/rd.err"
		RC=$?
		expect_eq "write failure, -u $what -j $j: exit status" "$RC" 1
		check "write failure, -u $what -j $j: names the file" \
			grep -q '^rdsquashfs: [^ ]*: cannot write: ' "$WORK/rd.err"
		check "write failure, -u $what -j $j: no sanitizer report" \
			test "$(grep -c 'Sanitizer\|runtime error' \
				"$WORK/rd.err")" = 0
	done
done
# (the last round unpacked the whole tree at -j 2)
check "write failure amid a tree: the walk stops early" \
	test "$(find "$WORK/wf" -type f | wc -l)" -lt 300
rm -rf "$JT" "$WORK"/jd* "$WORK/wf"

# ------------------------------------------------------------ describe

rd -d "$MAIN"
cp "$WORK/rd.out" "$WORK/pack"
check "-d succeeds" test "$RC" = 0
# the owner of what make_source does not chown
OWN="$(id -u) $(id -g)"
check "-d: the root line" grep -qx "dir / 0755 $OWN" "$WORK/pack"
check "-d: hard links as link lines" \
	grep -q "^link sub/inner/hard2 0644 $OWN /hard1\$" "$WORK/pack"
check "-d: quoted paths" grep -q "^file \"quo\\\\\"te\" 0644 $OWN\$" \
	"$WORK/pack"
check "-d: symlink lines" \
	grep -q "^slink sub/link_dangling 0777 $OWN ../../nowhere\$" \
	"$WORK/pack"
if [ "$HAS_DEVICES" = 1 ]; then
	check "-d: device lines" grep -q '^nod cdev 0644 0 0 c 1 3$' \
		"$WORK/pack"
fi
rd -d -p /some/prefix/ "$MAIN"
check "-d -p: file locations" \
	grep -q "^file \"with space\" 0644 $OWN /some/prefix/with space\$" \
	"$WORK/rd.out"

NO_TIME='s/ [0-9]\{4\}-[0-9-]\{5\} [0-9:]\{5\} / /'
if [ -x "$GENSQUASHFS" ]; then
	# the pack file with the unpacked tree as input makes the same
	# image, hard links included; a pack file has no times or xattrs
	rd -q -u / -p "$WORK/in" -C "$MAIN"
	if "$GENSQUASHFS" -F "$WORK/pack" -D "$WORK/in" -q \
		"$WORK/rebuilt.sqfs" >"$WORK/gen.err" 2>&1; then
		"$UNSQUASHFS" -lln -UTC "$MAIN" | sed "$NO_TIME" >"$WORK/a.lls"
		"$UNSQUASHFS" -lln -UTC "$WORK/rebuilt.sqfs" | sed "$NO_TIME" \
			>"$WORK/b.lls"
		check "-d: gensquashfs rebuilds the tree (unsquashfs -lln)" \
			cmp -s "$WORK/a.lls" "$WORK/b.lls"
		rd -q -u / -p "$WORK/re" $RD_ATTR "$WORK/rebuilt.sqfs"
		# shellcheck disable=SC2086
		check "-d: the rebuilt image unpacks to the source" \
			cmp_tree "dir:$SRC" "dir:$WORK/re" --no-mtime \
			--no-xattrs $CMP_USER
	else
		fail "-d: gensquashfs rejects the pack file: $(cat "$WORK/gen.err")"
	fi
	rm -rf "$WORK/in" "$WORK/re"
fi

# ------------------------------------------------------------ errors

# the library's words: the image, the path, the part of it at fault
# expect_err WHAT LINE: stderr is exactly LINE
expect_err() {
	expect_eq "$1: the message" "$(cat "$WORK/rd.err")" "$2"
}
rd -l /nonexistent "$MAIN"
check "a missing path: status 1 and a message" \
	test "$RC" = 1 -a -s "$WORK/rd.err"
expect_err "a missing path" \
	"rdsquashfs: $MAIN: '/nonexistent': no such file or directory"
rd -l /sub/nope/x "$MAIN"
expect_err "a missing directory" \
	"rdsquashfs: $MAIN: '/sub/nope': no such file or directory"
rd -l /hello.txt/x "$MAIN"
check "a path through a file: status 1" test "$RC" = 1
expect_err "a path through a file" \
	"rdsquashfs: $MAIN: '/hello.txt': not a directory"
rd -s ../hello.txt "$MAIN"
check "'..' in a path: status 1" test "$RC" = 1
expect_err "'..' in a path" \
	"rdsquashfs: $MAIN: '..' in path '../hello.txt'"
rd -c /sub "$MAIN"
check "-c of a directory: status 1" test "$RC" = 1 -a ! -s "$WORK/rd.out"
rd -c /link_rel "$MAIN"
check "-c of a symlink: status 1 (not followed)" test "$RC" = 1
rd "$MAIN"
check "no operation: status 1" test "$RC" = 1
rd -l / -s / "$MAIN"
check "two operations: status 1" test "$RC" = 1
rd -l /
check "no image: status 1" test "$RC" = 1
rd -l / "$MAIN" extra
check "two images: status 1" test "$RC" = 1
rd -l / "$WORK/nonexistent.sqfs"
check "a missing image: status 1" test "$RC" = 1
head -c 8192 /dev/zero >"$WORK/zeros"
rd -l / "$WORK/zeros"
check "not an image: status 1" test "$RC" = 1
expect_err "not an image" \
	"rdsquashfs: $WORK/zeros: not a SquashFS image (bad magic)"
head -c 4096 "$MAIN" >"$WORK/cut.sqfs"
rd -l / "$WORK/cut.sqfs"
check "a cut image: status 1" test "$RC" = 1
expect_err "a cut image" "rdsquashfs: $WORK/cut.sqfs: the image is cut short: it says $("$PYTHON" -c 'import struct, sys
with open(sys.argv[1], "rb") as f:
    print(struct.unpack_from("<Q", f.read(96), 40)[0])' "$MAIN") bytes, the file has 4096"
rd -j 0 -l / "$MAIN"
check "-j 0: status 1" test "$RC" = 1
rd --bogus -l / "$MAIN"
check "an unknown option: status 1" test "$RC" = 1
rd --help
check "--help: status 0" test "$RC" = 0 -a -s "$WORK/rd.out"
rd --version
check "--version: status 0" grep -q '^rdsquashfs ' "$WORK/rd.out"

# the man page says what --help says: every long option is in both
"$RDSQ" --help >"$WORK/help"
bad=
for o in $(grep -o -- '--[a-z][a-z-]*' "$WORK/help" | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" \
		"$abs_top_srcdir/doc/rdsquashfs.1" || bad="$bad $o"
done
expect_eq "every option of --help is in the man page" "$bad" ""

# ------------------------------------------------------------ safety

OUTSIDE=$WORK/outside
mkdir -p "$OUTSIDE"

# a directory of the image is a symlink to outside in the target
T=$WORK/t1
mkdir -p "$T"
ln -s "$OUTSIDE" "$T/sub"
rd -q -u / -p "$T" "$MAIN"
check "a symlink where a directory goes: refused (status 1)" \
	test "$RC" = 1
expect_eq "... and nothing written outside" "$(ls -A "$OUTSIDE")" ""
rd -q -u /sub -p "$T" "$MAIN"
check "-u /sub, sub a symlink in the target: refused" test "$RC" = 1
expect_eq "... and nothing written outside" "$(ls -A "$OUTSIDE")" ""

# a file of the image is a symlink (dangling, to outside) in the target
T=$WORK/t2
mkdir -p "$T/sub/inner"
ln -s "$OUTSIDE/victim" "$T/hello.txt"
ln -s "$OUTSIDE/victim2" "$T/sub/inner/hard2"
rd -q -u / -p "$T" -C -O -T -X "$MAIN"
check "a symlink where a file goes: refused (status 1)" test "$RC" = 1
rd -q -u /sub/inner -p "$T" -C -O -T -X "$MAIN"
check "a symlink where a hard link goes: refused (status 1)" test "$RC" = 1
expect_eq "... and nothing written outside" "$(ls -A "$OUTSIDE")" ""

# a symlink to an outside file where the image has a symlink
T=$WORK/t3
mkdir -p "$T"
echo precious >"$OUTSIDE/precious"
chmod 0600 "$OUTSIDE/precious"
ln -s "$OUTSIDE/precious" "$T/link_rel"
rd -q -u /link_rel -p "$T" -C -O -T "$MAIN"
check "a symlink where a symlink goes: refused (status 1)" test "$RC" = 1
expect_eq "... and its target is left alone" \
	"$(stat -c '%a %s' "$OUTSIDE/precious"):$(cat "$OUTSIDE/precious")" \
	"600 9:precious"
rm -f "$OUTSIDE/precious"

# an existing file is not replaced, an existing directory is reused
T=$WORK/t4
mkdir -p "$T"
echo mine >"$T/hello.txt"
rd -q -u / -p "$T" "$MAIN"
check "an existing file: status 1" test "$RC" = 1
expect_eq "... and it is left alone" "$(cat "$T/hello.txt")" mine
T=$WORK/t5
mkdir -p "$T/sub"
rd -q -u / -p "$T" "$MAIN"
check "an existing directory is used as it is" \
	test "$RC" = 0 -a -f "$T/sub/text"
rm -rf "$WORK/t1" "$WORK/t2" "$WORK/t3" "$WORK/t4" "$WORK/t5"

# ------------------------------------------------------------ as nobody

# what an ordinary user may not do is a warning, not the end
if [ "$IS_ROOT" = 1 ] && command -v setpriv >/dev/null 2>&1 &&
	id nobody >/dev/null 2>&1; then
	NB=$WORK/nobody
	mkdir -p "$NB"
	chmod 0711 "$WORK"
	chmod 0777 "$NB"
	cp "$MAIN" "$NB/img.sqfs"
	chmod 0644 "$NB/img.sqfs"
	as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$RDSQ" "$@" >"$WORK/rd.out" 2>"$WORK/rd.err"
		RC=$?
		if grep -q 'Sanitizer\|runtime error' "$WORK/rd.err"; then
			fail "as nobody: sanitizer report"
			head -20 "$WORK/rd.err"
		fi
	}
	as_nobody -q -u / -p "$NB/out" -C -O -T -X "$NB/img.sqfs"
	if grep -q 'error while loading\|cannot execute\|Permission denied$' \
		"$WORK/rd.err" && [ ! -d "$NB/out" ]; then
		echo "note: the tool cannot run as nobody here; skipped"
	else
		check "as nobody, -C -O -T -X: status 0" test "$RC" = 0
		check "... warnings about devices and owners" \
			grep -q 'cdev: cannot create' "$WORK/rd.err"
		check "... owners warned about once" \
			test "$(grep -c 'owners are left' "$WORK/rd.err")" = 1
		if [ "$XATTRS_OK" = 1 ]; then
			check "... the trusted.* xattr warned about" \
				grep -q 'trusted.t' "$WORK/rd.err"
		fi
		check "... everything else unpacked" \
			cmp_tree "dir:$SRC" "dir:$NB/out" --ignore-root \
			--no-owner --no-devices --no-xattrs
	fi
	chmod 0700 "$WORK"
fi

finish

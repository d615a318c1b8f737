#!/bin/sh
# SPDX-License-Identifier: MIT
# sqfs2tar against independent writers and readers: images made by
# mksquashfs (every compressor and layout option) and gensquashfs (lzma)
# are turned into tar archives, which GNU tar and bsdtar extract; the
# result is compared with the source tree in every attribute. Then the
# round trip through tar2sqfs, each option's effect, files over 8 GiB,
# sparse files, and damaged images. SQFS2TAR=/path tests another build.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$abs_top_srcdir/tests/integration/lib_reader.sh"

[ -x "$MKSQUASHFS" ] || skip_all "$MKSQUASHFS is not installed"

SRC=$WORK/src
XATTRS=$(make_src_tree "$SRC") || hard_error "cannot make the source tree"
[ "$XATTRS" = 1 ] ||
	echo "note: this file system refuses user.* xattrs: not compared"

# What a user's extraction cannot restore: owners and devices.
CMP_OPTS=
[ "$IS_ROOT" = 1 ] || CMP_OPTS="--no-owner --no-devices"

# extracted NAME ARCHIVE SOURCE [compare_tree options...]: GNU tar's and
# (if installed) bsdtar's extraction of the archive, each compared with
# the source tree. bsdtar does not restore the time of "./".
extracted() {
	local name=$1 tar=$2 src=$3
	shift 3
	if gnu_extract "$tar" "$WORK/x"; then
		# shellcheck disable=SC2086
		check "$name: GNU tar's extraction matches the source" \
			cmp_tree "dir:$src" "dir:$WORK/x" $CMP_OPTS "$@"
	else
		fail "$name: GNU tar cannot extract: $(cat "$WORK/gnutar.err")"
	fi
	[ "$HAVE_BSDTAR" = 1 ] && [ -z "${GNU_ONLY:-}" ] || return 0
	if bsd_extract "$tar" "$WORK/b"; then
		# shellcheck disable=SC2086
		check "$name: bsdtar's extraction matches the source" \
			cmp_tree "dir:$src" "dir:$WORK/b" $CMP_OPTS \
			--ignore-root "$@"
	else
		fail "$name: bsdtar cannot extract: $(cat "$WORK/bsdtar.err")"
	fi
}

# unpacked NAME IMAGE [sqfs2tar options...]: the archive of the image in
# $WORK/NAME.tar; a failure to write it is a failure. Returns its status.
unpacked() {
	local name=$1 img=$2
	shift 2
	s2t "$WORK/$name.tar" "$@" "$img"
	if [ "$RC" != 0 ]; then
		[ "$RC" = crash ] ||
			fail "$name: sqfs2tar $* exit status $RC:" \
				"$(cat "$WORK/s2t.err")"
		return 1
	fi
	return 0
}

# -- (1) mksquashfs images, every compressor and layout ---------------------
COMPS=$("$MKSQUASHFS" -help 2>&1 | awk '/Compressors available:$/ { f = 1; next }
	f && /^\t+[a-z0-9]+( \(default\))?$/ { print $1; next }
	f { exit }')
[ -n "$COMPS" ] || COMPS=gzip
for comp in $COMPS; do
	for opts in "" "-b 4K -no-fragments"; do
		name="mksquashfs-$comp${opts:+ $opts}"
		# shellcheck disable=SC2086
		mksq "$SRC" "$WORK/m.sqfs" -comp "$comp" $opts
		unpacked m "$WORK/m.sqfs" -r . &&
			extracted "$name" "$WORK/m.tar" "$SRC"
	done
done
for opts in -no-fragments -always-use-fragments -no-tailends -tailends \
	"-b 4K" "-b 1M" -exports -no-exports "-b 4K -always-use-fragments"; do
	name="mksquashfs $opts"
	# shellcheck disable=SC2086
	mksq "$SRC" "$WORK/m.sqfs" $opts
	# without -r the root has no entry
	unpacked m "$WORK/m.sqfs" && extracted "$name" "$WORK/m.tar" "$SRC" \
		--ignore-root
done

# -- (6) sparse files stay sparse -------------------------------------------
mksq "$SRC" "$WORK/m.sqfs"
if unpacked m "$WORK/m.sqfs" && gnu_extract "$WORK/m.tar" "$WORK/x"; then
	for f in data/sparse data/hole_head data/zeros data/zeros_short; do
		size=$(file_size "$SRC/$f")
		got=$(allocated "$WORK/x/$f")
		check "sparse: $f ($size bytes) takes $got bytes after GNU tar" \
			test "$got" -le $((size / 4))
	done
	expect_eq "sparse: an all-zero file stores no data in the archive" \
		"$("$PYTHON" -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
print(t.getmember("data/zeros").sparse)' "$WORK/m.tar")" \
		"[(1048576, 0)]"
	if [ "$HAVE_BSDTAR" = 1 ] && bsd_extract "$WORK/m.tar" "$WORK/b"; then
		got=$(allocated "$WORK/b/data/sparse")
		check "sparse: data/sparse takes $got bytes after bsdtar" \
			test "$got" -le $(($(file_size "$SRC/data/sparse") / 4))
	fi
fi

# -- (2) gensquashfs images (lzma) ------------------------------------------
if [ -x "$GENSQUASHFS" ]; then
	rm -f "$WORK/g.sqfs"
	if "$GENSQUASHFS" -q -c lzma -k -x -D "$SRC" "$WORK/g.sqfs" \
		>"$WORK/g.out" 2>&1; then
		# gensquashfs --pack-dir keeps no hard links and no root
		# attributes
		unpacked g "$WORK/g.sqfs" &&
			extracted "gensquashfs -c lzma" "$WORK/g.tar" "$SRC" \
				--ignore-root --no-hardlinks
	else
		fail "gensquashfs -c lzma failed: $(tail -3 "$WORK/g.out")"
	fi
else
	echo "note: gensquashfs checks skipped: $GENSQUASHFS is not installed"
fi

# -- xattr names GNU tar escapes ('=' and '%') ------------------------------
if [ "$XATTRS" = 1 ]; then
	mkdir -p "$WORK/xk"
	echo x >"$WORK/xk/f"
	"$PYTHON" -c 'import os, sys
os.setxattr(sys.argv[1], "user.a=b", b"1")
os.setxattr(sys.argv[1], "user.p%q", b"2")' "$WORK/xk/f"
	mksq "$WORK/xk" "$WORK/xk.sqfs"
	# (bsdtar, like libarchive's reader, does not decode the names)
	unpacked xk "$WORK/xk.sqfs" -r . &&
		GNU_ONLY=1 extracted "xattr names with = and %" \
			"$WORK/xk.tar" "$WORK/xk" --no-mtime
fi

# -- (3) round trip: tar -> tar2sqfs -> sqfs2tar -> tar2sqfs ----------------
# An archive in the image's order (GNU tar --sort=name) comes back as the
# same image, byte for byte. gen_tar.py's archives have their own order,
# which decides where the data lands in the image: for them the tree
# must survive, and a second round must give the same archive and image.
roundtrip() { # NAME ARCHIVE: sets RT to the image of the first round
	local name=$1 tar=$2 i
	RT=
	rm -f "$WORK/rt0.sqfs"
	t2s "$WORK/rt0.sqfs" -q <"$tar"
	[ "$RC" = 0 ] || {
		fail "$name: tar2sqfs of the original failed: $(cat "$WORK/t2s.err")"
		return 1
	}
	for i in 1 2; do
		unpacked "rt$i" "$WORK/rt$((i - 1)).sqfs" -r . || return 1
		rm -f "$WORK/rt$i.sqfs"
		t2s "$WORK/rt$i.sqfs" -q <"$WORK/rt$i.tar"
		[ "$RC" = 0 ] || {
			fail "$name: tar2sqfs of sqfs2tar's archive failed:" \
				"$(cat "$WORK/t2s.err")"
			return 1
		}
	done
	RT=$WORK/rt1.sqfs
	check "$name: round trip: a second round gives the same archive" \
		cmp -s "$WORK/rt1.tar" "$WORK/rt2.tar"
	check "$name: round trip: a second round gives the same image" \
		cmp -s "$WORK/rt1.sqfs" "$WORK/rt2.sqfs"
}

"$GNUTAR" -C "$SRC" --sort=name --format=posix --sparse --xattrs \
	--xattrs-include='*' --numeric-owner -cf "$WORK/src.tar" . ||
	hard_error "GNU tar cannot archive the source tree"
if roundtrip "source tree (sorted)" "$WORK/src.tar"; then
	check "source tree (sorted): round trip gives an identical image" \
		cmp -s "$WORK/rt0.sqfs" "$WORK/rt1.sqfs"
fi

for case in types mix opts numbers long_gnu long_pax long_ustar hardlinks \
	hardlink_forward xattrs deep duplicates duplicates_hardlink \
	implicit names mtimes empty sparse_gnu sparse_1.0 big fmt_v7 \
	fmt_gnu fmt_posix; do
	TAR=$(gen "$case")
	roundtrip "$case" "$TAR" || continue
	if cmp -s "$WORK/rt0.sqfs" "$WORK/rt1.sqfs"; then
		pass "$case: round trip gives an identical image"
		continue
	elif [ "$case" = big ]; then
		# in order already; and its pseudo file would be 4 GiB
		fail "$case: round trip gives another image"
		continue
	fi
	# another order: the same tree (exact times, links, contents)
	for i in 0 1; do
		"$UNSQUASHFS" -pf "$WORK/pf$i" "$WORK/rt$i.sqfs" >/dev/null \
			2>&1 || fail "$case: unsquashfs -pf rt$i failed"
	done
	check "$case: round trip keeps the tree" \
		cmp_tree "pf:$WORK/pf0" "pf:$WORK/pf1"
	rm -f "$WORK/pf0" "$WORK/pf1"
done

# -- (4) options ------------------------------------------------------------
# the small tree of the -d/-k/-r checks (Debian's sqfs2tar 1.2 gives the
# same listings where it works: with -k, -r, and without -d)
mkdir -p "$WORK/o/a/b" "$WORK/o/c" "$WORK/o/d"
echo hi >"$WORK/o/a/b/f"
echo x >"$WORK/o/a/g"
ln "$WORK/o/a/g" "$WORK/o/c/hl"
ln -s ../a/g "$WORK/o/c/sl"
echo y >"$WORK/o/top"
chmod 750 "$WORK/o"
chmod 700 "$WORK/o/a"
mksq "$WORK/o" "$WORK/o.sqfs"
OIMG=$WORK/o.sqfs

# listing EXPECTED [options...]: the names in the archive, in order
listing() {
	local expect=$1 got
	shift
	s2t "$WORK/l.tar" "$@" "$OIMG"
	if [ "$RC" != 0 ]; then
		fail "sqfs2tar $*: exit status $RC: $(cat "$WORK/s2t.err")"
		return
	fi
	got=$("$GNUTAR" -tf "$WORK/l.tar" | tr '\n' ' ' | sed 's/ $//')
	expect_eq "sqfs2tar $*: listing" "$got" "$expect"
}

ALL="a/ a/b/ a/b/f a/g c/ c/hl c/sl d/ top"
listing "$ALL"
listing "x/ x/a/ x/a/b/ x/a/b/f x/a/g x/c/ x/c/hl x/c/sl x/d/ x/top" -r x
listing "./ ./a/ ./a/b/ ./a/b/f ./a/g ./c/ ./c/hl ./c/sl ./d/ ./top" -r .
listing "x/y/ x/y/a/ x/y/a/b/ x/y/a/b/f x/y/a/g x/y/c/ x/y/c/hl x/y/c/sl x/y/d/ x/y/top" \
	--root-becomes /x//y/
listing "b/ b/f g" -d a
listing "b/ b/f g" --subdir /a/
listing "a/ a/b/ a/b/f a/g" -d a -k
listing "x/ x/b/ x/b/f x/g" -d a -r x
listing "x/ x/a/ x/a/b/ x/a/b/f x/a/g" -d a -k -r x
listing "a/ a/b/ a/b/f" -d a/b --keep-as-dir
listing "./ ./a/ ./a/b/ ./a/b/f" -d a/b -k -r .
listing "a/ a/g" -d a/g -k
listing "a/ a/b/ a/b/f a/g c/ c/hl c/sl" -d c -d a
listing "a/ a/b/ a/b/f a/g" -d a -d a/b
listing "a/ a/b/ a/b/f a/g c/ c/hl c/sl d/ top" -d / 

# entry types: T name [linkname] per entry
types_of() {
	"$PYTHON" -c 'import sys, tarfile
for t in tarfile.open(sys.argv[1]):
    print("%s %s %s" % (t.name, t.type.decode(), t.linkname))' "$1" |
		tr '\n' ';'
}
s2t "$WORK/l.tar" "$OIMG"
expect_eq "hard link: c/hl is a link to a/g" \
	"$(types_of "$WORK/l.tar" | tr ';' '\n' | grep '^c/hl')" "c/hl 1 a/g"
s2t "$WORK/l.tar" -r x "$OIMG"
expect_eq "-r x: the link target has the prefix" \
	"$(types_of "$WORK/l.tar" | tr ';' '\n' | grep '^x/c/hl')" \
	"x/c/hl 1 x/a/g"
expect_eq "-r x: x/ has the root's mode" \
	"$("$GNUTAR" -tvf "$WORK/l.tar" | head -1 | cut -c1-10)" drwxr-x---
s2t "$WORK/l.tar" -d c -k "$OIMG"
expect_eq "-d c -k: c/hl, whose first name is not written, is a file" \
	"$(types_of "$WORK/l.tar" | tr ';' '\n' | grep '^c/hl')" "c/hl 0 "
s2t "$WORK/l.tar" -d c -d a "$OIMG"
expect_eq "-d c -d a: c/hl is a link to a/g across the subtrees" \
	"$(types_of "$WORK/l.tar" | tr ';' '\n' | grep '^c/hl')" "c/hl 1 a/g"
# a group of three names in three parts, kept until its last name
mkdir -p "$WORK/l3/a" "$WORK/l3/b" "$WORK/l3/c"
echo z >"$WORK/l3/a/f"
ln "$WORK/l3/a/f" "$WORK/l3/b/f"
ln "$WORK/l3/a/f" "$WORK/l3/c/f"
mksq "$WORK/l3" "$WORK/l3.sqfs"
s2t "$WORK/l.tar" -d c -d b -d a "$WORK/l3.sqfs"
expect_eq "-d c -d b -d a: b/f and c/f are links to a/f" \
	"$(types_of "$WORK/l.tar" | tr ';' '\n' | grep '/f ')" \
	"$(printf 'a/f 0 \nb/f 1 a/f\nc/f 1 a/f')"

for bad in "-d a/g" "-d nope" "-d a/../c" "-r .." "-r /" "-r a/../b" \
	"-r ''" "-c lz4" "-c" "-j 0" "-j x" "--bogus" "-Z"; do
	eval "s2t \"\$WORK/bad.tar\" $bad \"\$OIMG\""
	expect_eq "sqfs2tar $bad: exit status" "$RC" 1
	check "sqfs2tar $bad: says why" grep -q '^sqfs2tar: ' "$WORK/s2t.err"
done
s2t "$WORK/bad.tar"
expect_eq "no image: exit status" "$RC" 1
s2t "$WORK/bad.tar" "$OIMG" "$OIMG"
expect_eq "two images: exit status" "$RC" 1
for opt in -h --help -V --version; do
	s2t "$WORK/help.out" $opt
	expect_eq "$opt: exit status" "$RC" 0
	check "$opt: prints something" test -s "$WORK/help.out"
done
s2t "$WORK/help.out" --help
for o in compressor subdir keep-as-dir root-becomes no-xattr no-hard-links \
	no-skip num-jobs help version; do
	check "--help names --$o" grep -q -e "--$o" "$WORK/help.out"
	# the man page writes each '-' as '\-'
	check "the man page names --$o" grep -q -F \
		"$(echo "--$o" | sed 's/-/\\-/g')" "$abs_top_srcdir/doc/sqfs2tar.1"
done

# -j: the same archive, byte for byte, at every job count, for an image
# of every compressor: many small files (sharing fragment blocks), a few
# of many 4 KiB blocks, incompressible ones (raw blocks), a sparse one
s2t "$WORK/j1.tar" "$OIMG"
JT=$WORK/jt
"$PYTHON" -c 'import os, random, sys
d = sys.argv[1]
os.makedirs(d)
rnd = random.Random(5)
for i in range(300):
    n = 40000 + i * 997 if i % 40 == 0 else (i * 7919) % 3000 + 1
    with open("%s/f%03d" % (d, i), "wb") as f:
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
first=1
for comp in $COMPS; do
	mksq "$JT" "$WORK/jt.sqfs" -comp "$comp" -b 4K
	unpacked jt1 "$WORK/jt.sqfs" -j 1 -r . || continue
	if [ "$first" = 1 ]; then
		GNU_ONLY=1 extracted "-j 1, $comp" "$WORK/jt1.tar" "$JT"
		first=0
	fi
	for j in 2 3 8; do
		unpacked "jt$j" "$WORK/jt.sqfs" -j "$j" -r . &&
			check "-j $j, $comp: the same archive as -j 1" \
				cmp -s "$WORK/jt1.tar" "$WORK/jt$j.tar"
	done
done

# a damaged data block: the same message, status and output at every -j
mksq "$JT" "$WORK/jd.sqfs" -comp gzip -b 4K
at=$("$PYTHON" -c 'import struct, sys
with open(sys.argv[1], "rb") as f:
    sb = f.read(96)
print((96 + struct.unpack_from("<Q", sb, 64)[0]) // 2)' "$WORK/jd.sqfs")
printf '\377\377\377\377\377\377\377\377' |
	dd of="$WORK/jd.sqfs" bs=1 seek="$at" conv=notrunc 2>/dev/null
s2t "$WORK/jd1.tar" -j 1 "$WORK/jd.sqfs"
cp "$WORK/s2t.err" "$WORK/jd1.err"
expect_eq "damaged, -j 1: exit status" "$RC" 1
check "damaged, -j 1: names a file" grep -q '^sqfs2tar: /f[0-9]*: ' \
	"$WORK/jd1.err"
for j in 2 3 8; do
	s2t "$WORK/jd$j.tar" -j "$j" "$WORK/jd.sqfs"
	expect_eq "damaged, -j $j: exit status" "$RC" 1
	check "damaged, -j $j: the same message as -j 1" \
		cmp -s "$WORK/jd1.err" "$WORK/s2t.err"
	check "damaged, -j $j: the same output as -j 1" \
		cmp -s "$WORK/jd1.tar" "$WORK/jd$j.tar"
done
rm -rf "$JT" "$WORK"/jt*.tar "$WORK"/jd*.tar

# -X, -L on the big source image
mksq "$SRC" "$WORK/m.sqfs"
count_tar() { # ARCHIVE PYTHON-CONDITION-ON-t
	"$PYTHON" -c 'import sys, tarfile
print(sum(1 for t in tarfile.open(sys.argv[1]) if eval(sys.argv[2])))' \
		"$1" "$2"
}
XA='any(k.startswith("SCHILY.xattr.") for k in t.pax_headers)'
s2t "$WORK/d.tar" "$WORK/m.sqfs"
if [ "$XATTRS" = 1 ]; then
	check "default: xattr records present" \
		test "$(count_tar "$WORK/d.tar" "$XA")" -gt 0
fi
check "default: hard links present" \
	test "$(count_tar "$WORK/d.tar" 't.islnk()')" -eq 3
s2t "$WORK/X.tar" -X "$WORK/m.sqfs"
expect_eq "-X: exit status" "$RC" 0
expect_eq "-X: no xattr records" "$(count_tar "$WORK/X.tar" "$XA")" 0
unpacked L "$WORK/m.sqfs" -L -r . &&
	extracted "-L" "$WORK/L.tar" "$SRC" --no-hardlinks
expect_eq "-L: no hard links" "$(count_tar "$WORK/L.tar" 't.islnk()')" 0
expect_eq "-L: every name has its data" \
	"$(count_tar "$WORK/L.tar" 't.name.endswith("h3") and t.size == 12')" 1

# -c: the magic bytes, and the same archive inside (tar2sqfs unpacks each)
t2s "$WORK/c0.sqfs" -q <"$WORK/j1.tar"
for c in gzip:1f8b xz:fd377a585a00 zstd:28b52ffd bzip2:425a68; do
	name=${c%%:*}
	magic=${c#*:}
	if ! "$SQFS2TAR" --help | grep -q "^	$name\$"; then
		echo "note: -c $name: not in this build's libarchive"
		continue
	fi
	s2t "$WORK/c.tar" -c "$name" "$OIMG"
	expect_eq "-c $name: exit status" "$RC" 0
	expect_eq "-c $name: magic bytes" \
		"$(head -c $((${#magic} / 2)) "$WORK/c.tar" | od -An -tx1 |
			tr -d ' \n')" "$magic"
	rm -f "$WORK/c.sqfs"
	t2s "$WORK/c.sqfs" -q <"$WORK/c.tar"
	check "-c $name: the archive inside is the uncompressed one" \
		cmp -s "$WORK/c0.sqfs" "$WORK/c.sqfs"
done

# -s: a socket cannot go into a tar archive
mkdir -p "$WORK/so"
echo a >"$WORK/so/a"
echo z >"$WORK/so/z"
"$PYTHON" -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$WORK/so/sock" ||
	hard_error "cannot make a socket"
mksq "$WORK/so" "$WORK/so.sqfs"
s2t "$WORK/so.tar" "$WORK/so.sqfs"
expect_eq "socket: exit status without -s" "$RC" 0
check "socket: a warning names it" grep -q 'sqfs2tar: /sock: .*socket' \
	"$WORK/s2t.err"
expect_eq "socket: the other entries are written" \
	"$("$GNUTAR" -tf "$WORK/so.tar" | tr '\n' ' ')" "a z "
s2t "$WORK/so.tar" -s "$WORK/so.sqfs"
expect_eq "socket: exit status with -s" "$RC" 1
check "socket: -s says why" grep -q 'sqfs2tar: /sock: .*socket' \
	"$WORK/s2t.err"
s2t "$WORK/so.tar" --no-skip "$WORK/so.sqfs"
expect_eq "socket: exit status with --no-skip" "$RC" 1

# -- (5) a file over 8 GiB --------------------------------------------------
BIG=$WORK/big
mkdir -p "$BIG"
"$PYTHON" -c 'import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"head" * 1000)
    f.seek((8 << 30) - 100)
    f.write(b"across 8 GiB" * 20)
    f.seek((9 << 30) + 12345)
    f.write(b"tail")' "$BIG/huge"
if [ "$(allocated "$BIG/huge")" -gt $((64 << 20)) ]; then
	echo "note: no sparse files here: the 8 GiB check is skipped"
	rm -f "$BIG/huge"
else
	"$GNUTAR" -C "$BIG" --sparse --format=posix -cf "$WORK/big.tar" huge
	t2s "$WORK/big.sqfs" -q <"$WORK/big.tar"
	expect_eq "over 8 GiB: tar2sqfs exit status" "$RC" 0
	if unpacked bigout "$WORK/big.sqfs"; then
		extracted "over 8 GiB" "$WORK/bigout.tar" "$BIG" \
			--ignore-root
		check "over 8 GiB: the archive is small" \
			test "$(file_size "$WORK/bigout.tar")" -lt $((1 << 20))
		expect_eq "over 8 GiB: size after GNU tar" \
			"$(file_size "$WORK/x/huge")" $(((9 << 30) + 12349))
		check "over 8 GiB: sparse after GNU tar" \
			test "$(allocated "$WORK/x/huge")" -lt $((16 << 20))
	fi
	rm -rf "$BIG" "$WORK/x" "$WORK/b"
fi

# -- damaged images ----------------------------------------------------------
head -c 65536 /dev/urandom >"$WORK/random.img"
s2t "$WORK/bad.tar" "$WORK/random.img"
expect_eq "not an image: exit status" "$RC" 1
expect_eq "not an image: the message" "$(cat "$WORK/s2t.err")" \
	"sqfs2tar: $WORK/random.img: not a SquashFS image (bad magic)"
check "not an image: nothing written" test ! -s "$WORK/bad.tar"
s2t "$WORK/bad.tar" "$WORK/no such image"
expect_eq "missing image: exit status" "$RC" 1
check "missing image: says why" grep -q \
	"^sqfs2tar: $WORK/no such image: No such file or directory" \
	"$WORK/s2t.err"

mkdir -p "$WORK/dmg"
"$PYTHON" -c 'import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"".join(b"%d compressible text\n" % i for i in range(20000)))' \
	"$WORK/dmg/f"
mksq "$WORK/dmg" "$WORK/dmg.sqfs" -comp gzip -no-fragments
size=$(file_size "$WORK/dmg.sqfs")
head -c $((size / 2)) "$WORK/dmg.sqfs" >"$WORK/half.sqfs"
s2t "$WORK/bad.tar" "$WORK/half.sqfs"
expect_eq "truncated image: exit status" "$RC" 1
check "truncated image: says so, with both sizes" grep -q \
	"^sqfs2tar: $WORK/half.sqfs: the image is cut short: it says [0-9]* bytes, the file has $((size / 2))\$" \
	"$WORK/s2t.err"
# a byte of the first data block (just after the 96-byte superblock)
cp "$WORK/dmg.sqfs" "$WORK/data.sqfs"
printf '\377\377\377\377' | dd of="$WORK/data.sqfs" bs=1 seek=300 \
	conv=notrunc 2>/dev/null
s2t "$WORK/bad.tar" "$WORK/data.sqfs"
expect_eq "damaged data block: exit status" "$RC" 1
check "damaged data block: names the file" grep -q '^sqfs2tar: /f: ' \
	"$WORK/s2t.err"
check "damaged data block: names the inode and block 0" grep -E -q \
	'^sqfs2tar: /f: inode [0-9]+: block 0: ' "$WORK/s2t.err"
# bytes anywhere in the tables: an error or a clean run, never a crash
mksq "$SRC" "$WORK/t.sqfs" -comp gzip
used=$(sb_field "$WORK/t.sqfs" 'Filesystem size')
crashes=0
for n in $(seq 1 40); do
	cp "$WORK/t.sqfs" "$WORK/tt.sqfs"
	# the tables are at the end: most bytes there, some anywhere
	if [ $((n % 4)) = 0 ]; then
		at=$((96 + n * 7919 % (used - 96)))
	else
		at=$((used - 1 - n * 97 % 2048))
	fi
	printf "\\$(printf %o $((n * 37 % 256)))" |
		dd of="$WORK/tt.sqfs" bs=1 seek="$at" conv=notrunc 2>/dev/null
	s2t "$WORK/bad.tar" -r . "$WORK/tt.sqfs"
	case $RC in 0 | 1) ;; *) crashes=$((crashes + 1)) ;; esac
done
expect_eq "damaged tables: no crash" "$crashes" 0

finish

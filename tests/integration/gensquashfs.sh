#!/bin/sh
# SPDX-License-Identifier: MIT
# gensquashfs --pack-dir: a tree made here with every entry type, hard-link
# groups (3 and more, across directories, to empty files, symlinks, FIFOs
# and devices), xattrs, sparse files, odd names, big ids, edge times and a
# 20,000-entry directory. Each image is compared with the source by the
# kernel (mount), by rdsquashfs (unpack) and by unsquashfs (listing), and
# must be the same bytes at -j 1 and -j 2 and across runs. Then the
# options (--keep-time, --keep-xattr, --one-file-system, owners,
# --defaults), bad input, and the help against the man page.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_rdsquashfs.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
[ -x "$GS" ] || hard_error "no tool to test at $GS (set GS)"

# gs ARGS...: run the tool under test; status in RC, stdout and stderr in
# $WORK/gs.out and $WORK/gs.err
gs() {
	"$GS" "$@" >"$WORK/gs.out" 2>"$WORK/gs.err"
	RC=$?
	if [ "$RC" -ge 126 ]; then
		echo "gensquashfs died (status $RC): $*"
		cat "$WORK/gs.err"
	fi
	if grep -q 'Sanitizer\|runtime error' "$WORK/gs.err"; then
		fail "gensquashfs $*: sanitizer report"
		head -20 "$WORK/gs.err"
	fi
	return 0
}

SRC=$WORK/src
make_source "$SRC"

# hard-link groups make_source lacks: 3 names across directories, an
# empty file, a symlink, a FIFO, a device
mkdir -p "$SRC/links/x" "$SRC/links/y"
printf 'three\n' >"$SRC/links/a"
ln "$SRC/links/a" "$SRC/links/x/b"
ln "$SRC/links/a" "$SRC/links/y/c"
: >"$SRC/links/empty"
ln "$SRC/links/empty" "$SRC/links/x/empty2"
ln -s target "$SRC/links/sym"
ln -P "$SRC/links/sym" "$SRC/links/y/sym2"
mkfifo "$SRC/links/fifo"
ln "$SRC/links/fifo" "$SRC/links/x/fifo2"
if [ "$IS_ROOT" = 1 ]; then
	mknod "$SRC/links/dev" c 10 200
	ln "$SRC/links/dev" "$SRC/links/y/dev2"
	# ids beyond 16 bits, device numbers beyond 8 bits
	chown 70000:80000 "$SRC/links/a"
	mknod "$SRC/bigdev" b 4095 1048575
fi
"$PYTHON" -c 'import os, sys
d = sys.argv[1]
os.mkdir(d)
for i in range(20000):
    open(os.path.join(d, "e%05d" % i), "w").close()' "$SRC/big"
touch -h -d @0 "$SRC/links/a"
touch -h -d @4294967295 "$SRC/links/empty"
touch -h -d @1600000000 "$SRC/links" "$SRC/links/x" "$SRC/links/y" \
	"$SRC/big" "$SRC"

CMP_USER=
RD_USER="-q -T"
if [ "$IS_ROOT" = 1 ]; then
	RD_USER="$RD_USER -C -O -X"
else
	CMP_USER="--no-owner"
fi
[ "$XATTRS_OK" = 1 ] || CMP_USER="$CMP_USER --no-xattrs"

# ------------------------------------------------------------ the tree

gs -q -k -x -j 2 -D "$SRC" "$WORK/t.sqfs"
expect_eq "-k -x: exit status" "$RC" 0
check "-k -x: nothing on stderr" test ! -s "$WORK/gs.err"
check "-k -x: nothing on stdout with -q" test ! -s "$WORK/gs.out"

# shellcheck disable=SC2086
if can_mount; then
	mount_image "$WORK/t.sqfs" "$WORK/mnt"
	check "the kernel's tree is the source, hard-link groups included" \
		cmp_tree "dir:$SRC" "dir:$WORK/mnt" $CMP_USER
	umount_image "$WORK/mnt"
else
	echo "note: no kernel mount here ($MOUNT_WHY)"
fi

mkdir -p "$WORK/un"
# shellcheck disable=SC2086
"$RDSQ" $RD_USER -u / -p "$WORK/un" "$WORK/t.sqfs" >"$WORK/un.out" 2>&1
expect_eq "rdsquashfs unpacks it" "$?" 0
# shellcheck disable=SC2086
check "rdsquashfs's unpack is the source" \
	cmp_tree "dir:$SRC" "dir:$WORK/un" --ignore-root --no-hardlinks \
	$CMP_USER
rm -rf "$WORK/un"

if "$UNSQUASHFS" -lln -UTC "$WORK/t.sqfs" >"$WORK/lls" 2>"$WORK/lls.err"
then
	# shellcheck disable=SC2086
	check "unsquashfs lists the source" \
		cmp_tree "dir:$SRC" "lls:$WORK/lls" --no-xattrs $CMP_USER
else
	fail "unsquashfs -lln: $(cat "$WORK/lls.err")"
fi
if "$UNSQUASHFS" -pf "$WORK/pf" "$WORK/t.sqfs" >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	check "unsquashfs -pf: every byte and hard link" \
		cmp_tree "dir:$SRC" "pf:$WORK/pf" --no-xattrs $CMP_USER
else
	fail "unsquashfs -pf failed"
fi

# a name with a line break: unsquashfs's listings cannot show it, the
# kernel and rdsquashfs can
mkdir -p "$WORK/nl"
printf 'new\nline\n' >"$WORK/nl/new
line"
printf 'tab\n' >"$WORK/nl/a	tab"
touch -d @1600000000 "$WORK/nl"/* "$WORK/nl"
gs -q -k -D "$WORK/nl" "$WORK/nl.sqfs"
expect_eq "a line break in a name: exit status" "$RC" 0
mkdir -p "$WORK/nlu"
"$RDSQ" -q -T -u / -p "$WORK/nlu" "$WORK/nl.sqfs" >/dev/null 2>&1
check "a line break in a name: rdsquashfs unpacks it" \
	cmp_tree "dir:$WORK/nl" "dir:$WORK/nlu" --ignore-root --no-owner
if can_mount; then
	mount_image "$WORK/nl.sqfs" "$WORK/nlm"
	check "a line break in a name: the kernel shows it" \
		cmp_tree "dir:$WORK/nl" "dir:$WORK/nlm"
	umount_image "$WORK/nlm"
fi

# the same bytes at -j 1, -j 2 and again
gs -q -k -x -j 1 -D "$SRC" "$WORK/t1.sqfs"
check "-j 1 and -j 2 give the same image" cmp -s "$WORK/t.sqfs" "$WORK/t1.sqfs"
gs -q -k -x -j 2 -D "$SRC" "$WORK/t2.sqfs"
check "a second run gives the same image" \
	cmp -s "$WORK/t.sqfs" "$WORK/t2.sqfs"
rm -f "$WORK/t1.sqfs" "$WORK/t2.sqfs"

# holes are sparse blocks, not data
sparse=$("$UNSQUASHFS" -s "$WORK/t.sqfs" 2>/dev/null | wc -c)
check "unsquashfs -s reads the image" test "$sparse" -gt 0
gs -k -j 2 -D "$SRC" "$WORK/st.sqfs"
check "statistics: sparse blocks omitted" \
	grep -E -q '^Sparse blocks omitted: +[1-9]' "$WORK/gs.out"

# ------------------------------------------------------------ options

# without -k: every time is the --defaults one; without -x: no xattrs
SOURCE_DATE_EPOCH=12345 gs -q -D "$SRC" "$WORK/o.sqfs"
expect_eq "defaults: exit status" "$RC" 0
"$UNSQUASHFS" -lln -UTC "$WORK/o.sqfs" >"$WORK/o.lls" 2>/dev/null
check "without -k every mtime is SOURCE_DATE_EPOCH" \
	sh -c "! grep -v ' 1970-01-01 03:25 ' '$WORK/o.lls' | grep -q ."
if [ "$XATTRS_OK" = 1 ]; then
	"$UNSQUASHFS" -lls -xattrs "$WORK/o.sqfs" >/dev/null 2>&1
	"$RDSQ" -x /hello.txt "$WORK/o.sqfs" >"$WORK/o.x" 2>&1
	check "without -x no xattrs" test ! -s "$WORK/o.x"
	"$RDSQ" -x /hello.txt "$WORK/t.sqfs" >"$WORK/t.x" 2>&1
	check "with -x the xattrs" grep -q 'user.text' "$WORK/t.x"
fi

gs -q --all-root -d mode=0700 -D "$SRC" "$WORK/r.sqfs"
"$UNSQUASHFS" -lln "$WORK/r.sqfs" >"$WORK/r.lls" 2>/dev/null
check "--all-root: every owner is 0/0" \
	sh -c "! awk '{print \$2}' '$WORK/r.lls' | grep -v '^0/0\$' | grep -q ."
check "--all-root: the root keeps the directory's mode" \
	grep -q '^drwxr-xr-x 0/0 .* squashfs-root$' "$WORK/r.lls"
gs -q -u 7 -g 8 -D "$SRC" "$WORK/u.sqfs"
"$UNSQUASHFS" -lln "$WORK/u.sqfs" >"$WORK/u.lls" 2>/dev/null
check "--set-uid 7 --set-gid 8: every owner is 7/8" \
	sh -c "! awk '{print \$2}' '$WORK/u.lls' | grep -v '^7/8\$' | grep -q ."

# --one-file-system: a mount point is packed, empty
if [ "$IS_ROOT" = 1 ] && mkdir -p "$SRC/mnt_point" &&
	mount -t tmpfs none "$SRC/mnt_point" 2>/dev/null; then
	MOUNTS="$MOUNTS $SRC/mnt_point"
	echo inside >"$SRC/mnt_point/file"
	gs -q -o -D "$SRC" "$WORK/x.sqfs"
	"$UNSQUASHFS" -lln "$WORK/x.sqfs" >"$WORK/x.lls" 2>/dev/null
	check "-o: the mount point is there" \
		grep -q 'squashfs-root/mnt_point$' "$WORK/x.lls"
	check "-o: its contents are not" \
		sh -c "! grep -q 'mnt_point/file' '$WORK/x.lls'"
	gs -q -D "$SRC" "$WORK/x.sqfs" -f
	"$UNSQUASHFS" -lln "$WORK/x.sqfs" >"$WORK/x.lls" 2>/dev/null
	check "without -o the contents are packed" \
		grep -q 'mnt_point/file$' "$WORK/x.lls"
	umount "$SRC/mnt_point"
	rmdir "$SRC/mnt_point"
else
	echo "note: --one-file-system not tested (no tmpfs mount here)"
fi

# every compressor the build has
for c in $("$GS" --help | sed -n '/^Compressors of this build:/,$p' |
	sed 1d | awk '{print $1}'); do
	gs -q -c "$c" -D "$SRC/sub" "$WORK/c.sqfs" -f
	expect_eq "-c $c: exit status" "$RC" 0
	"$RDSQ" -q -u / -p "$WORK/c" "$WORK/c.sqfs" >/dev/null 2>&1
	check "-c $c: the files come back" \
		cmp_tree "dir:$SRC/sub" "dir:$WORK/c" --ignore-root \
		--no-owner --no-mode --no-mtime --no-xattrs --no-hardlinks
	rm -rf "$WORK/c"
done

# ------------------------------------------------------------ bad input

gs -D "$WORK/no such dir" "$WORK/bad.sqfs"
expect_eq "a missing directory: exit status" "$RC" 1
check "a missing directory: named" \
	grep -q "^gensquashfs: $WORK/no such dir: No such file or directory" \
	"$WORK/gs.err"
check "a missing directory: no image" test ! -e "$WORK/bad.sqfs"

printf 'keep me' >"$WORK/exists.sqfs"
gs -q -D "$SRC/sub" "$WORK/exists.sqfs"
expect_eq "an existing output without -f: exit status" "$RC" 1
expect_eq "an existing output without -f: untouched" \
	"$(cat "$WORK/exists.sqfs")" "keep me"

gs "$WORK/o2.sqfs"
expect_eq "no input: exit status" "$RC" 1
check "no input: says so" grep -q 'no input given' "$WORK/gs.err"
gs -D "$SRC" -b 3000 "$WORK/o2.sqfs"
expect_eq "-b 3000: exit status" "$RC" 1

# an xattr the image cannot hold (an ACL): a warning naming it, and the
# rest of the entry packed
mkdir -p "$WORK/acl"
printf 'x\n' >"$WORK/acl/f"
if "$PYTHON" -c 'import os, struct, sys
e = lambda t, p, i: struct.pack("<HHI", t, p, i)
acl = struct.pack("<I", 2) + e(1, 6, 0xffffffff) + e(2, 4, 1000) + \
    e(4, 4, 0xffffffff) + e(0x10, 4, 0xffffffff) + e(0x20, 4, 0xffffffff)
os.setxattr(sys.argv[1], "system.posix_acl_access", acl)
os.setxattr(sys.argv[1], "user.kept", b"yes")' "$WORK/acl/f" 2>/dev/null
then
	gs -q -x -D "$WORK/acl" "$WORK/acl.sqfs"
	expect_eq "an ACL: exit status" "$RC" 0
	check "an ACL: a warning names the file and the xattr" \
		grep -q "^gensquashfs: f: xattr 'system.posix_acl_access': namespace not supported .*; skipped" \
		"$WORK/gs.err"
	"$RDSQ" -x /f "$WORK/acl.sqfs" >"$WORK/acl.x" 2>&1
	check "an ACL: the other xattrs are packed" grep -q user.kept \
		"$WORK/acl.x"
else
	echo "note: this file system takes no ACL or user xattr"
fi

# ------------------------------------------------------------ help

gs --help
expect_eq "--help: exit status" "$RC" 0
gs --version
check "--version" grep -q '^gensquashfs ' "$WORK/gs.out"
"$GS" --help >"$WORK/help"
bad=
for o in $(grep -o -- '--[a-z][a-z-]*' "$WORK/help" | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" \
		"$abs_top_srcdir/doc/gensquashfs.1" || bad="$bad $o"
done
expect_eq "every option of --help is in the man page" "$bad" ""

finish

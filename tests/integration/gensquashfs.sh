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
# the root takes the --defaults attributes, not the directory's: these
# make them the directory's, so that the trees compare whole
chmod 0755 "$SRC"
ROOTDEF="-d mtime=1600000000"

CMP_USER=
RD_USER="-q -T"
if [ "$IS_ROOT" = 1 ]; then
	RD_USER="$RD_USER -C -O -X"
else
	CMP_USER="--no-owner"
fi
[ "$XATTRS_OK" = 1 ] || CMP_USER="$CMP_USER --no-xattrs"

# ------------------------------------------------------------ the tree

gs -q -k -x -j 2 $ROOTDEF -D "$SRC" "$WORK/t.sqfs"
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
chmod 0755 "$WORK/nl"
gs -q -k $ROOTDEF -D "$WORK/nl" "$WORK/nl.sqfs"
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
gs -q -k -x -j 1 $ROOTDEF -D "$SRC" "$WORK/t1.sqfs"
check "-j 1 and -j 2 give the same image" cmp -s "$WORK/t.sqfs" "$WORK/t1.sqfs"
gs -q -k -x -j 2 $ROOTDEF -D "$SRC" "$WORK/t2.sqfs"
check "a second run gives the same image" \
	cmp -s "$WORK/t.sqfs" "$WORK/t2.sqfs"
rm -f "$WORK/t1.sqfs" "$WORK/t2.sqfs"

# holes are sparse blocks, not data
sparse=$("$UNSQUASHFS" -s "$WORK/t.sqfs" 2>/dev/null | wc -c)
check "unsquashfs -s reads the image" test "$sparse" -gt 0
gs -k -j 2 -D "$SRC" "$WORK/st.sqfs"
check "statistics: sparse blocks omitted" \
	grep -E -q '^Sparse blocks omitted: +[1-9]' "$WORK/gs.out"

# ------------------------------------------------------------ read ahead

# Small files are read ahead on threads (ahead.c): sizes on both sides of
# its limits (128 KiB a file, 256 KiB held, 256 files held), more files
# than it holds, empty files, a small sparse file (left to the packer),
# random sizes and bytes. The image must hold every byte, in the same
# order whatever the threads did: -j 1 and -j 2 give the same bytes.
RA=$WORK/ra
"$PYTHON" - "$RA" <<'EOT'
import os, random, sys
d = sys.argv[1]
os.makedirs(os.path.join(d, "many"))
rng = random.Random(12)
sizes = [0, 1, 4095, 4096, 65536, 131071, 131072, 131073, 262143, 262144,
         262145, 300000, 1048577]
for i, n in enumerate(sizes):
    with open(os.path.join(d, "s%02d" % i), "wb") as f:
        f.write(rng.randbytes(n))
for i in range(700):
    n = rng.choice([0, rng.randrange(1, 300), rng.randrange(1, 140000)])
    with open(os.path.join(d, "many", "f%03d" % i), "wb") as f:
        f.write(rng.randbytes(n))
with open(os.path.join(d, "sparse-small"), "wb") as f:
    f.write(b"x")
    f.truncate(100000)
EOT
gs -q -j 2 -D "$RA" "$WORK/ra.sqfs"
expect_eq "read ahead: exit status" "$RC" 0
mkdir -p "$WORK/rau"
"$RDSQ" -q -u / -p "$WORK/rau" "$WORK/ra.sqfs" >/dev/null 2>&1
check "read ahead: every file's bytes (rdsquashfs)" \
	diff -r "$RA" "$WORK/rau"
rm -rf "$WORK/rau"
if can_mount; then
	mount_image "$WORK/ra.sqfs" "$WORK/ram"
	check "read ahead: every file's bytes (kernel)" diff -r "$RA" "$WORK/ram"
	umount_image "$WORK/ram"
fi
gs -q -j 1 -D "$RA" "$WORK/ra1.sqfs"
check "read ahead: -j 1 and -j 2 give the same image" \
	cmp -s "$WORK/ra.sqfs" "$WORK/ra1.sqfs"
rm -rf "$WORK/ra1.sqfs" "$RA"

# ------------------------------------------------------------ size changes

# A file that grows or shrinks while it is read, on cue (resize_shim.c,
# preloaded): the image holds the bytes read, the size is theirs, and a
# warning names the file. A small file (read ahead) and a big one (read
# by the packer) of each.
SHIM=$abs_top_builddir/tests/integration/.libs/resize_shim.so
if [ -f "$SHIM" ]; then
	RS=$WORK/rs
	mkdir -p "$RS"
	head -c 1000 /dev/urandom >"$RS/small.grows"
	head -c 1000 /dev/urandom >"$RS/small.shrinks"
	head -c 600000 /dev/urandom >"$RS/big.grows"
	head -c 600000 /dev/urandom >"$RS/big.shrinks"
	cp -a "$RS" "$WORK/rs.orig"
	# the shim comes before the ASan runtime in the list of libraries
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		LD_PRELOAD="$SHIM" gs -q -j 2 -D "$RS" "$WORK/rs.sqfs"
	expect_eq "size changes: exit status" "$RC" 0
	for f in small big; do
		n=$(wc -c <"$WORK/rs.orig/$f.grows")
		check "size changes: $f file that grew: a warning names it" \
			grep -q "$f.grows: grew while it was read; the first $n bytes packed" \
			"$WORK/gs.err"
		"$RDSQ" -c "/$f.grows" "$WORK/rs.sqfs" >"$WORK/rs.out" 2>&1
		check "size changes: $f file that grew: the bytes read" \
			cmp -s "$WORK/rs.out" "$WORK/rs.orig/$f.grows"
		n=$(wc -c <"$WORK/rs.orig/$f.shrinks")
		half=$((n / 2))
		check "size changes: $f file that shrank: a warning names it" \
			grep -q "$f.shrinks: shrank while it was read; $half of $n bytes packed" \
			"$WORK/gs.err"
		"$RDSQ" -c "/$f.shrinks" "$WORK/rs.sqfs" >"$WORK/rs.out" 2>&1
		head -c "$half" "$WORK/rs.orig/$f.shrinks" >"$WORK/rs.want"
		check "size changes: $f file that shrank: the bytes read" \
			cmp -s "$WORK/rs.out" "$WORK/rs.want"
	done
	"$UNSQUASHFS" -lln "$WORK/rs.sqfs" >"$WORK/rs.lls" 2>&1
	check "size changes: unsquashfs lists the sizes read" \
		grep -q " $(($(wc -c <"$WORK/rs.orig/big.shrinks") / 2)) .*big.shrinks\$" \
		"$WORK/rs.lls"
	rm -rf "$RS" "$WORK/rs.orig"
else
	fail "no $SHIM (make check builds it)"
fi

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
check "--all-root -d mode=0700: the root takes the --defaults mode" \
	grep -q '^drwx------ 0/0 .* squashfs-root$' "$WORK/r.lls"
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

# ------------------------------------------------------------ pack files

L=$WORK/list
mkdir -p "$L/in"
printf 'data\n' >"$L/in/a.txt"
head -c 200000 /dev/urandom >"$L/in/big"
printf 'default location\n' >"$L/in/deflt"
cat >"$L/list.txt" <<'EOT'
# every keyword, comments, blank lines, leading blanks, quoting

dir / 0755 0 0
dir etc 0750 10 20
  	file etc/a.txt 0644 1000 1000 in/a.txt
file "sp ace/q\"uo\\te" 0600 70000 5 "in/big"
file in/deflt 0640 1 2
nod dev/null 0666 0 0 c 1 3
nod dev/sda 0660 0 6 b 8 0
nod dev/big 0600 0 0 b 4095 1048575
slink etc/link 0777 0 0 ../some target
link etc/hard 0 0 0 etc/a.txt
link /etc/hard2 0 0 0 /etc/hard
pipe run/fifo 0644 0 0
sock run/sock 0755 4294967295 4294967295
dir ./implicit/.//made/ 0700 3 4
EOT
gs -q -F "$L/list.txt" "$WORK/l.sqfs"
expect_eq "pack file: exit status" "$RC" 0
check "pack file: no messages" test ! -s "$WORK/gs.err"
"$RDSQ" -d "$WORK/l.sqfs" >"$WORK/l.desc" 2>&1
cat >"$WORK/l.want" <<'EOT'
dir / 0755 0 0
dir dev 0755 0 0
nod dev/big 0600 0 0 b 4095 1048575
nod dev/null 0666 0 0 c 1 3
nod dev/sda 0660 0 6 b 8 0
dir etc 0750 10 20
file etc/a.txt 0644 1000 1000
link etc/hard 0644 1000 1000 /etc/a.txt
link etc/hard2 0644 1000 1000 /etc/a.txt
slink etc/link 0777 0 0 ../some target
dir implicit 0755 0 0
dir implicit/made 0700 3 4
dir in 0755 0 0
file in/deflt 0640 1 2
dir run 0755 0 0
pipe run/fifo 0644 0 0
sock run/sock 0755 4294967295 4294967295
dir "sp ace" 0755 0 0
file "sp ace/q\"uo\\te" 0600 70000 5
EOT
check "pack file: every entry as given (rdsquashfs -d)" \
	cmp -s "$WORK/l.want" "$WORK/l.desc"
cmp -s "$WORK/l.want" "$WORK/l.desc" || diff "$WORK/l.want" "$WORK/l.desc"
"$RDSQ" -c '/sp ace/q"uo\te' "$WORK/l.sqfs" >"$WORK/l.big" 2>&1
check "pack file: a quoted input's data" cmp -s "$WORK/l.big" "$L/in/big"
"$RDSQ" -c /in/deflt "$WORK/l.sqfs" >"$WORK/l.deflt" 2>&1
check "pack file: the default input is the image path" \
	cmp -s "$WORK/l.deflt" "$L/in/deflt"

# -D with -F: the inputs are found there, not beside the listing
mkdir -p "$L/other/in"
printf 'other\n' >"$L/other/in/a.txt"
cp "$L/in/big" "$L/in/deflt" "$L/other/in/"
gs -q -F "$L/list.txt" -D "$L/other" "$WORK/l2.sqfs"
"$RDSQ" -c /etc/a.txt "$WORK/l2.sqfs" >"$WORK/l2.a" 2>&1
expect_eq "pack file with -D: the inputs come from -D" \
	"$(cat "$WORK/l2.a")" "other"

# round trip: what rdsquashfs -d describes packs back into the same tree,
# hard links included
mkdir -p "$WORK/rt"
"$RDSQ" -q -u / -p "$WORK/rt" "$WORK/t.sqfs" >/dev/null 2>&1
"$RDSQ" -d "$WORK/t.sqfs" >"$WORK/rt.list" 2>"$WORK/rt.err"
gs -q -F "$WORK/rt.list" -D "$WORK/rt" "$WORK/rt.sqfs"
expect_eq "round trip: the description packs" "$RC" 0
"$RDSQ" -d "$WORK/rt.sqfs" >"$WORK/rt2.list" 2>&1
check "round trip: the same description" \
	cmp -s "$WORK/rt.list" "$WORK/rt2.list"
if can_mount; then
	mount_image "$WORK/t.sqfs" "$WORK/rtm1"
	mount_image "$WORK/rt.sqfs" "$WORK/rtm2"
	check "round trip: the kernel sees the same tree" \
		cmp_tree "dir:$WORK/rtm1" "dir:$WORK/rtm2" --no-mtime \
		--no-xattrs
	umount_image "$WORK/rtm1"
	umount_image "$WORK/rtm2"
fi

# bad listings: exit 1, "gensquashfs: FILE:LINE: why", no image, an
# existing output untouched (also with --force)
bad_listing() { # NAME LINE-TEXT MESSAGE-REGEX [LINE]
	rm -f "$WORK/bad.sqfs"
	printf 'dir / 0755 0 0\n%s\n' "$2" >"$L/bad.txt"
	gs -q -F "$L/bad.txt" "$WORK/bad.sqfs"
	expect_eq "bad listing, $1: exit status" "$RC" 1
	check "bad listing, $1: names the line (/$3/)" \
		grep -E -q "^gensquashfs: $L/bad.txt:${4:-2}: $3" "$WORK/gs.err"
	check "bad listing, $1: no image" test ! -e "$WORK/bad.sqfs"
}
bad_listing "mode too big" "dir d 10000 0 0" "mode '10000'"
bad_listing "mode not octal" "dir d 0789 0 0" "mode '0789'"
bad_listing "uid of 2^32" "dir d 0755 4294967296 0" "uid '4294967296'"
bad_listing "gid not a number" "dir d 0755 0 x" "gid 'x'"
bad_listing "no gid" "dir d 0755 0" "no gid"
bad_listing "unknown type" "fle f 0644 0 0" "unknown entry type 'fle'"
bad_listing "unterminated quote" 'file "f 0644 0 0' "unterminated quote"
bad_listing "'..'" "dir a/../b 0755 0 0" "'\\.\\.' in path"
bad_listing "missing input" "file f 0644 0 0 in/nothing" \
	"input 'in/nothing': No such file or directory"
bad_listing "input a directory" "file f 0644 0 0 in" \
	"input 'in' is not a regular file"
bad_listing "the root as a file" "file / 0644 0 0 in/a.txt" \
	"the root can only be a directory"
bad_listing "device kind" "nod d 0644 0 0 x 1 2" "a device needs 'c' or 'b'"
bad_listing "symlink without target" "slink s 0777 0 0" \
	"a symlink needs a target"
bad_listing "link to nothing" "link l 0 0 0 nothing" \
	"hard link target 'nothing' is not in the listing"
bad_listing "link to a directory" "link l 0 0 0 /" \
	"hard link target '' is a directory"
bad_listing "extra field" "pipe p 0644 0 0 extra" "unexpected 'extra'"
printf 'dir / 0755 0 0\nfile a 0644 0 0 in/a.txt\nslink a 0777 0 0 x\n' \
	>"$L/dup.txt"
gs -q -F "$L/dup.txt" "$WORK/bad.sqfs"
expect_eq "a path given twice: exit status" "$RC" 1
check "a path given twice: both lines named" \
	grep -q "^gensquashfs: $L/dup.txt:3: 'a' is already given on line 2" \
	"$WORK/gs.err"
printf 'dir / 0755 0 0\nnod d 0600 0 0 c 5000 1\n' >"$L/dev.txt"
gs -q -F "$L/dev.txt" "$WORK/bad.sqfs"
expect_eq "a device number beyond 12 bits: exit status" "$RC" 1
check "a device number beyond 12 bits: the line and the library's words" \
	grep -q "^gensquashfs: $L/dev.txt:2: device number 5000:1 does not fit the image" \
	"$WORK/gs.err"
check "a device number beyond 12 bits: no image" test ! -e "$WORK/bad.sqfs"
printf 'keep me' >"$WORK/exists.sqfs"
gs -q -f -F "$L/dup.txt" "$WORK/exists.sqfs"
expect_eq "a bad listing with -f over an existing output: untouched" \
	"$(cat "$WORK/exists.sqfs")" "keep me"
gs -q -F "$L/none.txt" "$WORK/bad.sqfs"
check "a missing listing: named" \
	grep -q "^gensquashfs: $L/none.txt: No such file or directory" \
	"$WORK/gs.err"

# glob lines: a tree below the input folder, selected as find would
G=$WORK/glob
mkdir -p "$G/tree/sub/deep"
printf 'a\n' >"$G/tree/a.txt"
printf 'b\n' >"$G/tree/b.bin"
printf 'c\n' >"$G/tree/sub/c.txt"
printf 'd\n' >"$G/tree/sub/deep/d.txt"
ln "$G/tree/a.txt" "$G/tree/sub/a_link"
ln -s a.txt "$G/tree/sym"
mkfifo "$G/tree/fifo"
chmod 0640 "$G/tree/a.txt"
touch -d @5000 "$G/tree/a.txt"
cat >"$G/l.txt" <<'EOT'
dir / 0755 0 0
glob /all * * * tree
glob /txt 0700 1 2 -type f -name *.txt tree
dir /txt2/sub 0750 7 8
glob /txt2 0700 1 2 -type f -name *.txt tree
glob /top 0750 3 4 -nonrecursive -keeptime -type f -type p -- tree
dir /p/sub 0711 0 0
glob /p * 5 6 -type f -type l -path p/sub/* tree
glob /q 0700 5 6 -type d -path q/sub* tree
EOT
gs -q -F "$G/l.txt" "$WORK/g.sqfs"
expect_eq "glob: exit status" "$RC" 0
"$RDSQ" -d "$WORK/g.sqfs" | grep -v '^dir /' >"$WORK/g.desc"
ID="$(id -u) $(id -g)"
# a glob's own directory is made as an implicit one (or by a dir line),
# never from its location; it descends only into directories it adds or
# that exist already (txt: no sub; txt2: sub, not sub/deep); -path
# matches the path in the image, wildcards not matching '/'
cat >"$WORK/g.want" <<EOT
dir all 0755 0 0
file all/a.txt 0640 $ID
file all/b.bin 0644 $ID
pipe all/fifo 0644 $ID
dir all/sub 0755 $ID
link all/sub/a_link 0640 $ID /all/a.txt
file all/sub/c.txt 0644 $ID
dir all/sub/deep 0755 $ID
file all/sub/deep/d.txt 0644 $ID
slink all/sym 0777 $ID a.txt
dir p 0755 0 0
dir p/sub 0711 0 0
file p/sub/a_link 0640 5 6
file p/sub/c.txt 0644 5 6
dir q 0755 0 0
dir q/sub 0700 5 6
dir top 0755 0 0
file top/a.txt 0750 3 4
file top/b.bin 0750 3 4
pipe top/fifo 0750 3 4
dir txt 0755 0 0
file txt/a.txt 0700 1 2
dir txt2 0755 0 0
file txt2/a.txt 0700 1 2
dir txt2/sub 0750 7 8
file txt2/sub/c.txt 0700 1 2
EOT
check "glob: every option selects as squashfs-tools-ng's (rdsquashfs -d)" \
	cmp -s "$WORK/g.want" "$WORK/g.desc"
cmp -s "$WORK/g.want" "$WORK/g.desc" || diff "$WORK/g.want" "$WORK/g.desc"
expect_eq "glob: a file's data" \
	"$("$RDSQ" -c /txt2/sub/c.txt "$WORK/g.sqfs")" "c"
expect_eq "glob: -keeptime keeps the mtime" \
	"$("$RDSQUASHFS" -s /top/a.txt "$WORK/g.sqfs" |
		sed -n 's/^Last modified: .*(\([0-9]*\))$/\1/p')" 5000
expect_eq "glob: without it the default mtime" \
	"$("$RDSQUASHFS" -s /all/a.txt "$WORK/g.sqfs" |
		sed -n 's/^Last modified: .*(\([0-9]*\))$/\1/p')" 0
# without a location: the input folder (here the listing's)
mkdir -p "$G/noloc/d"
printf 'x\n' >"$G/noloc/d/x"
printf 'glob /n * * *\n' >"$G/noloc/l.txt"
gs -q -F "$G/noloc/l.txt" "$WORK/gn.sqfs"
expect_eq "glob without a location: exit status" "$RC" 0
expect_eq "glob without a location: the input folder's files" \
	"$("$RDSQ" -c /n/d/x "$WORK/gn.sqfs" 2>&1)" "x"
bad_listing "glob, unknown option" "glob /g * * * -newer x tree" \
	"unknown glob option '-newer'"
bad_listing "glob, bad type" "glob /g * * * -type z tree" \
	"-type wants one of b c d p f l s"
bad_listing "glob, option without value" "glob /g * * * -name" \
	"-name needs a value"
bad_listing "glob, missing location" "glob /g * * * nowhere" \
	"glob location 'nowhere': No such file or directory"
bad_listing "glob, two locations" "glob /g * * * in in" \
	"unexpected 'in' after the location"
bad_listing "text after a quoted input" 'file f 0644 0 0 "in/a.txt" x' \
	"unexpected 'x' after the location"
# the directories the lines imply: what else claims them is an error
bad_listing "a file over an implied directory" "file x/f 0644 0 0 in/a.txt
file x 0644 0 0 in/a.txt" "'x' is a directory: line 2 has entries below it" 3
bad_listing "an entry below a file" "file x 0644 0 0 in/a.txt
slink x/l 0777 0 0 t" "'x' is not a directory \\(line 2\\)" 3
bad_listing "a glob into a file" "file x 0644 0 0 in/a.txt
glob /x * * * in" "'x' is not a directory \\(line 2\\)" 3

# ------------------------------------------------------------ sort files

# each flag's effect in the block layout, read by Debian's rdsquashfs
S=$WORK/sort
mkdir -p "$S/src/d/e"
"$PYTHON" -c 'import sys
sys.stdout.write("".join("line %d of text\n" % i for i in range(40000)))' \
	>"$S/src/text"
for f in first dc nodedup1 nodedup2 dedup1 dedup2 aligned; do
	cp "$S/src/text" "$S/src/$f"
done
head -c 300000 /dev/zero >"$S/src/zeros"
head -c 300000 /dev/zero >"$S/src/zeros_sparse"
printf 'small\n' >"$S/src/small"
printf 'small too\n' >"$S/src/small_frag"
printf 'deep\n' >"$S/src/d/e/deep"
printf 'shallow\n' >"$S/src/d/shallow"
cat >"$S/sort.txt" <<'EOT'
# the first match wins
-100 first
-100 [dont_compress] first
10 [dont_compress] dc
20 [nosparse] zeros
30 [dont_fragment] ./small
40 [dont_deduplicate] nodedup1
40 [dont_deduplicate] "/./nodedup2/"
50 [align] .//aligned
60 [glob,dont_fragment] d/*
70 [glob_no_path,dont_fragment] *deep
EOT
gs -q -S "$S/sort.txt" -D "$S/src" "$WORK/s.sqfs"
expect_eq "sort file: exit status" "$RC" 0
field() { # PATH FIELD: a field of Debian's rdsquashfs -s
	"$RDSQUASHFS" -s "$1" "$WORK/s.sqfs" 2>/dev/null |
		sed -n "s/^$2: //p"
}
check "sort: priority -100 is packed first" \
	test "$(field /first 'Blocks start')" = 96
check "sort: the first matching rule wins (first is compressed)" \
	sh -c "'$RDSQUASHFS' -s /first '$WORK/s.sqfs' | grep 'Block #0' | grep -q '(compressed)'"
check "sort: higher priorities later" \
	test "$(field /dc 'Blocks start')" -lt "$(field /zeros 'Blocks start')"
check "sort: dont_compress stores text blocks raw" \
	sh -c "'$RDSQUASHFS' -s /dc '$WORK/s.sqfs' | grep 'Block #0' | grep -q '(uncompressed)'"
check "sort: without it the same text is compressed" \
	sh -c "'$RDSQUASHFS' -s /text '$WORK/s.sqfs' | grep 'Block #0' | grep -q '(compressed)'"
check "sort: nosparse stores zero blocks as data" \
	sh -c "'$RDSQUASHFS' -s /zeros '$WORK/s.sqfs' | grep -q 'Block #0 size: [1-9]'"
check "sort: without it zero blocks are sparse" \
	sh -c "'$RDSQUASHFS' -s /zeros_sparse '$WORK/s.sqfs' | grep -q 'Block #0 size: 0'"
expect_eq "sort: dont_fragment gives a small file no fragment" \
	"$(field /small 'Fragment index')" "0xFFFFFFFF"
check "sort: without it a small file is in a fragment" \
	test "$(field /small_frag 'Fragment index')" != "0xFFFFFFFF"
check "sort: dont_deduplicate keeps two copies" \
	test "$(field /nodedup1 'Blocks start')" != "$(field /nodedup2 'Blocks start')"
expect_eq "sort: without it copies share their blocks" \
	"$(field /dedup1 'Blocks start')" "$(field /dedup2 'Blocks start')"
expect_eq "sort: align puts the data on a device block" \
	"$(($(field /aligned 'Blocks start') % 4096))" 0
expect_eq "sort: glob 'd/*' matches d/shallow" \
	"$(field /d/shallow 'Fragment index')" "0xFFFFFFFF"
expect_eq "sort: glob_no_path '*deep' matches d/e/deep" \
	"$(field /d/e/deep 'Fragment index')" "0xFFFFFFFF"
gs -q -S "$S/sort.txt" -D "$S/src" "$WORK/s2.sqfs" -j 1
check "sort: -j 1 gives the same image" cmp -s "$WORK/s.sqfs" "$WORK/s2.sqfs"
mkdir -p "$S/back"
"$RDSQ" -q -u / -p "$S/back" "$WORK/s.sqfs" >/dev/null 2>&1
check "sort: the flags change only the layout, not the files" \
	cmp_tree "dir:$S/src" "dir:$S/back" --ignore-root --no-owner \
	--no-mtime --no-mode

# exact names and globs mixed: the first matching line wins, whether the
# exact name comes before or after a glob that matches too, and the first
# of two lines of the same name. Every file is a block and a tail (-b
# 4096), so the order its first block lands in is the order of packing.
M=$S/mixed
mkdir -p "$M/m" "$M/n" "$M/o/e"
for f in m/a m/b n/b n/c n/d o/e/f top; do
	"$PYTHON" -c 'import sys
sys.stdout.write(("".join("%s line %d\n" % (sys.argv[1], i)
                          for i in range(1000)))[:5000])' "$f" >"$M/$f"
done
cat >"$S/mixed.txt" <<'EOT'
10 [glob,dont_fragment] m/*
-10 [dont_compress] m/a
-20 n/b
5 [glob] n/*
-30 n/c
-40 [dont_fragment] top
-50 top
-5 [glob_no_path] o*f
-60 o/e/f
EOT
gs -q -b 4096 -S "$S/mixed.txt" -D "$M" "$WORK/mixed.sqfs"
expect_eq "sort, exact and glob lines: exit status" "$RC" 0
for f in m/a m/b n/b n/c n/d o/e/f top; do
	printf '%s %s\n' "$("$RDSQUASHFS" -s "/$f" "$WORK/mixed.sqfs" |
		sed -n 's/^Blocks start: //p')" "$f"
done | sort -n | awk '{print $2}' | xargs >"$WORK/mixed.order"
expect_eq "sort, exact and glob lines: the order of the first match" \
	"$(cat "$WORK/mixed.order")" "top n/b o/e/f n/c n/d m/a m/b"
frag() {
	"$RDSQUASHFS" -s "/$1" "$WORK/mixed.sqfs" |
		sed -n 's/^Fragment index: //p'
}
expect_eq "sort, exact and glob lines: the flags of the first match" \
	"$(frag m/a) $(frag m/b) $(frag top)" "0xFFFFFFFF 0xFFFFFFFF 0xFFFFFFFF"
check "sort, exact and glob lines: no flags from a later line" \
	test "$(frag n/b)" != 0xFFFFFFFF
check "sort, exact and glob lines: m/a compressed (the glob wins)" \
	sh -c "'$RDSQUASHFS' -s /m/a '$WORK/mixed.sqfs' | grep 'Block #0' | grep -q '(compressed)'"

bad_sort() { # NAME LINE-TEXT MESSAGE-REGEX
	rm -f "$WORK/bad.sqfs"
	printf '# a comment\n%s\n' "$2" >"$S/bad.txt"
	gs -q -S "$S/bad.txt" -D "$S/src" "$WORK/bad.sqfs"
	expect_eq "bad sort file, $1: exit status" "$RC" 1
	check "bad sort file, $1: names the line (/$3/)" \
		grep -E -q "^gensquashfs: $S/bad.txt:2: $3" "$WORK/gs.err"
	check "bad sort file, $1: no image" test ! -e "$WORK/bad.sqfs"
}
bad_sort "no priority" "first" "no priority"
bad_sort "unknown flag" "1 [fast] first" "unknown flag 'fast'"
bad_sort "no ]" "1 [glob first" "'\\[' without '\\]'"
bad_sort "no name" "1 [glob]" "no name"
bad_sort "unterminated quote" '1 "first' "unterminated quote"
bad_sort "'..'" "1 d/../first" "'\\.\\.' in the name"

# ------------------------------------------------------------ xattr files

X=$WORK/xattr
mkdir -p "$X/src/d"
printf 'a\n' >"$X/src/f"
printf 'b\n' >"$X/src/d/g"
ln "$X/src/f" "$X/src/hl"
XKEEP=
if [ "$XATTRS_OK" = 1 ]; then
	setfattr -n user.scan -v fromfs "$X/src/f"
	setfattr -n user.other -v kept "$X/src/f"
	XKEEP=-x
fi
cat >"$X/x.txt" <<'EOT'
# file: f
user.text="quoted \"text\" with \\ and \101"
user.hex=0x00ff01
user.b64=0sAAEC/w==
user.empty
user.scan="from the file"

# file: .//d/./g
trusted.t="t"
# file: ./d/
security.selinux=0sc3lzdGVtX3U6b2JqZWN0X3I6YmluX3Q6czAA
# file: .
user.root="r"
EOT
gs -q $XKEEP -A "$X/x.txt" -D "$X/src" "$WORK/xf.sqfs"
expect_eq "xattr file: exit status" "$RC" 0
xattrs_of() { "$RDSQUASHFS" -x "$1" "$WORK/xf.sqfs" 2>&1; }
if [ "$XATTRS_OK" = 1 ]; then
	expect_eq "xattr file: every value form, over the scanned ones" \
		"$(xattrs_of /f)" "user.b64=0x000102FF
user.empty=
user.hex=0x00FF01
user.other=kept
user.scan=from the file
user.text=quoted \"text\" with \\ and A"
else
	expect_eq "xattr file: every value form" "$(xattrs_of /f)" \
		"user.b64=0x000102FF
user.empty=
user.hex=0x00FF01
user.scan=from the file
user.text=quoted \"text\" with \\ and A"
fi
expect_eq "xattr file: a hard link shares them" "$(xattrs_of /hl)" \
	"$(xattrs_of /f)"
expect_eq "xattr file: a directory's" "$(xattrs_of /d)" \
	"security.selinux=system_u:object_r:bin_t:s0"
expect_eq "xattr file: trusted." "$(xattrs_of /d/g)" "trusted.t=t"
expect_eq "xattr file: the root's" "$(xattrs_of /)" "user.root=r"

# with a listing
printf 'dir / 0755 0 0\nfile f 0644 0 0 src/f\n' >"$X/l.txt"
printf '# file: f\nuser.l="listed"\n' >"$X/lx.txt"
gs -q -F "$X/l.txt" -A "$X/lx.txt" "$WORK/xf.sqfs" -f
expect_eq "xattr file with a listing" "$(xattrs_of /f)" "user.l=listed"
# the root and a directory no line gives are entries of their own
printf 'file d/f 0644 0 0 src/f\n' >"$X/l.txt"
printf '# file: /\nuser.r="root"\n# file: d\nuser.d="implicit"\n' \
	>"$X/lx.txt"
gs -q -F "$X/l.txt" -A "$X/lx.txt" "$WORK/xf.sqfs" -f
expect_eq "xattr file with a listing: the root, never listed" \
	"$(xattrs_of /)" "user.r=root"
expect_eq "xattr file with a listing: an implicit directory" \
	"$(xattrs_of /d)" "user.d=implicit"

bad_xattr() { # NAME FILE-TEXT LINE MESSAGE-REGEX
	rm -f "$WORK/bad.sqfs"
	printf '%s\n' "$2" >"$X/bad.txt"
	gs -q -A "$X/bad.txt" -D "$X/src" "$WORK/bad.sqfs"
	expect_eq "bad xattr file, $1: exit status" "$RC" 1
	check "bad xattr file, $1: names the line (/$4/)" \
		grep -E -q "^gensquashfs: $X/bad.txt:$3: $4" "$WORK/gs.err"
	check "bad xattr file, $1: no image" test ! -e "$WORK/bad.sqfs"
}
bad_xattr "no such entry" "# file: nothing" 1 "no entry 'nothing'"
bad_xattr "'..'" "# file: d/../f" 1 "'\\.\\.' in the path"
bad_xattr "a hard link" "# file: hl" 1 "'hl' is a hard link"
bad_xattr "before any file" "user.a=\"x\"" 1 "an xattr before any"
bad_xattr "namespace" "# file: f
foo.x=\"v\"" 2 "xattr 'foo.x': namespace not supported"
bad_xattr "odd hex" "# file: f
user.a=0x123" 2 "an odd number of hex digits"
bad_xattr "bad hex" "# file: f
user.a=0xzz" 2 "'zz' is not hex"
bad_xattr "bad base64" "# file: f
user.a=0s!!" 2 "'!' is not base64"
bad_xattr "unterminated quote" "# file: f
user.a=\"open" 2 "unterminated quote"
bad_xattr "bare value" "# file: f
user.a=bare" 2 "a value is quoted, 0x hex or 0s base64"

# ------------------------------------------------------------ SELinux

E=$WORK/selinux
mkdir -p "$E/src/d"
printf 'f\n' >"$E/src/f"
printf 'g\n' >"$E/src/d/g"
ln -s f "$E/src/lnk"
printf '/.*\tsystem_u:object_r:default_t:s0\n/d(/.*)?\tsystem_u:object_r:d_t:s0\n/f\t--\tsystem_u:object_r:f_t:s0\n/lnk\t-l\t<<none>>\n' \
	>"$E/fc"
gs -q -s "$E/fc" -D "$E/src" "$WORK/se.sqfs"
if grep -q 'no SELinux support' "$WORK/gs.err"; then
	expect_eq "--selinux without libselinux: exit status" "$RC" 1
	check "--selinux without libselinux: no image" \
		test ! -e "$WORK/se.sqfs"
else
	expect_eq "--selinux: exit status" "$RC" 0
	label() { "$RDSQUASHFS" -x "$1" "$WORK/se.sqfs" 2>&1; }
	expect_eq "--selinux: the root" "$(label /)" \
		"security.selinux=system_u:object_r:default_t:s0"
	expect_eq "--selinux: a file by its own line (type --)" \
		"$(label /f)" "security.selinux=system_u:object_r:f_t:s0"
	expect_eq "--selinux: a directory and what is below it" \
		"$(label /d)/$(label /d/g)" \
		"security.selinux=system_u:object_r:d_t:s0/security.selinux=system_u:object_r:d_t:s0"
	expect_eq "--selinux: <<none>> gives no label" "$(label /lnk)" ""
	"$RDSQ" -x /f "$WORK/se.sqfs" >"$WORK/se.x" 2>&1
	check "--selinux: the label ends with its NUL, as the kernel keeps it" \
		grep -q 'security.selinux=0x73.*00$\|security.selinux=system_u:object_r:f_t:s0' \
		"$WORK/se.x"
	# an xattr file read after it replaces a label
	printf '# file: f\nsecurity.selinux="other_u:object_r:x_t:s0"\n' \
		>"$E/x.txt"
	gs -q -s "$E/fc" -A "$E/x.txt" -D "$E/src" "$WORK/se2.sqfs"
	expect_eq "--selinux with --xattr-file: the file's label wins" \
		"$("$RDSQUASHFS" -x /f "$WORK/se2.sqfs" 2>&1)" \
		"security.selinux=other_u:object_r:x_t:s0"
	# a bad line: libselinux's words, said once, as FILE:LINE: what
	printf '/.*\tsystem_u:object_r:default_t:s0\n/g\t-x\tsystem_u:object_r:g_t:s0\n' \
		>"$E/bad.fc"
	gs -q -s "$E/bad.fc" -D "$E/src" "$WORK/bad.sqfs"
	expect_eq "--selinux, a bad line: exit status" "$RC" 1
	expect_eq "--selinux, a bad line: one message naming the line" \
		"$(cat "$WORK/gs.err")" \
		"gensquashfs: $E/bad.fc:2: invalid file type -x"
	check "--selinux, a bad line: no image" test ! -e "$WORK/bad.sqfs"
fi
gs -q -s "$E/nothing" -D "$E/src" "$WORK/bad.sqfs"
expect_eq "--selinux, a missing contexts file: exit status" "$RC" 1
check "--selinux, a missing contexts file: named" \
	grep -q "^gensquashfs: $E/nothing: " "$WORK/gs.err"
check "--selinux, a missing contexts file: no image" \
	test ! -e "$WORK/bad.sqfs"

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

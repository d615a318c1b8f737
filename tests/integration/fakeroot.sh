#!/bin/sh
# SPDX-License-Identifier: MIT
# fakeroot: in one fakeroot session a tree is made with owners, a setuid
# mode and devices that only fakeroot knows (on disk: the user's files,
# the devices empty regular files), and gensquashfs -D packs it in the
# same session. Outside the session, the image must hold the faked
# owners, modes and devices: the walk's metadata goes through the C
# library's wrappers (fstatat, fstat), which fakeroot replaces, never
# around them. sqfsdiff's directory side, in the session, must find the
# tree and the image equal; outside it, the tree is what is on disk.
#
# As root, chown would really change the owners, so the session runs as
# nobody (setpriv) and the owners on disk stay nobody's. GS, SQFSDIFF
# and RDSQ name the tools (default: the build tree's).

. "$(dirname "$0")/lib.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
SQFSDIFF=${SQFSDIFF:-$abs_top_builddir/sqfsdiff}
RDSQ=${RDSQ:-$abs_top_builddir/rdsquashfs}
# the mksquashfs personality, as Buildroot and OpenWrt run mksquashfs
MK=${MK:-$abs_top_builddir/mksquashfs}
for t in "$GS" "$SQFSDIFF" "$RDSQ" "$MK"; do
	[ -x "$t" ] || hard_error "no tool to test at $t"
done
FAKEROOT=/usr/bin/fakeroot
[ -x "$FAKEROOT" ] || skip_all "$FAKEROOT is not installed"

FR=$WORK/fr
mkdir "$FR"
AS=
OWNER_ON_DISK=$(id -u)
if [ "$IS_ROOT" = 1 ]; then
	# nobody makes the tree and the image in $FR, if nobody can get
	# there and run the tools
	chmod 0755 "$WORK"
	chown nobody "$FR" 2>/dev/null
	if [ -x /usr/bin/setpriv ] && id nobody >/dev/null 2>&1 &&
		/usr/bin/setpriv --reuid="$(id -u nobody)" \
			--regid="$(id -g nobody)" --clear-groups \
			sh -c 'test -w "$1" && "$2" --version' sh "$FR" "$GS" \
			>/dev/null 2>&1; then
		AS="/usr/bin/setpriv --reuid=$(id -u nobody)"
		AS="$AS --regid=$(id -g nobody) --clear-groups"
		OWNER_ON_DISK=$(id -u nobody)
	else
		echo "note: no setpriv, no user nobody, or $FR or the tools" \
			"out of nobody's reach: the session runs as root," \
			"whose chown is real; the owners prove less"
		OWNER_ON_DISK=
	fi
fi

# The session: make the tree, pack it, compare it with the image; each
# tool's status in a file (the session's own status is the shell's).
# A sanitizer runtime must not insist on coming first: fakeroot preloads
# its library before it.
cat >"$FR/session.sh" <<'EOF'
set -u
t=$FR/tree
mkdir "$t" "$t/dir" || exit 1
printf 'data\n' >"$t/suid"
printf 'more\n' >"$t/dir/owned"
chown 1234:5678 "$t/suid" || exit 1
chmod 4755 "$t/suid" || exit 1
chown 70000:80000 "$t/dir/owned" || exit 1
chown 42:43 "$t/dir" || exit 1
chmod 2750 "$t/dir" || exit 1
mknod "$t/chr" c 10 200 || exit 1
mknod "$t/blk" b 8 3 || exit 1
chown 7:8 "$t/blk" || exit 1
chown 0:0 "$t" || exit 1
ls -lnR "$t" >"$FR/inside.ls"
"$GS" -q -D "$t" "$FR/img.sqfs" >"$FR/gs.out" 2>&1
echo $? >"$FR/gs.rc"
"$SQFSDIFF" -j 1 -a "$t" -b "$FR/img.sqfs" >"$FR/sd.out" 2>&1
echo $? >"$FR/sd.rc"
"$MK" "$t" "$FR/mk.sqfs" -noappend -quiet -no-progress >"$FR/mk.out" 2>&1
echo $? >"$FR/mk.rc"
EOF

# shellcheck disable=SC2086
env FR="$FR" GS="$GS" SQFSDIFF="$SQFSDIFF" MK="$MK" HOME="$FR" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	$AS "$FAKEROOT" sh "$FR/session.sh" >"$WORK/session.out" 2>&1
RC=$?
expect_eq "the fakeroot session ran" "$RC" 0
[ "$RC" = 0 ] || cat "$WORK/session.out"
expect_eq "gensquashfs in the session: exit status" \
	"$(cat "$FR/gs.rc" 2>/dev/null)" 0
check "gensquashfs in the session: nothing said" test ! -s "$FR/gs.out"
if grep -q 'Sanitizer\|runtime error' "$FR/gs.out" "$FR/sd.out" \
	2>/dev/null; then
	fail "a sanitizer report in the session"
	head -20 "$FR/gs.out" "$FR/sd.out"
fi
expect_eq "sqfsdiff in the session: tree and image are equal" \
	"$(cat "$FR/sd.rc" 2>/dev/null)" 0
check "sqfsdiff in the session: says equal" \
	grep -q '^equal: ' "$FR/sd.out"

# on disk, outside the session: the user's owners, no devices
T=$FR/tree
check "on disk: the faked device is an empty regular file" \
	test -f "$T/chr" -a ! -s "$T/chr"
if [ -n "$OWNER_ON_DISK" ]; then
	expect_eq "on disk: the faked owner is not on the file" \
		"$(stat -c %u "$T/suid")" "$OWNER_ON_DISK"
fi

# the image: what the session said
"$RDSQ" -l / "$FR/img.sqfs" >"$WORK/list" 2>&1
"$RDSQ" -l /dir "$FR/img.sqfs" >>"$WORK/list" 2>&1
cat "$WORK/list"
check "image: suid is 1234:5678, mode 4755" \
	grep -q '^-rwsr-xr-x *1234/5678 .* suid$' "$WORK/list"
check "image: dir is 42:43, mode 2750" \
	grep -q '^drwxr-s--- *42/43 .* dir$' "$WORK/list"
check "image: dir/owned is 70000:80000 (ids past 16 bits)" \
	grep -q '^-rw-r--r-- *70000/80000 .* owned$' "$WORK/list"
check "image: chr is the character device 10:200" \
	grep -q '^crw-r--r-- *0/0 *10:200 chr$' "$WORK/list"
check "image: blk is the block device 8:3, owned 7:8" \
	grep -q '^brw-r--r-- *7/8 *8:3 blk$' "$WORK/list"
"$RDSQ" -s /chr "$FR/img.sqfs" >"$WORK/stat" 2>&1
check "image: -s says chr is a character device" \
	grep -q '^Inode type: character device' "$WORK/stat"
check "image: -s gives chr's device number" \
	grep -q '^Device number: 10:200' "$WORK/stat"
"$RDSQ" -s / "$FR/img.sqfs" >"$WORK/stat" 2>&1
check "image: the root is owned 0:0 as faked" \
	grep -q '^UID: 0 ' "$WORK/stat"
# an independent reader agrees
"$UNSQUASHFS" -lln "$FR/img.sqfs" >"$WORK/lln" 2>&1
check "unsquashfs: suid is 1234/5678 -rwsr-xr-x" \
	grep -q '^-rwsr-xr-x 1234/5678 .*/suid$' "$WORK/lln"
check "unsquashfs: chr is 10,200" \
	grep -q '^crw-r--r-- 0/0 *10,200 .*/chr$' "$WORK/lln"

# mksquashfs in the session: the same faked metadata, the root's too
expect_eq "mksquashfs in the session: exit status" \
	"$(cat "$FR/mk.rc" 2>/dev/null)" 0
"$UNSQUASHFS" -lln "$FR/mk.sqfs" >"$WORK/mk.lln" 2>&1
cat "$WORK/mk.lln"
check "mksquashfs: suid is 1234/5678 -rwsr-xr-x" \
	grep -q '^-rwsr-xr-x 1234/5678 .*/suid$' "$WORK/mk.lln"
check "mksquashfs: dir is 42/43 drwxr-s---" \
	grep -q '^drwxr-s--- 42/43 .*/dir$' "$WORK/mk.lln"
check "mksquashfs: dir/owned is 70000/80000" \
	grep -q '^-rw-r--r-- 70000/80000 .*/dir/owned$' "$WORK/mk.lln"
check "mksquashfs: chr is 10,200" \
	grep -q '^crw-r--r-- 0/0 *10,200 .*/chr$' "$WORK/mk.lln"
check "mksquashfs: blk is 8,3 owned 7/8" \
	grep -q '^brw-r--r-- 7/8 *8, *3 .*/blk$' "$WORK/mk.lln"
check "mksquashfs: the root is 0/0, from the tree" \
	grep -q '^d[rwx-]* 0/0 .* squashfs-root$' "$WORK/mk.lln"

# outside the session sqfsdiff sees the disk: the devices are files
"$SQFSDIFF" -j 1 -a "$T" -b "$FR/img.sqfs" >"$WORK/sd.out" 2>&1
RC=$?
expect_eq "sqfsdiff outside the session: the trees differ" "$RC" 1
check "sqfsdiff outside the session: chr is a file on disk" \
	grep -q '^/chr: type: regular file -> character device' \
	"$WORK/sd.out"

finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# gensquashfs against Debian's gensquashfs (squashfs-tools-ng 1.2), where
# the two used to part: the same input must give the same tree, compared
# by sqfsdiff (types, modes, owners, times, contents, xattrs; not how the
# image is packed) and by `rdsquashfs -d`.
#  1. --pack-dir: the root takes the --defaults attributes, not DIR's
#     (with or without --keep-time); DIR's xattrs stay.
#  2. glob lines leave the directory they are rooted at alone (a dir line
#     declares it, else it is made as an implicit directory), and only
#     descend into directories that they add or that exist already.
#  3. glob -path matches the path in the image, without its leading '/',
#     and wildcards do not match '/'.
#  4. a glob line without a location scans the input folder.
#  5. a file line's location is the rest of the line, blanks and all.
#  6. --selinux labels the root and the implicit directories too.
#
# Debian's gensquashfs 1.2 reads a glob's files at their image path below
# the input folder rather than at their place in the location, so the
# globs compared here are rooted where their location is (glob /usr/lib
# ... usr/lib), or their files are checked with our tool alone.

. "$(dirname "$0")/lib.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
SD=${SD:-$abs_top_builddir/sqfsdiff}
NG=/usr/bin/gensquashfs
[ -x "$GS" ] || hard_error "no tool to test at $GS (set GS)"
[ -x "$SD" ] || hard_error "no sqfsdiff at $SD (set SD)"
[ -x "$NG" ] || skip_all "$NG (squashfs-tools-ng) is not installed"

# gs ARGS...: our tool; status in RC, messages in $WORK/gs.err
gs() {
	"$GS" -q "$@" >"$WORK/gs.out" 2>"$WORK/gs.err"
	RC=$?
	if grep -q 'Sanitizer\|runtime error' "$WORK/gs.err"; then
		fail "gensquashfs $*: sanitizer report"
		head -20 "$WORK/gs.err"
	fi
	return 0
}

# same NAME ARGS...: our image and Debian's of the same arguments (the
# image last) are the same tree, times included; the difference is shown
same() {
	local name=$1 ours=$WORK/ours.sqfs ng=$WORK/ng.sqfs
	shift
	rm -f "$ours" "$ng"
	"$NG" -q "$@" "$ng" >"$WORK/ng.out" 2>&1 ||
		hard_error "$name: Debian's gensquashfs fails: $(cat "$WORK/ng.out")"
	gs "$@" "$ours"
	if [ "$RC" != 0 ]; then
		fail "$name: gensquashfs fails: $(cat "$WORK/gs.err")"
		return
	fi
	if "$SD" -T -a "$ng" -b "$ours" >"$WORK/sd.out" 2>&1; then
		pass "$name: the same tree as Debian's gensquashfs"
	else
		fail "$name: not the tree of Debian's gensquashfs (old: Debian's, new: ours):"
		sed 's/^/    /' "$WORK/sd.out"
	fi
}

# listing NAME LINE...: a listing of these lines in $IN, packed by both
# with $IN as the input folder
listing() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$IN/list.txt"
	same "$name" $OPTS -F "$IN/list.txt" -D "$IN"
}

# desc IMAGE: the image as a listing (Debian's rdsquashfs -d)
desc() { "$RDSQUASHFS" -d "$1" 2>&1; }

T=1500000000

# ------------------------------------------------------------ 1. --pack-dir

P=$WORK/pd
mkdir -p "$P/sub"
printf 'f\n' >"$P/f"
printf 'g\n' >"$P/sub/g"
chmod 0711 "$P"
chmod 0750 "$P/sub"
XATTRS=0
if setfattr -n user.root -v yes "$P" 2>/dev/null; then
	XATTRS=1
	setfattr -n user.sub -v yes "$P/sub"
fi
if [ "$IS_ROOT" = 1 ]; then
	chown 1234:5678 "$P"
	chown 42:43 "$P/sub"
fi
touch -d @$T "$P/f" "$P/sub/g" "$P/sub" "$P"

for opts in "" "-k" "-d uid=7,gid=8,mode=0700,mtime=999" \
	"-k -d uid=7,gid=8,mode=01777,mtime=999" "-u 3 -g 4" \
	"--all-root -d uid=9,mode=0750" "-x" "-k -x -d mode=0700"; do
	# shellcheck disable=SC2086
	same "--pack-dir $opts" $opts -D "$P"
done
SOURCE_DATE_EPOCH=4444 same "--pack-dir -k with SOURCE_DATE_EPOCH" -k -D "$P"

# the root's attributes, as unsquashfs lists them
gs -k -d uid=7,gid=8,mode=0700,mtime=999 -D "$P" "$WORK/r.sqfs"
"$UNSQUASHFS" -lln -UTC "$WORK/r.sqfs" >"$WORK/r.lls" 2>&1
expect_eq "--pack-dir -k -d ...: the root is 0700 7/8 at 999" \
	"$(grep 'squashfs-root$' "$WORK/r.lls" | awk '{print $1, $2, $4, $5}')" \
	"drwx------ 7/8 1970-01-01 00:16"
check "--pack-dir -k: a directory below keeps its time" \
	grep -q '2017-07-14 02:40 squashfs-root/sub$' "$WORK/r.lls"
rm -f "$WORK/r.sqfs"
gs -D "$P" "$WORK/r.sqfs"
"$UNSQUASHFS" -lln -UTC "$WORK/r.sqfs" >"$WORK/r.lls" 2>&1
expect_eq "--pack-dir: the root is 0755 0/0 at 0" \
	"$(grep 'squashfs-root$' "$WORK/r.lls" | awk '{print $1, $2, $4, $5}')" \
	"drwxr-xr-x 0/0 1970-01-01 00:00"
if [ "$XATTRS" = 1 ]; then
	rm -f "$WORK/r.sqfs"
	gs -x -D "$P" "$WORK/r.sqfs"
	expect_eq "--pack-dir -x: the root keeps DIR's xattrs" \
		"$("$RDSQUASHFS" -x / "$WORK/r.sqfs" 2>&1)" "user.root=yes"
fi

# ------------------------------------------------------------ 2.-4. glob

# the input folder: usr/lib with files, a symlink, subdirectories of
# their own modes and owners
IN=$WORK/in
mkdir -p "$IN/usr/lib/sub/deep" "$IN/usr/lib/sub2"
printf 'a\n' >"$IN/usr/lib/a.so"
printf 'b\n' >"$IN/usr/lib/sub/b.so"
printf 'c\n' >"$IN/usr/lib/sub/deep/c.txt"
ln -s a.so "$IN/usr/lib/l.so"
chmod 0750 "$IN/usr/lib"
chmod 0701 "$IN/usr/lib/sub"
[ "$IS_ROOT" = 1 ] && chown 11:12 "$IN/usr/lib"
find "$IN" -exec touch -h -d @$T {} +

OPTS=
# 2. the directory a glob is rooted at
listing "glob into a declared directory" \
	"dir /usr 0700 5 5" "dir /usr/lib 0711 6 6" \
	"glob /usr/lib 0644 7 7 -type f usr/lib"
desc "$WORK/ours.sqfs" >"$WORK/d"
expect_eq "glob into a declared directory: it keeps the dir line's attributes" \
	"$(grep '^dir usr/lib ' "$WORK/d")" "dir usr/lib 0711 6 6"
listing "glob, -type f, into an undeclared directory" \
	"glob /usr/lib 0644 7 7 -type f usr/lib"
desc "$WORK/ours.sqfs" >"$WORK/d"
expect_eq "glob into an undeclared directory: made with --defaults" \
	"$(grep '^dir usr/lib ' "$WORK/d")" "dir usr/lib 0755 0 0"
listing "glob, *, into an undeclared directory" \
	"glob /usr/lib * * * usr/lib"
listing "glob -type d, a declared directory given later" \
	"glob /usr/lib 0700 7 7 -type d usr/lib" "dir /usr/lib 0711 9 9"
OPTS="-d mode=0701,uid=3,gid=4,mtime=77"
listing "glob -keeptime with --defaults" \
	"glob /usr/lib * * * -keeptime usr/lib"
desc "$WORK/ours.sqfs" >"$WORK/d"
expect_eq "glob: its directory takes the --defaults, not the location's" \
	"$(grep '^dir usr/lib ' "$WORK/d")" "dir usr/lib 0701 3 4"
OPTS=
listing "glob selecting nothing still makes its directory" \
	"glob /x/y * * * -name nothing usr/lib"
# 2. which directories a glob descends into
listing "glob -type f descends only into directories that exist" \
	"dir /usr/lib/sub 0700 0 0" "glob /usr/lib * * * -type f usr/lib"
desc "$WORK/ours.sqfs" >"$WORK/d"
check "glob -type f: sub exists, its file is taken" \
	grep -q '^file usr/lib/sub/b.so ' "$WORK/d"
check "glob -type f: sub/deep does not, nothing below it is" \
	sh -c "! grep -q 'deep' '$WORK/d'"
listing "glob -type f, the directory declared after it" \
	"glob /usr/lib * * * -type f usr/lib" "dir /usr/lib/sub 0700 0 0"
listing "glob -name: directories that do not match are not entered" \
	"dir /usr/lib/sub 0755 0 0" "glob /usr/lib * * * -name *.so usr/lib"
listing "glob -type d, then -type f fills them" \
	"glob /usr/lib * * * -type d -name sub* usr/lib" \
	"glob /usr/lib * * * -type f -name *.so usr/lib"
listing "glob -type f -keeptime below an implied directory" \
	"file /usr/lib/sub/x 0600 1 1 usr/lib/a.so" \
	"glob /usr/lib 0640 2 2 -type f -keeptime usr/lib"

# 3. -path
listing "glob -path usr/lib/*.so" "glob /usr/lib * * * -path usr/lib/*.so usr/lib"
desc "$WORK/ours.sqfs" >"$WORK/d"
expect_eq "glob -path usr/lib/*.so: the path in the image matches" \
	"$(grep -c '^[a-z]* usr/lib/[al].so ' "$WORK/d")" 2
listing "glob -path *.so: a wildcard does not match /" \
	"glob /usr/lib * * * -path *.so usr/lib"
desc "$WORK/ours.sqfs" >"$WORK/d"
check "glob -path *.so: nothing" sh -c "! grep -q 'a.so' '$WORK/d'"
listing "glob -path usr/lib/*" "glob /usr/lib * * * -path usr/lib/* usr/lib"
listing "glob -type f -path usr/lib/*/*.so" "dir /usr/lib/sub 0755 0 0" \
	"glob /usr/lib * * * -type f -path usr/lib/*/*.so usr/lib"
listing "glob -path with a leading /: no match" \
	"glob /usr/lib * * * -path /usr/lib/*.so usr/lib"

# 4. no location: the input folder
listing "glob / without a location" "glob / * * *"
"$RDSQUASHFS" -c /usr/lib/sub/b.so "$WORK/ours.sqfs" >"$WORK/b" 2>&1
expect_eq "glob / without a location: the files of the input folder" \
	"$(cat "$WORK/b")" "b"
listing "glob -type d without a location" "glob /x 0700 1 1 -type d "
listing "glob -nonrecursive -- without a location" \
	"glob /x 0700 1 1 -type d -nonrecursive -- "
printf '%s\n' "dir /x/usr/lib 0755 0 0" "glob /x 0700 1 2 -type f" \
	>"$IN/list.txt"
rm -f "$WORK/ours.sqfs"
gs -F "$IN/list.txt" -D "$IN" "$WORK/ours.sqfs"
expect_eq "glob -type f without a location: exit status" "$RC" 0
"$RDSQUASHFS" -c /x/usr/lib/a.so "$WORK/ours.sqfs" >"$WORK/b" 2>&1
expect_eq "glob -type f without a location: files below the input folder" \
	"$(cat "$WORK/b")" "a"

# ------------------------------------------------------------ 5. file lines

mkdir -p "$IN/some dir"
printf 'spaced\n' >"$IN/some dir/my file"
printf 'two\n' >"$IN/some dir/a  b"
printf 'trail\n' >"$IN/some dir/trail "
touch -d @$T "$IN/some dir"/*
listing "file: an unquoted location with blanks" \
	"file /a 0644 0 0 some dir/my file" \
	"file /b 0644 0 0   some dir/a  b" \
	"file /c 0644 0 0 some dir/trail "
expect_eq "file: an unquoted location with blanks: its data" \
	"$("$RDSQUASHFS" -c /a "$WORK/ours.sqfs")/$("$RDSQUASHFS" -c /b "$WORK/ours.sqfs")/$("$RDSQUASHFS" -c /c "$WORK/ours.sqfs")" \
	"spaced/two/trail"
printf '%s\n' 'file /q 0644 0 0 "some dir/my file"' \
	'file /r 0644 0 0 "some dir/trail "  ' >"$IN/list.txt"
rm -f "$WORK/ours.sqfs"
gs -F "$IN/list.txt" -D "$IN" "$WORK/ours.sqfs"
expect_eq "file: a quoted location: exit status" "$RC" 0
expect_eq "file: a quoted location: its data" \
	"$("$RDSQUASHFS" -c /q "$WORK/ours.sqfs")/$("$RDSQUASHFS" -c /r "$WORK/ours.sqfs")" \
	"spaced/trail"
printf '%s\n' 'file /q 0644 0 0 "some dir/my file" more' >"$IN/list.txt"
rm -f "$WORK/ours.sqfs"
gs -F "$IN/list.txt" -D "$IN" "$WORK/ours.sqfs"
expect_eq "file: text after a quoted location: exit status" "$RC" 1
check "file: text after a quoted location: named" \
	grep -q "list.txt:1: unexpected 'more' after the location" "$WORK/gs.err"

# ------------------------------------------------------------ 6. --selinux

printf '%s\n' \
	'/.*	system_u:object_r:default_t:s0' \
	'/usr(/.*)?	system_u:object_r:usr_t:s0' \
	'/usr/lib/a\.so	--	system_u:object_r:lib_t:s0' >"$IN/fc"
printf 'file /usr/lib/a.so 0644 0 0\n' >"$IN/list.txt"
rm -f "$WORK/se.sqfs"
gs -s "$IN/fc" -F "$IN/list.txt" -D "$IN" "$WORK/se.sqfs"
if grep -q 'no SELinux support' "$WORK/gs.err"; then
	echo "note: --selinux checks skipped (built without libselinux)"
else
	expect_eq "--selinux with a listing: exit status" "$RC" 0
	label() { "$RDSQUASHFS" -x "$1" "$WORK/se.sqfs" 2>&1; }
	expect_eq "--selinux with a listing: the root, never listed" \
		"$(label /)" "security.selinux=system_u:object_r:default_t:s0"
	expect_eq "--selinux with a listing: an implicit directory" \
		"$(label /usr)" "security.selinux=system_u:object_r:usr_t:s0"
	expect_eq "--selinux with a listing: an implicit directory below it" \
		"$(label /usr/lib)" "security.selinux=system_u:object_r:usr_t:s0"
	expect_eq "--selinux with a listing: the listed file" \
		"$(label /usr/lib/a.so)" "security.selinux=system_u:object_r:lib_t:s0"
	# Debian's labels lack the terminating NUL that ours keep (as
	# setfiles stores them), so the labels are compared as rdsquashfs
	# prints them, entry by entry, and the rest by rdsquashfs -d
	for c in "file /usr/lib/a.so 0644 0 0|slink /etc/x/l 0777 0 0 t|" \
		"dir / 0700 0 0|glob /usr/lib * * * -type f usr/lib|" \
		"file /usr/lib/a.so 0644 0 0||-d mode=0700,uid=5"; do
		printf '%s\n' "$c" | cut -d'|' -f1-2 | tr '|' '\n' \
			>"$IN/list.txt"
		opts=$(printf '%s\n' "$c" | cut -d'|' -f3)
		rm -f "$WORK/ours.sqfs" "$WORK/ng.sqfs"
		# shellcheck disable=SC2086
		"$NG" -q -s "$IN/fc" $opts -F "$IN/list.txt" -D "$IN" \
			"$WORK/ng.sqfs" >/dev/null 2>&1 ||
			hard_error "Debian's gensquashfs fails on $c"
		# shellcheck disable=SC2086
		gs -s "$IN/fc" $opts -F "$IN/list.txt" -D "$IN" "$WORK/ours.sqfs"
		expect_eq "--selinux, $c: exit status" "$RC" 0
		expect_eq "--selinux, $c: the entries of Debian's image" \
			"$(desc "$WORK/ours.sqfs")" "$(desc "$WORK/ng.sqfs")"
		bad=
		for p in / $(desc "$WORK/ng.sqfs" | awk '{print "/" $2}'); do
			[ "$("$RDSQUASHFS" -x "$p" "$WORK/ours.sqfs" 2>&1)" = \
				"$("$RDSQUASHFS" -x "$p" "$WORK/ng.sqfs" 2>&1)" ] ||
				bad="$bad $p"
		done
		expect_eq "--selinux, $c: every label is Debian's" "$bad" ""
	done
fi

finish

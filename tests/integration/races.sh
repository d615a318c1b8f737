#!/bin/sh
# SPDX-License-Identifier: MIT
# races: the tree changes between the scan and the packing, on cue. An
# LD_PRELOAD shim (race_shim.c) swaps a file, a directory on the way or a
# glob line's location for a symlink to a secret outside the tree, or for
# another object (a hard link to the secret, a copy of it, a directory
# moved in, a FIFO), right before a chosen call of the tool: the Nth call
# naming a component. The scan names a file once (lstat) and a directory
# twice (lstat, the open that enters it), so N=2 for a file and N=3 for a
# directory is the first call after the scan, whichever thread makes it.
#
# Each case checks that the secret's bytes and its user.secret xattr are
# in no image (unpacked by the build tree's rdsquashfs, every entry's
# xattrs listed), that the run fails naming the changed entry and leaves
# no image, that it neither hangs nor crashes, and (the shim watches every
# call) that nothing outside the tree was reached through the symlink nor
# read. Then sqfsdiff's directory side under the same swaps, whose report
# must not be that of the secret; and swaps that must change nothing.
#
# GS, SQFSDIFF and RDSQ name the tools (default: the build tree's), so
# another build can be put to the same test.

. "$(dirname "$0")/lib.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
SQFSDIFF=${SQFSDIFF:-$abs_top_builddir/sqfsdiff}
RDSQ=${RDSQ:-$abs_top_builddir/rdsquashfs}
SHIM=$abs_top_builddir/tests/integration/.libs/race_shim.so
for t in "$GS" "$SQFSDIFF" "$RDSQ"; do
	[ -x "$t" ] || hard_error "no tool to test at $t"
done
[ -f "$SHIM" ] || hard_error "no $SHIM (make check builds it)"
[ -d /proc/self/fd ] || skip_all "no /proc"

# what must never get out: in the secret files' bytes and xattr values
TOKEN="S3CRET-race-$$"
IN=$WORK/in
LOC=$IN/loc
OUTSIDE=$WORK/outside
OUT=$WORK/out
IMG=$OUT/img.sqfs

# user xattrs where the test runs: else the xattr cases are skipped, said
XATTRS=1
: >"$WORK/xattr-probe"
if ! setfattr -n user.probe -v 1 "$WORK/xattr-probe" 2>/dev/null; then
	XATTRS=0
	echo "note: no user xattrs on the file system of $WORK;" \
		"the xattr cases are skipped"
fi

# secret N: N bytes of lines holding the token; public N: other bytes
secret() { yes "$TOKEN" | head -c "$1"; }
public() { yes "public data" | head -c "$1"; }

setx() { [ "$XATTRS" = 0 ] || setfattr -n user.secret -v "$TOKEN" "$1"; }

# The tree, at $LOC (packed with -D $LOC, or by a glob line from $IN):
#   keep.txt  racedir/{large,pipe,small,xsub/}  zlast.txt
# and outside it the secrets: secret_small, secret_large, and secretdir,
# a directory with the same names as racedir (its files and directories
# with the token in their bytes and xattrs). leak: the tree as it would
# be if everything were read through the swapped symlinks (what a
# sqfsdiff that followed them would find equal).
make_trees() {
	rm -rf "$IN" "$LOC.stash" "$IN.stash" "$OUTSIDE" "$OUT" "$WORK/leak" \
		"$WORK/x"
	mkdir -p "$LOC/racedir/xsub" "$OUTSIDE/secretdir/xsub" "$OUT"
	public 20 >"$LOC/keep.txt"
	public 1000 >"$LOC/racedir/small"
	public 300000 >"$LOC/racedir/large"
	mkfifo "$LOC/racedir/pipe"
	public 30 >"$LOC/zlast.txt"
	secret 1000 >"$OUTSIDE/secret_small"
	secret 300000 >"$OUTSIDE/secret_large"
	secret 1000 >"$OUTSIDE/secretdir/small"
	secret 300000 >"$OUTSIDE/secretdir/large"
	secret 100 >"$OUTSIDE/secretdir/pipe"
	for f in secret_small secret_large secretdir secretdir/small \
		secretdir/large secretdir/pipe secretdir/xsub; do
		setx "$OUTSIDE/$f"
	done
	chmod -R u=rwX,go=rX "$LOC" "$OUTSIDE"
	chmod 0644 "$LOC/racedir/pipe"
}

make_leak_image() {
	cp -a "$LOC" "$WORK/leak"
	secret 1000 >"$WORK/leak/racedir/small"
	secret 300000 >"$WORK/leak/racedir/large"
	for f in racedir racedir/small racedir/large racedir/xsub; do
		setx "$WORK/leak/$f"
	done
	printf '# file: /racedir/pipe\nuser.secret="%s"\n' "$TOKEN" \
		>"$WORK/leak.xattrs"
	xfile=
	[ "$XATTRS" = 0 ] || xfile="-A $WORK/leak.xattrs"
	# shellcheck disable=SC2086
	"$abs_top_builddir/gensquashfs" -q -x $xfile -D "$WORK/leak" \
		"$WORK/leak.sqfs" || hard_error "cannot make the leak image"
	rm -rf "$WORK/leak"
}

# ------------------------------------------------------------ running

# The swap: R_ROOT, R_TARGET (below R_ROOT), R_KIND, R_SECRET, R_AT,
# R_MATCH, R_RESTORE, R_RESTORE_MATCH (race_shim.c says what each is);
# reset by each case.
reset_race() {
	R_ROOT=$LOC
	R_TARGET=
	R_KIND=symlink
	R_SECRET=
	R_AT=
	R_MATCH=
	R_RESTORE=
	R_RESTORE_MATCH=
	R_WATCH=$OUTSIDE
	R_FOLLOW_OK=0
}

# raced PROG CMD...: run CMD with the shim acting in PROG; status in RC,
# output in $WORK/race.out and .err, the shim's lines in $WORK/race.log
raced() {
	local prog=$1
	shift
	rm -f "$WORK/race.log"
	: >"$WORK/race.log"
	env RACE_ROOT="$R_ROOT" RACE_TARGET="$R_TARGET" RACE_KIND="$R_KIND" \
		RACE_SECRET="$R_SECRET" RACE_AT="$R_AT" RACE_MATCH="$R_MATCH" \
		RACE_RESTORE="$R_RESTORE" \
		RACE_RESTORE_MATCH="$R_RESTORE_MATCH" RACE_WATCH="$R_WATCH" \
		RACE_PROG="$prog" RACE_LOG="$WORK/race.log" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		LD_PRELOAD="$SHIM" timeout 30 "$@" \
		>"$WORK/race.out" 2>"$WORK/race.err"
	RC=$?
}

# What every run must show: the swap made (else the case proves
# nothing), no hang, no crash, no sanitizer report, nothing read from
# the secrets, nothing reached through the symlink put in.
run_checks() {
	local what=$1
	if grep -q '^swap: ' "$WORK/race.log" &&
		! grep -q 'FAILED' "$WORK/race.log"; then
		pass "$what: the swap was made"
	else
		fail "$what: the shim made no swap:"
		cat "$WORK/race.log"
	fi
	if [ "$RC" = 124 ]; then
		fail "$what: the tool hung (killed after 30 s)"
	elif [ "$RC" -ge 126 ]; then
		fail "$what: the tool died (status $RC)"
		tail -5 "$WORK/race.err"
	else
		pass "$what: no hang, no crash"
	fi
	if grep -q 'Sanitizer\|runtime error' "$WORK/race.err"; then
		fail "$what: sanitizer report"
		head -20 "$WORK/race.err"
	fi
	if grep -q '^READ: ' "$WORK/race.log"; then
		fail "$what: the secret was read:"
		grep '^READ: ' "$WORK/race.log" | head -3
	else
		pass "$what: nothing read from the secret"
	fi
	if [ "$R_FOLLOW_OK" = 0 ]; then
		if grep -q '^FOLLOWED: ' "$WORK/race.log"; then
			fail "$what: a symlink to outside the tree was followed:"
			grep '^FOLLOWED: ' "$WORK/race.log" | head -3
		else
			pass "$what: nothing outside the tree reached"
		fi
	fi
}

# no_secret WHAT IMAGE: neither the token's bytes nor an xattr holding it
# are in IMAGE (unpacked whole, each entry's xattrs listed)
no_secret() {
	local what=$1 img=$2 p leaked=
	rm -rf "$WORK/unpacked"
	if ! "$RDSQ" -q -j 1 -u / -p "$WORK/unpacked" "$img" \
		>"$WORK/rd.err" 2>&1; then
		fail "$what: the image does not unpack:"
		head -3 "$WORK/rd.err"
		return
	fi
	if grep -rqF "$TOKEN" "$WORK/unpacked"; then
		leaked="contents of $(grep -rlF "$TOKEN" "$WORK/unpacked" |
			sed "s|$WORK/unpacked||" | head -3 | tr '\n' ' ')"
	fi
	for p in $(cd "$WORK/unpacked" && find . | sed 's|^\.||'); do
		if "$RDSQ" -x "${p:-/}" "$img" 2>/dev/null |
			grep -qF "$TOKEN"; then
			leaked="$leaked xattr of ${p:-/}"
		fi
	done
	if [ -n "$leaked" ]; then
		fail "$what: the secret is in the image: $leaked"
	else
		pass "$what: no secret in the image"
	fi
	rm -rf "$WORK/unpacked"
}

# gs_fails WHAT PATTERN OPTIONS...: gensquashfs OPTIONS $IMG under the
# swap fails, its message names PATTERN (an extended regex), and it
# leaves no image nor anything else in $OUT (if it left an image, that
# must hold no secret either)
gs_fails() {
	local what=$1 pattern=$2
	shift 2
	make_trees
	raced gensquashfs "$GS" -q "$@" "$IMG"
	run_checks "$what"
	if [ "$RC" != 0 ] && [ "$RC" -lt 124 ]; then
		pass "$what: fails (status $RC)"
	else
		fail "$what: status $RC, expected a failure"
	fi
	if grep -qE "^gensquashfs: ($pattern)" "$WORK/race.err"; then
		pass "$what: the message names the entry"
	else
		fail "$what: no message naming '$pattern':"
		head -3 "$WORK/race.err"
	fi
	if [ -f "$IMG" ]; then
		fail "$what: an image was left"
		no_secret "$what" "$IMG"
	elif [ -n "$(ls -A "$OUT")" ]; then
		fail "$what: left in $OUT: $(ls -A "$OUT")"
	else
		pass "$what: no image left"
	fi
}

# gs_packs WHAT OPTIONS...: a harmless swap: the run succeeds, and the
# image holds no secret
gs_packs() {
	local what=$1
	shift
	make_trees
	raced gensquashfs "$GS" -q "$@" "$IMG"
	run_checks "$what"
	expect_eq "$what: exit status" "$RC" 0
	if [ -f "$IMG" ]; then
		no_secret "$what" "$IMG"
	else
		fail "$what: no image"
	fi
}

# sd_run WHAT OPTIONS...: sqfsdiff -a $LOC -b leak.sqfs OPTIONS under the
# swap; the files it puts aside (-e) must hold no secret on the old side
sd_run() {
	local what=$1
	shift
	make_trees
	raced sqfsdiff "$SQFSDIFF" -j 2 -a "$LOC" -b "$WORK/leak.sqfs" \
		-e "$WORK/x" "$@"
	run_checks "$what"
	if [ -d "$WORK/x/old" ] && grep -rqF "$TOKEN" "$WORK/x/old"; then
		fail "$what: the secret was put aside as the directory's file"
	else
		pass "$what: nothing of the secret put aside"
	fi
}

# sd_fails WHAT PATTERN: sqfsdiff fails (2), naming PATTERN
sd_fails() {
	local what=$1 pattern=$2
	sd_run "$what"
	expect_eq "$what: exit status" "$RC" 2
	if grep -qE "^sqfsdiff: $LOC: ($pattern)" "$WORK/race.err"; then
		pass "$what: the message names the entry"
	else
		fail "$what: no message naming '$pattern':"
		head -3 "$WORK/race.err"
	fi
}

make_trees
make_leak_image

# the listing of the glob cases: the tree below /g
printf 'glob /g * * * loc\n' >"$WORK/glob.list"
printf 'glob /g * * * -name keep.txt loc\n' >"$WORK/glob_keep.list"

REPLACED='was replaced since it was scanned'
# a symlink where the walk saw a file or a directory: not the object it
# saw; a symlink on the way to one: never followed
SYMLINK_IN_WAY="(a symlink is in the way|$REPLACED)"
NOT_DIR="(a symlink is in the way|Not a directory|$REPLACED)"
SYMLINK_LOOP="(a symlink is in the way|$REPLACED)"

# ------------------------------------------------------------ --pack-dir

# a file swapped between the scan and its reading: small (read ahead by
# a reader thread) and large (> 128 KiB: read by the packer)
for size in small large; do
	reset_race
	R_TARGET=racedir/$size R_AT=2 R_SECRET=$OUTSIDE/secret_$size
	gs_fails "-D: $size file -> symlink to the secret" \
		"racedir/$size: $SYMLINK_IN_WAY" -D "$LOC"
	R_KIND=hardlink
	gs_fails "-D: $size file -> hard link to the secret" \
		"racedir/$size: $REPLACED" -D "$LOC"
	R_KIND=copy
	gs_fails "-D: $size file -> a copy of the secret" \
		"racedir/$size: $REPLACED" -D "$LOC"
	R_KIND=fifo R_SECRET=
	gs_fails "-D: $size file -> a FIFO" \
		"racedir/$size: $REPLACED" -D "$LOC"
done

# a directory on the way swapped after the scan, at the first call that
# names it since (opening racedir/large or racedir/small below the root)
reset_race
R_TARGET=racedir R_AT=3 R_SECRET=$OUTSIDE/secretdir
gs_fails "-D: directory on the way -> symlink to a directory outside" \
	"racedir/(large|small): $NOT_DIR" -D "$LOC"
R_KIND=rename
gs_fails "-D: directory on the way -> another directory moved in" \
	"racedir/(large|small): $REPLACED" -D "$LOC"

# a directory swapped between its lstat and the scan entering it: the
# scan itself refuses
reset_race
R_TARGET=racedir R_AT=2 R_SECRET=$OUTSIDE/secretdir
gs_fails "-D: directory -> symlink before the scan enters it" \
	"racedir: $NOT_DIR" -D "$LOC"
R_KIND=rename
gs_fails "-D: directory -> another directory before the scan enters it" \
	"racedir: was replaced" -D "$LOC"

# deeper than the scan keeps directories open (32): d01 is opened again,
# from the root, when the walk comes back to it for zz; swapped before
# that third call naming it
make_deep() { # DIR LEVELS
	local d=$1 i=1
	rm -rf "$1" "$1.stash"
	while [ "$i" -le "$2" ]; do
		d=$d/$(printf 'd%02d' "$i")
		i=$((i + 1))
	done
	mkdir -p "$d" "$OUTSIDE/deepsecret"
	public 10 >"$d/f1"
	public 10 >"$d/f2"
	public 10 >"$1/d01/zz"
	secret 10 >"$OUTSIDE/deepsecret/zz"
	setx "$OUTSIDE/deepsecret/zz"
}
reset_race
R_ROOT=$WORK/deep R_TARGET=d01 R_AT=3 R_SECRET=$OUTSIDE/deepsecret
make_trees
make_deep "$WORK/deep" 40
raced gensquashfs "$GS" -q -D "$WORK/deep" "$IMG"
run_checks "-D: a directory the scan opens again, 40 deep -> symlink"
check "-D: a directory the scan opens again -> symlink: fails naming it" \
	grep -q '^gensquashfs: d01: ' "$WORK/race.err"
check "-D: a directory the scan opens again -> symlink: no image" \
	test ! -e "$IMG"
R_KIND=rename
make_trees
make_deep "$WORK/deep" 40
raced gensquashfs "$GS" -q -D "$WORK/deep" "$IMG"
run_checks "-D: a directory the scan opens again, 40 deep -> another"
check "-D: a directory the scan opens again -> another: fails naming it" \
	grep -q "^gensquashfs: d01: $REPLACED" "$WORK/race.err"

# deeper than the packer keeps directories open (64): d66, opened again
# for each file below it, swapped after the scan
reset_race
R_ROOT=$WORK/deep R_TARGET=$(i=1 p=; while [ $i -le 66 ]; do
	p=$p${p:+/}$(printf 'd%02d' $i)
	i=$((i + 1))
done; echo "$p") R_AT=3 R_SECRET=$OUTSIDE/deepsecret
make_trees
make_deep "$WORK/deep" 70
mkdir -p "$OUTSIDE/deepsecret/d67/d68/d69/d70"
secret 10 >"$OUTSIDE/deepsecret/d67/d68/d69/d70/f1"
secret 10 >"$OUTSIDE/deepsecret/d67/d68/d69/d70/f2"
raced gensquashfs "$GS" -q -D "$WORK/deep" "$IMG"
run_checks "-D: 70 deep, d66 -> symlink"
check "-D: 70 deep, d66 -> symlink: fails naming a file below it" \
	grep -qE "^gensquashfs: d01/.*/d66/d67/d68/d69/d70/f[12]: " \
	"$WORK/race.err"
check "-D: 70 deep, d66 -> symlink: no image" test ! -e "$IMG"
rm -rf "$WORK/deep"

# ------------------------------------------------------------ -x

if [ "$XATTRS" = 1 ]; then
	# the file's xattrs are read from the checked descriptor only
	reset_race
	R_TARGET=racedir/small R_AT=2 R_SECRET=$OUTSIDE/secret_small
	gs_fails "-x: small file -> symlink to the secret" \
		"racedir/small: $SYMLINK_IN_WAY" -x -D "$LOC"
	R_KIND=hardlink
	gs_fails "-x: small file -> hard link to the secret" \
		"racedir/small: $REPLACED" -x -D "$LOC"
	# the directory's own xattrs are read first (directories are packed
	# before files): the call after the scan is its opening
	reset_race
	R_TARGET=racedir R_AT=3 R_SECRET=$OUTSIDE/secretdir
	gs_fails "-x: directory -> symlink to a directory outside" \
		"racedir: $NOT_DIR" -x -D "$LOC"
	R_KIND=rename
	gs_fails "-x: directory -> another directory moved in" \
		"racedir: $REPLACED" -x -D "$LOC"
	# the xattrs of the FIFO below it, read by its name in racedir,
	# opened again (call 4) once racedir's own were read (call 3)
	reset_race
	R_TARGET=racedir R_AT=4 R_SECRET=$OUTSIDE/secretdir
	gs_fails "-x: directory on the way to a FIFO -> symlink" \
		"racedir/pipe: $NOT_DIR" -x -D "$LOC"
	R_KIND=rename
	gs_fails "-x: directory on the way to a FIFO -> another directory" \
		"racedir/pipe: $REPLACED" -x -D "$LOC"
	# A-B-A: a FIFO's xattrs are read by its name (it cannot be opened
	# for reading): swapped for a hard link to the secret right before
	# they are read, put back right after (before a check by name that
	# would follow). Read through a descriptor of the object checked,
	# the swap changes nothing.
	reset_race
	R_TARGET=racedir/pipe R_KIND=hardlink R_SECRET=$OUTSIDE/secret_small
	R_AT=xattr:1 R_RESTORE=stat:1
	gs_packs "-x: FIFO -> hard link to the secret and back (A-B-A)" \
		-x -D "$LOC"
else
	echo "SKIP: -x cases: no user xattrs on the file system of $WORK"
fi

# ------------------------------------------------------------ glob lines

for size in small large; do
	reset_race
	R_TARGET=racedir/$size R_AT=2 R_SECRET=$OUTSIDE/secret_$size
	gs_fails "glob: $size file -> symlink to the secret" \
		"loc/racedir/$size: $SYMLINK_IN_WAY" -F "$WORK/glob.list" -D "$IN"
	R_KIND=hardlink
	gs_fails "glob: $size file -> hard link to the secret" \
		"loc/racedir/$size: $REPLACED" -F "$WORK/glob.list" -D "$IN"
	R_KIND=fifo R_SECRET=
	gs_fails "glob: $size file -> a FIFO" \
		"loc/racedir/$size: $REPLACED" -F "$WORK/glob.list" -D "$IN"
done

reset_race
R_TARGET=racedir R_AT=3 R_SECRET=$OUTSIDE/secretdir
gs_fails "glob: directory on the way -> symlink to a directory outside" \
	"loc/racedir/(large|small): $NOT_DIR" \
	-F "$WORK/glob.list" -D "$IN"
R_KIND=rename
gs_fails "glob: directory on the way -> another directory moved in" \
	"loc/racedir/(large|small): $REPLACED" -F "$WORK/glob.list" -D "$IN"

reset_race
R_TARGET=racedir R_AT=2 R_SECRET=$OUTSIDE/secretdir
gs_fails "glob: directory -> symlink before the scan enters it" \
	"racedir: $NOT_DIR" -F "$WORK/glob.list" -D "$IN"

# the location itself, after its scan: it is the listing's and opened as
# given (following a symlink: reaching outside is allowed there), but
# must be the directory scanned
reset_race
R_ROOT=$IN R_TARGET=loc R_AT=2 R_SECRET=$OUTSIDE/secretdir R_FOLLOW_OK=1
gs_fails "glob: the location -> symlink to a directory outside" \
	"loc/[^:]+: $REPLACED" -F "$WORK/glob.list" -D "$IN"

# xattrs are not read for a listing's entries (-x applies to --pack-dir):
# a swapped directory gives none of the secret's either
if [ "$XATTRS" = 1 ]; then
	reset_race
	R_TARGET=racedir R_AT=3 R_SECRET=$OUTSIDE/secretdir
	gs_fails "glob -x: directory on the way -> symlink" \
		"loc/racedir/(large|small): $NOT_DIR" \
		-x -F "$WORK/glob.list" -D "$IN"
fi

# harmless: an entry the glob line does not take, swapped when the one
# it takes is read
reset_race
R_TARGET=racedir/small R_MATCH=keep.txt R_AT=2 R_SECRET=$OUTSIDE/secret_small
gs_packs "glob: an entry not taken -> symlink" \
	-F "$WORK/glob_keep.list" -D "$IN"
"$RDSQ" -c /g/keep.txt "$IMG" >"$WORK/keep.out" 2>&1
check "glob: an entry not taken -> symlink: the file taken is packed" \
	cmp -s "$WORK/keep.out" "$LOC/keep.txt"

# ------------------------------------------------------------ sqfsdiff

# The image side is the tree as a reader through the swapped symlinks
# would see it (leak.sqfs): a sqfsdiff that followed one would report the
# trees equal, or put the secret aside (-e).
for size in small large; do
	reset_race
	R_TARGET=racedir/$size R_AT=2 R_SECRET=$OUTSIDE/secret_$size
	sd_fails "sqfsdiff: $size file -> symlink to the secret" \
		"racedir/$size: $SYMLINK_LOOP"
	R_KIND=hardlink
	sd_fails "sqfsdiff: $size file -> hard link to the secret" \
		"racedir/$size: $REPLACED"
	R_KIND=fifo R_SECRET=
	sd_fails "sqfsdiff: $size file -> a FIFO" "racedir/$size: $REPLACED"
done

# a directory is compared (its xattrs read: call 2) before the walk
# enters it (call 3)
reset_race
R_TARGET=racedir R_AT=2 R_SECRET=$OUTSIDE/secretdir
sd_fails "sqfsdiff: directory -> symlink before its xattrs are read" \
	"racedir: $SYMLINK_LOOP"
R_KIND=rename
sd_fails "sqfsdiff: directory -> another directory before its xattrs are read" \
	"racedir: $REPLACED"
reset_race
R_TARGET=racedir R_AT=3 R_SECRET=$OUTSIDE/secretdir
sd_fails "sqfsdiff: directory -> symlink before the walk enters it" \
	"racedir: $NOT_DIR"
R_KIND=rename
sd_fails "sqfsdiff: directory -> another directory before the walk enters it" \
	"racedir: $REPLACED"

# the directory swapped once the walk is in it (at the lstat of its first
# entry): harmless, the walk goes on in the directory it entered, and
# reports what it holds, not the secret
reset_race
R_TARGET=racedir R_MATCH=large R_AT=1 R_SECRET=$OUTSIDE/secretdir
sd_run "sqfsdiff: directory -> symlink once the walk is in it"
expect_eq "sqfsdiff: directory -> symlink once in it: exit status" "$RC" 1
check "sqfsdiff: directory -> symlink once in it: small's contents differ" \
	grep -q '^/racedir/small: contents differ' "$WORK/race.out"
if [ "$XATTRS" = 1 ]; then
	check "sqfsdiff: directory -> symlink once in it: xsub's xattr differs" \
		grep -q '^/racedir/xsub: xattr user.secret: only in new' \
		"$WORK/race.out"
fi

# deeper than the walk keeps open: d01 opened again
reset_race
R_ROOT=$WORK/deep R_TARGET=d01 R_AT=3 R_SECRET=$OUTSIDE/deepsecret
make_trees
make_deep "$WORK/deep" 40
cp -a "$WORK/deep" "$WORK/deep.copy"
raced sqfsdiff "$SQFSDIFF" -a "$WORK/deep" -b "$WORK/deep.copy"
run_checks "sqfsdiff: a directory the walk opens again -> symlink"
expect_eq "sqfsdiff: a directory the walk opens again -> symlink: status" \
	"$RC" 2
check "sqfsdiff: a directory the walk opens again -> symlink: names it" \
	grep -q "^sqfsdiff: $WORK/deep: d01: " "$WORK/race.err"
rm -rf "$WORK/deep" "$WORK/deep.copy"

if [ "$XATTRS" = 1 ]; then
	# A-B-A on a FIFO's xattrs, as for gensquashfs
	reset_race
	R_TARGET=racedir/pipe R_KIND=hardlink R_SECRET=$OUTSIDE/secret_small
	R_AT=xattr:1 R_RESTORE=stat:1
	sd_run "sqfsdiff: FIFO -> hard link to the secret and back (A-B-A)"
	expect_eq "sqfsdiff: FIFO A-B-A: exit status" "$RC" 1
	check "sqfsdiff: FIFO A-B-A: the FIFO's xattr differs" \
		grep -q '^/racedir/pipe: xattr user.secret: only in new' \
		"$WORK/race.out"
fi

finish

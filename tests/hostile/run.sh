#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hostile images against the reader and the unpacking tools.
#
# Seed images are made here (mksquashfs with gzip, xz, zstd, lz4 and raw
# metadata; our tar2sqfs; the valid hand-built images; the fixtures), then
# mutate.py writes mutants of each and the hand-built hostile set
# (structured.py). Every image goes through
#   read_image        the whole reader API (walk, read, xattrs, lookups)
#   rdsquashfs -l /, -d, -c, -s and -x on some files, -u / into a fresh
#                     target
#   sqfs2tar          the whole image as a tar stream
#   sqfsdiff          the image against itself, -j 2: equal, or refused
#                     (status 2) with no verdict; never "different"
# (the tools when they are built), each under `timeout`. A case fails if a
# program is killed by a signal or the timeout, prints a sanitizer report,
# exits with a status other than 0 or 1 (read_image: reports an internal
# inconsistency), or if an unpack writes anything outside its target: the
# target sits in a fresh parent next to a canary directory, symlinks in
# the hand-built images point at a watched "outside" directory and at the
# canary, and planted files are named pwn_*. Valid images ("accept" in
# the manifest) must also be read without error.
#
# Environment: HOSTILE_MUTANTS (mutants per seed, default 8),
# HOSTILE_SEED (mutation seed, default 1), HOSTILE_TIMEOUT (seconds per
# command, default 30), HOSTILE_STRICT=1 (a hostile image the library
# accepts fails the test, instead of being reported), HOSTILE_KEEP=DIR
# (copy every failing image there), HOSTILE_VERBOSE=1 (a line per run),
# RDSQUASHFS / SQFS2TAR / SQFSDIFF (other tools to test). Exit status (automake): 0 pass, 1 fail, 99 hard error.

set -u

: "${abs_top_builddir:=$PWD}"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
HERE=$abs_top_srcdir/tests/hostile
PYTHON=/usr/bin/python3
MKSQUASHFS=/usr/bin/mksquashfs
GNUTAR=/usr/bin/tar
READ_IMAGE=$abs_top_builddir/tests/hostile/read_image
TAR2SQFS=$abs_top_builddir/tar2sqfs
RDSQUASHFS=${RDSQUASHFS:-$abs_top_builddir/rdsquashfs}
SQFS2TAR=${SQFS2TAR:-$abs_top_builddir/sqfs2tar}
SQFSDIFF=${SQFSDIFF:-$abs_top_builddir/sqfsdiff}
MUTANTS=${HOSTILE_MUTANTS:-8}
SEED=${HOSTILE_SEED:-1}
TMO=${HOSTILE_TIMEOUT:-30}
STRICT=${HOSTILE_STRICT:-0}
KEEP=${HOSTILE_KEEP:-}
VERBOSE=${HOSTILE_VERBOSE:-}
# output of -c and sqfs2tar read before the pipe is closed (a 1 TiB
# sparse file is a fine thing to cat, but not to the end)
OUT_CAP=$((64 << 20))
# unpack everything the image stores that this user may set (no devices:
# a container may forbid them, and they say nothing about escapes)
UNPACK_OPTS="-q -D -T"
[ "$(id -u)" = 0 ] && UNPACK_OPTS="$UNPACK_OPTS -X -C -O"

unset SOURCE_DATE_EPOCH
export TZ=UTC LC_ALL=C
# every sanitizer finding is reported and ends the program; one
# allocation of more than 256 MiB counts as a finding too
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:max_allocation_size_mb=256:allocator_may_return_null=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"

hard_error() {
	echo "ERROR: hostile: $*" >&2
	exit 99
}

[ -x "$PYTHON" ] || {
	echo "SKIP: hostile: no $PYTHON"
	exit 77
}
[ -x "$READ_IMAGE" ] || hard_error "no $READ_IMAGE (make check builds it)"
HAVE_RD=0
HAVE_S2T=0
[ -x "$RDSQUASHFS" ] && HAVE_RD=1
[ -x "$SQFS2TAR" ] && HAVE_S2T=1
[ "$HAVE_RD" = 1 ] || echo "note: no $RDSQUASHFS: its part is skipped"
[ "$HAVE_S2T" = 1 ] || echo "note: no $SQFS2TAR: its part is skipped"
HAVE_SD=0
[ -x "$SQFSDIFF" ] && HAVE_SD=1
[ "$HAVE_SD" = 1 ] || echo "note: no $SQFSDIFF: its part is skipped"

W=$(mktemp -d "${TMPDIR:-/tmp}/hostile.XXXXXX") || hard_error "mktemp"
cleanup() {
	chmod -R u+rwx "$W" 2>/dev/null
	rm -rf "$W"
}
# shellcheck disable=SC2317
trap cleanup EXIT
trap 'exit 99' INT TERM HUP

OUTSIDE=$W/outside
mkdir -p "$OUTSIDE" "$W/seeds" "$W/img" "$W/run"
# names planted in /tmp before we start are not ours to report
TMP_PWN_BEFORE=$(cd /tmp && ls -d pwn* 2>/dev/null)

# ------------------------------------------------------------ images

"$PYTHON" "$HERE/mutate.py" seedtree "$W/tree" || hard_error "seedtree"
if [ -x "$MKSQUASHFS" ]; then
	mks() { # NAME OPTIONS...
		local name=$1
		shift
		"$MKSQUASHFS" "$W/tree" "$W/seeds/$name.sqfs" -b 4096 \
			-noappend -quiet -no-progress -processors 1 \
			-mkfs-time 1700000000 -all-time 1700000000 "$@" \
			>/dev/null 2>&1 || echo "note: mksquashfs $name failed"
	}
	mks mks-gzip -comp gzip
	mks mks-xz -comp xz -always-use-fragments
	mks mks-zstd -comp zstd -no-exports
	mks mks-lz4 -comp lz4 -Xhc
	mks mks-raw -comp gzip -noI -noD -noF -noX -noId
else
	echo "note: no $MKSQUASHFS: no seeds from it"
fi
if [ -x "$TAR2SQFS" ] && [ -x "$GNUTAR" ]; then
	"$GNUTAR" --xattrs --sparse --format=pax --sort=name \
		--owner=0 --group=0 --numeric-owner \
		--pax-option=delete=atime,delete=ctime -C "$W/tree" \
		-cf "$W/seed.tar" . 2>/dev/null ||
		hard_error "GNU tar cannot pack the seed tree"
	for c in gzip xz zstd; do
		"$TAR2SQFS" -q -b 4096 -c "$c" -e "$W/seeds/t2s-$c.sqfs" \
			<"$W/seed.tar" >/dev/null 2>&1 ||
			echo "note: tar2sqfs -c $c failed"
	done
fi
"$PYTHON" "$HERE/mutate.py" structured --out "$W/img" \
	--outside "$OUTSIDE" || hard_error "mutate.py structured failed"
cp "$W/img/s-valid_gzip.sqfs" "$W/img/s-valid_dir_index.sqfs" "$W/seeds/"
# Seeds with raw metadata take twice as many: there, mutations reach
# single inode and directory-entry fields instead of a compressed stream.
plain_seeds=
raw_seeds=
for f in "$W"/seeds/*.sqfs; do
	case $f in
	*/s-valid_* | */mks-raw.sqfs) raw_seeds="$raw_seeds $f" ;;
	*) plain_seeds="$plain_seeds $f" ;;
	esac
done
# shellcheck disable=SC2086
if ! "$PYTHON" "$HERE/mutate.py" mutants --seed "$SEED" \
	--count "$MUTANTS" --out "$W/img" $plain_seeds ||
	! "$PYTHON" "$HERE/mutate.py" mutants --seed "$SEED" \
		--count $((2 * MUTANTS)) --out "$W/img" $raw_seeds; then
	hard_error "mutate.py mutants failed"
fi
# the fixtures are tiny: fewer mutants each
"$PYTHON" "$HERE/mutate.py" mutants --seed "$SEED" \
	--count $(((MUTANTS + 2) / 3)) --out "$W/img" \
	"$abs_top_srcdir"/tests/fixtures/*.sqfs ||
	hard_error "mutate.py mutants (fixtures) failed"

# ------------------------------------------------------------ running

CASES=0
RUNS=0
ACCEPTED=0
REJECTED=0
SILENT=0
CRASHED=0
HUNG=0
ESCAPED=0
INCONSISTENT=0
LENIENT=0
FAILS=0
LIB_OK=0
LIB_REJ=0
FAILED_CASES=

fail() { # CASE WHAT
	FAILS=$((FAILS + 1))
	echo "FAIL: $1: $2"
	case " $FAILED_CASES " in
	*" $1 "*) ;;
	*)
		FAILED_CASES="$FAILED_CASES $1"
		if [ -n "$KEEP" ]; then
			mkdir -p "$KEEP" && cp "$W/img/$1" "$KEEP/"
		fi
		;;
	esac
}

# judge CASE WHAT STATUS STDERR-FILE [SIGPIPE-OK]: classify one run.
# Returns 0 if it was accepted, 1 if rejected, 2 if it failed.
judge() {
	local case=$1 what=$2 rc=$3 err=$4 pipe_ok=${5:-0}
	RUNS=$((RUNS + 1))
	[ -z "$VERBOSE" ] || echo "run: $case: $what: $rc: $(head -c 200 "$err" | tr '\n' ' ')"
	if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined|Leak)' "$err"; then
		CRASHED=$((CRASHED + 1))
		fail "$case" "$what: sanitizer report (status $rc):"
		head -n 25 "$err" | sed 's/^/    /'
		return 2
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		HUNG=$((HUNG + 1))
		fail "$case" "$what: no answer within ${TMO}s"
		return 2
	fi
	if [ "$rc" = 141 ] && [ "$pipe_ok" = 1 ]; then
		ACCEPTED=$((ACCEPTED + 1))
		return 0
	fi
	case $rc in
	0)
		ACCEPTED=$((ACCEPTED + 1))
		return 0
		;;
	1)
		REJECTED=$((REJECTED + 1))
		if [ ! -s "$err" ]; then
			SILENT=$((SILENT + 1))
			echo "note: $case: $what: exit 1 without a message"
		fi
		return 1
		;;
	esac
	CRASHED=$((CRASHED + 1))
	fail "$case" "$what: exit status $rc"
	head -n 10 "$err" | sed 's/^/    /'
	return 2
}

# check_escape CASE PARENT: nothing of an unpack outside its target
check_escape() {
	local case=$1 p=$2 bad=
	[ "$(ls -A "$p" | tr '\n' ' ')" = "canary target " ] ||
		bad="the target's parent holds: $(ls -A "$p" | tr '\n' ' ')"
	[ "$(cd "$p/canary" && find . | sort | tr '\n' ' ')" = ". ./keep " ] ||
		bad="$bad; the canary changed"
	[ "$(cat "$p/canary/keep" 2>/dev/null)" = "canary" ] ||
		bad="$bad; canary/keep changed"
	[ -z "$(ls -A "$OUTSIDE")" ] ||
		bad="$bad; outside holds: $(ls -A "$OUTSIDE" | tr '\n' ' ')"
	[ -z "$(ls -A "$W/run/cwd")" ] ||
		bad="$bad; the working directory holds: $(ls -A "$W/run/cwd")"
	local stray
	stray=$(find "$W" -name 'pwn*' -not -path "$p/target/*" \
		-not -path "$W/img/*" 2>/dev/null | head -5)
	[ -z "$stray" ] || bad="$bad; planted files outside: $stray"
	stray=$(cd /tmp && ls -d pwn* 2>/dev/null)
	[ "$stray" = "$TMP_PWN_BEFORE" ] || bad="$bad; new in /tmp: $stray"
	if [ -n "$bad" ]; then
		ESCAPED=$((ESCAPED + 1))
		fail "$case" "unpack wrote outside its target: $bad"
		rm -rf "${OUTSIDE:?}"/* "$W/run/cwd"/*
		find "$W" -name 'pwn*' -not -path "$W/img/*" -exec rm -rf {} + \
			2>/dev/null
	fi
}

# tool CASE WHAT STDERR PIPE_OK COMMAND...: run a tool in the empty
# working directory, output cut at OUT_CAP; sets RC
tool() {
	local case=$1 what=$2 err=$3 pipe_ok=$4
	shift 4
	(cd "$W/run/cwd" && timeout -k 5 "$TMO" "$@" 2>"$err" </dev/null |
		head -c "$OUT_CAP" >/dev/null
	exit "${PIPESTATUS[0]}")
	RC=$?
	judge "$case" "$what" "$RC" "$err" "$pipe_ok"
}

run_case() { # IMAGE-NAME EXPECT
	local case=$1 expect=$2 img="$W/img/$1" out="$W/run/paths"
	local err="$W/run/err" status rc r
	CASES=$((CASES + 1))

	timeout -k 5 "$TMO" "$READ_IMAGE" -p "$img" >"$out" 2>"$err" \
		</dev/null
	rc=$?
	if [ "$rc" = 3 ]; then
		INCONSISTENT=$((INCONSISTENT + 1))
		RUNS=$((RUNS + 1))
		fail "$case" "read_image: $(tail -n 1 "$out")"
	elif [ "$rc" = 2 ]; then
		hard_error "read_image cannot open $img: $(cat "$err")"
	else
		judge "$case" "read_image" "$rc" "$err"
		# it answers 0 for a rejection too: 1 is a finding
		[ "$?" = 1 ] && fail "$case" "read_image: exit status 1:" \
			"$(head -n 3 "$err")"
	fi
	status=$(tail -n 1 "$out")
	# read_image exits 0 either way: its status line tells
	if [ "$rc" = 0 ] && [ "${status#rejected}" != "$status" ]; then
		ACCEPTED=$((ACCEPTED - 1))
		REJECTED=$((REJECTED + 1))
	fi
	case $status in
	ok:*) LIB_OK=$((LIB_OK + 1)) ;;
	*) LIB_REJ=$((LIB_REJ + 1)) ;;
	esac
	case "$expect:$status" in
	accept:ok:* | libok:ok:* | any:* | reject:rejected* | reject:INC*) ;;
	accept:* | libok:*)
		fail "$case" "a valid image is refused: $status"
		;;
	reject:*)
		LENIENT=$((LENIENT + 1))
		if [ "$STRICT" = 1 ]; then
			fail "$case" "accepted, but must be refused"
		else
			echo "note: $case: the library accepts it: $status"
		fi
		;;
	esac

	if [ "$HAVE_RD" = 1 ]; then
		tool "$case" "rdsquashfs -l /" "$err" 0 "$RDSQUASHFS" -l / "$img"
		r=$?
		[ "$expect" = accept ] && [ "$r" = 1 ] &&
			fail "$case" "rdsquashfs -l / refuses a valid image:" \
				"$(head -n 3 "$err")"
		tool "$case" "rdsquashfs -d" "$err" 1 "$RDSQUASHFS" -d "$img"
		r=$?
		[ "$expect" = accept ] && [ "$r" = 1 ] &&
			fail "$case" "rdsquashfs -d refuses a valid image:" \
				"$(head -n 3 "$err")"
		# two files of each image, chosen by the walk, and the stat
		# and xattrs of the first
		local p n=0
		while IFS= read -r p; do
			n=$((n + 1))
			[ "$n" -le 2 ] || break
			tool "$case" "rdsquashfs -c /$p" "$err" 1 \
				"$RDSQUASHFS" -c "/$p" "$img"
			r=$?
			[ "$expect" = accept ] && [ "$r" = 1 ] &&
				fail "$case" "rdsquashfs -c /$p fails:" \
					"$(head -n 3 "$err")"
			[ "$n" = 1 ] || continue
			tool "$case" "rdsquashfs -s /$p" "$err" 0 \
				"$RDSQUASHFS" -s "/$p" "$img"
			tool "$case" "rdsquashfs -x /$p" "$err" 0 \
				"$RDSQUASHFS" -x "/$p" "$img"
		done < <(sed -n 's/^F //p' "$out")

		local parent="$W/run/parent"
		rm -rf "$parent"
		mkdir -p "$parent/target" "$parent/canary"
		echo canary >"$parent/canary/keep"
		# shellcheck disable=SC2086
		tool "$case" "rdsquashfs -u /" "$err" 0 \
			"$RDSQUASHFS" $UNPACK_OPTS -u / -p "$parent/target" "$img"
		r=$?
		[ "$expect" = accept ] && [ "$r" = 1 ] &&
			fail "$case" "rdsquashfs -u / fails on a valid image:" \
				"$(head -n 3 "$err")"
		check_escape "$case" "$parent"
		chmod -R u+rwx "$parent" 2>/dev/null
		rm -rf "$parent"
	fi
	if [ "$HAVE_S2T" = 1 ]; then
		tool "$case" "sqfs2tar" "$err" 1 "$SQFS2TAR" "$img"
		r=$?
		[ "$expect" = accept ] && [ "$r" = 1 ] &&
			fail "$case" "sqfs2tar fails on a valid image:" \
				"$(head -n 3 "$err")"
	fi
	if [ "$HAVE_SD" = 1 ]; then
		# the same bytes on both sides, read by two readers at once
		(cd "$W/run/cwd" && timeout -k 5 "$TMO" "$SQFSDIFF" -j 2 \
			-a "$img" -b "$img" >"$W/run/sd.out" 2>"$err" </dev/null)
		r=$?
		case $r in
		0) judge "$case" "sqfsdiff" 0 "$err" ;;
		2) judge "$case" "sqfsdiff" 1 "$err"
			grep -q '^equal\|^different' "$W/run/sd.out" &&
				fail "$case" "sqfsdiff: a verdict after an error" ;;
		1) judge "$case" "sqfsdiff" 1 "$err"
			fail "$case" "sqfsdiff: the image differs from itself:" \
				"$(head -n 3 "$W/run/sd.out")" ;;
		*) judge "$case" "sqfsdiff" "$r" "$err" ;;
		esac
		[ "$expect" = accept ] && [ "$r" != 0 ] &&
			fail "$case" "sqfsdiff refuses a valid image:" \
				"$(head -n 3 "$err")"
	fi
	return 0
}

mkdir -p "$W/run/cwd"
START=$(date +%s)
while read -r name expect _; do
	run_case "$name" "$expect"
done <"$W/img/manifest.txt"
SECS=$(($(date +%s) - START))

echo "hostile: $CASES cases (library: $LIB_OK read, $LIB_REJ rejected);" \
	"$RUNS runs: $ACCEPTED accepted, $REJECTED rejected" \
	"($SILENT silently), $CRASHED crashed, $HUNG hung," \
	"$ESCAPED escaped, $INCONSISTENT inconsistent; $LENIENT hostile" \
	"images the library reads; ${SECS}s"
[ "$HAVE_RD$HAVE_S2T$HAVE_SD" = 111 ] || echo "hostile: tools tested:" \
	"rdsquashfs=$HAVE_RD sqfs2tar=$HAVE_S2T sqfsdiff=$HAVE_SD"
if [ "$FAILS" -gt 0 ]; then
	echo "hostile: $FAILS failures in:$FAILED_CASES"
	exit 1
fi
exit 0

# SPDX-License-Identifier: MIT
# Common code of the tar2sqfs integration tests; sourced by each *.sh.
#
# The tool under test is $TAR2SQFS (default: the build tree's tar2sqfs).
# Images are read back by independent readers, called by absolute path:
# unsquashfs (squashfs-tools), rdsquashfs (squashfs-tools-ng) and, as root
# where a loop mount works, the kernel. The reference for what an archive
# holds is Python's tarfile (compare_tree.py tar:) and GNU tar's extraction.
#
# Exit status (automake): 0 pass, 1 fail, 77 skip, 99 hard error.

set -u

: "${abs_top_builddir:=$PWD}"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
TAR2SQFS=${TAR2SQFS:-$abs_top_builddir/tar2sqfs}
UNSQUASHFS=/usr/bin/unsquashfs
RDSQUASHFS=/usr/bin/rdsquashfs
MKSQUASHFS=/usr/bin/mksquashfs
GNUTAR=/usr/bin/tar
PYTHON=/usr/bin/python3
HERE=$abs_top_srcdir/tests/integration

# Nothing from the caller's environment may change the images.
unset SOURCE_DATE_EPOCH
export TZ=UTC LC_ALL=C

TEST_NAME=$(basename "$0" .sh)
FAILS=0
XFAILS=0
CHECKS=0
NEW_FEATURE=
MOUNTS=

skip_all() {
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}

hard_error() {
	echo "ERROR: $TEST_NAME: $*" >&2
	exit 99
}

for tool in "$UNSQUASHFS" "$RDSQUASHFS" "$GNUTAR" "$PYTHON"; do
	[ -x "$tool" ] || skip_all "$tool is not installed"
done
# make check builds the tool first: its absence is an error, not a skip
[ -x "$TAR2SQFS" ] || hard_error "no tool to test at $TAR2SQFS (set TAR2SQFS)"

# Debian's squashfs-tools-ng 1.2 stands in while ours is being written: it
# lacks what our tools add to its interface, so those checks only report,
# not fail. Its directories also count every entry in their link count,
# where Linux's rule is 2 + subdirectories (large_dirs.sh checks that).
STANDIN=0
NLINK_OPT=
if "$TAR2SQFS" --version 2>&1 | grep -q 'squashfs-tools-ng'; then
	STANDIN=1
	NLINK_OPT=--no-dir-nlink
	echo "note: $TAR2SQFS is squashfs-tools-ng (stand-in);" \
		"checks of new features are expected to differ"
fi

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/t2s-$TEST_NAME.XXXXXX") ||
	hard_error "mktemp failed"

cleanup() {
	local m
	for m in $MOUNTS; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	MOUNTS=
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 99' INT TERM HUP

# compare_tree.py (see there): compares two trees, or counts one's inodes
cmp_tree() { "$PYTHON" "$HERE/compare_tree.py" "$@"; }

# ------------------------------------------------------------ results

fail() {
	CHECKS=$((CHECKS + 1))
	if [ -n "$NEW_FEATURE" ] && [ "$STANDIN" = 1 ]; then
		XFAILS=$((XFAILS + 1))
		echo "XFAIL (stand-in lacks: $NEW_FEATURE): $*"
	else
		FAILS=$((FAILS + 1))
		echo "FAIL: $*"
	fi
}

pass() {
	CHECKS=$((CHECKS + 1))
	echo "ok: $*"
}

# check DESCRIPTION COMMAND...: pass if COMMAND succeeds, fail otherwise.
check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# expect_eq DESCRIPTION GOT EXPECTED
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: expected '$3', got '$2'"
	fi
}

# Checks between new_feature and end_feature exercise something our tools
# add to squashfs-tools-ng's interface; with the stand-in their failures
# are reported as XFAIL.
new_feature() { NEW_FEATURE=$1; }
end_feature() { NEW_FEATURE=; }

finish() {
	echo "$TEST_NAME: $CHECKS checks, $FAILS failed," \
		"$XFAILS expected differences of the stand-in"
	[ "$FAILS" = 0 ] || exit 1
	[ "$CHECKS" -gt 0 ] || exit 77
	exit 0
}

# ------------------------------------------------------------ the tool

# t2s IMAGE [OPTIONS...] < ARCHIVE: run the tool; its exit status is in RC,
# its output in $WORK/t2s.out and $WORK/t2s.err.
t2s() {
	local img=$1
	shift
	"$TAR2SQFS" "$@" "$img" >"$WORK/t2s.out" 2>"$WORK/t2s.err"
	RC=$?
	if [ "$RC" -ge 126 ]; then
		echo "tar2sqfs died (status $RC):"
		cat "$WORK/t2s.err"
	fi
	return 0
}

# gen CASE: make the archive of that case; prints its path.
gen() {
	local out="$WORK/$1.tar"
	[ -f "$out" ] || "$PYTHON" "$HERE/gen_tar.py" "$1" "$out" >&2 ||
		hard_error "gen_tar.py $1 failed"
	echo "$out"
}

# sb_field IMAGE LABEL: a value from `unsquashfs -s` ("Block size" ...).
sb_field() {
	"$UNSQUASHFS" -s "$1" 2>/dev/null | sed -n "s/^$2 \([^ ]*\).*/\1/p"
}

file_size() { stat -c %s "$1"; }
sum_of() { sha256sum "$1" 2>/dev/null | cut -d" " -f1; }

# ------------------------------------------------------------ mounting

MOUNT_OK=
MOUNT_WHY=

# can_mount: whether the kernel can loop-mount a squashfs image here
# (root, loop devices, the squashfs driver), probed once with an image
# from mksquashfs so that a failure later is the image's fault.
can_mount() {
	if [ -z "$MOUNT_OK" ]; then
		MOUNT_OK=0
		if [ "$IS_ROOT" != 1 ]; then
			MOUNT_WHY="not root"
		elif [ ! -e /dev/loop-control ] && [ ! -e /dev/loop0 ]; then
			MOUNT_WHY="no loop devices"
		elif [ ! -x "$MKSQUASHFS" ]; then
			MOUNT_WHY="no mksquashfs for the probe"
		else
			mkdir -p "$WORK/probe/src" "$WORK/probe/mnt"
			echo probe >"$WORK/probe/src/f"
			if "$MKSQUASHFS" "$WORK/probe/src" "$WORK/probe/p.sqfs" \
				-quiet -no-progress -noappend >/dev/null 2>&1 &&
				mount_image "$WORK/probe/p.sqfs" \
					"$WORK/probe/mnt" 2>/dev/null; then
				MOUNT_OK=1
				umount_image "$WORK/probe/mnt"
			else
				MOUNT_WHY="mount -t squashfs -o loop,ro fails"
			fi
		fi
		[ "$MOUNT_OK" = 1 ] ||
			echo "note: kernel mount checks skipped: $MOUNT_WHY"
	fi
	[ "$MOUNT_OK" = 1 ]
}

mount_image() { # IMAGE DIR
	mkdir -p "$2"
	mount -t squashfs -o loop,ro "$1" "$2" || return 1
	MOUNTS="$2 $MOUNTS"
}

umount_image() { # DIR
	umount "$1" || umount -l "$1"
	MOUNTS=$(echo "$MOUNTS" | sed "s# $1 # #; s#^$1 ##")
}

# ------------------------------------------------------------ readers

# gnu_extract ARCHIVE DIR: what GNU tar makes of the archive (as root:
# owners, devices and all xattrs too).
gnu_extract() {
	rm -rf "$2"
	mkdir -p "$2"
	local opts="--numeric-owner --xattrs --xattrs-include=*"
	[ "$IS_ROOT" = 1 ] && opts="$opts --same-owner"
	# shellcheck disable=SC2086
	"$GNUTAR" -C "$2" -xpf "$1" $opts --warning=no-timestamp \
		--warning=no-unknown-keyword 2>"$WORK/gnutar.err"
}

# check_gnu NAME ARCHIVE MOUNTED SCRATCH: the mounted image against GNU
# tar's extraction of the archive into SCRATCH
check_gnu() {
	if gnu_extract "$2" "$4"; then
		check "$1: kernel mount matches GNU tar's extraction" \
			cmp_tree "dir:$4" "dir:$3" --ignore-implicit "$2" $NLINK_OPT
	else
		fail "$1: GNU tar cannot extract the archive:" \
			"$(cat "$WORK/gnutar.err")"
	fi
	rm -rf "$4"
}

# check_image NAME IMAGE ARCHIVE [compare_tree options...]
#
# Reads IMAGE with independent readers and compares each view with what
# ARCHIVE holds (Python tarfile's reading). READERS says which, of:
#   lls    unsquashfs -lln: names, types, modes, owners, sizes, targets
#   pf     unsquashfs -pf: exact times, hard links, every file's bytes
#   rd     rdsquashfs -u: a second implementation's reading (writes holes
#          as zeros: not for huge sparse files)
#   mount  the kernel (root, loop devices): everything, xattrs too
#   gnu    the mounted tree against GNU tar's own extraction (not for
#          archives GNU tar reads differently)
# `unsquashfs -s` (a valid superblock, the inode count) always runs.
ALL_READERS="lls pf rd mount gnu"
READERS=$ALL_READERS

want() { case " $READERS " in *" $1 "*) return 0 ;; esac; return 1; }
without() { READERS=$(echo " $READERS " | sed "s/ $1 / /;s/^ //;s/ \$//"); }

check_image() {
	local name=$1 img=$2 tar=$3 d="$WORK/chk-$1"
	shift 3
	rm -rf "$d"
	mkdir -p "$d"

	# superblock: a valid image, and as many inodes as the archive has
	local inodes expect_inodes
	if "$UNSQUASHFS" -s "$img" >"$d/super" 2>&1; then
		inodes=$(sed -n 's/^Number of inodes \([0-9]*\).*/\1/p' \
			"$d/super")
		expect_inodes=$(cmp_tree --count "tar:$tar" "$@" 2>&1)
		expect_eq "$name: unsquashfs -s: number of inodes" \
			"$inodes" "$expect_inodes"
	else
		fail "$name: unsquashfs -s rejects the image: $(cat "$d/super")"
		return
	fi

	# unsquashfs -lln: names, types, modes, owners, sizes, targets
	if ! want lls; then
		:
	elif "$UNSQUASHFS" -lln -UTC "$img" >"$d/lls" 2>"$d/lls.err"; then
		check "$name: unsquashfs -lln matches the archive" \
			cmp_tree "tar:$tar" "lls:$d/lls" --no-xattrs "$@"
	else
		fail "$name: unsquashfs -lln failed: $(cat "$d/lls.err")"
	fi

	# unsquashfs -pf: exact times, hard links and every file's bytes
	if want pf; then
		if "$UNSQUASHFS" -pf "$d/pf" "$img" >/dev/null 2>"$d/pf.err"; then
			check "$name: unsquashfs -pf matches the archive" \
				cmp_tree "tar:$tar" "pf:$d/pf" --no-xattrs "$@"
		else
			fail "$name: unsquashfs -pf failed: $(cat "$d/pf.err")"
		fi
		rm -f "$d/pf"
	fi

	# rdsquashfs unpack: a second implementation's reading of the
	# data, xattrs and attributes (it sets no root attributes and
	# makes no hard links)
	# (as a user: no owners, devices or xattrs, and no modes, which could
	# lock the files away from the comparison)
	local rdopts="-q -T" cmpopts="--ignore-root --no-hardlinks"
	if [ "$IS_ROOT" = 1 ]; then
		rdopts="$rdopts -C -O -X"
	else
		rdopts="$rdopts -D"
		cmpopts="$cmpopts --no-owner --no-devices --no-xattrs --no-mode"
	fi
	if want rd; then
		mkdir -p "$d/rd"
		# shellcheck disable=SC2086
		if "$RDSQUASHFS" $rdopts -u / -p "$d/rd" "$img" \
			>"$d/rd.out" 2>&1; then
			# shellcheck disable=SC2086
			check "$name: rdsquashfs unpack matches the archive" \
				cmp_tree "tar:$tar" "dir:$d/rd" $cmpopts "$@"
		else
			fail "$name: rdsquashfs -u failed: $(tail -3 "$d/rd.out")"
		fi
		rm -rf "$d/rd"
	fi

	# the kernel
	if want mount && can_mount; then
		if mount_image "$img" "$d/mnt" 2>"$d/mount.err"; then
			check "$name: kernel mount matches the archive" \
				cmp_tree "tar:$tar" "dir:$d/mnt" $NLINK_OPT "$@"
			want gnu && check_gnu "$name" "$tar" "$d/mnt" "$d/gnu"
			umount_image "$d/mnt"
		else
			fail "$name: the kernel refuses to mount the image:" \
				"$(cat "$d/mount.err")"
		fi
	fi
}

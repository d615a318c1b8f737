# SPDX-License-Identifier: MIT
# Common code of the sqfsmount tests; sourced after lib.sh.
#
# The daemon under test is $SQFSMOUNT (default: the build tree's
# sqfsmount); the compat commands are $SQUASHFUSE and $SQUASHFUSE_LL. The
# tests need root, /dev/fuse and fusermount3, and skip (77) without them.
# Every FUSE mount made here is on MOUNTS, which lib.sh's exit trap
# unmounts; daemons started in the foreground are on FG_PIDS, killed by
# the trap if still there.

SQFSMOUNT=${SQFSMOUNT:-$abs_top_builddir/sqfsmount}
SQUASHFUSE=${SQUASHFUSE:-$abs_top_builddir/squashfuse}
SQUASHFUSE_LL=${SQUASHFUSE_LL:-$abs_top_builddir/squashfuse_ll}
FUSERMOUNT=$(command -v fusermount3)

[ -x "$SQFSMOUNT" ] || hard_error "no sqfsmount at $SQFSMOUNT"
[ "$IS_ROOT" = 1 ] || skip_all "not root (the kernel mounts to compare with)"
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
[ -n "$FUSERMOUNT" ] || skip_all "no fusermount3"
command -v timeout >/dev/null || skip_all "no timeout(1)"

# A daemon run under a sanitizer reports on its stderr: the foreground
# ones keep it in a file, checked by fg_stop.
FG_PIDS=

mount_cleanup() {
	local p
	for p in $FG_PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	FG_PIDS=
	cleanup
}
trap mount_cleanup EXIT

# is_mounted DIR: whether DIR is a mount point now (without touching the
# file system served there, which may be hung)
is_mounted() {
	local d
	d=$(realpath -m "$1")
	awk -v d="$d" '$5 == d { found = 1 } END { exit !found }' \
		/proc/self/mountinfo
}

# fuse_type DIR: the file system type of the mount at DIR
fuse_type() {
	local d
	d=$(realpath -m "$1")
	awk -v d="$d" '$5 == d { for (i = 7; $i != "-"; i++); print $(i + 1) }' \
		/proc/self/mountinfo | tail -1
}

# wait_for COND SECONDS ARGS...: poll COND ARGS until it holds (10 tries a
# second), at most SECONDS; status of the last try
wait_for() {
	local cond=$1 n=$(($2 * 10))
	shift 2
	while [ "$n" -gt 0 ]; do
		"$cond" "$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	"$cond" "$@"
}
not_mounted() { ! is_mounted "$1"; }
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# fuse_mount TOOL IMAGE DIR [OPTIONS...]: mount in the background (the
# daemon's way) on DIR, which must exist; status in RC, messages in
# $WORK/fm.err
fuse_mount() {
	local tool=$1 img=$2 dir=$3
	shift 3
	timeout -k 5 60 "$tool" "$@" "$img" "$dir" >"$WORK/fm.out" \
		2>"$WORK/fm.err"
	RC=$?
	is_mounted "$dir" && MOUNTS="$dir $MOUNTS"
	return 0
}

# fuse_umount DIR: fusermount3 -u, the mount gone within 10 s
fuse_umount() {
	"$FUSERMOUNT" -u "$1" 2>/dev/null ||
		{ sleep 0.5 && "$FUSERMOUNT" -u "$1"; } ||
		umount -l "$1"
	wait_for not_mounted 10 "$1"
	MOUNTS=$(echo " $MOUNTS " | sed "s# $1 # #g")
}

# fg_start IMAGE DIR [OPTIONS...]: run sqfsmount -f in the background,
# its pid in FG_PID, its stderr in $WORK/fg.err; waits (20 s at most) for
# the mount, or for the daemon to end. Status 0 if mounted.
fg_start() {
	local img=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	"$SQFSMOUNT" -f "$@" "$img" "$dir" 2>"$WORK/fg.err" &
	FG_PID=$!
	FG_PIDS="$FG_PID $FG_PIDS"
	FG_DIR=$dir
	fg_ready() { is_mounted "$FG_DIR" || pid_gone "$FG_PID"; }
	wait_for fg_ready 20
	if is_mounted "$dir"; then
		MOUNTS="$dir $MOUNTS"
		return 0
	fi
	return 1
}

# fg_stop DIR: unmount a foreground daemon's mount; the daemon must exit
# with status 0 within 10 s (else it is killed). Status: the daemon's.
fg_stop() {
	local st
	is_mounted "$1" && fuse_umount "$1"
	if ! wait_for pid_gone 10 "$FG_PID"; then
		kill -9 "$FG_PID" 2>/dev/null
		wait "$FG_PID" 2>/dev/null
		FG_PIDS=$(echo " $FG_PIDS " | sed "s# $FG_PID # #")
		return 124
	fi
	wait "$FG_PID"
	st=$?
	FG_PIDS=$(echo " $FG_PIDS " | sed "s# $FG_PID # #")
	if grep -q 'Sanitizer\|runtime error' "$WORK/fg.err"; then
		echo "sanitizer report of the daemon:"
		head -40 "$WORK/fg.err"
		return 98
	fi
	return "$st"
}

# stat_list DIR: every entry's attributes as stat(1) sees them, by path
stat_list() {
	(cd "$1" && find . -exec stat -c '%n|%i|%h|%f|%u|%g|%s|%b|%t:%T|%X|%Y|%Z' {} + |
		LC_ALL=C sort)
}

#!/bin/sh
# SPDX-License-Identifier: MIT
# sqfsmount's options, each checked by its effect: offset=N (an image
# after a prefix), offset=auto (an AppImage), subdir=, uid=/gid=,
# allow_other (another user gets in, and meets the permissions),
# timeout= (unmounts when idle, not while a file is open), notify_pipe=
# ('s', and 'f' for a bad image) and --notify-fd, -f, -s, the cache
# options, SIGTERM and SIGINT (lazy unmount, the daemon exits 0),
# fusermount3 -u (the daemon exits). Failures (a bad image, a missing
# file, a mount point that is no directory, bad values, unknown options):
# a message naming the file and status 1, nothing mounted. The help
# against the man page.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_mount.sh"

can_mount || skip_all "no kernel mount to compare with ($MOUNT_WHY)"
ELF=/bin/true

mkdir -p "$WORK/src/d/e"
seq 1 200000 >"$WORK/src/d/seq"
printf 'hello\n' >"$WORK/src/hello"
printf 'secret\n' >"$WORK/src/secret"
chmod 0600 "$WORK/src/secret"
chmod 0644 "$WORK/src/hello"
ln -s d/seq "$WORK/src/link"
chown 1000:1000 "$WORK/src/d/seq"
"$MKSQUASHFS" "$WORK/src" "$WORK/plain.sqfs" -noappend -quiet -no-progress \
	-mkfs-time 0 -all-time 0 >/dev/null 2>&1 || hard_error "mksquashfs"
IMG=$WORK/plain.sqfs
K=$WORK/k
F=$WORK/f
mkdir -p "$F"
mount_image "$IMG" "$K" || hard_error "kernel mount"

# daemon_pid DIR: the pid of the daemon serving DIR (its command line
# names DIR)
daemon_pid() {
	local p
	for p in /proc/[0-9]*; do
		if { tr '\0' '\n' <"$p/cmdline"; } 2>/dev/null | grep -qxF "$1"; then
			basename "$p"
			return 0
		fi
	done
	return 1
}

# mounted_as NAME DIR REF: DIR is mounted and its tree is REF's
mounted_as() {
	if [ "$RC" = 0 ] && is_mounted "$2"; then
		check "$1: the tree" cmp_tree "dir:$3" "dir:$2"
	else
		fail "$1: status $RC, mounted: $(is_mounted "$2" && echo yes || echo no):" \
			"$(cat "$WORK/fm.err")"
	fi
}

# ------------------------------------------------------------ offsets

PREFIX=12345
head -c $PREFIX /dev/urandom >"$WORK/prefixed"
cat "$IMG" >>"$WORK/prefixed"
cat "$ELF" "$IMG" >"$WORK/appimage"

fuse_mount "$SQFSMOUNT" "$WORK/prefixed" "$F" -o offset=$PREFIX
mounted_as "offset=$PREFIX" "$F" "$K"
fuse_umount "$F"
fuse_mount "$SQFSMOUNT" "$WORK/appimage" "$F" -o offset=auto
mounted_as "offset=auto on an AppImage" "$F" "$K"
fuse_umount "$F"
fuse_mount "$SQFSMOUNT" "$WORK/prefixed" "$F" -o offset=auto,ro
mounted_as "offset=auto after a prefix" "$F" "$K"
fuse_umount "$F"

# ------------------------------------------------------------ subdir, owner

fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o subdir=d
mounted_as "subdir=d" "$F" "$K/d"
expect_eq "subdir=d: the root's inode is d's" "$(stat -c %i "$F")" \
	"$(stat -c %i "$K/d")"
fuse_umount "$F"
fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o subdir=/d/e/
mounted_as "subdir=/d/e/" "$F" "$K/d/e"
fuse_umount "$F"

fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o uid=4321 -o gid=8765
expect_eq "uid=,gid=: every entry's owner" \
	"$(find "$F" -printf '%U:%G\n' | sort -u)" "4321:8765"
check "uid=,gid=: the rest as the kernel's" \
	cmp_tree "dir:$K" "dir:$F" --no-owner
fuse_umount "$F"
fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o gid=7
expect_eq "gid= alone: owners kept" "$(stat -c %u:%g "$F/d/seq")" "1000:7"
fuse_umount "$F"

# ------------------------------------------------------------ other users

AS_NOBODY=
if command -v setpriv >/dev/null; then
	AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif command -v runuser >/dev/null; then
	AS_NOBODY="runuser -u nobody --"
fi
if [ -n "$AS_NOBODY" ]; then
	# nobody must reach the mount point
	chmod 0755 "$WORK"
	fuse_mount "$SQFSMOUNT" "$IMG" "$F"
	# shellcheck disable=SC2086
	$AS_NOBODY cat "$F/hello" >/dev/null 2>&1
	expect_eq "without allow_other: another user is kept out" "$?" 1
	fuse_umount "$F"
	fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o allow_other
	# shellcheck disable=SC2086
	expect_eq "allow_other: another user reads a 0644 file" \
		"$($AS_NOBODY cat "$F/hello" 2>&1)" hello
	# shellcheck disable=SC2086
	$AS_NOBODY cat "$F/secret" >"$WORK/nobody.out" 2>&1
	check "allow_other: a 0600 file stays closed to another user" \
		grep -q 'Permission denied' "$WORK/nobody.out"
	expect_eq "allow_other: root reads it" "$(cat "$F/secret")" secret
	fuse_umount "$F"
	# allow_root: root (the mounter here) gets in, others do not
	fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o allow_root
	mounted_as "allow_root" "$F" "$K"
	# shellcheck disable=SC2086
	$AS_NOBODY cat "$F/hello" >/dev/null 2>&1
	expect_eq "allow_root: another user is kept out" "$?" 1
	fuse_umount "$F"
	chmod 0700 "$WORK"
else
	echo "note: neither setpriv nor runuser: allow_other not checked"
fi

# ------------------------------------------------------------ -f, -s, caches

if fg_start "$IMG" "$F" -s; then
	check "-f -s: the tree" cmp_tree "dir:$K" "dir:$F"
	check "-f: the daemon runs while mounted" kill -0 "$FG_PID"
	fg_stop "$F"
	expect_eq "-f: exit status after fusermount3 -u" "$?" 0
else
	fail "-f -s: not mounted: $(cat "$WORK/fg.err")"
fi

fuse_mount "$SQFSMOUNT" "$IMG" "$F" \
	-o meta_cache=64K,data_cache=1K,read_ahead=0
mounted_as "tiny caches, no read-ahead" "$F" "$K"
fuse_umount "$F"
fuse_mount "$SQFSMOUNT" "$IMG" "$F" \
	-o meta_cache=1G -o data_cache=2G -o read_ahead=64 -o max_threads=4 \
	-o clone_fd -o max_idle_threads=1
mounted_as "big caches, 64 blocks ahead, clone_fd, 4 threads" "$F" "$K"
fuse_umount "$F"
# a mount option libfuse checks against init()'s answer
fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o max_read=65536,default_permissions
mounted_as "max_read=65536,default_permissions" "$F" "$K"
fuse_umount "$F"

# ------------------------------------------------------------ ending

# fusermount3 -u ends the daemon
fuse_mount "$SQFSMOUNT" "$IMG" "$F"
pid=$(daemon_pid "$F")
check "a daemon serves the mount" test -n "$pid"
fuse_umount "$F"
check "fusermount3 -u: unmounted" not_mounted "$F"
[ -n "$pid" ] && check "fusermount3 -u: the daemon exits" wait_for pid_gone 10 "$pid"

# SIGTERM to a daemon in the foreground: a file held open, so the
# unmount must be lazy; the daemon still goes, with status 0
if fg_start "$IMG" "$F"; then
	exec 3<"$F/hello"
	kill -TERM "$FG_PID"
	check "-f, SIGTERM: unmounted" wait_for not_mounted 10 "$F"
	check "-f, SIGTERM: the daemon exits" wait_for pid_gone 10 "$FG_PID"
	exec 3<&-
	fg_stop "$F"
	expect_eq "-f, SIGTERM: exit status" "$?" 0
else
	fail "-f, SIGTERM: not mounted: $(cat "$WORK/fg.err")"
fi
# SIGTERM and SIGINT to a daemon in the background (started in the
# foreground of this script: a command started with & ignores SIGINT,
# and libfuse leaves ignored signals alone)
for sig in TERM INT; do
	fuse_mount "$SQFSMOUNT" "$IMG" "$F"
	pid=$(daemon_pid "$F")
	if [ -n "$pid" ]; then
		exec 3<"$F/hello"
		kill -$sig "$pid"
		check "SIG$sig: unmounted" wait_for not_mounted 10 "$F"
		check "SIG$sig: the daemon exits" wait_for pid_gone 10 "$pid"
		exec 3<&-
	else
		fail "SIG$sig: no daemon found: status $RC $(cat "$WORK/fm.err")"
	fi
	is_mounted "$F" && fuse_umount "$F"
	MOUNTS=$(echo " $MOUNTS " | sed "s# $F # #g")
done

# timeout: idle mounts go, busy ones stay
fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o timeout=2
ls "$F" >/dev/null
check "timeout=2: unmounted when idle (within 8 s)" wait_for not_mounted 8 "$F"
fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o timeout=1
exec 3<"$F/hello"
sleep 4
check "timeout=1: still mounted with a file open after 4 s" is_mounted "$F"
exec 3<&-
check "timeout=1: unmounted once closed (within 6 s)" wait_for not_mounted 6 "$F"
is_mounted "$F" && fuse_umount "$F"
MOUNTS=$(echo " $MOUNTS " | sed "s# $F # #g")

# in the foreground, one thread: the daemon ends by itself, status 0
for threads in -s -o; do
	[ "$threads" = -o ] && threads="-o max_threads=4"
	# shellcheck disable=SC2086
	if fg_start "$IMG" "$F" -o timeout=1 $threads; then
		cat "$F/hello" >/dev/null
		check "-f -o timeout=1 $threads: the daemon ends (within 6 s)" \
			wait_for pid_gone 6 "$FG_PID"
		check "-f -o timeout=1 $threads: unmounted" not_mounted "$F"
		fg_stop "$F"
		expect_eq "-f -o timeout=1 $threads: exit status" "$?" 0
	else
		fail "-f -o timeout=1 $threads: not mounted: $(cat "$WORK/fg.err")"
	fi
	MOUNTS=$(echo " $MOUNTS " | sed "s# $F # #g")
done

# ------------------------------------------------------------ notify

mkfifo "$WORK/fifo"
# notify_read: read one byte of the pipe in the background into
# $WORK/got (a reader waiting before the mount)
notify_read() {
	rm -f "$WORK/got"
	timeout 20 dd if="$WORK/fifo" of="$WORK/got" bs=1 count=1 2>/dev/null &
	READER=$!
}
notify_read
fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o notify_pipe="$WORK/fifo"
wait "$READER"
expect_eq "notify_pipe: 's' once mounted" "$(cat "$WORK/got")" s
expect_eq "notify_pipe: mounted" "$RC:$(is_mounted "$F" && echo y)" 0:y
fuse_umount "$F"

# no reader yet: the command returns, the byte waits for the reader
(cd "$WORK" && fuse_mount "$SQFSMOUNT" "$IMG" "$F" -o notify_pipe=fifo)
MOUNTS="$F $MOUNTS"
expect_eq "notify_pipe (relative, no reader yet): status" \
	"$(is_mounted "$F" && echo mounted)" mounted
notify_read
wait "$READER"
expect_eq "notify_pipe: 's' for a reader who comes later" \
	"$(cat "$WORK/got")" s
fuse_umount "$F"

head -c 10000 /dev/urandom >"$WORK/bad.sqfs"
notify_read
fuse_mount "$SQFSMOUNT" "$WORK/bad.sqfs" "$F" -o notify_pipe="$WORK/fifo"
wait "$READER"
expect_eq "notify_pipe: 'f' for a bad image" "$(cat "$WORK/got")" f
expect_eq "notify_pipe: status for a bad image" "$RC" 1
# no reader yet: the command fails at once, the 'f' waits for the reader
fuse_mount "$SQFSMOUNT" "$WORK/bad.sqfs" "$F" -o notify_pipe="$WORK/fifo"
expect_eq "notify_pipe (no reader yet): status for a bad image" "$RC" 1
notify_read
wait "$READER"
expect_eq "notify_pipe: 'f' for a reader who comes later" \
	"$(cat "$WORK/got")" f

fuse_mount "$SQFSMOUNT" "$IMG" "$F" --notify-fd 3 3>"$WORK/fd.out"
expect_eq "--notify-fd: 's' once mounted" "$(cat "$WORK/fd.out")" s
fuse_umount "$F"
fuse_mount "$SQFSMOUNT" "$WORK/missing.sqfs" "$F" --notify-fd=3 3>"$WORK/fd.out"
expect_eq "--notify-fd: 'f' for a missing image" "$(cat "$WORK/fd.out")" f

# ------------------------------------------------------------ failures

# fails DESCRIPTION PATTERN ARGS...: status 1, the message, no mount
fails() {
	local what=$1 pattern=$2
	shift 2
	fuse_mount "$SQFSMOUNT" "$@"
	if [ "$RC" != 1 ]; then
		fail "$what: status $RC"
	elif ! grep -q -E -- "$pattern" "$WORK/fm.err"; then
		fail "$what: said '$(cat "$WORK/fm.err")'"
	else
		pass "$what"
	fi
	if is_mounted "$F"; then
		fail "$what: mounted all the same"
		fuse_umount "$F"
	fi
}
fails "a bad image" "^sqfsmount: $WORK/bad.sqfs: .*magic" "$WORK/bad.sqfs" "$F"
fails "a missing image" "^sqfsmount: $WORK/missing: No such file" \
	"$WORK/missing" "$F"
fails "a directory as the image" "^sqfsmount: $WORK/src: " "$WORK/src" "$F"
fails "a mount point that is a file" "^sqfsmount: $WORK/prefixed: not a directory" \
	"$IMG" "$WORK/prefixed"
fails "a missing mount point" "^sqfsmount: $WORK/nowhere: No such file" \
	"$IMG" "$WORK/nowhere"
fails "offset past the end" "offset 1073741824 is past the end" \
	"$IMG" "$F" -o offset=1G
fails "offset=auto finds nothing" "no SquashFS image found" \
	"$ELF" "$F" -o offset=auto
fails "no image at the offset" "at offset 100: .*magic" \
	"$WORK/prefixed" "$F" -o offset=100
fails "a bad offset" "offset: 'x1'" "$IMG" "$F" -o offset=x1
fails "subdir missing" "subdir nope" "$IMG" "$F" -o subdir=nope
fails "subdir a file" "subdir hello: .*not a directory" "$IMG" "$F" -o subdir=hello
fails "subdir with .." "subdir \.\./d" "$IMG" "$F" -o subdir=../d
fails "a bad uid" "uid: '-1'" "$IMG" "$F" -o uid=-1
fails "a bad cache size" "data_cache: '12Q'" "$IMG" "$F" -o data_cache=12Q
fails "a bad timeout" "timeout: 'soon'" "$IMG" "$F" -o timeout=soon
fails "an unknown option" "unknown option" "$IMG" "$F" -o frobnicate
fails "a bad notify fd" "notify-fd: '77'" "$IMG" "$F" --notify-fd 77
fails "notify_pipe not a pipe" "notify_pipe: .*not a named pipe" \
	"$IMG" "$F" -o notify_pipe="$IMG"
fails "three arguments" "unexpected argument" "$IMG" "$F" "$F"
"$SQFSMOUNT" >"$WORK/fm.out" 2>"$WORK/fm.err"
expect_eq "no arguments: status" "$?" 1
check "no arguments: says so" grep -q "no image given" "$WORK/fm.err"

umount_image "$K"

# ------------------------------------------------------------ help

"$SQFSMOUNT" --help >"$WORK/help" 2>&1
expect_eq "--help: status" "$?" 0
"$SQFSMOUNT" -V >"$WORK/version" 2>&1
expect_eq "-V: status" "$?" 0
check "-V: names squashforge" grep -q '^sqfsmount (squashforge) ' "$WORK/version"
# every -o option and long option of the help is in the man page and
# the other way round
opts_of() { grep -oE -- '-o [a-z_]+|--[a-z-]+|(^| )-[a-zA-Z],' "$1" | sed 's/,$//; s/^ //' | sort -u; }
opts_of "$WORK/help" >"$WORK/help.opts"
sed 's/\\-/-/g; s/\\f[BIR]//g' "$abs_top_srcdir/doc/sqfsmount.1" |
	sed '/^\.SH EXAMPLES/,/^\.SH/d' >"$WORK/man.txt"
opts_of "$WORK/man.txt" >"$WORK/man.opts"
expect_eq "options in --help, not in the man page" \
	"$(comm -23 "$WORK/help.opts" "$WORK/man.opts" | xargs)" ""
expect_eq "options in the man page, not in --help" \
	"$(comm -13 "$WORK/help.opts" "$WORK/man.opts" | xargs)" ""

finish

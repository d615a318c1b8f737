#!/bin/sh
# SPDX-License-Identifier: MIT
# The compat commands squashfuse and squashfuse_ll: squashfuse 0.6.2's
# options (offset, subdir, notify_pipe, timeout, uid, gid, -f, -s, -d,
# allow_other, clone_fd, max_threads), each checked by its effect against
# the kernel's mount and, where squashfuse 0.6.2 is at hand
# ($SQFS_REF_BIN), against squashfuse's own mount with the same command
# line; the help in squashfuse's layout with every option squashfuse's
# names, a version line saying whose it is.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_mount.sh"

can_mount || skip_all "no kernel mount to compare with ($MOUNT_WHY)"
for t in "$SQUASHFUSE" "$SQUASHFUSE_LL"; do
	[ -x "$t" ] || hard_error "no compat command at $t"
done
REF=
for d in "${SQFS_REF_BIN:-}" "$abs_top_builddir/_ref/bin"; do
	if [ -n "$d" ] && [ -x "$d/squashfuse_ll" ] && [ -x "$d/squashfuse" ]; then
		REF=$d
		break
	fi
done
[ -n "$REF" ] || echo "note: no squashfuse 0.6.2 (SQFS_REF_BIN): not compared with it"

mkdir -p "$WORK/src/d/e" "$WORK/f" "$WORK/r"
seq 1 100000 >"$WORK/src/d/seq"
printf 'hello\n' >"$WORK/src/hello"
ln -s d/seq "$WORK/src/link"
ln "$WORK/src/hello" "$WORK/src/d/hard"
chown 1000:1000 "$WORK/src/d/seq"
setfattr -n user.compat -v yes "$WORK/src/hello" 2>/dev/null
"$MKSQUASHFS" "$WORK/src" "$WORK/plain.sqfs" -noappend -quiet -no-progress \
	-comp gzip >/dev/null 2>&1 || hard_error "mksquashfs"
IMG=$WORK/plain.sqfs
PREFIX=4096
head -c $PREFIX /dev/urandom >"$WORK/prefixed"
cat "$IMG" >>"$WORK/prefixed"
K=$WORK/k
F=$WORK/f
R=$WORK/r
mount_image "$IMG" "$K" || hard_error "kernel mount"

# same NAME TOOL IMAGE REFDIR [OPTIONS...]: TOOL mounts IMAGE with
# OPTIONS; the tree is REFDIR's (the kernel's), and squashfuse 0.6.2's
# mount with the same options shows the same
same() {
	local name=$1 tool=$2 img=$3 ref=$4 base
	shift 4
	base=$(basename "$tool")
	fuse_mount "$tool" "$img" "$F" "$@"
	if [ "$RC" != 0 ] || ! is_mounted "$F"; then
		fail "$name: $base $*: status $RC: $(cat "$WORK/fm.err")"
		return
	fi
	expect_eq "$name: the type is fuse.$base" "$(fuse_type "$F")" "fuse.$base"
	check "$name: the tree is the kernel's" cmp_tree "dir:$ref" "dir:$F" \
		$CMP_EXTRA
	if [ -n "$REF" ]; then
		fuse_mount "$REF/$base" "$img" "$R" "$@"
		if [ "$RC" = 0 ] && is_mounted "$R"; then
			# squashfuse's high-level interface numbers inodes
			# itself: hard links are not one inode there
			local nolinks=
			[ "$base" = squashfuse ] && nolinks=--no-hardlinks
			check "$name: the tree is squashfuse 0.6.2's" \
				cmp_tree "dir:$R" "dir:$F" $nolinks
			fuse_umount "$R"
		else
			fail "$name: squashfuse 0.6.2 fails: $(cat "$WORK/fm.err")"
		fi
	fi
	fuse_umount "$F"
}

CMP_EXTRA=
for tool in "$SQUASHFUSE" "$SQUASHFUSE_LL"; do
	b=$(basename "$tool")
	same "$b" "$tool" "$IMG" "$K"
	same "$b -o offset=$PREFIX" "$tool" "$WORK/prefixed" "$K" \
		-o offset=$PREFIX
	same "$b -o subdir=d" "$tool" "$IMG" "$K/d" -o subdir=d
	same "$b -s -o clone_fd,max_threads=3" "$tool" "$IMG" "$K" -s \
		-o clone_fd,max_threads=3
done
CMP_EXTRA=--no-owner
same "squashfuse_ll -o uid=77,gid=88" "$SQUASHFUSE_LL" "$IMG" "$K" \
	-o uid=77,gid=88
CMP_EXTRA=
fuse_mount "$SQUASHFUSE_LL" "$IMG" "$F" -o uid=77 -o gid=88
expect_eq "squashfuse_ll -o uid=77 -o gid=88: owners" \
	"$(find "$F" -printf '%U:%G\n' | sort -u)" 77:88
fuse_umount "$F"

# -o timeout: gone when idle
fuse_mount "$SQUASHFUSE_LL" "$IMG" "$F" -o timeout=1
check "squashfuse_ll -o timeout=1: unmounted when idle (within 6 s)" \
	wait_for not_mounted 6 "$F"
MOUNTS=$(echo " $MOUNTS " | sed "s# $F # #g")

# -o notify_pipe, as runtimes use it: a reader waits, the command runs
mkfifo "$WORK/fifo"
for img in "$IMG" "$WORK/prefixed"; do
	rm -f "$WORK/got"
	timeout 20 dd if="$WORK/fifo" of="$WORK/got" bs=1 count=1 2>/dev/null &
	reader=$!
	fuse_mount "$SQUASHFUSE" "$img" "$F" -o notify_pipe="$WORK/fifo"
	wait "$reader"
	if [ "$img" = "$IMG" ]; then
		expect_eq "squashfuse -o notify_pipe: 's'" "$(cat "$WORK/got")" s
		fuse_umount "$F"
	else
		expect_eq "squashfuse -o notify_pipe: 'f' (no image at 0)" \
			"$(cat "$WORK/got")" f
		expect_eq "squashfuse: status for no image (squashfuse's 255)" \
			"$RC" 255
		check "squashfuse: says why, naming the file" \
			grep -q "^squashfuse: $WORK/prefixed: .*magic" "$WORK/fm.err"
	fi
done

# -f and -d: in the foreground, every request on stderr
"$SQUASHFUSE_LL" -d "$IMG" "$F" 2>"$WORK/debug.err" &
pid=$!
FG_PIDS="$pid $FG_PIDS"
wait_for is_mounted 10 "$F" && MOUNTS="$F $MOUNTS"
cat "$F/hello" >/dev/null
check "squashfuse_ll -d: in the foreground" kill -0 "$pid"
fuse_umount "$F"
wait_for pid_gone 10 "$pid"
wait "$pid"
expect_eq "squashfuse_ll -d: exit status after the unmount" "$?" 0
check "squashfuse_ll -d: the requests on stderr" \
	grep -q 'LOOKUP\|lookup\|unique' "$WORK/debug.err"

umount_image "$K"

# ------------------------------------------------------------ help

# squashfuse's exit statuses: 254 (squashfuse) or 2 (squashfuse_ll) for
# --help, -V and a command line without an image; help and version on
# stderr; the version's first line "squashfuse 0.6.2 (squashforge V)"
for tool in "$SQUASHFUSE" "$SQUASHFUSE_LL"; do
	b=$(basename "$tool")
	case $b in squashfuse) want=254 ;; *) want=2 ;; esac
	"$tool" --help >"$WORK/help.out" 2>"$WORK/help"
	expect_eq "$b --help: status (squashfuse's)" "$?" "$want"
	expect_eq "$b --help: nothing on stdout" "$(cat "$WORK/help.out")" ""
	"$tool" >/dev/null 2>&1
	expect_eq "$b without arguments: status (squashfuse's)" "$?" "$want"
	check "$b --help: squashfuse's usage line" \
		grep -qE "^Usage: ([^ ]*/)?(lt-)?$b \[options\] ARCHIVE MOUNTPOINT\$" \
		"$WORK/help"
	expect_eq "$b --help: the first line says whose it is" \
		"$(head -1 "$WORK/help" | sed 's/(squashforge [^)]*)/(squashforge V)/')" \
		"squashfuse 0.6.2 (squashforge V)"
	"$tool" -V >"$WORK/version" 2>&1
	expect_eq "$b -V: status (squashfuse's)" "$?" "$want"
	expect_eq "$b -V: the version in the second word, as squashfuse's" \
		"$(head -1 "$WORK/version" | cut -d' ' -f1,2)" "squashfuse 0.6.2"
	check "$b -V: names squashforge" grep -q '^squashfuse 0.6.2 (squashforge ' \
		"$WORK/version"
	if [ -n "$REF" ]; then
		# every option squashfuse 0.6.2 lists, ours lists
		"$REF/$b" --help 2>&1 | grep -oE -- '^ +-[a-zA-Z]|-o [a-z_]+|--[a-z]+' |
			tr -d ' ' | sort -u >"$WORK/ref.opts"
		grep -oE -- '^ +-[a-zA-Z]|-o [a-z_]+|--[a-z]+' "$WORK/help" |
			tr -d ' ' | sort -u >"$WORK/our.opts"
		expect_eq "$b --help: squashfuse 0.6.2's options, none missing" \
			"$(comm -23 "$WORK/ref.opts" "$WORK/our.opts" | xargs)" ""
	fi
done

finish

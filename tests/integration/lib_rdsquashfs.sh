# SPDX-License-Identifier: MIT
# Helpers of the rdsquashfs integration test; sourced after lib.sh.
#
# The tool under test is $RDSQ (default: the build tree's rdsquashfs);
# Debian's rdsquashfs ($RDSQUASHFS, from lib.sh) is the reference for
# output formats, mksquashfs and gensquashfs make the images.

RDSQ=${RDSQ:-$abs_top_builddir/rdsquashfs}
GENSQUASHFS=/usr/bin/gensquashfs
[ -x "$RDSQ" ] || hard_error "no tool to test at $RDSQ (set RDSQ)"
[ -x "$MKSQUASHFS" ] || skip_all "$MKSQUASHFS is not installed"

# rd ARGS...: run the tool under test; status in RC, output in
# $WORK/rd.out and $WORK/rd.err
rd() {
	"$RDSQ" "$@" >"$WORK/rd.out" 2>"$WORK/rd.err"
	RC=$?
	if [ "$RC" -ge 126 ]; then
		echo "rdsquashfs died (status $RC): $*"
		cat "$WORK/rd.err"
	fi
	# a sanitizer's report is a failure whatever the status
	if grep -q 'Sanitizer\|runtime error' "$WORK/rd.err"; then
		fail "rdsquashfs $*: sanitizer report"
		head -20 "$WORK/rd.err"
	fi
	return 0
}

# same_output WHAT ARGS...: the tool's stdout and exit status are those
# of Debian's rdsquashfs for the same arguments
same_output() {
	local what=$1 ref_rc
	shift
	"$RDSQUASHFS" "$@" >"$WORK/ref.out" 2>/dev/null
	ref_rc=$?
	rd "$@"
	if [ "$RC" = "$ref_rc" ] && cmp -s "$WORK/rd.out" "$WORK/ref.out"; then
		pass "$what"
	else
		fail "$what: differs from Debian's rdsquashfs (status $RC," \
			"expected $ref_rc):"
		diff "$WORK/ref.out" "$WORK/rd.out" | head -10
	fi
}

XATTRS_OK=0
HAS_DEVICES=0

# make_source DIR: a tree with what an image can hold: files of many
# sizes (block and fragment boundaries), sparse files, symlinks (one
# pointing outside, one dangling), hard links across directories, a FIFO,
# a socket, devices (root), user.* xattrs (where the file system takes
# them), odd names, a long name, a deep path; fixed times and modes.
make_source() {
	local d=$1 i p
	mkdir -p "$d/sub/inner" "$d/empty" "$d/only_dev" "$d/keep"
	printf 'hello\n' >"$d/hello.txt"
	: >"$d/zero"
	for i in 1 4095 4096 131071 131072 131073 300000; do
		head -c "$i" /dev/urandom >"$d/sub/rand_$i"
	done
	"$PYTHON" -c 'import sys
sys.stdout.write("".join("line %d of a compressible file\n" % i
                         for i in range(20000)))' >"$d/sub/text"
	# holes: in the middle, at the end, everywhere
	truncate -s 1M "$d/sparse_mid"
	printf 'x' | dd of="$d/sparse_mid" bs=1 seek=500000 conv=notrunc \
		2>/dev/null
	printf 'head' >"$d/sparse_end"
	truncate -s 600000 "$d/sparse_end"
	truncate -s 2M "$d/sparse_all"
	ln -s hello.txt "$d/link_rel"
	ln -s /etc/passwd "$d/link_abs"
	ln -s ../../nowhere "$d/sub/link_dangling"
	ln -s sub "$d/link_dir"
	ln "$d/sub/rand_4096" "$d/hard1"
	ln "$d/sub/rand_4096" "$d/sub/inner/hard2"
	mkfifo "$d/fifo"
	"$PYTHON" -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/sock"
	echo kept >"$d/keep/file"
	if [ "$IS_ROOT" = 1 ]; then
		mknod "$d/cdev" c 1 3 && mknod "$d/only_dev/bdev" b 7 42 &&
			HAS_DEVICES=1
		chown 1000:100 "$d/sub/rand_1"
		chown 65534:65534 "$d/sub/inner"
		chown -h 123:456 "$d/link_rel"
	fi
	printf 'odd\n' >"$d/with space"
	printf 'odd\n' >"$d/quo\"te"
	printf 'odd\n' >"$d/back\\slash"
	printf 'odd\n' >"$d/-dash"
	printf 'odd\n' >"$d/ünï cödé"
	p=$(printf 'n%.0s' $(seq 1 250))
	printf 'long\n' >"$d/$p"
	p=$d/deep
	for i in $(seq 1 40); do p=$p/d$i; done
	mkdir -p "$p"
	echo bottom >"$p/file"
	chmod 4755 "$d/sub/rand_1"
	chmod 1777 "$d/sub"
	chmod 0700 "$d/sub/inner"
	chmod 0600 "$d/hello.txt"
	chmod 0640 "$d/fifo"
	if setfattr -n user.probe -v 1 "$d/zero" 2>/dev/null; then
		XATTRS_OK=1
		setfattr -x user.probe "$d/zero"
		setfattr -n user.text -v "some text" "$d/hello.txt"
		setfattr -n user.bin -v 0x00ff01 "$d/hello.txt"
		setfattr -n user.dir -v yes "$d/sub"
		setfattr -n user.big -v "$(head -c 3000 /dev/zero | tr '\0' v)" \
			"$d/sub/text"
		[ "$IS_ROOT" = 1 ] && setfattr -n trusted.t -v root "$d/zero"
	fi
	# fixed times, files and directories and symlinks alike, so that
	# an unpack with -T can be compared exactly
	find "$d" -depth -exec touch -h -d @1600000000 {} +
	touch -d @1234567890 "$d/hello.txt"
	touch -h -d @1000000000 "$d/link_rel"
}

# mksq SRC IMAGE COMPRESSOR: an image from mksquashfs
mksq() {
	"$MKSQUASHFS" "$1" "$2" -comp "$3" -noappend -quiet -no-progress \
		>"$WORK/mksq.err" 2>&1
}

# mksquashfs's compressors (the list of its -help)
mksq_compressors() {
	"$MKSQUASHFS" -help 2>&1 |
		sed -n '/^Compressors available/,$s/^\t\([a-z0-9]*\)\( (default)\)\{0,1\}$/\1/p'
}


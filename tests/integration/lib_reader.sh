# SPDX-License-Identifier: MIT
# Common code of the reader tools' integration tests (sqfs2tar); sourced
# after lib.sh, whose results, WORK directory and readers it uses.
#
# The tool under test is $SQFS2TAR (default: the build tree's sqfs2tar).
# Reference images come from mksquashfs and gensquashfs; what the tool
# writes is extracted by GNU tar and, where installed, bsdtar
# (libarchive-tools), and compared with the source tree by
# compare_tree.py.

SQFS2TAR=${SQFS2TAR:-$abs_top_builddir/sqfs2tar}
GENSQUASHFS=/usr/bin/gensquashfs
BSDTAR=/usr/bin/bsdtar

[ -x "$SQFS2TAR" ] || hard_error "no tool to test at $SQFS2TAR (set SQFS2TAR)"

HAVE_BSDTAR=0
if [ -x "$BSDTAR" ]; then
	HAVE_BSDTAR=1
else
	echo "note: bsdtar checks skipped: $BSDTAR is not installed" \
		"(Debian: libarchive-tools)"
fi

# s2t OUT [OPTIONS...] IMAGE: run the tool with its output in OUT; its exit
# status is in RC, its messages in $WORK/s2t.err. A crash (a signal, or a
# sanitizer's report) is a failure of its own.
s2t() {
	local out=$1
	shift
	"$SQFS2TAR" "$@" >"$out" 2>"$WORK/s2t.err"
	RC=$?
	if [ "$RC" -ge 126 ] ||
		grep -q -E 'Sanitizer|runtime error' "$WORK/s2t.err"; then
		fail "sqfs2tar $* crashed (status $RC):" \
			"$(head -c 2000 "$WORK/s2t.err")"
		RC=crash
	fi
	return 0
}

# mksq SOURCE IMAGE [mksquashfs options...]: an image made by mksquashfs
mksq() {
	local src=$1 img=$2
	shift 2
	rm -f "$img"
	"$MKSQUASHFS" "$src" "$img" -noappend -quiet -no-progress "$@" \
		>"$WORK/mksq.out" 2>&1 ||
		hard_error "mksquashfs $* failed: $(tail -3 "$WORK/mksq.out")"
}

# bsd_extract ARCHIVE DIR: what bsdtar makes of the archive (as root:
# owners too; xattrs always). In a UTF-8 locale: in the C locale bsdtar
# refuses PAX names (UTF-8) with bytes outside ASCII.
BSD_LOCALE=C
if locale -a 2>/dev/null | grep -q -i -x 'C\.utf-\?8'; then
	BSD_LOCALE=C.UTF-8
fi
bsd_extract() {
	rm -rf "$2"
	mkdir -p "$2"
	LC_ALL=$BSD_LOCALE "$BSDTAR" -C "$2" -xpf "$1" --numeric-owner \
		--xattrs 2>"$WORK/bsdtar.err"
}

# allocated FILE: the bytes the file system holds for FILE
allocated() { echo $(($(stat -c %b "$1") * $(stat -c %B "$1"))); }

# make_src_tree DIR: the source tree of the reference images: files of
# every size class (empty, one block, multi-block, all zeros, sparse),
# odd modes, symlinks, hard links, a FIFO, long names and a deep path;
# as root also devices and wide owners; user.* xattrs where the file
# system takes them. Prints 1 if it has xattrs, 0 otherwise.
make_src_tree() {
	"$PYTHON" - "$1" <<'EOF'
import os
import random
import stat
import sys

top = sys.argv[1]
root = os.geteuid() == 0
rng = random.Random(4711)


def path(p):
    return os.path.join(top, p)


def put(p, data=b"", mode=0o644):
    os.makedirs(os.path.dirname(path(p)), exist_ok=True)
    with open(path(p), "wb") as f:
        f.write(data)
    os.chmod(path(p), mode)


def sparse(p, size, pieces):
    with open(path(p), "wb") as f:
        for off, data in pieces:
            f.seek(off)
            f.write(data)
        f.truncate(size)


os.makedirs(top)
put("small.txt", b"hello\n")
put("empty")
put("data/block", rng.randbytes(131072))
put("data/multi", rng.randbytes(300000))
put("data/text", b"".join(b"%d the quick brown fox\n" % i
                          for i in range(3000)), 0o444)
put("data/zeros", bytes(1 << 20))
put("data/zeros_short", bytes(200000))
sparse("data/sparse", (3 << 20) + 17,
       [(1 << 20, rng.randbytes(5000)), ((3 << 20) + 10, b"tail...")])
sparse("data/hole_head", 2 << 20, [((2 << 20) - 100, b"x" * 100)])
put("modes/suid", b"#!/bin/sh\n", 0o4755)
put("modes/sgid", b"x\n", 0o2711)
put("modes/private", b"secret\n", 0o600)
os.makedirs(path("modes/sticky"))
os.chmod(path("modes/sticky"), 0o1777)
put("modes/closed/f", b"in a closed directory\n")
os.chmod(path("modes/closed"), 0o700)
os.makedirs(path("links/sub"))
os.symlink("../small.txt", path("links/rel"))
os.symlink("/etc/passwd", path("links/abs"))
os.symlink("nowhere/at/all", path("links/dangling"))
os.symlink("t/" * 150 + "end", path("links/long_target"))
os.link(path("data/multi"), path("links/multi_hl"))
put("links/h1", b"three names\n")
os.link(path("links/h1"), path("links/sub/h2"))
os.link(path("links/h1"), path("links/sub/h3"))
put("names/" + "L" * 220, b"a long name\n")
put("names/" + "D" * 255 + "/" + "F" * 255, b"two long components\n")
put("names/with space", b"space\n")
put("names/\u00fcn\u00efc\u00f8d\u00e9", b"utf-8\n")
put("deep/" + "/".join("level%02d" % i for i in range(40)) + "/bottom",
    b"deep\n")
os.makedirs(path("special"))
os.mkfifo(path("special/fifo"), 0o640)
if root:
    os.mknod(path("special/cdev"), 0o620 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(path("special/bdev"), 0o660 | stat.S_IFBLK, os.makedev(8, 1))
    os.mknod(path("special/wide_dev"), 0o600 | stat.S_IFCHR,
             os.makedev(4095, 1048575))
    os.chown(path("small.txt"), 1000, 100)
    os.chown(path("modes"), 4000000, 3000000)
    os.lchown(path("links/rel"), 1000, 100)
    os.chown(path("links/h1"), 65534, 65534)

xattrs = 1
try:
    os.setxattr(path("small.txt"), "user.foo", b"bar")
    os.setxattr(path("data"), "user.bin", b"\x00\x01\xfe\xff")
    os.setxattr(path("links/h1"), "user.shared", b"on every name")
    os.setxattr(path("data/sparse"), "user.big", bytes(range(256)) * 8)
except OSError:
    xattrs = 0
    for p in ("small.txt", "data", "links/h1", "data/sparse"):
        for k in os.listxattr(path(p)):
            if k.startswith("user."):
                os.removexattr(path(p), k)

# distinct times, innermost first so that no later change touches them
t = 1600000000
for dirpath, dirs, files in os.walk(top, topdown=False):
    for n in sorted(files + dirs):
        t += 7
        os.utime(os.path.join(dirpath, n), (t, t), follow_symlinks=False)
os.utime(top, (t + 7, t + 7))
print(xattrs)
EOF
}

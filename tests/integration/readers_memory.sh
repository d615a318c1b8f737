#!/bin/sh
# SPDX-License-Identifier: MIT
# The readers read an image in memory that does not grow with it: each
# tool's peak RSS on an image of 100,000 entries (a directory of 50,000
# among them, hard links, symlinks) may exceed its peak on an image of
# 20,000 by far less than a reader that holds something per entry adds
# (the walker's 60 bytes per inode of old: 5 MB here; a listing kept to
# be printed: 8 MB). The daemon's after a find over its mount, between
# 70,000 and 300,000 entries (its map of every number seen, 8 bytes each,
# added 1.9 MB). Figures at 10^6 and 5 * 10^6 entries: doc/entries.md.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

RDSQ=${RDSQ:-$abs_top_builddir/rdsquashfs}
SQFS2TAR=${SQFS2TAR:-$abs_top_builddir/sqfs2tar}
SQFSDIFF=${SQFSDIFF:-$abs_top_builddir/sqfsdiff}
UNSQ=${UNSQ:-$abs_top_builddir/unsquashfs}
SQFSMOUNT=${SQFSMOUNT:-$abs_top_builddir/sqfsmount}
for t in "$RDSQ" "$SQFS2TAR" "$SQFSDIFF" "$UNSQ"; do
	[ -x "$t" ] || hard_error "no tool to test at $t"
done
# GNU time measures a child from a process of its own size; a child of
# Python or of a shell starts from their size, which hides the reader's
TIME=/usr/bin/time
[ -x "$TIME" ] || skip_all "no $TIME (Debian: the time package)"

# Under AddressSanitizer, freed memory is held back (quarantine, global
# and per thread) and would make every reader's RSS grow with what it
# ever allocated.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"

SMALL=20000
BIG=100000
# KiB the big image may add to a reader's peak (what grows is bounded:
# the read-ahead queue fills more of its budget on a bigger image)
SLACK=3072
# the daemon's images: both larger than its table of numbers (65,536)
MSMALL=70000
MBIG=300000
MSLACK=1024

# make_tar N: an archive of N entries on stdout: half in one directory,
# the rest in directories of 500; every 97th file a hard link to the one
# before it, every 50th entry a symlink. Headers are written by hand:
# tarfile would take as long as the rest of the test. Each file holds 288
# bytes, so that what a file stream keeps of fragment blocks and tails
# (4 MiB each: it fills them, and no more, as it reads) is full on both
# images: 20,000 entries make 5.6 MB of tails, 43 fragment blocks.
make_tar() {
	"$PYTHON" - "$1" <<'EOF'
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer

def hdr(name, typ, size=0, link=""):
    b = bytearray(512)
    b[0:len(name)] = name.encode()
    b[100:108] = b"0000755\0" if typ == "5" else b"0000644\0"
    b[108:116] = b"0001750\0"
    b[116:124] = b"0001750\0"
    b[124:136] = b"%011o\0" % size
    b[136:148] = b"%011o\0" % 1600000000
    b[156] = ord(typ)
    b[157:157 + len(link)] = link.encode()
    b[257:265] = b"ustar\x0000"
    b[148:156] = b" " * 8
    b[148:156] = b"%06o\0 " % sum(b)
    return bytes(b)

buf = []
def files(d, count, first):
    prev = None
    for i in range(count):
        k = first + i
        name = "%s/f%06d" % (d, i)
        if k % 50 == 49:
            buf.append(hdr(name, "2", link="f%06d" % max(i - 1, 0)))
        elif k % 97 == 96 and prev is not None:
            buf.append(hdr(name, "1", link=prev))
        else:
            data = b"%07d\n" % k * 36
            buf.append(hdr(name, "0", len(data)))
            buf.append(data + b"\0" * (512 - len(data)))
            prev = name
        if len(buf) > 4096:
            out.write(b"".join(buf))
            buf.clear()

big = n // 2
buf.append(hdr("big/", "5"))
files("big", big, 0)
done = big
d = 0
while done < n:
    count = min(500, n - done)
    buf.append(hdr("d%04d/" % d, "5"))
    files("d%04d" % d, count - 1, done)
    done += count
    d += 1
out.write(b"".join(buf) + b"\0" * 1024)
EOF
}

# rss CMD...: the command's peak RSS in KiB (its output dropped); its
# exit status in RC
rss() {
	"$TIME" -o "$WORK/rss" -f %M "$@" >/dev/null 2>"$WORK/rss.err"
	RC=$?
	KB=$(tail -1 "$WORK/rss")
}

for n in $SMALL $BIG; do
	make_tar $n | "$TAR2SQFS" -q -j 2 "$WORK/$n.sqfs" ||
		hard_error "tar2sqfs failed on $n entries"
	make_tar $n | "$TAR2SQFS" -q -j 2 -e "$WORK/$n-e.sqfs" ||
		hard_error "tar2sqfs -e failed on $n entries"
done

# run_on IMG CMD...: rss of CMD with IMG put in place of the word IMG in
# its arguments
run_on() {
	local img=$1 a
	shift
	for a in "$@"; do
		shift
		case $a in
		*IMG*) a=$(printf '%s' "$a" | sed "s#IMG#$img#g") ;;
		esac
		set -- "$@" "$a"
	done
	rss "$@"
}

# grows WHAT CMD...: CMD on both images; the big one may cost SLACK KiB
# more at peak
grows() {
	local what=$1 small= big= n
	shift
	for n in $SMALL $BIG; do
		run_on "$WORK/$n" "$@"
		rm -rf "$WORK/$n.unpacked"
		if [ "$RC" != 0 ]; then
			fail "$what: exit status $RC on $n entries: $(head -3 "$WORK/rss.err")"
			return
		fi
		[ "$n" = $SMALL ] && small=$KB || big=$KB
	done
	check "$what: peak $small KiB at $SMALL entries, $big KiB at $BIG" \
		test $((big - small)) -lt $SLACK
}

grows "rdsquashfs -l of the big directory" "$RDSQ" -l /big IMG.sqfs
grows "rdsquashfs -d" "$RDSQ" -d IMG.sqfs
grows "unsquashfs -ll" "$UNSQ" -ll IMG.sqfs
grows "unsquashfs -ll, export table" "$UNSQ" -ll IMG-e.sqfs
grows "sqfs2tar" "$SQFS2TAR" -j 2 IMG.sqfs
grows "sqfsdiff of an image and itself" "$SQFSDIFF" -a IMG.sqfs -b IMG-e.sqfs
grows "rdsquashfs -u" "$RDSQ" -q -j 2 -u / -p IMG.unpacked IMG.sqfs

# the daemon, after find and a listing of the big directory through the
# mount, with caches small enough to be full on either image
if [ "$IS_ROOT" = 1 ] && [ -c /dev/fuse ] && [ -x "$SQFSMOUNT" ] &&
	command -v fusermount3 >/dev/null; then
	small=
	big=
	mkdir -p "$WORK/mnt"
	for n in $MSMALL $MBIG; do
		make_tar $n | "$TAR2SQFS" -q -j 2 "$WORK/m$n.sqfs" ||
			hard_error "tar2sqfs failed on $n entries"
		# one thread: what libfuse's threads hold (their stacks,
		# arenas) varies from run to run and is not the library's
		"$TIME" -o "$WORK/rss" -f %M "$SQFSMOUNT" -f -s \
			-o meta_cache=1M,data_cache=1M "$WORK/m$n.sqfs" \
			"$WORK/mnt" 2>"$WORK/fg.err" &
		pid=$!
		i=0
		while ! mountpoint -q "$WORK/mnt" && [ $i -lt 200 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		MOUNTS="$WORK/mnt $MOUNTS"
		found=$(find "$WORK/mnt" | wc -l)
		listed=$(ls -f "$WORK/mnt/big" | wc -l)
		fusermount3 -u "$WORK/mnt"
		wait $pid
		RC=$?
		MOUNTS=
		# the entries, the big directory and the root
		expect_eq "sqfsmount: find sees every entry of $n" "$found" \
			$((n + 2))
		expect_eq "sqfsmount: the big directory of $n lists" \
			"$listed" $((n / 2 + 2))
		if [ "$RC" != 0 ]; then
			fail "sqfsmount: exit status $RC on $n entries"
		else
			[ "$n" = $MSMALL ] && small=$(tail -1 "$WORK/rss") ||
				big=$(tail -1 "$WORK/rss")
		fi
	done
	if [ -n "$small" ] && [ -n "$big" ]; then
		check "sqfsmount after find: peak $small KiB at $MSMALL entries, $big KiB at $MBIG" \
			test $((big - small)) -lt $MSLACK
	fi
fi

finish

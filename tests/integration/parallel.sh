#!/bin/sh
# SPDX-License-Identifier: MIT
# The thread pool of tar2sqfs: the same image, byte for byte, for every
# compressor, -j 1, 2, 3, 8 and small and large -Q backlogs, on archives
# with fragments, duplicates, sparse files and hard links; and a write
# failure in the middle of packing with many workers (a file size limit,
# and as root a full tmpfs) ends with an error, no hang and no file left.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

# Archives of lib.sh's generator, and one with enough blocks to keep
# eight workers busy: 4 KiB blocks, repeated files and tails.
ARCHIVES="$(gen mix) $(gen duplicates) $(gen sparse_gnu) $(gen hardlinks)"
DATA=$WORK/data.tar
"$PYTHON" - "$DATA" <<'EOF' || hard_error "making data.tar failed"
import io, random, sys, tarfile
rng = random.Random(5)
words = b"the quick brown fox jumps over a lazy dog while seven".split()
def text(n):
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words) + b" "
    return bytes(out[:n])
pool = text(1 << 20) + rng.randbytes(1 << 19)
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tar:
    for i in range(300):
        size = rng.choice([0, 1, 100, 999, 4095, 4096, 5000, 20000, 70001])
        off = rng.choice([0, 4096, 12288, 1 << 20]) if i % 3 else \
            rng.randrange(0, len(pool) - 70001)
        info = tarfile.TarInfo("d%d/f%03d" % (i % 7, i))
        info.size = size
        info.mtime = 1000000 + i
        tar.addfile(info, io.BytesIO(pool[off:off + size]))
EOF
ARCHIVES="$ARCHIVES $DATA"

COMPRESSORS=$("$TAR2SQFS" --help 2>&1 |
	sed -n '/^Compressors of this build/,/^$/s/^\t\([a-z0-9]*\).*/\1/p')
[ -n "$COMPRESSORS" ] || hard_error "no compressors in --help"

# -- the same bytes for every -j and -Q ------------------------------------
for tar in $ARCHIVES; do
	name=$(basename "$tar" .tar)
	for c in $COMPRESSORS; do
		ref=$WORK/ref.sqfs
		rm -f "$ref"
		t2s "$ref" -q -c "$c" -b 4096 -j 1 <"$tar"
		if [ "$RC" != 0 ]; then
			fail "$name $c -j 1: exit status $RC: $(cat "$WORK/t2s.err")"
			continue
		fi
		for run in "2 1" "2 200" "3 1" "3 200" "8 1" "8 200" "1 1"; do
			set -- $run
			img=$WORK/j$1q$2.sqfs
			rm -f "$img"
			t2s "$img" -q -c "$c" -b 4096 -j "$1" -Q "$2" <"$tar"
			if [ "$RC" != 0 ]; then
				fail "$name $c -j $1 -Q $2: exit status $RC"
				continue
			fi
			check "$name $c -j $1 -Q $2: same bytes as -j 1" \
				cmp -s "$ref" "$img"
			rm -f "$img"
		done
	done
done
# what was compared is a correct image
check_image data "$WORK/ref.sqfs" "$DATA"

# -- a write failure mid-way with many workers -----------------------------
what_left() { (cd "$1" && ls -A | tr '\n' ' '); }

# limited KBYTES COMMAND...: run with a file size limit; the signal is
# ignored so the write fails with EFBIG instead of killing the tool.
limited() {
	local kb=$1
	shift
	(
		ulimit -f "$kb" 2>/dev/null || exit 98
		trap '' XFSZ
		exec timeout 120 "$@"
	)
}

full=$(file_size "$WORK/ref.sqfs")
out=$WORK/limit
mkdir -p "$out"
for kb in 16 64 $((full / 2048)); do
	limited "$kb" "$TAR2SQFS" -q -c lz4 -b 4096 -j 8 -Q 64 \
		"$out/img.sqfs" <"$DATA" >"$WORK/lim.out" 2>"$WORK/lim.err"
	rc=$?
	[ "$rc" = 98 ] && skip_all "ulimit -f is not possible here"
	check "file size limit $kb KiB, -j 8: no hang" test "$rc" != 124
	expect_eq "file size limit $kb KiB, -j 8: exit status" "$rc" 1
	check "file size limit $kb KiB: the error is reported" \
		grep -qi "error\|too large" "$WORK/lim.err"
	expect_eq "file size limit $kb KiB: nothing left behind" \
		"$(what_left "$out")" ""
done

# A full file system (root only: a 256 KiB tmpfs).
if [ "$IS_ROOT" = 1 ] && mkdir -p "$WORK/tiny" &&
	mount -t tmpfs -o size=256k tmpfs "$WORK/tiny" 2>/dev/null; then
	MOUNTS="$WORK/tiny $MOUNTS"
	timeout 120 "$TAR2SQFS" -q -c gzip -b 4096 -j 8 "$WORK/tiny/img.sqfs" \
		<"$DATA" >"$WORK/full.out" 2>"$WORK/full.err"
	rc=$?
	check "full file system, -j 8: no hang" test "$rc" != 124
	expect_eq "full file system, -j 8: exit status" "$rc" 1
	check "full file system: the error names it" \
		grep -qi "space" "$WORK/full.err"
	expect_eq "full file system: nothing left behind" \
		"$(what_left "$WORK/tiny")" ""
	umount "$WORK/tiny"
	MOUNTS=$(echo " $MOUNTS " | sed "s| $WORK/tiny | |")
else
	echo "note: no tmpfs mount here; the file size limit stands in"
fi

finish

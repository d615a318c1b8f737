#!/bin/sh
# SPDX-License-Identifier: MIT
# Packing past the memory limit (doc/scale.md): with --mem 1M the entries'
# records and the index of file tails go to sorted runs in temporary files,
# and the image must be the same, byte for byte, as with everything in
# memory: every kind of entry, replacements, hard links bound and unbound,
# duplicates, for every compressor and several -j; through tar2sqfs,
# gensquashfs and the mksquashfs personality (-mem). A $TMPDIR that cannot
# take the files ends the run with words naming it, and no image (an
# existing one, with --force, untouched); nothing of the limit is needed
# while everything fits (the default limit needs no $TMPDIR for these).
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

GENSQ=${GENSQ:-$abs_top_builddir/gensquashfs}
MK=${MK:-$abs_top_builddir/mksquashfs}

# An archive of replacements: a small namespace written over and over (a
# file over a directory, a directory over a file, links to names replaced
# later, links whose target comes later), with hard links and duplicate
# contents, enough entries to cut many runs at 1M.
BIG=$WORK/churn.tar
"$PYTHON" - "$BIG" <<'EOF' || hard_error "making churn.tar failed"
import io, random, sys, tarfile
rng = random.Random(24)
T0 = 1600000000
def add(tar, info, data=b""):
    info.mtime = T0 + rng.randrange(1000)
    info.uid = rng.randrange(3)
    info.gid = rng.randrange(3)
    tar.addfile(info, io.BytesIO(data) if data else None)
contents = [bytes(rng.randrange(256) for _ in range(rng.randrange(9, 300)))
            for _ in range(400)]
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tar:
    files = []
    for i in range(30000):
        d = "d%02d/e%03d" % (rng.randrange(40), rng.randrange(200))
        name = "%s/n%03d" % (d, rng.randrange(60))
        r = rng.random()
        if r < 0.03:
            info = tarfile.TarInfo(d)
            info.type = tarfile.DIRTYPE
            info.mode = 0o700 + rng.randrange(0o100)
            add(tar, info)
        elif r < 0.05:
            # a file over what may be a directory
            info = tarfile.TarInfo(d)
            data = rng.choice(contents)
            info.size = len(data)
            add(tar, info, data)
        elif r < 0.08 and files:
            info = tarfile.TarInfo(name)
            info.type = tarfile.LNKTYPE
            info.linkname = rng.choice(files)
            add(tar, info)
        elif r < 0.09:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = "../x" * rng.randrange(1, 4)
            add(tar, info)
        else:
            info = tarfile.TarInfo(name)
            data = rng.choice(contents) if rng.random() < 0.3 else \
                bytes(rng.randrange(256) for _ in range(rng.randrange(300)))
            info.size = len(data)
            add(tar, info, data)
            files.append(name)
EOF

COMPRESSORS=$("$TAR2SQFS" --help 2>&1 |
	sed -n '/^Compressors of this build/,/^$/s/^\t\([a-z0-9]*\).*/\1/p')
[ -n "$COMPRESSORS" ] || hard_error "no compressors in --help"

# same_bytes WHAT ARCHIVE OPTIONS...: default and --mem 1M images equal
same_bytes() {
	local what=$1 tar=$2
	shift 2
	rm -f "$WORK/a.sqfs" "$WORK/b.sqfs"
	"$TAR2SQFS" -q "$@" -f "$WORK/a.sqfs" <"$tar" 2>"$WORK/a.err"
	local ra=$?
	"$TAR2SQFS" -q --mem 1M "$@" -f "$WORK/b.sqfs" <"$tar" 2>"$WORK/b.err"
	local rb=$?
	if [ "$ra" != "$rb" ]; then
		fail "$what: status $ra in memory, $rb spilled"
		cat "$WORK/a.err" "$WORK/b.err"
	elif [ "$ra" != 0 ] && [ "$ra" != 2 ]; then
		fail "$what: tar2sqfs failed ($ra)"
		cat "$WORK/a.err"
	elif ! cmp -s "$WORK/a.sqfs" "$WORK/b.sqfs"; then
		fail "$what: the image differs with --mem 1M"
	else
		pass "$what"
	fi
}

# -- every compressor, several -j, on the churn archive ---------------------
for c in $COMPRESSORS; do
	same_bytes "churn, $c, -j 2" "$BIG" -c "$c" -j 2
done
for j in 1 3; do
	same_bytes "churn, lz4, -j $j, exportable" "$BIG" -c lz4 -j "$j" -e
done

# -- the fixture archives: every kind of entry ------------------------------
for case in types mix hardlinks hardlink_forward xattrs dir20000 deep \
	duplicates duplicates_hardlink implicit names empty; do
	same_bytes "$case" "$(gen "$case")" -c gzip -j 2
done

# -- gensquashfs --mem and mksquashfs -mem ----------------------------------
TREE=$WORK/tree
mkdir -p "$TREE" && tar -C "$TREE" -xf "$BIG" 2>/dev/null
if [ -d "$TREE/d00" ]; then
	"$GENSQ" -q -c lz4 -D "$TREE" "$WORK/g1.sqfs" >/dev/null 2>&1
	"$GENSQ" -q -c lz4 --mem 1M -D "$TREE" "$WORK/g2.sqfs" >/dev/null 2>&1
	check "gensquashfs --mem 1M: the same image" \
		cmp -s "$WORK/g1.sqfs" "$WORK/g2.sqfs"
	SOURCE_DATE_EPOCH=1 "$MK" "$TREE" "$WORK/m1.sqfs" -noappend -quiet -comp lz4 \
		>/dev/null 2>&1
	SOURCE_DATE_EPOCH=1 "$MK" "$TREE" "$WORK/m2.sqfs" -noappend -quiet -comp lz4 -mem 16M \
		>/dev/null 2>&1
	check "mksquashfs -mem 16M: the same image" \
		cmp -s "$WORK/m1.sqfs" "$WORK/m2.sqfs"
	"$MK" "$TREE" "$WORK/m3.sqfs" -noappend -quiet -mem 10M \
		>/dev/null 2>"$WORK/m3.err"
	check "mksquashfs -mem 10M is refused, as by mksquashfs" \
		grep -q 'Insufficient memory' "$WORK/m3.err"
	check "mksquashfs -mem-default prints a number" \
		sh -c "'$MK' -mem-default | grep -qx '[0-9][0-9]*'"
else
	fail "extracting churn.tar for gensquashfs"
fi

# -- a $TMPDIR that cannot take the files -----------------------------------
SMALL=$(gen mix)
TMPDIR=/nonexistent-squashforge "$TAR2SQFS" -q -c lz4 -f "$WORK/t1.sqfs" \
	<"$SMALL" 2>"$WORK/t1.err"
check "what fits in memory needs no \$TMPDIR" test $? = 0

echo "an earlier image" >"$WORK/t2.sqfs"
TMPDIR=/nonexistent-squashforge "$TAR2SQFS" -q -c lz4 --mem 1M --force \
	-f "$WORK/t2.sqfs" <"$BIG" 2>"$WORK/t2.err"
check "no \$TMPDIR past the limit: exit status 1" test $? = 1
check "the words name the directory" \
	grep -q 'temporary file in /nonexistent-squashforge' "$WORK/t2.err"
check "the earlier image is untouched" \
	sh -c "echo 'an earlier image' | cmp -s - '$WORK/t2.sqfs'"
check "no temporary image is left" \
	sh -c "! ls -a '$WORK' | grep -q '^\.t2\.sqfs'"

if [ "$(id -u)" = 0 ]; then
	FULL=$WORK/full
	mkdir -p "$FULL"
	if mount -t tmpfs -o size=64k tmpfs "$FULL" 2>/dev/null; then
		TMPDIR=$FULL "$TAR2SQFS" -q -c lz4 --mem 1M -f "$WORK/t3.sqfs" \
			<"$BIG" 2>"$WORK/t3.err"
		rc=$?
		umount "$FULL"
		check "a full \$TMPDIR: exit status 1" test "$rc" = 1
		check "a full \$TMPDIR: the words say so" \
			grep -q "temporary file in $FULL.*No space left" \
			"$WORK/t3.err"
		check "a full \$TMPDIR: no image" test ! -e "$WORK/t3.sqfs"
	else
		fail "mounting a 64k tmpfs"
	fi
fi

finish

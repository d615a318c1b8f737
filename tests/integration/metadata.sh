#!/bin/sh
# SPDX-License-Identifier: MIT
# The inode and directory tables compressed on worker threads (the
# metadata pipeline, doc/metadata-pipeline.md). The images must be byte
# for byte those of one thread compressing the blocks in turn:
# - pinned: the sha256 of images made before the pipeline existed (by
#   the tools at commit ab47418, with one thread compressing the tables),
#   made again now at -j 2 and 3: many small directories (the longest
#   chains between the two tables), a directory of 20,000 entries (a
#   directory index), the tables raw (-noI) and gzip'd, exportable, and
#   an image appended to by the mksquashfs personality;
# - the same bytes at -j 1 (no workers) and -j 2, 3, for every
#   compressor, exportable or not;
# - the tables read back by unsquashfs, rdsquashfs and the kernel and
#   compared with the archive and GNU tar's extraction of it.
# TAR2SQFS, SQFSTAR and MK override the tools under test.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

SQFSTAR=${SQFSTAR:-$abs_top_builddir/sqfstar}
MK=${MK:-$abs_top_builddir/mksquashfs}
for t in "$SQFSTAR" "$MK"; do
	[ -x "$t" ] || hard_error "no tool to test at $t"
done

TINY=$(gen tinydirs)
BIG=$(gen dir20000)
LINKS=$(gen hardlinks)

COMPRESSORS=$("$TAR2SQFS" --help 2>&1 |
	sed -n '/^Compressors of this build/,/^$/s/^\t\([a-z0-9]*\).*/\1/p')
[ -n "$COMPRESSORS" ] || hard_error "no compressors in --help"
has_comp() { echo "$COMPRESSORS" | grep -qx "$1"; }

# sqfstar_raw OUT ARCHIVE JOBS [OPTIONS...]: nothing compressed at all
# (the pins do not depend on a codec library's version)
sqfstar_raw() {
	local out=$1 tar=$2 jobs=$3
	shift 3
	"$SQFSTAR" -noI -noD -noF -noX -mkfs-time 0 -root-time 0 \
		-processors "$jobs" -quiet -no-progress -force "$@" "$out" \
		<"$tar" >"$WORK/sq.out" 2>&1
}

# pinned NAME IMAGE SHA256
pinned() {
	expect_eq "$1: the bytes of the tools before the pipeline" \
		"$(sum_of "$2")" "$3"
}

# -- pinned images ----------------------------------------------------------
# Made by the tools of commit ab47418. The gzip'd ones assume zlib's
# deflate as Debian 12 has it (zlib 1.2.13); the raw ones depend on no
# library.
PIN_RAW_TINY=0ae1ba20320c97b3967293b6ea0bbd491eb95aa3942962d37323d8b7ccd0c439
PIN_RAW_BIG=8e80bdceb44a3a1d5274029790e4ae953d042f10b88c131970ade4f39a76ea61
PIN_GZ_TINY=bb5190a8fc690eef46d695472777c0bcdcbaab63d96f57653bb8e0f62ba02e6a
PIN_GZ_BIG=1aab60c529fb29dde04cd2f1d51185dbec6673fd3bea599d0768007330c921c0
PIN_APPEND=7120810cba14d2ff919d5b0f2c2fa3861e43afcd32b0b4a2fd686c655f61bf9d

for j in 2 3; do
	if sqfstar_raw "$WORK/raw-tiny.sqfs" "$TINY" $j -exports; then
		pinned "tinydirs raw -exports -processors $j" \
			"$WORK/raw-tiny.sqfs" $PIN_RAW_TINY
	else
		fail "sqfstar -noI tinydirs -processors $j: $(cat "$WORK/sq.out")"
	fi
	if sqfstar_raw "$WORK/raw-big.sqfs" "$BIG" $j; then
		pinned "dir20000 raw -processors $j" "$WORK/raw-big.sqfs" \
			$PIN_RAW_BIG
	else
		fail "sqfstar -noI dir20000 -processors $j: $(cat "$WORK/sq.out")"
	fi
done
# sqfstar's root is its own (mode 0777)
check_image "tinydirs raw tables" "$WORK/raw-tiny.sqfs" "$TINY" --ignore-root

if has_comp gzip; then
	for j in 2 3; do
		rm -f "$WORK/gz-tiny.sqfs" "$WORK/gz-big.sqfs"
		t2s "$WORK/gz-tiny.sqfs" -q -c gzip -e -j $j <"$TINY"
		pinned "tinydirs gzip -e -j $j" "$WORK/gz-tiny.sqfs" \
			$PIN_GZ_TINY
		t2s "$WORK/gz-big.sqfs" -q -c gzip -j $j <"$BIG"
		pinned "dir20000 gzip -j $j" "$WORK/gz-big.sqfs" $PIN_GZ_BIG
	done

	# appended to by the mksquashfs personality: a small tree with
	# hard links, a symlink, a fifo and a directory of 300 entries
	S=$WORK/appsrc
	mkdir -p "$S/a" "$S/b" "$S/e"
	printf 'file\n' >"$S/a/file"
	ln "$S/a/file" "$S/b/link"
	ln -s ../a/file "$S/b/sym"
	mkfifo "$S/e/fifo"
	: >"$S/e/empty"
	i=0
	while [ $i -lt 300 ]; do
		printf '%d\n' $i >"$S/e/f$i"
		i=$((i + 1))
	done
	chmod -R u=rwX,go=rX "$S"
	find "$S" -depth -exec touch -h -d @1600000000 {} +
	for j in 1 2 3; do
		cp "$WORK/gz-tiny.sqfs" "$WORK/app.sqfs"
		if "$MK" "$S" "$WORK/app.sqfs" -mkfs-time 0 -all-root \
			-no-xattrs -quiet -no-progress -processors $j \
			>"$WORK/mk.out" 2>&1; then
			pinned "appended by mksquashfs -processors $j" \
				"$WORK/app.sqfs" $PIN_APPEND
		else
			fail "mksquashfs append -processors $j: $(cat "$WORK/mk.out")"
		fi
	done
	"$UNSQUASHFS" -l "$WORK/app.sqfs" >"$WORK/app.l" 2>&1
	check "appended image: unsquashfs lists the old entries" \
		grep -qx "squashfs-root/t39/d59" "$WORK/app.l"
	check "appended image: unsquashfs lists the new entries" \
		grep -qx "squashfs-root/e/f299" "$WORK/app.l"
else
	echo "note: no gzip in this build; its pins are not checked"
fi

# -- the same bytes at every -j, for every compressor -------------------------
for tar in "$TINY" "$BIG" "$LINKS"; do
	name=$(basename "$tar" .tar)
	for c in $COMPRESSORS; do
		for e in "" -e; do
			ref=$WORK/ref.sqfs
			rm -f "$ref"
			t2s "$ref" -q -c "$c" $e -j 1 <"$tar"
			if [ "$RC" != 0 ]; then
				fail "$name $c $e -j 1: exit status $RC"
				continue
			fi
			for j in 2 3; do
				img=$WORK/j$j.sqfs
				rm -f "$img"
				t2s "$img" -q -c "$c" $e -j $j <"$tar"
				check "$name $c $e -j $j: same bytes as -j 1" \
					cmp -s "$ref" "$img"
			done
		done
	done
done

# -- the tables read back ---------------------------------------------------
# the last images made: compressed tables, exportable, -j 3
check_image "hardlinks -j 3" "$WORK/j3.sqfs" "$LINKS"
t2s "$WORK/tiny.sqfs" -q -e -j 3 <"$TINY"
check_image "tinydirs -j 3" "$WORK/tiny.sqfs" "$TINY"
t2s "$WORK/big.sqfs" -q -e -j 3 <"$BIG"
READERS="lls pf"
check_image "dir20000 -j 3" "$WORK/big.sqfs" "$BIG"
idx=$("$RDSQUASHFS" -s /d20k "$WORK/big.sqfs" 2>/dev/null |
	sed -n 's/^Directory index entries: *//p')
check "dir20000 -j 3: a directory index ($idx entries)" \
	test "${idx:-0}" -gt 1

finish

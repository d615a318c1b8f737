#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/identical-outputs.sh: a fingerprint of everything the tools make,
# to show that a change of their insides changed none of their outputs.
#
# Usage: scripts/identical-outputs.sh [-C CORPUS_DIR] BINDIR WORKDIR > OUT.tsv
#
# BINDIR holds the tools (tar2sqfs, sqfs2tar, gensquashfs, rdsquashfs,
# sqfsdiff): a build tree's top or an installed bin/. WORKDIR caches the
# inputs between runs (archives, extracted trees), so that two builds are
# fingerprinted on the very same trees: run it once with the old tools and
# once with the new ones on the same WORKDIR, then diff the two outputs.
#
# One line per output, "NAME<TAB>SHA-256" (or "NAME<TAB>exit N" for a run
# that failed), covering:
#  - tar2sqfs: every archive of tests/integration/gen_tar.py that is not a
#    damaged one, with each of the six compressors; the "mix" and "types"
#    archives with further options (block sizes, -T, -e, -k, -x, -r,
#    --all-root, -d); the damaged archives' images and exit statuses;
#  - sqfs2tar, rdsquashfs -d, rdsquashfs -u (a listing of the unpacked
#    tree with every file's hash) and sqfsdiff against the unpacked tree,
#    for each gzip image;
#  - gensquashfs --pack-dir (-k -x) on each archive extracted by GNU tar,
#    and gensquashfs -F on the rdsquashfs -d listing of each image, also
#    without its dir lines (every directory implicit);
#  - with -C, the corpus tarballs (small.tar, made by the shared
#    make-corpus.sh) through tar2sqfs with each compressor, and extracted
#    through gensquashfs.
# Needs root (owners and devices in the extracted trees), python3, GNU tar.
set -uo pipefail
export LC_ALL=C TZ=UTC
unset SOURCE_DATE_EPOCH

corpus=
if [ "${1:-}" = -C ]; then
	corpus=$2
	shift 2
fi
[ $# = 2 ] || { sed -n '3,30p' "$0" >&2; exit 2; }
bin=$(cd "$1" && pwd) || exit 2
# an installed bin/ finds its library beside it
[ -d "$bin/../lib" ] && export LD_LIBRARY_PATH="$bin/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work/tar" "$work/tree" "$work/out" || exit 2
out=$work/out
rm -rf "${out:?}"/*

COMPRESSORS="gzip xz lzma lz4 zstd lzo"

sum() { sha256sum "$1" | cut -d' ' -f1; }

# run NAME FILE CMD...: the command's output file fingerprinted as NAME
run() {
	local name=$1 file=$2
	shift 2
	rm -f "$file"
	"$@" >/dev/null 2>"$out/err"
	local rc=$?
	if [ $rc = 0 ] && [ -f "$file" ]; then
		printf '%s\t%s\n' "$name" "$(sum "$file")"
	else
		printf '%s\texit %s\n' "$name" "$rc"
	fi
}

# stdout NAME CMD...: the command's standard output and status
stdout() {
	local name=$1
	shift
	"$@" >"$out/stdout" 2>/dev/null
	local rc=$?
	printf '%s\t%s exit %s\n' "$name" "$(sum "$out/stdout")" "$rc"
}

# a tree's listing: type, mode, owner, size or target, mtime, contents
tree_listing() {
	(cd "$1" && find . -mindepth 1 -printf '%y %m %U:%G %s %T@ %P' \
		\( -type l -printf ' -> %l' -o -true \) \
		-printf '\n' |
		sed 's/\.[0-9]* / /' | awk '$1 == "d" { $4 = "-" } { print }' |
		sort &&
		find . \( -type b -o -type c \) -exec stat -c '%n %t:%T' {} + |
		sort &&
		find . -type f -print0 | sort -z | xargs -0r sha256sum)
}

cases=$(python3 "$top/tests/integration/gen_tar.py" --list)
for c in $cases; do
	[ -s "$work/tar/$c.tar" ] ||
		python3 "$top/tests/integration/gen_tar.py" "$c" "$work/tar/$c.tar" ||
		exit 2
done

for c in $cases; do
	t=$work/tar/$c.tar
	case $c in
	bad_*)
		run "tar2sqfs/$c" "$out/i.sqfs" "$bin/tar2sqfs" -q -j2 -c gzip \
			-i "$t" "$out/i.sqfs"
		run "tar2sqfs-s/$c" "$out/i.sqfs" "$bin/tar2sqfs" -q -s -c gzip \
			-i "$t" "$out/i.sqfs"
		continue
		;;
	esac
	for comp in $COMPRESSORS; do
		run "tar2sqfs/$c/$comp" "$out/$comp.sqfs" "$bin/tar2sqfs" -q \
			-j2 -c "$comp" -i "$t" "$out/$comp.sqfs"
	done
	img=$out/gzip.sqfs
	[ -f "$img" ] || continue
	stdout "sqfs2tar/$c" "$bin/sqfs2tar" -j2 "$img"
	stdout "sqfs2tar-L-X/$c" "$bin/sqfs2tar" -L -X "$img"
	stdout "rdsquashfs-d/$c" "$bin/rdsquashfs" -d "$img"
	stdout "rdsquashfs-l/$c" "$bin/rdsquashfs" -l / "$img"
	rm -rf "$out/un"
	mkdir "$out/un"
	"$bin/rdsquashfs" -q -j2 -C -O -T -X -u / -p "$out/un" "$img" \
		>/dev/null 2>&1
	tree_listing "$out/un" >"$out/un.list"
	printf '%s\t%s\n' "rdsquashfs-u/$c" "$(sum "$out/un.list")"
	stdout "sqfsdiff/$c" "$bin/sqfsdiff" -a "$img" -b "$out/un" -O
	"$bin/rdsquashfs" -d -p "$work/tree/$c" "$img" >"$out/$c.list" \
		2>/dev/null

	# the same archive as a tree on disk
	if [ ! -d "$work/tree/$c" ]; then
		mkdir -p "$work/tree/$c.tmp" &&
			tar --xattrs --xattrs-include='*' -C "$work/tree/$c.tmp" \
				-xf "$t" 2>/dev/null
		mv "$work/tree/$c.tmp" "$work/tree/$c"
	fi
	run "gensquashfs-D/$c" "$out/g.sqfs" "$bin/gensquashfs" -q -j2 -k -x \
		-c gzip -D "$work/tree/$c" "$out/g.sqfs"
	run "gensquashfs-D-plain/$c" "$out/g.sqfs" "$bin/gensquashfs" -q \
		-c xz -D "$work/tree/$c" "$out/g.sqfs"
	run "gensquashfs-F/$c" "$out/g.sqfs" "$bin/gensquashfs" -q -c zstd \
		-F "$out/$c.list" -D / "$out/g.sqfs"
	# the same without its dir lines: every directory, the root
	# included, implicit
	grep -v '^dir ' "$out/$c.list" >"$out/$c.nodirs"
	run "gensquashfs-F-nodirs/$c" "$out/g.sqfs" "$bin/gensquashfs" -q \
		-c gzip -d uid=3,gid=4,mode=0711,mtime=5 \
		-F "$out/$c.nodirs" -D / "$out/g.sqfs"
done

for c in mix types; do
	t=$work/tar/$c.tar
	i=0
	for opts in "-b 4096" "-b 1048576" "-T" "-e" "-k" "-x" \
		"-r usr" "--all-root" "-d uid=5,gid=6,mode=0700,mtime=77" \
		"-j1 -Q 1" "-j 7" "-P" "-B 8192" "-X level=1" "-s"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		run "tar2sqfs/$c/opt$i ($opts)" "$out/o.sqfs" "$bin/tar2sqfs" \
			-q -c gzip $opts -i "$t" "$out/o.sqfs"
	done
	for opts in "-d /usr" "-d usr -k" "-r top" "-r ." "-d usr -d etc"; do
		# shellcheck disable=SC2086
		stdout "sqfs2tar/$c ($opts)" "$bin/sqfs2tar" $opts "$out/gzip.sqfs"
	done
done

if [ -n "$corpus" ] && [ -s "$corpus/small.tar" ]; then
	for comp in $COMPRESSORS; do
		run "corpus/small/tar2sqfs/$comp" "$out/s.sqfs" "$bin/tar2sqfs" \
			-q -j2 -c "$comp" -i "$corpus/small.tar" "$out/s.sqfs"
	done
	if [ ! -d "$work/tree/corpus-small" ]; then
		mkdir -p "$work/tree/corpus-small.tmp" &&
			tar -C "$work/tree/corpus-small.tmp" -xf "$corpus/small.tar"
		mv "$work/tree/corpus-small.tmp" "$work/tree/corpus-small"
	fi
	run "corpus/small/gensquashfs" "$out/g.sqfs" "$bin/gensquashfs" -q -j2 \
		-k -x -D "$work/tree/corpus-small" "$out/g.sqfs"
	stdout "corpus/small/sqfs2tar" "$bin/sqfs2tar" "$out/s.sqfs"
fi
exit 0

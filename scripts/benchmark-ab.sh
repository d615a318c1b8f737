#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark-ab.sh: two builds of the tools, side by side, on the
# same inputs in the same run: did a change of their insides cost time
# or memory? Not part of make check.
#
# Usage: scripts/benchmark-ab.sh [-r RUNS] [-j JOBS] [--corpus DIR]
#                                [--trees DIR] [--out TSV] OLD_BIN NEW_BIN
#
# OLD_BIN and NEW_BIN hold the tools (a build tree's top or an installed
# bin/, whose lib/ beside it is used). Inputs: rootfs.tar and linux.tar of
# CORPUS_DIR (default /var/tmp/sqfs-corpus, made by the shared
# make-corpus.sh), extracted once into TREE_DIR (default /var/tmp/trees)
# as root, owners and xattrs kept. Workloads, each with gzip at -j JOBS
# (default 2), warm page cache, the median of RUNS (default 3) runs:
#   tar2sqfs    rootfs.tar to an image
#   gensquashfs the rootfs tree and the linux tree (-k -x)
#   sqfs2tar    the rootfs image to /dev/null
#   rdsquashfs  -u of the linux image (-X -T -C -O) into /dev/shm
#   sqfsdiff    two images of rootfs (gzip against zstd); the linux tree
#               against its image
# Prints per workload the wall time, the cores used ((user + sys) /
# wall) and the peak RSS of each build, and NEW/OLD ratios; the raw runs
# go to TSV (default benchmark-ab.tsv). Outputs are checked equal between
# the builds (images byte for byte, sqfsdiff's status 0).
set -euo pipefail
export LC_ALL=C TZ=UTC
unset SOURCE_DATE_EPOCH

runs=3 jobs=2 corpus=/var/tmp/sqfs-corpus trees=/var/tmp/trees
out=benchmark-ab.tsv
while [ $# -gt 2 ]; do
	case $1 in
	-r) runs=$2; shift ;;
	-j) jobs=$2; shift ;;
	--corpus) corpus=$2; shift ;;
	--trees) trees=$2; shift ;;
	--out) out=$2; shift ;;
	*) sed -n '3,25p' "$0" >&2; exit 2 ;;
	esac
	shift
done
[ $# = 2 ] || { sed -n '3,25p' "$0" >&2; exit 2; }
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
work=$(mktemp -d /var/tmp/bench-ab.XXXXXX)
shm=$(mktemp -d /dev/shm/bench-ab.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT

for t in rootfs linux; do
	if [ ! -d "$trees/$t" ]; then
		mkdir -p "$trees/$t.tmp"
		tar --xattrs --xattrs-include='*' -C "$trees/$t.tmp" \
			-xf "$corpus/$t.tar"
		mv "$trees/$t.tmp" "$trees/$t"
	fi
done

# env_of BIN: the library path an installed bin/ needs
env_of() {
	if [ -d "$1/../lib" ]; then
		echo "LD_LIBRARY_PATH=$1/../lib"
	else
		echo "LD_LIBRARY_PATH=$1/.libs"
	fi
}

# timed BIN TOOL ARGS...: "wall cores rss status" of one run
timed() {
	local bin=$1 tool=$2 f=$work/time
	shift 2
	sync
	env "$(env_of "$bin")" /usr/bin/time -f '%e %U %S %M' -o "$f" \
		"$bin/$tool" "$@" >/dev/null 2>"$work/err"
	local st=$?
	awk -v st=$st '{ c = $1 > 0 ? ($2 + $3) / $1 : 0;
		printf "%s %.2f %s %d\n", $1, c, $4, st }' "$f"
}

printf 'workload\tbuild\trun\twall_s\tcores\trss_kb\tstatus\n' >"$out"

# bench NAME PREP ARGS...: RUNS runs of each build, medians printed
bench() {
	local name=$1 prep=$2
	shift 2
	for b in old new; do
		local bin=$old
		[ $b = new ] && bin=$new
		for r in $(seq "$runs"); do
			eval "$prep"
			read -r w c m s < <(timed "$bin" "$@")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" $b "$r" \
				"$w" "$c" "$m" "$s" >>"$out"
		done
		# keep the last output of each build, to compare
		[ -e "$work/out.sqfs" ] && mv "$work/out.sqfs" "$work/$name.$b.sqfs"
	done
	awk -F'\t' -v n="$name" '$1 == n {
		w[$2] = w[$2] " " $4; c[$2] = c[$2] " " $5; m[$2] = m[$2] " " $6
		if ($7 != 0) bad = 1 }
	function med(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((k + 1) / 2)]
	}
	END {
		ow = med(w["old"]); nw = med(w["new"])
		om = med(m["old"]); nm = med(m["new"])
		tr = 0; mr = 0; note = ""
		if (ow > 0) tr = nw / ow
		if (om > 0) mr = nm / om
		if (bad) note = "  (a run failed)"
		printf "%-22s old %7.2f s %4.2f cores %7d KB | new %7.2f s %4.2f cores %7d KB | time %.3f rss %.3f%s\n", n, ow, med(c["old"]), om, nw, med(c["new"]), nm, tr, mr, note
	}' "$out"
}

X="-q -f -c gzip -j $jobs"
bench tar2sqfs-rootfs "" tar2sqfs $X -i "$corpus/rootfs.tar" "$work/out.sqfs"
bench gensquashfs-rootfs "" gensquashfs $X -k -x -D "$trees/rootfs" \
	"$work/out.sqfs"
bench gensquashfs-linux "" gensquashfs $X -k -x -D "$trees/linux" \
	"$work/out.sqfs"
for w in tar2sqfs-rootfs gensquashfs-rootfs gensquashfs-linux; do
	cmp -s "$work/$w.old.sqfs" "$work/$w.new.sqfs" ||
		echo "$w: the two builds' images differ"
done

# the inputs of the readers, made once with the new build
env "$(env_of "$new")" "$new/gensquashfs" -q -c gzip -j "$jobs" -k -x \
	-D "$trees/rootfs" "$work/rootfs-gz.sqfs"
env "$(env_of "$new")" "$new/gensquashfs" -q -c zstd -j "$jobs" -k -x \
	-D "$trees/rootfs" "$work/rootfs-zs.sqfs"
env "$(env_of "$new")" "$new/gensquashfs" -q -c gzip -j "$jobs" -k -x \
	-D "$trees/linux" "$work/linux-gz.sqfs"

bench sqfs2tar-rootfs "" sqfs2tar -j "$jobs" "$work/rootfs-gz.sqfs"
bench rdsquashfs-u-linux 'rm -rf "$shm/u"' rdsquashfs -q -j "$jobs" \
	-X -T -C -O -u / -p "$shm/u" "$work/linux-gz.sqfs"
bench sqfsdiff-2images "" sqfsdiff -j "$jobs" -a "$work/rootfs-gz.sqfs" \
	-b "$work/rootfs-zs.sqfs"
bench sqfsdiff-dir-image "" sqfsdiff -j "$jobs" -O -P -a "$trees/linux" \
	-b "$work/linux-gz.sqfs"

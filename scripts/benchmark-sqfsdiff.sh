#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark-sqfsdiff.sh: how long comparing two images takes next
# to unpacking one (issue 13: "about as long"), and next to Debian's
# sqfsdiff (squashfs-tools-ng), which compares two images only.
#
# Usage: scripts/benchmark-sqfsdiff.sh [OPTIONS]
#
# Per tree (extracted corpus tarballs in TREE_DIR, as
# scripts/benchmark-gensquashfs.sh leaves them), our gensquashfs makes two
# images of it, A with gzip and B with zstd, both 128 KiB blocks, times
# and xattrs kept, into the scratch directory (tmpfs by default, so
# that the disk does not time the tools). Then, warm (the images read
# once before), RUNS times each, median taken:
#   ours-diff    our sqfsdiff -a A -b B (both images unpacked, compared)
#   deb-diff     Debian's sqfsdiff -a A -b B
#   ours-dir     our sqfsdiff -a TREE -b A (the tree read from disk)
#   ours-unpack  our rdsquashfs -u / into scratch, from A
#   unsquashfs   unsquashfs -d into scratch, from A
# All with -j N (unsquashfs: -processors N). Wall time, CPU time and peak
# RSS per run go to OUT.tsv; OUT gets the medians, cores used (CPU over
# wall) and the ratios ours-diff / ours-unpack, / unsquashfs, / deb-diff.
#
# Options:
#  --build DIR      our build tree (default: _build)
#  -j N             threads (default: 2)
#  -r RUNS          runs per tool (default: 3)
#  -T LIST          trees (default: rootfs,linux)
#  --trees DIR      TREE_DIR (default: /var/tmp/trees)
#  --scratch DIR    images and unpacked trees (default: /dev/shm)
#  -o FILE          the report (default: benchmark-sqfsdiff.txt; the raw
#                   runs go to FILE without .txt, with .tsv)
set -u

die() { echo "benchmark-sqfsdiff: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

build=_build jobs=2 runs=3 trees="rootfs linux" treedir=/var/tmp/trees
scratch=/dev/shm out=benchmark-sqfsdiff.txt
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift ;;
	-j) jobs=$2; shift ;;
	-r) runs=$2; shift ;;
	-T) trees=$(echo "$2" | tr ',' ' '); shift ;;
	--trees) treedir=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	-o) out=$2; shift ;;
	-h | --help) awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; exit 0 ;;
	*) die "unknown option $1 (try --help)" ;;
	esac
	shift
done

libs=$build/.libs
for t in gensquashfs sqfsdiff rdsquashfs; do
	[ -x "$libs/$t" ] || die "no $libs/$t (build first)"
done
DEB_DIFF=/usr/bin/sqfsdiff
UNSQ=/usr/bin/unsquashfs
TIME=/usr/bin/time
for t in "$DEB_DIFF" "$UNSQ" "$TIME"; do
	[ -x "$t" ] || die "missing $t"
done
work=$(mktemp -d "$scratch/bench-sd.XXXXXX") || die "no scratch dir in $scratch"
trap 'rm -rf "$work"' EXIT
raw=${out%.txt}.tsv
printf 'tree\ttool\trun\twall\tusr\tsys\trss_kb\tstatus\n' >"$raw"

# ours TOOL: the command of our TOOL from the build tree (an array, so
# that GNU time runs it)
ours() { OURS=(env LD_LIBRARY_PATH="$libs" "$libs/$1"); }

run_one() { # TREE TOOL RUN
	local a=$work/$1-a.sqfs b=$work/$1-b.sqfs rc wall usr sys rss
	rm -rf "$work/out"
	case $2 in
	ours-diff) ours sqfsdiff; CMD=("${OURS[@]}" -j "$jobs" -a "$a" -b "$b") ;;
	deb-diff) CMD=("$DEB_DIFF" -a "$a" -b "$b") ;;
	ours-dir) ours sqfsdiff; CMD=("${OURS[@]}" -j "$jobs" -a "$treedir/$1" -b "$a") ;;
	ours-unpack) ours rdsquashfs; CMD=("${OURS[@]}" -q -j "$jobs" -u / -p "$work/out" "$a") ;;
	unsquashfs) CMD=("$UNSQ" -q -n -processors "$jobs" -d "$work/out" "$a") ;;
	esac
	local t0=${EPOCHREALTIME/./}
	"$TIME" -f '%U %S %M' -o "$work/time.out" "${CMD[@]}" >"$work/tool.out" 2>&1
	rc=$?
	local t1=${EPOCHREALTIME/./}
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
	read -r usr sys rss < <(tail -n 1 "$work/time.out")
	# a comparison of two images of one tree must say "equal" (0)
	if [ "$rc" != 0 ]; then
		log "status $rc: ${CMD[*]}"
		tail -3 "$work/tool.out" | sed 's/^/    /' >&2
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$wall" \
		"$usr" "$sys" "$rss" "$rc" >>"$raw"
	log "$1 $2 #$3: $wall s, $(awk -v u="$usr" -v s="$sys" -v w="$wall" 'BEGIN { printf "%.2f", (u + s) / w }') cores, $rss KB, status $rc"
}

tools="ours-diff deb-diff ours-dir ours-unpack unsquashfs"
for tree in $trees; do
	[ -e "$treedir/.$tree.complete" ] ||
		die "no tree $treedir/$tree (scripts/benchmark-gensquashfs.sh extracts it)"
	log "packing $tree"
	ours gensquashfs
	"${OURS[@]}" -q -k -x -f -j "$jobs" -c gzip -D "$treedir/$tree" "$work/$tree-a.sqfs" ||
		die "gensquashfs gzip failed"
	"${OURS[@]}" -q -k -x -f -j "$jobs" -c zstd -D "$treedir/$tree" "$work/$tree-b.sqfs" ||
		die "gensquashfs zstd failed"
	cat "$work/$tree-a.sqfs" "$work/$tree-b.sqfs" >/dev/null
	tar -C "$treedir" -cf - "$tree" | cat >/dev/null
	for r in $(seq 1 "$runs"); do
		for tool in $tools; do
			run_one "$tree" "$tool" "$r"
		done
	done
	ls -l "$work/$tree-a.sqfs" "$work/$tree-b.sqfs" | awk '{ print $5, $9 }' >>"$work/sizes"
done

{
	echo "sqfsdiff benchmark: $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, -j $jobs, warm, median of $runs"
	echo "ours: $build ($(git -C "$(dirname "$0")/.." log -1 --format=%h 2>/dev/null || echo '?')); Debian: $("$DEB_DIFF" --version 2>/dev/null | head -1)"
	echo "images (A gzip, B zstd; 128 KiB blocks; made by our gensquashfs):"
	sed "s#$work/##; s/^/  /" "$work/sizes"
	echo
	awk -F'\t' '
	NR == 1 { next }
	{
		k = $1 SUBSEP $2
		n[k]++; w[k, n[k]] = $4; c[k, n[k]] = ($5 + $6) / $4
		if ($7 > rss[k]) rss[k] = $7
		if ($8 != 0) bad[k] = $8
		if (!($1 in seen)) { seen[$1] = 1; order[++rows] = $1 }
	}
	function median(k, arr,    i, j, m, t, v) {
		m = n[k]
		for (i = 1; i <= m; i++) v[i] = arr[k, i]
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	END {
		split("ours-diff deb-diff ours-dir ours-unpack unsquashfs", tools, " ")
		printf "%-7s %-12s %8s %6s %9s %s\n", "tree", "tool", "wall s", "cores", "rss KB", "status"
		for (r = 1; r <= rows; r++) {
			for (t = 1; t <= 5; t++) {
				k = order[r] SUBSEP tools[t]
				if (!n[k]) continue
				m[tools[t]] = median(k, w)
				printf "%-7s %-12s %8.2f %6.2f %9d %s\n", order[r], tools[t],
				    m[tools[t]], median(k, c), rss[k], (k in bad) ? "FAILED " bad[k] : "ok"
			}
			printf "%-7s ours-diff / ours-unpack %.2f, / unsquashfs %.2f, / deb-diff %.2f; ours-dir / ours-unpack %.2f\n\n",
			    order[r], m["ours-diff"] / m["ours-unpack"], m["ours-diff"] / m["unsquashfs"],
			    m["ours-diff"] / m["deb-diff"], m["ours-dir"] / m["ours-unpack"]
		}
	}' "$raw"
} >"$out"
cat "$out"

#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark-gensquashfs.sh: times our gensquashfs against Debian's
# mksquashfs (squashfs-tools) and gensquashfs (squashfs-tools-ng) packing
# directory trees, with a warm and a cold page cache, and writes the
# results as ratios. (scripts/benchmark.sh does the same for the tar
# tools.)
#
# Usage: scripts/benchmark-gensquashfs.sh [OPTIONS]
#
# The trees are the corpus tarballs (rootfs.tar, linux.tar in CORPUS_DIR,
# made by the shared make-corpus.sh) extracted once into TREE_DIR, as root
# with owners, modes and xattrs. Every tool gets the same compressor,
# level (the defaults of all three, made explicit where a tool takes
# them), block size (128 KiB), number of threads, and keeps times and
# xattrs (mksquashfs does by default; the gensquashfs get -k -x).
# Fragments and tail packing are each tool's default (they agree).
#
# Per tree, compressor and cache state, the three tools run in turn, RUNS
# times (warm) or COLD_RUNS times (cold: sync and drop_caches before each
# run, root only). Wall time, CPU time (user + sys, GNU time) and peak RSS
# are kept per run in OUT.tsv; OUT gets the medians, ours / the faster
# reference for time, cores used ((user + sys) / wall), image sizes and
# RSS, and a met / not met line for each target of issue 12.
#
# Options (lists take spaces or commas):
#  --build DIR      our build tree (default: _build); its .libs/gensquashfs
#                   is run with LD_LIBRARY_PATH=DIR/.libs
#  -c LIST          compressors (default: gzip,xz,zstd)
#  -j N             threads for every tool (default: 2)
#  -r RUNS          warm runs per row, median taken (default: 3)
#  --cold-runs R    cold runs per row (default: 1; 0: none)
#  -T LIST          trees: names of corpus tarballs without .tar (default:
#                   rootfs,linux)
#  --corpus DIR     CORPUS_DIR (default: /var/tmp/sqfs-corpus)
#  --trees DIR      TREE_DIR (default: /var/tmp/trees)
#  --scratch DIR    where images go (default: /dev/shm: tmpfs, so that
#                   writing them costs no disk time)
#  -o FILE          the report (default: benchmark-gensquashfs.txt); the
#                   raw runs go to FILE.tsv
set -u

die() { echo "benchmark-gensquashfs: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
list() { echo "$1" | tr ',' ' ' | xargs; }

build=_build comps="gzip xz zstd" jobs=2 runs=3 cold_runs=1
trees="rootfs linux" corpus=/var/tmp/sqfs-corpus treedir=/var/tmp/trees
scratch=/dev/shm out=benchmark-gensquashfs.txt
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift ;;
	-c) comps=$(list "$2"); shift ;;
	-j) jobs=$2; shift ;;
	-r) runs=$2; shift ;;
	--cold-runs) cold_runs=$2; shift ;;
	-T) trees=$(list "$2"); shift ;;
	--corpus) corpus=$2; shift ;;
	--trees) treedir=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	-o) out=$2; shift ;;
	-h | --help) awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; exit 0 ;;
	*) die "unknown option $1 (try --help)" ;;
	esac
	shift
done

OURS=$build/.libs/gensquashfs
[ -x "$OURS" ] || OURS=$build/gensquashfs
[ -x "$OURS" ] || die "no gensquashfs in $build"
DEB_GS=/usr/bin/gensquashfs
MKSQ=/usr/bin/mksquashfs
TIME=/usr/bin/time
for t in "$DEB_GS" "$MKSQ" "$TIME"; do
	[ -x "$t" ] || die "missing $t (Debian's squashfs-tools-ng, squashfs-tools, time)"
done
if [ "$cold_runs" -gt 0 ] && ! { sync && echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
	log "cannot drop the page cache (not root?): no cold runs"
	cold_runs=0
fi
work=$(mktemp -d "$scratch/bench-gs.XXXXXX") || die "no scratch dir in $scratch"
trap 'rm -rf "$work"' EXIT
raw=$out.tsv
printf 'tree\tcomp\tcache\ttool\trun\twall\tusr\tsys\trss_kb\tbytes\n' >"$raw"

BS=131072
level_of() { case $1 in gzip) echo 9 ;; zstd) echo 15 ;; esac; }

set_cmd() { # TOOL TREE COMP IMAGE -> CMD
	local lv
	lv=$(level_of "$3")
	case $1 in
	ours | debian)
		if [ "$1" = ours ]; then
			CMD=(env LD_LIBRARY_PATH="$build/.libs" "$OURS")
		else
			CMD=("$DEB_GS")
		fi
		CMD+=(-q -k -x -f -D "$2" -c "$3" -j "$jobs" -b "$BS")
		[ -z "$lv" ] || CMD+=(-X "level=$lv")
		CMD+=("$4")
		;;
	mksquashfs)
		# 4.5.1's defaults are the levels above; it gets none, as
		# sqfstar of the same version refuses -X options with values
		CMD=("$MKSQ" "$2" "$4" -comp "$3" -b "$BS" -processors "$jobs"
			-noappend -quiet -no-progress)
		;;
	esac
}

tree_ready() { [ -d "$treedir/$1" ] && [ -e "$treedir/.$1.complete" ]; }

run_one() { # TREE COMP CACHE TOOL RUN
	local img=$work/img.sqfs wall usr sys rss rc
	set_cmd "$4" "$treedir/$1" "$2" "$img"
	rm -f "$img"
	if [ "$3" = cold ]; then
		sync
		echo 3 >/proc/sys/vm/drop_caches
	fi
	local t0=${EPOCHREALTIME/./}
	"$TIME" -f '%U %S %M' -o "$work/time.out" "${CMD[@]}" >"$work/tool.out" 2>&1
	rc=$?
	local t1=${EPOCHREALTIME/./}
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
	read -r usr sys rss < <(tail -n 1 "$work/time.out")
	if [ "$rc" != 0 ]; then
		log "FAILED ($rc): ${CMD[*]}"
		sed 's/^/    /' "$work/tool.out" | tail -5 >&2
		return
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
		"$5" "$wall" "$usr" "$sys" "$rss" "$(stat -c %s "$img")" >>"$raw"
	log "$1 $2 $3 $4 #$5: ${wall} s, $(awk -v u="$usr" -v s="$sys" -v w="$wall" 'BEGIN { printf "%.2f", (u + s) / w }') cores, ${rss} KB, $(stat -c %s "$img") bytes"
}

for tree in $trees; do
	if ! tree_ready "$tree"; then
		dir=$treedir/$tree
		[ -f "$corpus/$tree.tar" ] || die "no $corpus/$tree.tar (make it with the shared make-corpus.sh)"
		log "extracting $corpus/$tree.tar into $dir"
		rm -rf "$dir" && mkdir -p "$dir" || die "cannot make $dir"
		tar -C "$dir" --numeric-owner -p --xattrs --xattrs-include='*' \
			-xf "$corpus/$tree.tar" || die "extracting failed"
		touch "$treedir/.$tree.complete"
	fi
done

for tree in $trees; do
	for comp in $comps; do
		# warm: everything read once, untimed (through a pipe: GNU tar
		# skips reading file data when it writes to /dev/null)
		tar -C "$treedir" -cf - "$tree" | cat >/dev/null
		for r in $(seq 1 "$runs"); do
			for tool in ours debian mksquashfs; do
				run_one "$tree" "$comp" warm "$tool" "$r"
			done
		done
		for r in $(seq 1 "$cold_runs"); do
			for tool in ours debian mksquashfs; do
				run_one "$tree" "$comp" cold "$tool" "$r"
			done
		done
	done
done

# ---------------------------------------------------------------- report
{
	echo "gensquashfs benchmark: $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, -j $jobs"
	echo "ours: $OURS ($(git -C "$(dirname "$0")/.." log -1 --format=%h 2>/dev/null || echo '?'))"
	echo "references: $("$MKSQ" -version 2>/dev/null | head -1); $("$DEB_GS" --version 2>/dev/null | head -1)"
	echo "runs: warm $runs (median), cold $cold_runs (median); trees: $trees"
	echo
	awk -F'\t' -v jobs="$jobs" '
	NR == 1 { next }
	{
		k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
		n[k]++; w[k, n[k]] = $6; c[k, n[k]] = ($7 + $8) / $6
		if ($9 > rss[k]) rss[k] = $9
		size[k] = $10
		if (!($1 SUBSEP $2 SUBSEP $3 in seen)) {
			seen[$1 SUBSEP $2 SUBSEP $3] = 1
			order[++rows] = $1 SUBSEP $2 SUBSEP $3
		}
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
		printf "%-7s %-5s %-5s | %8s %8s %8s | %6s | %5s %5s %5s | %9s %9s %9s | %7s %7s | %7s %7s %7s | %6s\n",
		    "tree", "comp", "cache", "ours s", "deb-gs s", "mksq s", "/fast",
		    "c-our", "c-deb", "c-mks", "ours B", "deb-gs B", "mksq B",
		    "/deb", "/mksq", "rss-our", "rss-deb", "rss-mks", "/deb"
		for (r = 1; r <= rows; r++) {
			split(order[r], p, SUBSEP)
			o = order[r] SUBSEP "ours"; d = order[r] SUBSEP "debian"; m = order[r] SUBSEP "mksquashfs"
			if (!n[o] || !n[d] || !n[m]) { printf "%s %s %s: a tool failed\n", p[1], p[2], p[3]; continue }
			to = median(o, w); td = median(d, w); tm = median(m, w)
			fast = td < tm ? td : tm
			printf "%-7s %-5s %-5s | %8.2f %8.2f %8.2f | %6.3f | %5.2f %5.2f %5.2f | %9d %9d %9d | %7.4f %7.4f | %7.1f %7.1f %7.1f | %6.3f\n",
			    p[1], p[2], p[3], to, td, tm, to / fast,
			    median(o, c), median(d, c), median(m, c),
			    size[o], size[d], size[m], size[o] / size[d], size[o] / size[m],
			    rss[o] / 1024, rss[d] / 1024, rss[m] / 1024, rss[o] / rss[d]
			tt[r] = to / fast; ts[r] = size[o] / (size[d] < size[m] ? size[d] : size[m])
			tr[r] = rss[o] / rss[d]; comp[r] = p[2]; lab[r] = p[1] " " p[2] " " p[3]
		}
		print ""
		print "Targets of issue 12 (at -j " jobs "):"
		for (r = 1; r <= rows; r++) {
			if (!(r in tt)) continue
			printf "  %-18s time <= 0.8x the faster reference: %.3f %s; size <= +0.5%% of the smaller: %+.2f%% %s; RSS <= Debian gensquashfs: %.3f %s\n",
			    lab[r], tt[r], tt[r] <= 0.8 ? "met" : "NOT met",
			    (ts[r] - 1) * 100, ts[r] <= 1.005 ? "met" : "NOT met",
			    tr[r], tr[r] <= 1 ? "met" : "NOT met"
		}
	}' "$raw"
} >"$out"
cat "$out"

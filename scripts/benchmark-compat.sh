#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark-compat.sh: times the compat commands (our mksquashfs and
# unsquashfs personalities) against squashfs-tools 4.7.5 run the same way,
# and writes the results as ratios (issue 22's targets).
#
# Usage: scripts/benchmark-compat.sh [OPTIONS]
#
# mksquashfs rows: each tree packed by both with the same command line,
#   SRC IMG -noappend -comp C -b 128K -processors J -quiet -no-progress
# (each tool's defaults otherwise: exportable, no tail packing, xattrs).
# Trees: the corpus tarballs extracted into TREE_DIR (rootfs, linux), the
# many-files corpus (10^6 files of 1-16 bytes, scripts/make-many-files.sh)
# and "random": 64 files of 4 MiB from /dev/urandom (incompressible).
# unsquashfs rows: `unsquashfs -d DIR -processors J -no-progress IMG` of the
# image of a tree (gzip; made by ours, as 4.7.5 takes more than ten
# minutes on the many-files tree), by both; DIR on the scratch file
# system, removed between runs (not timed).
#
# Each row runs RUNS times warm (median) and COLD_RUNS times after sync and
# drop_caches (root only). Wall time, CPU time (user + sys) and peak RSS
# (GNU time) per run go to OUT.tsv; OUT gets the medians, ours / 4.7.5 for
# time and RSS, cores used ((user + sys) / wall), image sizes, and the
# target each row is held to: 0.8x where the codec does not bound both
# (gzip, lz4, and the many-files tree), 1.0x otherwise; 0.7x for
# unsquashfs -d of the many-files image; RSS at most 4.7.5's.
#
# Options (lists take spaces or commas):
#  --build DIR      our build tree (default: _build)
#  --ref DIR        squashfs-tools 4.7.5's binaries (default: $SQFS_REF_BIN,
#                   else _ref/bin, built by ../shared/reference/build.sh)
#  -c LIST          compressors (default: gzip,lz4,xz,zstd)
#  -j N             -processors for both (default: 2)
#  -r RUNS          warm runs per row (default: 3)
#  --cold-runs R    cold runs per row (default: 1)
#  -T LIST          trees (default: rootfs,many-files,random)
#  --unsquashfs-trees LIST  trees whose image is extracted (default:
#                   many-files,rootfs)
#  --corpus DIR     corpus tarballs (default: /var/tmp/sqfs-corpus)
#  --trees DIR      TREE_DIR (default: /var/tmp/trees)
#  --scratch DIR    images and extractions (default: /dev/shm)
#  --ref-timeout S  stop a run of 4.7.5 after S seconds (default 600); the
#                   row then says ">S" and its ratio is an upper bound
#  --report TSV     no runs: the report of the raw runs in TSV (several
#                   runs' files concatenated, header lines and all)
#  -o FILE          the report (default: benchmark-compat.txt)
set -u

die() { echo "benchmark-compat: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
list() { echo "$1" | tr ',' ' ' | xargs; }

top=$(cd "$(dirname "$0")/.." && pwd)
build=_build ref=${SQFS_REF_BIN:-} comps="gzip lz4 xz zstd" jobs=2 runs=3
cold_runs=1 trees="rootfs many-files random" utrees="many-files rootfs"
corpus=/var/tmp/sqfs-corpus treedir=/var/tmp/trees scratch=/dev/shm
out=benchmark-compat.txt ref_timeout=600 report_only=
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift ;;
	--ref) ref=$2; shift ;;
	-c) comps=$(list "$2"); shift ;;
	-j) jobs=$2; shift ;;
	-r) runs=$2; shift ;;
	--cold-runs) cold_runs=$2; shift ;;
	-T) trees=$(list "$2"); shift ;;
	--unsquashfs-trees) utrees=$(list "$2"); shift ;;
	--corpus) corpus=$2; shift ;;
	--trees) treedir=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	--ref-timeout) ref_timeout=$2; shift ;;
	--report) report_only=$2; shift ;;
	-o) out=$2; shift ;;
	-h | --help) awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; exit 0 ;;
	*) die "unknown option $1 (try --help)" ;;
	esac
	shift
done

if [ -n "$report_only" ]; then
	raw=$report_only
	OUR_MK="(from $raw)" OUR_UNSQ=""
	ref=${ref:-$top/_ref/bin}
else
if [ -z "$ref" ]; then
	ref=$top/_ref/bin
	[ -x "$ref/mksquashfs" ] || bash "$top/../shared/reference/build.sh" "$top/_ref" >/dev/null ||
		die "no squashfs-tools 4.7.5 (give --ref DIR)"
fi
"$ref/mksquashfs" -version 2>/dev/null | head -1 | grep -q 'version 4\.7' ||
	die "$ref/mksquashfs is not squashfs-tools 4.7"
build=$(cd "$build" && pwd) || die "no build tree"
for t in mksquashfs unsquashfs; do
	[ -x "$build/.libs/$t" ] || [ -x "$build/$t" ] || die "no $t in $build"
done
ours_bin() { if [ -x "$build/.libs/$1" ]; then echo "$build/.libs/$1"; else echo "$build/$1"; fi; }
OUR_MK=$(ours_bin mksquashfs)
OUR_UNSQ=$(ours_bin unsquashfs)
TIME=/usr/bin/time
[ -x "$TIME" ] || die "missing $TIME (Debian: time)"
if [ "$cold_runs" -gt 0 ] && ! { sync && echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
	log "cannot drop the page cache (not root?): no cold runs"
	cold_runs=0
fi
work=$(mktemp -d "$scratch/bench-compat.XXXXXX") || die "no scratch dir in $scratch"
trap 'rm -rf "$work"' EXIT
raw=$out.tsv
printf 'kind\ttree\tcomp\tcache\ttool\trun\twall\tusr\tsys\trss_kb\tbytes\n' >"$raw"

# ---------------------------------------------------------------- trees
tree_ready() { [ -d "$treedir/$1" ] && [ -e "$treedir/.$1.complete" ]; }
make_tree() {
	local dir=$treedir/$1
	tree_ready "$1" && return 0
	rm -rf "$dir" && mkdir -p "$dir" || die "cannot make $dir"
	case $1 in
	random)
		log "making $dir: 64 files of 4 MiB of random bytes"
		for i in $(seq -w 1 64); do
			head -c 4194304 /dev/urandom >"$dir/r$i" || die "writing $dir"
		done
		;;
	many-files)
		[ -f "$corpus/many-files.tar" ] ||
			bash "$top/scripts/make-many-files.sh" "$corpus" >&2 ||
			die "making many-files.tar"
		log "extracting $corpus/many-files.tar into $dir"
		tar -C "$dir" --numeric-owner -p -xf "$corpus/many-files.tar" ||
			die "extracting failed"
		;;
	*)
		[ -f "$corpus/$1.tar" ] || die "no $corpus/$1.tar (the shared make-corpus.sh makes it)"
		log "extracting $corpus/$1.tar into $dir"
		tar -C "$dir" --numeric-owner -p --xattrs --xattrs-include='*' \
			-xf "$corpus/$1.tar" || die "extracting failed"
		;;
	esac
	touch "$treedir/.$1.complete"
}
for t in $trees $utrees; do make_tree "$t"; done

# ---------------------------------------------------------------- runs
# run_one KIND TREE COMP CACHE TOOL RUN -- COMMAND...
run_one() {
	local kind=$1 tree=$2 comp=$3 cache=$4 tool=$5 r=$6 wall usr sys rss rc bytes
	shift 7
	if [ "$cache" = cold ]; then
		sync
		echo 3 >/proc/sys/vm/drop_caches
	fi
	local t0=${EPOCHREALTIME/./} limit=0
	[ "$tool" = ref ] && limit=$ref_timeout
	"$TIME" -f '%U %S %M' -o "$work/time.out" timeout "$limit" \
		env LD_LIBRARY_PATH="$build/.libs" "$@" >"$work/tool.out" 2>&1
	rc=$?
	local t1=${EPOCHREALTIME/./}
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
	read -r usr sys rss < <(tail -n 1 "$work/time.out")
	if [ "$rc" = 124 ]; then
		# stopped at the limit: the row says ">limit"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t-%s\t%s\t%s\t%s\t0\n' "$kind" \
			"$tree" "$comp" "$cache" "$tool" "$r" "$limit" "$usr" \
			"$sys" "$rss" >>"$raw"
		log "$kind $tree $comp $cache $tool #$r: stopped after $limit s"
		return 0
	fi
	if [ "$rc" != 0 ]; then
		log "FAILED ($rc): $*"
		tail -5 "$work/tool.out" | sed 's/^/    /' >&2
		return 1
	fi
	bytes=0
	[ "$kind" = mksquashfs ] && bytes=$(stat -c %s "$work/img.sqfs")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$tree" \
		"$comp" "$cache" "$tool" "$r" "$wall" "$usr" "$sys" "$rss" \
		"$bytes" >>"$raw"
	log "$kind $tree $comp $cache $tool #$r: $wall s, $(awk -v u="$usr" -v s="$sys" -v w="$wall" 'BEGIN { printf "%.2f", (u + s) / w }') cores, $rss KB"
}

pack() { # TOOL TREE COMP CACHE RUN
	local bin=$OUR_MK
	[ "$1" = ref ] && bin=$ref/mksquashfs
	rm -f "$work/img.sqfs"
	run_one mksquashfs "$2" "$3" "$4" "$1" "$5" -- "$bin" "$treedir/$2" \
		"$work/img.sqfs" -noappend -comp "$3" -b 128K -processors "$jobs" \
		-quiet -no-progress
}

for tree in $trees; do
	for comp in $comps; do
		tar -C "$treedir" -cf - "$tree" | cat >/dev/null
		for r in $(seq 1 "$runs"); do
			for tool in ours ref; do pack "$tool" "$tree" "$comp" warm "$r"; done
		done
		for r in $(seq 1 "$cold_runs"); do
			for tool in ours ref; do pack "$tool" "$tree" "$comp" cold "$r"; done
		done
	done
done

unpack() { # TOOL TREE CACHE RUN
	local bin=$OUR_UNSQ
	[ "$1" = ref ] && bin=$ref/unsquashfs
	rm -rf "$work/x"
	run_one unsquashfs "$2" gzip "$3" "$1" "$4" -- "$bin" -d "$work/x" \
		-processors "$jobs" -no-progress "$work/u-$2.sqfs"
	rm -rf "$work/x"
}
for tree in $utrees; do
	# packed by ours (4.7.5 takes more than ten minutes on the
	# many-files tree): both unpack the same image, whoever made it
	LD_LIBRARY_PATH="$build/.libs" "$OUR_MK" "$treedir/$tree" \
		"$work/u-$tree.sqfs" -noappend -quiet -no-progress \
		-processors "$jobs" >/dev/null || die "packing $tree for unsquashfs"
	for r in $(seq 1 "$runs"); do
		for tool in ours ref; do unpack "$tool" "$tree" warm "$r"; done
	done
	for r in $(seq 1 "$cold_runs"); do
		for tool in ours ref; do unpack "$tool" "$tree" cold "$r"; done
	done
	rm -f "$work/u-$tree.sqfs"
done

fi

# ---------------------------------------------------------------- report
{
	echo "compat benchmark: $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, -processors $jobs"
	echo "ours: $OUR_MK, $OUR_UNSQ ($(git -C "$top" log -1 --format=%h 2>/dev/null || echo '?'))"
	echo "reference: $("$ref/mksquashfs" -version 2>/dev/null | head -1)"
	if [ -n "$report_only" ]; then
		echo "runs: as the raw file holds them (medians of each row's runs)"
	else
		echo "runs: warm $runs (median), cold $cold_runs (median)"
	fi
	echo
	awk -F'\t' '
	$1 == "kind" { next }
	{
		k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
		# a negative wall time: stopped at that many seconds
		if ($7 < 0) { capped[k] = 1; $7 = -$7 }
		n[k]++; w[k, n[k]] = $7; c[k, n[k]] = ($8 + $9) / ($7 > 0 ? $7 : 1)
		if ($10 > rss[k]) rss[k] = $10
		size[k] = $11
		row = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
		if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
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
		printf "%-10s %-10s %-5s %-5s | %8s %8s %6s %6s | %5s %5s | %11s %11s | %8s %8s %5s\n",
		    "command", "tree", "comp", "cache", "ours s", "4.7.5 s", "ratio",
		    "target", "c-our", "c-ref", "ours B", "4.7.5 B", "rss-our",
		    "rss-ref", "/ref"
		for (r = 1; r <= rows; r++) {
			split(order[r], f, SUBSEP)
			ko = order[r] SUBSEP "ours"; kr = order[r] SUBSEP "ref"
			if (!(ko in n) || !(kr in n)) continue
			wo = median(ko, w); wr = median(kr, w)
			if (f[1] == "unsquashfs")
				target = (f[2] == "many-files") ? 0.7 : 1.0
			else
				target = (f[3] == "gzip" || f[3] == "lz4" ||
				    f[2] == "many-files") ? 0.8 : 1.0
			ratio = wr > 0 ? wo / wr : 0
			printf "%-10s %-10s %-5s %-5s | %8.2f %s%7.2f %s%5.2f %6.1f | %5.2f %5.2f | %11d %11d | %8d %8d %5.2f %s%s\n",
			    f[1], f[2], f[3], f[4], wo, (kr in capped) ? ">" : " ",
			    wr, (kr in capped) ? "<" : " ", ratio, target,
			    median(ko, c), median(kr, c), size[ko], size[kr],
			    rss[ko], rss[kr], rss[kr] ? rss[ko] / rss[kr] : 0,
			    ratio <= target ? "" : " TIME-NOT-MET",
			    rss[ko] <= rss[kr] ? "" : " RSS-NOT-MET"
		}
	}' "$raw"
} >"$out"
cat "$out"

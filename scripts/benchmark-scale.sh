#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark-scale.sh: tar2sqfs on streams of 10^6 to 10^8 tiny
# files (issue 24): peak memory, time and cores per entry, image bytes per
# entry, and what reading the image back costs; squashfs-tools 4.7.5's
# sqfstar and Debian's tar2sqfs (squashfs-tools-ng 1.2) on the same
# streams in the same run.
#
# Usage: scripts/benchmark-scale.sh [OPTIONS]
#
# The stream: scripts/gentar -n N (the build's; its default tree: nested
# directories of ~1000 entries, one directory of min(10^6, N/4) entries
# per 10^7 entries, 1% hard links, 10% duplicate contents, files of 0 to
# 200 bytes), never written to disk: each run gets a fresh one, the same
# bytes every time. For each N and compressor C, at J jobs:
#   ours      BUILD/tar2sqfs -c C -j J -q -f IMG < stream
#   ours-mem  the same with --mem 256M, if tar2sqfs --help lists --mem
#   sqfstar   REF/sqfstar -comp C -processors J -quiet -no-progress IMG
#             < stream (4.7.5's tar mode), at N <= --ref-max
#   deb       /usr/bin/tar2sqfs -c C -j J -q -f IMG < stream, at
#             N <= --ref-max
# Each packing is timed: the packer's wall time (it runs as long as the
# pipeline; gentar shares the cores, see its own row), user + sys and
# peak RSS (GNU time), cores = (user + sys) / wall, time per entry, image bytes and
# bytes per entry, RSS per entry. A watchdog polls the packer's RSS twice
# a second and kills it over --mem-limit ("killed at X GB"), or after
# --timeout seconds ("stopped"); its row then says so.
# gentar alone (N entries to /dev/null) is timed once per N.
# Reading back ours' image (first run of each row), cold (sync and
# drop_caches, as root): the whole listing, `rdsquashfs -d IMG`
# (--describe: every entry as a pack-file line), and `sqfs2tar IMG`, both
# to /dev/null, by ours and (at N <= --ref-max) by Debian's: wall and
# peak RSS.
# The codec limit (issue 24: where the codec binds, the target is the
# codec's own CPU time divided by the cores, plus at most 3%): at N <=
# --codec-max, ours packs once more under `perf record -e cpu-clock`;
# for the codecs that bind (xz, lzma, zstd, lzo), the share of the
# samples in the codec's library (liblzma, libzstd, liblzo2) times ours'
# CPU time in its row is the codec's CPU; the limit is that / J * 1.03,
# and the table gives ours' wall time as a multiple of it.
# At N above --ref-max the reference tools are not run; a line says so,
# with the memory their RSS per entry measured at the largest N they ran
# at in this run would take.
# Output: raw rows in TSV (--report, default benchmark-scale.tsv) and a
# table on standard output and in -o FILE (default benchmark-scale.txt),
# with the date, cores (nproc), memory and load average at start.
#
# Options (lists take spaces or commas):
#  --n LIST         entry counts (default "1e6 1e7"; 1e8 only when asked:
#                   an image of ~10 GB, and hours)
#  -c LIST          compressors (default "lz4 xz")
#  -j J             jobs of every packer (default 2)
#  -r RUNS          runs per row (default 1; the median is shown)
#  --build DIR      our build tree: tar2sqfs, sqfs2tar, rdsquashfs,
#                   scripts/gentar (default: _build)
#  --ref DIR        squashfs-tools 4.7.5 (default: $SQFS_REF_BIN, else
#                   /work/ref/bin)
#  --tools LIST     packers (default "ours ours-mem sqfstar deb")
#  --ref-max N      largest N for sqfstar and deb (default 1e7)
#  --mem-limit SIZE the watchdog's RSS limit, K/M/G (default 12G)
#  --timeout S      the watchdog's time limit per run (default 7200)
#  --no-read        no reading back
#  --codec-max N    largest N of the codec-limit run (default 1e6; 0: none)
#  --gentar-opts "OPTS"  more options for gentar (e.g. "--order shuffled")
#  --scratch DIR    images (default /var/tmp/benchmark-scale; on disk, so
#                   that reading back cold reads the disk)
#  --report FILE    the raw rows (default benchmark-scale.tsv)
#  -o FILE          the table (default benchmark-scale.txt)
#
# Duration, 2 cores: 10^6 entries take ~3 minutes per compressor for all
# packers and readers (sqfstar longest); 10^7 ten times as long and more
# (sqfstar's duplicate search grows faster than N). Needs bash 5, GNU
# time, root for cold caches.
set -u
export LC_ALL=C
unset SOURCE_DATE_EPOCH

die() { echo "benchmark-scale: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
list() { echo "$1" | tr ',' ' ' | xargs; }
usage() { awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; }
# count: 1e6, 2.5e7, 10M, 100k -> an integer
count() {
	awk -v s="$1" 'BEGIN {
		m = 1; u = substr(s, length(s))
		if (u == "k" || u == "K") m = 1e3
		else if (u == "M") m = 1e6
		else if (u == "G") m = 1e9
		if (m > 1) s = substr(s, 1, length(s) - 1)
		if (s !~ /^[0-9]+(\.[0-9]+)?([eE][0-9]+)?$/) exit 1
		printf "%.0f\n", s * m
	}' || die "not a count: $1"
}
kb() { # SIZE with K/M/G -> KiB
	awk -v s="$1" 'BEGIN {
		u = substr(s, length(s)); m = 1 / 1024
		if (u == "K") m = 1; else if (u == "M") m = 1024
		else if (u == "G") m = 1048576
		if (m != 1 / 1024) s = substr(s, 1, length(s) - 1)
		if (s !~ /^[0-9]+$/) exit 1
		printf "%d\n", s * m
	}' || die "not a size: $1"
}

[ "${BASH_VERSINFO[0]}" -ge 5 ] || die "needs bash 5 (EPOCHREALTIME)"
top=$(cd "$(dirname "$0")/.." && pwd)
ns="1e6 1e7" comps="lz4 xz" jobs=2 runs=1 build=_build ref=${SQFS_REF_BIN:-}
tools="ours ours-mem sqfstar deb" ref_max=1e7 mem_limit=12G limit=7200
do_read=1 codec_max=1e6 gentar_opts="" scratch=/var/tmp/benchmark-scale
report=benchmark-scale.tsv out=benchmark-scale.txt
while [ $# -gt 0 ]; do
	case $1 in
	--n) ns=$(list "$2"); shift ;;
	-c) comps=$(list "$2"); shift ;;
	-j) jobs=$2; shift ;;
	-r) runs=$2; shift ;;
	--build) build=$2; shift ;;
	--ref) ref=$2; shift ;;
	--tools) tools=$(list "$2"); shift ;;
	--ref-max) ref_max=$2; shift ;;
	--mem-limit) mem_limit=$2; shift ;;
	--timeout) limit=$2; shift ;;
	--no-read) do_read=0 ;;
	--codec-max) codec_max=$2; shift ;;
	--gentar-opts) gentar_opts=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	--report) report=$2; shift ;;
	-o) out=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option $1 (try --help)" ;;
	esac
	shift
done

build=$(cd "$build" 2>/dev/null && pwd) || die "no build tree $build"
GENTAR=$build/scripts/gentar
for t in tar2sqfs sqfs2tar rdsquashfs scripts/gentar; do
	[ -x "$build/$t" ] || die "no $t in $build (make first)"
done
ref=${ref:-/work/ref/bin}
TIME=/usr/bin/time
[ -x "$TIME" ] || die "missing $TIME (Debian: time)"
command -v pgrep >/dev/null || die "missing pgrep (Debian: procps)"
mem_limit_kb=$(kb "$mem_limit")
ref_max_n=$(count "$ref_max")
codec_max_n=$(count "$codec_max")
if [ "$codec_max_n" -gt 0 ] && ! command -v perf >/dev/null; then
	log "no perf (Debian: linux-perf): no codec limit"
	codec_max_n=0
fi
cold=1
if ! { sync && echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
	log "cannot drop the page cache (not root?): reading back is warm"
	cold=0
fi
# libtool's wrappers would be timed too: the real binaries, with the
# build's library
bin() { if [ -x "$build/.libs/$1" ]; then echo "$build/.libs/$1"; else echo "$build/$1"; fi; }
export LD_LIBRARY_PATH="$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
OUR_T2S=$(bin tar2sqfs) OUR_S2T=$(bin sqfs2tar) OUR_RD=$(bin rdsquashfs)
has_mem=0
"$OUR_T2S" --help 2>&1 | grep -q -- '--mem' && has_mem=1

mkdir -p "$scratch" || die "cannot make $scratch"
work=$(mktemp -d "$scratch/run.XXXXXX") || die "no scratch dir in $scratch"
trap 'rm -rf "$work"' EXIT
printf 'kind\tn\tcomp\ttool\trun\twall_s\tusr_s\tsys_s\trss_kb\tbytes\tstatus\n' >"$report"

# watch PID: until the process PID (GNU time) ends, poll its child's RSS;
# kill the child over the memory limit or after the time limit. Sets
# STATUS ("ok", "killed at X GB", "stopped after S s").
watch() {
	local pid=$1 start=$EPOCHREALTIME child rss now rd
	STATUS=ok
	while kill -0 "$pid" 2>/dev/null; do
		sleep 0.5
		for child in $(pgrep -P "$pid"); do
			rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$child/status" 2>/dev/null)
			if [ -n "$rss" ] && [ "$rss" -gt "$mem_limit_kb" ]; then
				kill -KILL "$child" 2>/dev/null
				STATUS=$(awk -v k="$rss" 'BEGIN { printf "killed at %.1f GB", k / 1048576 }')
			fi
			now=$EPOCHREALTIME
			if awk -v a="$start" -v b="$now" -v l="$limit" \
				'BEGIN { exit !(b - a > l) }'; then
				# how far it got: the bytes of the stream it had read
				rd=$(awk '/^rchar:/ { printf "%.0f", $2 / 1048576 }' "/proc/$child/io" 2>/dev/null)
				kill -TERM "$child" 2>/dev/null
				STATUS="stopped after $limit s${rd:+, having read $rd MiB}"
			fi
		done
	done
}

# measure KIND N COMP TOOL RUN BYTES_OF -- COMMAND...: one timed run of
# COMMAND (pack: reading gentar's stream), its row in the report.
# BYTES_OF: the file whose size is the row's bytes (or "-").
measure() {
	local kind=$1 n=$2 comp=$3 tool=$4 r=$5 bytes_of=$6 wall usr sys rss bytes
	shift 7
	rm -f "$work/time"
	if [ "$kind" = pack ]; then
		# shellcheck disable=SC2086
		"$GENTAR" -n "$n" $gentar_opts 2>/dev/null |
			"$TIME" -f '%e %U %S %M' -o "$work/time" "$@" \
				>"$work/tool.out" 2>&1 &
	else
		"$TIME" -f '%e %U %S %M' -o "$work/time" "$@" \
			>/dev/null 2>"$work/tool.out" &
	fi
	watch $!
	wait $!
	local rc=$?
	# GNU time's elapsed time: the packer starts with the pipeline and
	# ends it (the watchdog's polling would round the wall time up)
	read -r wall usr sys rss < <(tail -n 1 "$work/time" 2>/dev/null)
	wall=${wall:-0}
	if [ "$STATUS" = ok ] && [ "$rc" != 0 ]; then
		STATUS="failed ($rc): $(tail -n 2 "$work/tool.out" | tr '\t\n' '  ')"
	fi
	bytes=0
	[ "$bytes_of" = - ] || [ ! -f "$bytes_of" ] || bytes=$(stat -c %s "$bytes_of")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$n" \
		"$comp" "$tool" "$r" "$wall" "${usr:-0}" "${sys:-0}" "${rss:-0}" \
		"$bytes" "$STATUS" >>"$report"
	log "$kind N=$n $comp $tool #$r: $wall s, $(awk -v u="${usr:-0}" -v s="${sys:-0}" -v w="$wall" 'BEGIN { printf "%.2f", (w > 0 ? (u + s) / w : 0) }') cores, ${rss:-?} KB, $bytes bytes, $STATUS"
}

drop() { [ "$cold" = 0 ] || { sync && echo 3 >/proc/sys/vm/drop_caches; }; }

# read_back N COMP IMG: the whole listing and sqfs2tar of ours' image, by
# ours and by Debian's tools, each cold
read_back() {
	local rd s2t reader
	for reader in ours deb; do
		# Debian's readers hold the image's tables and inodes in
		# memory: above --ref-max they are not run either
		[ "$reader" = ours ] || [ "$1" -le "$ref_max_n" ] || continue
		if [ "$reader" = ours ]; then
			rd=$OUR_RD s2t=$OUR_S2T
		else
			rd=/usr/bin/rdsquashfs s2t=/usr/bin/sqfs2tar
		fi
		drop
		measure read "$1" "$2" "$reader-list" 1 - -- "$rd" -d "$3"
		drop
		measure read "$1" "$2" "$reader-sqfs2tar" 1 - -- "$s2t" "$3"
	done
}

# codec_share N COMP: ours once more under perf; the codec library's
# share of the CPU samples goes into the report as a "codec" row (its
# usr_s column holds the share, 0..1).
codec_share() {
	local n=$1 comp=$2 lib share
	case $comp in
	# the codecs that bind (the issue's list); lz4 and gzip do not
	xz | lzma) lib=liblzma ;; zstd) lib=libzstd ;; lzo) lib=liblzo2 ;;
	*) return ;;
	esac
	# shellcheck disable=SC2086
	"$GENTAR" -n "$n" $gentar_opts 2>/dev/null |
		perf record -q -e cpu-clock -F 1000 -o "$work/perf.data" -- \
			"$OUR_T2S" -c "$comp" -j "$jobs" -q -f "$work/codec.sqfs" \
			>/dev/null 2>&1
	share=$(perf report -i "$work/perf.data" --sort dso --stdio 2>/dev/null |
		awk -v lib="$lib" '$1 ~ /%$/ && $2 ~ lib { s += $1 + 0 } END { printf "%.4f", s / 100 }')
	rm -f "$work/perf.data" "$work/codec.sqfs"
	printf 'codec\t%s\t%s\tours\t1\t0\t%s\t0\t0\t0\tok\n' "$n" "$comp" "$share" >>"$report"
	log "codec N=$n $comp: $lib has $share of ours' CPU samples"
}

for n_arg in $ns; do
	n=$(count "$n_arg")
	measure gen "$n" - gentar 1 - -- "$GENTAR" -n "$n" $gentar_opts
	for comp in $comps; do
		for tool in $tools; do
			case $tool in
			ours-mem)
				[ "$has_mem" = 1 ] || continue ;;
			sqfstar | deb)
				if [ "$n" -gt "$ref_max_n" ]; then
					printf 'skip\t%s\t%s\t%s\t0\t0\t0\t0\t0\t0\tnot run above --ref-max\n' \
						"$n" "$comp" "$tool" >>"$report"
					continue
				fi ;;
			ours) ;;
			*) die "unknown tool $tool" ;;
			esac
			img=$work/$tool-$comp.sqfs
			for r in $(seq 1 "$runs"); do
				rm -f "$img"
				case $tool in
				ours) set -- "$OUR_T2S" -c "$comp" -j "$jobs" -q -f "$img" ;;
				ours-mem) set -- "$OUR_T2S" -c "$comp" -j "$jobs" --mem 256M -q -f "$img" ;;
				sqfstar) set -- "$ref/sqfstar" -comp "$comp" -processors "$jobs" -quiet -no-progress "$img" ;;
				deb) set -- /usr/bin/tar2sqfs -c "$comp" -j "$jobs" -q -f "$img" ;;
				esac
				measure pack "$n" "$comp" "$tool" "$r" "$img" -- "$@"
				if [ "$tool" = ours ] && [ "$r" = 1 ] &&
					[ "$do_read" = 1 ] && [ "$STATUS" = ok ]; then
					read_back "$n" "$comp" "$img"
				fi
				rm -f "$img"
			done
		done
		if [ "$n" -le "$codec_max_n" ]; then
			codec_share "$n" "$comp"
		fi
	done
done

# ---------------------------------------------------------------- report
{
	echo "scale benchmark: $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores," \
		"$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
		"load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "ours: $OUR_T2S ($(git -C "$top" log -1 --format=%h 2>/dev/null || echo '?'))," \
		"--mem: $([ "$has_mem" = 1 ] && echo yes || echo 'not in this build')"
	echo "sqfstar: $("$ref/sqfstar" -version 2>/dev/null | head -1);" \
		"deb: $(/usr/bin/tar2sqfs --version 2>&1 | head -1)"
	echo "stream: scripts/gentar -n N $gentar_opts; -j $jobs; runs $runs (median);" \
		"reading back $([ "$cold" = 1 ] && echo cold || echo warm)"
	echo
	awk -F'\t' '
	$1 == "kind" { next }
	$1 == "skip" { skip[$2 SUBSEP $4] = 1; next }
	$1 == "codec" { share[$2 SUBSEP $3] = $7; next }
	{
		k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
		if (!(k in cnt)) order[++rows] = k
		cnt[k]++; w[k, cnt[k]] = $6; cpu[k, cnt[k]] = $7 + $8
		if ($9 > rss[k]) rss[k] = $9
		bytes[k] = $10
		if ($11 != "ok") st[k] = $11
		if ($1 == "pack" && $11 == "ok") {
			# RSS per entry of the reference tools, for the skip line
			if ($2 > refn[$4]) { refn[$4] = $2; refr[$4] = $9 * 1024 / $2 }
		}
	}
	function fmtn(n,    e) {
		# 1000000 -> 1e6; other counts as they are
		for (e = 0; n >= 10 && n % 10 == 0; e++) n /= 10
		return n == 1 && e > 0 ? "1e" e : (e > 0 ? n "e" e : n)
	}
	function median(k, arr,    i, j, m, t, v) {
		m = cnt[k]
		for (i = 1; i <= m; i++) v[i] = arr[k, i]
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	END {
		printf "%-5s %-9s %-4s %-15s | %8s %5s %8s | %9s %6s | %11s %6s | %s\n",
		    "kind", "N", "comp", "tool", "wall s", "cores", "us/entry",
		    "RSS MB", "B/ent", "image B", "B/ent", "status"
		for (r = 1; r <= rows; r++) {
			split(order[r], f, SUBSEP)
			k = order[r]; n = f[2]
			wl = median(k, w); c = wl > 0 ? median(k, cpu) / wl : 0
			printf "%-5s %-9s %-4s %-15s | %8.2f %5.2f %8.2f | %9.1f %6.0f | %11s %6s | %s\n",
			    f[1], fmtn(n), f[3], f[4], wl, c,
			    wl * 1e6 / n, rss[k] / 1024, rss[k] * 1024 / n,
			    f[1] == "pack" && !(k in st) ? bytes[k] : "-",
			    f[1] == "pack" && !(k in st) ? sprintf("%.1f", bytes[k] / n) : "-",
			    (k in st) ? st[k] : "ok"
		}
		for (s in skip) {
			split(s, f, SUBSEP)
			if (f[2] in refn)
				printf "%s not run at N=%s: its peak RSS of %.0f bytes per entry at N=%s would be %.1f GB there\n",
				    f[2], fmtn(f[1]), refr[f[2]], fmtn(refn[f[2]]),
				    refr[f[2]] * f[1] / 1e9
			else
				printf "%s not run at N=%s (above --ref-max)\n", f[2], fmtn(f[1])
		}
		for (s in share) {
			split(s, f, SUBSEP)
			k = "pack" SUBSEP f[1] SUBSEP f[2] SUBSEP "ours"
			if (!(k in cnt) || (k in st)) continue
			wl = median(k, w); cc = median(k, cpu) * share[s]
			lim = cc / jobs * 1.03
			printf "codec limit N=%s %s: the codec has %.1f%% of ours'"'"' CPU (%.2f of %.2f s); limit %.2f s / %d jobs * 1.03 = %.2f s; ours %.2f s = %.2fx the limit\n",
			    fmtn(f[1]), f[2], share[s] * 100, cc, median(k, cpu), cc, jobs, lim, wl, wl / lim
		}
	}' jobs="$jobs" "$report"
} >"$out"
cat "$out"

#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark.sh: times our tar2sqfs and sqfs2tar against the reference
# tools and writes the results, as ratios, to benchmark.txt.
#
# Usage: scripts/benchmark.sh [OPTIONS] [CORPUS_DIR]
#
# CORPUS_DIR (default /var/tmp/sqfs-corpus) holds the tarballs rootfs.tar
# and linux.tar made by make-corpus.sh (squashforge's shared corpus script:
# `make-corpus.sh DIR`, needs root and Debian's package registry).
#
# What it does:
#  - builds ours twice from the source tree (plain ./configure, -O2), once
#    normal and once --without-pthread, in temporary build directories;
#  - per corpus file and compressor (gzip xz lzma lz4 zstd lzo, block size
#    128 KiB, the same level for every tool):
#    * packs the tar with our tar2sqfs at every job count of -j, with the
#      no-pthread build, with Debian's tar2sqfs (squashfs-tools-ng) and with
#      sqfstar (squashfs-tools) at the --ref-jobs counts: wall time, peak RSS
#      (GNU time's %M) and image size;
#    * checks that every image ours writes (all job counts, both builds,
#      every run) is byte-identical (cmp);
#    * unpacks the image ours made with our sqfs2tar (every job count, both
#      builds) and Debian's sqfs2tar, to /dev/null, and with unsquashfs to a
#      fresh directory in the scratch dir (tmpfs), deleted untimed after;
#  - writes tables of medians with ours/reference ratios, speedup and
#    parallel efficiency, and a met / not met line for each target of
#    issue 5, to benchmark.txt; the raw runs go to benchmark-raw.tsv.
#
# Options (lists take spaces or commas):
#  -c LIST          compressors (default: gzip,xz,lzma,lz4,zstd,lzo)
#  -j LIST          job counts for ours (default: 1..nproc); N = the largest
#  --ref-jobs LIST  job counts for the reference tools (default: N)
#  -r RUNS          runs per measurement, median taken (default 3)
#  --agree PCT      skip the third and later runs of a row whose first two
#                   runs are within PCT percent (default 2; 0: never skip)
#  --base-runs R    runs of the rows that only serve as a baseline: ours
#                   below N jobs and the no-pthread build (default 1)
#  -C LIST          corpus files; NAME:light packs only with ours and
#                   Debian's tar2sqfs at N jobs, no unpacking, for the peak
#                   RSS (default: rootfs.tar,linux.tar:light)
#  --light-runs R   runs of the light corpus files (default 1)
#  -o FILE          output (default: benchmark.txt at the top of the
#                   checkout); the raw runs go to FILE-raw.tsv (.txt dropped)
#  -s DIR           scratch dir for images and unpacked trees (default
#                   /dev/shm)
#  -k               keep the temporary dirs (builds, images, tool logs)
#  --src PATH       source tree or `make dist` tarball to build (default:
#                   this checkout; runs ./autogen.sh if configure is missing)
#  --no-build       use existing builds: --build DIR (normal) and
#                   --build-nopthread DIR (optional); --build implies it
#  -h               this text
# Reference tools: $DEB_TAR2SQFS, $DEB_SQFS2TAR, $SQFSTAR, $UNSQUASHFS
# (default /usr/bin/...); a missing one gives "n/a" cells.
#
# Duration, 2-core AMD EPYC, quiet machine: the default run takes about
# 70 minutes (up to ~85 when runs disagree and take a third): two builds
# ~1 min; rootfs.tar (~45 min): 2-3 runs at N jobs of ours, Debian's
# tar2sqfs and sqfstar (~13 min a run), one run of ours at 1 job and of the
# no-pthread build (~17 min), unpacking (~6 min); linux.tar (~20 min): one
# run of ours and of Debian's tar2sqfs at N jobs. `-C small.tar -r 1` takes
# about 11 minutes, `-C small.tar -r 1 -c gzip,lz4` 2. Run it on a quiet
# machine: other load shows up as noise in every ratio.

set -euo pipefail
export LC_ALL=C
unset SOURCE_DATE_EPOCH

die() { echo "benchmark: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
usage() { awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; }
list() { echo "$1" | tr ',' ' ' | xargs; }

[ "${BASH_VERSINFO[0]}" -ge 5 ] || die "needs bash 5 (EPOCHREALTIME)"

top=$(cd "$(dirname "$0")/.." && pwd)
ncpu=$(nproc)
comps="gzip xz lzma lz4 zstd lzo"
jobs=$(seq -s ' ' 1 "$ncpu")
ref_jobs=""
runs=3
agree=2
base_runs=1
light_runs=1
corpora="rootfs.tar linux.tar:light"
out=$top/benchmark.txt
scratch=/dev/shm
keep=0
do_build=1
src=$top
build=""
build_np=""
corpus_dir=/var/tmp/sqfs-corpus
BS=131072
build_secs=0

DEB_TAR2SQFS=${DEB_TAR2SQFS:-/usr/bin/tar2sqfs}
DEB_SQFS2TAR=${DEB_SQFS2TAR:-/usr/bin/sqfs2tar}
SQFSTAR=${SQFSTAR:-/usr/bin/sqfstar}
UNSQUASHFS=${UNSQUASHFS:-/usr/bin/unsquashfs}

while [ $# -gt 0 ]; do
	case $1 in
	-c) comps=$(list "$2"); shift ;;
	-j) jobs=$(list "$2"); shift ;;
	--ref-jobs) ref_jobs=$(list "$2"); shift ;;
	-r) runs=$2; shift ;;
	--agree) agree=$2; shift ;;
	--base-runs) base_runs=$2; shift ;;
	-C) corpora=$(list "$2"); shift ;;
	--light-runs) light_runs=$2; shift ;;
	-o) out=$2; shift ;;
	-s) scratch=$2; shift ;;
	-k) keep=1 ;;
	--src) src=$2; shift ;;
	--no-build) do_build=0 ;;
	--build) build=$2; do_build=0; shift ;;
	--build-nopthread) build_np=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option $1 (-h for help)" ;;
	*) corpus_dir=$1 ;;
	esac
	shift
done

[[ $agree =~ ^[0-9]+([.][0-9]+)?$ ]] || die "not a percentage: '$agree'"
for n in $runs $base_runs $light_runs $jobs $ref_jobs; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "not a count: '$n'"
done
for c in $comps; do
	case $c in gzip | xz | lzma | lz4 | zstd | lzo) ;; *) die "unknown compressor $c" ;; esac
done
N=$(echo "$jobs" | tr ' ' '\n' | sort -n | tail -n1)
ref_jobs=${ref_jobs:-$N}
[ "$base_runs" -le "$runs" ] || base_runs=$runs
case $out in /*) ;; *) out=$PWD/$out ;; esac
raw_out=${out%.txt}-raw.tsv
[ -d "$scratch" ] && [ -w "$scratch" ] || die "scratch dir $scratch is not writable"

for f in $corpora; do
	[ -s "$corpus_dir/${f%:light}" ] || die "missing $corpus_dir/${f%:light}:" \
		"make the corpus with make-corpus.sh $corpus_dir (squashforge's" \
		"shared corpus script), or pick files with -C"
done

TIME=/usr/bin/time
if ! "$TIME" -f '%M' -o /dev/null true 2>/dev/null; then
	TIME=""
	log "GNU time not found (apt-get install time): peak RSS will be n/a"
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/sqfs-bench.XXXXXX")
img=$(mktemp -d "$scratch/sqfs-bench-img.XXXXXX")
cleanup() {
	if [ "$keep" = 1 ]; then
		log "kept $work and $img"
	else
		rm -rf "$work" "$img"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
toollog=$work/tools.log
raw=$work/raw.tsv
printf 'corpus\tphase\tcomp\ttool\tjobs\trun\tseconds\tmaxrss_kb\tbytes\tstatus\n' >"$raw"

# ---------------------------------------------------------------- builds
build_tree() { # DIR CONFIGURE-ARGS...
	local d=$1
	shift
	mkdir -p "$d"
	log "building in $d: configure $*"
	if ! (cd "$d" && "$src_dir/configure" -q "$@" >configure.out 2>&1 &&
		make -j"$ncpu" tar2sqfs sqfs2tar >make.out 2>&1); then
		tail -n 30 "$d"/*.out >&2
		die "build failed in $d"
	fi
}

if [ "$do_build" = 1 ]; then
	if [ -f "$src" ]; then
		mkdir "$work/src"
		tar -C "$work/src" -xf "$src"
		src_dir=$(echo "$work"/src/*)
	else
		src_dir=$(cd "$src" && pwd)
	fi
	[ -e "$src_dir/config.status" ] && die "$src_dir is configured in place;" \
		"run make distclean there or pass --src a make dist tarball"
	if [ ! -x "$src_dir/configure" ]; then
		log "no configure in $src_dir: running ./autogen.sh"
		(cd "$src_dir" && ./autogen.sh >/dev/null 2>&1) || die "autogen.sh failed"
	fi
	t0=$SECONDS
	build=$work/build
	build_np=$work/build-nopthread
	build_tree "$build"
	build_tree "$build_np" --without-pthread
	build_secs=$((SECONDS - t0))
	log "builds took $build_secs s"
else
	[ -n "$build" ] || die "--no-build needs --build DIR"
	build=$(cd "$build" && pwd)
	src_dir=$(sed -n 's/^abs_top_srcdir = //p' "$build/Makefile" 2>/dev/null || true)
	src_dir=${src_dir:-$src}
fi

ours_t2s=$build/tar2sqfs
ours_s2t=$build/sqfs2tar
np_t2s=${build_np:+$build_np/tar2sqfs}
np_s2t=${build_np:+$build_np/sqfs2tar}
[ -x "$ours_t2s" ] && [ -x "$ours_s2t" ] || die "no tar2sqfs/sqfs2tar in $build"
# A libtool wrapper relinks on first use: do that now, untimed.
for t in "$ours_t2s" "$ours_s2t" $np_t2s $np_s2t; do "$t" --version >/dev/null; done

have() { [ -n "$1" ] && [ -x "$1" ]; }
missing=""
for t in "$DEB_TAR2SQFS" "$DEB_SQFS2TAR" "$SQFSTAR" "$UNSQUASHFS"; do
	have "$t" || missing="$missing $t"
done
have "$np_t2s" || missing="$missing no-pthread-build"
[ -z "$missing" ] || log "missing (n/a in the tables):$missing"

# ---------------------------------------------------------------- commands
# The levels every tool is given: the defaults of all three, made explicit.
level_of() { case $1 in gzip) echo 9 ;; zstd) echo 15 ;; lzo) echo 8 ;; esac; }

set_pack_cmd() { # TOOL COMP JOBS IMAGE -> CMD
	local lv
	lv=$(level_of "$2")
	case $1 in
	ours | ours-nopthread | debian-tar2sqfs)
		case $1 in
		ours) CMD=("$ours_t2s") ;;
		ours-nopthread) CMD=("$np_t2s") ;;
		*) CMD=("$DEB_TAR2SQFS") ;;
		esac
		CMD+=(-q -c "$2" -j "$3" -b "$BS")
		[ -z "$lv" ] || CMD+=(-X "level=$lv")
		CMD+=("$4")
		;;
	sqfstar)
		# sqfstar 4.5.1 rejects every -X option that takes a value
		# ("missing compression level", squashfs-tools issue #191) and
		# takes anything after the image as exclude names; its defaults
		# are the levels above, so it gets none. The image comes last.
		CMD=("$SQFSTAR" -comp "$2" -b "$BS" -processors "$3" -quiet -no-progress "$4")
		;;
	esac
}

set_unpack_cmd() { # TOOL JOBS IMAGE -> CMD
	case $1 in
	ours) CMD=("$ours_s2t" -j "$2" "$3") ;;
	ours-nopthread) CMD=("$np_s2t" -j 1 "$3") ;;
	debian-sqfs2tar) CMD=("$DEB_SQFS2TAR" "$3") ;;
	unsquashfs) CMD=("$UNSQUASHFS" -q -n -p "$2" -d "$img/tree" -f "$3") ;;
	esac
}

tool_path() {
	case $1 in
	ours) echo "$ours_t2s" ;;
	ours-nopthread) echo "$np_t2s" ;;
	debian-tar2sqfs) echo "$DEB_TAR2SQFS" ;;
	sqfstar) echo "$SQFSTAR" ;;
	debian-sqfs2tar) echo "$DEB_SQFS2TAR" ;;
	unsquashfs) echo "$UNSQUASHFS" ;;
	esac
}

# Runs CMD with stdin $1 and stdout $2; sets SEC, RSS, ST.
run_cmd() {
	local t0 t1 us rc=0
	echo "+ ${CMD[*]}" >>"$toollog"
	t0=${EPOCHREALTIME/./}
	if [ -n "$TIME" ]; then
		"$TIME" -f '%M' -o "$work/time.out" "${CMD[@]}" <"$1" >"$2" 2>>"$toollog" || rc=$?
	else
		"${CMD[@]}" <"$1" >"$2" 2>>"$toollog" || rc=$?
	fi
	t1=${EPOCHREALTIME/./}
	us=$((t1 - t0))
	SEC=$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))
	RSS=""
	[ -z "$TIME" ] || RSS=$(tail -n 1 "$work/time.out")
	[[ $RSS =~ ^[0-9]+$ ]] || RSS=""
	ST=ok
	[ "$rc" = 0 ] || { ST="fail($rc)"; log "FAILED ($rc): ${CMD[*]} (see $toollog)"; }
}

record() { # CORPUS PHASE COMP TOOL JOBS RUN BYTES
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
		"$5" "$6" "$SEC" "$RSS" "$7" "$ST" >>"$raw"
	log "$(printf '%-11s %-6s %-6s %-15s j=%-2s run %s: %8.2f s %8s KiB%s' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$SEC" "${RSS:-?}" \
		"${7:+ $7 B}")"
}

declare -A ident ident_n first_cmd

# After two runs, a row whose runs agree within $agree percent is settled:
# a third run would not move its median enough to matter.
settled() { # RUN CORPUS PHASE COMP TOOL JOBS
	[ "$1" -gt 2 ] && [ "$agree" != 0 ] || return 1
	awk -F'\t' -v c="$2" -v p="$3" -v m="$4" -v t="$5" -v j="$6" -v pct="$agree" '
	NR > 1 && $1 == c && $2 == p && $3 == m && $4 == t && $5 == j && $10 == "ok" {
		if (!n++ || $7 < lo) lo = $7
		if ($7 > hi) hi = $7
	}
	END { exit !(n >= 2 && hi - lo <= lo * pct / 100) }' "$raw"
}

# ---------------------------------------------------------------- measuring
pack_one() { # CORPUS TAR COMP TOOL JOBS RUN
	local c=$1 tar=$2 comp=$3 tool=$4 j=$5 r=$6 im=$img/pack.sqfs bytes=""
	have "$(tool_path "$tool")" || return 0
	! settled "$r" "$c" pack "$comp" "$tool" "$j" || return 0
	rm -f "$im"
	set_pack_cmd "$tool" "$comp" "$j" "$im"
	# Show one command per tool, one with a level option if there is one.
	if [ -z "${first_cmd[pack-$tool]:-}" ] ||
		{ [[ ${first_cmd[pack-$tool]} != *" -X "* ]] && [[ " ${CMD[*]} " == *" -X "* ]]; }; then
		first_cmd[pack-$tool]=${CMD[*]}
	fi
	run_cmd "$tar" /dev/null
	[ "$ST" != ok ] || bytes=$(stat -c %s "$im")
	record "$c" pack "$comp" "$tool" "$j" "$r" "$bytes"
	case $tool in ours | ours-nopthread) ;; *) rm -f "$im"; return 0 ;; esac
	[ "$ST" = ok ] || return 0
	# Ours must give the same bytes for any job count, build and run.
	if [ ! -e "$img/ours.sqfs" ]; then
		mv "$im" "$img/ours.sqfs"
		ident[$c/$comp]="identical"
		ident_n[$c/$comp]=1
	else
		if cmp -s "$im" "$img/ours.sqfs"; then
			ident_n[$c/$comp]=$((ident_n[$c/$comp] + 1))
		else
			ident[$c/$comp]="DIFFERENT ($tool j=$j run $r)"
		fi
		rm -f "$im"
	fi
}

unpack_one() { # CORPUS COMP TOOL JOBS RUN
	local c=$1 comp=$2 tool=$3 j=$4 r=$5
	have "$(tool_path "$tool")" || return 0
	[ "$tool" != ours-nopthread ] || have "$np_s2t" || return 0
	! settled "$r" "$c" unpack "$comp" "$tool" "$j" || return 0
	rm -rf "$img/tree"
	set_unpack_cmd "$tool" "$j" "$img/ours.sqfs"
	first_cmd[unpack-$tool]=${first_cmd[unpack-$tool]:-${CMD[*]}}
	run_cmd /dev/null /dev/null
	rm -rf "$img/tree"
	record "$c" unpack "$comp" "$tool" "$j" "$r" ""
}

t_start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for entry in $corpora; do
	name=${entry%:light}
	tar=$corpus_dir/$name
	light=0
	[ "$name" = "$entry" ] || light=1
	log "warming the page cache with $tar"
	cat "$tar" >/dev/null
	for comp in $comps; do
		rm -f "$img/ours.sqfs"
		if [ "$light" = 1 ]; then
			for ((r = 1; r <= light_runs; r++)); do
				pack_one "$name" "$tar" "$comp" ours "$N" "$r"
				pack_one "$name" "$tar" "$comp" debian-tar2sqfs "$N" "$r"
			done
			continue
		fi
		for ((r = 1; r <= runs; r++)); do
			for j in $jobs; do
				[ "$j" = "$N" ] || [ "$r" -le "$base_runs" ] || continue
				pack_one "$name" "$tar" "$comp" ours "$j" "$r"
			done
			[ "$r" -gt "$base_runs" ] ||
				pack_one "$name" "$tar" "$comp" ours-nopthread 1 "$r"
			for j in $ref_jobs; do
				[ "$j" = "$N" ] || [ "$r" -le "$base_runs" ] || continue
				pack_one "$name" "$tar" "$comp" debian-tar2sqfs "$j" "$r"
				pack_one "$name" "$tar" "$comp" sqfstar "$j" "$r"
			done
		done
		[ -e "$img/ours.sqfs" ] || continue
		for ((r = 1; r <= runs; r++)); do
			for j in $jobs; do
				[ "$j" = "$N" ] || [ "$r" -le "$base_runs" ] || continue
				unpack_one "$name" "$comp" ours "$j" "$r"
			done
			[ "$r" -gt "$base_runs" ] ||
				unpack_one "$name" "$comp" ours-nopthread 1 "$r"
			unpack_one "$name" "$comp" debian-sqfs2tar 1 "$r"
			for j in $ref_jobs; do
				[ "$j" = "$N" ] || [ "$r" -le "$base_runs" ] || continue
				unpack_one "$name" "$comp" unsquashfs "$j" "$r"
			done
		done
		rm -f "$img/ours.sqfs"
	done
done
t_total=$((SECONDS - t_start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- report
# q FIELD CORPUS PHASE COMP TOOL JOBS: median of seconds, max of RSS (MiB),
# bytes of the first run; empty when there is no successful run.
q() {
	awk -F'\t' -v f="$1" -v c="$2" -v p="$3" -v m="$4" -v t="$5" -v j="$6" '
	NR > 1 && $1 == c && $2 == p && $3 == m && $4 == t && $5 == j && $10 == "ok" {
		if (f == "sec") v[n++] = $7
		else if (f == "rss" && $8 != "") { if ($8 > mx) mx = $8; n++ }
		else if (f == "bytes" && !n) { b = $9; n++ }
	}
	END {
		if (!n) exit
		if (f == "rss") { printf "%.1f", mx / 1024; exit }
		if (f == "bytes") { print b; exit }
		for (i = 1; i < n; i++)
			for (k = i; k > 0 && v[k - 1] + 0 > v[k] + 0; k--) {
				x = v[k]; v[k] = v[k - 1]; v[k - 1] = x
			}
		printf "%.3f", n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
	}' "$raw"
}
# calc EXPR with a, b set: prints with FORMAT, or n/a when an input is empty.
calc() { # FORMAT A B EXPR
	if [ -z "$2" ] || [ -z "$3" ]; then echo n/a; return; fi
	awk -v a="$2" -v b="$3" -v f="$1" "BEGIN { v = ($4); if (v == \"x\") print \"n/a\"; else printf f, v }"
}
ratio() { calc '%.3f' "$1" "$2" 'b > 0 ? a / b : "x"'; }
na() { echo "${1:-n/a}"; }
t2() { [ -n "$1" ] && printf '%.2f' "$1" || echo n/a; }
# Ternary on numbers: le A B -> success if A <= B.
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
ram=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
pkgver() {
	local p v
	for p; do
		v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) || v=""
		printf '%s %s; ' "$p" "${v:-n/a}"
	done | sed 's/; $//'
}
commit=n/a
if git -C "$src_dir" rev-parse HEAD >/dev/null 2>&1; then
	commit=$(git -C "$src_dir" rev-parse --short=12 HEAD)
	[ -z "$(git --no-optional-locks -C "$src_dir" status --porcelain \
		--untracked-files=no 2>/dev/null)" ] || commit="$commit (plus local changes)"
elif [ -f "$src" ]; then
	commit="from $(basename "$src")"
fi

{
	echo "squashforge benchmark: tar2sqfs and sqfs2tar against the reference tools"
	echo
	echo "date:        $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine:     $cpu, nproc $ncpu, RAM $ram, kernel $(uname -r)," \
		"Debian $(cat /etc/debian_version 2>/dev/null || echo n/a)"
	echo "load avg:    $load_start at the start, $load_end at the end" \
		"(1, 5, 15 min); measuring took $((t_total / 60)) min $((t_total % 60)) s$(
			[ "$build_secs" = 0 ] || echo ", building $build_secs s")"
	echo "libraries:   $(pkgver zlib1g liblzma5 liblz4-1 libzstd1 liblzo2-2 libarchive13 libdeflate0)"
	echo "reference:   $(pkgver squashfs-tools-ng squashfs-tools)"
	echo "ours:        commit $commit, $("$ours_t2s" --version 2>&1 | head -n1);" \
		"$([ "$do_build" = 1 ] && echo "built with plain ./configure (CFLAGS -g -O2), $(gcc --version 2>/dev/null | head -n1)" || echo "build $build")"
	echo "scratch:     $scratch ($(stat -f -c %T "$scratch")); corpus $corpus_dir;" \
		"sqfstar and unsquashfs at their default -mem and queue sizes"
	echo "settings:    block size $BS; levels: gzip 9, xz and lzma the default" \
		"presets (xz 6, lzma 5, dictionary = block size), zstd 15, lzo lzo1x_999" \
		"level 8, lz4 without hc: the defaults of all three packers, given as" \
		"-X level=9/15/8 to ours and Debian's tar2sqfs; sqfstar 4.5.1 cannot take" \
		"-Xcompression-level (its bug #191) and runs at its defaults, the same" \
		"levels. N = $N jobs."
	[ -z "$missing" ] || echo "missing:    $missing (n/a in the tables)"
	[ -n "$TIME" ] || echo "note:        GNU time is not installed (apt-get install time): no peak RSS"
	echo
	echo "Runs: the median of up to $runs runs for the rows at N jobs (a row whose"
	echo "first two runs are within $agree% gets no more: their mean is the median)," \
		"of $base_runs for ours"
	echo "at fewer jobs and the no-pthread build; light corpus files (ours and"
	echo "Debian's tar2sqfs at N jobs, for the peak RSS): $light_runs. Every run is in"
	echo "$raw_out."
	echo "Times are wall-clock seconds; ratios are ours / reference (below 1: ours"
	echo "is faster or smaller). Speedup S = t(1 job) / t(J jobs), efficiency"
	echo "E = S / J; 'np' is the --without-pthread build. Tar input read from the"
	echo "page cache (warmed with cat), images on $scratch."
	echo "Unpacking: sqfs2tar writes a tar stream to /dev/null; unsquashfs writes"
	echo "a tree (files, owners, xattrs) into $scratch, which costs it more: its"
	echo "ratio is not like for like. All unpackers read the image ours made."
	echo "Debian's sqfs2tar 1.2 has no -j (one thread). Debian's tar2sqfs runs"
	echo "J worker threads plus the main thread; sqfstar -processors J runs J"
	echo "compressor threads plus reader, writer and fragment threads."

	for entry in $corpora; do
		name=${entry%:light}
		light=0
		[ "$name" = "$entry" ] || light=1
		size=$(stat -c %s "$corpus_dir/$name")
		echo
		echo "=================================================================="
		echo "$name ($((size / 1000000)) MB)$([ "$light" = 1 ] && echo ", light: ours and Debian's tar2sqfs at $N jobs, $light_runs run(s)")"
		echo "=================================================================="

		if [ "$light" = 0 ]; then
			echo
			echo "tar2sqfs wall time (s), median; ratios ours/reference at the same jobs"
			hdr=$(printf '%-6s %8s' comp np)
			for j in $jobs; do hdr+=$(printf ' %8s' "j$j"); done
			for j in $jobs; do
				[ "$j" != 1 ] || continue
				hdr+=$(printf ' %6s %6s' "S$j" "E$j")
			done
			hdr+=$(printf ' %6s %6s' "S$N/np" "E$N/np")
			for j in $ref_jobs; do
				hdr+=$(printf ' | %8s %8s %7s %7s' "deb-j$j" "sqfst-j$j" "/deb" "/sqfst")
			done
			echo "$hdr"
			for comp in $comps; do
				tnp=$(q sec "$name" pack "$comp" ours-nopthread 1)
				row=$(printf '%-6s %8s' "$comp" "$(t2 "$tnp")")
				t1=$(q sec "$name" pack "$comp" ours 1)
				for j in $jobs; do row+=$(printf ' %8s' "$(t2 "$(q sec "$name" pack "$comp" ours "$j")")"); done
				for j in $jobs; do
					[ "$j" != 1 ] || continue
					tj=$(q sec "$name" pack "$comp" ours "$j")
					s=$(ratio "$t1" "$tj")
					row+=$(printf ' %6s %6s' "$s" "$(calc '%.3f' "$t1" "$tj" "b > 0 ? a / b / $j : \"x\"")")
				done
				tN=$(q sec "$name" pack "$comp" ours "$N")
				row+=$(printf ' %6s %6s' "$(ratio "$tnp" "$tN")" \
					"$(calc '%.3f' "$tnp" "$tN" "b > 0 ? a / b / $N : \"x\"")")
				for j in $ref_jobs; do
					to=$(q sec "$name" pack "$comp" ours "$j")
					td=$(q sec "$name" pack "$comp" debian-tar2sqfs "$j")
					ts=$(q sec "$name" pack "$comp" sqfstar "$j")
					row+=$(printf ' | %8s %8s %7s %7s' "$(t2 "$td")" "$(t2 "$ts")" \
						"$(ratio "$to" "$td")" "$(ratio "$to" "$ts")")
				done
				echo "$row"
			done
		fi

		echo
		echo "Image size (bytes) at $N jobs, and peak RSS (MiB, max over runs)"
		printf '%-6s %12s %12s %12s %7s %7s | %8s %8s %8s %7s %7s\n' comp ours debian sqfstar \
			/deb /sqfst rss-ours rss-deb rss-sqfs /deb /sqfst
		for comp in $comps; do
			bo=$(q bytes "$name" pack "$comp" ours "$N")
			bd=$(q bytes "$name" pack "$comp" debian-tar2sqfs "$N")
			bs=$(q bytes "$name" pack "$comp" sqfstar "$N")
			ro=$(q rss "$name" pack "$comp" ours "$N")
			rd=$(q rss "$name" pack "$comp" debian-tar2sqfs "$N")
			rs=$(q rss "$name" pack "$comp" sqfstar "$N")
			printf '%-6s %12s %12s %12s %7s %7s | %8s %8s %8s %7s %7s\n' "$comp" \
				"$(na "$bo")" "$(na "$bd")" "$(na "$bs")" "$(ratio "$bo" "$bd")" \
				"$(ratio "$bo" "$bs")" "$(na "$ro")" "$(na "$rd")" "$(na "$rs")" \
				"$(ratio "$ro" "$rd")" "$(ratio "$ro" "$rs")"
		done

		[ "$light" = 0 ] || continue
		echo
		echo "Unpack wall time (s), median: our sqfs2tar, Debian's sqfs2tar (to /dev/null),"
		echo "unsquashfs (a tree on $scratch); ratios ours/reference at our N jobs"
		hdr=$(printf '%-6s %8s' comp np)
		for j in $jobs; do hdr+=$(printf ' %8s' "j$j"); done
		for j in $jobs; do [ "$j" = 1 ] || hdr+=$(printf ' %6s' "S$j"); done
		hdr+=$(printf ' | %8s %7s' deb-s2t "/deb")
		for j in $ref_jobs; do hdr+=$(printf ' | %8s %7s' "unsq-j$j" "/unsq"); done
		echo "$hdr"
		for comp in $comps; do
			t1=$(q sec "$name" unpack "$comp" ours 1)
			tN=$(q sec "$name" unpack "$comp" ours "$N")
			row=$(printf '%-6s %8s' "$comp" "$(t2 "$(q sec "$name" unpack "$comp" ours-nopthread 1)")")
			for j in $jobs; do row+=$(printf ' %8s' "$(t2 "$(q sec "$name" unpack "$comp" ours "$j")")"); done
			for j in $jobs; do
				[ "$j" = 1 ] || row+=$(printf ' %6s' "$(ratio "$t1" "$(q sec "$name" unpack "$comp" ours "$j")")")
			done
			td=$(q sec "$name" unpack "$comp" debian-sqfs2tar 1)
			row+=$(printf ' | %8s %7s' "$(t2 "$td")" "$(ratio "$tN" "$td")")
			for j in $ref_jobs; do
				tu=$(q sec "$name" unpack "$comp" unsquashfs "$j")
				row+=$(printf ' | %8s %7s' "$(t2 "$tu")" "$(ratio "$tN" "$tu")")
			done
			echo "$row"
		done

		echo
		echo "Determinism (not timed): images ours wrote at jobs {$jobs}, no-pthread, every run"
		for comp in $comps; do
			printf '  %-6s %s (%s images)\n' "$comp" \
				"${ident[$name/$comp]:-n/a}" "${ident_n[$name/$comp]:-0}"
		done
	done

	echo
	echo "=================================================================="
	echo "Targets (issue 5)"
	echo "=================================================================="
	verdict() { # LABEL OK-COUNT BAD-COUNT NA-COUNT
		if [ "$3" -gt 0 ]; then echo "$1: not met"
		elif [ "$2" -gt 0 ] && [ "$4" = 0 ]; then echo "$1: met"
		elif [ "$2" -gt 0 ]; then echo "$1: met where measured ($4 n/a)"
		else echo "$1: n/a (not measured)"; fi
	}
	full=""
	lights=""
	for entry in $corpora; do
		if [ "${entry%:light}" = "$entry" ]; then full="$full $entry"; else lights="$lights ${entry%:light}"; fi
	done

	for c in $full; do
		ok=0 bad=0 nan=0 lines=""
		for comp in gzip xz zstd; do
			t1=$(q sec "$c" pack "$comp" ours 1)
			t2j=$(q sec "$c" pack "$comp" ours 2)
			e=$(calc '%.3f' "$t1" "$t2j" 'b > 0 ? a / (2 * b) : "x"')
			if [ "$e" = n/a ]; then nan=$((nan + 1)); v=n/a
			elif le 0.95 "$e"; then ok=$((ok + 1)); v=met
			else bad=$((bad + 1)); v="not met"; fi
			lines+="    $comp: t(1)=$(t2 "$t1") s, t(2)=$(t2 "$t2j") s, efficiency $e: $v"$'\n'
		done
		verdict "T1 [$c] tar2sqfs parallel efficiency >= 0.95 at 2 jobs (gzip, xz, zstd)" $ok $bad $nan
		printf '%s' "$lines"

		ok=0 bad=0 nan=0 lines=""
		for comp in $comps; do
			to=$(q sec "$c" pack "$comp" ours "$N")
			td=$(q sec "$c" pack "$comp" debian-tar2sqfs "$N")
			ts=$(q sec "$c" pack "$comp" sqfstar "$N")
			ref="" rname="" rb=""
			if [ -n "$td" ] && { [ -z "$ts" ] || le "$td" "$ts"; }; then
				ref=$td rname=debian-tar2sqfs
			elif [ -n "$ts" ]; then
				ref=$ts rname=sqfstar
			fi
			[ -z "$rname" ] || rb=$(q bytes "$c" pack "$comp" "$rname" "$N")
			bo=$(q bytes "$c" pack "$comp" ours "$N")
			tr=$(ratio "$to" "$ref")
			sr=$(ratio "$bo" "$rb")
			if [ "$tr" = n/a ] || [ "$sr" = n/a ]; then nan=$((nan + 1)); v=n/a
			elif le "$tr" 0.8 && le "$sr" 1.005; then ok=$((ok + 1)); v=met
			else bad=$((bad + 1)); v="not met"; fi
			lines+="    $comp: ours $(t2 "$to") s vs ${rname:-n/a} $(t2 "$ref") s: time ratio $tr, size ratio $sr: $v"$'\n'
		done
		verdict "T2 [$c] tar2sqfs time <= 0.8x the faster of Debian's tar2sqfs and sqfstar at $N jobs, size <= +0.5%" $ok $bad $nan
		printf '%s' "$lines"

		ok=0 bad=0 nan=0 lines=""
		for comp in gzip xz zstd; do
			to=$(q sec "$c" unpack "$comp" ours 2)
			td=$(q sec "$c" unpack "$comp" debian-sqfs2tar 1)
			tr=$(ratio "$to" "$td")
			if [ "$tr" = n/a ]; then nan=$((nan + 1)); v=n/a
			elif le "$tr" 0.6; then ok=$((ok + 1)); v=met
			else bad=$((bad + 1)); v="not met"; fi
			lines+="    $comp: ours j2 $(t2 "$to") s vs Debian $(t2 "$td") s: ratio $tr: $v"$'\n'
		done
		verdict "T3 [$c] sqfs2tar at 2 jobs <= 0.6x Debian's sqfs2tar (gzip, xz, zstd)" $ok $bad $nan
		printf '%s' "$lines"
	done

	# The RSS target is about linux.tar; without it, use what was run.
	rss_corpora=""
	for c in $full $lights; do
		case $c in linux*) rss_corpora="$rss_corpora $c" ;; esac
	done
	[ -n "$rss_corpora" ] || rss_corpora="$full $lights"
	for c in $rss_corpora; do
		ok=0 bad=0 nan=0 lines=""
		for comp in $comps; do
			ro=$(q rss "$c" pack "$comp" ours "$N")
			rd=$(q rss "$c" pack "$comp" debian-tar2sqfs "$N")
			if [ -z "$ro" ] || [ -z "$rd" ]; then nan=$((nan + 1)); v=n/a
			elif le "$ro" "$rd"; then ok=$((ok + 1)); v=met
			else bad=$((bad + 1)); v="not met"; fi
			lines+="    $comp: ours $(na "$ro") MiB vs Debian $(na "$rd") MiB: ratio $(ratio "$ro" "$rd"): $v"$'\n'
		done
		verdict "T4 [$c] tar2sqfs peak RSS <= Debian's tar2sqfs at $N jobs" $ok $bad $nan
		printf '%s' "$lines"
	done

	echo
	echo "Commands (one of each kind; \$SCRATCH: a fresh dir in $scratch, \$WORK:"
	echo "the temporary build dir; the tar on stdin, the output to /dev/null):"
	for k in "${!first_cmd[@]}"; do
		c=${first_cmd[$k]//$img/\$SCRATCH}
		echo "  $k: ${c//$work/\$WORK}"
	done | sort
} >"$work/benchmark.txt"

mkdir -p "$(dirname "$out")"
cp "$work/benchmark.txt" "$out"
cp "$raw" "$raw_out"
log "wrote $out and $raw_out (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"

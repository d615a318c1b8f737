#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark.sh: times our tar2sqfs, sqfs2tar and rdsquashfs against
# the reference tools and writes the results, as ratios, to benchmark.txt.
# gensquashfs has its own: scripts/benchmark-gensquashfs.sh.
#
# Usage: scripts/benchmark.sh [OPTIONS] [CORPUS_DIR]
#
# CORPUS_DIR (default /var/tmp/sqfs-corpus) holds the tarballs rootfs.tar
# and linux.tar made by make-corpus.sh (squashforge's shared corpus script:
# `make-corpus.sh DIR`, needs root and Debian's package registry), and
# many-files.tar, which this script makes there with make-many-files.sh
# (next to it) if it is missing: 1M files of 1 to 16 bytes in 1000
# directories, ~1.0 GB, ~15 s to make.
#
# What it does:
#  - builds ours twice from the source tree (plain ./configure, -O2), once
#    normal and once --without-pthread, in temporary build directories;
#  - the machine's ceiling: per compressor, packs a slice of the first
#    full corpus file (its first --ceiling MB, cut at a member boundary)
#    with the single-threaded build (the no-pthread one, else ours at
#    -j 1) alone, then two such runs at once; ceiling = 2 * t(alone) /
#    t(pair), how much faster 2 jobs could be at best on this machine;
#  - per corpus file and compressor (gzip xz lzma lz4 zstd lzo, block size
#    128 KiB, the same level for every tool):
#    * packs the tar with our tar2sqfs at every job count of -j, with the
#      no-pthread build, with Debian's tar2sqfs (squashfs-tools-ng) and with
#      sqfstar (squashfs-tools) at the --ref-jobs counts: wall time, CPU
#      time (user + sys) and peak RSS (GNU time's %U %S %M), image size;
#    * checks that every image ours writes (all job counts, both builds,
#      every run) is byte-identical (cmp);
#    * for the --probe corpus files, packs once more with ours at N jobs
#      and --no-probe: the CPU the incompressible-block probe saves, and
#      the data blocks stored raw with and without it (counted from the
#      images: unsquashfs -lls for the files of a block or more, our
#      rdsquashfs -s for their block sizes);
#    * unpacks the image ours made with our sqfs2tar (every job count, both
#      builds) and Debian's sqfs2tar, to /dev/null; and to a tree, into a
#      fresh directory in the scratch dir (tmpfs), deleted untimed after,
#      with unsquashfs, our rdsquashfs -u / and Debian's rdsquashfs -u /
#      (both rdsquashfs with -X -T -C and, as root, -O: the attributes
#      unsquashfs sets by default);
#  - the many-files corpus (a file named many-files.tar) is packed with
#    ours at N jobs only and the reference tools, no fewer jobs, no
#    no-pthread build; it adds metadata bytes per entry (image size, and
#    the size of the tables after the data, over the inode count of the
#    superblock); reference runs on it stop after --many-limit seconds
#    and that tool is not run again on it (sqfstar's duplicate check
#    makes it grow faster than the square of the file count: 16 s for
#    100k files, ~100 s for 200k, 7 s for 200k with -no-duplicates; far
#    longer for 1M);
#  - writes tables of medians with ours/reference ratios, speedup,
#    parallel efficiency, cores used ((user + sys) / wall) for every timed
#    row, and a met / not met line for each target of issue 10 (and issue
#    5's efficiency target), to benchmark.txt; the raw runs (with user
#    and sys seconds, and the inode count and table bytes of each image)
#    go to benchmark-raw.tsv.
#
# Options (lists take spaces or commas):
#  -c LIST          compressors (default: gzip,xz,lzma,lz4,zstd,lzo)
#  -j LIST          job counts for ours (default: 1..nproc); N = the largest
#  --ref-jobs LIST  job counts for the reference tools (default: N)
#  -r RUNS          runs per measurement, median taken (default 3)
#  --agree PCT      skip the third and later runs of a row whose first two
#                   runs are within PCT percent (default 2; 0: never skip)
#  --base-runs R    runs of the rows that only serve as a baseline: ours
#                   below N jobs, the no-pthread build and the ceiling
#                   (default 1)
#  -C LIST          corpus files: a name in CORPUS_DIR or a path (with a
#                   /); NAME:light packs only with ours and Debian's
#                   tar2sqfs at N jobs, no unpacking, for the peak RSS; a
#                   file named many-files.tar is the many-files corpus,
#                   made with make-many-files.sh if missing (default:
#                   rootfs.tar,linux.tar,many-files.tar)
#  --light-runs R   runs of the light corpus files (default 1)
#  --many-count N   files in many-files.tar when this script makes it
#                   (default 1000000); an existing file is used as it is
#  --many-comps LIST  compressors for the many-files corpus (default: those
#                   of gzip, xz and zstd in -c, else the first of -c)
#  --many-limit S   stop a reference tool's run on the many-files corpus
#                   after S seconds and run that tool no more on it
#                   (default 300; 0: no limit)
#  --ceiling MB     slice size for the ceiling runs (default 150; 0: no
#                   ceiling runs)
#  --probe LIST     corpus files for the probe runs (default rootfs.tar;
#                   none: no probe runs)
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
# Reference tools: $DEB_TAR2SQFS, $DEB_SQFS2TAR, $DEB_RDSQUASHFS, $SQFSTAR,
# $UNSQUASHFS (default /usr/bin/...); a missing one gives "n/a" cells.
#
# Duration, 2-core AMD EPYC, quiet machine: the default run takes about
# 3.5 hours (3 to 4, with the third runs that disagreeing rows get):
#  - two builds ~1 min; the ceiling ~3 min (one run alone and one pair per
#    codec on the 150 MB slice: about the no-pthread build's time on
#    rootfs.tar / 2);
#  - rootfs.tar ~50 min: 2-3 runs at N jobs of ours, Debian's tar2sqfs and
#    sqfstar (~13 min a run for all six codecs), one run of ours at 1 job
#    and of the no-pthread build (~17 min), the --no-probe runs (~3 min,
#    counting the raw blocks ~2 min), unpacking (~8 min: both sqfs2tar,
#    unsquashfs and both rdsquashfs);
#  - linux.tar ~2 h: each of its runs takes about 2.2 times rootfs.tar's
#    (2-3 runs ~60-85 min, the 1-job and no-pthread runs ~37 min,
#    unpacking ~18 min);
#  - many-files.tar (1M files) ~30 min: making it ~15 s (once: it stays
#    in CORPUS_DIR); per codec and run ~3 min (ours ~12 s, Debian's
#    tar2sqfs ~28 s; unpacking: the sqfs2tar ~10 s, unsquashfs ~40 s, our
#    rdsquashfs ~26 s, Debian's ~34 s, deleting the trees ~25 s), 2-3
#    runs, three codecs; sqfstar once, stopped at --many-limit (5 min), then
#    skipped. Its unpacked tree holds ~5 GB of RAM on tmpfs while it exists
#    (a page per file).
# `-C small.tar -r 1` takes about 13 minutes (the ceiling ~2 of them:
# --ceiling 0 drops it), `-C small.tar -r 1 -c gzip,lz4` 3. Run it on a
# quiet machine: other load shows up as noise in every ratio, and in the
# ceiling first of all.

set -euo pipefail
export LC_ALL=C
unset SOURCE_DATE_EPOCH

die() { echo "benchmark: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
usage() { awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; }
list() { echo "$1" | tr ',' ' ' | xargs; }
in_list() { # WORD LIST (single spaces, as list() makes it)
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}

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
corpora="rootfs.tar linux.tar many-files.tar"
many_count=1000000
many_comps=""
many_limit=300
ceiling_mb=150
probe_list="rootfs.tar"
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
DEB_RDSQUASHFS=${DEB_RDSQUASHFS:-/usr/bin/rdsquashfs}
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
	--many-count) many_count=$2; shift ;;
	--many-comps) many_comps=$(list "$2"); shift ;;
	--many-limit) many_limit=$2; shift ;;
	--ceiling) ceiling_mb=$2; shift ;;
	--probe) probe_list=$(list "$2"); shift ;;
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

if [ -z "$many_comps" ]; then
	# The codec matters little with files this small: three of them.
	for c in $comps; do
		case $c in gzip | xz | zstd) many_comps="$many_comps $c" ;; esac
	done
	many_comps=$(list "${many_comps:-${comps%% *}}")
fi
[ "$probe_list" != none ] || probe_list=""
[[ $agree =~ ^[0-9]+([.][0-9]+)?$ ]] || die "not a percentage: '$agree'"
for n in $runs $base_runs $light_runs $jobs $ref_jobs $many_count; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "not a count: '$n'"
done
for n in $many_limit $ceiling_mb; do
	[[ $n =~ ^[0-9]+$ ]] || die "not a number: '$n'"
done
for c in $comps $many_comps; do
	case $c in gzip | xz | lzma | lz4 | zstd | lzo) ;; *) die "unknown compressor $c" ;; esac
done
N=$(echo "$jobs" | tr ' ' '\n' | sort -n | tail -n1)
ref_jobs=${ref_jobs:-$N}
# The targets are at 2 jobs; without 2 in both lists, at N.
TJ=$N
! in_list 2 "$jobs" || ! in_list 2 "$ref_jobs" || TJ=2
[ "$base_runs" -le "$runs" ] || base_runs=$runs
case $out in /*) ;; *) out=$PWD/$out ;; esac
raw_out=${out%.txt}-raw.tsv
[ -d "$scratch" ] && [ -w "$scratch" ] || die "scratch dir $scratch is not writable"

# Corpus entries: NAME or PATH, optionally :light. Sets C_NAME (the key in
# the tables), C_PATH and C_KIND (full, light or many).
parse_corpus() {
	local e=${1%:light}
	case $e in */*) C_PATH=$e ;; *) C_PATH=$corpus_dir/$e ;; esac
	C_NAME=$(basename "$e")
	if [ "$e" != "$1" ]; then C_KIND=light
	elif [ "$C_NAME" = many-files.tar ]; then C_KIND=many
	else C_KIND=full; fi
}

names=""
gen_secs=""
for entry in $corpora; do
	parse_corpus "$entry"
	! in_list "$C_NAME" "$names" || die "corpus name $C_NAME given twice"
	names="$names $C_NAME"
	if [ ! -s "$C_PATH" ] && [ "$C_NAME" = many-files.tar ]; then
		log "making $C_PATH ($many_count files) with make-many-files.sh"
		t0=$SECONDS
		"$top/scripts/make-many-files.sh" "$(dirname "$C_PATH")" "$many_count" >&2 ||
			die "make-many-files.sh failed"
		gen_secs=$((SECONDS - t0))
	fi
	[ -s "$C_PATH" ] || die "missing $C_PATH: make the corpus with make-corpus.sh" \
		"$corpus_dir (squashforge's shared corpus script), or pick files with -C"
done

TIME=/usr/bin/time
if ! "$TIME" -f '%M %U %S' -o /dev/null true 2>/dev/null; then
	TIME=""
	log "GNU time not found (apt-get install time): peak RSS and CPU time will be n/a"
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
printf 'corpus\tphase\tcomp\ttool\tjobs\trun\tseconds\tmaxrss_kb\tbytes\tstatus\tuser_s\tsys_s\tinodes\ttable_bytes\n' >"$raw"

# ---------------------------------------------------------------- builds
build_tree() { # DIR TARGETS CONFIGURE-ARGS...
	local d=$1 targets=$2
	shift 2
	mkdir -p "$d"
	log "building in $d: configure $*"
	# shellcheck disable=SC2086 # TARGETS is a word list
	if ! (cd "$d" && "$src_dir/configure" -q "$@" >configure.out 2>&1 &&
		make -j"$ncpu" $targets >make.out 2>&1); then
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
	build_tree "$build" "tar2sqfs sqfs2tar rdsquashfs"
	build_tree "$build_np" "tar2sqfs sqfs2tar" --without-pthread
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
ours_rdsq=$build/rdsquashfs
np_t2s=${build_np:+$build_np/tar2sqfs}
np_s2t=${build_np:+$build_np/sqfs2tar}
[ -x "$ours_t2s" ] && [ -x "$ours_s2t" ] || die "no tar2sqfs/sqfs2tar in $build"
[ -x "$ours_rdsq" ] || ours_rdsq=""
# A libtool wrapper relinks on first use: do that now, untimed.
for t in "$ours_t2s" "$ours_s2t" $ours_rdsq $np_t2s $np_s2t; do "$t" --version >/dev/null; done

have() { [ -n "$1" ] && [ -x "$1" ]; }
missing=""
for t in "$DEB_TAR2SQFS" "$DEB_SQFS2TAR" "$DEB_RDSQUASHFS" "$SQFSTAR" "$UNSQUASHFS"; do
	have "$t" || missing="$missing $t"
done
have "$ours_rdsq" || missing="$missing $build/rdsquashfs"
have "$np_t2s" || missing="$missing no-pthread-build"
[ -z "$missing" ] || log "missing (n/a in the tables):$missing"

# What unsquashfs sets by default (as root, owners too), the rdsquashfs
# unpacks set as well: like for like.
tree_opts=(-X -T -C)
[ "$(id -u)" != 0 ] || tree_opts+=(-O)

# ---------------------------------------------------------------- commands
# The levels every tool is given: the defaults of all three, made explicit.
level_of() { case $1 in gzip) echo 9 ;; zstd) echo 15 ;; lzo) echo 8 ;; esac; }

set_pack_cmd() { # TOOL COMP JOBS IMAGE -> CMD
	local lv
	lv=$(level_of "$2")
	case $1 in
	ours | ours-noprobe | ours-nopthread | debian-tar2sqfs)
		case $1 in
		ours) CMD=("$ours_t2s" -q) ;;
		ours-noprobe) CMD=("$ours_t2s" -q -P) ;;
		ours-nopthread) CMD=("$np_t2s" -q) ;;
		*) CMD=("$DEB_TAR2SQFS" -q) ;;
		esac
		CMD+=(-c "$2" -j "$3" -b "$BS")
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
	ours-rdsq) CMD=("$ours_rdsq" -q -j "$2" "${tree_opts[@]}" -u / -p "$img/tree" "$3") ;;
	debian-rdsq) CMD=("$DEB_RDSQUASHFS" -q "${tree_opts[@]}" -u / -p "$img/tree" "$3") ;;
	esac
}

tool_path() {
	case $1 in
	ours | ours-noprobe) echo "$ours_t2s" ;;
	ours-nopthread) echo "$np_t2s" ;;
	debian-tar2sqfs) echo "$DEB_TAR2SQFS" ;;
	sqfstar) echo "$SQFSTAR" ;;
	debian-sqfs2tar) echo "$DEB_SQFS2TAR" ;;
	unsquashfs) echo "$UNSQUASHFS" ;;
	ours-rdsq) echo "$ours_rdsq" ;;
	debian-rdsq) echo "$DEB_RDSQUASHFS" ;;
	esac
}
is_ours() { case $1 in ours*) return 0 ;; *) return 1 ;; esac; }

# GNU time's line "%M %U %S" (the last line: a failed command adds one
# before it) -> RSS, USR, SYS.
read_time() { # FILE
	local m u s
	RSS="" USR="" SYS=""
	[ -n "$TIME" ] && [ -s "$1" ] || return 0
	read -r m u s < <(tail -n 1 "$1") || return 0
	[[ $m =~ ^[0-9]+$ ]] && RSS=$m
	[[ $u =~ ^[0-9.]+$ ]] && [[ $s =~ ^[0-9.]+$ ]] && USR=$u SYS=$s
	return 0
}
# timed OUTFILE -> TCMD: the GNU time prefix (none without GNU time), with
# a time limit of LIMIT seconds when that is set (exit status 124).
timed() {
	TCMD=()
	[ -z "$TIME" ] || TCMD=("$TIME" -f '%M %U %S' -o "$1")
	[ -z "${LIMIT:-}" ] || TCMD+=(timeout "$LIMIT")
}
usecs() { printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)); }
set_status() { # RC
	case $1 in
	0) ST=ok ;;
	124) if [ -n "${LIMIT:-}" ]; then
		ST=timeout
		log "TIMED OUT after $LIMIT s: ${CMD[*]}"
	else
		ST="fail($1)"
		log "FAILED ($1): ${CMD[*]} (see $toollog)"
	fi ;;
	*) ST="fail($1)"; log "FAILED ($1): ${CMD[*]} (see $toollog)" ;;
	esac
}

# Runs CMD with stdin $1 and stdout $2; sets SEC, RSS, USR, SYS, ST.
run_cmd() {
	local t0 t1 rc=0
	echo "+ ${CMD[*]}" >>"$toollog"
	rm -f "$work/time.out"
	timed "$work/time.out"
	t0=${EPOCHREALTIME/./}
	"${TCMD[@]}" "${CMD[@]}" <"$1" >"$2" 2>>"$toollog" || rc=$?
	t1=${EPOCHREALTIME/./}
	SEC=$(usecs $((t1 - t0)))
	read_time "$work/time.out"
	set_status "$rc"
}

# Runs CMD_A and CMD_B at once, stdin $1: SEC is the time until both are
# done, RSS the larger peak, USR and SYS the sums.
run_pair() {
	local t0 t1 pa pb rca=0 rcb=0 ra ua sa
	echo "+ (${CMD_A[*]}) & (${CMD_B[*]})" >>"$toollog"
	rm -f "$work"/time-[ab].out
	t0=${EPOCHREALTIME/./}
	timed "$work/time-a.out"
	"${TCMD[@]}" "${CMD_A[@]}" <"$1" >/dev/null 2>>"$toollog" &
	pa=$!
	timed "$work/time-b.out"
	"${TCMD[@]}" "${CMD_B[@]}" <"$1" >/dev/null 2>>"$toollog" &
	pb=$!
	wait "$pa" || rca=$?
	wait "$pb" || rcb=$?
	t1=${EPOCHREALTIME/./}
	SEC=$(usecs $((t1 - t0)))
	read_time "$work/time-a.out"
	ra=$RSS ua=$USR sa=$SYS
	read_time "$work/time-b.out"
	if [ -n "$ra" ] && [ -n "$RSS" ]; then
		[ "$ra" -le "$RSS" ] || RSS=$ra
	else
		RSS=""
	fi
	if [ -n "$ua" ] && [ -n "$USR" ]; then
		USR=$(awk -v a="$ua" -v b="$USR" 'BEGIN { printf "%.2f", a + b }')
		SYS=$(awk -v a="$sa" -v b="$SYS" 'BEGIN { printf "%.2f", a + b }')
	else
		USR="" SYS=""
	fi
	CMD=("${CMD_A[@]}")
	set_status $((rca != 0 ? rca : rcb))
}

# The inode count and the bytes after the data (inode, directory,
# fragment, export, id and xattr tables) from a SquashFS superblock.
sb_info() { # IMAGE -> INODES, TABLES
	local used start
	INODES=$(od -An -tu4 -j4 -N4 "$1" | tr -d ' ')
	used=$(od -An -tu8 -j40 -N8 "$1" | tr -d ' ')
	start=$(od -An -tu8 -j64 -N8 "$1" | tr -d ' ')
	TABLES=$((used - start))
}

record() { # CORPUS PHASE COMP TOOL JOBS RUN BYTES [INODES TABLES]
	local cores=""
	[ -z "$USR" ] || cores=$(awk -v u="$USR" -v s="$SYS" -v w="$SEC" \
		'BEGIN { if (w > 0) printf " %.2f cores", (u + s) / w }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" \
		"$3" "$4" "$5" "$6" "$SEC" "$RSS" "$7" "$ST" "$USR" "$SYS" \
		"${8:-}" "${9:-}" >>"$raw"
	if [ "$ST" = skipped ]; then
		log "$(printf '%-14s %-7s %-6s %-15s not run: it timed out on this corpus' "$1" "$2" "$3" "$4")"
		return 0
	fi
	log "$(printf '%-14s %-7s %-6s %-15s j=%-2s run %s: %8.2f s %8s KiB%s%s%s' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$SEC" "${RSS:-?}" "$cores" \
		"${7:+ $7 B}" "$([ "$ST" = ok ] || echo " $ST")")"
}

declare -A ident ident_n first_cmd probe_raw noprobe_raw

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

# A reference tool that ran out of time on a corpus is not run again on it
# (a "skipped" row, once per compressor).
timed_out() { # CORPUS PHASE COMP TOOL RUN
	awk -F'\t' -v c="$1" -v p="$2" -v t="$4" '
	NR > 1 && $1 == c && $2 == p && $4 == t && $10 == "timeout" { f = 1 }
	END { exit !f }' "$raw" || return 1
	if [ "$5" = 1 ]; then
		SEC="" RSS="" USR="" SYS="" ST=skipped
		record "$1" "$2" "$3" "$4" "-" "$5" ""
	fi
}

# ---------------------------------------------------------------- measuring
pack_one() { # CORPUS TAR COMP TOOL JOBS RUN
	local c=$1 tar=$2 comp=$3 tool=$4 j=$5 r=$6 im=$img/pack.sqfs bytes=""
	local INODES="" TABLES="" LIMIT=""
	have "$(tool_path "$tool")" || return 0
	! settled "$r" "$c" pack "$comp" "$tool" "$j" || return 0
	if [ "$kind" = many ] && ! is_ours "$tool"; then
		! timed_out "$c" pack "$comp" "$tool" "$r" || return 0
		[ "$many_limit" = 0 ] || LIMIT=$many_limit
	fi
	rm -f "$im"
	set_pack_cmd "$tool" "$comp" "$j" "$im"
	# Show one command per tool, one with a level option if there is one.
	if [ -z "${first_cmd[pack-$tool]:-}" ] ||
		{ [[ ${first_cmd[pack-$tool]} != *" -X "* ]] && [[ " ${CMD[*]} " == *" -X "* ]]; }; then
		first_cmd[pack-$tool]=${CMD[*]}
	fi
	run_cmd "$tar" /dev/null
	if [ "$ST" = ok ]; then
		bytes=$(stat -c %s "$im")
		sb_info "$im"
	fi
	record "$c" pack "$comp" "$tool" "$j" "$r" "$bytes" "$INODES" "$TABLES"
	case $tool in
	ours | ours-nopthread) ;;
	ours-noprobe) [ "$ST" != ok ] || mv "$im" "$img/noprobe.sqfs"; return 0 ;;
	*) rm -f "$im"; return 0 ;;
	esac
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
	local c=$1 comp=$2 tool=$3 j=$4 r=$5 LIMIT=""
	have "$(tool_path "$tool")" || return 0
	[ "$tool" != ours-nopthread ] || have "$np_s2t" || return 0
	! settled "$r" "$c" unpack "$comp" "$tool" "$j" || return 0
	if [ "$kind" = many ] && ! is_ours "$tool"; then
		! timed_out "$c" unpack "$comp" "$tool" "$r" || return 0
		[ "$many_limit" = 0 ] || LIMIT=$many_limit
	fi
	rm -rf "$img/tree"
	set_unpack_cmd "$tool" "$j" "$img/ours.sqfs"
	first_cmd[unpack-$tool]=${first_cmd[unpack-$tool]:-${CMD[*]}}
	run_cmd /dev/null /dev/null
	rm -rf "$img/tree"
	record "$c" unpack "$comp" "$tool" "$j" "$r" ""
}

# Data blocks of the files of a block or more, and how many of them are
# stored raw: "RAW TOTAL" (hard links counted once; fragments not counted).
count_raw() { # IMAGE
	have "$UNSQUASHFS" && have "$ours_rdsq" || return 0
	"$UNSQUASHFS" -lls -d '' "$1" 2>/dev/null |
		awk -v bs="$BS" '$1 ~ /^-/ && $3 >= bs {
			sub(/^[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ /, ""); print }' |
		while IFS= read -r p; do "$ours_rdsq" -s "$p" "$1" || echo FAILED; done |
		awk '/^FAILED$/ { bad = 1 }
		/^Inode number:/ { dup = seen[$3]++ }
		/^[ \t]*Block #/ && !dup { t++; if (/\(uncompressed\)/) r++ }
		END { if (!bad) print r + 0, t + 0 }'
}

# The ceiling: a slice of the corpus, packed single-threaded alone and
# twice at once.
ceil_tar="" ceil_name="" ceil_members="" ceil_tool=""
make_slice() { # TAR NAME
	local off
	command -v python3 >/dev/null || { log "no python3: no ceiling runs"; return 0; }
	off=$(python3 - "$1" "$((ceiling_mb * 1000000))" <<'PY'
import sys, tarfile
path, limit = sys.argv[1], int(sys.argv[2])
n = 0
with tarfile.open(path, "r:") as tf:
    for member in tf:
        n += 1
        if tf.offset >= limit:
            break
    print(tf.offset, n)
PY
	) || { log "could not cut a slice of $1: no ceiling runs"; return 0; }
	read -r off ceil_members <<<"$off"
	ceil_tar=$work/slice.tar
	ceil_name=$2
	{ head -c "$off" "$1"; head -c 1024 /dev/zero; } >"$ceil_tar"
	if have "$np_t2s"; then ceil_tool=ours-nopthread; else ceil_tool=ours; fi
	log "ceiling slice: the first $ceil_members members of $1, $off bytes ($ceil_tool at 1 job)"
}

ceiling_one() { # COMP RUN
	set_pack_cmd "$ceil_tool" "$1" 1 "$img/ceil-b.sqfs"
	CMD_B=("${CMD[@]}")
	set_pack_cmd "$ceil_tool" "$1" 1 "$img/ceil-a.sqfs"
	CMD_A=("${CMD[@]}")
	first_cmd[ceiling]=${first_cmd[ceiling]:-${CMD[*]}}
	rm -f "$img"/ceil-?.sqfs
	run_cmd "$ceil_tar" /dev/null
	record "$ceil_name" ceiling "$1" alone 1 "$2" ""
	rm -f "$img"/ceil-?.sqfs
	run_pair "$ceil_tar"
	record "$ceil_name" ceiling "$1" pair 2 "$2" ""
	rm -f "$img"/ceil-?.sqfs
}

t_start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$ceiling_mb" != 0 ]; then
	for entry in $corpora; do
		parse_corpus "$entry"
		[ "$C_KIND" = full ] || continue
		make_slice "$C_PATH" "$C_NAME"
		break
	done
	[ -n "$ceil_name" ] || log "no full corpus file for the ceiling runs"
	if [ -n "$ceil_tar" ]; then
		cat "$ceil_tar" >/dev/null
		for comp in $comps; do
			for ((r = 1; r <= base_runs; r++)); do ceiling_one "$comp" "$r"; done
		done
		rm -f "$ceil_tar"
	fi
fi

for entry in $corpora; do
	parse_corpus "$entry"
	name=$C_NAME tar=$C_PATH kind=$C_KIND
	log "warming the page cache with $tar"
	cat "$tar" >/dev/null
	ccomps=$comps
	[ "$kind" != many ] || ccomps=$many_comps
	for comp in $ccomps; do
		rm -f "$img/ours.sqfs" "$img/noprobe.sqfs"
		if [ "$kind" = light ]; then
			for ((r = 1; r <= light_runs; r++)); do
				pack_one "$name" "$tar" "$comp" ours "$N" "$r"
				pack_one "$name" "$tar" "$comp" debian-tar2sqfs "$N" "$r"
			done
			continue
		fi
		for ((r = 1; r <= runs; r++)); do
			for j in $jobs; do
				[ "$j" = "$N" ] || { [ "$kind" = full ] && [ "$r" -le "$base_runs" ]; } || continue
				pack_one "$name" "$tar" "$comp" ours "$j" "$r"
			done
			[ "$kind" != full ] || [ "$r" -gt "$base_runs" ] ||
				pack_one "$name" "$tar" "$comp" ours-nopthread 1 "$r"
			for j in $ref_jobs; do
				[ "$j" = "$N" ] || [ "$r" -le "$base_runs" ] || continue
				pack_one "$name" "$tar" "$comp" debian-tar2sqfs "$j" "$r"
				pack_one "$name" "$tar" "$comp" sqfstar "$j" "$r"
			done
		done
		[ -e "$img/ours.sqfs" ] || continue
		if [ "$kind" = full ] && in_list "$name" "$probe_list"; then
			pack_one "$name" "$tar" "$comp" ours-noprobe "$N" 1
			if [ -e "$img/noprobe.sqfs" ]; then
				log "counting the raw blocks of $name $comp with and without the probe"
				probe_raw[$name/$comp]=$(count_raw "$img/ours.sqfs")
				noprobe_raw[$name/$comp]=$(count_raw "$img/noprobe.sqfs")
				rm -f "$img/noprobe.sqfs"
			fi
		fi
		for ((r = 1; r <= runs; r++)); do
			for j in $jobs; do
				[ "$j" = "$N" ] || { [ "$kind" = full ] && [ "$r" -le "$base_runs" ]; } || continue
				unpack_one "$name" "$comp" ours "$j" "$r"
			done
			[ "$kind" != full ] || [ "$r" -gt "$base_runs" ] ||
				unpack_one "$name" "$comp" ours-nopthread 1 "$r"
			unpack_one "$name" "$comp" debian-sqfs2tar 1 "$r"
			for j in $ref_jobs; do
				[ "$j" = "$N" ] || [ "$r" -le "$base_runs" ] || continue
				unpack_one "$name" "$comp" unsquashfs "$j" "$r"
			done
			unpack_one "$name" "$comp" ours-rdsq "$N" "$r"
			unpack_one "$name" "$comp" debian-rdsq 1 "$r"
		done
		rm -f "$img/ours.sqfs"
	done
done
t_total=$((SECONDS - t_start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- report
# q FIELD CORPUS PHASE COMP TOOL JOBS: the median of seconds, of CPU
# seconds (user + sys) or of cores used (CPU / wall), the max of RSS
# (MiB), bytes, inodes or table bytes of the first run; empty when there
# is no successful run.
q() {
	awk -F'\t' -v f="$1" -v c="$2" -v p="$3" -v m="$4" -v t="$5" -v j="$6" '
	NR > 1 && $1 == c && $2 == p && $3 == m && $4 == t && $5 == j && $10 == "ok" {
		if (f == "sec") v[n++] = $7
		else if (f == "cpu") { if ($11 != "") v[n++] = $11 + $12 }
		else if (f == "cores") { if ($11 != "" && $7 > 0) v[n++] = ($11 + $12) / $7 }
		else if (f == "rss") { if ($8 != "") { if ($8 > mx) mx = $8; n++ } }
		else if (!n) {
			b = f == "bytes" ? $9 : f == "inodes" ? $13 : $14
			if (b != "") n++
		}
	}
	END {
		if (!n) exit
		if (f == "rss") { printf "%.1f", mx / 1024; exit }
		if (f == "bytes" || f == "inodes" || f == "tables") { print b; exit }
		for (i = 1; i < n; i++)
			for (k = i; k > 0 && v[k - 1] + 0 > v[k] + 0; k--) {
				x = v[k]; v[k] = v[k - 1]; v[k - 1] = x
			}
		printf "%.3f", n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
	}' "$raw"
}
# Why a row has no time: "timeout" or "skipped" (after a timeout), or empty.
why_na() { # CORPUS PHASE COMP TOOL
	awk -F'\t' -v c="$1" -v p="$2" -v m="$3" -v t="$4" '
	NR > 1 && $1 == c && $2 == p && $3 == m && $4 == t {
		if ($10 == "timeout") w = "timeout"
		else if ($10 == "skipped" && w == "") w = "skipped"
	}
	END { print w }' "$raw"
}
# calc EXPR with a, b set: prints with FORMAT, or n/a when an input is empty.
calc() { # FORMAT A B EXPR
	if [ -z "$2" ] || [ -z "$3" ]; then echo n/a; return; fi
	awk -v a="$2" -v b="$3" -v f="$1" "BEGIN { v = ($4); if (v == \"x\") print \"n/a\"; else printf f, v }"
}
ratio() { calc '%.3f' "$1" "$2" 'b > 0 ? a / b : "x"'; }
na() { echo "${1:-n/a}"; }
t2() { [ -n "$1" ] && printf '%.2f' "$1" || echo n/a; }
# A time cell: the median, or >LIMIT for a run stopped at the time limit,
# "skip" for a tool not run after one.
tcell() { # CORPUS PHASE COMP TOOL JOBS
	local t w
	t=$(q sec "$@")
	if [ -n "$t" ]; then printf '%.2f' "$t"; return; fi
	w=$(why_na "$1" "$2" "$3" "$4")
	case $w in
	timeout) echo ">$many_limit" ;;
	skipped) echo skip ;;
	*) echo n/a ;;
	esac
}
# A ratio against a time cell: an upper bound "<R" against a timed-out run.
tratio() { # OURS-SECONDS CORPUS PHASE COMP TOOL JOBS
	local o=$1 t
	shift
	t=$(q sec "$@")
	if [ -z "$t" ] && [ -n "$o" ] && [ "$(why_na "$1" "$2" "$3" "$4")" = timeout ]; then
		echo "<$(ratio "$o" "$many_limit")"
	else
		ratio "$o" "$t"
	fi
}
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

# The cores-used table of a corpus: every timed row that has a value.
cores_table() { # NAME KIND
	local c=$1 k=$2 spec lbl ph tl jj comp v hdr row
	local specs=() keep=()
	declare -A cv
	[ "$k" != full ] || specs+=("np:pack:ours-nopthread:1")
	for j in $jobs; do specs+=("j$j:pack:ours:$j"); done
	[ "$k" != full ] || specs+=("noprb-j$N:pack:ours-noprobe:$N")
	for j in $ref_jobs; do specs+=("deb-j$j:pack:debian-tar2sqfs:$j" "sqfst-j$j:pack:sqfstar:$j"); done
	[ "$k" != full ] || specs+=("s2t-np:unpack:ours-nopthread:1")
	for j in $jobs; do specs+=("s2t-j$j:unpack:ours:$j"); done
	specs+=("deb-s2t:unpack:debian-sqfs2tar:1")
	for j in $ref_jobs; do specs+=("unsq-j$j:unpack:unsquashfs:$j"); done
	specs+=("rdsq-j$N:unpack:ours-rdsq:$N" "deb-rdsq:unpack:debian-rdsq:1")
	for spec in "${specs[@]}"; do
		IFS=: read -r lbl ph tl jj <<<"$spec"
		for comp in $ccomps; do
			v=$(q cores "$c" "$ph" "$comp" "$tl" "$jj")
			[ -z "$v" ] || cv[$spec/$comp]=$v
		done
		for comp in $ccomps; do
			[ -z "${cv[$spec/$comp]:-}" ] || { keep+=("$spec"); break; }
		done
	done
	[ "${#keep[@]}" -gt 0 ] || return 0
	echo
	echo "Cores used = (user + sys CPU time) / wall time, median over runs;"
	echo "pack: tar2sqfs / sqfstar, unpack: sqfs2tar (s2t), unsquashfs, rdsquashfs -u"
	hdr=$(printf '%-6s' comp)
	ph=pack
	for spec in "${keep[@]}"; do
		IFS=: read -r lbl tl _ <<<"$spec"
		if [ "$tl" != "$ph" ]; then hdr+=" |"; ph=$tl; fi
		hdr+=$(printf ' %8s' "$lbl")
	done
	echo "$hdr"
	for comp in $ccomps; do
		row=$(printf '%-6s' "$comp")
		ph=pack
		for spec in "${keep[@]}"; do
			IFS=: read -r lbl tl _ <<<"$spec"
			if [ "$tl" != "$ph" ]; then row+=" |"; ph=$tl; fi
			v=${cv[$spec/$comp]:-}
			row+=$(printf ' %8s' "$([ -n "$v" ] && printf '%.2f' "$v" || echo n/a)")
		done
		echo "$row"
	done
}

{
	echo "squashforge benchmark: tar2sqfs, sqfs2tar and rdsquashfs against the reference tools"
	echo
	echo "date:        $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine:     $cpu, nproc $ncpu, RAM $ram, kernel $(uname -r)," \
		"Debian $(cat /etc/debian_version 2>/dev/null || echo n/a)"
	echo "load avg:    $load_start at the start, $load_end at the end" \
		"(1, 5, 15 min); measuring took $((t_total / 60)) min $((t_total % 60)) s$(
			[ "$build_secs" = 0 ] || echo ", building $build_secs s")$(
			[ -z "$gen_secs" ] || echo ", making many-files.tar $gen_secs s")"
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
	[ -n "$TIME" ] || echo "note:        GNU time is not installed (apt-get install time): no peak RSS, no CPU time"
	echo
	echo "Runs: the median of up to $runs runs for the rows at N jobs (a row whose"
	echo "first two runs are within $agree% gets no more: their mean is the median)," \
		"of $base_runs for ours"
	echo "at fewer jobs, the no-pthread build and the ceiling; light corpus files"
	echo "(ours and Debian's tar2sqfs at N jobs, for the peak RSS): $light_runs; the"
	echo "--no-probe run: 1. Every run is in $raw_out."
	echo "Times are wall-clock seconds; ratios are ours / reference (below 1: ours"
	echo "is faster or smaller). Speedup S = t(1 job) / t(J jobs), efficiency"
	echo "E = S / J; 'np' is the --without-pthread build. Cores used = (user +"
	echo "sys CPU seconds, GNU time's %U + %S, all threads) / wall seconds. Tar"
	echo "input read from the page cache (warmed with cat), images on $scratch."
	echo "Unpacking: sqfs2tar writes a tar stream to /dev/null; unsquashfs and"
	echo "both rdsquashfs (-u /, with ${tree_opts[*]}: the permissions, times, xattrs"
	echo "and owners unsquashfs sets) write a tree into $scratch, which costs"
	echo "more: the sqfs2tar / unsquashfs ratio is not like for like, the"
	echo "rdsquashfs / unsquashfs one is. All unpackers read the image ours made."
	echo "Debian's sqfs2tar and rdsquashfs 1.2 have no -j (one thread). Debian's"
	echo "tar2sqfs runs J worker threads plus the main thread; sqfstar"
	echo "-processors J runs J compressor threads plus reader, writer and"
	echo "fragment threads."
	echo "Many-files corpus: ours at N jobs only; metadata per entry = image"
	echo "size, and the tables after the data (bytes_used - inode_table_start:"
	echo "inodes, directories, fragment, id and xattr tables), over the"
	echo "superblock's inode count (files + directories + root). Reference"
	echo "runs on it stop after $many_limit s ('>$many_limit'; that tool is then"
	echo "not run again on it: 'skip'; ratios against it are upper bounds, '<')."

	if [ -n "$ceil_name" ]; then
		echo
		echo "=================================================================="
		echo "Machine ceiling: the first $ceil_members members of $ceil_name" \
			"($ceiling_mb MB slice), $ceil_tool at 1 job"
		echo "=================================================================="
		echo
		echo "alone: one run; pair: two runs at once, wall time until both are"
		echo "done; ceiling = 2 * alone / pair: how much faster 2 jobs could be"
		echo "at best on this machine (2.0: two cores that do not slow each other)"
		printf '%-6s %8s %8s %8s | %8s %8s\n' comp alone pair ceiling cores-1 cores-2
		for comp in $comps; do
			ta=$(q sec "$ceil_name" ceiling "$comp" alone 1)
			tp=$(q sec "$ceil_name" ceiling "$comp" pair 2)
			printf '%-6s %8s %8s %8s | %8s %8s\n' "$comp" "$(t2 "$ta")" "$(t2 "$tp")" \
				"$(calc '%.3f' "$ta" "$tp" 'b > 0 ? 2 * a / b : "x"')" \
				"$(t2 "$(q cores "$ceil_name" ceiling "$comp" alone 1)")" \
				"$(t2 "$(q cores "$ceil_name" ceiling "$comp" pair 2)")"
		done
	fi

	for entry in $corpora; do
		parse_corpus "$entry"
		name=$C_NAME kind=$C_KIND
		ccomps=$comps
		[ "$kind" != many ] || ccomps=$many_comps
		size=$(stat -L -c %s "$C_PATH")
		echo
		echo "=================================================================="
		echo "$name ($((size / 1000000)) MB)$(
			[ "$kind" != light ] || echo ", light: ours and Debian's tar2sqfs at $N jobs, $light_runs run(s)")$(
			[ "$kind" != many ] || echo ", many-files corpus: $(tar -tf "$C_PATH" | wc -l) entries")"
		echo "=================================================================="

		if [ "$kind" = full ]; then
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
			for comp in $ccomps; do
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
		elif [ "$kind" = many ]; then
			echo
			echo "tar2sqfs wall time (s), median; ratios ours at $N jobs / reference"
			hdr=$(printf '%-6s %8s' comp "j$N")
			for j in $ref_jobs; do
				hdr+=$(printf ' | %8s %8s %7s %7s' "deb-j$j" "sqfst-j$j" "/deb" "/sqfst")
			done
			echo "$hdr"
			for comp in $ccomps; do
				to=$(q sec "$name" pack "$comp" ours "$N")
				row=$(printf '%-6s %8s' "$comp" "$(t2 "$to")")
				for j in $ref_jobs; do
					row+=$(printf ' | %8s %8s %7s %7s' \
						"$(tcell "$name" pack "$comp" debian-tar2sqfs "$j")" \
						"$(tcell "$name" pack "$comp" sqfstar "$j")" \
						"$(tratio "$to" "$name" pack "$comp" debian-tar2sqfs "$j")" \
						"$(tratio "$to" "$name" pack "$comp" sqfstar "$j")")
				done
				echo "$row"
			done
		fi

		echo
		echo "Image size (bytes) at $N jobs, and peak RSS (MiB, max over runs)"
		printf '%-6s %12s %12s %12s %7s %7s | %8s %8s %8s %7s %7s\n' comp ours debian sqfstar \
			/deb /sqfst rss-ours rss-deb rss-sqfs /deb /sqfst
		for comp in $ccomps; do
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

		if [ "$kind" = many ]; then
			echo
			echo "Metadata bytes per entry at $N jobs: image size / inodes, and the"
			echo "tables after the data / inodes (inodes: each image's superblock)"
			printf '%-6s %9s | %8s %8s %8s | %8s %8s %8s\n' comp inodes \
				img-ours img-deb img-sqfs tbl-ours tbl-deb tbl-sqfs
			for comp in $ccomps; do
				row=$(printf '%-6s %9s |' "$comp" "$(na "$(q inodes "$name" pack "$comp" ours "$N")")")
				for f in bytes tables; do
					for t in ours debian-tar2sqfs sqfstar; do
						row+=$(printf ' %8s' "$(calc '%.2f' "$(q "$f" "$name" pack "$comp" "$t" "$N")" \
							"$(q inodes "$name" pack "$comp" "$t" "$N")" 'b > 0 ? a / b : "x"')")
					done
					[ "$f" = tables ] || row+=" |"
				done
				echo "$row"
			done
		fi

		if [ "$kind" != light ]; then
			ujobs=$jobs
			[ "$kind" = full ] || ujobs=$N
			echo
			echo "Unpack wall time (s), median: our sqfs2tar, Debian's sqfs2tar (to /dev/null),"
			echo "unsquashfs (a tree on $scratch); ratios ours/reference at our N jobs"
			hdr=$(printf '%-6s' comp)
			[ "$kind" != full ] || hdr+=$(printf ' %8s' np)
			for j in $ujobs; do hdr+=$(printf ' %8s' "j$j"); done
			[ "$kind" != full ] ||
				for j in $ujobs; do [ "$j" = 1 ] || hdr+=$(printf ' %6s' "S$j"); done
			hdr+=$(printf ' | %8s %7s' deb-s2t "/deb")
			for j in $ref_jobs; do hdr+=$(printf ' | %8s %7s' "unsq-j$j" "/unsq"); done
			echo "$hdr"
			for comp in $ccomps; do
				t1=$(q sec "$name" unpack "$comp" ours 1)
				tN=$(q sec "$name" unpack "$comp" ours "$N")
				row=$(printf '%-6s' "$comp")
				[ "$kind" != full ] ||
					row+=$(printf ' %8s' "$(t2 "$(q sec "$name" unpack "$comp" ours-nopthread 1)")")
				for j in $ujobs; do row+=$(printf ' %8s' "$(t2 "$(q sec "$name" unpack "$comp" ours "$j")")"); done
				[ "$kind" != full ] ||
					for j in $ujobs; do
						[ "$j" = 1 ] || row+=$(printf ' %6s' "$(ratio "$t1" "$(q sec "$name" unpack "$comp" ours "$j")")")
					done
				row+=$(printf ' | %8s %7s' "$(tcell "$name" unpack "$comp" debian-sqfs2tar 1)" \
					"$(tratio "$tN" "$name" unpack "$comp" debian-sqfs2tar 1)")
				for j in $ref_jobs; do
					row+=$(printf ' | %8s %7s' "$(tcell "$name" unpack "$comp" unsquashfs "$j")" \
						"$(tratio "$tN" "$name" unpack "$comp" unsquashfs "$j")")
				done
				echo "$row"
			done

			echo
			echo "Unpack to a tree on $scratch, wall time (s), median: our rdsquashfs -u /"
			echo "at $N jobs, unsquashfs, Debian's rdsquashfs -u /; ratios ours/reference"
			hdr=$(printf '%-6s %8s' comp "rdsq-j$N")
			for j in $ref_jobs; do hdr+=$(printf ' | %8s %7s' "unsq-j$j" "/unsq"); done
			hdr+=$(printf ' | %8s %7s' deb-rdsq "/deb")
			echo "$hdr"
			for comp in $ccomps; do
				tr=$(q sec "$name" unpack "$comp" ours-rdsq "$N")
				row=$(printf '%-6s %8s' "$comp" "$(t2 "$tr")")
				for j in $ref_jobs; do
					row+=$(printf ' | %8s %7s' "$(tcell "$name" unpack "$comp" unsquashfs "$j")" \
						"$(tratio "$tr" "$name" unpack "$comp" unsquashfs "$j")")
				done
				row+=$(printf ' | %8s %7s' "$(tcell "$name" unpack "$comp" debian-rdsq 1)" \
					"$(tratio "$tr" "$name" unpack "$comp" debian-rdsq 1)")
				echo "$row"
			done
		fi

		cores_table "$name" "$kind"

		if [ "$kind" = full ] && in_list "$name" "$probe_list"; then
			echo
			echo "Incompressible-block probe: ours at $N jobs, normal (median) and with"
			echo "--no-probe (1 run); CPU = user + sys seconds. Blocks: the data blocks"
			echo "of files of a block or more (hard links once, fragments not counted)"
			echo "stored raw in each image. tar2sqfs prints no count of the blocks the"
			echo "probe stored raw: the probe's share lies between (raw with probe -"
			echo "raw without) / blocks and raw with probe / blocks. lz4 has no probe"
			echo "(LZ4 is as quick as the probe itself)."
			printf '%-6s %8s %8s %7s %6s | %7s %7s | %6s %6s %6s %13s | %7s\n' comp \
				cpu cpu-noP saved saved% wall wall-noP raw raw-noP blocks "probe share" size/noP
			for comp in $ccomps; do
				cp_=$(q cpu "$name" pack "$comp" ours "$N")
				cn=$(q cpu "$name" pack "$comp" ours-noprobe "$N")
				read -r x tb <<<"${probe_raw[$name/$comp]:-}"
				read -r y _ <<<"${noprobe_raw[$name/$comp]:-}"
				share=n/a
				if [ -n "${x:-}" ] && [ -n "${y:-}" ] && [ "${tb:-0}" -gt 0 ]; then
					share=$(awk -v x="$x" -v y="$y" -v t="$tb" \
						'BEGIN { lo = x > y ? x - y : 0; printf "%.1f-%.1f%%", 100 * lo / t, 100 * x / t }')
				fi
				printf '%-6s %8s %8s %7s %6s | %7s %7s | %6s %6s %6s %13s | %7s\n' "$comp" \
					"$(t2 "$cp_")" "$(t2 "$cn")" "$(calc '%.2f' "$cn" "$cp_" 'a - b')" \
					"$(calc '%.1f' "$cn" "$cp_" 'a > 0 ? 100 * (a - b) / a : "x"')" \
					"$(t2 "$(q sec "$name" pack "$comp" ours "$N")")" \
					"$(t2 "$(q sec "$name" pack "$comp" ours-noprobe "$N")")" \
					"$(na "${x:-}")" "$(na "${y:-}")" "$(na "${tb:-}")" "$share" \
					"$(ratio "$(q bytes "$name" pack "$comp" ours "$N")" \
						"$(q bytes "$name" pack "$comp" ours-noprobe "$N")")"
			done
		fi

		[ "$kind" != light ] || continue
		echo
		echo "Determinism (not timed): images ours wrote at jobs {$([ "$kind" = full ] && echo "$jobs" || echo "$N")}$(
			[ "$kind" != full ] || echo ", no-pthread"), every run"
		for comp in $ccomps; do
			printf '  %-6s %s (%s images)\n' "$comp" \
				"${ident[$name/$comp]:-n/a}" "${ident_n[$name/$comp]:-0}"
		done
	done

	echo
	echo "=================================================================="
	echo "Targets (issue 10; T7 from issue 5)"
	echo "=================================================================="
	verdict() { # LABEL OK-COUNT BAD-COUNT NA-COUNT
		if [ "$3" -gt 0 ]; then echo "$1: not met"
		elif [ "$2" -gt 0 ] && [ "$4" = 0 ]; then echo "$1: met"
		elif [ "$2" -gt 0 ]; then echo "$1: met where measured ($4 n/a)"
		else echo "$1: n/a (not measured)"; fi
	}
	# judge LINE-PREFIX CONDITION-OK(0/1/empty): counts into ok, bad, nan.
	judge() {
		case $2 in
		1) ok=$((ok + 1)); v=met ;;
		0) bad=$((bad + 1)); v="not met" ;;
		*) nan=$((nan + 1)); v=n/a ;;
		esac
		lines+="    $1: $v"$'\n'
	}
	full="" lights="" manys=""
	for entry in $corpora; do
		parse_corpus "$entry"
		case $C_KIND in
		full) full="$full $C_NAME" ;;
		light) lights="$lights $C_NAME" ;;
		many) manys="$manys $C_NAME" ;;
		esac
	done
	echo "All at $TJ jobs$([ "$TJ" = 2 ] || echo " (2 is not among the job counts: N)"), medians of this run."

	for c in $full; do
		ok=0 bad=0 nan=0 lines=""
		lim=0.8 sizechk=1
		case $c in linux*) lim=0.9 sizechk=0 ;; esac
		for comp in $comps; do
			to=$(q sec "$c" pack "$comp" ours "$TJ")
			td=$(q sec "$c" pack "$comp" debian-tar2sqfs "$TJ")
			ts=$(q sec "$c" pack "$comp" sqfstar "$TJ")
			ref="" rname="" rb=""
			if [ -n "$td" ] && { [ -z "$ts" ] || le "$td" "$ts"; }; then
				ref=$td rname=debian-tar2sqfs
			elif [ -n "$ts" ]; then
				ref=$ts rname=sqfstar
			fi
			[ -z "$rname" ] || rb=$(q bytes "$c" pack "$comp" "$rname" "$TJ")
			bo=$(q bytes "$c" pack "$comp" ours "$TJ")
			tr=$(ratio "$to" "$ref")
			sr=$(ratio "$bo" "$rb")
			if [ "$tr" = n/a ] || { [ "$sizechk" = 1 ] && [ "$sr" = n/a ]; }; then r=""
			elif le "$tr" "$lim" && { [ "$sizechk" = 0 ] || le "$sr" 1.005; }; then r=1
			else r=0; fi
			judge "$comp: ours $(t2 "$to") s vs ${rname:-n/a} $(t2 "$ref") s: time ratio $tr, size ratio $sr" "$r"
		done
		verdict "T1 [$c] tar2sqfs time <= ${lim}x the faster of Debian's tar2sqfs and sqfstar$(
			[ "$sizechk" = 0 ] || echo ", image <= +0.5%"), every compressor" $ok $bad $nan
		printf '%s' "$lines"
	done

	for c in $full; do
		ok=0 bad=0 nan=0 lines=""
		for comp in $comps; do
			[ "$comp" != lz4 ] || continue
			co=$(q cores "$c" pack "$comp" ours "$TJ")
			if [ -z "$co" ]; then r=""; elif le 1.9 "$co"; then r=1; else r=0; fi
			judge "$comp: $(t2 "$co") cores" "$r"
		done
		verdict "T2 [$c] tar2sqfs cores used >= 1.9, every compressor but lz4" $ok $bad $nan
		printf '%s' "$lines"
	done

	for c in $manys; do
		ok=0 bad=0 nan=0 lines=""
		for comp in $many_comps; do
			to=$(q sec "$c" pack "$comp" ours "$TJ")
			td=$(q sec "$c" pack "$comp" debian-tar2sqfs "$TJ")
			ro=$(q rss "$c" pack "$comp" ours "$TJ")
			rd=$(q rss "$c" pack "$comp" debian-tar2sqfs "$TJ")
			tr=$(ratio "$to" "$td")
			rr=$(ratio "$ro" "$rd")
			if [ "$tr" = n/a ] || [ "$rr" = n/a ]; then r=""
			elif le "$tr" 0.56 && le "$rr" 0.71; then r=1
			else r=0; fi
			judge "$comp: ours $(t2 "$to") s, $(na "$ro") MiB vs Debian $(t2 "$td") s, $(na "$rd") MiB: time ratio $tr, RSS ratio $rr" "$r"
		done
		verdict "T3 [$c] tar2sqfs time <= 0.56x Debian's tar2sqfs, peak RSS <= 0.71x" $ok $bad $nan
		printf '%s' "$lines"
	done

	for c in $full; do
		ok=0 bad=0 nan=0 lines=""
		for comp in gzip xz zstd; do
			to=$(q sec "$c" unpack "$comp" ours "$TJ")
			td=$(q sec "$c" unpack "$comp" debian-sqfs2tar 1)
			tr=$(ratio "$to" "$td")
			if [ "$tr" = n/a ]; then r=""; elif le "$tr" 0.6; then r=1; else r=0; fi
			judge "$comp: ours $(t2 "$to") s vs Debian $(t2 "$td") s: ratio $tr" "$r"
		done
		verdict "T4 [$c] sqfs2tar <= 0.6x Debian's sqfs2tar (gzip, xz, zstd)" $ok $bad $nan
		printf '%s' "$lines"
	done

	for c in $manys; do
		ok=0 bad=0 nan=0 lines=""
		for comp in $many_comps; do
			to=$(q sec "$c" unpack "$comp" ours-rdsq "$N")
			tu=$(q sec "$c" unpack "$comp" unsquashfs "$TJ")
			td=$(q sec "$c" unpack "$comp" debian-rdsq 1)
			# A reference stopped at the time limit took longer than it.
			[ -n "$tu" ] || [ "$(why_na "$c" unpack "$comp" unsquashfs)" != timeout ] || tu=$many_limit
			[ -n "$td" ] || [ "$(why_na "$c" unpack "$comp" debian-rdsq)" != timeout ] || td=$many_limit
			if [ -z "$to" ] || [ -z "$tu" ] || [ -z "$td" ]; then r=""
			elif le "$to" "$tu" && le "$to" "$td"; then r=1
			else r=0; fi
			judge "$comp: ours $(t2 "$to") s vs unsquashfs $(t2 "$tu") s, Debian's rdsquashfs $(t2 "$td") s" "$r"
		done
		verdict "T5 [$c] rdsquashfs -u at least as fast as unsquashfs and Debian's rdsquashfs" $ok $bad $nan
		printf '%s' "$lines"
	done

	for c in $full $lights; do
		ok=0 bad=0 nan=0 lines=""
		for comp in $comps; do
			ro=$(q rss "$c" pack "$comp" ours "$N")
			rd=$(q rss "$c" pack "$comp" debian-tar2sqfs "$N")
			if [ -z "$ro" ] || [ -z "$rd" ]; then r=""; elif le "$ro" "$rd"; then r=1; else r=0; fi
			judge "$comp: ours $(na "$ro") MiB vs Debian $(na "$rd") MiB: ratio $(ratio "$ro" "$rd")" "$r"
		done
		verdict "T6 [$c] tar2sqfs peak RSS <= Debian's tar2sqfs (at $N jobs)" $ok $bad $nan
		printf '%s' "$lines"
	done

	for c in $full; do
		ok=0 bad=0 nan=0 lines=""
		for comp in gzip xz zstd; do
			t1=$(q sec "$c" pack "$comp" ours 1)
			t2j=$(q sec "$c" pack "$comp" ours 2)
			e=$(calc '%.3f' "$t1" "$t2j" 'b > 0 ? a / (2 * b) : "x"')
			if [ "$e" = n/a ]; then r=""; elif le 0.95 "$e"; then r=1; else r=0; fi
			judge "$comp: t(1)=$(t2 "$t1") s, t(2)=$(t2 "$t2j") s, efficiency $e" "$r"
		done
		verdict "T7 [$c] (issue 5) tar2sqfs parallel efficiency >= 0.95 at 2 jobs against 1 (gzip, xz, zstd)" $ok $bad $nan
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

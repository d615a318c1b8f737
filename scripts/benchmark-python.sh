#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark-python.sh: the Python package squashforge (python/)
# against its yardsticks (issue 25): reading every file of an image from
# Python against Python's tarfile reading the same files from the tar
# they came from, and against our sqfs2tar; writing a tree with
# Writer.add_tree against our gensquashfs with the same settings.
#
# Usage: scripts/benchmark-python.sh [OPTIONS]
#
# For each compressor C, our gensquashfs makes the image IMG of the tree
# once (-b BLOCK -j J, times and xattrs kept); then, warm (the tar, the
# tree and the image read once before), RUNS times each, rows in turn:
#   py-walk-read  Python: Image(IMG).walk("/"), every regular file
#                 (lstat) opened and read to its end, with readinto into
#                 one reused 1 MiB buffer (--py-read read: f.read())
#   tarfile-read  Python: tarfile over TAR, every regular member read to
#                 its end (extractfile(m).read()); hard links are not
#                 regular members, so it reads a few files fewer
#   sqfs2tar      our sqfs2tar -j J IMG > /dev/null
#   py-add-tree   Python: Writer(IMG2, C, block_size=BLOCK, jobs=J,
#                 mkfs_time=T).add_tree(TREE), close()
#   gensquashfs   our gensquashfs -k -x -j J -c C -b BLOCK
#                 -d uid=U,gid=G,mode=M,mtime=T -D TREE IMG3
# U, G, M, T: the owner, mode and mtime of TREE itself, which add_tree
# gives the image's root and gensquashfs takes from -d (T is also its
# creation time, hence mkfs_time=T). IMG2 and IMG3 are compared: byte
# for byte (cmp), and if they differ, their data (the bytes from the
# superblock to the inode table) and their trees, with our sqfsdiff -T
# (entries, contents, owners, modes, times). A tree of more than one
# owner gives different metadata: the writer numbers owners (the ID
# table) in the order it first meets them, and gensquashfs adds every
# directory, symlink and device before the files, add_tree in the order
# of the walk; the trees and the data are the same.
# (A tree owned by one user and group gives identical images.)
# Each run is timed by GNU time: wall, user + sys (cores = CPU / wall),
# peak RSS; the Python programs also time themselves from after their
# imports ("in-py": the interpreter's start left out). The table gives
# the medians and the ratios of the issue's targets:
#   py-walk-read / tarfile-read  <= 1.0
#   py-walk-read / sqfs2tar      <= 1.5
#   py-add-tree / gensquashfs    <= 1.1
# Output: raw rows in TSV (--report, default benchmark-python.tsv) and the
# table on standard output and in -o FILE (default benchmark-python.txt),
# headed by the date, cores (nproc), memory and load average.
#
# Options (lists take spaces or commas):
#  -c LIST         compressors (default "gzip xz lz4 zstd")
#  -j J            jobs of every tool and of the Writer (default 2)
#  -r RUNS         runs per row (default 3; the median is shown)
#  -b SIZE         block size (default 128K)
#  --rows LIST     rows (default "py-walk-read tarfile-read sqfs2tar
#                  py-add-tree gensquashfs")
#  --build DIR     our build tree, configured --with-python (default:
#                  _build): gensquashfs, sqfs2tar, sqfsdiff from
#                  DIR/.libs, the package from DIR/python/build/lib
#  --python PY     the interpreter (default: the PYTHON the build was
#                  configured with, else python3)
#  --py-read MODE  readinto (default) or read: how py-walk-read reads
#  --tree DIR      the tree (default /var/tmp/trees/rootfs)
#  --tar FILE      its tar (default /var/tmp/sqfs-corpus/rootfs.tar)
#  --scratch DIR   images (default /dev/shm, so that the disk does not
#                  time the tools)
#  --report FILE   the raw rows (default benchmark-python.tsv)
#  -o FILE         the table (default benchmark-python.txt)
#
# Duration, 2 cores: the packs dominate, 2 RUNS + 1 per compressor, each
# of the rootfs tree ~1 s with lz4, 12 s gzip, 22 s zstd, 38 s xz (our
# gensquashfs in benchmark.txt): the defaults take some 9 minutes,
# -r 1 -c lz4 some 10 s. Needs bash 5, GNU time.
set -u
export LC_ALL=C
unset SOURCE_DATE_EPOCH

die() { echo "benchmark-python: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
list() { echo "$1" | tr ',' ' ' | xargs; }
usage() { awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; }

[ "${BASH_VERSINFO[0]}" -ge 5 ] || die "needs bash 5"
top=$(cd "$(dirname "$0")/.." && pwd)
comps="gzip xz lz4 zstd" jobs=2 runs=3 block=128K build=_build py=""
rows="py-walk-read tarfile-read sqfs2tar py-add-tree gensquashfs"
py_read=readinto tree=/var/tmp/trees/rootfs tar=/var/tmp/sqfs-corpus/rootfs.tar
scratch=/dev/shm report=benchmark-python.tsv out=benchmark-python.txt
while [ $# -gt 0 ]; do
	case $1 in
	-c) comps=$(list "$2"); shift ;;
	-j) jobs=$2; shift ;;
	-r) runs=$2; shift ;;
	-b) block=$2; shift ;;
	--rows) rows=$(list "$2"); shift ;;
	--build) build=$2; shift ;;
	--python) py=$2; shift ;;
	--py-read) py_read=$2; shift ;;
	--tree) tree=$2; shift ;;
	--tar) tar=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	--report) report=$2; shift ;;
	-o) out=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option $1 (try --help)" ;;
	esac
	shift
done

case $py_read in readinto | read) ;; *) die "--py-read: readinto or read" ;; esac
for row in $rows; do
	case $row in
	py-walk-read | tarfile-read | sqfs2tar | py-add-tree | gensquashfs) ;;
	*) die "unknown row $row" ;;
	esac
done
case $block in
*K | *k) block_bytes=$((${block%?} * 1024)) ;;
*M | *m) block_bytes=$((${block%?} * 1048576)) ;;
*) block_bytes=$block ;;
esac
[[ $block_bytes =~ ^[0-9]+$ ]] || die "not a block size: $block"

build=$(cd "$build" 2>/dev/null && pwd) || die "no build tree $build"
libs=$build/.libs
for t in gensquashfs sqfs2tar sqfsdiff; do
	[ -x "$libs/$t" ] || die "no $libs/$t (make first)"
done
[ -d "$build/python/build/lib/squashforge" ] ||
	die "no Python package in $build/python/build/lib (configure --with-python, make)"
if [ -z "$py" ]; then
	py=$(sed -n 's/^PYTHON = //p' "$build/Makefile" 2>/dev/null)
	py=${py:-python3}
fi
command -v "$py" >/dev/null || die "no interpreter $py"
TIME=/usr/bin/time
[ -x "$TIME" ] || die "missing $TIME (Debian: time)"
[ -d "$tree" ] || die "no tree $tree"
[ -f "$tar" ] || die "no tar $tar"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$build/python/build/lib${PYTHONPATH:+:$PYTHONPATH}"
versions=$("$py" -c 'import sys, squashforge as s
print("Python %s, squashforge %s, libsquashfs %s" % (sys.version.split()[0],
      s.__version__, s.library_version()))') ||
	die "$py cannot import squashforge from $build"

work=$(mktemp -d "$scratch/bench-py.XXXXXX") || die "no scratch dir in $scratch"
trap 'rm -rf "$work"' EXIT
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
date_start=$(date -u '+%Y-%m-%d %H:%M')

# The Python programs: each prints "FILES BYTES SECONDS" (what it read or
# the image's size, and its own time after the imports).
cat >"$work/walk-read.py" <<'EOF'
import posixpath
import stat
import sys
import time

import squashforge

t0 = time.perf_counter()
files = total = 0
with squashforge.Image(sys.argv[1]) as img:
    if sys.argv[2] == "readinto":
        view = memoryview(bytearray(1 << 20))
        for top, dirs, names in img.walk("/"):
            for name in names:
                path = posixpath.join(top, name)
                if not stat.S_ISREG(img.lstat(path).st_mode):
                    continue
                with img.open(path) as f:
                    while n := f.readinto(view):
                        total += n
                files += 1
    else:
        for top, dirs, names in img.walk("/"):
            for name in names:
                path = posixpath.join(top, name)
                if not stat.S_ISREG(img.lstat(path).st_mode):
                    continue
                with img.open(path) as f:
                    total += len(f.read())
                files += 1
print(files, total, "%.4f" % (time.perf_counter() - t0))
EOF
cat >"$work/tarfile-read.py" <<'EOF'
import sys
import tarfile
import time

t0 = time.perf_counter()
files = total = 0
with tarfile.open(sys.argv[1]) as tf:
    for m in tf:
        if m.isreg():
            total += len(tf.extractfile(m).read())
            files += 1
print(files, total, "%.4f" % (time.perf_counter() - t0))
EOF
cat >"$work/add-tree.py" <<'EOF'
import os
import sys
import time

import squashforge

image, tree, comp, block, jobs, mkfs_time = sys.argv[1:7]
t0 = time.perf_counter()
w = squashforge.Writer(image, comp, block_size=int(block), jobs=int(jobs),
                       mkfs_time=int(mkfs_time))
w.add_tree(tree)
st = w.close()
print(st.files, os.path.getsize(image), "%.4f" % (time.perf_counter() - t0))
EOF

read -r root_mode root_uid root_gid root_mtime < <(stat -c '%a %u %g %Y' "$tree")
gs_opts=(-q -k -x -f -j "$jobs" -b "$block_bytes"
	-d "uid=$root_uid,gid=$root_gid,mode=0$root_mode,mtime=$root_mtime")

printf 'comp\trow\trun\twall_s\tusr_s\tsys_s\trss_kb\tinner_s\tfiles\tbytes\tstatus\n' >"$report"

# measure COMP ROW RUN -- COMMAND...: one timed run, its row in the report
measure() {
	local comp=$1 row=$2 r=$3 rc wall usr sys rss files bytes inner status
	shift 4
	rm -f "$work/time"
	# sqfs2tar's archive goes to /dev/null; the others print a line
	local to=$work/stdout
	[ "$row" != sqfs2tar ] || to=/dev/null
	"$TIME" -f '%e %U %S %M' -o "$work/time" "$@" >"$to" 2>"$work/stderr"
	rc=$?
	read -r wall usr sys rss < <(tail -n 1 "$work/time")
	files=- bytes=- inner=-
	case $row in
	py-* | tarfile-*) read -r files bytes inner <"$work/stdout" ;;
	esac
	case $row in
	gensquashfs) bytes=$(stat -c %s "$work/gs.sqfs" 2>/dev/null || echo -) ;;
	esac
	status=ok
	if [ "$rc" != 0 ]; then
		status="failed ($rc): $(tail -n 2 "$work/stderr" | tr '\t\n' '  ')"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$comp" "$row" "$r" \
		"${wall:-0}" "${usr:-0}" "${sys:-0}" "${rss:-0}" "${inner:--}" \
		"${files:--}" "${bytes:--}" "$status" >>"$report"
	log "$comp $row #$r: ${wall:-?} s, $(awk -v u="${usr:-0}" -v s="${sys:-0}" -v w="${wall:-0}" 'BEGIN { printf "%.2f", (w > 0 ? (u + s) / w : 0) }') cores, ${rss:-?} KB, $status"
}

log "warming the page cache: $tar, $tree"
cat "$tar" >/dev/null
tar -C "$tree" -cf - . | cat >/dev/null
: >"$work/images"
for comp in $comps; do
	img=$work/$comp.sqfs
	log "$comp: the image to read"
	"$libs/gensquashfs" "${gs_opts[@]}" -c "$comp" -D "$tree" "$img" ||
		die "gensquashfs -c $comp failed"
	cat "$img" >/dev/null
	for r in $(seq 1 "$runs"); do
		for row in $rows; do
			case $row in
			py-walk-read)
				measure "$comp" "$row" "$r" -- "$py" "$work/walk-read.py" \
					"$img" "$py_read" ;;
			tarfile-read)
				measure "$comp" "$row" "$r" -- "$py" "$work/tarfile-read.py" "$tar" ;;
			sqfs2tar)
				measure "$comp" "$row" "$r" -- "$libs/sqfs2tar" -j "$jobs" "$img" ;;
			py-add-tree)
				rm -f "$work/py.sqfs"
				measure "$comp" "$row" "$r" -- "$py" "$work/add-tree.py" \
					"$work/py.sqfs" "$tree" "$comp" "$block_bytes" "$jobs" "$root_mtime" ;;
			gensquashfs)
				rm -f "$work/gs.sqfs"
				measure "$comp" "$row" "$r" -- "$libs/gensquashfs" "${gs_opts[@]}" \
					-c "$comp" -D "$tree" "$work/gs.sqfs" ;;
			esac
		done
	done
	# the two images of the tree, Writer.add_tree's and gensquashfs's
	if [ -f "$work/py.sqfs" ] && [ -f "$work/gs.sqfs" ]; then
		if cmp -s "$work/py.sqfs" "$work/gs.sqfs"; then
			same="identical bytes ($(stat -c %s "$work/gs.sqfs") B)"
		else
			# the data (after the 96-byte superblock, up to the inode
			# table, whose start is at byte 64) and the trees
			tables=$(od -An -t u8 -j 64 -N 8 "$work/gs.sqfs" | tr -d ' ')
			if cmp -s -i 96 -n "$((tables - 96))" "$work/gs.sqfs" "$work/py.sqfs"; then
				data="data identical, metadata differs"
			else
				data="data differs"
			fi
			diff_out=$("$libs/sqfsdiff" -T -a "$work/gs.sqfs" -b "$work/py.sqfs" 2>&1)
			same="NOT identical ($data): $(stat -c %s "$work/py.sqfs") B (py-add-tree) vs $(stat -c %s "$work/gs.sqfs") B; sqfsdiff -T: $(echo "$diff_out" | tail -n 1)"
		fi
		echo "$comp	$same" >>"$work/images"
	fi
	rm -f "$img" "$work/py.sqfs" "$work/gs.sqfs"
done

# ---------------------------------------------------------------- report
{
	echo "python benchmark: $date_start UTC, $(nproc) cores," \
		"$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
		"load average $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	echo "ours: $build ($(git -C "$top" log -1 --format=%h 2>/dev/null || echo '?')); $py: $versions"
	echo "tree $tree, tar $tar; -j $jobs, block $block_bytes; warm, median of $runs;" \
		"py-walk-read reads with $py_read"
	echo
	awk -F'\t' -v imgs="$work/images" '
	BEGIN {
		while ((getline l < imgs) > 0) {
			i = index(l, "\t")
			same[substr(l, 1, i - 1)] = substr(l, i + 1)
		}
	}
	NR == 1 { next }
	{
		k = $1 SUBSEP $2
		if (!(k in n)) { order[++rows] = k }
		if (!($1 in seen)) { seen[$1] = 1; comps[++ncomp] = $1 }
		n[k]++; w[k, n[k]] = $4; c[k, n[k]] = $4 > 0 ? ($5 + $6) / $4 : 0
		in_[k, n[k]] = $8 == "-" ? -1 : $8
		if ($7 > rss[k]) rss[k] = $7
		files[k] = $9; bytes[k] = $10
		if ($11 != "ok") bad[k] = $11
	}
	function median(k, arr,    i, j, m, t, v) {
		m = n[k]
		for (i = 1; i <= m; i++) v[i] = arr[k, i]
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	function ratio(comp, a, b, target,    ka, kb, r) {
		ka = comp SUBSEP a; kb = comp SUBSEP b
		if (!(ka in n) || !(kb in n) || (ka in bad) || (kb in bad) || med[kb] <= 0)
			return
		r = med[ka] / med[kb]
		printf "  %-28s %5.2f  (target <= %.1f: %s)\n", a " / " b, r, target,
		    r <= target ? "met" : "NOT met"
	}
	END {
		printf "%-5s %-13s | %7s %7s %5s | %8s | %6s %11s | %s\n", "comp", "row",
		    "wall s", "in-py s", "cores", "RSS MB", "files", "bytes", "status"
		for (ci = 1; ci <= ncomp; ci++) {
			comp = comps[ci]
			for (r = 1; r <= rows; r++) {
				split(order[r], f, SUBSEP)
				if (f[1] != comp) continue
				k = order[r]
				med[k] = median(k, w)
				ip = median(k, in_)
				printf "%-5s %-13s | %7.2f %7s %5.2f | %8.1f | %6s %11s | %s\n",
				    comp, f[2], med[k], ip < 0 ? "-" : sprintf("%.2f", ip),
				    median(k, c), rss[k] / 1024, files[k], bytes[k],
				    (k in bad) ? bad[k] : "ok"
			}
			ratio(comp, "py-walk-read", "tarfile-read", 1.0)
			ratio(comp, "py-walk-read", "sqfs2tar", 1.5)
			ratio(comp, "py-add-tree", "gensquashfs", 1.1)
			if (comp in same)
				printf "  images of the tree: %s\n", same[comp]
			print ""
		}
	}' "$report"
} >"$out"
cat "$out"

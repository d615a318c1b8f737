#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/benchmark-mount.sh: times file access through a mounted SquashFS
# image, our FUSE daemon (sqfsmount) against squashfuse and the kernel, all
# mounting the same images in the same run (issue 23's targets).
#
# Usage: scripts/benchmark-mount.sh [OPTIONS]
#
# Images: /var/tmp/trees/rootfs plus fio/linux-200M.tar (the first 200 MiB
# of a tar of /var/tmp/trees/linux, sorted and with fixed owners and times:
# deterministic and compressible), packed by squashfs-tools 4.7.5 for every
# image, so only the mounters differ: lz4 = -comp lz4 -Xhc -b 128K,
# zstd = -comp zstd -b 128K, xz = -comp xz -b 1M. The image's root holds
# rootfs/ and fio/; the patterns run in rootfs/ (fio's in fio/).
# Patterns (those of the erofs-vs-squashfs seed benchmark, and more):
#   tar-cat   tar cf - . | cat > /dev/null          (sequential data)
#   tar-null  tar cf /dev/null .                     (GNU tar reads no data)
#   read-500  xargs -0 cat < 500 random files > /dev/null
#   stat-500  xargs -0 stat < the same 500 > /dev/null
#   read-all  every regular file, read in random order
#   stat-all  every regular file, stat'ed in random order
#   fio-seq   fio -filename=F -bs=4k -rw=read -name=job1 (the 200 MiB file)
#   fio-rand  the same with -rw=randread (the whole file, in 4 KiB reads)
#   par-tar   4 tars at once, each of a contiguous quarter (by bytes) of
#             the tree order (tar --null -T LIST | cat > /dev/null)
#   par-read  4 readers at once, each cat'ing a quarter of the random list
#   import    one process stats, opens and reads the first 4 KiB of 2,000
#             random files in tree order (scripts/mount-bench-import.py)
#   find-du   find . | wc -l; du -s .               (metadata walk)
# The random lists come from the source tree with a fixed seed
# (scripts/mount-bench-lists.py): every mounter gets the same files in the
# same order.
# Mounters: ours (sqfsmount -f IMG MNT), ll-0.6.2 (squashfuse_ll 0.6.2),
# ll-deb (Debian's /usr/bin/squashfuse_ll), hl-0.6.2 and hl-deb (the
# high-level squashfuse of each; not run by default), kernel (mount -t
# squashfs -o loop,ro). FUSE daemons run in the foreground (-f) as children
# of this script, so their pid is known.
# Every run is cold: a fresh mount (waited for with mountpoint -q), then
# sync and drop_caches, then the pattern, timed (wall, and the pattern's own
# user and system CPU). Before unmounting, the daemon's CPU time
# (utime + stime of /proc/PID/stat, all threads, mount included) and peak
# RSS (VmHWM) are read; CPU per byte = daemon CPU / bytes the pattern reads
# (patterns reading data only; /proc counts in 10 ms ticks, so daemons
# within two ticks of each other are reported "cpu ~", neither better). A
# run longer than --timeout is killed and recorded as "timeout": its row
# then shows ">S" (a lower bound), and a ratio against it "<R".
# Raw runs go to OUT.tsv; OUT gets, per (image, pattern), the median wall
# time of each mounter, ours / ll-0.6.2, ours / kernel, the daemons' CPU
# per byte and RSS, and pass/fail against the targets: every pattern at
# most 0.8x squashfuse_ll 0.6.2's time, their geometric mean (over patterns
# and images) at most 0.6x, daemon CPU per byte below squashfuse_ll's, and
# the sequential patterns (tar-cat, tar-null, fio-seq) within 1.2x of the
# kernel. Cores (nproc) and the load average at start are recorded.
#
# Options (lists take spaces or commas):
#  --build DIR      our build tree holding sqfsmount (default: _build);
#                   without it ours is skipped, with a note
#  --ref DIR        squashfs-tools 4.7.5 and squashfuse 0.6.2 binaries
#                   (default: $SQFS_REF_BIN, else /work/ref/bin, else
#                   _ref/bin, built by ../shared/reference/build.sh)
#  --images LIST    lz4, zstd, xz (default: all three)
#  --patterns LIST  (default: all, in the order above)
#  --mounters LIST  (default: ours,ll-0.6.2,ll-deb,kernel)
#  -r RUNS          runs per (image, pattern, mounter) (default: 3)
#  --timeout S      stop a run after S seconds (default: 300)
#  --work DIR       images, the fio file and the lists, kept between runs
#                   and made only when missing (default: /var/tmp/mount-bench;
#                   remove it after changing the trees or this script's
#                   images or lists)
#  --trees DIR      source trees (default: /var/tmp/trees)
#  --report TSV     no runs: the report of raw runs in TSV (several runs'
#                   files concatenated, header lines and all)
#  -o FILE          the report (default: benchmark-mount.txt; raw: FILE.tsv)
set -u

die() { echo "benchmark-mount: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
list() { echo "$1" | tr ',' ' ' | xargs; }

top=$(cd "$(dirname "$0")/.." && pwd)
build=_build ref=${SQFS_REF_BIN:-} images="lz4 zstd xz"
ALL_PATTERNS="tar-cat tar-null read-500 stat-500 read-all stat-all fio-seq fio-rand par-tar par-read import find-du"
patterns=$ALL_PATTERNS
mounters="ours ll-0.6.2 ll-deb kernel" runs=3 limit=300
work=/var/tmp/mount-bench treedir=/var/tmp/trees report_only='' out=benchmark-mount.txt
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift ;;
	--ref) ref=$2; shift ;;
	--images) images=$(list "$2"); shift ;;
	--patterns) patterns=$(list "$2"); shift ;;
	--mounters) mounters=$(list "$2"); shift ;;
	-r) runs=$2; shift ;;
	--timeout) limit=$2; shift ;;
	--work) work=$2; shift ;;
	--trees) treedir=$2; shift ;;
	--report) report_only=$2; shift ;;
	-o) out=$2; shift ;;
	-h | --help) awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; exit 0 ;;
	*) die "unknown option $1 (try --help)" ;;
	esac
	shift
done

# the bytes of the fio file: 200 MiB
FIO_BYTES=209715200
SEQUENTIAL="tar-cat tar-null fio-seq"

mounter_bin() { # the daemon of a FUSE mounter
	case $1 in
	ours) echo "$OURS" ;;
	ll-0.6.2) echo "$ref/squashfuse_ll" ;;
	hl-0.6.2) echo "$ref/squashfuse" ;;
	ll-deb) echo /usr/bin/squashfuse_ll ;;
	hl-deb) echo /usr/bin/squashfuse ;;
	esac
}

if [ -n "$report_only" ]; then
	raw=$report_only
	notes="report of $raw (no runs)"
else
for i in $images; do
	case $i in lz4 | zstd | xz) ;; *) die "unknown image $i (lz4, zstd, xz)" ;; esac
done
for p in $patterns; do
	case " $ALL_PATTERNS " in
	*" $p "*) ;;
	*) die "unknown pattern $p" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "must run as root (drop_caches, kernel mounts)"
[ -e /dev/fuse ] || die "no /dev/fuse"
if [ -z "$ref" ]; then
	ref=/work/ref/bin
	[ -x "$ref/mksquashfs" ] || ref=$top/_ref/bin
fi
"$ref/mksquashfs" -version 2>/dev/null | head -1 | grep -q 'version 4\.7' ||
	die "$ref/mksquashfs is not squashfs-tools 4.7 (give --ref DIR)"
for t in fio python3 fusermount3 mountpoint /usr/bin/time; do
	command -v "$t" >/dev/null || die "missing $t"
done
notes=
OURS=
keep=
for m in $mounters; do
	case $m in
	ours)
		if [ -x "$build/.libs/sqfsmount" ]; then
			OURS=$(cd "$build" && pwd)/.libs/sqfsmount
		elif [ -x "$build/sqfsmount" ]; then
			OURS=$(cd "$build" && pwd)/sqfsmount
		else
			log "NOTE: no sqfsmount in $build: ours is skipped"
			notes="$notes ours skipped (no sqfsmount in $build);"
			continue
		fi
		;;
	kernel)
		grep -qw squashfs /proc/filesystems || modprobe squashfs 2>/dev/null ||
			{ notes="$notes kernel skipped (no squashfs);"; continue; }
		;;
	ll-0.6.2 | hl-0.6.2 | ll-deb | hl-deb)
		[ -x "$(mounter_bin "$m")" ] ||
			{ log "NOTE: no $(mounter_bin "$m"): $m skipped"; notes="$notes $m skipped;"; continue; }
		;;
	*) die "unknown mounter $m (ours, ll-0.6.2, hl-0.6.2, ll-deb, hl-deb, kernel)" ;;
	esac
	keep="$keep $m"
done
mounters=$(list "$keep")
[ -n "$mounters" ] || die "no mounter to run"
mkdir -p "$work" || die "cannot make $work"
work=$(cd "$work" && pwd)
raw=$out.tsv
load=$(cut -d' ' -f1-3 /proc/loadavg)
TICK=$(getconf CLK_TCK)

# ---------------------------------------------------------------- inputs
# Each input is made under a temporary name and renamed when complete, so an
# interrupted run never leaves a half-made input that looks cached.
if [ ! -f "$work/fio/linux-200M.tar" ]; then
	log "making $work/fio/linux-200M.tar"
	mkdir -p "$work/fio"
	[ -d "$treedir/linux" ] || die "no $treedir/linux"
	tar -C "$treedir/linux" --sort=name --mtime=@0 --owner=0 --group=0 \
		--numeric-owner --format=gnu -cf - . 2>/dev/null |
		head -c "$FIO_BYTES" >"$work/fio/.tmp.tar"
	[ "$(stat -c %s "$work/fio/.tmp.tar")" = "$FIO_BYTES" ] ||
		die "$treedir/linux holds less than 200 MiB"
	mv "$work/fio/.tmp.tar" "$work/fio/linux-200M.tar"
fi
if [ ! -f "$work/lists/bytes.tsv" ]; then
	log "making the file lists in $work/lists"
	rm -rf "$work/lists.tmp"
	python3 "$top/scripts/mount-bench-lists.py" "$treedir/rootfs" \
		"$work/lists.tmp" 23 || die "making the lists failed"
	mv "$work/lists.tmp" "$work/lists"
fi
image() { echo "$work/rootfs-$1.sqfs"; }
for i in $images; do
	[ -f "$(image "$i")" ] && continue
	case $i in
	lz4) opts="-comp lz4 -Xhc -b 128K" ;;
	zstd) opts="-comp zstd -b 128K" ;;
	xz) opts="-comp xz -b 1M" ;;
	esac
	log "packing $(image "$i") ($opts)"
	# shellcheck disable=SC2086 # opts are words
	"$ref/mksquashfs" "$treedir/rootfs" "$work/fio" "$work/.tmp.sqfs" \
		-noappend $opts -quiet -no-progress >/dev/null ||
		die "mksquashfs failed"
	mv "$work/.tmp.sqfs" "$(image "$i")"
done

# ---------------------------------------------------------------- mounts
MNT=$work/mnt
mkdir -p "$MNT"
mpid='' mkind=''
# unmount MNT and end the daemon, however the run ended
unmount() {
	if [ "$mkind" = kernel ]; then
		mountpoint -q "$MNT" && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }
	elif [ -n "$mkind" ]; then
		if mountpoint -q "$MNT" 2>/dev/null || grep -q " $MNT fuse" /proc/mounts; then
			fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -uz "$MNT" 2>/dev/null ||
				umount -l "$MNT" 2>/dev/null
		fi
		if [ -n "$mpid" ]; then
			local n=0
			while kill -0 "$mpid" 2>/dev/null && [ $n -lt 50 ]; do
				sleep 0.1
				n=$((n + 1))
			done
			kill -9 "$mpid" 2>/dev/null
			wait "$mpid" 2>/dev/null
		fi
	fi
	mpid='' mkind=''
}
trap 'unmount' EXIT
trap 'log "interrupted"; exit 130' INT TERM

# mount MOUNTER IMAGE: sets mpid (FUSE) and mkind; fails if not ready in 20 s
do_mount() {
	mkind=$1
	if [ "$1" = kernel ]; then
		mount -t squashfs -o loop,ro "$2" "$MNT" || return 1
	else
		local bin
		bin=$(mounter_bin "$1")
		if [ "$1" = ours ]; then
			LD_LIBRARY_PATH="$(dirname "$bin")" "$bin" -f "$2" "$MNT" \
				>"$work/daemon.log" 2>&1 &
		else
			"$bin" -f "$2" "$MNT" >"$work/daemon.log" 2>&1 &
		fi
		mpid=$!
	fi
	local n=0
	until mountpoint -q "$MNT"; do
		if [ -n "$mpid" ] && ! kill -0 "$mpid" 2>/dev/null; then
			log "$1 exited before mounting:"
			sed 's/^/    /' "$work/daemon.log" >&2
			return 1
		fi
		[ $n -ge 1000 ] && { log "$1: not mounted after 20 s"; return 1; }
		sleep 0.02
		n=$((n + 1))
	done
}

# the command of a pattern, run by bash -c in $MNT/rootfs
pattern_cmd() {
	local L=$work/lists
	case $1 in
	tar-cat) echo 'tar cf - . | cat >/dev/null' ;;
	tar-null) echo 'tar cf /dev/null .' ;;
	read-500) echo "xargs -0 cat <$L/random-500.lst >/dev/null" ;;
	stat-500) echo "xargs -0 stat <$L/random-500.lst >/dev/null" ;;
	read-all) echo "xargs -0 cat <$L/random.lst >/dev/null" ;;
	stat-all) echo "xargs -0 stat <$L/random.lst >/dev/null" ;;
	fio-seq | fio-rand)
		local rw=read
		[ "$1" = fio-rand ] && rw=randread
		echo "fio -filename=../fio/linux-200M.tar -bs=4k -rw=$rw -name=job1 --readonly --output-format=json --output=$work/fio.json"
		;;
	par-tar | par-read)
		local n s=
		for n in 0 1 2 3; do
			if [ "$1" = par-tar ]; then
				s="$s tar -cf - --null -T $L/par-tar-$n.lst | cat >/dev/null & p$n=\$!;"
			else
				s="$s xargs -0 cat <$L/par-read-$n.lst >/dev/null & p$n=\$!;"
			fi
		done
		echo "$s r=0; for p in \$p0 \$p1 \$p2 \$p3; do wait \$p || r=1; done; exit \$r"
		;;
	import) echo "python3 $top/scripts/mount-bench-import.py $L/import.lst >/dev/null" ;;
	find-du) echo 'find . | wc -l >/dev/null && du -s . >/dev/null' ;;
	esac
}

pattern_bytes() {
	case $1 in
	fio-seq | fio-rand) echo "$FIO_BYTES" ;;
	*) awk -F'\t' -v p="$1" '$1 == p { print $2; f = 1 } END { if (!f) print 0 }' \
		"$work/lists/bytes.tsv" ;;
	esac
}

# run_one IMAGE PATTERN MOUNTER RUN: one cold run, one line of $raw
run_one() {
	local img=$1 pat=$2 m=$3 r=$4 t0 t1 t2 rc wall usr sys cpu=- rss=- mibs=- status
	t0=${EPOCHREALTIME/./}
	if ! do_mount "$m" "$(image "$img")"; then
		unmount
		printf '%s\t%s\t%s\t%s\tfail\t-\t-\t-\t-\t-\t-\t-\t-\n' "$img" "$pat" "$m" "$r" >>"$raw"
		return 1
	fi
	t1=${EPOCHREALTIME/./}
	sync
	echo 3 >/proc/sys/vm/drop_caches
	rm -f "$work/fio.json"
	t2=${EPOCHREALTIME/./}
	(cd "$MNT/rootfs" && /usr/bin/time -f '%U %S' -o "$work/time.out" \
		timeout -k 5 "$limit" bash -c "$(pattern_cmd "$pat")") \
		>"$work/pattern.out" 2>&1
	rc=$?
	local t3=${EPOCHREALTIME/./}
	wall=$(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
	read -r usr sys < <(tail -n 1 "$work/time.out")
	if [ -n "$mpid" ] && [ -r "/proc/$mpid/stat" ]; then
		# fields after the ")" of the command name: utime is the 12th
		cpu=$(sed 's/.*) //' "/proc/$mpid/stat" |
			awk -v t="$TICK" '{ printf "%.2f", ($12 + $13) / t }')
		rss=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$mpid/status")
	fi
	unmount
	status=ok
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status=timeout
		wall=-$limit
	elif [ "$rc" != 0 ]; then
		# tar says 1 when a file changed while read: impossible on a
		# read-only image, so any other status is a failure
		status=fail
		log "FAILED ($rc): $img $pat $m"
		tail -5 "$work/pattern.out" | sed 's/^/    /' >&2
	fi
	if [ "$status" = ok ] && [ -s "$work/fio.json" ]; then
		mibs=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print("%.1f" % (j["bw_bytes"] / 1048576))' "$work/fio.json")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$img" "$pat" \
		"$m" "$r" "$status" "$wall" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')" \
		"$usr" "$sys" "$cpu" "$rss" "$(pattern_bytes "$pat")" "$mibs" >>"$raw"
	log "$img $pat $m #$r: $status ${wall#-} s (mount $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e6 }') s), client ${usr}u ${sys}s, daemon cpu $cpu s, rss $rss KB, fio $mibs MiB/s"
}

notes=$(echo "$notes load at start $load; $(nproc) cores" | sed "s/^ *//")
{
	printf '# mount benchmark %s UTC, %s cores, load %s, runs %s, timeout %s s\n' \
		"$(date -u '+%Y-%m-%d %H:%M')" "$(nproc)" "$load" "$runs" "$limit"
	for m in $mounters; do
		case $m in
		kernel) printf '# kernel: %s\n' "$(uname -r)" ;;
		ours)
			# the commit of the sources the build tree was configured from
			src=$(sed -n 's/^abs_top_srcdir = //p' "$build/Makefile" 2>/dev/null)
			printf '# ours: %s (%s)\n' "$OURS" \
				"$(git -C "${src:-$top}" log -1 --format=%h 2>/dev/null || echo '?')"
			;;
		*) printf '# %s: %s\n' "$m" "$("$(mounter_bin "$m")" -V 2>&1 | head -1)" ;;
		esac
	done
	printf 'image\tpattern\tmounter\trun\tstatus\twall\tmount_s\tusr\tsys\tdaemon_cpu\trss_kb\tbytes\tmib_s\n'
} >"$raw"
for i in $images; do
	for p in $patterns; do
		for r in $(seq 1 "$runs"); do
			for m in $mounters; do run_one "$i" "$p" "$m" "$r"; done
		done
	done
done
rmdir "$MNT" 2>/dev/null
fi

# ---------------------------------------------------------------- report
{
	echo "mount benchmark report: $notes"
	grep '^# ' "$raw" | sort -u | sed 's/^# /  /'
	echo "Wall time (s, median of the runs; >S: stopped at S s), cold: a fresh mount and dropped caches per run."
	echo "o/ll = ours / squashfuse_ll 0.6.2 (target <= 0.8); o/k = ours / kernel (target <= 1.2 for $SEQUENTIAL)."
	echo "CPU: the daemon's ns per byte read (target: ours below ll-0.6.2); RSS: the daemon's peak, MiB."
	echo
	awk -F'\t' -v seqs="$SEQUENTIAL" '
	/^#/ || $1 == "image" { next }
	{
		k = $1 SUBSEP $2 SUBSEP $3
		if (!(k in n)) n[k] = 0
		if ($5 == "fail") { failed[k] = 1; next }
		if ($5 == "timeout") { capped[k] = 1; if ($6 < 0) $6 = -$6 }
		n[k]++; w[k, n[k]] = $6
		# a run cut short read fewer bytes than the pattern does: no CPU per byte
		if ($5 == "ok" && $10 != "-" && $12 > 0) {
			nc[k]++; c[k, nc[k]] = $10 * 1e9 / $12; cs[k, nc[k]] = $10
		}
		if ($11 != "-" && $11 > rss[k]) rss[k] = $11
		if ($13 != "-") { nf[k]++; f[k, nf[k]] = $13 }
		row = $1 SUBSEP $2
		if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
		if (!($3 in mseen)) { mseen[$3] = 1; ms[++nm] = $3 }
	}
	function median(k, arr, cnt,    i, j, m, t, v) {
		m = cnt
		for (i = 1; i <= m; i++) v[i] = arr[k, i]
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	function tm(k) {
		if (k in failed && !n[k]) return "fail"
		if (!(k in n) || !n[k]) return "-"
		return sprintf("%s%.2f", (k in capped) ? ">" : "", median(k, w, n[k]))
	}
	function val(k) { return (k in n && n[k]) ? median(k, w, n[k]) : 0 }
	BEGIN { split(seqs, sq, " "); for (i in sq) isseq[sq[i]] = 1 }
	END {
		# mounters in a fixed order, whichever ran
		split("ours ll-0.6.2 ll-deb hl-0.6.2 hl-deb kernel", all, " ")
		for (i = 1; i <= 6; i++) if (all[i] in mseen) col[++ncol] = all[i]
		printf "%-5s %-9s", "image", "pattern"
		for (i = 1; i <= ncol; i++) printf " %9s", col[i]
		printf " | %6s %6s | %s\n", "o/ll", "o/k", "verdict"
		gl = 0; gn = 0; allpass = 1
		for (r = 1; r <= rows; r++) {
			split(order[r], x, SUBSEP)
			printf "%-5s %-9s", x[1], x[2]
			for (i = 1; i <= ncol; i++) printf " %9s", tm(order[r] SUBSEP col[i])
			ko = order[r] SUBSEP "ours"; kl = order[r] SUBSEP "ll-0.6.2"
			kk = order[r] SUBSEP "kernel"
			verdict = ""; ol = "-"; ok = "-"
			if (val(ko) > 0 && !(ko in capped) && val(kl) != 0) {
				ratio = val(ko) / val(kl)
				ol = sprintf("%s%.2f", (kl in capped) ? "<" : "", ratio)
				gl += log(ratio); gn++
				verdict = verdict (ratio <= 0.8 ? "time ok" : "TIME-NOT-MET")
			} else if (ko in n) {
				verdict = "TIME-NOT-MET"
			}
			if (val(ko) > 0 && !(ko in capped) && val(kk) > 0) {
				kr = val(ko) / val(kk)
				ok = sprintf("%.2f", kr)
				if (x[2] in isseq)
					verdict = verdict (kr <= 1.2 ? ", kernel ok" : ", KERNEL-NOT-MET")
			}
			# /proc/PID/stat counts CPU time in ticks (10 ms): closer
			# than two ticks, the daemons cannot be told apart
			if ((ko in nc) && (kl in nc) && median(kl, c, nc[kl]) > 0) {
				d = median(ko, cs, nc[ko]) - median(kl, cs, nc[kl])
				if (d < 0) d = -d
				if (d <= 0.02)
					verdict = verdict ", cpu ~ (within 2 ticks)"
				else
					verdict = verdict (median(ko, c, nc[ko]) < median(kl, c, nc[kl]) ? ", cpu ok" : ", CPU-NOT-MET")
			}
			if (verdict ~ /NOT-MET/) allpass = 0
			printf " | %6s %6s | %s\n", ol, ok, verdict
		}
		printf "\n%-5s %-9s", "image", "pattern"
		for (i = 1; i <= ncol; i++) if (col[i] != "kernel") printf " %12s", col[i] " cpu"
		for (i = 1; i <= ncol; i++) if (col[i] != "kernel") printf " %12s", col[i] " rss"
		printf " %8s\n", "fio MiB/s"
		for (r = 1; r <= rows; r++) {
			split(order[r], x, SUBSEP)
			printf "%-5s %-9s", x[1], x[2]
			for (i = 1; i <= ncol; i++) {
				if (col[i] == "kernel") continue
				k = order[r] SUBSEP col[i]
				printf " %12s", (k in nc) ? sprintf("%.2f", median(k, c, nc[k])) : "-"
			}
			for (i = 1; i <= ncol; i++) {
				if (col[i] == "kernel") continue
				k = order[r] SUBSEP col[i]
				printf " %12s", (k in rss) ? sprintf("%.1f", rss[k] / 1024) : "-"
			}
			s = ""
			for (i = 1; i <= ncol; i++) {
				k = order[r] SUBSEP col[i]
				if (k in nf) s = s sprintf(" %s=%.0f", col[i], median(k, f, nf[k]))
			}
			printf " %s\n", s == "" ? "-" : s
		}
		printf "\n"
		if (gn) {
			g = exp(gl / gn)
			printf "geometric mean of ours / ll-0.6.2 over %d rows: %.2f (target <= 0.6: %s)\n",
			    gn, g, g <= 0.6 ? "met" : "NOT MET"
			printf "every row: %s\n", allpass ? "all targets met" : "some targets NOT MET"
		} else {
			printf "no ratios: ours or ll-0.6.2 did not run\n"
		}
	}' "$raw"
} >"$out"
cat "$out"

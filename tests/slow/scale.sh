#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/slow/scale.sh: tar2sqfs on scripts/gentar's streams of 10^6
# entries (issue 24), checked as tests/integration/gentar.sh checks 10^5:
#  - "tree": the default tree (a flat directory of 250,000 entries and a
#    nested tree), shuffled (implicit parents, repeated paths), unicode
#    names;
#  - "flat": GNU tar's order, one directory of 999,999 entries (with
#    hard links and duplicate contents among them).
# Each stream is packed by tar2sqfs without touching the disk; the image,
# read by sqfs2tar and mounted by the kernel, must be GNU tar's view of
# the stream (names, types, modes, owners, sizes, times, link counts) and
# hold the bytes of GNU tar's extraction (lib_gentar.sh).
#
# Not part of make check: it takes an hour or more on 2 cores, most of it
# the kernel's lookups in the flat directory (each scans the directory's
# index: with the index tar2sqfs writes today, ~1 ms a lookup at 10^6
# entries). Run it from the build tree, as root for the kernel's mount:
#
#     sh ../tests/slow/scale.sh
#
# Environment: SCALE_N (default 1000000) entries per stream; GT_SCRATCH
# where GNU tar extracts, in a directory of its own (default $TMPDIR, else
# /var/tmp: 10^6 tiny files take ~5 GB of RAM on a tmpfs such as
# /dev/shm, and a few minutes to write on a disk);
# TAR2SQFS, SQFS2TAR, GENTAR the tools (default: this build's).
# tar2sqfs's wall time and peak RSS are printed (GNU time), for a person
# to read, not checked. Exit status as the integration tests': 0 pass, 1
# fail, 99 hard error.
abs_top_builddir=${abs_top_builddir:-$PWD}
abs_top_srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export abs_top_builddir abs_top_srcdir
GT_SCRATCH=${GT_SCRATCH:-${TMPDIR:-/var/tmp}}
. "$abs_top_srcdir/tests/integration/lib.sh"
. "$abs_top_srcdir/tests/integration/lib_gentar.sh"

N=${SCALE_N:-1000000}
gt_new tree -n "$N" --order shuffled --names unicode
gt_new flat -n "$N" --big-dir "$N"

for name in tree flat; do
	gt_check_members "$name"
	expect_eq "$name: entries" "$(gt_summary "$name" entries)" "$N"
	check "$name: has hard links" test "$(gt_summary "$name" links)" -gt 0
	check "$name: has duplicate contents" \
		test "$(gt_summary "$name" duplicates)" -gt 0
	one=$(gt_run "$name" | sha256sum)
	expect_eq "$name: the same options give the same bytes" \
		"$(gt_run "$name" | sha256sum)" "$one"
	# lz4: xz costs tar2sqfs ~0.4 ms of CPU per tiny file today (20+
	# minutes at 10^6 on a busy 2-core machine), and sqfs2tar as much
	GT_TIME=1 gt_check_image "$name" -c lz4
done
expect_eq "flat: entries of the flat directory" \
	"$(gt_summary flat big_dir_entries)" $((N - 1))
check "tree: has implicit parents" \
	test "$(gt_summary tree implicit_dirs)" -gt 0
check "tree: has repeated paths" test "$(gt_summary tree repeats)" -gt 0

finish

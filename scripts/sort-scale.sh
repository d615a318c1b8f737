#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/sort-scale.sh: how gensquashfs's --sort-file scales with a sort
# file that names every file of a big tree (not part of make check).
#
# Usage: scripts/sort-scale.sh [-n FILES] [-o OLD_BUILD] [BUILD]
#
# Makes a tree of FILES small files (default 100000) in 100 directories
# and a sort file of one exact rule per file (in shuffled order, with
# priorities that reverse the tree's order) plus a few glob rules, some
# before and some after exact rules that they also match. Packs it with
# BUILD's gensquashfs (default: _build) without and with the sort file,
# and prints the times; with -o, also with OLD_BUILD's gensquashfs, whose
# image must be the same bytes. Scratch space: $TMPDIR (default /tmp).
set -euo pipefail
export LC_ALL=C TZ=UTC
unset SOURCE_DATE_EPOCH

n=100000 old=
while getopts n:o: opt; do
	case $opt in
	n) n=$OPTARG ;;
	o) old=$OPTARG ;;
	*) sed -n '3,15p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=${1:-_build}
tool() { # BUILD: its gensquashfs binary (not the libtool wrapper)
	if [ -x "$1/.libs/gensquashfs" ]; then
		echo "$1/.libs/gensquashfs"
	else
		echo "$1/gensquashfs"
	fi
}
new_gs=$(tool "$build")
[ -x "$new_gs" ] || { echo "no gensquashfs in $build" >&2; exit 2; }
export LD_LIBRARY_PATH=$build/.libs${old:+:$old/.libs}

work=$(mktemp -d "${TMPDIR:-/tmp}/sort-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$n" <<'EOF'
import os, random, sys
work, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
names = []
for i in range(n):
    d = "d%03d" % (i % 100)
    os.makedirs(os.path.join(work, "tree", d), exist_ok=True)
    name = "%s/f%07d" % (d, i)
    with open(os.path.join(work, "tree", name), "w") as f:
        f.write("file %d\n" % i)
    names.append(name)
rules = ["%d %s" % (n - i, name) for i, name in enumerate(names)]
random.shuffle(rules)
# globs that also match: one before the exact rules of d000 (it wins
# there), one after those of d001 (they win), one of two flags
rules.insert(0, "-5 [glob,dont_fragment] d000/*")
rules.append("-7 [glob] d001/*")
rules.insert(len(rules) // 2, "3 [glob_no_path,dont_compress] *9")
with open(os.path.join(work, "sort.txt"), "w") as f:
    f.write("\n".join(rules) + "\n")
EOF
echo "tree: $n files in 100 directories; sort file: $(wc -l <"$work/sort.txt") lines"

# run LABEL TOOL ARGS...: the time of one run
run() {
	local label=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" -q -j 2 -f -D "$work/tree" >/dev/null
	t1=$(date +%s.%N)
	printf '%-44s %8.2f s\n' "$label" "$(echo "$t1 - $t0" | bc)"
}

run "new, no sort file" "$new_gs" "$work/plain.sqfs"
run "new, sort file" "$new_gs" -S "$work/sort.txt" "$work/new.sqfs"
if [ -n "$old" ]; then
	old_gs=$(tool "$old")
	run "old ($old), sort file" "$old_gs" -S "$work/sort.txt" \
		"$work/old.sqfs"
	if cmp -s "$work/old.sqfs" "$work/new.sqfs"; then
		echo "old and new images: the same bytes"
	else
		echo "old and new images DIFFER" >&2
		exit 1
	fi
fi

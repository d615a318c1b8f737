#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/scale-checks.sh: gensquashfs on inputs that were quadratic
# before (not part of make check; times are for a person to read).
#
# Usage: scripts/scale-checks.sh [-n COUNT] [-o OLD] [BUILD]
#
#  - glob: a glob line over a tree of COUNT files, each with a second name
#    (a hard link): every link used to search the glob's whole list for
#    its first name;
#  - keys: an xattr file giving one entry 5000 keys (as many as fit the
#    64 KiB of names Linux lists), each given again COUNT / 5000 times
#    with another value (the last wins): each key used to be looked for
#    among the entry's keys, and the list grown by one;
#  - sort: a tree of COUNT small files and a sort file of one exact rule
#    per file (shuffled, with priorities that reverse the tree's order)
#    plus glob rules before and after exact rules they also match: every
#    file used to try every rule in turn.
# Prints the times of BUILD's gensquashfs (default: _build) and, with -o,
# of another (OLD: a build directory or a gensquashfs binary), and checks
# that both make the same images (an installed OLD binary may need
# LD_LIBRARY_PATH set to its library). Scratch space: $TMPDIR (default
# /tmp).
set -euo pipefail
export LC_ALL=C TZ=UTC
unset SOURCE_DATE_EPOCH

n=20000 old=
while getopts n:o: opt; do
	case $opt in
	n) n=$OPTARG ;;
	o) old=$OPTARG ;;
	*) sed -n '3,23p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-_build}" && pwd)
# BUILD or binary: its gensquashfs (in a build, libtool's wrapper, which
# finds that build's library)
tool() {
	if [ -f "$1" ]; then echo "$1"; else echo "$1/gensquashfs"; fi
}
gs=$(tool "$build")
[ -x "$gs" ] || { echo "no gensquashfs in $build" >&2; exit 2; }
[ -z "$old" ] || old=$(tool "$old")

work=$(mktemp -d "${TMPDIR:-/tmp}/scale-checks.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$n" <<'PY'
import os, random, sys
work, n = sys.argv[1], int(sys.argv[2])
tree = os.path.join(work, "in", "tree")
for d in range(100):
    os.makedirs(os.path.join(tree, "d%03d" % d))
    os.makedirs(os.path.join(work, "sorted", "d%03d" % d))
for i in range(n):
    p = os.path.join(tree, "d%03d" % (i % 100), "f%06d" % i)
    with open(p, "w") as f:
        f.write("%d\n" % i)
    os.link(p, os.path.join(tree, "d%03d" % ((i + 1) % 100), "l%06d" % i))
with open(os.path.join(work, "glob.list"), "w") as f:
    f.write("glob /t 0755 0 0 tree\n")
with open(os.path.join(work, "one.list"), "w") as f:
    f.write("dir /x 0755 0 0\n")
with open(os.path.join(work, "keys.txt"), "w") as f:
    f.write("# file: x\n")
    for i in range(max(n, 5000)):
        f.write('user.k%04d="v%d"\n' % (i % 5000, i))
random.seed(1)
names = []
for i in range(n):
    name = "d%03d/f%07d" % (i % 100, i)
    with open(os.path.join(work, "sorted", name), "w") as f:
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
PY

# run NAME TOOL ARGS...: the time, the image in $work/NAME.sqfs
run() {
	local name=$1 tool=$2 start end
	shift 2
	start=$(date +%s.%N)
	"$tool" -q -f -j2 -c gzip "$@" "$work/$name.sqfs"
	end=$(date +%s.%N)
	printf '%-28s %8.2f s\n' "$name" "$(echo "$end - $start" | bc)"
}

echo "glob: $n files with a hard link each, one glob line"
echo "keys: one entry, 5000 xattrs given $(( (n > 5000 ? n : 5000) / 5000 )) times each"
echo "sort: $n files, a sort file of $(wc -l <"$work/sort.txt") rules"
run glob-new "$gs" -F "$work/glob.list" -D "$work/in"
run keys-new "$gs" -F "$work/one.list" -A "$work/keys.txt"
run sort-none "$gs" -D "$work/sorted"
run sort-new "$gs" -S "$work/sort.txt" -D "$work/sorted"
if [ -n "$old" ]; then
	run glob-old "$old" -F "$work/glob.list" -D "$work/in"
	run keys-old "$old" -F "$work/one.list" -A "$work/keys.txt"
	run sort-old "$old" -S "$work/sort.txt" -D "$work/sorted"
	for c in glob keys sort; do
		"$build/sqfsdiff" -a "$work/$c-old.sqfs" -b "$work/$c-new.sqfs" \
			>/dev/null && echo "$c: the images are equal" ||
			{ echo "$c: the images differ"; exit 1; }
	done
	cmp -s "$work/sort-old.sqfs" "$work/sort-new.sqfs" &&
		echo "sort: the same bytes" ||
		{ echo "sort: the images differ in bytes"; exit 1; }
fi

#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/scale-checks.sh: gensquashfs on inputs that were quadratic
# before (not part of make check; times are for a person to read).
#
# Usage: scripts/scale-checks.sh [-n COUNT] [-o OLD_GENSQUASHFS] [BUILD]
#
#  - a glob line over a tree of COUNT files, each with a second name
#    (a hard link): every link used to search the glob's whole list for
#    its first name;
#  - an xattr file giving one entry 5000 keys (as many as fit the 64 KiB
#    of names Linux lists), each given again COUNT / 5000 times with
#    another value (the last wins): each key used to be looked for among
#    the entry's keys, and the list grown by one.
# Prints the times of BUILD's gensquashfs (default: _build) and, with -o,
# of another (an older build's, say), and checks both images are equal
# (sqfsdiff). Scratch space: $TMPDIR (default /tmp).
set -euo pipefail
export LC_ALL=C TZ=UTC
unset SOURCE_DATE_EPOCH

n=20000 old=
while getopts n:o: opt; do
	case $opt in
	n) n=$OPTARG ;;
	o) old=$OPTARG ;;
	*) sed -n '3,15p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-_build}" && pwd)
gs=$build/gensquashfs
[ -x "$gs" ] || { echo "no gensquashfs in $build" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/scale-checks.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$n" <<'EOF'
import os, sys
work, n = sys.argv[1], int(sys.argv[2])
tree = os.path.join(work, "in", "tree")
for d in range(100):
    os.makedirs(os.path.join(tree, "d%03d" % d))
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
EOF

# run NAME TOOL ARGS...: the time, the image in $work/NAME.sqfs
run() {
	local name=$1 tool=$2 start end
	shift 2
	start=$(date +%s.%N)
	"$tool" -q -f -j2 -c gzip "$@" "$work/$name.sqfs"
	end=$(date +%s.%N)
	printf '%-28s %8.2f s\n' "$name" "$(echo "$end - $start" | bc)"
}

echo "$n files with a hard link each, one glob line; one entry, 5000 xattrs given $(( (n > 5000 ? n : 5000) / 5000 )) times each"
run glob-new "$gs" -F "$work/glob.list" -D "$work/in"
run keys-new "$gs" -F "$work/one.list" -A "$work/keys.txt"
if [ -n "$old" ]; then
	run glob-old "$old" -F "$work/glob.list" -D "$work/in"
	run keys-old "$old" -F "$work/one.list" -A "$work/keys.txt"
	for c in glob keys; do
		"$build/sqfsdiff" -a "$work/$c-old.sqfs" -b "$work/$c-new.sqfs" \
			>/dev/null && echo "$c: the images are equal" ||
			{ echo "$c: the images differ"; exit 1; }
	done
fi

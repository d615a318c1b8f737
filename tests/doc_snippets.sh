#!/bin/sh
# SPDX-License-Identifier: MIT
# Every ```c block of doc/api-guide.md compiles against the library in the
# build tree with -std=c11 -Wall -Wextra -Werror; the blocks whose first
# line is "/* run */" are complete programs, linked and run in the order
# they appear, in one scratch directory, and each must exit with status 0
# (they check their own results; the first writes the image the others
# read).
#
# make check passes DOC_CC (the compiler), DOC_CFLAGS (the sanitizer flags
# the library was built with) and LIBTOOL in the environment.
set -u

top=${abs_top_builddir:-.}
src=${abs_top_srcdir:-$(dirname "$0")/..}
guide=$src/doc/api-guide.md
lib=$top/libsquashfs.la
CC=${DOC_CC:-cc}
LIBTOOL=${LIBTOOL:-$top/libtool}
CFLAGS="-std=c11 -Wall -Wextra -Werror ${DOC_CFLAGS:-}"

if [ ! -f "$guide" ] || [ ! -f "$lib" ]; then
	echo "ERROR: no $guide or no $lib"
	exit 99
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/doc-snippets.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 99' INT TERM HUP

# snippet-N.c for the N-th ```c block, in document order
awk -v dir="$work" '
	/^```c[ \t]*$/ { n += 1; out = sprintf("%s/snippet-%d.c", dir, n);
			 printf "" > out; inside = 1; next }
	inside && /^```[ \t]*$/ { close(out); inside = 0; next }
	inside { print >> out }
	END { if (inside) { print "unterminated block " n > "/dev/stderr";
			    exit 1 } }
' "$guide" || exit 99

count=$(ls "$work" | grep -c '^snippet-[0-9]*\.c$')
if [ "$count" -eq 0 ]; then
	echo "FAIL: no \`\`\`c block in $guide"
	exit 1
fi

fails=0
ran=0
i=1
while [ "$i" -le "$count" ]; do
	c=$work/snippet-$i.c
	first=$(sed -n '1p' "$c")
	if ! $CC $CFLAGS -I"$src/include" -c -o "$work/snippet-$i.o" "$c" \
		>"$work/cc-$i.log" 2>&1; then
		echo "FAIL: block $i does not compile:"
		cat "$work/cc-$i.log"
		fails=$((fails + 1))
	elif [ "$first" = "/* run */" ]; then
		if ! $LIBTOOL --quiet --tag=CC --mode=link $CC $CFLAGS \
			-o "$work/snippet-$i" "$work/snippet-$i.o" "$lib" \
			>"$work/ld-$i.log" 2>&1; then
			echo "FAIL: block $i does not link:"
			cat "$work/ld-$i.log"
			fails=$((fails + 1))
		elif (cd "$work" && "./snippet-$i") >"$work/run-$i.log" 2>&1; then
			echo "ok: block $i runs:"
			sed 's/^/    /' "$work/run-$i.log"
			ran=$((ran + 1))
		else
			echo "FAIL: block $i exits with status $?:"
			cat "$work/run-$i.log"
			fails=$((fails + 1))
		fi
	else
		echo "ok: block $i compiles"
	fi
	i=$((i + 1))
done

echo "$count blocks, $ran programs run, $fails failed"
[ "$fails" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library exports the public API and nothing else: every
# defined dynamic symbol starts with sqfs_ (the build hides the rest with
# -fvisibility=hidden), and every function a public header declares with
# SQFS_API is exported.
top=${abs_top_builddir:-.}
src=${abs_top_srcdir:-$(dirname "$0")/..}
lib=$top/.libs/libsquashfs.so
if [ ! -e "$lib" ]; then
	echo "no shared library in this build (configured --disable-shared)"
	exit 77
fi

syms=$(${NM:-nm} -D --defined-only "$lib" | awk '{ print $NF }' | sort -u)
if [ -z "$syms" ]; then
	echo "no symbols read from $lib"
	exit 99
fi

status=0
foreign=$(echo "$syms" | grep -v '^sqfs_')
if [ -n "$foreign" ]; then
	echo "exported, but not part of the API (no sqfs_ prefix):"
	echo "$foreign"
	status=1
fi

declared=$(ls "$src"/include/sqfs/*.h | grep -v /predef.h | xargs cat | tr '\n' ' ' |
	grep -o 'SQFS_API [^;(]*(' | sed 's/($//; s/.*[ *]//' | sort -u)
missing=$(echo "$declared" | grep -vxF "$syms")
if [ -n "$missing" ]; then
	echo "declared SQFS_API in include/sqfs, but not exported:"
	echo "$missing"
	status=1
fi

echo "$(echo "$syms" | wc -l) symbols exported, $(echo "$declared" | wc -l) declared"
exit $status

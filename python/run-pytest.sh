#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make check's run of the Python package's tests (python/tests, pytest)
# against the package built in this tree (python/build/lib) and the
# tree's libsquashfs (.libs). SQFS_PYTHON is the interpreter configure
# chose; the tests are skipped (77) only when it has no pytest.
#
# In a sanitizer build (configure --enable-sanitize) the library and the
# extension are instrumented but the interpreter is not: the sanitizer's
# run-time is preloaded into it, and leak checking is off (an
# interpreter frees little of what it holds at exit).

: "${abs_top_builddir:=$PWD}"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
PY=${SQFS_PYTHON:-python3}

if ! "$PY" -c 'import pytest' >/dev/null 2>&1; then
	echo "SKIP: $PY has no pytest (Debian: python3-pytest)"
	exit 77
fi

PYTHONPATH=$abs_top_builddir/python/build/lib${PYTHONPATH:+:$PYTHONPATH}
LD_LIBRARY_PATH=$abs_top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
SQFS_TOP_SRCDIR=$abs_top_srcdir
# nothing written into the source tree (read-only under distcheck)
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH LD_LIBRARY_PATH SQFS_TOP_SRCDIR PYTHONDONTWRITEBYTECODE

asan=$(ldd "$abs_top_builddir/.libs/libsquashfs.so" 2>/dev/null |
	awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	LD_PRELOAD=$asan${LD_PRELOAD:+:$LD_PRELOAD}
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export LD_PRELOAD ASAN_OPTIONS
fi

cd "${TMPDIR:-/tmp}" || exit 99
exec "$PY" -m pytest -p no:cacheprovider -q -ra \
	"$abs_top_srcdir/python/tests"

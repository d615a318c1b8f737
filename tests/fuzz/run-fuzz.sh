#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build the image-reader fuzz target with clang's libFuzzer, ASan and UBSan
# and run it for a while on the seed corpus.
#
# Usage: tests/fuzz/run-fuzz.sh [SECONDS]     (default 60)
#
# The library is configured in a separate build directory with CC=clang
# and the fuzzer's instrumentation (only libsqfs.la is built), then
# fuzz_image.c and the hostile-image exerciser are linked against it. The
# corpus starts from tests/fuzz/corpus, tests/fixtures/*.sqfs and a few
# images made here with mksquashfs.
#
# Environment: FUZZ_WORK=DIR keeps the build, corpus and findings there
# (default: a temporary directory, kept only if something was found);
# CC (default clang); FUZZ_ARGS: more libFuzzer options.
#
# Needs clang and its runtime (Debian 12: packages clang and
# libclang-rt-14-dev) and the library's build dependencies. Prints
# "fuzz: N executions in S s, C crashes" and exits 1 if anything was found,
# 77 if clang or libFuzzer is missing, 99 on a build failure.
set -u

SECS=${1:-60}
CC=${CC:-clang}
src=$(cd "$(dirname "$0")/../.." && pwd)
case $SECS in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS]" >&2
	exit 2
	;;
esac

if [ -n "${FUZZ_WORK:-}" ]; then
	work=$FUZZ_WORK
	mkdir -p "$work"
	keep=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX") || exit 99
	keep=0
fi
work=$(cd "$work" && pwd)
finish() {
	[ "$keep" = 1 ] || rm -rf "$work"
}
trap finish EXIT

# clang with a working libFuzzer?
cat >"$work/probe.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	return (int)(n && d[0] == 0);
}
EOF
if ! "$CC" -fsanitize=fuzzer,address,undefined "$work/probe.c" \
	-o "$work/probe" >"$work/probe.log" 2>&1; then
	echo "SKIP: fuzz: $CC cannot build a libFuzzer program:"
	head -n 5 "$work/probe.log"
	exit 77
fi

# the library, instrumented
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-g -O1 -fno-omit-frame-pointer $san -fsanitize=fuzzer-no-link"
bld=$work/build
if [ ! -f "$bld/libsqfs.la" ] || [ "$src/configure" -nt "$bld/Makefile" ]; then
	mkdir -p "$bld"
	(cd "$bld" && "$src/configure" -q CC="$CC" CFLAGS="$cflags" \
		--disable-shared --enable-static) >"$work/build.log" 2>&1 || {
		echo "fuzz: configure failed:"
		tail -n 20 "$work/build.log"
		exit 99
	}
fi
make -C "$bld" -j2 libsqfs.la >>"$work/build.log" 2>&1 || {
	echo "fuzz: building the library failed:"
	tail -n 30 "$work/build.log"
	exit 99
}
# the libraries libsqfs.la needs (zlib, liblzma, ...), from libtool
deps=$(sed -n "s/^dependency_libs='\(.*\)'/\1/p" "$bld/libsqfs.la")
# shellcheck disable=SC2086
"$CC" $cflags -fsanitize=fuzzer -I"$src/include" -I"$src/lib" \
	-I"$src/tests" -I"$bld" -o "$work/fuzz_image" \
	"$src/tests/fuzz/fuzz_image.c" "$src/tests/hostile/exercise.c" \
	"$bld/.libs/libsqfs.a" $deps -lpthread >>"$work/build.log" 2>&1 || {
	echo "fuzz: linking fuzz_image failed:"
	tail -n 30 "$work/build.log"
	exit 99
}

# the corpus: seeds, fixtures, and what earlier runs kept (FUZZ_WORK)
corpus=$work/corpus
mkdir -p "$corpus" "$work/findings"
cp "$src"/tests/fuzz/corpus/* "$src"/tests/fixtures/*.sqfs "$corpus/" ||
	exit 99
if [ -x /usr/bin/mksquashfs ]; then
	mkdir -p "$work/tree/sub"
	seq 1 700 >"$work/tree/sub/lines"
	echo tiny >"$work/tree/tiny"
	ln -sf tiny "$work/tree/link"
	for c in gzip xz zstd; do
		/usr/bin/mksquashfs "$work/tree" "$corpus/run-$c.sqfs" \
			-comp "$c" -b 4096 -nopad -noappend -quiet \
			-no-progress -processors 1 >/dev/null 2>&1
	done
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"
start=$(date +%s)
# shellcheck disable=SC2086
(cd "$work" && ./fuzz_image -max_total_time="$SECS" -max_len=65536 \
	-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
	-print_final_stats=1 -artifact_prefix="$work/findings/" \
	${FUZZ_ARGS:-} "$corpus") >"$work/fuzz.log" 2>&1
rc=$?
secs=$(($(date +%s) - start))

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" |
	tail -n 1)
found=$(find "$work/findings" -type f | wc -l)
echo "fuzz: ${execs:-0} executions in ${secs} s, $found crashes" \
	"(corpus $(find "$corpus" -type f | wc -l) inputs)"
if [ "$rc" != 0 ] || [ "$found" != 0 ]; then
	keep=1
	echo "fuzz: libFuzzer exit status $rc; findings and the log are in" \
		"$work"
	grep -m 1 -A 30 -E '==ERROR|runtime error|inconsistency|deadly signal' \
		"$work/fuzz.log"
	find "$work/findings" -type f
	exit 1
fi
exit 0

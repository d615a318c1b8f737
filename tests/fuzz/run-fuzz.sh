#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build a fuzz target with clang's libFuzzer, ASan and UBSan and run it
# for a while on its seed corpus.
#
# Usage: tests/fuzz/run-fuzz.sh [SECONDS [TARGET]]   (default 60 image)
#
# TARGET is image (fuzz_image.c: the image reader), fs (fuzz_fs.c: the
# file system object of sqfs/fs.h, from two threads, on the image corpus), codec (fuzz_codec.c:
# decompression and option strings of every compressor), tar (fuzz_tar.c: the
# tar entry reader of lib/tar) or listing (fuzz_listing.c: gensquashfs's
# pack-file, sort-file and xattr-file parsers, with libcommon.la) or pseudo
# (fuzz_pseudo.c: the mksquashfs personality's pseudo-file parser, with
# libgspack.la and libcommon.la). The libraries are configured in a
# separate build directory with CC=clang and the fuzzer's instrumentation
# (only libsqfs.la, and libtar.la for tar, are built), then the target is
# linked against them; libarchive is the system's, not instrumented. The
# image corpus starts from tests/fuzz/corpus, tests/fixtures/*.sqfs and a
# few images made here with mksquashfs; the tar corpus from
# tests/fuzz/corpus-tar, the codec corpus from tests/fuzz/corpus-codec, the
# listing corpus from tests/fuzz/corpus-listing, the pseudo corpus from
# tests/fuzz/corpus-pseudo.
#
# Environment: FUZZ_WORK=DIR keeps the build, corpora and findings there
# (default: a temporary directory, kept only if something was found);
# CC (default clang); FUZZ_ARGS: more libFuzzer options.
#
# Needs clang and its runtime (Debian 12: packages clang and
# libclang-rt-14-dev) and the library's build dependencies. Prints
# "fuzz: N executions in S s, C crashes (...)" and exits 1 if anything
# was found, 77 if clang or libFuzzer is missing, 99 on a build failure.
set -u

SECS=${1:-60}
TARGET=${2:-image}
CC=${CC:-clang}
src=$(cd "$(dirname "$0")/../.." && pwd)
case $SECS in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS [image|fs|tar|codec|listing|pseudo]]" >&2
	exit 2
	;;
esac
# what each target is made of, and where its files go in the work
# directory (the image target's names are those from before there were
# two, so that an existing FUZZ_WORK goes on being used)
case $TARGET in
image)
	libs="libsqfs.la"
	sources=("$src/tests/fuzz/fuzz_image.c" "$src/tests/hostile/exercise.c")
	seeds=corpus
	findings=findings
	log=fuzz.log
	dict=()
	;;
tar)
	libs="libtar.la libsqfs.la"
	sources=("$src/tests/fuzz/fuzz_tar.c")
	seeds="corpus-tar"
	findings="findings-tar"
	log="fuzz-tar.log"
	dict=(-dict="$src/tests/fuzz/tar.dict")
	;;
fs)
	libs="libsqfs.la"
	sources=("$src/tests/fuzz/fuzz_fs.c")
	seeds=corpus
	findings="findings-fs"
	log="fuzz-fs.log"
	dict=()
	;;
codec)
	libs="libsqfs.la"
	sources=("$src/tests/fuzz/fuzz_codec.c")
	seeds="corpus-codec"
	findings="findings-codec"
	log="fuzz-codec.log"
	dict=()
	;;
listing)
	libs="libcommon.la libsqfs.la"
	sources=("$src/tests/fuzz/fuzz_listing.c"
		"$src/tests/fuzz/fuzz_check.c"
		"$src/bin/gensquashfs/listing.c"
		"$src/bin/gensquashfs/entries.c"
		"$src/bin/gensquashfs/text.c"
		"$src/bin/gensquashfs/sort.c"
		"$src/bin/gensquashfs/xattr_file.c"
		"$src/bin/gensquashfs/scan.c")
	seeds="corpus-listing"
	findings="findings-listing"
	log="fuzz-listing.log"
	dict=()
	;;
pseudo)
	libs="libgspack.la libcommon.la libsqfs.la"
	sources=("$src/tests/fuzz/fuzz_pseudo.c"
		"$src/tests/fuzz/fuzz_check.c"
		"$src/bin/mksquashfs/pseudo.c"
		"$src/bin/mksquashfs/mode.c"
		"$src/bin/mksquashfs/policy.c"
		"$src/bin/mksquashfs/options.c")
	seeds="corpus-pseudo"
	findings="findings-pseudo"
	log="fuzz-pseudo.log"
	dict=()
	;;
*)
	echo "usage: $0 [SECONDS [image|fs|tar|codec|listing|pseudo]]" >&2
	exit 2
	;;
esac
prog=fuzz_$TARGET

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
# shellcheck disable=SC2086
make -C "$bld" -j2 $libs >>"$work/build.log" 2>&1 || {
	echo "fuzz: building the libraries failed:"
	tail -n 30 "$work/build.log"
	exit 99
}
# the static archives, then what they need (zlib, liblzma, libarchive,
# ...), from libtool
archives=
deps=
for la in $libs; do
	archives="$archives $bld/.libs/${la%.la}.a"
	deps="$deps $(sed -n "s/^dependency_libs='\(.*\)'/\1/p" "$bld/$la")"
done
# shellcheck disable=SC2086
"$CC" $cflags -fsanitize=fuzzer -I"$src/include" -I"$src/lib" \
	-I"$src/tests" -I"$src/bin" -I"$bld" -o "$work/$prog" \
	"${sources[@]}" $archives $deps -lpthread \
	>>"$work/build.log" 2>&1 || {
	echo "fuzz: linking $prog failed:"
	tail -n 30 "$work/build.log"
	exit 99
}

# the corpus: seeds, fixtures, and what earlier runs kept (FUZZ_WORK)
corpus=$work/$seeds
found_dir=$work/$findings
mkdir -p "$corpus" "$found_dir"
cp "$src/tests/fuzz/$seeds"/* "$corpus/" || exit 99
if [ "$TARGET" = image ] || [ "$TARGET" = fs ]; then
	cp "$src"/tests/fixtures/*.sqfs "$corpus/" || exit 99
fi
if { [ "$TARGET" = image ] || [ "$TARGET" = fs ]; } &&
	[ -x /usr/bin/mksquashfs ]; then
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
log=$work/$log
start=$(date +%s)
# shellcheck disable=SC2086
(cd "$work" && "./$prog" -max_total_time="$SECS" -max_len=65536 \
	-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
	-print_final_stats=1 -artifact_prefix="$found_dir/" "${dict[@]}" \
	${FUZZ_ARGS:-} "$corpus") >"$log" 2>&1
rc=$?
secs=$(($(date +%s) - start))

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
# the coverage libFuzzer reported last: "cov: EDGES ft: FEATURES"
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
found=$(find "$found_dir" -type f | wc -l)
echo "fuzz: ${execs:-0} executions in ${secs} s, $found crashes" \
	"($TARGET, ${cov:-cov: ?}, corpus $(find "$corpus" -type f | wc -l)" \
	"inputs)"
if [ "$rc" != 0 ] || [ "$found" != 0 ]; then
	keep=1
	echo "fuzz: libFuzzer exit status $rc; findings and the log are in" \
		"$work"
	grep -m 1 -A 30 -E '==ERROR|runtime error|inconsistency|deadly signal' \
		"$log"
	find "$found_dir" -type f
	exit 1
fi
exit 0

#!/bin/sh
# SPDX-License-Identifier: MIT
# write_errors.sh - an image whose last steps fail is not an image.
#
# fail_shim.so (preloaded) makes fsync or close of the image's temporary
# file fail with EIO, as a disk, a delayed allocation on a full file
# system or an NFS server can at that point. tar2sqfs and gensquashfs
# must exit non-zero, name the output and the reason, leave no image
# where there was none, leave an existing image (--force) byte for byte
# as it was, and leave no temporary file behind. A failing fsync of the
# directory after the move is reported the same way, and the complete
# image stays in place: only its name may not survive a crash.

. "$(dirname "$0")/lib.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
[ -x "$GS" ] || hard_error "no tool to test at $GS (set GS)"
SHIM=$abs_top_builddir/tests/integration/.libs/fail_shim.so
# make check builds the shim first
[ -f "$SHIM" ] || hard_error "no $SHIM (make check builds it)"

# shimmed VAR TOOL ARGS...: run TOOL with the shim and VAR=1; status in
# RC, stderr in $WORK/tool.err. The shim comes before the ASan runtime in
# the list of libraries of a sanitizer build.
shimmed() {
	local var=$1
	shift
	env "$var=1" LD_PRELOAD="$SHIM" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$@" >/dev/null 2>"$WORK/tool.err"
	RC=$?
	if [ "$RC" -ge 126 ]; then
		echo "$* died (status $RC):"
		cat "$WORK/tool.err"
	fi
	if grep -q 'Sanitizer\|runtime error' "$WORK/tool.err"; then
		fail "$*: sanitizer report"
		head -20 "$WORK/tool.err"
	fi
}

# refused WHAT IMAGE: the run failed, said why, and left no temporary file
refused() {
	local what=$1 image=$2
	check "$what: exit status is not 0" [ "$RC" != 0 ]
	check "$what: the message names the output and the reason" \
		grep -q "^[a-z0-9]*: $image: .*Input/output error" \
		"$WORK/tool.err"
	sed 's/^/  /' "$WORK/tool.err"
	leftover=$(find "$(dirname "$image")" -maxdepth 1 -name '.*.tmp')
	expect_eq "$what: no temporary file left" "$leftover" ""
}

ARCHIVE=$(gen mix)
OUT=$WORK/out
mkdir -p "$OUT"
SRC=$WORK/src
mkdir -p "$SRC/sub"
printf 'hello\n' >"$SRC/hello.txt"
head -c 300000 /dev/urandom >"$SRC/sub/big"

# the shim alone changes nothing
shimmed NOTHING "$TAR2SQFS" -q "$OUT/plain.sqfs" <"$ARCHIVE"
expect_eq "no failure asked for: exit status" "$RC" 0
"$UNSQUASHFS" -s "$OUT/plain.sqfs" >/dev/null 2>&1
expect_eq "no failure asked for: unsquashfs reads the image" "$?" 0

# an image that existed before (of another archive: not the bytes a run
# would write), and its checksum
"$TAR2SQFS" -q "$OUT/before.sqfs" <"$(gen types)" ||
	hard_error "tar2sqfs cannot make the existing image"
OLD_SUM=$(sum_of "$OUT/before.sqfs")

# fresh: no image from a case before, the existing image as it was
fresh() {
	rm -f "$OUT/new.sqfs" "$OUT/gs.sqfs"
	cp "$OUT/before.sqfs" "$OUT/old.sqfs"
}

for var in FAIL_FSYNC FAIL_CLOSE; do
	fresh
	shimmed "$var" "$TAR2SQFS" -q "$OUT/new.sqfs" <"$ARCHIVE"
	refused "tar2sqfs, $var, new image" "$OUT/new.sqfs"
	check "tar2sqfs, $var, new image: no image left" \
		[ ! -e "$OUT/new.sqfs" ]

	shimmed "$var" "$TAR2SQFS" -q --force "$OUT/old.sqfs" <"$ARCHIVE"
	refused "tar2sqfs --force, $var, existing image" "$OUT/old.sqfs"
	expect_eq "tar2sqfs --force, $var: the existing image is untouched" \
		"$(sum_of "$OUT/old.sqfs")" "$OLD_SUM"

	fresh
	shimmed "$var" "$GS" -q -D "$SRC" "$OUT/gs.sqfs"
	refused "gensquashfs, $var, new image" "$OUT/gs.sqfs"
	check "gensquashfs, $var, new image: no image left" \
		[ ! -e "$OUT/gs.sqfs" ]

	shimmed "$var" "$GS" -q --force -D "$SRC" "$OUT/old.sqfs"
	refused "gensquashfs --force, $var, existing image" "$OUT/old.sqfs"
	expect_eq "gensquashfs --force, $var: the existing image is untouched" \
		"$(sum_of "$OUT/old.sqfs")" "$OLD_SUM"
done

# the directory cannot be synced after the move: reported, and the
# complete image is in place
shimmed FAIL_DIRSYNC "$TAR2SQFS" -q "$OUT/dir.sqfs" <"$ARCHIVE"
refused "tar2sqfs, FAIL_DIRSYNC" "$OUT/dir.sqfs"
"$UNSQUASHFS" -s "$OUT/dir.sqfs" >/dev/null 2>&1
expect_eq "tar2sqfs, FAIL_DIRSYNC: the complete image is in place" "$?" 0
check "tar2sqfs, FAIL_DIRSYNC: the message says the image is in place" \
	grep -q "in place" "$WORK/tool.err"

finish

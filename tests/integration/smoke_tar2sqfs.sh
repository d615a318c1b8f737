#!/bin/sh
# SPDX-License-Identifier: MIT
#
# smoke_tar2sqfs.sh - a first end-to-end run of tar2sqfs: pack a small
# archive made with GNU tar and list the image with squashfs-tools'
# unsquashfs; check that failures leave no file and keep an existing one.
# Runs from the top of the build tree (automake's test harness does that).
set -u
# listings show times in the local zone
TZ=UTC
export TZ

TAR2SQFS=${TAR2SQFS:-./tar2sqfs}
UNSQUASHFS=/usr/bin/unsquashfs

if [ ! -x "$UNSQUASHFS" ] || ! command -v tar >/dev/null 2>&1; then
	echo "SKIP: needs $UNSQUASHFS and GNU tar"
	exit 77
fi
if [ ! -x "$TAR2SQFS" ]; then
	echo "FAIL: $TAR2SQFS not built"
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/smoke_tar2sqfs.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

# the input tree
mkdir -p "$work/in/dir/sub" || exit 1
printf 'hello\n' > "$work/in/dir/hello.txt"
head -c 300000 /dev/zero | tr '\0' 'a' > "$work/in/dir/sub/big"
ln -s ../dir/hello.txt "$work/in/dir/link"
ln "$work/in/dir/hello.txt" "$work/in/hard"
chmod 0750 "$work/in/dir/sub"
tar --format=gnu --owner=0 --group=0 --mtime=@1600000000 \
	-C "$work/in" -cf "$work/in.tar" dir hard || fail "tar"

# pack it
"$TAR2SQFS" -q -c gzip "$work/out.sqfs" < "$work/in.tar" ||
	fail "tar2sqfs exited with $?"
[ -f "$work/out.sqfs" ] || fail "no image"

"$UNSQUASHFS" -lls "$work/out.sqfs" > "$work/list" 2>&1 ||
	fail "unsquashfs cannot list the image"
cat "$work/list"

expect() {
	grep -q -- "$1" "$work/list" || fail "listing lacks: $1"
}
expect '^drwxr-xr-x root/root .* squashfs-root/dir$'
expect '^-rw-r--r-- root/root  *6 2020-09-13 .* squashfs-root/dir/hello.txt$'
expect '^lrwxrwxrwx root/root .* squashfs-root/dir/link -> ../dir/hello.txt$'
expect '^drwxr-x--- root/root .* squashfs-root/dir/sub$'
expect '^-rw-r--r-- root/root  *300000 .* squashfs-root/dir/sub/big$'
expect '^-rw-r--r-- root/root  *6 .* squashfs-root/hard$'

# the data comes back
"$UNSQUASHFS" -q -d "$work/out" "$work/out.sqfs" > /dev/null 2>&1 ||
	fail "unsquashfs cannot unpack the image"
cmp "$work/in/dir/sub/big" "$work/out/dir/sub/big" || fail "big differs"
cmp "$work/in/dir/hello.txt" "$work/out/hard" || fail "hard differs"

# an existing output is refused, and kept
echo precious > "$work/exists.sqfs"
if "$TAR2SQFS" -q "$work/exists.sqfs" < "$work/in.tar" 2> "$work/err"; then
	fail "an existing output was accepted without --force"
fi
grep -q '^tar2sqfs: .*exists.sqfs: ' "$work/err" || fail "no message"
[ "$(cat "$work/exists.sqfs")" = precious ] || fail "existing file changed"

# a truncated archive fails, leaves no file, and keeps an existing one
head -c 20000 "$work/in.tar" > "$work/cut.tar"
if "$TAR2SQFS" -q "$work/cut.sqfs" < "$work/cut.tar" 2> "$work/err"; then
	fail "a truncated archive was accepted"
fi
cat "$work/err"
[ -e "$work/cut.sqfs" ] && fail "a failed run left its output"
if "$TAR2SQFS" -q -f "$work/exists.sqfs" < "$work/cut.tar" 2>/dev/null; then
	fail "a truncated archive was accepted with --force"
fi
[ "$(cat "$work/exists.sqfs")" = precious ] || fail "existing file changed"
leftover=$(find "$work" -maxdepth 1 -name '*.tmp' | wc -l)
[ "$leftover" -eq 0 ] || fail "temporary files left behind"

# a name that climbs out of the root: a warning naming it and a skip, or
# a failure under --no-skip
(cd "$work/in/dir" && tar -P --format=gnu -cf "$work/evil.tar" \
	../dir/sub/big hello.txt) || fail "tar -P"
"$TAR2SQFS" -q "$work/evil.sqfs" < "$work/evil.tar" 2> "$work/err" ||
	fail "a skipped entry failed the run"
grep -q "^tar2sqfs: \.\./dir/sub/big: .*skipped" "$work/err" ||
	fail "no warning naming ../dir/sub/big"
"$UNSQUASHFS" -lls "$work/evil.sqfs" > "$work/list" 2>&1 || fail "list"
expect 'squashfs-root/hello.txt$'
grep -q big "$work/list" && fail "../dir/sub/big was stored"
if "$TAR2SQFS" -q -s "$work/evil2.sqfs" < "$work/evil.tar" 2>/dev/null; then
	fail "--no-skip accepted ../dir/sub/big"
fi
[ -e "$work/evil2.sqfs" ] && fail "a failed run left its output"

echo "PASS"
exit 0

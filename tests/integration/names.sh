#!/bin/bash
# SPDX-License-Identifier: MIT
# Names reach the image byte for byte as the archive holds them: composed
# and decomposed Unicode, bytes that are not UTF-8 (Latin-1, cut
# sequences, a UTF-16 surrogate), control characters, long names; for
# file names, symlink targets, hard links and xattr keys (with '=' and
# '%', which GNU tar escapes). Archives are made by GNU tar in every
# format (v7, ustar, GNU, PAX) under the C and a UTF-8 locale, and by
# bsdtar (PAX); tar2sqfs packs each under C, POSIX, C.UTF-8 and a Latin-1
# locale, and must make the same image under all of them. The image is
# compared with GNU tar's extraction of the archive (kernel mount, or
# unsquashfs's extraction where no loop mount can be made; bsdtar's with
# the source tree), and the names rdsquashfs -l lists, and those in what
# sqfs2tar makes of the image, with the names tar -t lists.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

RDSQUASHFS_OURS=${RDSQUASHFS_OURS:-$abs_top_builddir/rdsquashfs}
SQFS2TAR_OURS=${SQFS2TAR_OURS:-$abs_top_builddir/sqfs2tar}
BSDTAR=/usr/bin/bsdtar
[ "$IS_ROOT" = 1 ] || skip_all "needs root (xattrs in trusted trees, owners)"
command -v setfattr >/dev/null || skip_all "setfattr (package attr) missing"

UTF8=C.UTF-8
locale -a 2>/dev/null | grep -q -i -x 'C\.utf-\?8' || UTF8=

# A Latin-1 locale of our own, where the locale sources are installed.
LATIN1=
mkdir -p "$WORK/locale"
if command -v localedef >/dev/null &&
	localedef -i en_US -f ISO-8859-1 "$WORK/locale/en_US.ISO-8859-1" \
		>/dev/null 2>&1; then
	LATIN1=en_US.ISO-8859-1
	export LOCPATH=$WORK/locale
else
	echo "note: no Latin-1 locale could be made (package locales?)"
fi

SRC=$WORK/src
SHORT=$WORK/short
mkdir -p "$SRC" "$SHORT"
# every name as a file, "l." + name a symlink to it, "h." + name a hard
# link to it, and user.NAME an xattr of the file
"$PYTHON" - "$SRC" "$SHORT" <<'PY'
import os, sys
names = [
    b"e\xcc\x81",                 # e + COMBINING ACUTE ACCENT (NFD)
    b"\xc3\xa9",                  # e WITH ACUTE (NFC)
    b"A\xcc\x8a\xe2\x84\xab\xc3\x85",  # A + ring, ANGSTROM SIGN, A WITH RING
    b"lat\xe9in1",                # Latin-1
    b"bad\xff\xfe\xc3",           # not UTF-8, a cut sequence at the end
    b"ctl\x01\x1b\x7f",           # control characters
    b"sur\xed\xa0\x80",           # a UTF-16 surrogate written as UTF-8
    b"\xe5\x90\x8d\xe5\x89\x8d",  # CJK
    b"plain",
]
long = b"long" + b"e\xcc\x81" * 40 + b"\xe9"
for top, with_long in ((sys.argv[1], True), (sys.argv[2], False)):
    top = os.fsencode(top)
    for n in names + ([long] if with_long else []):
        p = os.path.join(top, n)
        with open(p, "wb") as f:
            f.write(n)
        os.symlink(n, os.path.join(top, b"l." + n))
        os.link(p, os.path.join(top, b"h." + n))
        if with_long:
            os.setxattr(p, b"user." + n[:200], b"v")
    if with_long:
        os.setxattr(os.path.join(top, b"plain"), b"user.a=b%c%41", b"w")
PY
[ $? = 0 ] || hard_error "cannot make the source tree"

# tar2sqfs under each locale; every image must be the same
pack_all() { # NAME ARCHIVE
	local loc first=
	for loc in C POSIX $UTF8 $LATIN1; do
		rm -f "$WORK/$loc.sqfs"
		LC_ALL=$loc "$TAR2SQFS" -q "$WORK/$loc.sqfs" <"$2" \
			>"$WORK/t2s.out" 2>"$WORK/t2s.err"
		RC=$?
		expect_eq "$1: tar2sqfs under $loc: exit status" "$RC" 0
		[ -s "$WORK/t2s.err" ] &&
			fail "$1: tar2sqfs under $loc said: $(cat "$WORK/t2s.err")"
		if [ -z "$first" ]; then
			first=$loc
		else
			check "$1: the image made under $loc equals $first's" \
				cmp -s "$WORK/$first.sqfs" "$WORK/$loc.sqfs"
		fi
	done
	cp "$WORK/C.sqfs" "$WORK/img.sqfs"
}

# rdsquashfs -l and tar -t must list the same names, byte for byte
check_listing() { # NAME ARCHIVE
	"$RDSQUASHFS_OURS" -l / "$WORK/img.sqfs" >"$WORK/ls.out" ||
		fail "$1: rdsquashfs -l failed"
	"$GNUTAR" -t --quoting-style=literal -f "$2" >"$WORK/tar-t.out" ||
		fail "$1: tar -t failed"
	check "$1: rdsquashfs -l lists the names tar -t lists" \
		"$PYTHON" - "$WORK/ls.out" "$WORK/tar-t.out" <<'PY'
import re, sys
ls = set()
for line in open(sys.argv[1], "rb").read().split(b"\n"):
    if line:
        # mode owner size name [-> target], in aligned columns
        ls.add(re.split(rb" +", line, 3)[3].split(b" -> ")[0])
tar = set(n.rstrip(b"/") for n in open(sys.argv[2], "rb").read().split(b"\n"))
tar.discard(b"")
if ls != tar:
    print("only in the image:", sorted(ls - tar))
    print("only in the archive:", sorted(tar - ls))
    sys.exit(1)
PY
}

# and so must tar -t of what sqfs2tar makes of the image
check_round_trip() { # NAME ARCHIVE
	"$SQFS2TAR_OURS" "$WORK/img.sqfs" >"$WORK/back.tar" 2>"$WORK/s2t.err" ||
		fail "$1: sqfs2tar failed: $(cat "$WORK/s2t.err")"
	"$GNUTAR" -t --quoting-style=literal -f "$WORK/back.tar" \
		>"$WORK/back-t.out" 2>/dev/null || fail "$1: tar -t of sqfs2tar's"
	check "$1: sqfs2tar's archive holds the names of the original" \
		"$PYTHON" - "$WORK/back-t.out" "$WORK/tar-t.out" <<'PY'
import sys
a, b = (set(n.rstrip(b"/") for n in open(f, "rb").read().split(b"\n"))
        - {b"", b"."} for f in sys.argv[1:3])
if a != b:
    print("only in sqfs2tar's:", sorted(a - b))
    print("only in the original:", sorted(b - a))
    sys.exit(1)
PY
}

# the image's tree against GNU tar's extraction of the archive, or with
# a third argument against that directory
check_tree() { # NAME ARCHIVE [DIR]
	if can_mount; then
		mount_image "$WORK/img.sqfs" "$WORK/mnt" ||
			{ fail "$1: the kernel cannot mount the image"; return; }
		if [ $# -gt 2 ]; then
			check "$1: kernel mount matches the source tree" \
				cmp_tree "dir:$3" "dir:$WORK/mnt" $NLINK_OPT \
				--ignore-implicit "$2"
		else
			check_gnu "$1" "$2" "$WORK/mnt" "$WORK/gnu"
		fi
		umount_image "$WORK/mnt"
	else
		rm -rf "$WORK/unsq"
		"$UNSQUASHFS" -q -n -d "$WORK/unsq" "$WORK/img.sqfs" \
			>/dev/null 2>&1 || fail "$1: unsquashfs failed"
		if [ $# -gt 2 ]; then
			check "$1: unsquashfs's extraction matches the source" \
				cmp_tree "dir:$3" "dir:$WORK/unsq" \
				--ignore-implicit "$2" $NLINK_OPT
		elif gnu_extract "$2" "$WORK/gnu"; then
			check "$1: unsquashfs's extraction matches GNU tar's" \
				cmp_tree "dir:$WORK/gnu" "dir:$WORK/unsq" \
				--ignore-implicit "$2" $NLINK_OPT
		fi
	fi
}

try_archive() { # NAME ARCHIVE [DIR]
	pack_all "$1" "$2"
	check_listing "$1" "$2"
	check_round_trip "$1" "$2"
	check_tree "$@"
}

list0() { # DIR: its entries, NUL-separated, names first, links after
	(cd "$1" && find . -mindepth 1 -maxdepth 1 ! -name 'h.*' -printf '%P\0' |
		sort -z && find . -mindepth 1 -maxdepth 1 -name 'h.*' \
		-printf '%P\0' | sort -z)
}

for loc in C $UTF8; do
	for fmt in v7 ustar gnu posix; do
		src=$SRC xattrs=
		case $fmt in
		v7 | ustar) src=$SHORT ;;
		posix) xattrs="--xattrs --xattrs-include=*" ;;
		esac
		list0 "$src" >"$WORK/list"
		# shellcheck disable=SC2086
		LC_ALL=$loc "$GNUTAR" --format=$fmt $xattrs -cf \
			"$WORK/$fmt-$loc.tar" -C "$src" --null -T "$WORK/list" \
			2>"$WORK/tar.err" ||
			hard_error "GNU tar --format=$fmt under $loc:" \
				"$(cat "$WORK/tar.err")"
		try_archive "GNU tar $fmt ($loc)" "$WORK/$fmt-$loc.tar"
	done
done

if [ -x "$BSDTAR" ] && [ -n "$UTF8" ]; then
	list0 "$SRC" >"$WORK/list"
	LC_ALL=$UTF8 "$BSDTAR" --format=pax --xattrs -cf "$WORK/bsd.tar" \
		-C "$SRC" --null -T "$WORK/list" 2>"$WORK/tar.err" ||
		hard_error "bsdtar: $(cat "$WORK/tar.err")"
	# GNU tar reads only the SCHILY.xattr copies of bsdtar's xattrs,
	# whose keys libarchive leaves URL-encoded: the source tree is the
	# reference here
	try_archive "bsdtar pax" "$WORK/bsd.tar" "$SRC"
fi

finish

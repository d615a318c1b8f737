#!/bin/sh
# SPDX-License-Identifier: MIT
# Extended attributes through sqfsmount, entry by entry against the
# kernel's mount of the same image: every namespace the format has (user.,
# trusted., security.), values that are empty, short, long and shared by
# many inodes (writers may store those once, out of line), xattrs on
# directories and on symlinks, and inodes with dozens of them. squashfuse
# 0.6.2 and 0.1.105 drop empty values on such images (seen by running
# them); every one must be there. Images by our gensquashfs and by
# squashfs-tools 4.7.5 (when $SQFS_REF_BIN has it: CI builds it).

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_mount.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
[ -x "$GS" ] || hard_error "no gensquashfs at $GS"
can_mount || skip_all "no kernel mount to compare with ($MOUNT_WHY)"
command -v getfattr >/dev/null || skip_all "no getfattr"

SRC=$WORK/src
mkdir -p "$SRC/d"
"$PYTHON" - "$SRC" <<'PY' || skip_all "this file system takes no trusted./security. xattrs"
import os, sys
top = sys.argv[1]
d = os.path.join(top, "d")
for i in range(200):
    f = os.path.join(d, "f%04d" % i)
    l = os.path.join(d, "l%04d" % i)
    with open(f, "w") as fh:
        fh.write(str(i))
    os.symlink("f0000", l)
    for ns in ("user", "trusted", "security"):
        os.setxattr(f, ("%s.a%d" % (ns, i)).encode(),
                    (("%s%d" % (ns, i)) * (1 + i % 30)).encode())
    os.setxattr(f, b"user.shared", b"S" * 300)
    os.setxattr(l, ("trusted.l%d" % i).encode(), b"L" * (i % 100),
                follow_symlinks=False)
for j in range(60):
    os.setxattr(d, ("user.dir%03d" % j).encode(), b"D" * j)
os.setxattr(top, b"user.empty", b"")
PY

dump() { # DIR: every xattr of every entry, symlinks' own, sorted by path
	(cd "$1" && getfattr -h -d -m- -e hex -R . 2>/dev/null)
}

K=$WORK/k
F=$WORK/f
mkdir -p "$F"

one() { # NAME IMAGE
	mount_image "$2" "$K" || { fail "$1: the kernel refuses it"; return; }
	dump "$K" >"$WORK/k.txt"
	umount_image "$K"
	fuse_mount "$SQFSMOUNT" "$2" "$F"
	if [ "$RC" != 0 ]; then
		fail "$1: sqfsmount: status $RC: $(cat "$WORK/fm.err")"
		return
	fi
	dump "$F" >"$WORK/f.txt"
	fuse_umount "$F"
	expect_eq "$1: xattr lines the kernel shows" \
		"$(grep -c = "$WORK/k.txt")" 1061
	if cmp -s "$WORK/k.txt" "$WORK/f.txt"; then
		pass "$1: every xattr as the kernel shows it"
	else
		fail "$1: xattrs differ from the kernel's:"
		diff "$WORK/k.txt" "$WORK/f.txt" | head -10
	fi
}

"$GS" -q -x -D "$SRC" "$WORK/gs.sqfs" >"$WORK/gs.err" 2>&1 ||
	hard_error "gensquashfs: $(cat "$WORK/gs.err")"
one gensquashfs "$WORK/gs.sqfs"

REF_MK=${SQFS_REF_BIN:+$SQFS_REF_BIN/mksquashfs}
if [ -n "$REF_MK" ] && [ -x "$REF_MK" ]; then
	"$REF_MK" "$SRC" "$WORK/ref.sqfs" -noappend -quiet \
		-no-progress >/dev/null 2>&1 || hard_error "mksquashfs 4.7.5"
	one "mksquashfs 4.7.5" "$WORK/ref.sqfs"
fi

finish

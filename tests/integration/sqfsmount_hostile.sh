#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile images through the mount: the hand-built hostile set of
# tests/hostile (structured.py: bombs, loops, lies in every table),
# mutants of valid images from mksquashfs and tar2sqfs (mutate.py), and
# the fuzz corpus (tests/fuzz/corpus, the AppImage/SIF ones with
# offset=auto). Each is mounted by sqfsmount -f, or refused with status
# 1 and a message naming the image; a mounted one is walked: every
# entry stat'ed, listed, its xattrs and symlink target read, every file
# read (16 MiB at most each), all within a time limit, EIO allowed. The
# daemon must neither crash nor hang: alive after the walk, unmountable,
# exiting 0 (or 1 at the mount) with no sanitizer report. A valid image
# ("accept" in the hostile manifest) must be mounted and read without
# a single error.
#
# Environment: MOUNT_HOSTILE_MUTANTS (mutants per seed, default 6),
# MOUNT_HOSTILE_TIMEOUT (seconds per walk, default 60).

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_mount.sh"

HOSTILE=$abs_top_srcdir/tests/hostile
MUTANTS=${MOUNT_HOSTILE_MUTANTS:-6}
TMO=${MOUNT_HOSTILE_TIMEOUT:-60}
W=$WORK
mkdir -p "$W/img" "$W/seeds" "$W/outside" "$W/m"

# ------------------------------------------------------------ images

"$PYTHON" "$HOSTILE/mutate.py" structured --out "$W/img" \
	--outside "$W/outside" >/dev/null || hard_error "mutate.py structured"
"$PYTHON" "$HOSTILE/mutate.py" seedtree "$W/tree" || hard_error "seedtree"
if [ -x "$MKSQUASHFS" ]; then
	for c in gzip xz zstd; do
		"$MKSQUASHFS" "$W/tree" "$W/seeds/mks-$c.sqfs" -b 4096 \
			-comp $c -noappend -quiet -no-progress -processors 1 \
			-mkfs-time 1700000000 -all-time 1700000000 \
			>/dev/null 2>&1 || echo "note: mksquashfs $c failed"
	done
	"$MKSQUASHFS" "$W/tree" "$W/seeds/mks-raw.sqfs" -b 4096 -noI -noD \
		-noF -noX -noId -noappend -quiet -no-progress >/dev/null 2>&1
fi
(cd "$W/tree" && tar --xattrs --format=pax --sort=name --owner=0 \
	--group=0 --numeric-owner -cf "$W/seed.tar" .) 2>/dev/null &&
	"$TAR2SQFS" -q -b 4096 -c zstd -e "$W/seeds/t2s-zstd.sqfs" \
		<"$W/seed.tar" >/dev/null 2>&1
# shellcheck disable=SC2046
"$PYTHON" "$HOSTILE/mutate.py" mutants --seed 1 --count "$MUTANTS" \
	--out "$W/img" "$W"/seeds/*.sqfs >/dev/null ||
	hard_error "mutate.py mutants"
for f in "$W"/seeds/*.sqfs; do
	cp "$f" "$W/img/"
	echo "$(basename "$f") accept seed" >>"$W/img/manifest.txt"
done
for f in "$abs_top_srcdir"/tests/fuzz/corpus/*; do
	cp "$f" "$W/img/corpus-$(basename "$f")"
done

# ------------------------------------------------------------ the walker

cat >"$W/walk.py" <<'PY'
import errno, os, stat, sys
root = sys.argv[1]
CAP = 16 << 20
counts = {"entries": 0, "bytes": 0}
errors = {}
def err(what, e):
    key = "%s:%s" % (what, errno.errorcode.get(e.errno, e.errno))
    errors[key] = errors.get(key, 0) + 1
def visit(path, depth):
    counts["entries"] += 1
    try:
        st = os.lstat(path)
    except OSError as e:
        err("lstat", e)
        return
    try:
        for k in os.listxattr(path, follow_symlinks=False):
            os.getxattr(path, k, follow_symlinks=False)
    except OSError as e:
        if e.errno not in (errno.ENOTSUP,):
            err("xattr", e)
    if stat.S_ISLNK(st.st_mode):
        try:
            os.readlink(path)
        except OSError as e:
            err("readlink", e)
    elif stat.S_ISREG(st.st_mode):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as e:
            err("open", e)
            return
        try:
            got = 0
            while got < CAP:
                b = os.read(fd, 1 << 20)
                if not b:
                    break
                got += len(b)
            counts["bytes"] += got
        except OSError as e:
            err("read", e)
        finally:
            os.close(fd)
    elif stat.S_ISDIR(st.st_mode) and depth < 200:
        try:
            names = [e.name for e in os.scandir(path)]
        except OSError as e:
            err("readdir", e)
            return
        for n in names:
            visit(os.path.join(path, n), depth + 1)
visit(root, 0)
print("entries=%d bytes=%d errors=%s" % (counts["entries"], counts["bytes"],
      ",".join("%s*%d" % kv for kv in sorted(errors.items())) or "none"))
PY

# ------------------------------------------------------------ running

CASES=0
MOUNTED=0
REFUSED=0
cd "$W/img" || hard_error "cd"
for img in *; do
	case $img in manifest.txt) continue ;; esac
	CASES=$((CASES + 1))
	expect=$(awk -v n="$img" '$1 == n { print $2 }' manifest.txt)
	opts=
	case $img in corpus-loc-*) opts="-o offset=auto" ;; esac
	mnt=$W/m/$img
	# shellcheck disable=SC2086
	if fg_start "$W/img/$img" "$mnt" $opts; then
		MOUNTED=$((MOUNTED + 1))
		timeout -k 5 "$TMO" "$PYTHON" "$W/walk.py" "$mnt" \
			>"$W/walk.out" 2>&1
		rc=$?
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			fail "$img: the walk took more than ${TMO}s (hung)"
		elif [ "$rc" != 0 ]; then
			fail "$img: the walk failed ($rc): $(tail -3 "$W/walk.out")"
		fi
		if ! kill -0 "$FG_PID" 2>/dev/null; then
			fail "$img: the daemon died: $(tail -5 "$WORK/fg.err")"
		fi
		if [ "$expect" = accept ] && ! grep -q 'errors=none' "$W/walk.out"; then
			fail "$img: a valid image gives errors: $(cat "$W/walk.out")"
		fi
		fg_stop "$mnt"
		st=$?
		if [ "$st" = 0 ]; then
			pass "$img: mounted, walked ($(cat "$W/walk.out")), unmounted"
		else
			fail "$img: the daemon's exit status after unmounting: $st" \
				"$(tail -5 "$WORK/fg.err")"
		fi
	else
		fg_stop "$mnt"
		st=$?
		if [ "$st" = 1 ] && grep -q "^sqfsmount: $W/img/$img" "$WORK/fg.err"; then
			REFUSED=$((REFUSED + 1))
			pass "$img: refused: $(head -1 "$WORK/fg.err")"
		else
			fail "$img: not mounted, status $st: $(head -5 "$WORK/fg.err")"
		fi
		[ "$expect" = accept ] &&
			fail "$img: a valid image is refused: $(head -1 "$WORK/fg.err")"
	fi
	rmdir "$mnt" 2>/dev/null
done
cd "$W" || true
echo "$CASES images: $MOUNTED mounted, $REFUSED refused"

finish

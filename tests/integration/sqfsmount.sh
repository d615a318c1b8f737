#!/bin/sh
# SPDX-License-Identifier: MIT
# sqfsmount against the kernel: images of a tree with every entry type and
# attribute (xattrs, hard links, sparse files, devices, odd names, a
# directory of 6000 entries with an index), made by gensquashfs with every
# compressor and with 4K, 128K and 1M blocks, with and without fragments
# and export table, and by squashfs-tools 4.7.5 and squashfs-tools-ng,
# each mounted by sqfsmount and by the kernel: the trees must be the same
# (compare_tree.py), stat(1) must say the same of every entry (inode
# numbers, link counts, blocks), and so must statfs. Then 8 readers at
# once against the kernel's bytes, the xattr calls' size probes, writes
# refused. Options and failures are in sqfsmount_options.sh.

. "$(dirname "$0")/lib.sh"
. "$HERE/lib_rdsquashfs.sh"
. "$HERE/lib_mount.sh"

GS=${GS:-$abs_top_builddir/gensquashfs}
[ -x "$GS" ] || hard_error "no gensquashfs at $GS"
can_mount || skip_all "no kernel mount to compare with ($MOUNT_WHY)"

# ------------------------------------------------------------ the tree

SRC=$WORK/src
make_source "$SRC"
mkdir -p "$SRC/links/x" "$SRC/links/y"
printf 'three\n' >"$SRC/links/a"
ln "$SRC/links/a" "$SRC/links/x/b"
ln "$SRC/links/a" "$SRC/links/y/c"
ln -s target "$SRC/links/sym"
ln -P "$SRC/links/sym" "$SRC/links/y/sym2"
mknod "$SRC/links/dev" c 10 200
ln "$SRC/links/dev" "$SRC/links/y/dev2"
mknod "$SRC/bigdev" b 4095 1048575
chown 70000:80000 "$SRC/links/a"
# a 1 MiB+ file of mixed data, names with bytes that are no UTF-8, a line
# break and a tab, and a directory whose listing passes 64 KiB (an index)
"$PYTHON" - "$SRC" <<'PY' || hard_error "the tree"
import os, random, sys
d = sys.argv[1].encode()
r = random.Random(7)
with open(d + b"/mixed", "wb") as f:
    for i in range(40):
        f.write(bytes(r.getrandbits(8) for _ in range(20000)))
        f.write(b"z" * 20000)
for n in (b"odd\xff\xfebytes", b"new\nline", b"a\ttab", b"\x01ctl"):
    with open(d + b"/" + n, "wb") as f:
        f.write(n)
os.mkdir(d + b"/big")
for i in range(6000):
    open(d + b"/big/entry-with-a-longish-name-%05d" % i, "w").close()
PY
find "$SRC" -depth -exec touch -h -d @1600000000 {} +
touch -d @1234567890 "$SRC/hello.txt"
chmod 0755 "$SRC"
ROOTDEF="-d mtime=1600000000"

# ------------------------------------------------------------ one image

K=$WORK/k
F=$WORK/f
mkdir -p "$F"

# compare NAME IMAGE KERNEL [sqfsmount options...]: mount IMAGE with
# sqfsmount; with KERNEL=1 compare it with the kernel's mount of the
# image, else with the source tree
compare() {
	local name=$1 img=$2 kernel=$3
	shift 3
	fuse_mount "$SQFSMOUNT" "$img" "$F" "$@"
	if [ "$RC" != 0 ] || ! is_mounted "$F"; then
		fail "$name: sqfsmount $*: status $RC: $(cat "$WORK/fm.err")"
		return
	fi
	expect_eq "$name: mounted as fuse.sqfsmount" "$(fuse_type "$F")" \
		fuse.sqfsmount
	if [ "$kernel" = 1 ]; then
		if ! mount_image "$img" "$K" 2>"$WORK/k.err"; then
			fail "$name: the kernel refuses it: $(cat "$WORK/k.err")"
			fuse_umount "$F"
			return
		fi
		check "$name: the tree is the kernel's" \
			cmp_tree "dir:$K" "dir:$F"
		stat_list "$K" >"$WORK/k.stat"
		stat_list "$F" >"$WORK/f.stat"
		if cmp -s "$WORK/k.stat" "$WORK/f.stat"; then
			pass "$name: stat says what it says on the kernel's"
		else
			fail "$name: stat differs from the kernel's:"
			diff "$WORK/k.stat" "$WORK/f.stat" | head -10
		fi
		# the listings' own inode numbers (d_ino), dots included
		ls -fai "$K/sub" | sort >"$WORK/k.ls"
		ls -fai "$F/sub" | sort >"$WORK/f.ls"
		check "$name: readdir's inode numbers, . and .. too" \
			cmp -s "$WORK/k.ls" "$WORK/f.ls"
		expect_eq "$name: statfs" \
			"$(stat -f -c '%S %b %f %a %c %d %l' "$F")" \
			"$(stat -f -c '%S %b %f %a %c %d %l' "$K")"
		umount_image "$K"
	else
		check "$name: the tree is the source" \
			cmp_tree "dir:$SRC" "dir:$F"
	fi
	fuse_umount "$F"
	check "$name: unmounted" not_mounted "$F"
}

# gs NAME OPTIONS...: an image of the tree by our gensquashfs
gs() {
	local name=$1
	shift
	# shellcheck disable=SC2086
	"$GS" -q -k -x $ROOTDEF -D "$SRC" "$@" "$WORK/$name.sqfs" \
		>"$WORK/gs.err" 2>&1 || hard_error "gensquashfs $*: $(cat "$WORK/gs.err")"
}

kernel_has() { # COMPRESSOR: whether the kernel mounts that
	case $1 in lzma) return 1 ;; esac
	return 0
}

for c in $("$GS" --help | sed -n '/^Compressors of this build/,$s/^\t\([a-z0-9]*\).*/\1/p'); do
	gs "c-$c" -c "$c"
	if kernel_has "$c"; then
		compare "$c" "$WORK/c-$c.sqfs" 1
	else
		compare "$c (no kernel support: against the source)" \
			"$WORK/c-$c.sqfs" 0
	fi
	rm -f "$WORK/c-$c.sqfs"
done

gs l4k -c gzip -b 4K -e
compare "4K blocks, export table" "$WORK/l4k.sqfs" 1
gs l4kt -c zstd -b 4K -T
compare "4K blocks, no tail fragments" "$WORK/l4kt.sqfs" 1
gs l1m -c zstd -b 1M
compare "1M blocks" "$WORK/l1m.sqfs" 1
gs l1mt -c xz -b 1M -T -e
compare "1M blocks, no tail fragments, export table" "$WORK/l1mt.sqfs" 1
gs l128t -c lz4 -T -e
compare "128K blocks, no tail fragments, export table" "$WORK/l128t.sqfs" 1

# ------------------------------------------------------------ other makers

if [ -n "${SQFS_REF_BIN:-}" ] || [ -x "$abs_top_builddir/_ref/bin/mksquashfs" ] ||
	[ -f "$abs_top_srcdir/../shared/reference/build.sh" ]; then
	. "$HERE/lib_ref.sh"
	"$REF_BIN/mksquashfs" "$SRC" "$WORK/ref.sqfs" -noappend -quiet \
		-no-progress -comp zstd -b 64K -no-fragments >/dev/null 2>&1 ||
		hard_error "mksquashfs 4.7.5"
	compare "squashfs-tools 4.7.5 (no fragments)" "$WORK/ref.sqfs" 1
	"$REF_BIN/mksquashfs" "$SRC" "$WORK/ref.sqfs" -noappend -quiet \
		-no-progress -comp gzip -always-use-fragments -no-exports \
		>/dev/null 2>&1 || hard_error "mksquashfs 4.7.5"
	compare "squashfs-tools 4.7.5 (all fragments)" "$WORK/ref.sqfs" 1
	rm -f "$WORK/ref.sqfs"
else
	echo "note: no squashfs-tools 4.7.5 (SQFS_REF_BIN): not compared"
fi
if [ -x /usr/bin/gensquashfs ]; then
	/usr/bin/gensquashfs -k -x -q -D "$SRC" -c xz -f "$WORK/ng.sqfs" \
		>"$WORK/ng.err" 2>&1 ||
		hard_error "squashfs-tools-ng gensquashfs: $(cat "$WORK/ng.err")"
	compare "squashfs-tools-ng gensquashfs" "$WORK/ng.sqfs" 1
	rm -f "$WORK/ng.sqfs"
else
	echo "note: no squashfs-tools-ng gensquashfs: not compared"
fi
if [ -x "$MKSQUASHFS" ]; then
	"$MKSQUASHFS" "$SRC" "$WORK/deb.sqfs" -noappend -quiet -no-progress \
		-comp lzo >/dev/null 2>&1 || hard_error "Debian's mksquashfs"
	compare "Debian's mksquashfs 4.5 (lzo)" "$WORK/deb.sqfs" 1
	rm -f "$WORK/deb.sqfs"
fi

# ------------------------------------------------------------ many readers

IMG=$WORK/l1m.sqfs
mount_image "$IMG" "$K" || hard_error "kernel mount of $IMG"
# in the foreground: a sanitizer's report on its stderr fails the test
fg_start "$IMG" "$F" -o data_cache=4M,max_threads=16
check "threads: mounted" is_mounted "$F"

# 8 readers, each reading files in its own order again and again (the
# kernel told to drop their pages each time, so that the daemon serves
# every read), comparing each with the kernel's bytes; half of them read
# the same big file at the same time
cat >"$WORK/reader.py" <<'PY'
import hashlib, os, sys
k, f, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = []
for top, dirs, files in os.walk(k):
    if "/big" in top:
        continue
    for n in files:
        p = os.path.join(top, n)
        if os.path.isfile(p) and not os.path.islink(p):
            names.append(os.path.relpath(p, k))
names.sort()
def read(root, rel):
    fd = os.open(os.path.join(root, rel), os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        h = hashlib.sha1()
        while True:
            b = os.read(fd, 1 << 17)
            if not b:
                break
            h.update(b)
        return h.hexdigest()
    finally:
        os.close(fd)
want = {n: read(k, n) for n in names}
bad = 0
for r in range(6):
    order = names[seed % len(names):] + names[:seed % len(names)]
    if seed % 2:
        order = ["mixed", "sub/text"] + order
    for n in order:
        try:
            if read(f, n) != want[n]:
                print("differs:", n, "round", r)
                bad += 1
        except OSError as e:
            print("error:", n, "round", r, e)
            bad += 1
sys.exit(1 if bad else 0)
PY
pids=
for i in 1 2 3 4 5 6 7 8; do
	timeout -k 5 300 "$PYTHON" "$WORK/reader.py" "$K" "$F" "$i" \
		>"$WORK/reader$i.out" 2>&1 &
	pids="$pids $!"
done
bad=0
for p in $pids; do
	wait "$p" || bad=$((bad + 1))
done
expect_eq "threads: 8 readers at once read the kernel's bytes" "$bad" 0
[ "$bad" = 0 ] || head -5 "$WORK"/reader*.out
# and the listings, 8 at once
pids=
for i in 1 2 3 4 5 6 7 8; do
	(cd "$F" && timeout -k 5 120 find . -printf '%p %i %n %s\n' |
		sort >"$WORK/find$i.out") &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
(cd "$K" && find . -printf '%p %i %n %s\n' | sort >"$WORK/findk.out")
bad=0
for i in 1 2 3 4 5 6 7 8; do
	cmp -s "$WORK/findk.out" "$WORK/find$i.out" || bad=$((bad + 1))
done
expect_eq "threads: 8 finds at once list the kernel's tree" "$bad" 0

# ------------------------------------------------------------ calls

# xattrs: a size probe gives the size, a short buffer ERANGE, a missing
# name ENODATA; the same for the list
cat >"$WORK/xattr.py" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
p = sys.argv[1].encode()
def call(fn, *a):
    r = fn(*a)
    return r if r >= 0 else -ctypes.get_errno()
out = []
buf = ctypes.create_string_buffer(4096)
out.append(call(libc.getxattr, p, b"user.text", None, 0))
out.append(call(libc.getxattr, p, b"user.text", buf, 4))
out.append(call(libc.getxattr, p, b"user.text", buf, 4096))
out.append(buf.raw[:9].decode())
out.append(call(libc.getxattr, p, b"user.nothere", buf, 4096))
out.append(call(libc.listxattr, p, None, 0))
out.append(call(libc.listxattr, p, buf, 3))
n = call(libc.listxattr, p, buf, 4096)
out.append(sorted(buf.raw[:n].split(b"\0")[:-1]))
try:
    os.open(sys.argv[1], os.O_WRONLY)
    out.append("opened for writing")
except OSError as e:
    out.append(errno.errorcode[e.errno])
print(out)
PY
"$PYTHON" "$WORK/xattr.py" "$K/hello.txt" >"$WORK/xk.out" 2>&1
"$PYTHON" "$WORK/xattr.py" "$F/hello.txt" >"$WORK/xf.out" 2>&1
expect_eq "xattr calls: size probes, ERANGE, ENODATA, EROFS as the kernel" \
	"$(cat "$WORK/xf.out")" "$(cat "$WORK/xk.out")"
check "xattr calls: ERANGE seen" grep -q -- "-$("$PYTHON" -c 'import errno; print(errno.ERANGE)')" "$WORK/xf.out"
# names too long, missing, through a file: the kernel's errors
cat >"$WORK/names.py" <<'PY'
import errno, os, sys
out = []
for rel in ("x" * 257, "x" * 256, "nothere", "hello.txt/x", "sub/../hello.txt"):
    try:
        os.lstat(os.path.join(sys.argv[1], rel))
        out.append("ok")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(out)
PY
expect_eq "lookups that fail fail as on the kernel's" \
	"$("$PYTHON" "$WORK/names.py" "$F")" "$("$PYTHON" "$WORK/names.py" "$K")"
expect_eq "readlink" "$(readlink "$F/link_rel")" hello.txt
cat "$F/sub" >/dev/null 2>"$WORK/cat.err"
check "reading a directory: EISDIR" grep -q 'Is a directory' "$WORK/cat.err"
check "creating a file: refused" sh -c "! touch '$F/newfile' 2>/dev/null"

fg_stop "$F"
expect_eq "threads: the daemon's exit status (no sanitizer report)" "$?" 0
umount_image "$K"

finish

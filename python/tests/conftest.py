# SPDX-License-Identifier: MIT
"""Shared helpers of the squashforge tests.

The tests run against the package on sys.path: the build tree's (make
check sets PYTHONPATH and LD_LIBRARY_PATH, see run-pytest.sh) or an
installed one. They find the project's source tree (hostile image
generators, fixtures) at ../.. from here, or at $SQFS_TOP_SRCDIR.
"""

import os
import stat
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_SRCDIR = os.environ.get("SQFS_TOP_SRCDIR",
                            os.path.normpath(os.path.join(HERE, "..", "..")))
IS_ROOT = os.geteuid() == 0
MKSQUASHFS = os.environ.get("MKSQUASHFS", "/usr/bin/mksquashfs")
T0 = 1700000000

# the xattr namespaces SquashFS stores
XATTR_PREFIXES = ("user.", "trusted.", "security.")


def pattern(size, seed=0):
    """size bytes that compress somewhat but are not all alike."""
    out = bytearray()
    n = seed
    while len(out) < size:
        n = (n * 1103515245 + 12345) & 0x7FFFFFFF
        out += b"%08x line %d of the test data\n" % (n, len(out))
    return bytes(out[:size])


def need_mksquashfs():
    if not os.access(MKSQUASHFS, os.X_OK):
        pytest.skip(f"no {MKSQUASHFS} (squashfs-tools) on this machine")


def mksquashfs(src, image, *args):
    need_mksquashfs()
    subprocess.run([MKSQUASHFS, str(src), str(image), "-noappend",
                    "-quiet", "-no-progress", *args], check=True,
                   stdout=subprocess.DEVNULL)


def disk_xattrs(path):
    """The xattrs of path that an image can hold."""
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return {}
    return {n: os.getxattr(path, n, follow_symlinks=False)
            for n in names if n.startswith(XATTR_PREFIXES)}


def make_tree(root, devices=IS_ROOT):
    """A tree of every entry type and attribute under root (which must
    not exist yet); returns it. Owners and devices need root."""
    os.mkdir(root)
    d = os.path.join
    os.makedirs(d(root, "dir/sub/deeper"))
    with open(d(root, "empty"), "wb"):
        pass
    with open(d(root, "small"), "wb") as f:
        f.write(b"hello, world\n")
    with open(d(root, "dir/big"), "wb") as f:
        f.write(pattern(3 * 131072 + 1234, 1))
    with open(d(root, "dir/sub/deeper/exact"), "wb") as f:
        f.write(pattern(131072, 2))
    with open(d(root, "sparse"), "wb") as f:
        f.write(b"head")
        f.seek(5 * 131072)
        f.write(b"tail")
    os.link(d(root, "small"), d(root, "dir/hardlink"))
    os.symlink("dir/big", d(root, "link"))
    os.symlink("/absolute/dangling", d(root, "dir/dangling"))
    os.symlink("../..", d(root, "dir/sub/up"))
    os.mkfifo(d(root, "fifo"))
    os.chmod(d(root, "small"), 0o640)
    os.chmod(d(root, "dir/sub"), 0o710)
    os.chmod(d(root, "dir/big"), 0o4755)
    os.setxattr(d(root, "small"), "user.comment", b"a value")
    os.setxattr(d(root, "dir"), "user.empty", b"")
    os.setxattr(d(root, "dir/big"), "user.bin", bytes(range(256)))
    if devices:
        os.mknod(d(root, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.mknod(d(root, "dir/disk"), 0o600 | stat.S_IFBLK,
                 os.makedev(8, 17))
        os.chown(d(root, "small"), 1000, 100)
        os.chown(d(root, "dir/sub"), 123456, 654321)
        os.lchown(d(root, "link"), 5, 6)
        os.setxattr(d(root, "fifo"), "trusted.t", b"trust")
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.utime(d(dirpath, name), (T0 + 7, T0 + len(name)),
                     follow_symlinks=False)
    os.utime(root, (T0, T0))
    return root


def assert_same_tree(img, root, top="/"):
    """Every entry below root on disk is in img below top with the same
    type, permissions, owner, time, size, target, device number, xattrs
    and data; hard links share an inode in both; nothing more is in
    img."""
    seen_disk = {}
    seen_img = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        ipath = top if rel == "." else os.path.join(top, rel)
        assert sorted(img.listdir(ipath)) == sorted(dirnames + filenames), \
            ipath
        for name in dirnames + filenames + [None]:
            dpath = dirpath if name is None else os.path.join(dirpath, name)
            p = ipath if name is None else os.path.join(ipath, name)
            ds = os.lstat(dpath)
            st = img.lstat(p)
            assert st.st_mode == ds.st_mode, p
            assert (st.st_uid, st.st_gid) == (ds.st_uid, ds.st_gid), p
            if p != top:
                assert st.st_mtime == int(ds.st_mtime), p
            assert st.xattrs == disk_xattrs(dpath), p
            if stat.S_ISLNK(ds.st_mode):
                assert st.link_target == os.readlink(dpath), p
                assert st.st_size == ds.st_size, p
            elif stat.S_ISREG(ds.st_mode):
                assert st.st_size == ds.st_size, p
                with open(dpath, "rb") as f:
                    assert img.read_bytes(p) == f.read(), p
                assert st.st_nlink == ds.st_nlink, p
                # hard links: one inode on disk, one in the image
                if ds.st_ino in seen_disk:
                    assert seen_img[ds.st_ino] == st.st_ino, p
                seen_disk.setdefault(ds.st_ino, p)
                seen_img.setdefault(ds.st_ino, st.st_ino)
            elif stat.S_ISCHR(ds.st_mode) or stat.S_ISBLK(ds.st_mode):
                assert st.st_rdev == ds.st_rdev, p
                assert (st.rdev_major, st.rdev_minor) == \
                    (os.major(ds.st_rdev), os.minor(ds.st_rdev)), p


@pytest.fixture
def tree(tmp_path):
    return make_tree(str(tmp_path / "tree"))

# SPDX-License-Identifier: MIT
"""Images made by Writer, mounted by the Linux kernel (as root) and
compared entry by entry with what was added: the kernel is the reader
that counts."""

import os
import stat
import subprocess
import tempfile

import pytest

import squashforge
from conftest import IS_ROOT, T0, assert_same_tree, make_tree, pattern

pytestmark = pytest.mark.skipif(not IS_ROOT,
                                reason="mounting needs root")

# compressors the kernel reads (not lzma: it never had a decoder)
KERNEL_COMPRESSORS = ["gzip", "xz", "lz4", "zstd", "lzo"]


class Mount:
    """mount -t squashfs -o loop,ro image, unmounted on exit."""

    def __init__(self, image):
        self.image = str(image)
        self.dir = tempfile.mkdtemp(prefix="sqfs-mnt-")

    def __enter__(self):
        try:
            subprocess.run(["mount", "-t", "squashfs", "-o", "loop,ro",
                            self.image, self.dir], check=True,
                           capture_output=True, text=True)
        except subprocess.CalledProcessError as e:
            os.rmdir(self.dir)
            pytest.fail(f"the kernel refuses {self.image}: {e.stderr}")
        return self.dir

    def __exit__(self, *exc):
        try:
            subprocess.run(["umount", self.dir], check=True)
        except subprocess.CalledProcessError:
            subprocess.run(["umount", "-l", self.dir])
        finally:
            os.rmdir(self.dir)


def test_every_entry_type_mounted(tmp_path):
    p = tmp_path / "k.sqfs"
    big = pattern(300000, 8)
    with squashforge.Writer(p, "xz", block_size=16384, mtime=T0) as w:
        w.add_dir("", mode=0o751, uid=3, gid=4, mtime=T0 + 1)
        w.add_dir("d", mode=0o700, uid=1000, gid=100,
                  xattrs={"user.dir": b"on a directory"})
        w.add_file("d/small", b"small\n", mode=0o640, uid=5, gid=6,
                   mtime=T0 + 2,
                   xattrs={"user.a": b"1", "trusted.t": b"\x00\xff"})
        w.add_file("big", big, mode=0o2755)
        w.add_file("empty", b"")
        w.add_file("sparse", bytes(100000) + b"!" + bytes(50000))
        w.add_symlink("link", "d/small", mtime=T0 + 3)
        w.add_symlink("abs", "/nowhere/at/all")
        w.add_device("null", "char", 1, 3, mode=0o666)
        w.add_device("disk", "block", 259, 70000, mode=0o600, gid=6)
        w.add_fifo("fifo", mode=0o620, uid=9)
        w.add_socket("sock", mode=0o777)
        w.add_hardlink("hard", "d/small")
        w.add_file("many/" + "n" * 255, b"a long name")
    with Mount(p) as m:
        def st(rel):
            return os.lstat(os.path.join(m, rel))

        s = st(".")
        assert (s.st_mode, s.st_uid, s.st_gid, s.st_mtime) == (
            stat.S_IFDIR | 0o751, 3, 4, T0 + 1)
        s = st("d")
        assert (s.st_mode, s.st_uid, s.st_gid) == (stat.S_IFDIR | 0o700,
                                                   1000, 100)
        assert os.getxattr(os.path.join(m, "d"), "user.dir") == \
            b"on a directory"
        s = st("d/small")
        assert (s.st_mode, s.st_uid, s.st_gid, s.st_mtime, s.st_nlink) == (
            stat.S_IFREG | 0o640, 5, 6, T0 + 2, 2)
        path = os.path.join(m, "d/small")
        assert sorted(os.listxattr(path)) == ["trusted.t", "user.a"]
        assert os.getxattr(path, "trusted.t") == b"\x00\xff"
        assert st("hard").st_ino == s.st_ino
        with open(os.path.join(m, "hard"), "rb") as f:
            assert f.read() == b"small\n"
        s = st("big")
        assert s.st_mode == stat.S_IFREG | 0o2755 and s.st_mtime == T0
        with open(os.path.join(m, "big"), "rb") as f:
            assert f.read() == big
        with open(os.path.join(m, "sparse"), "rb") as f:
            assert f.read() == bytes(100000) + b"!" + bytes(50000)
        assert st("empty").st_size == 0
        assert os.readlink(os.path.join(m, "link")) == "d/small"
        assert st("link").st_mtime == T0 + 3
        assert os.readlink(os.path.join(m, "abs")) == "/nowhere/at/all"
        s = st("null")
        assert s.st_mode == stat.S_IFCHR | 0o666
        assert s.st_rdev == os.makedev(1, 3)
        s = st("disk")
        assert s.st_mode == stat.S_IFBLK | 0o600 and s.st_gid == 6
        assert (os.major(s.st_rdev), os.minor(s.st_rdev)) == (259, 70000)
        assert st("fifo").st_mode == stat.S_IFIFO | 0o620
        assert st("fifo").st_uid == 9
        assert st("sock").st_mode == stat.S_IFSOCK | 0o777
        assert os.listdir(os.path.join(m, "many")) == ["n" * 255]

        # and the image, read by this package, says what the kernel says
        with squashforge.Image(p) as img:
            for rel in ("d", "d/small", "big", "link", "null", "disk",
                        "fifo", "sock", "hard"):
                mine = img.lstat(rel)
                theirs = st(rel)
                for field in ("st_mode", "st_ino", "st_nlink", "st_uid",
                              "st_gid", "st_size", "st_mtime", "st_rdev",
                              "st_blocks"):
                    assert getattr(mine, field) == \
                        getattr(theirs, field), (rel, field)


@pytest.mark.parametrize("comp", KERNEL_COMPRESSORS)
def test_compressors_mounted(tmp_path, comp):
    p = tmp_path / f"{comp}.sqfs"
    files = {f"f{i}": pattern(1000 + 37000 * i, i) for i in range(6)}
    with squashforge.Writer(p, comp, block_size=32768, jobs=2) as w:
        for name, data in files.items():
            w.add_file(name, data)
    with Mount(p) as m:
        for name, data in files.items():
            with open(os.path.join(m, name), "rb") as f:
                assert f.read() == data, name


def test_disk_tree_through_image_and_kernel(tmp_path):
    """A tree on disk, its copy in an image made entry by entry from
    Python, mounted: the kernel's view of it equals the tree."""
    root = make_tree(str(tmp_path / "tree"))
    p = tmp_path / "t.sqfs"
    with squashforge.Writer(p, "zstd") as w:
        st = os.lstat(root)
        w.add_dir("", mode=stat.S_IMODE(st.st_mode), uid=st.st_uid,
                  gid=st.st_gid, mtime=st.st_mtime)
        links = {}
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                st = os.lstat(full)
                attrs = dict(mode=stat.S_IMODE(st.st_mode), uid=st.st_uid,
                             gid=st.st_gid, mtime=st.st_mtime,
                             xattrs={n: os.getxattr(full, n,
                                                    follow_symlinks=False)
                                     for n in os.listxattr(
                                         full, follow_symlinks=False)})
                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                    if st.st_ino in links:
                        w.add_hardlink(rel, links[st.st_ino])
                        continue
                    links[st.st_ino] = rel
                if stat.S_ISLNK(st.st_mode):
                    w.add_symlink(rel, os.readlink(full), **attrs)
                elif stat.S_ISDIR(st.st_mode):
                    w.add_dir(rel, **attrs)
                elif stat.S_ISREG(st.st_mode):
                    w.add_file(rel, full, **attrs)
                elif stat.S_ISFIFO(st.st_mode):
                    w.add_fifo(rel, **attrs)
                else:
                    w.add_device(rel, stat.S_IFMT(st.st_mode),
                                 os.major(st.st_rdev), os.minor(st.st_rdev),
                                 **attrs)
    with Mount(p) as m, squashforge.Image(p) as img:
        assert_same_tree(img, root)
        # the kernel's view, compared the same way
        for dirpath, dirnames, filenames in os.walk(root):
            rel = os.path.relpath(dirpath, root)
            kdir = os.path.normpath(os.path.join(m, rel))
            assert sorted(os.listdir(kdir)) == sorted(dirnames + filenames)
            for name in dirnames + filenames:
                a = os.lstat(os.path.join(dirpath, name))
                b = os.lstat(os.path.join(kdir, name))
                assert (a.st_mode, a.st_uid, a.st_gid, int(a.st_mtime)) == \
                    (b.st_mode, b.st_uid, b.st_gid, b.st_mtime), name
                if stat.S_ISREG(a.st_mode):
                    with open(os.path.join(dirpath, name), "rb") as x, \
                            open(os.path.join(kdir, name), "rb") as y:
                        assert x.read() == y.read(), name

# SPDX-License-Identifier: MIT
"""Reading images made by mksquashfs (squashfs-tools) and the fixtures:
the tree read back equal, paths, symlinks, walk and scandir as the os
module's, offsets, file objects as sources, errors."""

import errno
import io
import os
import posixpath
import stat

import pytest

import squashforge
from conftest import (TOP_SRCDIR, T0, assert_same_tree, mksquashfs,
                      need_mksquashfs)

FIXTURES = os.path.join(TOP_SRCDIR, "tests", "fixtures")


@pytest.mark.parametrize("comp", ["gzip", "xz", "lz4", "zstd", "lzo",
                                  "lzma"])
def test_mksquashfs_image_reads_back_equal(tmp_path, tree, comp):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p, "-comp", comp, "-b", "16384")
    with squashforge.Image(p) as img:
        assert img.superblock.compressor == comp
        assert img.superblock.block_size == 16384
        assert_same_tree(img, tree)


def test_mksquashfs_options(tmp_path, tree):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p, "-comp", "gzip", "-noI", "-noD", "-noF", "-noX",
               "-no-fragments", "-no-duplicates", "-exports")
    with squashforge.Image(p) as img:
        sb = img.superblock
        assert sb.exportable and "NO_FRAGMENTS" in sb.flags
        assert "UNCOMPRESSED_DATA" in sb.flags
        assert_same_tree(img, tree)


def test_fixtures():
    """The images of tests/fixtures (Debian's mksquashfs and
    gensquashfs), every compressor."""
    names = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".sqfs"))
    assert names
    for name in names:
        with squashforge.Image(os.path.join(FIXTURES, name)) as img:
            assert img.superblock.compressor == name[:-5]
            count = 0
            for dirpath, dirnames, filenames in img.walk():
                for f in filenames:
                    st = img.lstat(os.path.join(dirpath, f))
                    if stat.S_ISREG(st.st_mode):
                        assert len(img.read_bytes(
                            os.path.join(dirpath, f))) == st.st_size
                    count += 1
            assert count > 0


def test_walk_like_os_walk(tmp_path, tree):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p)
    with squashforge.Image(p) as img:
        for topdown in (True, False):
            mine = [(os.path.relpath(d, "/"), sorted(ds), sorted(fs))
                    for d, ds, fs in img.walk("/", topdown=topdown)]
            theirs = [(os.path.relpath(d, tree), sorted(ds), sorted(fs))
                      for d, ds, fs in os.walk(tree, topdown=topdown)]
            assert sorted(mine) == sorted(theirs)
            if not topdown:
                assert mine[-1][0] == "."
            else:
                assert mine[0][0] == "."
        # pruning in place, as with os.walk
        seen = []
        for d, ds, fs in img.walk("/"):
            seen.append(d)
            ds[:] = [x for x in ds if x != "sub"]
        assert "/dir/sub" not in seen and "/dir" in seen
        # following links: dir/sub/up points at the root; each directory
        # is entered once per path, never inside itself
        walked = [d for d, _, _ in img.walk("/", followlinks=True)]
        assert "/dir/sub/up" not in walked
        errors = []
        list(img.walk("/no/such", onerror=errors.append))
        assert isinstance(errors[0], FileNotFoundError)
        assert list(img.walk("small")) == []


def test_scandir_and_entries(tmp_path, tree):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p)
    with squashforge.Image(p) as img:
        with img.scandir("dir") as it:
            entries = {e.name: e for e in it}
        assert sorted(entries) == sorted(os.listdir(os.path.join(tree,
                                                                 "dir")))
        big = entries["big"]
        assert big.path == "dir/big" and os.fspath(big) == "dir/big"
        assert big.is_file() and not big.is_dir() and not big.is_symlink()
        assert big.stat().st_size == os.path.getsize(
            os.path.join(tree, "dir/big"))
        assert big.inode() == img.stat("dir/big").st_ino
        sub = entries["sub"]
        assert sub.is_dir() and sub.stat().st_mode == stat.S_IFDIR | 0o710
        dangling = entries["dangling"]
        assert dangling.is_symlink() and not dangling.is_file()
        assert not dangling.is_dir()
        assert dangling.stat(follow_symlinks=False).link_target == \
            "/absolute/dangling"
        with pytest.raises(FileNotFoundError):
            dangling.stat()
        # up (-> ../..) is a directory, through the link
        up = [e for e in img.scandir("/dir/sub") if e.name == "up"][0]
        assert up.is_dir() and not up.is_dir(follow_symlinks=False)
        assert up.stat().st_ino == img.stat("/").st_ino


def test_paths_and_symlinks(tmp_path, tree):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p)
    with squashforge.Image(p) as img:
        ino = img.stat("dir/big").st_ino
        for path in ["/dir/big", "dir/big", "./dir//big/", "dir/../dir/big",
                     "../../dir/big", "link", "dir/sub/up/link",
                     "/dir/sub/up/dir/sub/up/dir/big", b"dir/big"]:
            assert img.stat(path).st_ino == ino, path
        assert stat.S_ISLNK(img.lstat("link").st_mode)
        assert img.lstat("dir/sub/up/link").st_ino == \
            img.lstat("link").st_ino
        assert img.exists("dir/sub/up") and not img.exists("dir/dangling")
        assert img.exists("/") and img.stat("").st_ino == \
            img.stat("/").st_ino
        with pytest.raises(FileNotFoundError) as e:
            img.stat("dir/nothing")
        assert e.value.errno == errno.ENOENT
        assert e.value.filename == "dir/nothing"
        assert isinstance(e.value, squashforge.SquashfsError)
        with pytest.raises(NotADirectoryError):
            img.stat("small/x")
        with pytest.raises(NotADirectoryError):
            img.listdir("small")
        with pytest.raises(NotADirectoryError):
            img.scandir("link")
        with pytest.raises(IsADirectoryError):
            img.open("dir")
        with pytest.raises(OSError) as e:
            img.open("fifo")
        assert e.value.errno == errno.EINVAL
        with pytest.raises(OSError) as e:
            img.readlink("small")
        assert e.value.errno == errno.EINVAL
        assert img.readlink(b"link") == b"dir/big"

    # a loop of symlinks
    with squashforge.Writer(tmp_path / "loop.sqfs") as w:
        w.add_symlink("a", "b")
        w.add_symlink("b", "a")
        w.add_symlink("self", "self/x")
    with squashforge.Image(tmp_path / "loop.sqfs") as img:
        for path in ("a", "self"):
            with pytest.raises(OSError) as e:
                img.stat(path)
            assert e.value.errno == errno.ELOOP
        assert img.lstat("a").link_target == "b"


def test_lookups_by_parent_directory(tmp_path):
    # the Image keeps the node ids of parent directories (a bounded
    # number): lookups in many directories, twice (past the bound), and
    # parents that are symlinks, files or missing, read the same
    p = tmp_path / "dirs.sqfs"
    with squashforge.Writer(p, "gzip") as w:
        for i in range(300):
            w.add_file(f"d{i:03}/f", b"%d" % i)
        w.add_symlink("ln", "d001")
        w.add_symlink("d002/up", "..")
        w.add_file("plain", b"x")
    with squashforge.Image(p) as img:
        for _ in range(2):
            for i in range(300):
                assert img.read_bytes(f"d{i:03}/f") == b"%d" % i
                assert img.stat(f"/d{i:03}//f").st_size == len(b"%d" % i)
                assert img.lstat(f"./d{i:03}/f".encode()).st_nlink == 1
        for _ in range(2):
            assert img.read_bytes("ln/f") == b"1"
            assert img.read_bytes("d002/up/d003/f") == b"3"
            assert img.lstat("d002/up").link_target == ".."
            with pytest.raises(FileNotFoundError):
                img.stat("d001/nothing")
            with pytest.raises(FileNotFoundError):
                img.stat("nothing/f")
            with pytest.raises(NotADirectoryError):
                img.stat("plain/x")
            with pytest.raises(NotADirectoryError):
                img.stat("d001/f/x")
            assert img.read_bytes("d001/f") == b"1"
            assert img.stat("ln").st_ino == img.stat("d001").st_ino
            for path in (b"d001/f\0x", "d001\0/f", "d002/up/d001/f\0"):
                with pytest.raises(ValueError):
                    img.stat(path)


def test_offsets(tmp_path, tree):
    need_mksquashfs()
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p, "-comp", "gzip")
    data = p.read_bytes()
    prefixed = tmp_path / "prefixed.bin"
    prefixed.write_bytes(b"#!/bin/sh\nexit 0\n" + bytes(5000) + data)
    with squashforge.Image(prefixed, offset="auto") as img:
        assert img.offset == 5017 == img.superblock.offset
        assert_same_tree(img, tree)
    with squashforge.Image(prefixed, 5017) as img:
        assert img.read_bytes("small") == b"hello, world\n"
    with squashforge.Image(p, "auto") as img:
        assert img.offset == 0
    with pytest.raises(squashforge.NotAnImageError):
        squashforge.Image(prefixed)
    with pytest.raises(squashforge.NotAnImageError):
        squashforge.Image(prefixed, 17)
    with pytest.raises(ValueError):
        squashforge.Image(p, "somewhere")
    with pytest.raises(ValueError):
        squashforge.Image(p, -1)
    # mksquashfs -offset leaves room for something before the image
    q = tmp_path / "off.sqfs"
    mksquashfs(tree, q, "-o", "8192")
    with squashforge.Image(q, offset="auto") as img:
        assert img.offset == 8192
        assert img.read_bytes("dir/big")


def test_file_objects_as_sources(tmp_path, tree):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p, "-comp", "xz")
    data = p.read_bytes()

    class OnlyRead:
        """seek, tell and read: no readinto."""

        def __init__(self, b):
            self.f = io.BytesIO(b)

        def seek(self, *a):
            return self.f.seek(*a)

        def tell(self):
            return self.f.tell()

        def read(self, n):
            return self.f.read(n)

    for src in (io.BytesIO(data), open(p, "rb"), OnlyRead(data),
                io.BufferedReader(io.BytesIO(b"junk" * 10 + data))):
        off = "auto" if isinstance(src, io.BufferedReader) else 0
        with squashforge.Image(src, off) as img:
            assert_same_tree(img, tree)
        if hasattr(src, "close"):
            src.close()
    with open(p, "rb") as f:
        assert squashforge.Image(f).name == str(p)

    class Failing(io.BytesIO):
        fail = False

        def readinto(self, b):
            if self.fail:
                raise ConnectionError("the network went away")
            return super().readinto(b)

    f = Failing(data)
    img = squashforge.Image(f, meta_cache=1, data_cache=1)
    f.fail = True
    with pytest.raises(squashforge.SquashfsError) as e:
        img.read_bytes("dir/sub/deeper/exact")
    assert isinstance(e.value.__cause__, ConnectionError)
    f.fail = False
    assert len(img.read_bytes("dir/sub/deeper/exact")) == 131072
    img.close()

    with pytest.raises(TypeError):
        squashforge.Image(12345)
    with pytest.raises(IsADirectoryError):
        squashforge.Image(tmp_path)
    with pytest.raises(squashforge.CorruptImageError) as e:
        squashforge.Image("/dev/null")
    assert "too short" in e.value.strerror
    with pytest.raises(FileNotFoundError):
        squashforge.Image(tmp_path / "missing.sqfs")
    with pytest.raises(squashforge.NotAnImageError):
        squashforge.Image(io.BytesIO(bytes(8192)))


def test_superblock_and_close(tmp_path, tree):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p, "-comp", "zstd", "-mkfs-time", str(T0))
    img = squashforge.Image(p)
    sb = img.superblock
    assert sb.compressor == "zstd" and sb.version == (4, 0)
    assert sb.modification_time == T0
    assert sb.bytes_used <= os.path.getsize(p)
    assert sb.inode_count > 10 and "DEDUPLICATED" in sb.flags
    assert "level=" in sb.compressor_options
    assert not img.closed
    f = img.open("dir/big")
    img.close()
    img.close()
    assert img.closed
    with pytest.raises(ValueError):
        img.stat("small")
    with pytest.raises(ValueError):
        img.listdir()
    # a file opened before keeps the image readable until it is closed
    assert len(f.read()) == os.path.getsize(os.path.join(tree, "dir/big"))
    f.close()
    assert "closed" in repr(img)


def test_extract(tmp_path, tree):
    p = tmp_path / "m.sqfs"
    mksquashfs(tree, p)
    out = tmp_path / "out"
    out.mkdir()
    part = tmp_path / "part"
    with squashforge.Image(p) as img:
        img.extract("/", out)
        img.extract("dir/sub", part, make_dest=True)
        img.extract("small", part)
        with pytest.raises(FileExistsError):
            img.extract("small", part)        # no overwrite
        img.extract("small", part, overwrite=True)
        with pytest.raises(FileNotFoundError):
            img.extract("nothing", out)
        with pytest.raises(FileNotFoundError):
            img.extract("/", tmp_path / "no-such-dir")
    assert_same_tree(squashforge.Image(p), str(out))
    for rel in ("small", "dir/big", "dir/sub/deeper/exact", "sparse"):
        with open(os.path.join(tree, rel), "rb") as a, \
                open(os.path.join(out, rel), "rb") as b:
            assert a.read() == b.read(), rel
    assert os.readlink(out / "link") == "dir/big"
    assert sorted(os.listdir(part)) == ["small", "sub"]
    assert os.path.isdir(part / "sub" / "deeper")
    assert os.readlink(part / "sub" / "up") == "../.."
    assert stat.S_IMODE(os.stat(out / "dir" / "big").st_mode) == 0o4755
    assert os.stat(out / "small").st_mtime == os.stat(
        os.path.join(tree, "small")).st_mtime
    assert os.getxattr(out / "small", "user.comment") == b"a value"
    if os.geteuid() == 0:
        assert os.stat(out / "small").st_uid == 1000

    # without attributes: the process's own
    plain = tmp_path / "plain"
    plain.mkdir()
    with squashforge.Image(p) as img:
        img.extract("dir", plain, xattrs=False, times=False, chmod=False,
                    chown=False, jobs=1)
    st = os.stat(plain / "dir" / "big")
    assert stat.S_IMODE(st.st_mode) & 0o4000 == 0
    assert st.st_mtime > T0 + 1000
    assert os.listxattr(plain / "dir" / "big") == []


def test_lstat_then_follow(tmp_path):
    """stat and open after lstat of the same path (which looks it up
    once) still follow a symlink there, and lstat after stat does not."""
    p = tmp_path / "l.sqfs"
    with squashforge.Writer(p) as w:
        w.add_file("dir/file", b"the target")
        w.add_symlink("link", "dir/file")
        w.add_symlink("dirlink", "dir")
    with squashforge.Image(p) as img:
        assert img.lstat("link").link_target == "dir/file"
        assert stat.S_ISREG(img.stat("link").st_mode)
        assert img.lstat("link").link_target == "dir/file"
        with img.open("link") as f:
            assert f.read() == b"the target"
        assert stat.S_ISLNK(img.lstat("link").st_mode)
        assert stat.S_ISLNK(img.lstat("dirlink").st_mode)
        assert img.listdir("dirlink") == ["file"]
        assert img.lstat("dir/file").st_size == 10
        assert img.read_bytes("dir/file") == b"the target"


def test_walk_bottom_up(tmp_path):
    """topdown=False yields the same directories, each after everything
    below it, and files read in that order are right."""
    p = tmp_path / "w.sqfs"
    with squashforge.Writer(p) as w:
        for d in ("a", "a/b", "a/b/c", "d"):
            w.add_dir(d)
        for i, d in enumerate(("", "a", "a/b", "a/b/c", "d")):
            w.add_file(f"{d}/f{i}".lstrip("/"), b"x" * i)
    with squashforge.Image(p) as img:
        down = list(img.walk("/"))
        up = list(img.walk("/", topdown=False))
        assert sorted(up) == sorted(down)
        order = [top for top, _, _ in up]
        for i, top in enumerate(order):
            for below in order[:i]:
                assert not top.startswith(below.rstrip("/") + "/")
        assert order[-1] == "/"
        for top, _, files in up:
            for name in files:
                path = posixpath.join(top, name)
                assert img.read_bytes(path) == b"x" * int(name[1:])

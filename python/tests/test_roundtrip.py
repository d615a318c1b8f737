# SPDX-License-Identifier: MIT
"""Images written by Writer read back by Image: every entry type and
attribute, every compressor, the writer's options, and what happens to
the output on failure."""

import io
import os
import stat

import pytest

import squashforge
from conftest import T0, make_tree, pattern, assert_same_tree

ALL_COMPRESSORS = ["gzip", "xz", "lzma", "lz4", "zstd", "lzo"]


def write_everything(path, **options):
    """An image holding every entry type and attribute; returns what
    each path should read back as."""
    big = pattern(5 * 65536 + 77, 3)
    with squashforge.Writer(path, mtime=T0, **options) as w:
        w.add_dir("", mode=0o750, uid=1, gid=2, mtime=T0 + 1,
                  xattrs={"user.root": b"r"})
        w.add_dir("d", mode=0o700, uid=1000, gid=1000, mtime=T0 + 2,
                  xattrs={"user.a": b"1", "trusted.b": b"\0\1\2"})
        w.add_file("d/empty", b"")
        w.add_file("d/small", b"small file\n", mode=0o600, uid=7, gid=8,
                   mtime=T0 + 3, xattrs={"security.capability": b"cap"})
        w.add_file("big", big, mode=0o4755)
        w.add_file("stream", io.BytesIO(big[:100000]), mode=0o644)
        w.add_symlink("link", "d/small", uid=3, gid=4, mtime=T0 + 4)
        w.add_symlink("long", "x" * 4096)
        w.add_device("chr", "char", 4095, 1048575, mode=0o620)
        w.add_device("blk", stat.S_IFBLK, 8, 1, mode=0o660, uid=0,
                     gid=6)
        w.add_fifo("fifo", mode=0o610, xattrs={"user.f": b"fifo"})
        w.add_socket("sock", mode=0o755)
        w.add_hardlink("hard", "d/small")
        w.add_hardlink("hard2", "later")      # resolved at close
        w.add_file("later", b"added after its link")
        w.add_file("implicit/parents/file", b"x")
        w.add_file("replaced", b"first")
        w.add_file("replaced", b"second")
    return big


def test_every_entry_type(tmp_path):
    p = tmp_path / "all.sqfs"
    big = write_everything(p, compressor="gzip", block_size=65536)
    with squashforge.Image(p) as img:
        root = img.stat("/")
        assert stat.S_IMODE(root.st_mode) == 0o750 and stat.S_ISDIR(
            root.st_mode)
        assert (root.st_uid, root.st_gid, root.st_mtime) == (1, 2, T0 + 1)
        assert root.xattrs == {"user.root": b"r"}

        st = img.stat("d")
        assert st.st_mode == stat.S_IFDIR | 0o700
        assert (st.st_uid, st.st_gid, int(st.st_mtime)) == (1000, 1000,
                                                            T0 + 2)
        assert st.xattrs == {"user.a": b"1", "trusted.b": b"\0\1\2"}

        st = img.stat("d/small")
        assert st.st_mode == stat.S_IFREG | 0o600
        assert (st.st_uid, st.st_gid, st.st_mtime_ns) == (
            7, 8, (T0 + 3) * 10**9)
        assert st.xattrs == {"security.capability": b"cap"}
        assert st.st_size == 11 and st.st_nlink == 2
        assert img.read_bytes("d/small") == b"small file\n"
        assert img.read_bytes("d/empty") == b""

        # hard links share the inode, the attributes and the data
        h = img.stat("hard")
        assert h.st_ino == st.st_ino and h.node == st.node
        assert h.xattrs == st.xattrs and h.st_mode == st.st_mode
        assert img.stat("hard2").st_ino == img.stat("later").st_ino
        assert img.read_bytes("hard2") == b"added after its link"

        st = img.stat("big")
        assert st.st_mode == stat.S_IFREG | 0o4755
        assert st.st_mtime == T0 and st.st_uid == 0
        assert img.read_bytes("big") == big
        assert img.read_bytes("stream") == big[:100000]

        st = img.lstat("link")
        assert stat.S_ISLNK(st.st_mode) and st.link_target == "d/small"
        assert (st.st_uid, st.st_gid, st.st_mtime) == (3, 4, T0 + 4)
        assert img.readlink("link") == "d/small"
        assert img.stat("link").st_ino == img.stat("d/small").st_ino
        assert img.readlink("long") == "x" * 4096
        assert img.lstat("long").st_size == 4096

        st = img.stat("chr")
        assert st.st_mode == stat.S_IFCHR | 0o620
        assert (st.rdev_major, st.rdev_minor) == (4095, 1048575)
        assert st.st_rdev == os.makedev(4095, 1048575)
        st = img.stat("blk")
        assert st.st_mode == stat.S_IFBLK | 0o660 and st.st_gid == 6
        assert (st.rdev_major, st.rdev_minor) == (8, 1)

        st = img.stat("fifo")
        assert st.st_mode == stat.S_IFIFO | 0o610
        assert st.xattrs == {"user.f": b"fifo"}
        assert img.stat("sock").st_mode == stat.S_IFSOCK | 0o755

        # parents made on the way take the writer's defaults
        st = img.stat("implicit/parents")
        assert st.st_mode == stat.S_IFDIR | 0o755 and st.st_mtime == T0
        assert img.read_bytes("replaced") == b"second"

        assert img.listdir() == sorted(
            ["big", "blk", "chr", "d", "fifo", "hard", "hard2", "implicit",
             "later", "link", "long", "replaced", "sock", "stream"])
        assert img.superblock.compressor == "gzip"
        assert img.superblock.block_size == 65536


@pytest.mark.parametrize("comp", ALL_COMPRESSORS)
def test_every_compressor(tmp_path, comp):
    if comp not in squashforge.compressors():
        pytest.fail(f"libsquashfs was built without {comp}")
    p = tmp_path / f"{comp}.sqfs"
    data = pattern(300000, 5)
    with squashforge.Writer(p, comp, block_size=16384, jobs=2) as w:
        w.add_file("data", data)
        w.add_file("tail", data[:1000])
        w.add_file("raw", os.urandom(50000))
        w.add_symlink("l", "data")
    with squashforge.Image(p) as img:
        assert img.superblock.compressor == comp
        assert img.read_bytes("data") == data
        assert img.read_bytes("tail") == data[:1000]
        assert len(img.read_bytes("raw")) == 50000
    # the data compressed: the image is much smaller than what it holds
    assert os.path.getsize(p) < 200000


@pytest.mark.parametrize("comp,opts,expect", [
    ("gzip", "level=1,window=10", "level=1"),
    ("xz", {"level": 9, "extreme": True, "dictsize": 65536},
     "dictsize=65536"),
    ("zstd", "level=3", "level=3"),
    ("lz4", "hc", "hc"),
])
def test_compressor_options(tmp_path, comp, opts, expect):
    p = tmp_path / "o.sqfs"
    with squashforge.Writer(p, comp, compressor_options=opts) as w:
        w.add_file("f", pattern(50000))
    with squashforge.Image(p) as img:
        assert expect in img.superblock.compressor_options
        assert "COMPRESSOR_OPTIONS" in img.superblock.flags
        assert img.read_bytes("f") == pattern(50000)


def test_writer_options(tmp_path):
    p = tmp_path / "opt.sqfs"
    data = pattern(70000, 9)
    with squashforge.Writer(p, "zstd", block_size=4096, exportable=True,
                            fragments=False, deduplicate=False,
                            compress=False, pad=False, mkfs_time=T0 + 99,
                            uid=11, gid=12, mode=0o711) as w:
        w.add_file("a/f", data, uid=0, gid=0)
        w.add_file("a/g", data, uid=0, gid=0)
    size = os.path.getsize(p)
    with squashforge.Image(p) as img:
        sb = img.superblock
        assert sb.block_size == 4096 and sb.exportable
        assert sb.modification_time == T0 + 99
        assert {"NO_FRAGMENTS", "UNCOMPRESSED_DATA",
                "UNCOMPRESSED_INODES"} <= sb.flags
        assert "DEDUPLICATED" not in sb.flags
        assert sb.bytes_used == size     # no padding
        st = img.stat("a")
        assert (st.st_uid, st.st_gid) == (11, 12)
        assert st.st_mode == stat.S_IFDIR | 0o711
        assert img.read_bytes("a/g") == data
    # no compression and no deduplication: both copies are stored raw
    assert size > 2 * len(data)


def test_sparse_and_file_flags(tmp_path):
    p = tmp_path / "s.sqfs"
    src = tmp_path / "sparse.bin"
    with open(src, "wb") as f:
        f.write(b"start")
        f.seek(10 << 20)
        f.write(b"end")
    with squashforge.Writer(p, "xz") as w:
        w.add_file("sparse", src)
        w.add_file("zeros", bytes(1 << 20), sparse=True)
        w.add_file("stored", pattern(20000), compress=False,
                   fragment=False, deduplicate=False, align=True)
        w.add_file("dense", bytes(300000), sparse=False)
    assert os.path.getsize(p) < 100000
    with squashforge.Image(p) as img:
        st = img.stat("sparse")
        assert st.st_size == (10 << 20) + 3
        # as the kernel counts: the bytes that are not holes
        assert st.st_blocks * 512 <= 2 * 131072
        with img.open("sparse") as f:
            assert f.read(5) == b"start"
            assert f.read(100) == bytes(100)
            f.seek(-3, os.SEEK_END)
            assert f.read() == b"end"
        assert img.read_bytes("zeros") == bytes(1 << 20)
        assert img.read_bytes("stored") == pattern(20000)
        assert img.read_bytes("dense") == bytes(300000)


def test_source_path_takes_attributes(tmp_path):
    src = tmp_path / "src"
    src.write_bytes(b"from disk")
    os.chmod(src, 0o751)
    os.utime(src, (T0, T0 + 42))
    p = tmp_path / "p.sqfs"
    with squashforge.Writer(p) as w:
        w.add_file("f", src)
        w.add_file("g", str(src), mode=0o600, mtime=5)
    with squashforge.Image(p) as img:
        st = img.stat("f")
        assert st.st_mode == stat.S_IFREG | 0o751
        assert st.st_mtime == T0 + 42
        assert st.st_uid == os.stat(src).st_uid
        st = img.stat("g")
        assert st.st_mode == stat.S_IFREG | 0o600 and st.st_mtime == 5
        assert img.read_bytes("g") == b"from disk"


def test_bytes_paths(tmp_path):
    p = tmp_path / "b.sqfs"
    name = b"caf\xe9-not-utf8"
    with squashforge.Writer(p) as w:
        w.add_file(b"dir/" + name, b"latin-1")
    with squashforge.Image(p) as img:
        assert img.listdir(b"dir") == [name]
        assert img.listdir("dir") == [os.fsdecode(name)]
        assert img.read_bytes(b"dir/" + name) == b"latin-1"
        assert img.read_bytes("dir/" + os.fsdecode(name)) == b"latin-1"
        assert list(img.walk(b"/")) == [(b"/", [b"dir"], []),
                                        (b"/dir", [], [name])]


def test_refusals_leave_the_writer_usable(tmp_path):
    p = tmp_path / "r.sqfs"
    with squashforge.Writer(p) as w:
        w.add_file("f", b"x")
        for bad in [
            lambda: w.add_file("../escape", b""),
            lambda: w.add_file("a" * 257, b""),
            lambda: w.add_device("dev", "char", 4096, 0),
            lambda: w.add_file("x", b"", xattrs={"system.acl": b""}),
            lambda: w.add_file("y", b"", xattrs={"user.v": bytes(65537)}),
            lambda: w.add_symlink("s", ""),
            lambda: w.add_file("f/under-a-file", b""),
        ]:
            with pytest.raises(squashforge.SquashfsError) as e:
                bad()
            assert e.value.strerror and e.value.code < 0
            assert isinstance(e.value, (ValueError, NotADirectoryError,
                                        squashforge.UnsupportedError))
            assert w.usable
        with pytest.raises(squashforge.SquashfsNotADirectoryError):
            w.add_dir("f/sub")
        with pytest.raises(ValueError):
            w.add_device("dev", "tape", 1, 1)
        # numbers the extension would have to cut are refused first
        for bad in [lambda: w.add_file("z", b"", uid=-1),
                    lambda: w.add_file("z", b"", gid=1 << 32),
                    lambda: w.add_device("z", "char", (1 << 32) + 1, 0),
                    lambda: w.add_file("z", io.BytesIO(), size=-1)]:
            with pytest.raises(ValueError):
                bad()
        assert w.usable
        with pytest.raises(ValueError):
            w.add_dir("d", mode=stat.S_IFREG | 0o755)
        w.add_file("g", b"still fine")
    with squashforge.Image(p) as img:
        assert img.listdir() == ["f", "g"]
        assert img.read_bytes("g") == b"still fine"


def test_error_words(tmp_path):
    with pytest.raises(squashforge.EntryError) as e:
        squashforge.Writer(tmp_path / "x.sqfs", block_size=3000)
    assert "3000" in str(e.value)
    with pytest.raises(squashforge.EntryError) as e:
        squashforge.Writer(tmp_path / "x.sqfs", "gzip",
                           compressor_options="level=42")
    assert "level" in str(e.value)
    with pytest.raises(squashforge.EntryError):
        squashforge.Writer(tmp_path / "x.sqfs", "snappy")
    with pytest.raises(ValueError):
        squashforge.Writer(tmp_path / "x.sqfs", block_size=(1 << 32) + 4096)
    with pytest.raises(FileNotFoundError) as e:
        squashforge.Writer(tmp_path / "no" / "x.sqfs")
    assert e.value.filename == str(tmp_path / "no" / "x.sqfs")
    assert os.listdir(tmp_path) == []
    with pytest.raises(squashforge.UnsupportedError) as e:
        with squashforge.Writer(tmp_path / "x.sqfs") as w:
            w.add_file("x", b"", xattrs={"nonsense.x": b""})
    assert "namespace" in e.value.strerror
    assert e.value.filename == "x"


def test_exception_leaves_nothing(tmp_path):
    p = tmp_path / "keep.sqfs"
    p.write_bytes(b"the old contents")
    with pytest.raises(RuntimeError):
        with squashforge.Writer(p) as w:
            w.add_file("f", pattern(500000))
            # the old file is untouched while the image is written
            assert p.read_bytes() == b"the old contents"
            raise RuntimeError("stop")
    assert p.read_bytes() == b"the old contents"
    assert sorted(os.listdir(tmp_path)) == ["keep.sqfs"]
    with pytest.raises(ValueError):
        w.add_file("g", b"")


def test_failed_close_leaves_nothing(tmp_path):
    p = tmp_path / "broken.sqfs"
    w = squashforge.Writer(p)
    w.add_hardlink("link", "missing")     # fails at close
    with pytest.raises(squashforge.SquashfsFileNotFoundError) as e:
        w.close()
    assert "missing" in str(e.value)
    assert os.listdir(tmp_path) == []
    assert w.closed and not w.usable


def test_failed_source_gives_up_the_image(tmp_path):
    class Broken(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, b):
            raise OSError(5, "the disk is on fire")

    p = tmp_path / "b.sqfs"
    w = squashforge.Writer(p)
    w.add_file("ok", b"ok")
    with pytest.raises(OSError, match="on fire"):
        w.add_file("bad", Broken())
    assert w.closed
    assert os.listdir(tmp_path) == []


def test_abort_and_garbage(tmp_path):
    p = tmp_path / "a.sqfs"
    w = squashforge.Writer(p)
    w.add_file("f", b"x")
    w.abort()
    assert os.listdir(tmp_path) == []
    w = squashforge.Writer(p)
    w.add_file("f", b"x")
    del w                              # never closed: nothing left
    assert os.listdir(tmp_path) == []


def test_overwrite(tmp_path):
    p = tmp_path / "o.sqfs"
    p.write_bytes(b"old")
    with pytest.raises(FileExistsError):
        squashforge.Writer(p, overwrite=False)
    with squashforge.Writer(p) as w:
        w.add_file("f", b"new")
    with squashforge.Image(p) as img:
        assert img.read_bytes("f") == b"new"
    q = tmp_path / "q.sqfs"
    w = squashforge.Writer(q, overwrite=False)
    q.write_bytes(b"appeared meanwhile")
    with pytest.raises(FileExistsError):
        w.close()
    assert q.read_bytes() == b"appeared meanwhile"
    assert sorted(os.listdir(tmp_path)) == ["o.sqfs", "q.sqfs"]


def test_stats_and_default_time(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(T0 + 5))
    p = tmp_path / "s.sqfs"
    w = squashforge.Writer(p)
    w.add_file("a", pattern(100000))
    w.add_file("b", pattern(100000))
    stats = w.close()
    assert stats is w.stats and w.close() is stats
    assert stats.files == 2 and stats.bytes_in == 200000
    assert stats.image_size == os.path.getsize(p)
    with squashforge.Image(p) as img:
        assert img.superblock.modification_time == T0 + 5
        assert img.stat("a").st_mtime == T0 + 5
        assert img.stat("a").st_ino != img.stat("b").st_ino


def test_times_clamped(tmp_path):
    p = tmp_path / "t.sqfs"
    with squashforge.Writer(p, mtime=-5, mkfs_time=1 << 40) as w:
        w.add_file("old", b"", mtime=-100)
        w.add_file("late", b"", mtime=1 << 33)
        w.add_file("default", b"")
    with squashforge.Image(p) as img:
        assert img.stat("old").st_mtime == 0
        assert img.stat("late").st_mtime == 0xFFFFFFFF
        assert img.stat("default").st_mtime == 0
        assert img.superblock.modification_time == 0xFFFFFFFF


def test_same_entries_same_image(tmp_path):
    def build(p, jobs):
        with squashforge.Writer(p, "xz", jobs=jobs, mtime=T0,
                                mkfs_time=T0) as w:
            for i in range(20):
                w.add_file(f"d{i % 3}/f{i}", pattern(30000 + i, i))
    build(tmp_path / "a.sqfs", 1)
    build(tmp_path / "b.sqfs", 4)
    assert (tmp_path / "a.sqfs").read_bytes() == \
        (tmp_path / "b.sqfs").read_bytes()


def test_add_tree(tmp_path):
    root = make_tree(str(tmp_path / "tree"))
    p = tmp_path / "t.sqfs"
    with squashforge.Writer(p) as w:
        w.add_file("other", b"beside the tree")
        w.add_tree(root, prefix="sub/tree")
        w.add_tree(root)
    with squashforge.Image(p) as img:
        assert_same_tree(img, root, "/sub/tree")
        assert img.read_bytes("other") == b"beside the tree"
        assert img.stat("dir/big").st_mode == os.lstat(
            os.path.join(root, "dir/big")).st_mode
        assert img.stat("/").st_mtime == T0
    with pytest.raises(FileNotFoundError) as e:
        with squashforge.Writer(tmp_path / "n.sqfs") as w:
            w.add_tree(tmp_path / "no-such-dir")
    assert "no-such-dir" in str(e.value)
    with pytest.raises(NotADirectoryError):
        with squashforge.Writer(tmp_path / "n.sqfs") as w:
            w.add_tree(p)
    assert not (tmp_path / "n.sqfs").exists()
    # without hard links and xattrs
    q = tmp_path / "q.sqfs"
    with squashforge.Writer(q) as w:
        w.add_tree(root, hard_links=False, xattrs=False)
    with squashforge.Image(q) as img:
        assert img.stat("small").st_ino != img.stat("dir/hardlink").st_ino
        assert img.read_bytes("dir/hardlink") == b"hello, world\n"
        assert img.stat("small").xattrs == {}


def test_add_tree_big_queue(tmp_path):
    """add_tree reads on a thread of its own through a queue of 16 MiB:
    files that overflow it arrive whole and in order, the image is the
    same at any number of jobs, and a refusal by the writer while the
    reader waits for room stops both threads with the error."""
    root = tmp_path / "tree"
    (root / "d").mkdir(parents=True)
    for i in range(3):
        (root / "d" / f"big{i}").write_bytes(pattern(9 << 20, i))
    for i in range(200):
        (root / f"small{i:03d}").write_bytes(pattern(i * 37, i))
    images = []
    for jobs in (1, 3):
        p = tmp_path / f"j{jobs}.sqfs"
        with squashforge.Writer(p, "lz4", jobs=jobs, mkfs_time=T0) as w:
            w.add_tree(root)
        images.append(p.read_bytes())
    assert images[0] == images[1]
    with squashforge.Image(tmp_path / "j1.sqfs") as img:
        for i in range(3):
            assert img.read_bytes(f"d/big{i}") == pattern(9 << 20, i)
        for i in range(200):
            assert img.read_bytes(f"small{i:03d}") == pattern(i * 37, i)
    # "x" is a file: the tree's root at "x/y" is refused at once
    with pytest.raises(NotADirectoryError) as e:
        with squashforge.Writer(tmp_path / "n.sqfs") as w:
            w.add_file("x", b"a file")
            w.add_tree(root, prefix="x/y")
    assert "x/y" in str(e.value)
    assert not (tmp_path / "n.sqfs").exists()

# SPDX-License-Identifier: MIT
"""Image.open's file objects against io semantics: compared, call for
call, with io.BytesIO and with a real file holding the same data."""

import errno
import io
import os

import pytest

import squashforge
from conftest import pattern

SIZE = 3 * 16384 + 999


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    d = tmp_path_factory.mktemp("fileobj")
    p = d / "f.sqfs"
    with squashforge.Writer(p, "zstd", block_size=16384) as w:
        w.add_file("data", pattern(SIZE, 4))
        w.add_file("empty", b"")
        w.add_file("text", b"one\ntwo\r\nthree\n\nlast")
        w.add_file("holes", bytes(40000) + b"x" + bytes(30000))
    img = squashforge.Image(p)
    yield img
    img.close()


def test_read_sizes_match_bytesio(image):
    ref = io.BytesIO(pattern(SIZE, 4))
    with image.open("data") as f:
        assert isinstance(f, io.RawIOBase)
        assert f.readable() and f.seekable() and not f.writable()
        assert f.size == SIZE
        for n in [0, 1, 10, 16383, 16384, 16385, 40000, 0, 7, -1, 5, -1]:
            assert f.read(n) == ref.read(n), n
            assert f.tell() == ref.tell()
        assert f.read() == b"" and f.read(100) == b""


def test_readinto(image):
    data = pattern(SIZE, 4)
    with image.open("data") as f:
        buf = bytearray(10000)
        assert f.readinto(buf) == 10000 and buf == data[:10000]
        view = memoryview(buf)[100:200]
        assert f.readinto(view) == 100
        assert bytes(view) == data[10000:10100]
        f.seek(SIZE - 50)
        assert f.readinto(buf) == 50 and buf[:50] == data[-50:]
        assert f.readinto(buf) == 0
        with pytest.raises(TypeError):
            f.readinto(b"read-only")
        arr = __import__("array").array("I", bytes(400))
        f.seek(0)
        assert f.readinto(arr) == 400 and arr.tobytes() == data[:400]


def test_seek(image):
    data = pattern(SIZE, 4)
    with image.open("data") as f:
        assert f.seek(100) == 100 and f.read(4) == data[100:104]
        assert f.seek(-4, os.SEEK_CUR) == 100
        assert f.seek(-10, os.SEEK_END) == SIZE - 10
        assert f.read() == data[-10:]
        # beyond the end: allowed, reads nothing, as a real file
        assert f.seek(SIZE + 1000) == SIZE + 1000
        assert f.read(10) == b"" and f.read() == b""
        assert f.readinto(bytearray(10)) == 0
        assert f.tell() == SIZE + 1000
        with pytest.raises(OSError) as e:
            f.seek(-1)
        assert e.value.errno == errno.EINVAL
        with pytest.raises(ValueError):
            f.seek(0, 3)
        assert f.tell() == SIZE + 1000


def test_same_as_a_real_file(image, tmp_path):
    data = pattern(SIZE, 4)
    real = tmp_path / "real"
    real.write_bytes(data)
    with image.open("data") as f, open(real, "rb", buffering=0) as r:
        for off, whence, n in [(0, 0, 5), (SIZE, 0, 3), (-3, 2, 10),
                               (10, 1, 0), (SIZE + 5, 0, 1), (7, 0, -1)]:
            assert f.seek(off, whence) == r.seek(off, whence)
            assert f.read(n) == r.read(n)
            assert f.tell() == r.tell()


def test_lines_and_wrappers(image):
    with image.open("text") as f:
        assert f.readline() == b"one\n"
        assert f.readlines() == [b"two\r\n", b"three\n", b"\n", b"last"]
    with image.open("text") as f:
        assert list(f) == [b"one\n", b"two\r\n", b"three\n", b"\n",
                           b"last"]
    with io.TextIOWrapper(io.BufferedReader(image.open("text")),
                          encoding="ascii") as t:
        assert t.read().splitlines() == ["one", "two", "three", "",
                                         "last"]
    with io.BufferedReader(image.open("data"), 4096) as b:
        assert b.peek(1)[:1] == pattern(1, 4)
        b.seek(SIZE - 3)
        assert b.read() == pattern(SIZE, 4)[-3:]


def test_holes_and_empty(image):
    with image.open("holes") as f:
        assert f.read(40000) == bytes(40000)
        assert f.read(1) == b"x"
        assert f.read() == bytes(30000)
    with image.open("empty") as f:
        assert f.size == 0 and f.read() == b"" and f.read(10) == b""


def test_pread_leaves_position(image):
    data = pattern(SIZE, 4)
    with image.open("data") as f:
        f.seek(5)
        assert f.pread(10, 20000) == data[20000:20010]
        assert f.pread(10, SIZE - 4) == data[-4:]
        assert f.pread(10, SIZE + 100) == b""
        assert f.tell() == 5
        with pytest.raises(OSError):
            f.pread(1, -1)


def test_after_close(image):
    f = image.open("data")
    assert not f.closed
    f.close()
    f.close()
    assert f.closed
    for call in (lambda: f.read(1), lambda: f.read(), f.readall,
                 lambda: f.readinto(bytearray(1)), lambda: f.seek(0),
                 f.tell, f.readable, f.seekable, lambda: f.pread(1, 0),
                 f.readline):
        with pytest.raises(ValueError):
            call()
    with image.open("data") as g:
        pass
    assert g.closed


def test_not_writable(image):
    with image.open("data") as f:
        with pytest.raises((io.UnsupportedOperation, OSError)):
            f.write(b"x")
        with pytest.raises((io.UnsupportedOperation, OSError)):
            f.truncate(0)
        with pytest.raises((io.UnsupportedOperation, OSError)):
            f.fileno()
        assert not f.isatty()
    with pytest.raises(ValueError):
        image.open("data", "wb")

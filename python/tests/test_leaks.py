# SPDX-License-Identifier: MIT
"""Reference leaks: calls repeated many times must not make Python's
memory grow (tracemalloc) nor the reference counts of what they are
given."""

import gc
import io
import sys
import tracemalloc

import pytest

import squashforge
from conftest import pattern


@pytest.fixture(scope="module")
def image_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("leaks") / "l.sqfs"
    with squashforge.Writer(p, "lz4") as w:
        w.add_dir("d", xattrs={"user.x": b"1", "user.y": b"2"})
        for i in range(50):
            w.add_file(f"d/f{i}", pattern(3000 + i, i))
        w.add_symlink("l", "d/f1")
        w.add_device("c", "char", 1, 2)
    return p


def growth(fn, rounds=2000, warmup=200):
    """Bytes Python holds more after rounds calls than before them, the
    smaller of two tries: a leak shows in both, while caches and free
    lists that fill once (the first time a path is taken) show in one at
    most."""
    for _ in range(warmup):
        fn()
    grew = []
    for _ in range(2):
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(rounds):
                fn()
            gc.collect()
            grew.append(tracemalloc.get_traced_memory()[0] - before)
        finally:
            tracemalloc.stop()
    return min(grew)


def reading_calls(img):
    buf = bytearray(1000)

    def errors():
        for call in (lambda: img.stat("nope"), lambda: img.listdir("l/x"),
                     lambda: img.open("d"), lambda: img.readlink("d")):
            try:
                call()
            except OSError:
                pass

    def read():
        with img.open("d/f3") as f:
            f.read(100)
            f.readinto(buf)
            f.pread(10, 2000)
            f.readall()

    return {
        "stat": lambda: img.stat("d/f7"),
        "lstat symlink": lambda: img.lstat("l"),
        "stat xattrs": lambda: img.stat("d").xattrs,
        "listdir": lambda: img.listdir("d"),
        "scandir": lambda: [e.stat() for e in img.scandir("d")],
        "walk": lambda: list(img.walk()),
        "read": read,
        "errors": errors,
        "superblock": lambda: img._fs.superblock(),
    }


def test_reading_does_not_leak(image_path):
    with squashforge.Image(image_path) as img:
        for name, fn in reading_calls(img).items():
            rounds = 100 if name == "walk" else 1000
            grew = growth(fn, rounds=rounds, warmup=50)
            assert grew < 16384, (name, grew)


def test_images_and_writers_do_not_leak(image_path, tmp_path):
    data = image_path.read_bytes()

    def open_close():
        with squashforge.Image(image_path) as img:
            img.read_bytes("d/f1")
        with squashforge.Image(io.BytesIO(data)) as img:
            img.read_bytes("d/f2")
        try:
            squashforge.Image(io.BytesIO(b"not an image" * 100))
        except squashforge.SquashfsError:
            pass

    assert growth(open_close, rounds=300, warmup=30) < 32768

    out = tmp_path / "w.sqfs"
    xattrs = {"user.k": b"v" * 100}
    payload = pattern(10000)

    def write():
        with squashforge.Writer(out, "lz4", jobs=0) as w:
            w.add_dir("a", xattrs=xattrs)
            w.add_file("a/b", payload, xattrs=xattrs)
            w.add_file("a/c", io.BytesIO(payload))
            w.add_symlink("s", "a/b")
            try:
                w.add_file("../bad", b"")
            except squashforge.EntryError:
                pass

    assert growth(write, rounds=200, warmup=20) < 32768


def test_reference_counts(image_path, tmp_path):
    """What the calls are given is not kept (or lost) by them."""
    path = str(image_path)
    key = "user.some-key-of-a-test"
    value = b"a value of a test" * 3
    xattrs = {key: value}
    payload = pattern(5000)
    source = io.BytesIO(image_path.read_bytes())
    objs = [path, key, value, xattrs, payload, source]
    before = [sys.getrefcount(o) for o in objs]
    for _ in range(100):
        with squashforge.Image(path) as img:
            img.stat("d")
        with squashforge.Image(source) as img:
            img.read_bytes("d/f9")
        with squashforge.Writer(tmp_path / "r.sqfs", jobs=0) as w:
            w.add_file("x", payload, xattrs=xattrs)
            w.add_file("y", payload, xattrs=xattrs)
    del img, w
    gc.collect()
    assert [sys.getrefcount(o) for o in objs] == before

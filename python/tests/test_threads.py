# SPDX-License-Identifier: MIT
"""An Image used from many threads at once: the same answers as from
one, the GIL released while the library works, and close() while
others read."""

import hashlib
import io
import sys
import threading

import pytest

import squashforge
from conftest import pattern

FILES = 24


@pytest.fixture(scope="module")
def image_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("threads") / "t.sqfs"
    with squashforge.Writer(p, "xz", block_size=16384, jobs=2) as w:
        for i in range(FILES):
            w.add_file(f"d{i % 4}/f{i}", pattern(20000 + 7919 * i, i))
        w.add_file("big", pattern(2 << 20, 99))
    return p


def expected(i):
    return hashlib.sha256(pattern(20000 + 7919 * i, i)).hexdigest()


def run_threads(n, target):
    errors = []

    def wrap(k):
        try:
            target(k)
        except BaseException as e:  # noqa: B902 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


@pytest.mark.parametrize("source", ["path", "fileobj"])
def test_many_readers(image_path, source):
    src = image_path if source == "path" else io.BytesIO(
        image_path.read_bytes())
    big = pattern(2 << 20, 99)
    with squashforge.Image(src, data_cache=1 << 20) as img:
        def reader(k):
            for rnd in range(3):
                for i in range((k + rnd) % FILES, FILES, 5):
                    path = f"d{i % 4}/f{i}"
                    data = img.read_bytes(path)
                    assert hashlib.sha256(data).hexdigest() == \
                        expected(i), path
                    assert img.stat(path).st_size == len(data)
                assert len(img.listdir(f"d{k % 4}")) == FILES // 4
                # everyone in the same big file, at different places
                with img.open("big") as f:
                    off = (k * 65536 + rnd * 12345) % (2 << 20)
                    f.seek(off)
                    assert f.read(50000) == big[off:off + 50000]
                walked = sum(len(fs) for _, _, fs in img.walk())
                assert walked == FILES + 1

        run_threads(12, reader)


def test_one_file_many_threads(image_path):
    big = pattern(2 << 20, 99)
    with squashforge.Image(image_path) as img, img.open("big") as f:
        def reader(k):
            for j in range(40):
                off = (k * 7777 + j * 54321) % len(big)
                assert f.pread(4096, off) == big[off:off + 4096]

        run_threads(8, reader)


def test_gil_released_while_decompressing(tmp_path):
    """While one thread is inside one long read, another runs Python
    code. The switch interval is made long, so that a thread holding the
    GIL would keep it: the counter could then not move during the call,
    which has no bytecode boundary for the interpreter to switch at."""
    p = tmp_path / "g.sqfs"
    size = 48 << 20
    with squashforge.Writer(p, "gzip", compressor_options="level=1",
                            jobs=2) as w:
        w.add_file("big", pattern(1 << 20, 1) * (size >> 20))
    counter = [0]
    during = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        with squashforge.Image(p, read_ahead=False, data_cache=1) as img, \
                img.open("big") as f:
            go = threading.Event()
            done = threading.Event()

            def reader():
                go.wait()
                before = counter[0]
                n = len(f.read(size))
                during.append(counter[0] - before)
                done.set()
                assert n == size

            t = threading.Thread(target=reader)
            t.start()
            go.set()
            while not done.is_set():
                counter[0] += 1
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert during[0] > 100, during


def test_close_while_reading(image_path):
    img = squashforge.Image(image_path)
    start = threading.Barrier(5)
    outcomes = []

    def reader(k):
        start.wait()
        try:
            for j in range(200):
                img.stat(f"d{j % 4}/f{(j * 4 + j % 4) % FILES}")
                img.listdir("/")
        except ValueError:
            outcomes.append("closed")
        else:
            outcomes.append("done")

    threads = [threading.Thread(target=reader, args=(k,))
               for k in range(4)]
    for t in threads:
        t.start()
    start.wait()
    img.close()
    for t in threads:
        t.join()
    assert len(outcomes) == 4 and img.closed
    with pytest.raises(ValueError):
        img.stat("/")


def test_writer_refuses_a_second_thread(tmp_path):
    p = tmp_path / "w.sqfs"
    with squashforge.Writer(p, "xz", jobs=1) as w:
        w.add_file("f", b"")
        errors = []
        inside = threading.Event()
        data = pattern(32 << 20, 3)

        class Slow(io.RawIOBase):
            """A source that lets the other thread try while the
            writer is busy appending."""
            pos = 0

            def readable(self):
                return True

            def readinto(self, b):
                inside.set()
                n = min(len(b), len(data) - self.pos)
                b[:n] = data[self.pos:self.pos + n]
                self.pos += n
                return n

        def other():
            inside.wait()
            for _ in range(2000):
                try:
                    w.add_file("g", b"x")
                except RuntimeError as e:
                    errors.append(e)
                    return
                except squashforge.SquashfsError:
                    pass   # between two appends: a file is open

        t = threading.Thread(target=other)
        t.start()
        w.add_file("big", Slow())
        t.join()
    assert errors and "another thread" in str(errors[0])
    with squashforge.Image(p) as img:
        assert img.read_bytes("big") == data


@pytest.mark.parametrize("read_ahead", [True, False])
def test_walk_reads_ahead(tmp_path, read_ahead):
    """Files read in the order walk yields them are named to the
    read-ahead threads before they are opened (sqfs_fs_prefetch), which
    read-ahead within a file never does for files of one block or a
    tail; out of order, and without read-ahead, the bytes are the
    same."""
    p = tmp_path / "small.sqfs"
    sizes = [(i * 977) % 20000 + 1 for i in range(300)]
    with squashforge.Writer(p, "xz", block_size=8192, jobs=2) as w:
        for i, size in enumerate(sizes):
            w.add_file(f"d{i % 3}/f{i:03d}", pattern(size, i))
    want = {f"/d{i % 3}/f{i:03d}": hashlib.sha256(pattern(size, i)).digest()
            for i, size in enumerate(sizes)}
    with squashforge.Image(p, read_ahead=read_ahead) as img:
        got = {}
        for top, dirs, files in img.walk("/"):
            for name in files:
                path = f"{top.rstrip('/')}/{name}"
                with img.open(path) as f:
                    got[path] = hashlib.sha256(f.read()).digest()
        stats = img._fs.cache_stats()
        # backwards, after the walk: the plan names nothing useful
        for path in sorted(want, reverse=True):
            assert hashlib.sha256(img.read_bytes(path)).digest() == \
                want[path]
    assert got == want
    if read_ahead:
        assert stats["read_ahead_done"] > 0
        assert stats["read_ahead_used"] > 0
    else:
        assert stats["read_ahead_done"] == 0

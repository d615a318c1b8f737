# SPDX-License-Identifier: MIT
"""Uses of the package that mypy --strict must accept with the stubs
(test_typing.py); never run."""

import io
import squashforge

with squashforge.Image("x.sqfs", offset="auto") as img:
    st = img.lstat("a")
    t: str | None = st.link_target
    names: list[str] = img.listdir("/")
    bnames: list[bytes] = img.listdir(b"/")
    for d, ds, fs in img.walk("/"):
        x: str = d
    with img.scandir() as it:
        for e in it:
            n: str = e.name
            e.stat().st_size + 1
    with img.open("f") as f:
        data: bytes = f.read(10)
        f.seek(0, io.SEEK_END)
    img.extract("/", "/tmp/out", chown=False)
with squashforge.Writer("o.sqfs", "zstd", compressor_options={"level": 3}) as w:
    w.add_file("a", b"x", xattrs={"user.a": b"1"})
    w.add_file("b", io.BytesIO(b"x"))
    w.add_device("c", "char", 1, 3)
    w.add_tree("/srv", prefix="srv")
s: squashforge.WriterStats | None = w.stats
try:
    pass
except squashforge.CorruptImageError as e:
    c: int = e.code

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Make the tar archives of the tar2sqfs integration tests.

    gen_tar.py CASE OUT.tar     write one archive
    gen_tar.py --list           print the case names

Every archive is deterministic: fixed names, owners, modes, mtimes and
contents. Most are written with Python's tarfile module; sparse files and
the format variants come from GNU tar (/usr/bin/tar) run on files made
here; the damaged archives are assembled header by header.

A damaged case bad_X also writes OUT.expect.tar next to OUT.tar: a clean
archive holding exactly the entries that must survive when the damaged
entry is skipped.
"""

import io
import os
import random
import subprocess
import sys
import tarfile
import tempfile

GNU_TAR = "/usr/bin/tar"
T0 = 1600000000  # a fixed mtime (2020-09-13)
BLOCK = 131072


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def text(seed, n):
    """Compressible bytes: numbered lines of words."""
    words = ["squash", "tar", "block", "inode", "fragment", "xattr", "zero"]
    r = random.Random(seed)
    out = bytearray()
    i = 0
    while len(out) < n:
        out += ("%06d %s\n" % (i, " ".join(r.choice(words)
                                            for _ in range(8)))).encode()
        i += 1
    return bytes(out[:n])


class Writer:
    """Thin wrapper over tarfile with fixed defaults."""

    def __init__(self, path, fmt=tarfile.PAX_FORMAT, pax_headers=None):
        kw = {}
        if pax_headers:
            kw["pax_headers"] = pax_headers
        self.tf = tarfile.open(path, "w", format=fmt, encoding="utf-8",
                               **kw)

    def _info(self, name, typ, mode, uid, gid, mtime, **extra):
        ti = tarfile.TarInfo(name)
        ti.type = typ
        ti.mode = mode
        ti.uid = uid
        ti.gid = gid
        ti.mtime = mtime
        ti.uname = ""
        ti.gname = ""
        for k, v in extra.items():
            setattr(ti, k, v)
        return ti

    def dir(self, name, mode=0o755, uid=0, gid=0, mtime=T0, xattrs=None):
        ti = self._info(name, tarfile.DIRTYPE, mode, uid, gid, mtime)
        self._xattrs(ti, xattrs)
        self.tf.addfile(ti)

    def file(self, name, data=b"", mode=0o644, uid=0, gid=0, mtime=T0,
             xattrs=None, pax=None):
        ti = self._info(name, tarfile.REGTYPE, mode, uid, gid, mtime)
        ti.size = len(data)
        self._xattrs(ti, xattrs)
        if pax:
            ti.pax_headers.update(pax)
        self.tf.addfile(ti, io.BytesIO(data))

    def symlink(self, name, target, uid=0, gid=0, mtime=T0, xattrs=None):
        ti = self._info(name, tarfile.SYMTYPE, 0o777, uid, gid, mtime,
                        linkname=target)
        self._xattrs(ti, xattrs)
        self.tf.addfile(ti)

    def hardlink(self, name, target, mtime=T0):
        ti = self._info(name, tarfile.LNKTYPE, 0o644, 0, 0, mtime,
                        linkname=target)
        self.tf.addfile(ti)

    def dev(self, name, kind, major, minor, mode=0o600, uid=0, gid=0,
            mtime=T0):
        typ = tarfile.CHRTYPE if kind == "c" else tarfile.BLKTYPE
        ti = self._info(name, typ, mode, uid, gid, mtime,
                        devmajor=major, devminor=minor)
        self.tf.addfile(ti)

    def fifo(self, name, mode=0o644, uid=0, gid=0, mtime=T0):
        self.tf.addfile(self._info(name, tarfile.FIFOTYPE, mode, uid, gid,
                                   mtime))

    @staticmethod
    def _xattrs(ti, xattrs):
        for k, v in (xattrs or {}).items():
            if isinstance(v, bytes):
                v = v.decode("utf-8", "surrogateescape")
            ti.pax_headers["SCHILY.xattr." + k] = v

    def close(self):
        self.tf.close()


# -------------------------------------------------------------- raw headers


def octal(value, width):
    return ("%0*o" % (width - 1, value)).encode() + b"\0"


def header(name, size=0, typeflag=b"0", mode=0o644, uid=0, gid=0,
           mtime=T0, linkname=b"", size_field=None, bad_checksum=False,
           devmajor=0, devminor=0):
    """One ustar header block; size_field overrides the encoded size."""
    if isinstance(name, str):
        name = name.encode()
    if isinstance(linkname, str):
        linkname = linkname.encode()
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = octal(mode, 8)
    h[108:116] = octal(uid, 8)
    h[116:124] = octal(gid, 8)
    h[124:136] = size_field if size_field is not None else octal(size, 12)
    h[136:148] = octal(mtime, 12)
    h[156:157] = typeflag
    h[157:157 + len(linkname)] = linkname
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[329:337] = octal(devmajor, 8)
    h[337:345] = octal(devminor, 8)
    h[148:156] = b" " * 8
    csum = sum(h)
    if bad_checksum:
        csum += 1
    h[148:156] = ("%06o" % csum).encode() + b"\0 "
    return bytes(h)


def padded(data):
    return data + b"\0" * (-len(data) % 512)


def raw_file(name, data, **kw):
    return header(name, size=len(data), **kw) + padded(data)


def pax_record(key, value):
    if isinstance(value, str):
        value = value.encode()
    body = b" " + key.encode() + b"=" + value + b"\n"
    n = len(body) + 1
    while len(str(n).encode()) + len(body) != n:
        n = len(str(n).encode()) + len(body)
    return str(n).encode() + body


def raw_pax(name, records, typeflag=b"x"):
    data = b"".join(pax_record(k, v) for k, v in records)
    return header("PaxHeaders/" + name, size=len(data),
                  typeflag=typeflag) + padded(data)


END = b"\0" * 1024


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


# -------------------------------------------------------------- the cases


def case_types(out):
    """Every inode type a tar can hold, odd modes, wide owners and times."""
    w = Writer(out, pax_headers={"comment": "global header, ignored"})
    w.dir("./", mode=0o755, mtime=T0 + 1)
    w.dir("etc", mode=0o750, uid=1000, gid=100, mtime=T0 + 2)
    w.file("etc/empty", b"", mode=0o644, mtime=T0 + 3)
    w.file("etc/hello", b"hello world\n", mode=0o600, uid=1000, gid=100,
           mtime=T0 + 4)
    w.dir("data", mtime=T0 + 5)
    w.file("data/block", rnd(1, BLOCK), mtime=T0 + 6)
    w.file("data/multi", rnd(2, 200000) + text(3, 100000), mtime=T0 + 7)
    w.file("data/text", text(4, 50000), mode=0o444, mtime=T0 + 8)
    w.file("data/zeros", bytes(2 * BLOCK), mtime=T0 + 9)
    w.file("data/zeros_tail", bytes(BLOCK) + b"x" + bytes(70000),
           mtime=T0 + 10)
    w.file("data/tiny", b"x", mtime=0)
    w.file("data/y2038", b"after 2038\n", mtime=2**31 + 5)
    w.file("data/tmax", b"last second\n", mtime=2**32 - 1)
    w.dir("bin", mtime=T0 + 11)
    w.file("bin/suid", b"#!/bin/sh\n", mode=0o4755, mtime=T0 + 12)
    w.file("bin/sgid", b"#!/bin/sh\n", mode=0o2711, gid=50, mtime=T0 + 13)
    w.file("bin/all", b"#!/bin/sh\n", mode=0o7777, mtime=T0 + 14)
    w.file("bin/none", b"secret\n", mode=0o000, mtime=T0 + 15)
    w.dir("tmp", mode=0o1777, mtime=T0 + 16)
    w.dir("links", mtime=T0 + 17)
    w.symlink("links/rel", "../etc/hello", mtime=T0 + 18)
    w.symlink("links/abs", "/etc/passwd", uid=1000, gid=100, mtime=T0 + 19)
    w.symlink("links/dangling", "nowhere/at/all", mtime=T0 + 20)
    w.symlink("links/dir", "../data", mtime=T0 + 21)
    w.dir("dev", mtime=T0 + 22)
    w.dev("dev/null", "c", 1, 3, mode=0o666, mtime=T0 + 23)
    w.dev("dev/sda1", "b", 8, 1, mode=0o660, gid=6, mtime=T0 + 24)
    w.dev("dev/nvme", "b", 259, 65600, mode=0o660, gid=6, mtime=T0 + 25)
    w.dev("dev/max", "c", 4095, 1048575, mode=0o600, mtime=T0 + 26)
    w.fifo("dev/fifo", mode=0o640, uid=7, gid=8, mtime=T0 + 27)
    w.dir("owners", mtime=T0 + 28)
    w.file("owners/nobody", b"n\n", uid=65534, gid=65534, mtime=T0 + 29)
    w.file("owners/wide", b"w\n", uid=4000000, gid=3000000, mtime=T0 + 30)
    w.file("owners/top", b"t\n", uid=2**32 - 2, gid=2**32 - 2,
           mtime=T0 + 31)
    w.hardlink("hard", "etc/hello")
    w.close()


def case_mix(out):
    """Data of every kind for the compressor and block size tests:
    compressible, incompressible, zeros, duplicates, many tails."""
    w = Writer(out)
    w.dir("./")
    w.dir("m")
    w.file("m/text", text(20, 300000))
    w.file("m/text_copy", text(20, 300000))  # a whole-file duplicate
    w.file("m/random", rnd(21, 100000))
    w.file("m/zeros", bytes(300000))
    w.file("m/mib", bytes(500000) + text(22, 24288) + bytes(524288))
    w.file("m/mixed", rnd(23, 20000) + bytes(140000) + text(24, 9000))
    w.dir("m/small")
    for i in range(60):
        # tails of every size; every fifth one repeats an earlier one
        data = text(100 + i % 12 if i % 5 == 0 else 100 + i, 37 * i + 1)
        w.file("m/small/s%02d" % i, data, mtime=T0 + i)
    w.symlink("m/link", "text")
    w.close()


def case_opts(out):
    """The archive of the option tests: a root entry, a subtree for -r,
    xattrs, symlinks to retarget, names to exclude, implicit parents."""
    w = Writer(out)
    w.dir("./", mode=0o750, uid=1, gid=2, mtime=T0 + 50,
          xattrs={"user.root": "r"})
    w.dir("top", mode=0o711, uid=10, gid=20, mtime=T0 + 1,
          xattrs={"user.top": "t"})
    w.file("top/a", b"a\n", uid=11, gid=21, mtime=T0 + 2,
           xattrs={"user.a": "1", "trusted.a": "2"})
    w.file("top/big", text(30, 300000), mtime=T0 + 3)
    w.dir("top/sub", mtime=T0 + 4)
    w.file("top/sub/b.log", b"log\n", mtime=T0 + 5)
    w.file("top/sub/c.txt", b"txt\n", mtime=T0 + 6)
    w.dir("top/sub/keep", mtime=T0 + 7)
    w.file("top/sub/keep/x.log", b"x\n", mtime=T0 + 8)
    w.symlink("top/l_rel", "sub/c.txt", mtime=T0 + 9)
    w.symlink("top/l_abs", "/top/a", mtime=T0 + 10)
    w.symlink("top/l_pref", "top/sub", mtime=T0 + 11)
    w.symlink("top/l_out", "/topx/a", mtime=T0 + 12)
    w.hardlink("top/h", "top/a")
    w.dir("other", mtime=T0 + 13)
    w.file("other/o.log", b"o\n", mtime=T0 + 14)
    w.file("other/file", b"f\n", uid=1000, gid=1000, mtime=T0 + 15)
    w.dir("boot", mtime=T0 + 16)
    w.file("boot/vmlinuz", rnd(31, 5000), mtime=T0 + 17)
    w.dir("boot/grub", mtime=T0 + 18)
    w.file("boot/grub/cfg", b"cfg\n", mtime=T0 + 19)
    w.file("impl/child/file", b"implicit parents\n", mtime=T0 + 20)
    w.close()


def case_numbers(out):
    """GNU format with base-256 numbers (owners and times too big for
    octal)."""
    w = Writer(out, fmt=tarfile.GNU_FORMAT)
    w.dir("n", mtime=T0)
    w.file("n/bigids", b"ids\n", uid=3000000000, gid=4000000000,
           mtime=T0)
    w.file("n/bigtime", b"time\n", mtime=2**33 + 7)  # 12 octal digits max
    w.file("n/plain", b"plain\n", uid=12, gid=34, mtime=T0)
    w.close()


LONG_COMPONENT = "c" * 255


def long_tree(w, ustar=False):
    if ustar:
        # within ustar limits: 155-byte prefix + 100-byte name
        d = "/".join(["p" * 50, "q" * 50, "r" * 50])  # 152 chars
        w.dir("p" * 50)
        w.dir("p" * 50 + "/" + "q" * 50)
        w.dir(d)
        w.file(d + "/" + "n" * 100, b"ustar split\n")
        w.file("x" * 100, b"exactly 100\n")
        w.symlink("sl", "t" * 100)
        w.hardlink("hl", "x" * 100)
        return
    w.dir("long")
    w.file("long/" + "x" * 100, b"exactly 100 in the name\n")
    w.file("long/" + "y" * 101, b"101\n")
    w.file("long/" + LONG_COMPONENT, b"255 bytes\n")
    path = "long"
    for i in range(6):
        path += "/" + ("%d" % i) * 100
        w.dir(path)
    w.file(path + "/deep_file", b"path of 600+ bytes\n")
    w.symlink("long/sl", "../" + "t" * 997)
    w.symlink("long/sl_path", path[len("long/"):] + "/deep_file")
    w.hardlink("long/hl", path + "/deep_file")
    w.hardlink("long/" + "h" * 200, "long/" + LONG_COMPONENT)
    w.file("long/caf\u00e9 \u540d\u524d \u00fcber", b"utf-8 name\n")
    w.file("long/with space", b"space\n")


def case_long_gnu(out):
    w = Writer(out, fmt=tarfile.GNU_FORMAT)
    long_tree(w)
    w.close()


def case_long_pax(out):
    w = Writer(out)
    long_tree(w)
    w.close()


def case_long_ustar(out):
    w = Writer(out, fmt=tarfile.USTAR_FORMAT)
    long_tree(w, ustar=True)
    w.close()


def case_hardlinks(out):
    # each directory followed by its contents: GNU tar sets a directory's
    # mtime once it has left it
    w = Writer(out)
    w.dir("a")
    w.file("a/file", text(10, 3000), mode=0o640, uid=5, gid=6)
    w.file("a/big", rnd(11, 300000))
    w.file("a/single", b"not linked\n")
    w.dir("b")
    w.hardlink("b/link1", "a/file")
    w.hardlink("b/big", "a/big")
    w.dir("c")
    w.hardlink("c/link2", "a/file")
    w.dir("e")
    w.file("e/empty", b"")
    w.hardlink("e/empty2", "e/empty")
    w.dir("s")
    w.symlink("s/sym", "target")
    w.hardlink("s/sym2", "s/sym")
    w.dir("p")
    w.fifo("p/fifo")
    w.hardlink("p/fifo2", "p/fifo")
    w.dir("d")
    w.dev("d/null", "c", 1, 3, mode=0o666)
    w.hardlink("d/null2", "d/null")
    w.close()


def case_hardlink_forward(out):
    """A hard link that names an entry coming later in the archive."""
    data = header("fwd", 0, typeflag=b"5", mode=0o755)
    data += header("fwd/link", 0, typeflag=b"1", linkname="fwd/target")
    data += raw_file("fwd/target", b"the target comes later\n")
    data += raw_file("fwd/other", b"other\n")
    write(out, data + END)


XATTRS_A = {"user.a": "1", "user.bin": b"\x00\x01\xfe\xff",
            "trusted.t": "trusted value", "security.s": "sec"}


def case_xattrs(out):
    w = Writer(out)
    w.dir("./", xattrs={"user.root": "r"})
    w.dir("x", xattrs={"user.dir": "d", "trusted.dir": "td"})
    w.file("x/f1", b"one\n", xattrs=XATTRS_A)
    w.file("x/f2", b"two\n", xattrs=XATTRS_A)  # same set: shared
    w.file("x/f3", b"three\n", xattrs={"user.long": "L" * 2000})
    w.file("x/f4", b"four\n", xattrs={"user.empty": ""})
    w.file("x/f5", b"five\n",
           xattrs={"user.k%02d" % i: "v%d" % i for i in range(20)})
    w.file("x/plain", b"none\n")
    w.symlink("x/sym", "f1", xattrs={"trusted.sym": "s"})
    w.hardlink("x/f1_link", "x/f1")
    w.close()


def case_xattrs_libarchive(out):
    """xattrs in LIBARCHIVE.xattr.* records (URL-encoded name, base64)."""
    import base64
    w = Writer(out)
    w.dir("la")
    w.file("la/f", b"f\n", pax={
        "LIBARCHIVE.xattr.user.plain":
            base64.b64encode(b"plain value").decode(),
        "LIBARCHIVE.xattr.user.a%3Db":
            base64.b64encode(b"\x00bin\xff").decode(),
    })
    w.file("la/g", b"g\n", pax={
        "LIBARCHIVE.xattr.trusted.x": base64.b64encode(b"x").decode(),
    })
    w.close()


def case_xattrs_badns(out):
    """An xattr outside user./trusted./security. next to a good one."""
    w = Writer(out)
    w.dir("ns")
    w.file("ns/f", b"f\n", xattrs={"foo.bar": "x", "user.ok": "y"})
    w.file("ns/g", b"g\n", xattrs={"user.fine": "z"})
    w.close()


def case_dir300(out):
    w = Writer(out)
    w.dir("d300", mtime=T0)
    for i in range(300):
        w.file("d300/f%03d" % i, b"%d\n" % i if i % 3 else b"",
               mtime=T0 + i)
    w.dir("d300/sub")
    w.symlink("d300/zz_link", "f000")
    w.close()


def case_dir20000(out):
    w = Writer(out)
    w.dir("d20k", mtime=T0)
    for i in range(20000):
        # names of varying length spread entries over many md blocks
        name = "d20k/e%05d%s" % (i, "_" * (i % 37))
        if i % 1000 == 500:
            w.dir(name, mtime=T0 + i)
        elif i % 997 == 3:
            w.symlink(name, "e%05d" % (i - 1))
        else:
            w.file(name, b"%d\n" % i if i % 4 == 0 else b"", mtime=T0 + i,
                   mode=0o644 if i % 2 else 0o600, uid=i % 5)
    w.close()


def case_tinydirs(out):
    """2,400 small directories and their 5,000 entries: in the metadata
    tables a directory's listing and its inode alternate closely, the
    longest chains of references between the two tables' blocks; hard
    links between the directories, names of every length."""
    w = Writer(out)
    r = random.Random(24)
    files = []
    for a in range(40):
        top = "t%02d" % a
        w.dir(top, mtime=T0 + a)
        for b in range(60):
            d = "%s/d%02d" % (top, b)
            w.dir(d, mode=0o755 if b % 5 else 0o700, uid=b % 3,
                  mtime=T0 + b)
            for c in range(r.randrange(0, 5)):
                kind = r.randrange(10)
                name = "%s/%s%d" % (d, "n" * r.randrange(1, 40), c)
                if kind == 0 and files:
                    w.hardlink(name, r.choice(files))
                elif kind == 1:
                    w.symlink(name, "../" + "s" * r.randrange(1, 120))
                elif kind == 2:
                    w.dir(name, mtime=T0 + c)
                elif kind == 3:
                    w.fifo(name)
                else:
                    w.file(name, text(a * 100 + b, r.randrange(0, 300)),
                           mtime=T0 + c)
                    files.append(name)
    w.close()


def case_deep(out):
    w = Writer(out)
    path = ""
    for i in range(200):
        path += ("/" if path else "") + "lvl%03d" % i
        w.dir(path, mtime=T0 + i)
    w.file(path + "/bottom", b"at the bottom\n")
    w.symlink(path + "/up", "../" * 199 + "lvl000")
    w.close()


def case_duplicates(out):
    w = Writer(out)
    w.dir("dup")
    w.file("dup/file", b"first version\n", mode=0o644, uid=1, mtime=T0)
    w.file("dup/f2s", b"file first\n")
    w.symlink("dup/s2f", "somewhere")
    w.dir("dup/dir", mode=0o755, mtime=T0)
    w.file("dup/dir/child", b"child\n")
    w.file("dup/file", b"second, longer version\n", mode=0o600, uid=2,
           mtime=T0 + 100)
    w.symlink("dup/f2s", "file")
    w.file("dup/s2f", b"now a file\n")
    w.dir("dup/dir", mode=0o700, uid=3, mtime=T0 + 200)
    w.close()


def case_duplicates_hardlink(out):
    """Replacing one name of a hard-link group leaves the others alone."""
    w = Writer(out)
    w.dir("dh")
    w.file("dh/orig", b"old content\n")
    w.hardlink("dh/link", "dh/orig")
    w.file("dh/orig", b"new content\n", mtime=T0 + 5)
    w.close()


def case_implicit(out):
    """No entries for the parents: they are created with the defaults."""
    w = Writer(out)
    w.file("a/b/c/file", b"deep\n", mtime=T0)
    w.dir("x/y", mode=0o700, uid=9, mtime=T0 + 1)
    w.file("x/y/z", b"z\n")
    w.symlink("p/q", "../a")
    w.close()


def case_names(out):
    """Names that need canonicalising."""
    data = header("./", 0, typeflag=b"5", mode=0o755)
    data += raw_file("./a", b"dot slash\n")
    data += raw_file("/abs/b", b"absolute\n")
    data += header("c/", 0, typeflag=b"5", mode=0o750)
    data += raw_file("c//d", b"double slash\n")
    data += header("e/", 0, typeflag=b"5", mode=0o700)
    data += raw_file("././f", b"dot dot slash\n")
    write(out, data + END)


def case_mtimes(out):
    """Times outside the image's 32-bit unsigned range are clamped."""
    w = Writer(out)
    w.dir("t")
    w.file("t/negative", b"n\n", mtime=-100)
    w.file("t/zero", b"z\n", mtime=0)
    w.file("t/max", b"m\n", mtime=2**32 - 1)
    w.file("t/over", b"o\n", mtime=2**32 + 100)
    w.file("t/far", b"f\n", mtime=2**40)
    w.close()


def case_empty(out):
    write(out, END)


# GNU tar made archives ------------------------------------------------


def gnu_tar(args, cwd):
    # fixed order and owners, no atime/ctime, no pid in PAX header names
    cmd = [GNU_TAR, "--sort=name", "--numeric-owner",
           "--pax-option=exthdr.name=%d/PaxHeaders/%f,"
           "delete=atime,delete=ctime"] + args
    if "--format=posix" not in args:
        cmd = [c for c in cmd if not c.startswith("--pax-option")]
    subprocess.run(cmd, cwd=cwd, check=True)


def put(path, data, at=None, mtime=T0):
    """Write data at offset at (holes around it) or as the whole file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        if at is not None:
            os.pwrite(fd, data, at)
        else:
            os.write(fd, data)
    finally:
        os.close(fd)
    os.utime(path, (mtime, mtime))


def make_sparse_tree(top):
    os.makedirs(os.path.join(top, "sp"))
    p = os.path.join(top, "sp", "holes")
    # six data runs (more than fit in an old GNU header: extension blocks)
    runs = [(0, 4096), (BLOCK - 100, 5000), (300000, 1000),
            (1 << 20, 8192), (2 << 20, 70000), (3 << 20, 4096)]
    for i, (off, n) in enumerate(runs):
        put(p, rnd(100 + i, n), at=off)
    os.truncate(p, (3 << 20) + 123)
    put(p, b"end", at=(3 << 20) + 120)
    p = os.path.join(top, "sp", "allhole")
    put(p, b"")
    os.truncate(p, 5 << 20)
    p = os.path.join(top, "sp", "tailhole")
    put(p, text(110, 8192))
    os.truncate(p, 2 << 20)
    put(os.path.join(top, "sp", "dense"), text(111, 100000))
    for f in ("holes", "allhole", "tailhole", "dense"):
        os.utime(os.path.join(top, "sp", f), (T0, T0))
    os.utime(os.path.join(top, "sp"), (T0, T0))


def sparse_case(fmt, version):
    def gen(out):
        with tempfile.TemporaryDirectory(dir=os.path.dirname(out)) as top:
            make_sparse_tree(top)
            args = ["-c", "-f", out, "--format=" + fmt, "--sparse"]
            if version:
                args.append("--sparse-version=" + version)
            gnu_tar(args + ["--owner=0", "--group=0", "sp"], top)
    return gen


BIG_SIZE = (4 << 30) + (3 << 20) + 17


def case_big(out):
    """A sparse file over 4 GiB, with data across the 4 GiB boundary."""
    with tempfile.TemporaryDirectory(dir=os.path.dirname(out)) as top:
        os.makedirs(os.path.join(top, "big"))
        p = os.path.join(top, "big", "file")
        put(p, rnd(200, 4096), at=0)
        put(p, rnd(201, 4096), at=(4 << 30) - 2048)
        os.truncate(p, BIG_SIZE)
        put(p, b"last 17 bytes....", at=BIG_SIZE - 17)
        os.utime(p, (T0, T0))
        put(os.path.join(top, "big", "small"), b"small\n")
        os.utime(os.path.join(top, "big"), (T0, T0))
        gnu_tar(["-c", "-f", out, "--format=posix", "--sparse",
                 "--owner=0", "--group=0", "big"], top)


def make_plain_tree(top):
    """Files, dirs, symlinks and hard links: what even v7 can hold."""
    root = os.path.join(top, "tree")
    os.makedirs(os.path.join(root, "sub", "deeper"))
    put(os.path.join(root, "a.txt"), text(300, 5000), mtime=T0 + 1)
    put(os.path.join(root, "sub", "b.bin"), rnd(301, 150000), mtime=T0 + 2)
    put(os.path.join(root, "sub", "deeper", "c"), b"", mtime=T0 + 3)
    os.chmod(os.path.join(root, "sub", "b.bin"), 0o755)
    os.symlink("../a.txt", os.path.join(root, "sub", "ln"))
    os.utime(os.path.join(root, "sub", "ln"), (T0 + 4, T0 + 4),
             follow_symlinks=False)
    os.link(os.path.join(root, "a.txt"), os.path.join(root, "hard"))
    for d in ("sub/deeper", "sub", ""):
        os.utime(os.path.join(root, d), (T0 + 5, T0 + 5))


def format_case(fmt):
    def gen(out):
        with tempfile.TemporaryDirectory(dir=os.path.dirname(out)) as top:
            make_plain_tree(top)
            gnu_tar(["-c", "-f", out, "--format=" + fmt, "--owner=0",
                     "--group=0", "tree"], top)
    return gen


# damaged archives ---------------------------------------------------------
# Each writes OUT (damaged) and OUT.expect.tar (what survives a skip).


def expect(out, entries):
    write(out + ".expect.tar", b"".join(entries) + END)


def case_bad_checksum(out):
    good1 = raw_file("good1", b"one\n")
    good2 = raw_file("good2", b"three\n")
    bad = header("badsum", size=4, bad_checksum=True) + padded(b"two\n")
    write(out, good1 + bad + good2 + END)
    expect(out, [good1, good2])


def case_bad_truncated(out):
    good1 = raw_file("good1", b"one\n")
    data = rnd(400, 100000)
    bad = header("truncated_file", size=len(data)) + data[:10000]
    write(out, good1 + bad)
    expect(out, [good1])


def case_bad_truncated_header(out):
    good1 = raw_file("good1", b"one\n")
    bad = header("cut_header", size=10)[:256]
    write(out, good1 + bad)
    expect(out, [good1])


def case_bad_size_garbage(out):
    good1 = raw_file("good1", b"one\n")
    bad = header("garbage_size", size_field=b"zz9zz9zz9zz\0") + padded(b"x")
    write(out, good1 + bad + raw_file("good2", b"two\n") + END)
    expect(out, [good1])


def case_bad_size_huge(out):
    good1 = raw_file("good1", b"one\n")
    bad = raw_pax("huge_size", [("size", "1" + "0" * 30)])
    bad += header("huge_size", size=4) + padded(b"abc\n")
    write(out, good1 + bad + raw_file("good2", b"two\n") + END)
    expect(out, [good1])


def case_bad_size_negative(out):
    good1 = raw_file("good1", b"one\n")
    # base-256 (first byte 0xff): a negative number
    neg = b"\xff" * 11 + b"\xfe"
    bad = header("negative_size", size_field=neg) + padded(b"abc\n")
    write(out, good1 + bad + raw_file("good2", b"two\n") + END)
    expect(out, [good1])


def case_bad_sparse_map(out):
    """PAX 0.1 sparse map whose run lies beyond the file's real size."""
    good1 = raw_file("good1", b"one\n")
    good2 = raw_file("good2", b"two\n")
    bad = raw_pax("bad_sparse", [
        ("GNU.sparse.size", "1000"),
        ("GNU.sparse.numblocks", "1"),
        ("GNU.sparse.map", "5000,512"),
        ("GNU.sparse.name", "bad_sparse"),
    ])
    bad += header("bad_sparse", size=512, typeflag=b"0") + rnd(401, 512)
    write(out, good1 + bad + good2 + END)
    expect(out, [good1, good2])


def case_bad_dotdot(out):
    ok = raw_file("ok1", b"ok\n")
    ab = header("a", typeflag=b"5", mode=0o755) + raw_file("a/b", b"b\n")
    sl = header("sl", typeflag=b"2", mode=0o777, linkname="../../etc/x")
    e1 = raw_file("../escape", b"out!\n")
    e2 = raw_file("a/../../escape2", b"out too!\n")
    e3 = header("hl_escape", typeflag=b"1", linkname="../escape")
    write(out, ok + e1 + ab + e2 + sl + e3 + END)
    expect(out, [ok, ab, sl])


def case_bad_hardlink_missing(out):
    ok1 = raw_file("ok1", b"one\n")
    ok2 = raw_file("ok2", b"two\n")
    bad = header("dangling_hl", typeflag=b"1", linkname="no_such_target")
    write(out, ok1 + bad + ok2 + END)
    expect(out, [ok1, ok2])


def case_bad_not_tar(out):
    write(out, rnd(402, 10240))
    expect(out, [])


def case_bad_volume_label(out):
    """A GNU volume label: an entry that cannot be stored."""
    label = header("volume_label", typeflag=b"V")
    ok1 = raw_file("ok1", b"one\n")
    write(out, label + ok1 + END)
    expect(out, [ok1])


def case_bad_long_name(out):
    """A name the image cannot hold: the writer's words, then a skip."""
    ok1 = raw_file("ok1", b"one\n")
    name = "d/" + "n" * 300
    bad = raw_pax("long_name", [("path", name)]) + raw_file(name, b"x\n")
    write(out, ok1 + bad + END)
    expect(out, [ok1])


def case_bad_device(out):
    """A device number beyond the image's 12-bit major."""
    ok1 = raw_file("ok1", b"one\n")
    bad = header("big_dev", typeflag=b"3", devmajor=5000, devminor=1)
    write(out, ok1 + bad + END)
    expect(out, [ok1])


def case_bad_long_symlink(out):
    """A symlink target beyond the image's 4096 bytes."""
    ok1 = raw_file("ok1", b"one\n")
    target = "t/" * 2500
    bad = raw_pax("long_link", [("linkpath", target)])
    bad += header("long_link", typeflag=b"2", mode=0o777, linkname="x")
    write(out, ok1 + bad + END)
    expect(out, [ok1])


CASES = {
    "types": case_types,
    "mix": case_mix,
    "opts": case_opts,
    "numbers": case_numbers,
    "long_gnu": case_long_gnu,
    "long_pax": case_long_pax,
    "long_ustar": case_long_ustar,
    "hardlinks": case_hardlinks,
    "hardlink_forward": case_hardlink_forward,
    "xattrs": case_xattrs,
    "xattrs_libarchive": case_xattrs_libarchive,
    "xattrs_badns": case_xattrs_badns,
    "dir300": case_dir300,
    "dir20000": case_dir20000,
    "tinydirs": case_tinydirs,
    "deep": case_deep,
    "duplicates": case_duplicates,
    "duplicates_hardlink": case_duplicates_hardlink,
    "implicit": case_implicit,
    "names": case_names,
    "mtimes": case_mtimes,
    "empty": case_empty,
    "sparse_gnu": sparse_case("gnu", None),
    "sparse_0.0": sparse_case("posix", "0.0"),
    "sparse_0.1": sparse_case("posix", "0.1"),
    "sparse_1.0": sparse_case("posix", "1.0"),
    "big": case_big,
    "fmt_v7": format_case("v7"),
    "fmt_ustar": format_case("ustar"),
    "fmt_oldgnu": format_case("oldgnu"),
    "fmt_gnu": format_case("gnu"),
    "fmt_posix": format_case("posix"),
    "bad_checksum": case_bad_checksum,
    "bad_truncated": case_bad_truncated,
    "bad_truncated_header": case_bad_truncated_header,
    "bad_size_garbage": case_bad_size_garbage,
    "bad_size_huge": case_bad_size_huge,
    "bad_size_negative": case_bad_size_negative,
    "bad_sparse_map": case_bad_sparse_map,
    "bad_dotdot": case_bad_dotdot,
    "bad_hardlink_missing": case_bad_hardlink_missing,
    "bad_not_tar": case_bad_not_tar,
    "bad_volume_label": case_bad_volume_label,
    "bad_long_name": case_bad_long_name,
    "bad_device": case_bad_device,
    "bad_long_symlink": case_bad_long_symlink,
}


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    if len(argv) != 3 or argv[1] not in CASES:
        sys.stderr.write("usage: gen_tar.py CASE OUT.tar | --list\n")
        return 2
    out = os.path.abspath(argv[2])
    CASES[argv[1]](out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

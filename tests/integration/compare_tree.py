#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compare two file trees, each read by an independent reader.

    compare_tree.py [OPTIONS] A B      print each difference, exit 1 if any
    compare_tree.py --count A          print the number of inodes of A
    compare_tree.py --dump A           print A's entries (for debugging)

A tree is one of:
    dir:PATH   a directory (a mounted image, an extraction), read by lstat
    tar:PATH   a tar archive read with Python's tarfile, as an extraction
               would leave it: names canonicalised, a later entry replaces
               an earlier one, missing parents created, hard links shared
    pf:PATH    the pseudo file `unsquashfs -pf PATH IMAGE` writes (exact
               attributes, hard links and file contents; no xattrs)
    lls:PATH   the listing of `unsquashfs -lln -UTC IMAGE` (minute times,
               no contents, no hard links, no xattrs)

Compared: the set of paths, types, permissions, owners, mtimes, sizes,
contents, symlink targets, device numbers, xattrs and hard-link groups -
each where both readers can tell.
"""

import argparse
import base64
import errno
import fnmatch
import hashlib
import math
import os
import re
import stat
import sys
import tarfile
import time
import urllib.parse

CHUNK = 1 << 20
ZERO = bytes(CHUNK)
NAMESPACES = ("user.", "trusted.", "security.")


class Node:
    __slots__ = ("type", "mode", "uid", "gid", "mtime", "size", "sig",
                 "target", "rdev", "xattrs", "known", "link", "mtime_min",
                 "nlink")

    def __init__(self, typ):
        self.type = typ  # f d l c b p s
        self.mode = self.uid = self.gid = self.mtime = None
        self.size = self.sig = self.target = self.rdev = None
        self.xattrs = None
        self.known = True  # attributes known (false: implicit directory)
        self.link = None  # hard-link key (None: no link information)
        self.mtime_min = False  # mtime only to the minute
        self.nlink = None  # directories: link count, where known


class Tree:
    def __init__(self, kind, path):
        self.kind = kind
        self.path = path
        self.nodes = {}  # "" is the root
        self.has_xattrs = False
        self.has_links = False
        self.has_content = True


def signature(size, read_chunks):
    """Hash of (offset, chunk) over the non-zero 1 MiB chunks, and size.

    Zero chunks are skipped, so a sparse file hashes as fast as its data
    allows, whichever reader produced the bytes."""
    h = hashlib.sha1()
    for off, chunk in read_chunks:
        if chunk != ZERO[:len(chunk)]:
            h.update(off.to_bytes(8, "little"))
            h.update(chunk)
    return "%d:%s" % (size, h.hexdigest())


def sequential_chunks(f, size):
    off = 0
    buf = bytearray()
    while off < size:
        want = min(CHUNK, size - off)
        while len(buf) < want:
            b = f.read(want - len(buf))
            if not b:
                raise IOError("short read at %d of %d" % (off + len(buf),
                                                          size))
            buf += b
        yield off, bytes(buf)
        buf = bytearray()
        off += want


def fd_chunks(fd, size):
    """Chunks of a file, jumping over holes where lseek can find them."""
    off = 0
    while off < size:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError as e:
            if e.errno == errno.ENXIO:
                return
            d = off
        off = d - d % CHUNK
        want = min(CHUNK, size - off)
        chunk = os.pread(fd, want, off)
        if len(chunk) != want:
            raise IOError("short read at %d" % off)
        yield off, chunk
        off += want


# ------------------------------------------------------------------ readers


def read_dir(path, opts):
    t = Tree("dir", path)
    t.has_xattrs = True
    t.has_links = True
    stack = [""]
    while stack:
        rel = stack.pop()
        full = os.path.join(path, rel) if rel else path
        st = os.lstat(full)
        n = Node(stat_type(st.st_mode))
        n.mode = stat.S_IMODE(st.st_mode)
        n.uid, n.gid, n.mtime = st.st_uid, st.st_gid, int(st.st_mtime)
        if n.type == "f":
            n.size = st.st_size
            if opts.content:
                fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
                try:
                    n.sig = signature(st.st_size, fd_chunks(fd, st.st_size))
                finally:
                    os.close(fd)
        elif n.type == "l":
            n.target = os.readlink(full)
        elif n.type in "cb":
            n.rdev = (os.major(st.st_rdev), os.minor(st.st_rdev))
        if n.type != "d" and st.st_nlink > 1:
            n.link = (st.st_dev, st.st_ino)
        if n.type == "d":
            n.nlink = st.st_nlink
        n.xattrs = {}
        try:
            for k in os.listxattr(full, follow_symlinks=False):
                if k.startswith(NAMESPACES):
                    n.xattrs[k] = os.getxattr(full, k, follow_symlinks=False)
        except OSError as e:
            if e.errno not in (errno.ENOTSUP, errno.EPERM):
                raise
        t.nodes[rel] = n
        if n.type == "d":
            for e in os.scandir(full):
                stack.append(os.path.join(rel, e.name) if rel else e.name)
    return t


def stat_type(mode):
    for test, c in ((stat.S_ISREG, "f"), (stat.S_ISDIR, "d"),
                    (stat.S_ISLNK, "l"), (stat.S_ISCHR, "c"),
                    (stat.S_ISBLK, "b"), (stat.S_ISFIFO, "p"),
                    (stat.S_ISSOCK, "s")):
        if test(mode):
            return c
    return "?"


def canon(name):
    """Canonical path, or None for a name that climbs out."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    return "/".join(parts)


def parse_defaults(spec):
    d = {"mode": 0o755, "uid": 0, "gid": 0, "mtime": 0}
    for kv in filter(None, (spec or "").split(",")):
        k, v = kv.split("=", 1)
        d[k] = int(v, 8) if k == "mode" else int(v)
    return d


def tar_xattrs(ti):
    x = {}
    for k, v in ti.pax_headers.items():
        if k.startswith("SCHILY.xattr."):
            # GNU tar writes '=' and '%' in keys as %3D and %25
            name = re.sub("%3D|%25", lambda m: "=" if m.group() == "%3D"
                          else "%", k[len("SCHILY.xattr."):])
            val = v.encode("utf-8", "surrogateescape")
        elif k.startswith("LIBARCHIVE.xattr."):
            name = urllib.parse.unquote(k[len("LIBARCHIVE.xattr."):],
                                        errors="surrogateescape")
            # libarchive leaves out the base64 padding
            val = base64.b64decode(v + "=" * (-len(v) % 4))
        else:
            continue
        if name.startswith(NAMESPACES):
            x[name] = val
    return x


def read_tar(path, opts):
    """The tree an extraction of the archive gives, with tar2sqfs's option
    semantics applied where asked (--tar-* options)."""
    t = Tree("tar", path)
    t.has_xattrs = True
    t.has_links = True
    nodes = t.nodes
    implicit = parse_defaults(opts.implicit) if opts.implicit else None
    root = canon(opts.tar_root) if opts.tar_root else None
    pending = {}  # forward hard links: target -> [names]

    def make_implicit(p):
        n = Node("d")
        if implicit is None:
            n.known = False
        else:
            n.mode, n.uid, n.gid = (implicit["mode"], implicit["uid"],
                                    implicit["gid"])
            n.mtime = implicit["mtime"]
            n.xattrs = {}
        nodes[p] = n

    def strip_root(p):
        if root is None:
            return p
        if p == root:
            return ""
        if p.startswith(root + "/"):
            return p[len(root) + 1:]
        return None

    def excluded(p):
        """--exclude: the path or one of its parents matches."""
        parts = p.split("/")
        return any(fnmatch.fnmatchcase("/".join(parts[:i]), g)
                   for i in range(1, len(parts) + 1)
                   for g in opts.tar_exclude)

    make_implicit("")
    with tarfile.open(path, "r:*") as tf:
        for ti in tf:
            if ti.type in (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK,
                           tarfile.XHDTYPE, tarfile.XGLTYPE, b"V"):
                continue
            full = canon(ti.name)
            if full is None or (full and excluded(full)):
                continue
            p = strip_root(full)
            if p is None:
                continue
            if ti.islnk():
                tgt = canon(ti.linkname)
                tgt = strip_root(tgt) if tgt is not None else None
                if tgt is None:
                    continue
                for q in list(nodes):
                    if q == p or q.startswith(p + "/"):
                        del nodes[q]
                add_parents(nodes, p, make_implicit)
                if tgt in nodes:
                    nodes[p] = nodes[tgt]
                else:
                    pending.setdefault(tgt, []).append(p)
                continue
            n = Node(tar_type(ti))
            n.mode = ti.mode & 0o7777
            n.uid = ti.uid if opts.tar_uid is None else opts.tar_uid
            n.gid = ti.gid if opts.tar_gid is None else opts.tar_gid
            n.mtime = math.floor(ti.mtime) if opts.tar_mtime is None \
                else opts.tar_mtime
            if opts.clamp:
                n.mtime = min(max(n.mtime, 0), 2**32 - 1)
            n.xattrs = {} if opts.tar_no_xattrs else tar_xattrs(ti)
            if n.type == "f":
                n.size = ti.size
                if opts.content:
                    n.sig = signature(ti.size, sequential_chunks(
                        tf.extractfile(ti), ti.size))
            elif n.type == "l":
                n.target = retarget(ti.linkname, root, opts)
            elif n.type in "cb":
                n.rdev = (ti.devmajor, ti.devminor)
            old = nodes.get(p)
            if old is not None and old.type == "d" and n.type != "d":
                for q in list(nodes):
                    if q.startswith(p + "/") or (p == "" and q):
                        del nodes[q]
            add_parents(nodes, p, make_implicit)
            nodes[p] = n
            for q in pending.pop(p, []):
                nodes[q] = n
    # a directory's link count: itself, its entry, each subdirectory's ".."
    for n in nodes.values():
        if n.type == "d":
            n.nlink = 2
    for p, n in nodes.items():
        if p and n.type == "d":
            nodes[p.rpartition("/")[0]].nlink += 1
    return t


def retarget(target, root, opts):
    """--root-becomes rewrites symlink targets under the root (absolute,
    prefix removed) unless -S."""
    if root is None or opts.no_retarget:
        return target
    c = canon(target)
    if c is not None and c.startswith(root + "/"):
        return "/" + c[len(root) + 1:]
    return target


def add_parents(nodes, p, make_implicit):
    parts = p.split("/")
    for i in range(1, len(parts)):
        q = "/".join(parts[:i])
        if q not in nodes or nodes[q].type != "d":
            make_implicit(q)


def tar_type(ti):
    if ti.isreg():
        return "f"
    return {tarfile.DIRTYPE: "d", tarfile.SYMTYPE: "l",
            tarfile.CHRTYPE: "c", tarfile.BLKTYPE: "b",
            tarfile.FIFOTYPE: "p"}.get(ti.type, "?")


def unsquashfs_rdev(hi, lo):
    word = ((hi << 8) | lo) % 2**32
    return ((word >> 8) & 0xFFF, (word & 0xFF) | ((word >> 12) & 0xFFF00))


PF_MARK = b"\n#\n# START OF DATA - DO NOT MODIFY\n#\n"


def pf_split(line):
    """Split a pseudo-file line at unescaped spaces: (path, rest)."""
    out = bytearray()
    i = 0
    while i < len(line):
        c = line[i]
        if c == 0x5C and i + 1 < len(line):  # backslash
            out.append(line[i + 1])
            i += 2
            continue
        if c == 0x20:
            return bytes(out), line[i + 1:]
        out.append(c)
        i += 1
    return bytes(out), b""


def read_pf(path, opts):
    t = Tree("pf", path)
    t.has_links = True
    with open(path, "rb") as f:
        raw = f.read()
    pos = raw.find(PF_MARK)
    if pos < 0:
        raise ValueError("%s: no data marker" % path)
    data_start = pos + len(PF_MARK)
    links = []
    for line in raw[:pos + 1].split(b"\n"):
        if not line or line.startswith(b"#"):
            continue
        name, rest = pf_split(line)
        p = name.decode("utf-8", "surrogateescape").strip("/")
        fields = rest.split(b" ", 6)
        kind = fields[0]
        if kind == b"x":
            # an xattr line of unsquashfs 4.6+; xattrs are not compared
            # through pseudo files
            continue
        if kind == b"L":
            tgt, _ = pf_split(rest[2:])
            links.append((p, tgt.decode("utf-8", "surrogateescape")))
            continue
        typ = {b"D": "d", b"R": "f", b"S": "l", b"C": "c", b"B": "b",
               b"I": "p"}.get(kind, "?")
        n = Node(typ)
        n.mtime = int(fields[1])
        n.mode = int(fields[2], 8)
        # unsquashfs 4.5.1 prints ids as signed 32-bit numbers
        n.uid, n.gid = int(fields[3]) % 2**32, int(fields[4]) % 2**32
        if typ == "f":
            rest6 = rest.split(b" ")
            size, off = int(rest6[5]), int(rest6[6])
            n.size = size
            s = data_start + off
            blob = raw[s:s + size]
            if len(blob) != size:
                raise ValueError("%s: data of %s cut short" % (path, p))
            n.sig = signature(size, ((o, blob[o:o + CHUNK])
                                     for o in range(0, size, CHUNK)))
        elif typ == "l":
            n.target = rest.split(b" ", 5)[5].decode("utf-8",
                                                     "surrogateescape")
        elif typ in "cb":
            # ... and the raw 32-bit device word as (rdev >> 8, rdev & 255),
            # signed; decode it as Linux does (12-bit major, 20-bit minor)
            n.rdev = unsquashfs_rdev(int(fields[5]), int(fields[6]))
        elif typ == "p" and fields[5] == b"s":
            n.type = "s"
        t.nodes[p] = n
    for p, tgt in links:
        tgt = tgt.strip("/")
        if tgt not in t.nodes:
            raise ValueError("%s: hard link %s to unknown %s" % (path, p,
                                                                tgt))
        t.nodes[p] = t.nodes[tgt]
    return t


LLS_RE = re.compile(r"^([-dlcbps])([-rwxsStT]{9}) (-?\d+)/(-?\d+) +"
                    r"(\d+|-?\d+, *\d+) (\d{4}-\d\d-\d\d \d\d:\d\d) "
                    r"squashfs-root(/.*)?$")


def perm_bits(s):
    m = 0
    for i, (c, bit) in enumerate(zip(s, (0o400, 0o200, 0o100, 0o40, 0o20,
                                         0o10, 4, 2, 1))):
        if c in "rwxst":
            m |= bit
    if s[2] in "sS":
        m |= 0o4000
    if s[5] in "sS":
        m |= 0o2000
    if s[8] in "tT":
        m |= 0o1000
    return m


def read_lls(path, opts):
    t = Tree("lls", path)
    t.has_content = False
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "surrogateescape").split("\n")
    for line in lines:
        m = LLS_RE.match(line)
        if not m:
            continue
        typ = "f" if m.group(1) == "-" else m.group(1)
        n = Node(typ)
        n.mode = perm_bits(m.group(2))
        n.uid, n.gid = int(m.group(3)) % 2**32, int(m.group(4)) % 2**32
        n.mtime = m.group(6)
        n.mtime_min = True
        p = (m.group(7) or "").lstrip("/")
        if typ == "l":
            p, _, n.target = p.partition(" -> ")
        elif typ in "cb":
            a, b = m.group(5).split(",")
            n.rdev = unsquashfs_rdev(int(a), int(b))
        elif typ == "f":
            n.size = int(m.group(5))
        t.nodes[p] = n
    return t


READERS = {"dir": read_dir, "tar": read_tar, "pf": read_pf,
           "lls": read_lls}


def load(spec, opts):
    kind, _, path = spec.partition(":")
    if kind not in READERS:
        raise SystemExit("unknown tree kind in %r" % spec)
    return READERS[kind](path, opts)


# ------------------------------------------------------------- comparison


def minute(t):
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))


def show(p):
    return "/" + p


def compare(a, b, opts):
    diffs = []

    def diff(p, what, va, vb):
        diffs.append("%s: %s: %s=%r %s=%r" % (show(p), what, a.kind, va,
                                               b.kind, vb))

    ignore = set(canon(x) or "" for x in opts.ignore_attrs)
    if opts.ignore_root:
        ignore.add("")
    if opts.ignore_implicit:
        # directories the archive does not describe: an extraction gives
        # them whatever attributes it likes
        plain = argparse.Namespace(**vars(opts))
        plain.implicit = None
        plain.content = False
        model = read_tar(opts.ignore_implicit, plain)
        ignore |= {p for p, n in model.nodes.items() if not n.known}
    paths_a, paths_b = set(a.nodes), set(b.nodes)
    if opts.no_devices:
        for t, ps in ((a, paths_a), (b, paths_b)):
            ps -= {p for p in ps if t.nodes[p].type in "cb"}
    for p in sorted(paths_a - paths_b):
        diffs.append("%s: only in %s (%s)" % (show(p), a.kind, a.path))
    for p in sorted(paths_b - paths_a):
        diffs.append("%s: only in %s (%s)" % (show(p), b.kind, b.path))
    for p in sorted(paths_a & paths_b):
        na, nb = a.nodes[p], b.nodes[p]
        if na.type != nb.type:
            diff(p, "type", na.type, nb.type)
            continue
        if na.type == "f" and not opts.no_content:
            if na.size != nb.size:
                diff(p, "size", na.size, nb.size)
            elif a.has_content and b.has_content and na.sig != nb.sig:
                diff(p, "contents", na.sig, nb.sig)
        if na.type == "l" and na.target != nb.target:
            diff(p, "symlink target", na.target, nb.target)
        if na.type in "cb" and na.rdev != nb.rdev:
            diff(p, "device number", na.rdev, nb.rdev)
        if (None not in (na.nlink, nb.nlink) and na.nlink != nb.nlink
                and not opts.no_dir_nlink):
            diff(p, "directory link count", na.nlink, nb.nlink)
        if p in ignore or not (na.known and nb.known):
            continue
        if na.type != "l" and na.mode != nb.mode and not opts.no_mode:
            diff(p, "mode", oct(na.mode), oct(nb.mode))
        if not opts.no_owner and (na.uid, na.gid) != (nb.uid, nb.gid):
            diff(p, "owner", "%d:%d" % (na.uid, na.gid),
                 "%d:%d" % (nb.uid, nb.gid))
        if not opts.no_mtime:
            ma, mb = na.mtime, nb.mtime
            if na.mtime_min or nb.mtime_min:
                ma = ma if na.mtime_min else minute(ma)
                mb = mb if nb.mtime_min else minute(mb)
            if ma != mb:
                diff(p, "mtime", ma, mb)
        if (a.has_xattrs and b.has_xattrs and not opts.no_xattrs
                and na.xattrs != nb.xattrs):
            diff(p, "xattrs", na.xattrs, nb.xattrs)
    if a.has_links and b.has_links and not opts.no_hardlinks:
        ga, gb = link_groups(a, paths_a & paths_b), link_groups(
            b, paths_a & paths_b)
        for p in sorted(set(ga) | set(gb)):
            if ga.get(p, {p}) != gb.get(p, {p}):
                diff(p, "hard-link group", sorted(map(show, ga.get(p, {p}))),
                     sorted(map(show, gb.get(p, {p}))))
    return diffs


def link_groups(t, paths):
    """path -> set of paths sharing its inode (non-directories only)."""
    by_key = {}
    for p in paths:
        n = t.nodes[p]
        if n.type == "d":
            continue
        key = n.link if t.kind == "dir" else id(n)
        if key is None:
            continue
        by_key.setdefault(key, set()).add(p)
    groups = {}
    for members in by_key.values():
        if len(members) > 1:
            for p in members:
                groups[p] = members
    return groups


def count_inodes(t):
    seen = set()
    for n in t.nodes.values():
        seen.add(n.link if t.kind == "dir" and n.link else id(n))
    return len(seen)


def dump(t):
    for p in sorted(t.nodes):
        n = t.nodes[p]
        print("%s %s %s %s:%s %s size=%s sig=%s target=%s rdev=%s x=%s" % (
            show(p), n.type, oct(n.mode) if n.mode is not None else "?",
            n.uid, n.gid, n.mtime, n.size, n.sig, n.target, n.rdev,
            sorted(n.xattrs) if n.xattrs else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--count", action="store_true")
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--ignore-attrs", action="append", default=[],
                    metavar="PATH")
    ap.add_argument("--ignore-root", action="store_true")
    ap.add_argument("--ignore-implicit", metavar="TAR",
                    help="ignore the attributes of directories TAR has "
                    "no entry for")
    ap.add_argument("--implicit", metavar="K=V,...",
                    help="tar: attributes of implicit directories and of "
                    "a root without an entry (keys uid gid mode mtime)")
    ap.add_argument("--clamp", action="store_true",
                    help="tar: clamp mtimes to 0..2^32-1")
    ap.add_argument("--tar-root", metavar="DIR")
    ap.add_argument("--no-retarget", action="store_true")
    ap.add_argument("--tar-uid", type=int)
    ap.add_argument("--tar-gid", type=int)
    ap.add_argument("--tar-mtime", type=int)
    ap.add_argument("--tar-no-xattrs", action="store_true")
    ap.add_argument("--tar-exclude", action="append", default=[])
    for flag in ("xattrs", "hardlinks", "owner", "mode", "mtime", "content",
                 "devices", "dir-nlink"):
        ap.add_argument("--no-" + flag, action="store_true")
    opts = ap.parse_args()

    # contents are read only when both sides can tell them
    opts.content = not (opts.no_content or opts.count or any(
        t.startswith("lls:") for t in opts.trees))
    if opts.count or opts.dump:
        for spec in opts.trees:
            t = load(spec, opts)
            if opts.count:
                print(count_inodes(t))
            else:
                dump(t)
        return 0
    if len(opts.trees) != 2:
        ap.error("two trees to compare")
    a, b = (load(s, opts) for s in opts.trees)
    diffs = compare(a, b, opts)
    for d in diffs[:60]:
        print(d)
    if len(diffs) > 60:
        print("... %d more differences" % (len(diffs) - 60))
    if diffs:
        return 1
    print("compare_tree: %s and %s agree on %d entries" % (
        a.kind, b.kind, len(a.nodes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

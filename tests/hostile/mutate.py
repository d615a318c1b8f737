#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Make hostile SquashFS images for the reader and the unpacking tools.

    mutate.py mutants [--seed S] [--count N] --out DIR IMAGE...
        N mutants of each valid IMAGE (default 20), deterministic for a
        given seed: bit flips and odd values aimed mostly at the metadata
        (superblock, table indexes, inode and directory tables, lookup
        tables), truncations, table offsets moved out of range or onto
        each other, huge counts, bad md-block headers, decompression
        bombs, and, where the metadata is stored raw or Python can decode
        it (gzip, xz), edits of single inode and directory-entry fields.
    mutate.py structured --out DIR --outside PATH [NAME...]
        The hostile images of structured.py, written from scratch;
        symlinks meant to escape point into PATH.
    mutate.py seedtree DIR
        Make the source tree of the seed images.
    mutate.py list
        The names of the structured cases.

Each image goes to DIR/NAME.sqfs and one line "NAME.sqfs EXPECT WHAT" is
appended to DIR/manifest.txt, EXPECT being "reject" (a correct reader
refuses the image or its broken part), "accept" (valid: the library and
every tool must read it), "libok" (valid, but no tool can unpack it, such
as a 256-byte name) or "any".
"""

import os
import random
import struct
import sys

# no __pycache__ in the source tree (read-only under distcheck anyway)
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import structured  # noqa: E402
from sqfs_format import (Image, SB_OFFSETS, NONE32, NONE64,  # noqa: E402
                         bomb, u16, u64)

INTERESTING16 = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x1FFF, 0x2000, 0x2001,
                 0x7FFF, 0x8000, 0x8001, 0xA000, 0xA001, 0xFFFE, 0xFFFF]
INTERESTING32 = INTERESTING16 + [0x10000, 0x1000000, 0x1000001, 0x2000000,
                                 0x7FFFFFFF, 0x80000000, 0xFFFFFFF0,
                                 0xFFFFFFFE, NONE32]
INTERESTING64 = INTERESTING32 + [1 << 32, (1 << 32) + 1, 1 << 40, 1 << 62,
                                 1 << 63, (1 << 63) - 1, NONE64 - 7,
                                 NONE64 - 1, NONE64]
FMTS = {"<B": [0, 1, 0x7F, 0x80, 0xFF], "<H": INTERESTING16,
        "<I": INTERESTING32, "<Q": INTERESTING64}

# how often each region is aimed at; data blocks matter least
REGION_WEIGHTS = {"super": 4, "options": 1, "inode": 12, "dir": 12,
                  "fragment": 2, "fragment_index": 1, "export": 1,
                  "export_index": 1, "id": 1, "id_index": 1, "xattr": 2,
                  "xattr_index": 1, "xattr_kv": 4, "data": 1}

TABLE_FIELDS = ["id_table_start", "xattr_id_table_start",
                "inode_table_start", "directory_table_start",
                "fragment_table_start", "lookup_table_start", "bytes_used",
                "root_inode"]
COUNT_FIELDS = ["inodes", "no_ids", "fragments", "block_size", "block_log",
                "compression", "flags", "major", "minor"]


def pick_region(img, rng):
    names = [n for n in REGION_WEIGHTS
             if n in img.regions and img.regions[n][1] > img.regions[n][0]
             and img.regions[n][0] < img.size]
    name = rng.choices(names, [REGION_WEIGHTS[n] for n in names])[0]
    lo, hi = img.regions[name]
    return name, lo, min(hi, img.size)


def m_flip(img, rng):
    name, lo, hi = pick_region(img, rng)
    n = rng.choice([1, 1, 2, 3, 8])
    for _ in range(n):
        pos = rng.randrange(lo, hi)
        img.data[pos] ^= 1 << rng.randrange(8)
    return "flip %d bits in %s" % (n, name)


def m_bytes(img, rng):
    name, lo, hi = pick_region(img, rng)
    n = rng.choice([1, 2, 4])
    for _ in range(n):
        img.data[rng.randrange(lo, hi)] = rng.choice(
            [0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
    return "set %d bytes in %s" % (n, name)


def m_int(img, rng):
    name, lo, hi = pick_region(img, rng)
    fmt = rng.choice(["<H", "<I", "<Q"])
    size = struct.calcsize(fmt)
    if hi - lo < size:
        return m_flip(img, rng)
    pos = rng.randrange(lo, hi - size + 1)
    if rng.random() < 0.5:
        pos = lo + (pos - lo) // size * size  # fields are mostly aligned
    val = rng.choice(FMTS[fmt])
    img.put(pos, fmt, val)
    return "%s %#x at %s+%d" % (fmt[1], val, name, pos - lo)


def m_table_offset(img, rng):
    field = rng.choice(TABLE_FIELDS)
    cur = img.sb[field]
    others = [img.sb[f] for f in TABLE_FIELDS[:6] if img.sb[f] != NONE64]
    starts = [v for v, _, _ in img.tables.values()] + \
        [t[2] for t in img.tables.values()]
    val = rng.choice([0, 95, 96, cur + 1, cur - 1, cur + 2, cur - 8,
                      cur + 8, cur + 8194, cur - 8194, img.sb["bytes_used"],
                      img.sb["bytes_used"] + 1, img.size, img.size + 4096,
                      1 << 32, cur + (1 << 32), 1 << 63, NONE64, NONE64 - 7,
                      rng.choice(others), rng.choice(starts or [0])])
    img.set_sb(field, val % (1 << 64))
    return "%s %#x -> %#x" % (field, cur, val % (1 << 64))


def m_count(img, rng):
    field = rng.choice(COUNT_FIELDS + ["xattr_ids"])
    if field == "xattr_ids":
        xs = img.sb["xattr_id_table_start"]
        if xs == NONE64 or xs + 16 > img.size:
            field = "inodes"
        else:
            val = rng.choice([0, 1, img.xattr_ids + 1, 513, 0x7FFFFFFF,
                              NONE32])
            img.put(xs + 8, "<I", val)
            return "xattr_ids -> %#x" % val
    off, fmt = SB_OFFSETS[field]
    cur = img.sb[field]
    val = rng.choice([0, 1, cur - 1, cur + 1, cur * 2, cur << 8] +
                     FMTS[fmt][-4:])
    img.put(off, fmt, val)
    return "%s %#x -> %#x" % (field, cur, val % (1 << 64))


def m_md_header(img, rng):
    name = rng.choice([n for n in img.md_headers if img.md_headers[n]])
    pos = rng.choice(img.md_headers[name])
    if pos + 2 > img.size:
        return m_flip(img, rng)
    cur = u16(img.data, pos)
    n = cur & 0x7FFF
    val = rng.choice([0, 0x8000, 0x7FFF, 0xFFFF, 0x8000 | 8193, 0x2001,
                      0x2000, 0xA000, 0xA001, cur ^ 0x8000,
                      (cur & 0x8000) | max(n - 1, 0),
                      (cur & 0x8000) | (n + 1), 1, 0x8001])
    img.put(pos, "<H", val)
    return "md header of %s at %d: %#x -> %#x" % (name, pos, cur, val)


def m_index(img, rng):
    name = rng.choice(list(img.tables) or ["none"])
    if name == "none":
        return m_table_offset(img, rng)
    at, nblocks, first = img.tables[name]
    i = rng.randrange(nblocks)
    cur = u64(img.data, at + 8 * i)
    val = rng.choice([0, cur + 1, cur - 1, cur + 8194, at, at + 8,
                      img.sb["inode_table_start"], img.sb["bytes_used"],
                      NONE64, 1 << 63, first])
    img.put(at + 8 * i, "<Q", val % (1 << 64))
    return "%s index[%d] %#x -> %#x" % (name, i, cur, val % (1 << 64))


def m_truncate(img, rng):
    marks = [0, 1, 95, 96, 97, img.size - 1, img.sb["bytes_used"] - 1]
    for lo, hi in img.regions.values():
        marks += [lo, lo + 1, lo + 2, hi - 1, hi - 8]
    at = rng.choice(marks + [rng.randrange(img.size)] * 4)
    at = max(0, min(at, img.size - 1))
    return ("truncate", at)


def m_bomb_md(img, rng):
    names = [n for n in ("inode", "dir", "id", "fragment", "export",
                         "xattr", "xattr_kv") if img.md_headers.get(n)]
    total = rng.choice([8193, 65536, 1 << 20])
    payload = bomb(img.comp, total, img.block_size)
    if not names or payload is None:
        return m_md_header(img, rng)
    name = rng.choice(names)
    pos = rng.choice(img.md_headers[name])
    if pos + 2 > img.size:
        return m_flip(img, rng)
    old = u16(img.data, pos) & 0x7FFF
    keep = len(payload) <= old and rng.random() < 0.5
    end = min(pos + 2 + len(payload), img.size)
    img.data[pos + 2:end] = payload[:end - pos - 2]
    img.put(pos, "<H", old if keep else len(payload))
    return "bomb of %d bytes in md-block of %s at %d%s" % (
        total, name, pos, " (old length kept)" if keep else "")


def m_bomb_data(img, rng):
    blocks = img.data_blocks()
    total = rng.choice([img.block_size + 1, 1 << 20, 16 << 20])
    payload = bomb(img.comp, total, img.block_size)
    fits = [b for b in blocks if not b[2] and b[1] >= len(payload or b"")]
    if payload is None or not fits:
        return m_bomb_md(img, rng)
    pos, n, _ = rng.choice(fits)
    img.data[pos:pos + len(payload)] = payload
    if rng.random() < 0.5:
        img.data[pos + len(payload):pos + n] = bytes(n - len(payload))
    return "bomb of %d bytes in the data block at %d" % (total, pos)


def semantic_targets(img):
    """Fields of decoded inodes and listings that lie in raw md-blocks,
    so they can be changed in place."""
    out = []
    for rec in img.inodes:
        for f in rec["fields"]:
            pos = img.inode_stream.file_pos(f.dec)
            if pos is not None:
                out.append(("inode@%d.%s" % (rec["off"], f.name), pos,
                            f.fmt, f.name))
    for lst in img.listings:
        for h in lst["headers"]:
            for f in h:
                pos = img.dir_stream.file_pos(f.dec)
                if pos is not None:
                    out.append(("dirhdr@%d.%s" % (f.dec, f.name), pos,
                                f.fmt, "hdr_" + f.name))
        for e in lst["entries"]:
            for f in e["fields"]:
                pos = img.dir_stream.file_pos(f.dec)
                if pos is not None:
                    out.append(("entry@%d.%s" % (e["pos"], f.name), pos,
                                f.fmt, f.name))
    return out


def field_values(img, what, cur):
    bs = img.block_size
    n = img.sb["inodes"]
    special = {
        "type": [0, 15, 1, 2, 3, 8, 9, 10, cur ^ 8],
        "mode": [cur | 0o170000, cur | 0o40000, 0xFFFF],
        "uid": [img.sb["no_ids"], 0xFFFF],
        "gid": [img.sb["no_ids"], 0xFFFF],
        "inode_number": [0, n, n + 1, NONE32, cur + 1, cur - 1],
        "file_size": [cur + 1, cur - 1, cur + bs, bs, 0, 1 << 62, 1 << 63,
                      NONE64, NONE32],
        "blocks_start": [0, img.size, img.size - 1, cur + 1, 1 << 63],
        "fragment": [img.sb["fragments"], NONE32 - 1, 0, cur + 1],
        "frag_offset": [bs, bs - 1, NONE32, cur + 1],
        "block_word": [0, 0x1000000, 0x2000000 | (cur & 0xFFFFFF),
                       cur ^ 0x1000000, bs + 1, 0x1000000 | (bs + 1),
                       NONE32, cur + 1, cur - 1],
        "sparse": [NONE64, 1 << 63],
        "nlink": [0, NONE32],
        "xattr": [0, NONE32 - 1, cur + 1],
        "start_block": [cur + 1, cur + 8194, 1 << 31, NONE32],
        "offset": [8191, 8192, 0xFFFF, cur + 1],
        "parent": [0, n + 1, NONE32],
        "i_count": [0xFFFF, cur + 1, 1],
        "symlink_size": [0, 4096, 4097, 65535, NONE32, cur + 1],
        "rdev": [NONE32],
        "hdr_count": [255, 256, NONE32, cur + 1, 0],
        "hdr_start_block": [cur + 8194, NONE32, 1 << 31],
        "hdr_inode_number": [0, NONE32, NONE32 - 1, 1 << 31],
        "delta": [0x7FFF, 0x8000, 0xFFFF],
        "etype": [0, 8, 9, 15, 0xFFFF],
        "name_size": [255, 256, 0xFFFF, cur + 1],
    }
    return special.get(what, []) + [0, NONE32]


def m_semantic(img, rng):
    targets = semantic_targets(img)
    names = [e for lst in img.listings for e in lst["entries"]
             if img.dir_stream.file_pos(e["name_pos"]) is not None]
    if names and rng.random() < 0.35:
        return m_name(img, rng, names)
    if not targets:
        return m_int(img, rng)
    label, pos, fmt, what = rng.choice(targets)
    size = struct.calcsize(fmt)
    cur = struct.unpack_from(fmt, img.data, pos)[0]
    val = rng.choice(field_values(img, what, cur))
    img.put(pos, fmt, val % (1 << (8 * size)))
    return "%s %#x -> %#x" % (label, cur, val % (1 << (8 * size)))


def m_name(img, rng, names):
    e = rng.choice(names)
    pos = img.dir_stream.file_pos(e["name_pos"])
    n = e["name_len"]
    old = bytes(img.data[pos:pos + n])
    kind = rng.choice(["slash", "nul", "dot", "dotdot", "unsort", "dup"])
    new = bytearray(old)
    if kind == "slash":
        new[rng.randrange(n)] = ord("/")
    elif kind == "nul":
        new[rng.randrange(n)] = 0
    elif kind in ("dot", "dotdot"):
        # shrink the size field: the rest of the old name becomes garbage
        want = b"." if kind == "dot" else b".."
        if n >= len(want):
            new[:len(want)] = want
            fpos = img.dir_stream.file_pos(e["fields"][3].dec)
            if fpos is not None:
                img.put(fpos, "<H", len(want) - 1)
    elif kind == "unsort":
        new[0] = 0x20 if new[0] > 0x20 else 0xFF
    else:
        same = [o for o in names if o["name_len"] == n and o is not e and
                img.dir_stream.file_pos(o["name_pos"]) is not None]
        if same:
            o = rng.choice(same)
            p2 = img.dir_stream.file_pos(o["name_pos"])
            new = bytearray(img.data[p2:p2 + n])
    img.data[pos:pos + n] = new
    return "name %r -> %r (%s)" % (old, bytes(new), kind)


OPS = [(m_flip, 10), (m_bytes, 5), (m_int, 8), (m_table_offset, 4),
       (m_count, 3), (m_md_header, 5), (m_index, 3), (m_truncate, 3),
       (m_bomb_md, 3), (m_bomb_data, 3), (m_semantic, 24)]


def mutate_one(data, rng):
    """One mutant of data, never identical to it."""
    img = Image(data)
    steps = rng.choices([1, 2, 3], [6, 3, 1])[0]
    what = []
    cut = None
    while True:
        for _ in range(steps):
            op = rng.choices([o for o, _ in OPS], [w for _, w in OPS])[0]
            r = op(img, rng)
            if isinstance(r, tuple):
                cut = r[1] if cut is None else min(cut, r[1])
                what.append("truncate at %d" % r[1])
            else:
                what.append(r)
        out = bytes(img.data)
        if cut is not None:
            out = out[:cut]
        if out != data:
            return out, "; ".join(what)
        steps = 1


def write_case(outdir, name, data, expect, what):
    with open(os.path.join(outdir, name + ".sqfs"), "wb") as f:
        f.write(data)
    with open(os.path.join(outdir, "manifest.txt"), "a") as f:
        f.write("%s.sqfs %s %s\n" % (name, expect, what))


def cmd_mutants(args):
    seed, count, out, images = "0", 20, None, []
    while args:
        a = args.pop(0)
        if a == "--seed":
            seed = args.pop(0)
        elif a == "--count":
            count = int(args.pop(0))
        elif a == "--out":
            out = args.pop(0)
        else:
            images.append(a)
    if not out or not images:
        usage()
    os.makedirs(out, exist_ok=True)
    for path in images:
        base = os.path.splitext(os.path.basename(path))[0]
        with open(path, "rb") as f:
            data = f.read()
        Image(data)  # a seed must at least parse
        for i in range(count):
            rng = random.Random("%s:%s:%d" % (seed, base, i))
            mut, what = mutate_one(data, rng)
            write_case(out, "m-%s-%03d" % (base, i), mut, "any", what)


def cmd_structured(args):
    out, outside, only = None, None, []
    while args:
        a = args.pop(0)
        if a == "--out":
            out = args.pop(0)
        elif a == "--outside":
            outside = args.pop(0)
        else:
            only.append(a)
    if not out or not outside:
        usage()
    os.makedirs(out, exist_ok=True)
    for name, (expect, fn) in structured.all_cases():
        if only and name not in only:
            continue
        write_case(out, "s-" + name, fn(outside), expect,
                   (fn.__doc__ or name).strip().split("\n")[0])


def cmd_seedtree(args):
    """A small tree with a bit of everything for mksquashfs and GNU tar:
    blocks and tails at 4 KiB blocks, empty, zero and sparse files, hard
    links, symlinks, a fifo, xattrs, a 300-entry directory."""
    if len(args) != 1:
        usage()
    top = args[0]
    rng = random.Random("seedtree")

    def put(path, data, mtime=1700000000):
        p = os.path.join(top, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        os.utime(p, (mtime, mtime))
        return p

    text = b"".join(b"%05d hostile seed text line\n" % i
                    for i in range(500))
    put("t/text", text)
    put("t/random", rng.randbytes(9000))
    put("t/tiny", b"x")
    put("t/empty", b"")
    put("t/zeros", bytes(12288))
    put("t/tail", text[:4096 + 100])
    p = put("t/sparse", b"")
    with open(p, "r+b") as f:
        f.seek(100000)
        f.write(b"island")
        f.truncate(1 << 20)
    os.utime(p, (1700000000, 1700000000))
    os.link(os.path.join(top, "t/text"), os.path.join(top, "t/hard"))
    os.symlink("text", os.path.join(top, "t/link"))
    os.symlink("../nowhere/at/all", os.path.join(top, "t/dangling"))
    os.mkfifo(os.path.join(top, "t/fifo"))
    for i in range(300):
        put("d300/f%03d" % i, b"%d\n" % i if i % 3 else b"")
    os.makedirs(os.path.join(top, "d300/sub/deeper"))
    for path, dirs, files in os.walk(top, topdown=False):
        for n in files + dirs + ["."]:
            os.utime(os.path.join(path, n), (1700000000, 1700000000),
                     follow_symlinks=False)
    try:
        os.setxattr(os.path.join(top, "t/text"), "user.a", b"1")
        os.setxattr(os.path.join(top, "t/tiny"), "user.big", b"B" * 300)
        os.setxattr(os.path.join(top, "t/tiny"), "user.small", b"s")
        os.setxattr(os.path.join(top, "d300"), "user.dir", b"d")
    except OSError:
        pass  # no user xattrs here: the seeds just have none


def usage():
    sys.stderr.write(__doc__)
    sys.exit(2)


def main(argv):
    if len(argv) < 2:
        usage()
    if argv[1] == "mutants":
        cmd_mutants(argv[2:])
    elif argv[1] == "structured":
        cmd_structured(argv[2:])
    elif argv[1] == "seedtree":
        cmd_seedtree(argv[2:])
    elif argv[1] == "list":
        print("\n".join(name for name, _ in structured.all_cases()))
    else:
        usage()

if __name__ == "__main__":
    main(sys.argv)

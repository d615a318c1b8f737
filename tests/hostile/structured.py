# SPDX-License-Identifier: MIT
"""Hostile images written from scratch (see sqfs_format.Builder).

Each case is a function taking the test's "outside" directory (an absolute
path the runner watches: symlinks point there, and nothing may ever be
written into it) and returning the image bytes. CASES maps the case name
to (expectation, function): "reject" if a correct reader must refuse the
image (or the part of it that is broken), "accept" if it is a valid image
that the library and the tools must read cleanly, "libok" if only the
library must (no tool can unpack it), "any" where both are defensible.

Files planted where an escape would land are named pwn_*: the runner looks
for that prefix outside the unpack target.
"""

import struct

from sqfs_format import (Builder, Node, NONE32, COMP_GZIP, COMP_XZ,
                         COMP_ZSTD, COMP_LZ4, bomb, compress, md_encode,
                         md_ref)

CASES = {}
T0 = 1700000000
MIB = 1 << 20


def case(expect):
    def reg(fn):
        CASES[fn.__name__[2:]] = (expect, fn)
        return fn
    return reg


def tree(b, entries, ino=None, **kw):
    """A root directory over entries, added last (post-order); returns
    it. Inode numbers of the other nodes must already be set."""
    num = ino if ino is not None else max(
        [n.ino for n in b.nodes] + [0]) + 1
    kw.setdefault("nlink", 2)
    root = b.add(Node("dir", num, entries=entries, **kw))
    b.root = root
    return root


def small_file(b, ino, content=b"hello\n", **kw):
    f = b.add(Node("file", ino, **kw))
    b.file_data(f, content)
    return f


def build(b):
    return b.build()


# ------------------------------------------------------------ valid images

def valid_tree(b):
    """A bit of everything: blocks raw and compressed, a fragment, a hard
    link, xattrs, a symlink, a fifo, a device, a subdirectory, exports."""
    text = b"".join(b"%06d squash hostile line\n" % i for i in range(700))
    f1 = b.add(Node("file", 1, mtime=T0))
    b.file_data(f1, text, raw=False)
    f2 = b.add(Node("file", 2, ext=True, nlink=2, xattr=0))
    f2.frag = b.fragment(b"tail of f2\n" + b"x" * 20)
    f2.file_size = 31
    big = b.add(Node("file", 3))
    b.file_data(big, bytes(range(256)) * 40, raw=True)
    s = b.add(Node("slink", 4, target=b"f1", mode=0o777))
    fifo = b.add(Node("fifo", 5))
    dev = b.add(Node("cdev", 6, rdev=(1 << 8) | 3))
    sub = b.add(Node("dir", 7, entries=[(b"x", f2), (b"y", big)],
                     parent=8, ext=True, xattr=1))
    b.xattrs = [[(0, b"test", b"value"), (1, b"trusted", b"tv")],
                [(0, b"dir", b"d" * 300)]]
    b.ids = [0, 1000]
    b.export = True
    tree(b, [(b"f1", f1), (b"f2", f2), (b"big", big), (b"sym", s),
             (b"fifo", fifo), (b"null", dev), (b"sub", sub)], ino=8,
         nlink=3)


@case("accept")
def s_valid_gzip(outside):
    b = Builder()
    valid_tree(b)
    return build(b)


@case("accept")
def s_valid_xz(outside):
    b = Builder(comp=COMP_XZ)
    valid_tree(b)
    return build(b)


@case("accept")
def s_valid_empty_root(outside):
    b = Builder()
    tree(b, [], ino=1)
    return build(b)


@case("libok")
def s_valid_name_256(outside):
    b = Builder()
    f = small_file(b, 1)
    tree(b, [(b"n" * 256, f)], ino=2)
    return build(b)


@case("accept")
def s_valid_dir_index(outside):
    """600 entries in one extended directory with an index entry per
    run, so lookups go through the index."""
    b = Builder()
    ents = [(b"f%04d" % i, b.add(Node("file", i + 1))) for i in range(600)]
    tree(b, ents, ino=601, ext=True, index="auto")
    return build(b)


@case("accept")
def s_valid_deep_1000(outside):
    b = Builder()
    leaf = small_file(b, 1, b"deep\n")
    child, name = leaf, b"f"
    for i in range(1000):
        child = b.add(Node("dir", i + 2, entries=[(name, child)],
                           parent=i + 3))
        name = b"d"
    b.root = child
    return build(b)


@case("accept")
def s_symlink_chain(outside):
    """Symlinks out of the target, by chain, by '..' and absolute: an
    unpacker creates them and follows none."""
    b = Builder()
    a = b.add(Node("slink", 1, target=b"b"))
    bb = b.add(Node("slink", 2, target=b"c"))
    c = b.add(Node("slink", 3, target=b"../../.."))
    d = b.add(Node("slink", 4, target=outside.encode()))
    e = b.add(Node("slink", 5, target=b"../canary"))
    loop = b.add(Node("slink", 6, target=b"loop"))
    z = small_file(b, 7, b"after the links\n")
    tree(b, [(b"a", a), (b"b", bb), (b"c", c), (b"d", d), (b"e", e),
             (b"loop", loop), (b"z", z)], ino=8)
    return build(b)


@case("accept")
def s_sparse_1tib(outside):
    """A file of 1 TiB of holes: 2^20 sparse 1 MiB blocks."""
    b = Builder(block_size=MIB)
    f = b.add(Node("file", 1, ext=True, file_size=1 << 40,
                   words=[0] * (1 << 20), sparse=(1 << 40) - 1))
    tree(b, [(b"holes", f)], ino=2)
    return build(b)


@case("accept")
def s_dedup_expand(outside):
    """Sixteen 4 MiB files sharing one compressed 1 MiB block."""
    b = Builder(block_size=MIB)
    blk = compress(COMP_GZIP, b"A" * MIB)
    pos = b.block(blk)
    files = []
    for i in range(16):
        f = b.add(Node("file", i + 1, blocks_start=pos, file_size=4 * MIB,
                       words=[len(blk), 0, 0, 0]))
        files.append((b"f%02d" % i, f))
    # every file after the first block is sparse: words 0 (zeros)
    tree(b, files, ino=17)
    return build(b)


@case("accept")
def s_names_weird(outside):
    """Valid names an unpacker must pass through unharmed: leading '-',
    spaces, a backslash, bytes that are not UTF-8."""
    b = Builder()
    names = [b"-rf", b" lead", b"back\\slash", b"\xff\xfe", b"tab\there",
             b"*", b"~", b"...", b"trail "]
    ents = [(n, small_file(b, i + 1, n + b"\n")) for i, n in enumerate(names)]
    tree(b, ents)
    return build(b)


@case("libok")
def s_name_newline(outside):
    """A line break in a name: valid, but no pack file (rdsquashfs -d)
    can hold it."""
    b = Builder()
    f = small_file(b, 1)
    tree(b, [(b"new\nline", f)], ino=2)
    return build(b)


@case("accept")
def s_dir_readonly(outside):
    """A read-only directory with contents, and one with mode 000."""
    b = Builder()
    f = small_file(b, 1, mode=0o444)
    g = small_file(b, 2, mode=0o000)
    ro = b.add(Node("dir", 3, mode=0o555, entries=[(b"f", f)], parent=5))
    no = b.add(Node("dir", 4, mode=0o000, entries=[(b"g", g)], parent=5))
    tree(b, [(b"ro", ro), (b"none", no)], ino=5, mode=0o555)
    return build(b)


@case("accept")
def s_hardlink_symlink_out(outside):
    """One symlink inode to the outside under two names, and a file
    linked 500 times."""
    b = Builder()
    s = b.add(Node("slink", 1, target=(outside + "/pwn_hl_target").encode(),
                   nlink=2))
    f = small_file(b, 2, b"many links\n", ext=True, nlink=500)
    ents = [(b"a", s), (b"b", s)] + [(b"l%03d" % i, f) for i in range(500)]
    tree(b, ents, ino=3)
    return build(b)


@case("libok")
def s_slink_4096(outside):
    b = Builder()
    s = b.add(Node("slink", 1, target=b"x/" * 2047 + b"yy"))
    tree(b, [(b"long", s)], ino=2)
    return build(b)


@case("any")
def s_xattr_unknown_prefix(outside):
    b = Builder()
    f = small_file(b, 1, ext=True, xattr=0)
    b.xattrs = [[(5, b"odd", b"v"), (0, b"ok", b"fine")]]
    tree(b, [(b"f", f)], ino=2)
    return build(b)


@case("any")
def s_entry_type_mismatch(outside):
    """The entry claims a file; the inode is a directory (the inode
    decides)."""
    b = Builder()
    f = small_file(b, 1)
    d = b.add(Node("dir", 2, entries=[(b"pwn_in", f)], parent=3))
    tree(b, [(b"d", d, {"type": 2})], ino=3)
    return build(b)


# ------------------------------------------------------------ directories

@case("reject")
def s_loop_self(outside):
    b = Builder()
    d = b.add(Node("dir", 1, parent=2))
    d.entries = [(b"self", d)]
    tree(b, [(b"d", d)], ino=2)
    return build(b)


@case("reject")
def s_loop_root(outside):
    b = Builder()
    root = Node("dir", 3, nlink=2)
    a = b.add(Node("dir", 1, entries=[(b"up", root)], parent=3))
    f = small_file(b, 2)
    root.entries = [(b"a", a), (b"f", f)]
    b.add(root)
    b.root = root
    return build(b)


@case("reject")
def s_loop_deep(outside):
    b = Builder()
    a = Node("dir", 1, parent=4)
    bb = b.add(Node("dir", 2, entries=[], parent=1))
    c = b.add(Node("dir", 3, entries=[(b"back", a)], parent=2))
    bb.entries = [(b"c", c)]
    a.entries = [(b"b", bb)]
    b.add(a)
    tree(b, [(b"a", a)], ino=4)
    return build(b)


@case("reject")
def s_dir_two_parents(outside):
    b = Builder()
    f = small_file(b, 1, b"shared\n")
    x = b.add(Node("dir", 2, entries=[(b"pwn_shared", f)], parent=3))
    a = b.add(Node("dir", 3, entries=[(b"x", x)], parent=5))
    bb = b.add(Node("dir", 4, entries=[(b"x", x)], parent=5))
    tree(b, [(b"a", a), (b"b", bb)], ino=5)
    return build(b)


@case("reject")
def s_dir_hardlink(outside):
    b = Builder()
    f = small_file(b, 1)
    d = b.add(Node("dir", 2, entries=[(b"f", f)], parent=3))
    tree(b, [(b"d", d), (b"d2", d)], ino=3)
    return build(b)


@case("reject")
def s_deep_2000(outside):
    b = Builder()
    child = small_file(b, 1, b"too deep\n")
    name = b"f"
    for i in range(2000):
        child = b.add(Node("dir", i + 2, entries=[(name, child)],
                           parent=i + 3))
        name = b"d"
    b.root = child
    return build(b)


def names_case(names, expect="reject"):
    """A root holding a file under each of names (in that order)."""
    def fn(outside):
        b = Builder()
        ents = []
        for i, n in enumerate(names):
            ents.append((n, small_file(b, i + 1, b"pwn %d\n" % i)))
        tree(b, ents, sort=False)
        return build(b)
    return expect, fn


CASES["name_slash"] = names_case([b"a", b"a/pwn_slash"])
CASES["name_dotdot_slash"] = names_case([b"../../pwn_dotdot_slash"])
CASES["name_dotdot_file"] = names_case([b".."])
CASES["name_dot_file"] = names_case([b"."])
CASES["name_nul"] = names_case([b"a\0b"])
CASES["name_unsorted"] = names_case([b"b", b"a"])
CASES["name_duplicate"] = names_case([b"a", b"a"])
CASES["name_257"] = names_case([b"n" * 257])


@case("reject")
def s_name_abs(outside):
    b = Builder()
    f = small_file(b, 1, b"absolute name\n")
    tree(b, [((outside + "/pwn_abs_name").encode(), f)], ino=2)
    return build(b)


@case("reject")
def s_name_dotdot_dir(outside):
    b = Builder()
    f = small_file(b, 1, b"escaped\n")
    d = b.add(Node("dir", 2, entries=[(b"pwn_dotdot", f)], parent=3))
    tree(b, [(b"..", d)], ino=3)
    return build(b)


@case("reject")
def s_name_dot_dir(outside):
    b = Builder()
    f = small_file(b, 1)
    d = b.add(Node("dir", 2, entries=[(b"pwn_dot", f)], parent=3))
    tree(b, [(b".", d)], ino=3)
    return build(b)


@case("reject")
def s_name_size_wrap(outside):
    """name_size 0xFFFF: a 65536-byte name in a short listing."""
    b = Builder()
    f = small_file(b, 1)
    tree(b, [(b"a", f, {"name_size": 0xFFFF})], ino=2)
    return build(b)


@case("reject")
def s_symlink_up_slash(outside):
    """'up -> ../../..' then 'up/pwn_up' in listing order."""
    b = Builder()
    up = b.add(Node("slink", 1, target=b"../../.."))
    f = small_file(b, 2, b"through the link\n")
    tree(b, [(b"up", up), (b"up/pwn_up", f)], sort=False)
    return build(b)


@case("reject")
def s_symlink_abs_slash(outside):
    b = Builder()
    ab = b.add(Node("slink", 1, target=outside.encode()))
    f = small_file(b, 2, b"through the link\n")
    tree(b, [(b"abs", ab), (b"abs/pwn_abs", f)], sort=False)
    return build(b)


@case("reject")
def s_symlink_dup_dir(outside):
    """A symlink 'x' to the outside, then a directory also named 'x'."""
    b = Builder()
    x = b.add(Node("slink", 1, target=outside.encode()))
    f = small_file(b, 2, b"through the link\n")
    d = b.add(Node("dir", 3, entries=[(b"pwn_dup", f)], parent=4))
    tree(b, [(b"x", x), (b"x", d)], sort=False)
    return build(b)


@case("reject")
def s_symlink_dup_canary(outside):
    b = Builder()
    x = b.add(Node("slink", 1, target=b"../canary"))
    f = small_file(b, 2, b"into the canary\n")
    d = b.add(Node("dir", 3, entries=[(b"pwn_canary", f)], parent=4))
    tree(b, [(b"x", x), (b"x", d)], sort=False)
    return build(b)


@case("reject")
def s_symlink_dup_file(outside):
    """A symlink to a file outside, then a regular file of the same name
    (a naive unpacker would open the link and write through it)."""
    b = Builder()
    x = b.add(Node("slink", 1, target=(outside + "/pwn_file").encode()))
    f = small_file(b, 2, b"written through the link\n")
    tree(b, [(b"x", x), (b"x", f)], sort=False)
    return build(b)


@case("reject")
def s_symlink_dup_hardlink(outside):
    """A symlink to the outside, then a hard link of the same name."""
    b = Builder()
    f = small_file(b, 1, b"linked\n", ext=True, nlink=2)
    x = b.add(Node("slink", 2, target=(outside + "/pwn_hl").encode()))
    tree(b, [(b"a", f), (b"x", x), (b"x", f)], sort=False)
    return build(b)


def listing_case(mangle, expect="reject"):
    """A root over two files whose encoded listing is mangled by
    mangle(bytearray, builder)."""
    def fn(outside):
        b = Builder()
        f1 = small_file(b, 1, b"one\n")
        f2 = small_file(b, 2, b"two\n")
        root = tree(b, [(b"a", f1), (b"b", f2)], ino=3)
        b.build()  # for the refs
        lst = bytearray(Builder.listing(root)[0])
        mangle(lst, b)
        root.listing_override = bytes(lst)
        return build(b)
    return expect, fn


def put32(off, val):
    return lambda lst, b: struct.pack_into("<I", lst, off, val)


def put16(off, val):
    return lambda lst, b: struct.pack_into("<H", lst, off, val)


# header at 0: count, start_block, inode_number; entries at 12 and 21
CASES["dir_count_256"] = listing_case(put32(0, 256))
CASES["dir_count_huge"] = listing_case(put32(0, 0xFFFFFFFF))
CASES["dir_count_short"] = listing_case(put32(0, 0))
CASES["dir_hdr_block_oob"] = listing_case(put32(4, 0x7FFF0000))
CASES["dir_hdr_ino_wrap"] = listing_case(put32(8, 0xFFFFFFFF))
CASES["dir_hdr_ino_zero"] = listing_case(put32(8, 0))
CASES["dir_entry_offset_8192"] = listing_case(put16(12, 8192))
CASES["dir_entry_offset_ffff"] = listing_case(put16(12, 0xFFFF))
CASES["dir_entry_delta_neg"] = listing_case(put16(14, 0x8000))
CASES["dir_entry_type_0"] = listing_case(put16(16, 0))
CASES["dir_entry_type_8"] = listing_case(put16(16, 8))
CASES["dir_entry_type_ffff"] = listing_case(put16(16, 0xFFFF))
CASES["dir_entry_into_middle"] = listing_case(put16(12, 7), "any")
CASES["dir_trailing_garbage"] = listing_case(
    lambda lst, b: lst.extend(b"\xff" * 5))
CASES["dir_truncated"] = listing_case(lambda lst, b: lst.__delitem__(
    slice(len(lst) - 3, None)))


def dir_inode_case(expect="reject", **fields):
    def fn(outside):
        b = Builder()
        f = small_file(b, 1)
        d = b.add(Node("dir", 2, entries=[(b"f", f)], parent=3))
        for k, v in fields.items():
            setattr(d, k, v)
        tree(b, [(b"d", d)], ino=3)
        return build(b)
    return expect, fn


CASES["dir_size_0"] = dir_inode_case(size_override=0)
CASES["dir_size_4"] = dir_inode_case(size_override=4)
CASES["dir_size_23"] = dir_inode_case(size_override=23)
CASES["dir_size_big"] = dir_inode_case(size_override=0xFFFF)
CASES["dir_size_ext_huge"] = dir_inode_case(ext=True,
                                            size_override=0xFFFFFFFF)
CASES["dir_index_oob"] = dir_inode_case(
    "any", ext=True, index=[(0x7FFFFFFF, 0, b"f")])
CASES["dir_index_start_oob"] = dir_inode_case(
    "any", ext=True, index=[(0, 0x7FFF0000, b"f")])
CASES["dir_index_name_huge"] = dir_inode_case(
    "any", ext=True, index=[(0, 0, b"f" * 300)])
CASES["dir_index_mid_entry"] = dir_inode_case(
    "any", ext=True, index=[(5, 0, b"f")])


@case("reject")
def s_dir_offset_8192(outside):
    b = Builder()
    f = small_file(b, 1)
    d = b.add(Node("dir", 2, entries=[(b"f", f)], parent=3))
    root = tree(b, [(b"d", d)], ino=3)
    b.build()
    orig = d.encode
    d.encode = lambda: orig()[:26] + struct.pack("<H", 8192) + orig()[28:]
    del root
    return build(b)


# ------------------------------------------------------------ inodes

def inode_case(fields, kind="file", expect="reject"):
    """A root over one node whose encoded inode gets fields patched:
    {offset: (fmt, value)}."""
    def fn(outside):
        b = Builder()
        if kind == "file":
            n = small_file(b, 1, b"data of the file\n" * 3)
        elif kind == "extfile":
            n = small_file(b, 1, b"data of the file\n" * 3, ext=True)
        elif kind == "slink":
            n = b.add(Node("slink", 1, target=b"target"))
        else:
            n = b.add(Node(kind, 1))
        raw = bytearray(n.encode())
        for off, (fmt, val) in fields.items():
            struct.pack_into(fmt, raw, off, val)
        n.raw = bytes(raw)
        tree(b, [(b"pwn_n", n)], ino=2)
        return build(b)
    return expect, fn


CASES["inode_type_0"] = inode_case({0: ("<H", 0)})
CASES["inode_type_15"] = inode_case({0: ("<H", 15)})
CASES["inode_mode_typebits"] = inode_case({2: ("<H", 0o140644)})
CASES["inode_uid_oob"] = inode_case({4: ("<H", 1)})
CASES["inode_gid_oob"] = inode_case({6: ("<H", 0xFFFF)})
CASES["inode_number_0"] = inode_case({12: ("<I", 0)})
CASES["inode_number_big"] = inode_case({12: ("<I", 0xFFFFFFFF)})
CASES["file_blocks_oob"] = inode_case({16: ("<I", 0xFFFFFF00)})
CASES["file_frag_oob"] = inode_case({20: ("<I", 7)})
CASES["file_size_basic_max"] = inode_case({28: ("<I", 0xFFFFFFFF)})
CASES["file_size_2e62"] = inode_case({24: ("<Q", 1 << 62)}, "extfile")
CASES["file_size_2e63"] = inode_case({24: ("<Q", 1 << 63)}, "extfile")
CASES["file_size_max"] = inode_case({24: ("<Q", (1 << 64) - 1)}, "extfile")
CASES["file_word_bit25"] = inode_case({32: ("<I", 0x02000000 | 51)})
CASES["file_word_raw_sparse"] = inode_case({32: ("<I", 0x01000000)})
CASES["file_word_too_big"] = inode_case({32: ("<I", 0x01000000 | 8192)})
CASES["file_word_short"] = inode_case({32: ("<I", 0x01000000 | 10)})
CASES["file_word_compressed_raw"] = inode_case({32: ("<I", 51)})
CASES["file_nlink_0"] = inode_case({40: ("<I", 0)}, "extfile", "any")
CASES["file_xattr_oob"] = inode_case({52: ("<I", 0)}, "extfile")
CASES["slink_size_0"] = inode_case({20: ("<I", 0)}, "slink")
CASES["slink_size_huge"] = inode_case({20: ("<I", 0xFFFFFFFF)}, "slink")
CASES["slink_nul"] = inode_case({26: ("<B", 0)}, "slink")
CASES["fifo_ext_xattr_oob"] = inode_case({0: ("<H", 13)}, "fifo")


@case("reject")
def s_slink_4097(outside):
    b = Builder()
    s = b.add(Node("slink", 1, target=b"x/" * 2048 + b"y"))
    tree(b, [(b"long", s)], ino=2)
    return build(b)


@case("reject")
def s_file_frag_offset(outside):
    b = Builder()
    f = b.add(Node("file", 1, file_size=100))
    f.frag = b.fragment(b"short fragment")
    f.frag_off = 0
    tree(b, [(b"f", f)], ino=2)
    return build(b)


@case("reject")
def s_file_frag_aligned(outside):
    b = Builder()
    f = b.add(Node("file", 1))
    b.file_data(f, b"z" * 4096)
    f.frag = b.fragment(b"unused tail")
    tree(b, [(b"f", f)], ino=2)
    return build(b)


@case("reject")
def s_frag_entry_too_big(outside):
    b = Builder()
    f = b.add(Node("file", 1, file_size=10))
    f.frag = b.fragment(b"0123456789")
    b.frags[0] = (b.frags[0][0], 0x01000000 | 0x10000)
    tree(b, [(b"f", f)], ino=2)
    return build(b)


@case("reject")
def s_frag_start_oob(outside):
    b = Builder()
    f = b.add(Node("file", 1, file_size=10))
    f.frag = b.fragment(b"0123456789")
    b.frags[0] = ((1 << 63) + 5, b.frags[0][1])
    tree(b, [(b"f", f)], ino=2)
    return build(b)


@case("reject")
def s_hardlink_inconsistent(outside):
    """Two entries with one inode ref but different inode numbers."""
    b = Builder()
    f = small_file(b, 1, ext=True, nlink=2)
    g = small_file(b, 2)
    tree(b, [(b"a", f), (b"b", f, {"inode_number": 2}), (b"c", g)], ino=3)
    return build(b)


@case("reject")
def s_root_not_dir(outside):
    b = Builder()
    f = small_file(b, 1)
    b.root = f
    return build(b)


@case("reject")
def s_root_ref_offset(outside):
    b = Builder()
    tree(b, [], ino=1)
    b.root_ref = 8192
    return build(b)


@case("reject")
def s_root_ref_oob(outside):
    b = Builder()
    tree(b, [], ino=1)
    b.root_ref = 0x7FFFFFFF << 16
    return build(b)


@case("reject")
def s_ids_zero(outside):
    b = Builder()
    tree(b, [], ino=1)
    b.sb_override["no_ids"] = 0
    return build(b)


@case("reject")
def s_inodes_zero(outside):
    b = Builder()
    f = small_file(b, 1)
    tree(b, [(b"f", f)], ino=2)
    b.inode_count = 0
    return build(b)


@case("any")
def s_export_ref_bad(outside):
    """An export table entry pointing past the inode table."""
    b = Builder()
    f = small_file(b, 1)
    tree(b, [(b"f", f)], ino=2)
    b.export = True
    img = bytearray(build(b))
    exp = struct.unpack_from("<Q", img, 88)[0]
    md = struct.unpack_from("<Q", img, exp)[0]
    struct.pack_into("<Q", img, md + 2, 0x7FFFFFFF << 16)
    return bytes(img)


# ------------------------------------------------------------ xattrs

def xattr_case(sets, kv=None, ids=None, expect="reject"):
    def fn(outside):
        b = Builder()
        f = small_file(b, 1, ext=True, xattr=0)
        b.xattrs = sets
        b.kv_override = kv
        tree(b, [(b"f", f)], ino=2)
        img = bytearray(build(b))
        if ids is not None:
            xs = struct.unpack_from("<Q", img, 56)[0]
            md = struct.unpack_from("<Q", img, xs + 16)[0]
            for off, (fmt, val) in ids.items():
                struct.pack_into(fmt, img, md + 2 + off, val)
        return bytes(img)
    return expect, fn


CASES["xattr_count_huge"] = xattr_case([[(0, b"a", b"b")]],
                                       ids={8: ("<I", 0xFFFFFFFF)})
CASES["xattr_ref_oob"] = xattr_case([[(0, b"a", b"b")]],
                                    ids={0: ("<Q", 0x7FFF0000 << 16)})
CASES["xattr_ref_offset"] = xattr_case([[(0, b"a", b"b")]],
                                       ids={0: ("<Q", 8192)})
CASES["xattr_ool_bad_size"] = xattr_case(
    [[(0, b"a", b"b")]], kv=struct.pack("<HH", 0x100, 1) + b"a" +
    struct.pack("<I", 4) + b"abcd")
CASES["xattr_ool_ref_oob"] = xattr_case(
    [[(0x100, b"a", ("ool", 0x7FFF << 16))]])
CASES["xattr_ool_self"] = xattr_case(
    [[(0x100, b"a", ("ool", 0))]], expect="any")
CASES["xattr_name_huge"] = xattr_case(
    [[(0, b"a", b"b")]], kv=struct.pack("<HH", 0, 0xFFFF) + b"a" * 20)
CASES["xattr_value_huge"] = xattr_case(
    [[(0, b"a", b"b")]], kv=struct.pack("<HH", 0, 1) + b"a" +
    struct.pack("<I", 0xFFFFFFFF) + b"v" * 20)
CASES["xattr_type_bits"] = xattr_case([[(0x8200, b"a", b"b")]],
                                      expect="any")
CASES["xattr_name_empty"] = xattr_case([[(0, b"", b"b")]], expect="any")


@case("reject")
def s_xattr_ids_zero(outside):
    b = Builder()
    f = small_file(b, 1, ext=True, xattr=0)
    b.xattrs = [[(0, b"a", b"b")]]
    tree(b, [(b"f", f)], ino=2)
    img = bytearray(build(b))
    xs = struct.unpack_from("<Q", img, 56)[0]
    struct.pack_into("<I", img, xs + 8, 0)
    return bytes(img)


# ------------------------------------------------------------ bombs

def comp_builder(comp, block_size=4096):
    opts = struct.pack("<II", 1, 0) if comp == COMP_LZ4 else None
    return Builder(block_size=block_size, comp=comp, comp_opts=opts)


def bomb_data(comp, total, frag=False):
    """A data or fragment block inflating to total bytes (the block size
    is 128 KiB, so that a 16 MiB bomb fits a block)."""
    def fn(outside):
        bs = 1 << 17
        b = comp_builder(comp, bs)
        payload = bomb(comp, total, bs)
        if frag:
            f = b.add(Node("file", 1, file_size=100))
            f.frag = b.fragment(payload, raw=False)
        else:
            pos = b.block(payload)
            f = b.add(Node("file", 1, blocks_start=pos, file_size=bs,
                           words=[len(payload)]))
        tree(b, [(b"bomb", f)], ino=2)
        return build(b)
    return "reject", fn


def bomb_md(comp, total, table):
    def fn(outside):
        b = comp_builder(comp)
        f = small_file(b, 1)
        root = tree(b, [(b"f", f)], ino=2)
        b.build()
        payload = bomb(comp, total)
        blk = struct.pack("<H", len(payload)) + payload
        if table == "inode":
            b.inode_table_override = blk
        elif table == "dir":
            b.dir_table_override = blk
        else:
            b.id_table_override = blk
        del root
        return build(b)
    return "reject", fn


for _c, _n in ((COMP_GZIP, "gzip"), (COMP_XZ, "xz"), (COMP_ZSTD, "zstd"),
               (COMP_LZ4, "lz4")):
    CASES["bomb_data_16m_" + _n] = bomb_data(_c, 16 * MIB)
    CASES["bomb_data_bs1_" + _n] = bomb_data(_c, (1 << 17) + 1)
    CASES["bomb_data_short_" + _n] = bomb_data(_c, (1 << 17) - 96)
    CASES["bomb_frag_1m_" + _n] = bomb_data(_c, MIB, frag=True)
    CASES["bomb_md_inode_1m_" + _n] = bomb_md(_c, MIB, "inode")
    CASES["bomb_md_inode_8193_" + _n] = bomb_md(_c, 8193, "inode")
    CASES["bomb_md_dir_64k_" + _n] = bomb_md(_c, 65536, "dir")
    CASES["bomb_md_id_64k_" + _n] = bomb_md(_c, 65536, "id")


@case("reject")
def s_bomb_zstd_fcs_lie(outside):
    """A frame claiming 4096 bytes that produces 1 MiB."""
    from sqfs_format import zstd_rle_bomb
    b = comp_builder(COMP_ZSTD)
    payload = zstd_rle_bomb(MIB, claim=4096)
    pos = b.block(payload)
    f = b.add(Node("file", 1, blocks_start=pos, file_size=4096,
                   words=[len(payload)]))
    tree(b, [(b"bomb", f)], ino=2)
    return build(b)


@case("reject")
def s_md_header_zero(outside):
    b = Builder()
    f = small_file(b, 1)
    root = tree(b, [(b"f", f)], ino=2)
    b.build()
    b.inode_table_override = b"\x00\x00" + md_encode(
        b"".join(n.encode() for n in b.nodes))[2:]
    del root
    return build(b)


@case("reject")
def s_md_header_8193(outside):
    b = Builder()
    f = small_file(b, 1)
    tree(b, [(b"f", f)], ino=2)
    b.build()
    stream = b"".join(n.encode() for n in b.nodes)
    b.inode_table_override = struct.pack("<H", 0x8000 | 8193) + \
        stream + bytes(8193 - len(stream))
    return build(b)


@case("reject")
def s_md_short_middle_block(outside):
    """A stream whose first md-block is short (every block but the last
    must hold 8192 bytes), so refs past it point nowhere."""
    b = Builder()
    files = [small_file(b, i + 1, b"%d\n" % i) for i in range(300)]
    tree(b, [(b"f%03d" % i, f) for i, f in enumerate(files)], ino=301)
    b.build()
    stream = b"".join(n.encode() for n in b.nodes)
    b.inode_table_override = md_encode(stream[:100]) + md_encode(
        stream[100:])
    return build(b)


def all_cases():
    return sorted(CASES.items())


__all__ = ["CASES", "all_cases", "md_ref", "NONE32"]

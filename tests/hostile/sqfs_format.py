# SPDX-License-Identifier: MIT
"""A small SquashFS 4.0 codec for the hostile-image tests.

Two halves, both written from the SquashFS 4.0 on-disk format (the
library's constants are in lib/sqfs/format_internal.h):

* Image: a tolerant parser of a *valid* image that locates what the
  mutator aims at: the superblock fields, the regions of every table, the
  md-block headers of each stream, and (for raw, gzip or xz metadata) the
  decoded inodes and directory listings with the file offsets of their
  fields.
* Builder: a writer of complete small images with raw (uncompressed)
  md-blocks, which does exactly what it is told, so that it can also
  write what no sane writer would: loops, bad names, unsorted listings,
  impossible sizes.
"""

import lzma
import struct
import zlib

MAGIC = 0x73717368
MD_SIZE = 8192
NONE32 = 0xFFFFFFFF
NONE64 = 0xFFFFFFFFFFFFFFFF

COMP_GZIP, COMP_LZMA, COMP_LZO, COMP_XZ, COMP_LZ4, COMP_ZSTD = 1, 2, 3, 4, 5, 6

SB_FMT = "<IIIIIHHHHHHQQQQQQQQ"
SB_FIELDS = ("magic", "inodes", "mkfs_time", "block_size", "fragments",
             "compression", "block_log", "flags", "no_ids", "major", "minor",
             "root_inode", "bytes_used", "id_table_start",
             "xattr_id_table_start", "inode_table_start",
             "directory_table_start", "fragment_table_start",
             "lookup_table_start")
assert struct.calcsize(SB_FMT) == 96

# offset and struct format of every superblock field
SB_OFFSETS = {}
_off = 0
for _name, _f in zip(SB_FIELDS, SB_FMT[1:]):
    SB_OFFSETS[_name] = (_off, "<" + _f)
    _off += struct.calcsize(_f)

DIR, FILE, SLINK, BDEV, CDEV, FIFO, SOCK = range(1, 8)
KIND_TYPE = {"dir": DIR, "file": FILE, "slink": SLINK, "bdev": BDEV,
             "cdev": CDEV, "fifo": FIFO, "sock": SOCK}


def u16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


# ------------------------------------------------------------------ codecs

def decompress(comp, payload, limit=1 << 24):
    """Decode one block with the image's compressor; None if Python
    cannot (zstd, lz4, lzo) or the stream is bad."""
    try:
        if comp == COMP_GZIP:
            d = zlib.decompressobj()
            out = d.decompress(payload, limit)
            return out
        if comp == COMP_XZ:
            return lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(
                payload, limit)
        if comp == COMP_LZMA:
            return lzma.LZMADecompressor(lzma.FORMAT_ALONE).decompress(
                payload, limit)
    except (zlib.error, lzma.LZMAError, EOFError):
        return None
    return None


def compress(comp, data, block_size=131072):
    """Encode data with comp (gzip or xz); None for the others."""
    if comp == COMP_GZIP:
        return zlib.compress(data, 9)
    if comp == COMP_XZ:
        dict_size = max(4096, min(block_size, 1 << 20))
        return lzma.compress(data, format=lzma.FORMAT_XZ,
                             check=lzma.CHECK_CRC32,
                             filters=[{"id": lzma.FILTER_LZMA2,
                                       "preset": 9,
                                       "dict_size": dict_size}])
    return None


def zstd_rle_bomb(total, claim=None):
    """A zstd frame of RLE blocks inflating to total bytes of 'A' (at most
    128 KiB a block), optionally with a frame content size of claim."""
    out = bytearray(b"\x28\xb5\x2f\xfd")
    if claim is None:
        out += bytes([0x00, 0x38])  # no FCS, window 128 KiB
    else:
        out += bytes([0xC0, 0x38]) + struct.pack("<Q", claim)
    left = total
    while left > 0:
        n = min(left, 1 << 17)
        left -= n
        hdr = (n << 3) | (1 << 1) | (1 if left == 0 else 0)
        out += struct.pack("<I", hdr)[:3] + b"A"
    return bytes(out)


def lz4_bomb(total):
    """A raw LZ4 block whose one long match inflates to about total
    bytes."""
    mlen = max(total - 6, 19)
    rest = mlen - 19
    out = bytearray([0x1F, 0x41, 0x01, 0x00])  # 1 literal, offset 1
    out += b"\xff" * (rest // 255) + bytes([rest % 255])
    out += bytes([0x50]) + b"BBBBB"  # the closing literal-only sequence
    return bytes(out)


def bomb(comp, total, block_size=4096):
    """A block of comp that inflates to total bytes (zeros or 'A')."""
    if comp in (COMP_GZIP, COMP_XZ):
        return compress(comp, bytes(total), block_size)
    if comp == COMP_LZMA:
        return lzma.compress(bytes(total), format=lzma.FORMAT_ALONE)
    if comp == COMP_ZSTD:
        return zstd_rle_bomb(total)
    if comp == COMP_LZ4:
        return lz4_bomb(total)
    return None


# ------------------------------------------------------------------ parser

class MdBlock:
    def __init__(self, pos, header, dec_start, data):
        self.pos = pos              # file offset of the u16 header
        self.header = header
        self.length = header & 0x7FFF
        self.raw = bool(header & 0x8000)
        self.dec_start = dec_start  # offset of its first byte in the stream
        self.data = data            # decoded bytes, None if unknown


class Stream:
    """An md-block stream: its blocks and, when decodable, its bytes."""

    def __init__(self, img, start, end):
        self.start = start
        self.blocks = []
        self.decoded = True
        buf = bytearray()
        pos = start
        while pos + 2 <= end and pos + 2 <= len(img.data):
            hdr = u16(img.data, pos)
            n = hdr & 0x7FFF
            if n == 0 or n > MD_SIZE or pos + 2 + n > len(img.data):
                break
            payload = bytes(img.data[pos + 2:pos + 2 + n])
            data = payload if hdr & 0x8000 else decompress(img.comp, payload)
            if data is None or len(data) > MD_SIZE:
                self.decoded = False
                data = None
            self.blocks.append(MdBlock(pos, hdr, len(buf), data))
            if data is not None:
                buf += data
            pos += 2 + n
        self.end = pos
        self.bytes = bytes(buf) if self.decoded else None

    def rel_to_dec(self, rel):
        """Stream offset of the block at relative position rel."""
        for b in self.blocks:
            if b.pos - self.start == rel:
                return b.dec_start
        return None

    def file_pos(self, dec):
        """File offset of decoded byte dec, if its block is stored raw."""
        for b in self.blocks:
            if b.data is not None and \
                    b.dec_start <= dec < b.dec_start + len(b.data):
                return b.pos + 2 + dec - b.dec_start if b.raw else None
        return None


class Field:
    """One integer field of a decoded structure, for in-place edits."""

    def __init__(self, name, dec, fmt):
        self.name, self.dec, self.fmt = name, dec, fmt


class Image:
    def __init__(self, data):
        self.data = bytearray(data)
        if len(data) < 96:
            raise ValueError("too short for a superblock")
        vals = struct.unpack_from(SB_FMT, data, 0)
        self.sb = dict(zip(SB_FIELDS, vals))
        if self.sb["magic"] != MAGIC:
            raise ValueError("not a SquashFS 4.0 image")
        self.comp = self.sb["compression"]
        self.block_size = self.sb["block_size"]
        self.size = len(data)
        self.regions = {"super": (0, 96)}
        self.tables = {}     # name -> (index_pos, nblocks, md_start)
        self.md_headers = {}  # region name -> [header positions]
        data_start = 96
        if self.sb["flags"] & 0x0400 and len(data) >= 98:
            n = u16(data, 96) & 0x7FFF
            self.regions["options"] = (96, 98 + n)
            self.md_headers["options"] = [96]
            data_start = 98 + n
        self._lookup("fragment", self.sb["fragment_table_start"],
                      self.sb["fragments"], 16)
        if self.sb["lookup_table_start"] != NONE64:
            self._lookup("export", self.sb["lookup_table_start"],
                         self.sb["inodes"], 8)
        self._lookup("id", self.sb["id_table_start"], self.sb["no_ids"], 4)
        self.kv_start = None
        xs = self.sb["xattr_id_table_start"]
        if xs != NONE64 and xs + 16 <= len(data):
            self.kv_start = u64(data, xs)
            nx = u32(data, xs + 8)
            self.xattr_ids = nx
            self._lookup("xattr", xs + 16, nx, 16, header=xs)
            self.md_headers["xattr_kv"] = []
        ino = self.sb["inode_table_start"]
        dirs = self.sb["directory_table_start"]
        self.regions["data"] = (data_start, ino)
        self.regions["inode"] = (ino, dirs)
        ends = [t[2] for t in self.tables.values() if t[2] > dirs]
        if self.kv_start is not None:
            ends.append(self.kv_start)
        dir_end = min(ends) if ends else self.sb["bytes_used"]
        self.regions["dir"] = (dirs, dir_end)
        self.inode_stream = Stream(self, ino, dirs)
        self.dir_stream = Stream(self, dirs, dir_end)
        self.md_headers["inode"] = [b.pos for b in self.inode_stream.blocks]
        self.md_headers["dir"] = [b.pos for b in self.dir_stream.blocks]
        if self.kv_start is not None:
            end = self.tables["xattr"][2]
            self.regions["xattr_kv"] = (self.kv_start, end)
            kv = Stream(self, self.kv_start, end)
            self.md_headers["xattr_kv"] = [b.pos for b in kv.blocks]
        self.inodes = []
        self.listings = []
        self.frag_entries = []
        if self.inode_stream.decoded:
            self._parse_inodes()
        if self.dir_stream.decoded:
            self._parse_listings()
        self._parse_fragments()

    def _lookup(self, name, index_pos, count, esize, header=None):
        nblocks = (count * esize + MD_SIZE - 1) // MD_SIZE
        if count == 0 or index_pos + 8 * nblocks > len(self.data):
            return
        first = u64(self.data, index_pos)
        if first >= index_pos:
            return
        self.tables[name] = (index_pos, nblocks, first)
        end = index_pos + 8 * nblocks
        self.regions[name] = (first, end)
        self.regions[name + "_index"] = (header if header else index_pos,
                                         end)
        self.md_headers[name] = [u64(self.data, index_pos + 8 * i)
                                 for i in range(nblocks)]

    # -------------------------------------------------------------- inodes

    def _parse_inodes(self):
        s = self.inode_stream.bytes
        off = 0
        while off + 16 <= len(s):
            t = u16(s, off)
            f = [Field("type", off, "<H"), Field("mode", off + 2, "<H"),
                 Field("uid", off + 4, "<H"), Field("gid", off + 6, "<H"),
                 Field("mtime", off + 8, "<I"),
                 Field("inode_number", off + 12, "<I")]
            rec = {"off": off, "type": t, "fields": f}
            if t == 1:
                f += [Field("start_block", off + 16, "<I"),
                      Field("nlink", off + 20, "<I"),
                      Field("file_size", off + 24, "<H"),
                      Field("offset", off + 26, "<H"),
                      Field("parent", off + 28, "<I")]
                if off + 32 > len(s):
                    break
                rec.update(start_block=u32(s, off + 16),
                           size=u16(s, off + 24), offset=u16(s, off + 26))
                size = 32
            elif t == 8:
                f += [Field("nlink", off + 16, "<I"),
                      Field("file_size", off + 20, "<I"),
                      Field("start_block", off + 24, "<I"),
                      Field("parent", off + 28, "<I"),
                      Field("i_count", off + 32, "<H"),
                      Field("offset", off + 34, "<H"),
                      Field("xattr", off + 36, "<I")]
                if off + 40 > len(s):
                    break
                rec.update(start_block=u32(s, off + 24),
                           size=u32(s, off + 20), offset=u16(s, off + 34))
                size = 40
                for _ in range(u16(s, off + 32)):
                    if off + size + 12 > len(s):
                        return
                    f += [Field("index_index", off + size, "<I"),
                          Field("index_start", off + size + 4, "<I"),
                          Field("index_size", off + size + 8, "<I")]
                    size += 12 + u32(s, off + size + 8) + 1
            elif t in (2, 9):
                if t == 2:
                    if off + 32 > len(s):
                        break
                    start, frag, fsize = (u32(s, off + 16), u32(s, off + 20),
                                          u32(s, off + 28))
                    f += [Field("blocks_start", off + 16, "<I"),
                          Field("fragment", off + 20, "<I"),
                          Field("frag_offset", off + 24, "<I"),
                          Field("file_size", off + 28, "<I")]
                    size = 32
                else:
                    if off + 56 > len(s):
                        break
                    start, fsize, frag = (u64(s, off + 16), u64(s, off + 24),
                                          u32(s, off + 44))
                    f += [Field("blocks_start", off + 16, "<Q"),
                          Field("file_size", off + 24, "<Q"),
                          Field("sparse", off + 32, "<Q"),
                          Field("nlink", off + 40, "<I"),
                          Field("fragment", off + 44, "<I"),
                          Field("frag_offset", off + 48, "<I"),
                          Field("xattr", off + 52, "<I")]
                    size = 56
                bs = self.block_size or 1
                n = fsize // bs if frag != NONE32 else -(-fsize // bs)
                if off + size + 4 * n > len(s):
                    break
                words = [u32(s, off + size + 4 * i) for i in range(n)]
                for i in range(n):
                    f.append(Field("block_word", off + size + 4 * i, "<I"))
                rec.update(blocks_start=start, file_size=fsize, words=words,
                           frag=frag)
                size += 4 * n
            elif t in (3, 10):
                if off + 24 > len(s):
                    break
                n = u32(s, off + 20)
                f += [Field("nlink", off + 16, "<I"),
                      Field("symlink_size", off + 20, "<I")]
                rec["target_off"] = off + 24
                size = 24 + n + (4 if t == 10 else 0)
                if t == 10:
                    f.append(Field("xattr", off + 24 + n, "<I"))
            elif t in (4, 5, 11, 12):
                f += [Field("nlink", off + 16, "<I"),
                      Field("rdev", off + 20, "<I")]
                size = 24
                if t > 7:
                    f.append(Field("xattr", off + 24, "<I"))
                    size = 28
            elif t in (6, 7, 13, 14):
                f.append(Field("nlink", off + 16, "<I"))
                size = 20
                if t > 7:
                    f.append(Field("xattr", off + 20, "<I"))
                    size = 24
            else:
                break
            if off + size > len(s):
                break
            rec["size"] = size
            self.inodes.append(rec)
            off += size

    def _parse_listings(self):
        s = self.dir_stream.bytes
        for rec in self.inodes:
            if rec["type"] not in (1, 8) or rec["size"] <= 3:
                continue
            base = self.dir_stream.rel_to_dec(rec["start_block"])
            if base is None:
                continue
            pos = base + rec["offset"]
            end = pos + rec["size"] - 3
            listing = {"start": pos, "end": end, "headers": [],
                       "entries": []}
            while pos + 12 <= min(end, len(s)):
                count = u32(s, pos) + 1
                listing["headers"].append(
                    [Field("count", pos, "<I"),
                     Field("start_block", pos + 4, "<I"),
                     Field("inode_number", pos + 8, "<I")])
                pos += 12
                for _ in range(count):
                    if pos + 8 > len(s):
                        break
                    n = u16(s, pos + 6) + 1
                    listing["entries"].append({
                        "pos": pos, "name_pos": pos + 8, "name_len": n,
                        "fields": [Field("offset", pos, "<H"),
                                   Field("delta", pos + 2, "<H"),
                                   Field("etype", pos + 4, "<H"),
                                   Field("name_size", pos + 6, "<H")]})
                    pos += 8 + n
                if count > 256:
                    break
            self.listings.append(listing)

    def _parse_fragments(self):
        t = self.tables.get("fragment")
        if not t:
            return
        stream = Stream(self, t[2], t[0])
        if not stream.decoded:
            return
        s = stream.bytes
        for i in range(min(self.sb["fragments"], len(s) // 16)):
            self.frag_entries.append((u64(s, 16 * i), u32(s, 16 * i + 8)))

    def data_blocks(self):
        """(file offset, on-disk length, raw) of every data and fragment
        block the decoded tables name."""
        seen = set()
        out = []
        for rec in self.inodes:
            if "words" not in rec:
                continue
            pos = rec["blocks_start"]
            for w in rec["words"]:
                n = w & 0xFFFFFF
                if w and pos not in seen:
                    seen.add(pos)
                    out.append((pos, n, bool(w & 0x1000000)))
                pos += n
        for start, w in self.frag_entries:
            if start not in seen:
                seen.add(start)
                out.append((start, w & 0xFFFFFF, bool(w & 0x1000000)))
        return [b for b in out if b[0] + b[1] <= self.size]

    def put(self, pos, fmt, value):
        struct.pack_into(fmt, self.data, pos,
                         value & ((1 << (8 * struct.calcsize(fmt))) - 1))

    def set_sb(self, name, value):
        off, fmt = SB_OFFSETS[name]
        self.put(off, fmt, value)


# ----------------------------------------------------------------- builder

class Node:
    """One inode to write. kind is dir, file, slink, bdev, cdev, fifo or
    sock; ext picks the extended layout. A directory's entries are
    (name, node) pairs or (name, node, fields) with fields overriding the
    entry's "type", "inode_number", "ref" or "name_size"."""

    def __init__(self, kind, ino, ext=False, mode=None, uid=0, gid=0,
                 mtime=1700000000, nlink=1, xattr=NONE32, **kw):
        self.kind = kind
        self.ino = ino
        self.ext = ext
        self.mode = mode if mode is not None else (
            0o755 if kind == "dir" else 0o644)
        self.uid, self.gid, self.mtime = uid, gid, mtime
        self.nlink, self.xattr = nlink, xattr
        self.entries = kw.pop("entries", [])
        self.sort = kw.pop("sort", True)
        self.parent = kw.pop("parent", 0)
        self.index = kw.pop("index", None)   # [(index, start, name)]
        self.size_override = kw.pop("size_override", None)
        self.listing_override = kw.pop("listing_override", None)
        self.type_override = kw.pop("type_override", None)
        self.file_size = kw.pop("file_size", 0)
        self.blocks_start = kw.pop("blocks_start", 0)
        self.words = kw.pop("words", [])
        self.frag = kw.pop("frag", NONE32)
        self.frag_off = kw.pop("frag_off", 0)
        self.sparse = kw.pop("sparse", 0)
        self.target = kw.pop("target", b"")
        self.rdev = kw.pop("rdev", 0)
        self.raw = kw.pop("raw", None)   # complete inode bytes
        if kw:
            raise TypeError("unknown node fields: %s" % ", ".join(kw))
        # set by the builder
        self.ref = 0
        self.dir_start = 0
        self.dir_offset = 0
        self.listing_len = 0
        self.auto_index = []

    def type(self):
        if self.type_override is not None:
            return self.type_override
        return KIND_TYPE[self.kind] + (7 if self.ext else 0)

    def encode(self):
        if self.raw is not None:
            return self.raw
        t = self.type()
        hdr = struct.pack("<HHHHII", t, self.mode, self.uid, self.gid,
                          self.mtime, self.ino)
        size = self.listing_len + 3
        if self.size_override is not None:
            size = self.size_override
        if self.kind == "dir" and not self.ext:
            return hdr + struct.pack("<IIHHI", self.dir_start, self.nlink,
                                     size & 0xFFFF, self.dir_offset,
                                     self.parent)
        if self.kind == "dir":
            idx = self.auto_index if self.index == "auto" else \
                (self.index or [])
            out = hdr + struct.pack("<IIIIHHI", self.nlink, size,
                                    self.dir_start, self.parent, len(idx),
                                    self.dir_offset, self.xattr)
            for index, start, name in idx:
                out += struct.pack("<III", index, start, len(name) - 1) + name
            return out
        words = b"".join(struct.pack("<I", w) for w in self.words)
        if self.kind == "file" and not self.ext:
            return hdr + struct.pack("<IIII", self.blocks_start, self.frag,
                                     self.frag_off, self.file_size) + words
        if self.kind == "file":
            return hdr + struct.pack("<QQQIIII", self.blocks_start,
                                     self.file_size, self.sparse, self.nlink,
                                     self.frag, self.frag_off,
                                     self.xattr) + words
        if self.kind == "slink":
            out = hdr + struct.pack("<II", self.nlink,
                                    len(self.target)) + self.target
            return out + (struct.pack("<I", self.xattr) if self.ext else b"")
        if self.kind in ("bdev", "cdev"):
            out = hdr + struct.pack("<II", self.nlink, self.rdev)
        else:
            out = hdr + struct.pack("<I", self.nlink)
        return out + (struct.pack("<I", self.xattr) if self.ext else b"")


def md_ref(pos):
    """The ref of stream offset pos when every md-block is raw and full."""
    return ((pos // MD_SIZE) * (MD_SIZE + 2) << 16) | (pos % MD_SIZE)


def md_encode(stream):
    """Cut a stream into raw md-blocks."""
    out = bytearray()
    for i in range(0, len(stream), MD_SIZE):
        chunk = stream[i:i + MD_SIZE]
        out += struct.pack("<H", 0x8000 | len(chunk)) + chunk
    return bytes(out)


class Builder:
    """Write an image from Nodes (in inode-table order). Everything is
    laid out in the usual order (superblock, compressor options, data,
    inode, directory, fragment, export, id and xattr tables) unless an
    override is given."""

    def __init__(self, block_size=4096, comp=COMP_GZIP, comp_opts=None):
        self.block_size = block_size
        self.comp = comp
        self.comp_opts = comp_opts      # options payload bytes
        self.nodes = []
        self.root = None
        self.data = bytearray()
        self.ids = [0]
        self.frags = []                 # (start, size word)
        self.xattrs = []                # sets: [(type, name, value)]
        self.export = False
        self.inode_count = None
        self.root_ref = None
        self.sb_override = {}
        self.inode_table_override = None   # encoded md bytes
        self.dir_table_override = None
        self.id_table_override = None      # encoded md bytes of the ids
        self.kv_override = None            # decoded kv stream

    def add(self, node):
        self.nodes.append(node)
        return node

    def data_start(self):
        return 96 + (2 + len(self.comp_opts) if self.comp_opts else 0)

    def block(self, payload):
        """Append a data block; returns its absolute offset."""
        pos = self.data_start() + len(self.data)
        self.data += payload
        return pos

    def file_data(self, node, content, raw=True):
        """Store content as node's blocks (raw, or compressed where that
        is smaller); no fragment."""
        node.blocks_start = self.data_start() + len(self.data)
        node.file_size = len(content)
        node.words = []
        for i in range(0, len(content), self.block_size):
            chunk = content[i:i + self.block_size]
            c = None if raw else compress(self.comp, chunk, self.block_size)
            if c is not None and len(c) < len(chunk):
                self.data += c
                node.words.append(len(c))
            else:
                self.data += chunk
                node.words.append(len(chunk) | 0x1000000)

    def fragment(self, payload, raw=True):
        """Append a fragment block; returns its index."""
        pos = self.block(payload)
        word = len(payload) | (0x1000000 if raw else 0)
        self.frags.append((pos, word))
        return len(self.frags) - 1

    @staticmethod
    def listing(d):
        """The runs of d's listing, and the offset and
        first name of each run."""
        ents = []
        for e in d.entries:
            name, node = e[0], e[1]
            fields = e[2] if len(e) > 2 else {}
            ents.append((name, node, fields))
        if d.sort:
            ents.sort(key=lambda e: e[0])
        out = bytearray()
        runs = []
        i = 0
        while i < len(ents):
            ref0 = ents[i][2].get("ref", ents[i][1].ref)
            base = ents[i][2].get("inode_number", ents[i][1].ino)
            run = []
            while i < len(ents) and len(run) < 256:
                ref = ents[i][2].get("ref", ents[i][1].ref)
                num = ents[i][2].get("inode_number", ents[i][1].ino)
                if ref >> 16 != ref0 >> 16 or \
                        not -32768 <= num - base <= 32767:
                    break
                run.append(ents[i])
                i += 1
            runs.append((len(out), run[0][0]))
            out += struct.pack("<III", len(run) - 1, ref0 >> 16,
                               base & NONE32)
            for name, node, f in run:
                ref = f.get("ref", node.ref)
                num = f.get("inode_number", node.ino)
                typ = f.get("type", KIND_TYPE.get(node.kind, 2))
                nsize = f.get("name_size", len(name) - 1)
                out += struct.pack("<HhHH", ref & 0xFFFF, num - base, typ,
                                   nsize & 0xFFFF) + name
        return bytes(out), runs

    @staticmethod
    def lookup(entries, at):
        """A lookup table (§5) of entries whose md-blocks start at offset
        at; returns (md-blocks, index array)."""
        md = bytearray()
        index = bytearray()
        for i in range(0, len(entries), MD_SIZE):
            index += struct.pack("<Q", at + len(md))
            chunk = entries[i:i + MD_SIZE]
            md += struct.pack("<H", 0x8000 | len(chunk)) + chunk
        return bytes(md), bytes(index)

    def table(self, img, entries):
        """Append a lookup table to img; returns its index position."""
        md, index = self.lookup(entries, len(img))
        img += md
        at = len(img)
        img += index
        return at

    def build(self, pad=True):
        # Inode sizes depend on placement only through an automatic
        # directory index, so a few rounds reach a fixed point.
        for _ in range(5):
            pos = 0
            changed = False
            for n in self.nodes:
                if n.ref != md_ref(pos):
                    changed = True
                n.ref = md_ref(pos)
                pos += len(n.encode())
            dirs = bytearray()
            for n in self.nodes:
                if n.kind != "dir":
                    continue
                lst, runs = self.listing(n)
                if n.listing_override is not None:
                    lst = n.listing_override
                n.listing_len = len(lst)
                ref = md_ref(len(dirs)) if lst else 0
                n.dir_start, n.dir_offset = ref >> 16, ref & 0xFFFF
                if n.index == "auto":
                    # an entry for every run, as gensquashfs writes
                    new = [(off, md_ref(len(dirs) + off) >> 16, name)
                           for off, name in runs]
                    changed |= new != n.auto_index
                    n.auto_index = new
                dirs += lst
            if not changed:
                break
        itab = b"".join(n.encode() for n in self.nodes)

        img = bytearray(96)
        if self.comp_opts:
            img += struct.pack("<H", 0x8000 | len(self.comp_opts))
            img += self.comp_opts
        img += self.data
        sb = {"magic": MAGIC, "mkfs_time": 1700000000,
              "block_size": self.block_size,
              "block_log": self.block_size.bit_length() - 1,
              "compression": self.comp, "major": 4, "minor": 0,
              "flags": (0x0400 if self.comp_opts else 0) |
              (0x0080 if self.export else 0),
              "fragments": len(self.frags), "no_ids": len(self.ids)}
        sb["inode_table_start"] = len(img)
        img += self.inode_table_override if \
            self.inode_table_override is not None else md_encode(itab)
        sb["directory_table_start"] = len(img)
        img += self.dir_table_override if \
            self.dir_table_override is not None else md_encode(dirs)
        if self.frags:
            ent = b"".join(struct.pack("<QII", s, w, 0)
                           for s, w in self.frags)
            sb["fragment_table_start"] = self.table(img, ent)
        else:
            sb["fragment_table_start"] = NONE64
        inodes = self.inode_count
        if inodes is None:
            inodes = max([n.ino for n in self.nodes] + [0])
        sb["inodes"] = inodes
        if self.export:
            refs = {}
            for n in self.nodes:
                refs.setdefault(n.ino, n.ref)
            ent = b"".join(struct.pack("<Q", refs.get(i, 0))
                           for i in range(1, inodes + 1))
            sb["lookup_table_start"] = self.table(img, ent)
        else:
            sb["lookup_table_start"] = NONE64
        if self.id_table_override is not None:
            at = len(img)
            img += self.id_table_override
            sb["id_table_start"] = len(img)
            img += struct.pack("<Q", at)
        else:
            ent = b"".join(struct.pack("<I", i & NONE32) for i in self.ids)
            sb["id_table_start"] = self.table(img, ent)
        if self.xattrs or self.kv_override is not None:
            kv, ids = self.encode_xattrs()
            if self.kv_override is not None:
                kv = self.kv_override
            kv_start = len(img)
            img += md_encode(kv)
            md, index = self.lookup(ids, len(img))
            img += md
            sb["xattr_id_table_start"] = len(img)
            img += struct.pack("<QII", kv_start, len(ids) // 16, 0) + index
        else:
            sb["xattr_id_table_start"] = NONE64
        sb["bytes_used"] = len(img)
        sb["root_inode"] = self.root.ref if self.root_ref is None \
            else self.root_ref
        sb.update(self.sb_override)
        img[0:96] = struct.pack(SB_FMT, *[sb[f] & ((1 << 64) - 1)
                                          for f in SB_FIELDS])
        if pad and len(img) % 4096:
            img += bytes(4096 - len(img) % 4096)
        return bytes(img)

    def encode_xattrs(self):
        """The kv stream and the xattr-id entries of every set; a value
        given as ("ool", ref) is written out of line to that kv ref."""
        kv = bytearray()
        ids = bytearray()
        for s in self.xattrs:
            ref = md_ref(len(kv))
            size = 0
            for typ, name, value in s:
                start = len(kv)
                kv += struct.pack("<HH", typ, len(name)) + name
                if isinstance(value, tuple):
                    kv += struct.pack("<IQ", 8, value[1])
                else:
                    kv += struct.pack("<I", len(value)) + value
                size += len(kv) - start
            ids += struct.pack("<QII", ref, len(s), size)
        return bytes(kv), bytes(ids)

#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Damage one member of a tar archive in one way.

    damage.py IN OUT KIND INDEX

Writes IN with member INDEX (0-based, in archive order; -1 for the last)
damaged by KIND, and prints four lines: the offset of that member's own
header (after any extension headers) in IN, the name of the member
before it ("" for the first), the member's own name, and the offset of
its first header (extension headers included). Kinds:

    checksum     one bit of the header flipped, its checksum left alone
    garbage      the header overwritten with bytes that are no header
    octal        a digit outside 0-7 in the mode field (checksum fixed)
    base256_uid  a negative base-256 uid (checksum fixed)
    base256_size a base-256 size that does not fit 64 bits (checksum
                 fixed)
    trunc_header the archive cut in the middle of the header
    trunc_data   the archive cut in the middle of the member's data
    sparse_map   the first run of the member's sparse map (old GNU
                 header) moved beyond the file's size (checksum fixed)
"""

import sys
import tarfile


def fix_checksum(h):
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)


def main():
    src, dst, kind, index = sys.argv[1], sys.argv[2], sys.argv[3], int(
        sys.argv[4])
    data = bytearray(open(src, "rb").read())
    with tarfile.open(src, "r:") as tf:
        members = tf.getmembers()
    m = members[index]
    prev = members[members.index(m) - 1].name if members.index(m) else ""
    # the entry's own header: after any extension headers
    hdr = m.offset_data - 512
    h = data[hdr:hdr + 512]
    if kind == "checksum":
        h[0] ^= 0x01
    elif kind == "garbage":
        h[:] = bytes((i * 7 + 13) & 0xFF for i in range(512))
    elif kind == "octal":
        h[100:108] = b"0009644\0"
        fix_checksum(h)
    elif kind == "base256_uid":
        h[108:116] = b"\xff" * 8
        fix_checksum(h)
    elif kind == "base256_size":
        h[124:136] = b"\x80" + b"\x01" + b"\x00" * 10
        fix_checksum(h)
    elif kind == "sparse_map":
        if h[156:157] != b"S":
            sys.exit("sparse_map: member %d is not an old GNU sparse "
                     "entry" % index)
        # the first sparse run's offset field, at 386
        h[386:398] = b"%011o\0" % (1 << 33)
        fix_checksum(h)
    elif kind == "trunc_header":
        data = data[:hdr + 200]
    elif kind == "trunc_data":
        if m.size < 2:
            sys.exit("trunc_data: member %d has no data to cut" % index)
        data = data[:m.offset_data + m.size // 2]
    else:
        sys.exit("unknown kind " + kind)
    if not kind.startswith("trunc"):
        data[hdr:hdr + 512] = h
    open(dst, "wb").write(data)
    print(hdr)
    print(prev)
    print(m.name)
    print(m.offset)


main()

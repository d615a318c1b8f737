#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Regenerate the seed corpus of the image fuzzer (tests/fuzz/corpus): small
# unpadded images from Debian's mksquashfs (one per compressor, plus raw
# metadata) and the valid hand-built images of tests/hostile, and the
# images inside an ELF, a SIF and after a prefix for sqfs_image_locate. Inputs are
# fixed, so running it again gives the same files. run-fuzz.sh adds the
# fixtures (tests/fixtures/*.sqfs) itself.
#
# Usage: tests/fuzz/make-corpus.sh [OUTDIR]   (default: tests/fuzz/corpus)
set -euo pipefail

MKSQUASHFS=${MKSQUASHFS:-/usr/bin/mksquashfs}
PYTHON=/usr/bin/python3
EPOCH=1700000000
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/corpus}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# two blocks and a tail at 4 KiB blocks, a fragment, a hard link, a
# symlink, an empty directory, an xattr
src=$work/src
mkdir -p "$src/d/empty"
seq 1 1100 >"$src/d/seq"
printf 'small\n' >"$src/small"
ln "$src/small" "$src/d/hard"
ln -s ../small "$src/d/link"
setfattr -n user.k -v value "$src/small" 2>/dev/null || true
find "$src" -exec touch -h -d "@$EPOCH" {} +

unset SOURCE_DATE_EPOCH
mks() { # NAME OPTIONS...
	local name=$1
	shift
	rm -f "$out/$name.sqfs"
	"$MKSQUASHFS" "$src" "$out/$name.sqfs" -b 4096 -nopad -noappend \
		-processors 1 -quiet -no-progress -mkfs-time "$EPOCH" \
		-all-time "$EPOCH" "$@" >/dev/null
}
mks mks-gzip -comp gzip
mks mks-xz -comp xz
mks mks-lzma -comp lzma
mks mks-lzo -comp lzo
mks mks-lz4 -comp lz4
mks mks-zstd -comp zstd -no-xattrs -no-exports
mks mks-raw -comp gzip -noI -noD -noF -noX -noId -always-use-fragments

# hand-built valid images, without their padding
"$PYTHON" "$here/../hostile/mutate.py" structured --out "$work/s" \
	--outside /nonexistent valid_gzip valid_xz valid_dir_index \
	symlink_chain xattr_unknown_prefix
for f in "$work"/s/s-*.sqfs; do
	"$PYTHON" -c '
import struct, sys
data = open(sys.argv[1], "rb").read()
used = struct.unpack_from("<Q", data, 40)[0]
open(sys.argv[2], "wb").write(data[:used])
' "$f" "$out/$(basename "$f")"
done
# sqfs_image_locate: one image after a hand-built 64-bit ELF executable
# (sections, a segment), in a SIF container, and after arbitrary bytes
"$PYTHON" - "$out/s-symlink_chain.sqfs" "$out" <<'PY'
import struct, sys
img = open(sys.argv[1], "rb").read()
out = sys.argv[2]
# ELF64 LE: header, 1 program header at 64, 3 section headers at 200,
# one section's data at 500 (100 bytes); the image at 600
elf = bytearray(600)
elf[0:7] = b"\x7fELF\x02\x01\x01"
struct.pack_into("<HHIQQQIHHHHHH", elf, 16, 2, 62, 1, 0, 64, 200, 0,
                 64, 56, 1, 64, 3, 0)
struct.pack_into("<IIQQQQQQ", elf, 64, 1, 5, 0, 0, 0, 500, 500, 4096)
struct.pack_into("<IIQQQQIIQQ", elf, 200 + 64, 0, 1, 0, 0, 500, 100, 0, 0,
                 1, 0)
struct.pack_into("<IIQQQQIIQQ", elf, 200 + 128, 0, 8, 0, 0, 500, 9999, 0,
                 0, 1, 0)
open(out + "/loc-elf.bin", "wb").write(bytes(elf) + img)
# SIF: header, 2 descriptors at 128 (the second the squashfs partition),
# the image at 2048
sif = bytearray(2048)
sif[0:31] = b"#!/usr/bin/env run-singularity\n"
sif[32:42] = b"SIF_MAGIC\0"
sif[42:48] = b"01\x0002\0"
struct.pack_into("<qqqqqq", sif, 80, 0, 2, 128, 2 * 585, 2048, len(img))
struct.pack_into("<iBIIIqqq", sif, 128, 0x4001, 1, 1, 0, 0, 1900, 10, 10)
struct.pack_into("<iBIIIqqq", sif, 128 + 585, 0x4004, 1, 2, 0, 0, 2048,
                 len(img), len(img))
struct.pack_into("<ii", sif, 128 + 585 + 201, 1, 2)
open(out + "/loc-sif.bin", "wb").write(bytes(sif) + img)
open(out + "/loc-prefix.bin", "wb").write(b"hsqs" + bytes(range(256)) + img)
PY
ls -l "$out"

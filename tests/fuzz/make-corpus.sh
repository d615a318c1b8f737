#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Regenerate the seed corpus of the image fuzzer (tests/fuzz/corpus): small
# unpadded images from Debian's mksquashfs (one per compressor, plus raw
# metadata) and the valid hand-built images of tests/hostile. Inputs are
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
ls -l "$out"

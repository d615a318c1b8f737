#!/bin/bash
# Packs a corpus tarball with our tar2sqfs and with Debian's (squashfs-tools-ng)
# for every compressor at the same block size, and prints the image sizes
# (bytes_used from the superblock) side by side.
#   scripts/corpus-sizes.sh BUILD_DIR TARBALL [BLOCK_SIZE]
set -euo pipefail
build=$1 tarball=$2 bs=${3:-131072}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/sqfs-sizes.XXXXXX")
trap 'rm -rf "$work"' EXIT
bytes_used() { od -An -t u8 -j 40 -N 8 "$1" | tr -d ' '; }
printf '%-6s %14s %14s %9s %8s %8s\n' compressor ours debian ratio t_ours t_deb
for comp in gzip xz lzma lz4 zstd lzo; do
	s=$(date +%s.%N)
	"$build/tar2sqfs" -q -j 1 -c "$comp" -b "$bs" "$work/ours.sqfs" <"$tarball"
	m=$(date +%s.%N)
	/usr/bin/tar2sqfs -q -j 1 -c "$comp" -b "$bs" "$work/deb.sqfs" <"$tarball"
	e=$(date +%s.%N)
	a=$(bytes_used "$work/ours.sqfs") b=$(bytes_used "$work/deb.sqfs")
	printf '%-6s %14d %14d %9.5f %8.1f %8.1f\n' "$comp" "$a" "$b" \
		"$(echo "$a / $b" | bc -l)" "$(echo "$m - $s" | bc -l)" "$(echo "$e - $m" | bc -l)"
	rm -f "$work"/*.sqfs
done

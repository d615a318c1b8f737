#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# scripts/mount-bench-lists.py: the file lists of scripts/benchmark-mount.sh,
# drawn from the source tree (not from a mount) with a fixed seed, so that
# every mounter reads the very same files in the very same order.
#
# Usage: mount-bench-lists.py TREE OUTDIR [SEED]
#
# Writes into OUTDIR (paths relative to TREE, "./usr/...", NUL-terminated,
# for `xargs -0` and `tar --null -T`):
#   random.lst      every regular file, shuffled
#   random-500.lst  the first 500 of random.lst
#   par-read-N.lst  random.lst dealt into 4 parts (N = 0..3), one per reader
#   par-tar-N.lst   every regular file in tree order (as tar and readdir
#                   see a SquashFS directory: names sorted bytewise), cut
#                   into 4 contiguous runs of about the same byte count
#   import.lst      2,000 files drawn at random, visited in tree order (an
#                   "import" walk touches scattered files, but in the order
#                   a walk meets them)
#   bytes.tsv       pattern <TAB> bytes the pattern reads from the files
#                   (the divisor of the daemon's CPU time per byte)
import os
import random
import sys


def walk(tree):
    files = []  # (components, relative path, size, (dev, ino))
    for root, dirs, names in os.walk(tree):
        dirs.sort()
        for name in names:
            full = os.path.join(root, name)
            st = os.lstat(full)
            if not os.path.isfile(full) or os.path.islink(full):
                continue
            rel = "./" + os.path.relpath(full, tree)
            files.append((rel.encode().split(b"/"), rel, st.st_size,
                          (st.st_dev, st.st_ino)))
    files.sort(key=lambda f: f[0])
    return files


def write(path, entries):
    with open(path, "wb") as out:
        for f in entries:
            out.write(f[1].encode() + b"\0")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: mount-bench-lists.py TREE OUTDIR [SEED]")
    tree, outdir = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 23
    files = walk(tree)
    if len(files) < 2000:
        sys.exit("%s: only %d regular files (2,000 needed)" % (tree, len(files)))
    os.makedirs(outdir, exist_ok=True)
    total = lambda fs: sum(f[2] for f in fs)

    shuffled = list(files)
    random.Random(seed).shuffle(shuffled)
    write(os.path.join(outdir, "random.lst"), shuffled)
    write(os.path.join(outdir, "random-500.lst"), shuffled[:500])
    for n in range(4):
        write(os.path.join(outdir, "par-read-%d.lst" % n), shuffled[n::4])

    # contiguous runs of the tree order, cut at every quarter of the bytes
    all_bytes, acc, cut, chunks = total(files), 0, 1, [[]]
    for f in files:
        if acc >= all_bytes * cut / 4 and cut < 4:
            chunks.append([])
            cut += 1
        chunks[-1].append(f)
        acc += f[2]
    while len(chunks) < 4:
        chunks.append([])
    par_tar = 0
    for n, chunk in enumerate(chunks):
        write(os.path.join(outdir, "par-tar-%d.lst" % n), chunk)
        # tar stores a hard-linked file's data once per archive
        par_tar += total({f[3]: f for f in chunk}.values())

    picked = random.Random(seed + 1).sample(files, 2000)
    picked.sort(key=lambda f: f[0])
    write(os.path.join(outdir, "import.lst"), picked)

    unique = total({f[3]: f for f in files}.values())
    with open(os.path.join(outdir, "bytes.tsv"), "w") as out:
        for pattern, count in (
                ("tar-cat", unique), ("read-500", total(shuffled[:500])),
                ("read-all", all_bytes), ("par-read", all_bytes),
                ("par-tar", par_tar),
                ("import", sum(min(f[2], 4096) for f in picked))):
            out.write("%s\t%d\n" % (pattern, count))


main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# scripts/mount-bench-import.py: the "import" pattern of
# scripts/benchmark-mount.sh. In one process and one thread, for every path
# of a NUL-separated list (relative to the current directory): stat it,
# open it, read its first 4 KiB, close it -- what an interpreter importing
# modules or a scanner sniffing file headers does. Prints the files and
# bytes read; fails on the first error, so a broken mount cannot look fast.
#
# Usage: mount-bench-import.py LIST
import os
import sys

if len(sys.argv) != 2:
    sys.exit("usage: mount-bench-import.py LIST")
with open(sys.argv[1], "rb") as f:
    paths = [p for p in f.read().split(b"\0") if p]
count = total = 0
for path in paths:
    os.stat(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        total += len(os.read(fd, 4096))
    finally:
        os.close(fd)
    count += 1
print("%d files, %d bytes" % (count, total))

# SPDX-License-Identifier: MIT
"""Run hostile images through squashforge.Image, in a process of its own
(test_hostile.py starts it, so that a crash is seen as one).

    hostile_exercise.py MANIFEST-DIR

Every image of DIR/manifest.txt ("NAME EXPECT WHAT" lines, from
tests/hostile/mutate.py) is opened (offset "auto") and read as a program
would: walk, lstat and stat of every entry, symlink targets, xattrs, the
start and the end of every regular file; two threads at once on the same
Image. A failure must be an OSError (SquashfsError and its subclasses,
or the os-like errors of the Python layer): anything else, a crash or a
hang is a finding. Images marked "accept" must be read without any
error. Prints one line per finding, then a summary; exits 0 if there was
no finding.
"""

import os
import stat
import sys
import threading

import squashforge

# entries read per image and thread, and bytes per file: enough to reach
# every structure of the small test images, bounded for the bombs
MAX_ENTRIES = 3000
READ_CAP = 1 << 20


def exercise(img, errors, followed):
    count = 0

    def failed(e):
        errors.append(e)

    for dirpath, dirnames, filenames in img.walk("/", onerror=failed):
        for name in dirnames + filenames:
            count += 1
            if count > MAX_ENTRIES:
                return
            p = os.path.join(dirpath, name)
            try:
                st = img.lstat(p)
                _ = st.xattrs, st.link_target
                if stat.S_ISLNK(st.st_mode):
                    img.readlink(p)
                if stat.S_ISREG(st.st_mode):
                    with img.open(p) as f:
                        f.read(READ_CAP)
                        f.seek(max(0, st.st_size - 4096))
                        f.read(8192)
                        f.pread(100, st.st_size // 2)
            except OSError as e:
                errors.append(e)
            # through symlinks: a valid image may hold dangling ones
            try:
                img.exists(p)
                img.stat(p)
            except OSError as e:
                followed.append(e)
    for path in ("/", "."):
        try:
            img.listdir(path)
        except OSError as e:
            errors.append(e)


def run_image(path):
    """Returns (opened, errors, findings)."""
    findings = []
    errors = []
    followed = []
    try:
        img = squashforge.Image(path, "auto", meta_cache=1 << 20,
                                data_cache=1 << 20)
    except OSError as e:
        return False, [e], findings
    except BaseException as e:  # noqa: B902 (a finding, reported)
        return False, [], [f"open: {type(e).__name__}: {e}"]

    def worker(k):
        try:
            exercise(img, errors, followed)
        except BaseException as e:  # noqa: B902 (a finding, reported)
            findings.append(f"thread {k}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(k,))
               for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    img.close()
    for e in followed:
        if not isinstance(e, OSError):
            findings.append(f"not an OSError: {e!r}")
    return True, errors, findings


def main():
    folder = sys.argv[1]
    opened = rejected = with_errors = bad = 0
    with open(os.path.join(folder, "manifest.txt")) as m:
        cases = [line.split()[:2] for line in m if line.strip()]
    for name, expect in cases:
        ok, errors, findings = run_image(os.path.join(folder, name))
        for e in errors:
            if not isinstance(e, OSError):
                findings.append(f"not an OSError: {e!r}")
            elif isinstance(e, squashforge.SquashfsError) and \
                    not e.strerror:
                findings.append(f"no words: {e!r}")
        if expect in ("accept", "libok") and errors:
            findings.append(f"a valid image fails: {errors[0]!r}")
        if ok:
            opened += 1
        else:
            rejected += 1
        if errors:
            with_errors += 1
        for f in findings:
            bad += 1
            print(f"FINDING: {name}: {f}", flush=True)
    print(f"hostile: {len(cases)} images: {opened} opened, {rejected} "
          f"refused at open, {with_errors} with errors, {bad} findings",
          flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

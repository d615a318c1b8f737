# SPDX-License-Identifier: MIT
"""The hostile images of tests/hostile (hand-built attacks, and mutants
of the fuzzing corpus and the fixtures) through Image: exceptions with
words, never a crash or a hang (see hostile_exercise.py)."""

import glob
import os
import subprocess
import sys

from conftest import HERE, TOP_SRCDIR

MUTATE = os.path.join(TOP_SRCDIR, "tests", "hostile", "mutate.py")
MUTANTS = os.environ.get("HOSTILE_MUTANTS", "4")
SEED = os.environ.get("HOSTILE_SEED", "1")


def test_hostile_images(tmp_path):
    out = tmp_path / "img"
    outside = tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    seeds = sorted(glob.glob(os.path.join(TOP_SRCDIR, "tests", "fuzz",
                                          "corpus", "*")) +
                   glob.glob(os.path.join(TOP_SRCDIR, "tests", "fixtures",
                                          "*.sqfs")))
    assert seeds, "no corpus images"
    subprocess.run([sys.executable, MUTATE, "structured", "--out", str(out),
                    "--outside", str(outside)], check=True)
    # mutants of the plain images (mutate.py reads them from offset 0)
    subprocess.run([sys.executable, MUTATE, "mutants", "--seed", SEED,
                    "--count", MUTANTS, "--out", str(out),
                    *[s for s in seeds if s.endswith(".sqfs")]],
                   check=True)
    # the seeds themselves too (the locate cases: an AppImage, a SIF)
    with open(out / "manifest.txt", "a") as m:
        for s in seeds:
            m.write(f"{os.path.abspath(s)} any seed\n")
    with open(out / "manifest.txt") as m:
        count = sum(1 for _ in m)
    assert count > 150
    proc = subprocess.run([sys.executable,
                           os.path.join(HERE, "hostile_exercise.py"),
                           str(out)], capture_output=True, text=True,
                          timeout=900)
    print(proc.stdout[-5000:], proc.stderr[-5000:])
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-3000:],
                                  proc.stderr[-3000:])
    assert "hostile: " in proc.stdout
    assert os.listdir(outside) == []

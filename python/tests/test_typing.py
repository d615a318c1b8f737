# SPDX-License-Identifier: MIT
"""The type stubs (__init__.pyi): mypy --strict accepts typical uses,
and stubtest finds them consistent with the module at run time."""

import os
import subprocess
import sys

import pytest

import squashforge
from conftest import HERE

PACKAGE_DIR = os.path.dirname(os.path.dirname(squashforge.__file__))


def mypy(cwd, *args):
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("no mypy on this machine (Debian package mypy)")
    env = dict(os.environ, MYPYPATH=PACKAGE_DIR)
    return subprocess.run([sys.executable, "-m", *args], env=env,
                          capture_output=True, text=True, cwd=cwd)


def test_stubs_accept_typical_use(tmp_path):
    cache = tmp_path / "cache"
    proc = mypy(tmp_path, "mypy", "--strict", "--cache-dir", str(cache),
                os.path.join(HERE, "typing_sample.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bad = tmp_path / "bad.py"
    bad.write_text("import squashforge\n"
                   "n: int = squashforge.Image('x').listdir('/')\n")
    proc = mypy(tmp_path, "mypy", "--strict", "--cache-dir", str(cache),
                str(bad))
    assert proc.returncode == 1 and "List[str]" in proc.stdout


def test_stubs_match_the_module(tmp_path):
    # in tmp_path: mypy keeps its cache in the working directory
    proc = mypy(tmp_path, "mypy.stubtest", "--mypy-config-file", os.devnull,
                "--allowlist", os.path.join(HERE, "stubtest-allowlist.txt"),
                "squashforge")
    assert proc.returncode == 0, proc.stdout + proc.stderr

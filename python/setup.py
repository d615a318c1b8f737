# SPDX-License-Identifier: MIT
"""Build the squashforge package: a C extension on libsquashfs.

libsquashfs is looked for in this order:

- SQFS_INCLUDE_DIR and SQFS_LIBRARY_DIR in the environment: an uninstalled
  tree (the source's include/ and the build's .libs/), which is what the
  Makefile of the project passes;
- pkg-config's libsquashfs: an installed library (`make install`), for
  `pip install ./python`;
- the compiler's default paths.

SQFS_RPATH (directories separated by ':') is recorded as the extension's
run-time search path; without it, the library directory pkg-config names
is, so that a library installed outside the linker's default paths is
still found. SQFS_BUILD_WERROR=1 turns warnings into errors.
"""

import os
import re
import shutil
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
# setuptools wants paths relative to setup.py; the build may run elsewhere
# (make's build tree), with --build-base and the like pointing there
os.chdir(HERE)


def pkg_config(*args):
    exe = shutil.which(os.environ.get("PKG_CONFIG", "pkg-config"))
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, *args, "libsquashfs"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.split()


def dirs(var):
    return [d for d in os.environ.get(var, "").split(os.pathsep) if d]


include_dirs = dirs("SQFS_INCLUDE_DIR")
library_dirs = dirs("SQFS_LIBRARY_DIR")
rpath = dirs("SQFS_RPATH")
if not include_dirs and not library_dirs:
    found = pkg_config("--cflags-only-I")
    if found is not None:
        include_dirs = [f[2:] for f in found if f.startswith("-I")]
        library_dirs = [f[2:] for f in pkg_config("--libs-only-L") or []
                        if f.startswith("-L")]
        if not rpath:
            rpath = pkg_config("--variable=libdir") or []

warnings = ["-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
            "-Wmissing-prototypes", "-Wpointer-arith", "-Wwrite-strings",
            "-Wvla"]
if os.environ.get("SQFS_BUILD_WERROR") == "1":
    warnings.append("-Werror")

with open(os.path.join("squashforge", "__init__.py"), encoding="utf-8") as f:
    VERSION = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)[1]

SOURCES = ["module.c", "errors.c", "pyfile.c", "image.c", "writer.c",
           "tree.c", "warnings.c"]

setup(
    name="squashforge",
    version=VERSION,
    description="Read and write SquashFS images (bindings of libsquashfs)",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.8",
    packages=["squashforge"],
    package_data={"squashforge": ["py.typed", "__init__.pyi"]},
    ext_modules=[
        Extension(
            "squashforge._squashforge",
            sources=[os.path.join("squashforge", s) for s in SOURCES],
            depends=[os.path.join("squashforge", "_squashforge.h")],
            include_dirs=include_dirs,
            library_dirs=library_dirs,
            runtime_library_dirs=rpath,
            libraries=["squashfs"],
            extra_compile_args=["-std=c11"] + warnings,
        )
    ],
    zip_safe=False,
    classifiers=[
        "License :: OSI Approved :: MIT License",
        "Operating System :: POSIX :: Linux",
        "Programming Language :: C",
        "Programming Language :: Python :: 3",
        "Topic :: System :: Archiving",
        "Topic :: System :: Filesystems",
        "Typing :: Typed",
    ],
)

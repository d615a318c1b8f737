# SPDX-License-Identifier: MIT
"""Read and write SquashFS images, on libsquashfs.

Reading: an :class:`Image` is a read-only file system you walk, list, stat
and read like the ``os`` module's::

    import squashforge

    with squashforge.Image("rootfs.sqfs") as img:
        for dirpath, dirnames, filenames in img.walk("/etc"):
            print(dirpath, filenames)
        st = img.lstat("/bin")            # a symlink: st.link_target
        with img.open("/etc/os-release") as f:
            print(f.read().decode())
        img.extract("/etc", "/tmp/out")   # safe: nothing outside /tmp/out

Writing: a :class:`Writer` takes entries in any order and makes the image
when it is closed; until then the path is left as it was::

    with squashforge.Writer("out.sqfs", compressor="zstd") as w:
        w.add_dir("etc", mode=0o755)
        w.add_file("etc/hostname", b"box\\n", mode=0o644)
        w.add_file("bin/tool", "/usr/bin/tool")      # a file on disk
        w.add_symlink("sbin", "bin")
        w.add_tree("/srv/www", prefix="www")          # a whole tree

An image is read from many threads at once: every call releases the GIL
while libsquashfs decompresses. Failures raise :class:`SquashfsError`
(an ``OSError``) or one of its subclasses, with the library's words.
"""

import errno as _errno
import io
import os
import posixpath
import stat as _stat
import time
import warnings
import weakref
from dataclasses import dataclass
from typing import FrozenSet, Tuple

from . import _squashforge as _c
from ._squashforge import (  # noqa: F401 (re-exported)
    CorruptImageError,
    EntryError,
    NotAnImageError,
    SquashfsError,
    SquashfsFileExistsError,
    SquashfsFileNotFoundError,
    SquashfsNotADirectoryError,
    UnsupportedError,
)

__version__ = "0.1.0"

__all__ = [
    "Image", "Writer", "SquashFile", "StatResult", "DirEntry",
    "Superblock", "WriterStats", "SquashfsError", "CorruptImageError",
    "NotAnImageError", "UnsupportedError", "EntryError",
    "SquashfsFileNotFoundError", "SquashfsNotADirectoryError",
    "SquashfsFileExistsError", "compressors", "default_compressor",
    "compressor_help", "library_version", "ExtractWarning",
]

# symlinks followed in one path before giving up (Linux's MAXSYMLINKS)
_MAX_SYMLINKS = 40

# directories whose node ids an Image keeps (Image._lookup_plain): enough
# for a walk, or threads in as many directories
_DIR_CACHE = 256
# How many of the files of the directory a walk yielded last are handed
# to the read-ahead threads ahead of the one opened last.
_FILES_AHEAD = 8

# the fields of the library's stat tuples (image.c, stat_tuple)
_INO, _MODE, _NLINK, _UID, _GID, _MTIME, _MAJOR, _MINOR, _SIZE, _BLOCKS, \
    _PARENT, _HAS_XATTRS, _NODE = range(13)


def library_version() -> str:
    """The version of the libsquashfs the module runs with."""
    return _c.library_version()


def compressors() -> list:
    """The compressors this libsquashfs reads and writes, e.g.
    ``['gzip', 'lzma', 'lzo', 'xz', 'lz4', 'zstd']``."""
    return _c.compressors()


def default_compressor() -> str:
    """The compressor a :class:`Writer` uses unless told otherwise."""
    return _c.default_compressor()


def compressor_help(name: str) -> str:
    """The options ``compressor_options`` takes for compressor name."""
    return _c.compressor_help(name)


def _split(path):
    """path (str, bytes, os.PathLike) as bytes, and whether it was
    bytes (then names come back as bytes, as the os module does)."""
    p = os.fspath(path)
    if isinstance(p, bytes):
        return p, True
    return os.fsencode(p), False


def _name(raw, as_bytes):
    return raw if as_bytes else os.fsdecode(raw)


def _components(raw):
    return [c for c in raw.split(b"/") if c and c != b"."]


def _named(exc, path):
    """exc with path as its filename, for errors raised deep down."""
    if isinstance(exc, OSError) and exc.filename is None:
        exc.filename = os.fspath(path)
    return exc


# ---------------------------------------------------------------- reading


@dataclass(frozen=True)
class Superblock:
    """What the superblock says about an image."""

    #: the compressor's name ("xz", "gzip", ...)
    compressor: str
    #: its settings, as Writer's compressor_options takes them
    compressor_options: str
    block_size: int
    #: distinct inodes (hard links count once)
    inode_count: int
    #: seconds since the epoch
    modification_time: int
    fragment_count: int
    id_count: int
    #: the names of the flags set ("EXPORTABLE", "NO_XATTRS", ...)
    flags: FrozenSet[str]
    version: Tuple[int, int]
    #: the end of the image's last table (the padding not counted)
    bytes_used: int
    #: where the image starts in its file
    offset: int

    @property
    def exportable(self) -> bool:
        """Whether the image has an NFS export table."""
        return "EXPORTABLE" in self.flags


class StatResult:
    """The attributes of an entry, as ``os.lstat`` would report them on a
    kernel mount of the image, with what an image adds: ``link_target``
    (a symlink's target, else None), ``xattrs`` (a dict of name to
    bytes), ``rdev_major`` and ``rdev_minor``. Hard links share
    ``st_ino`` (and ``node``, the library's id of the inode). Times are
    whole seconds: atime, mtime and ctime are the one stored time.
    Indexing gives the ten classic fields as ``os.stat_result`` does."""

    __slots__ = ("st_mode", "st_ino", "st_dev", "st_nlink", "st_uid",
                 "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime",
                 "st_atime_ns", "st_mtime_ns", "st_ctime_ns", "st_blocks",
                 "st_blksize", "st_rdev", "rdev_major", "rdev_minor",
                 "node", "link_target", "xattrs")

    def __init__(self, t, blksize, link_target=None, xattrs=None):
        self.st_mode = t[_MODE]
        self.st_ino = t[_INO]
        self.st_dev = 0
        self.st_nlink = t[_NLINK]
        self.st_uid = t[_UID]
        self.st_gid = t[_GID]
        self.st_size = t[_SIZE]
        self.st_atime = self.st_mtime = self.st_ctime = float(t[_MTIME])
        self.st_atime_ns = self.st_mtime_ns = self.st_ctime_ns = \
            t[_MTIME] * 1000000000
        self.st_blocks = t[_BLOCKS]
        self.st_blksize = blksize
        self.rdev_major = t[_MAJOR]
        self.rdev_minor = t[_MINOR]
        self.st_rdev = os.makedev(t[_MAJOR], t[_MINOR])
        self.node = t[_NODE]
        self.link_target = link_target
        self.xattrs = xattrs if xattrs is not None else {}

    def _tuple(self):
        return (self.st_mode, self.st_ino, self.st_dev, self.st_nlink,
                self.st_uid, self.st_gid, self.st_size, int(self.st_atime),
                int(self.st_mtime), int(self.st_ctime))

    def __getitem__(self, index):
        return self._tuple()[index]

    def __len__(self):
        return 10

    def __iter__(self):
        return iter(self._tuple())

    def __repr__(self):
        extra = ""
        if self.link_target is not None:
            extra += f", link_target={self.link_target!r}"
        if self.xattrs:
            extra += f", xattrs={self.xattrs!r}"
        return (f"StatResult(st_mode={self.st_mode:#o}, "
                f"st_ino={self.st_ino}, st_nlink={self.st_nlink}, "
                f"st_uid={self.st_uid}, st_gid={self.st_gid}, "
                f"st_size={self.st_size}, st_mtime={int(self.st_mtime)}"
                f"{extra})")


class DirEntry:
    """An entry of :meth:`Image.scandir`, as ``os.DirEntry``: ``name``,
    ``path`` (the directory's path joined with the name), ``inode()``,
    ``is_dir()``, ``is_file()``, ``is_symlink()`` and ``stat()``. The
    entry's own attributes come with the listing; following a symlink
    looks its target up."""

    __slots__ = ("name", "path", "_image", "_t", "_as_bytes", "_lstat",
                 "_stat")

    def __init__(self, image, name, path, t, as_bytes):
        self.name = name
        self.path = path
        self._image = image
        self._t = t
        self._as_bytes = as_bytes
        self._lstat = None
        self._stat = None

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return f"<DirEntry {self.name!r}>"

    def inode(self) -> int:
        return self._t[_INO]

    def is_symlink(self) -> bool:
        return _stat.S_ISLNK(self._t[_MODE])

    def _mode(self, follow_symlinks):
        if follow_symlinks and self.is_symlink():
            try:
                return self.stat().st_mode
            except OSError:
                return 0
        return self._t[_MODE]

    def is_dir(self, *, follow_symlinks=True) -> bool:
        return _stat.S_ISDIR(self._mode(follow_symlinks))

    def is_file(self, *, follow_symlinks=True) -> bool:
        return _stat.S_ISREG(self._mode(follow_symlinks))

    def stat(self, *, follow_symlinks=True) -> StatResult:
        if follow_symlinks and self.is_symlink():
            if self._stat is None:
                self._stat = self._image.stat(self.path)
            return self._stat
        if self._lstat is None:
            self._lstat = self._image._stat_result(self._t, self._as_bytes)
        return self._lstat


class _ScandirIterator:
    """The iterator scandir returns: reads the listing a page at a time,
    and is a context manager as os.scandir's is."""

    def __init__(self, image, dir_node, path, as_bytes):
        self._image = image
        self._node = dir_node
        self._path = path
        self._as_bytes = as_bytes
        self._page = []
        self._pos = 0
        self._cookie = 0
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        while self._pos >= len(self._page):
            if self._done:
                raise StopIteration
            try:
                self._page, cookie = self._image._fs.readdir(
                    self._node, self._cookie, 256, True)
            except OSError as e:
                _named(e, self._path)
                raise
            self._pos = 0
            if cookie == 0:
                self._done = True
            self._cookie = cookie
        raw, ino, node, ftype, t = self._page[self._pos]
        self._pos += 1
        name = _name(raw, self._as_bytes)
        return DirEntry(self._image, name,
                        posixpath.join(self._path, name), t,
                        self._as_bytes)

    def close(self):
        self._done = True
        self._page = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SquashFile(io.RawIOBase):
    """A regular file of an image, open for reading: seekable, and read
    with ``read``, ``readinto``, ``readall`` and the lines of
    ``io.IOBase``. Holes of sparse files read as zeros. ``pread(size,
    offset)`` reads at a position without moving it, from any number of
    threads at once (the position itself belongs to one thread at a
    time, as a file object's does). The image stays readable for the
    file until the file is closed, even if the image is closed first."""

    def __init__(self, handle, name):
        super().__init__()
        self._h = handle
        self._pos = 0
        self.name = name
        self.mode = "rb"

    def __repr__(self):
        return f"<squashforge.SquashFile name={self.name!r}>"

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return self._h.size

    def _check(self):
        if self.closed:
            raise ValueError("I/O operation on closed file.")

    def readable(self):
        self._check()
        return True

    def seekable(self):
        self._check()
        return True

    def writable(self):
        self._check()
        return False

    def write(self, data):
        self._check()
        raise io.UnsupportedOperation("images are read-only")

    def truncate(self, size=None):
        self._check()
        raise io.UnsupportedOperation("images are read-only")

    def readinto(self, buffer):
        self._check()
        n = self._h.readinto_at(self._pos, buffer)
        self._pos += n
        return n

    def read(self, size=-1):
        self._check()
        if size is None or size < 0:
            return self.readall()
        data = self._h.read_at(self._pos, size)
        self._pos += len(data)
        return data

    def readall(self):
        self._check()
        data = self._h.read_at(self._pos, max(0, self._h.size - self._pos))
        self._pos += len(data)
        return data

    def pread(self, size, offset):
        """Up to size bytes at offset (fewer only at the end), leaving
        the position alone."""
        self._check()
        if offset < 0:
            raise OSError(_errno.EINVAL, "negative offset")
        return self._h.read_at(offset, size)

    def seek(self, offset, whence=io.SEEK_SET):
        self._check()
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self._h.size + offset
        else:
            raise ValueError(f"invalid whence ({whence}, should be "
                             f"0, 1 or 2)")
        if pos < 0:
            raise OSError(_errno.EINVAL, "Invalid argument")
        self._pos = pos
        return pos

    def tell(self):
        self._check()
        return self._pos

    def close(self):
        if not self.closed:
            self._h.close()
        super().close()


class Image:
    """A SquashFS image, open for reading.

    source is a path (str, bytes, os.PathLike) or a binary file object
    with ``seek`` and ``readinto`` (or ``read``): an ``open(..., "rb")``
    file, ``io.BytesIO``, a socket's file... offset is where the image
    starts in it: a number, or ``"auto"`` to find it (a plain image, an
    AppImage, a SIF container, or a superblock in the first 64 MiB).
    meta_cache and data_cache are the bytes of decompressed metadata and
    data blocks to keep (0: 8 and 64 MiB); read_ahead decompresses the
    next blocks of a file read in order in the background (not for file
    objects, which are read from one thread at a time).

    Paths inside the image are absolute or relative to its root alike;
    ``..`` and symlinks on the way are followed within the image (an
    absolute target starts at the image's root); the last component is
    followed by :meth:`stat` and :meth:`open`, not by :meth:`lstat`.
    Paths given as bytes give names as bytes, as the os module does.

    Closing (or leaving the ``with``) while other threads are inside a
    call is safe: they finish, and later calls raise ValueError.
    """

    def __init__(self, source, offset=0, *, meta_cache=0, data_cache=0,
                 read_ahead=True):
        if isinstance(source, (str, bytes, os.PathLike)) and \
                os.path.isdir(source):
            raise IsADirectoryError(_errno.EISDIR,
                                    os.strerror(_errno.EISDIR),
                                    os.fspath(source))
        self._fs = _c.FS(source, offset, meta_cache, data_cache,
                         read_ahead)
        if isinstance(source, (str, bytes, os.PathLike)):
            self.name = os.fspath(source)
        else:
            self.name = getattr(source, "name", None)
        sb = self._fs.superblock()
        self._blksize = sb["block_size"]
        self._root = self._fs.root()
        # the node ids of directories that paths named lately, by their
        # path without symlinks and "..": stat and open of the entries of
        # one directory (a walk) then search that directory alone,
        # instead of every directory from the root
        self._dirs = {b"": self._root}
        # the regular files of the directory walk yielded last, in
        # listing order: (node ids, their index by id, [how many were
        # named to sqfs_fs_prefetch]). Read-ahead within a file never
        # starts for files of one block or a tail, which most files are;
        # a program reading what walk yields opens them in this order, so
        # open names the next few and finds each one decoded by the time
        # it gets there. Only a hint, shared by the threads of the image.
        self._plan = None
        self._read_ahead = bool(read_ahead)
        self._last = None
        self.superblock = Superblock(
            compressor=sb["compressor"],
            compressor_options=sb["compressor_options"],
            block_size=sb["block_size"],
            inode_count=sb["inode_count"],
            modification_time=sb["modification_time"],
            fragment_count=sb["fragment_count"],
            id_count=sb["id_count"],
            flags=frozenset(_c.super_flag_names(sb["flags"])),
            version=tuple(sb["version"]),
            bytes_used=sb["bytes_used"],
            offset=sb["offset"],
        )

    def __repr__(self):
        state = "closed" if self.closed else "open"
        return f"<squashforge.Image {self.name!r} ({state})>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        """Close the image. Files opened from it stay readable until
        they are closed."""
        self._fs.close()

    @property
    def closed(self) -> bool:
        return self._fs.closed

    @property
    def offset(self) -> int:
        """Where the image starts in its file."""
        return self._fs.offset

    # ------------------------------------------------------------ paths

    def _lookup(self, raw, follow):
        """The stat tuple of the entry raw names."""
        if b"\0" in raw:
            # as the os module says it (a C string would end there)
            raise ValueError("embedded null byte")
        fs = self._fs
        parts = _components(raw)
        if b".." not in parts:
            t = self._lookup_plain(parts)
            if t is not None and not (follow and _stat.S_ISLNK(t[_MODE])):
                return t
        stack = [fs.stat(self._root)]
        hops = 0
        while parts:
            name = parts.pop(0)
            if name == b"..":
                if len(stack) > 1:
                    stack.pop()
                continue
            cur = stack[-1]
            if not _stat.S_ISDIR(cur[_MODE]):
                raise NotADirectoryError(_errno.ENOTDIR,
                                         os.strerror(_errno.ENOTDIR))
            t = fs.lookup(cur[_NODE], name)
            if _stat.S_ISLNK(t[_MODE]) and (parts or follow):
                hops += 1
                if hops > _MAX_SYMLINKS:
                    raise OSError(_errno.ELOOP, os.strerror(_errno.ELOOP))
                target = fs.readlink(t[_NODE])
                if target.startswith(b"/"):
                    del stack[1:]
                parts[:0] = _components(target)
                continue
            stack.append(t)
        return stack[-1]

    def _lookup_plain(self, parts):
        """The stat tuple of the entry parts (no "..") names, or None
        where a symlink or a file is on the way (the long way then
        follows it or says why). The parent directory comes from
        self._dirs, or the library's resolve (no symlink followed, which
        reports NOT_DIR for one in the middle)."""
        fs = self._fs
        if not parts:
            return fs.stat(self._root)
        parent = b"/".join(parts[:-1])
        dirs = self._dirs
        node = dirs.get(parent)
        try:
            if node is not None:
                return fs.lookup(node, parts[-1])
            node = fs.resolve(parent)
            # NOT_DIR if the parent is no directory
            t = fs.lookup(node, parts[-1])
        except NotADirectoryError:
            return None
        if len(dirs) >= _DIR_CACHE:
            dirs.clear()
            dirs[b""] = self._root
        dirs[parent] = node
        return t

    def _find(self, path, follow):
        raw, as_bytes = _split(path)
        # the entry lstat found last: a program that lstats a file and
        # then opens it (a walk) looks it up once; the image never
        # changes, and a symlink found there is followed as usual
        last = self._last
        if last is not None and last[0] == raw and \
                (not follow or not _stat.S_ISLNK(last[1][_MODE])):
            return last[1], as_bytes
        try:
            t = self._lookup(raw, follow)
        except OSError as e:
            _named(e, path)
            raise
        if not follow:
            self._last = (raw, t)
        return t, as_bytes

    def _stat_result(self, t, as_bytes):
        target = None
        xattrs = None
        if _stat.S_ISLNK(t[_MODE]):
            target = _name(self._fs.readlink(t[_NODE]), as_bytes)
        if t[_HAS_XATTRS]:
            xattrs = {os.fsdecode(k): v
                      for k, v in self._fs.xattrs(t[_NODE])}
        return StatResult(t, self._blksize, target, xattrs)

    def stat(self, path, *, follow_symlinks=True) -> StatResult:
        """The attributes of the entry at path, following a symlink
        there (as os.stat does) unless follow_symlinks is false."""
        t, as_bytes = self._find(path, follow_symlinks)
        try:
            return self._stat_result(t, as_bytes)
        except OSError as e:
            _named(e, path)
            raise

    def lstat(self, path) -> StatResult:
        """The attributes of the entry at path itself (a symlink's, with
        its target in link_target)."""
        return self.stat(path, follow_symlinks=False)

    def exists(self, path) -> bool:
        """Whether path names an entry (a symlink followed): false for a
        missing entry, a file on the way and a symlink loop; damage of
        the image on the way raises."""
        try:
            self._find(path, True)
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError as e:
            if e.errno == _errno.ELOOP and \
                    not isinstance(e, SquashfsError):
                return False
            raise
        return True

    def readlink(self, path):
        """The target of the symlink at path."""
        t, as_bytes = self._find(path, False)
        if not _stat.S_ISLNK(t[_MODE]):
            raise OSError(_errno.EINVAL, os.strerror(_errno.EINVAL),
                          os.fspath(path))
        return _name(self._fs.readlink(t[_NODE]), as_bytes)

    def _dir(self, path):
        t, as_bytes = self._find(path, True)
        if not _stat.S_ISDIR(t[_MODE]):
            raise NotADirectoryError(_errno.ENOTDIR,
                                     os.strerror(_errno.ENOTDIR),
                                     os.fspath(path))
        return t, as_bytes

    def listdir(self, path="/") -> list:
        """The names in the directory at path, in the image's (sorted)
        order, without "." and ".."."""
        t, as_bytes = self._dir(path)
        names = []
        cookie = 0
        while True:
            try:
                page, cookie = self._fs.readdir(t[_NODE], cookie, 1024,
                                                False)
            except OSError as e:
                _named(e, path)
                raise
            names.extend(_name(p[0], as_bytes) for p in page)
            if cookie == 0:
                return names

    def scandir(self, path="/"):
        """An iterator of :class:`DirEntry` for the directory at path,
        as os.scandir; also a context manager."""
        t, as_bytes = self._dir(path)
        return _ScandirIterator(self, t[_NODE], os.fspath(path), as_bytes)

    def walk(self, top="/", topdown=True, onerror=None, followlinks=False):
        """Yield (dirpath, dirnames, filenames) for every directory from
        top down, as os.walk does: with topdown, dirnames may be changed
        in place to choose where to go; errors go to onerror (or are
        ignored); symlinks to directories are listed in dirnames but not
        entered unless followlinks. A directory is entered once: a
        directory met again (which only a broken image makes, or
        followlinks, where only a loop below itself is skipped) is not
        entered again, and onerror receives a CorruptImageError for a
        broken image."""
        top = os.fspath(top)
        # (path, node, ancestors' nodes) to list, or a result to yield
        try:
            t, _ = self._dir(top)
        except OSError as e:
            if onerror is not None:
                onerror(e)
            return
        stack = [(top, t[_NODE], ())]
        # a valid image holds each directory once; a hostile one could
        # name a directory from many places, and the walk would grow
        # with the number of paths to it, not of directories
        visited = None if followlinks else {t[_NODE]}
        while stack:
            item = stack.pop()
            if item[0] is None:
                # bottom-up: a listing kept until its subdirectories were
                # walked, with its regular files for the read-ahead
                self._plan_files(item[2])
                yield item[1]
                continue
            path, node, ancestors = item
            ancestors = ancestors + (node,)
            dirs, files, into, regular = [], [], {}, []
            try:
                with _ScandirIterator(self, node, path,
                                      isinstance(path, bytes)) as it:
                    for entry in it:
                        try:
                            is_dir = entry.is_dir()
                        except OSError:
                            is_dir = False
                        if is_dir:
                            dirs.append(entry.name)
                            into[entry.name] = entry
                        else:
                            files.append(entry.name)
                            if _stat.S_ISREG(entry._t[_MODE]):
                                regular.append(entry._t[_NODE])
            except OSError as e:
                if onerror is not None:
                    onerror(_named(e, path))
                continue

            if topdown:
                self._plan_files(regular)
                yield path, dirs, files
            else:
                stack.append((None, (path, dirs, files), regular))
            for name in reversed(dirs):
                sub = self._walk_into(path, name, into.get(name),
                                      followlinks, ancestors, visited,
                                      onerror)
                if sub is not None:
                    stack.append(sub)

    def _walk_into(self, path, name, entry, followlinks, ancestors,
                   visited, onerror):
        new_path = posixpath.join(path, name)
        try:
            if entry is None:
                # a name the caller added to dirnames
                lt = self._lookup(_split(new_path)[0], False)
                is_link = _stat.S_ISLNK(lt[_MODE])
            else:
                is_link = entry.is_symlink()
            if is_link and not followlinks:
                return None
            if is_link or entry is None:
                t = self._lookup(_split(new_path)[0], True)
                if not _stat.S_ISDIR(t[_MODE]):
                    return None
                node = t[_NODE]
            else:
                node = entry._t[_NODE]
        except OSError as e:
            if onerror is not None:
                onerror(_named(e, new_path))
            return None
        again = node in ancestors if visited is None else node in visited
        if again:
            if not is_link and onerror is not None:
                err = CorruptImageError(
                    _errno.EIO, "a directory met twice (a directory loop "
                    "or a second path to it)", new_path)
                err.code = -18
                onerror(err)
            return None
        if visited is not None:
            visited.add(node)
        return (new_path, node, ancestors)

    # ------------------------------------------------------------ files

    def _plan_files(self, nodes):
        """The files walk is about to yield, in the order a reader
        opens them: the first few go to the read-ahead threads now."""
        if not self._read_ahead or not nodes:
            self._plan = None
            return
        plan = (nodes, {n: i for i, n in enumerate(nodes)}, [0])
        self._plan = plan
        self._prefetch(plan, _FILES_AHEAD)

    def _prefetch(self, plan, until):
        nodes, _, queued = plan
        n = queued[0]
        until = min(until, len(nodes))
        queued[0] = max(n, until)
        while n < until:
            try:
                self._fs.prefetch(nodes[n])
            except (OSError, ValueError):
                # a hint: the open of that file says what is wrong, and a
                # closed image says so at the next call
                return
            n += 1

    def open(self, path, mode="rb") -> SquashFile:
        """Open the regular file at path (a symlink followed) for
        reading, as a raw binary file object (wrap it in
        io.BufferedReader or io.TextIOWrapper as needed)."""
        if mode not in ("r", "rb"):
            raise ValueError(f"images are read-only: mode {mode!r}")
        t, _ = self._find(path, True)
        if _stat.S_ISDIR(t[_MODE]):
            raise IsADirectoryError(_errno.EISDIR,
                                    os.strerror(_errno.EISDIR),
                                    os.fspath(path))
        if not _stat.S_ISREG(t[_MODE]):
            raise OSError(_errno.EINVAL, "not a regular file",
                          os.fspath(path))
        plan = self._plan
        if plan is not None:
            i = plan[1].get(t[_NODE])
            if i is not None:
                self._prefetch(plan, i + 1 + _FILES_AHEAD)
        try:
            handle = self._fs.open(t[_NODE])
        except OSError as e:
            _named(e, path)
            raise
        return SquashFile(handle, os.fspath(path))

    def read_bytes(self, path) -> bytes:
        """The whole contents of the regular file at path."""
        with self.open(path) as f:
            return f.readall()

    def extract(self, path, dest, *, xattrs=True, times=True, chmod=True,
                chown=None, overwrite=False, make_dest=False,
                jobs=None) -> None:
        """Unpack the entry at path (a directory with everything below
        it) into the directory dest, with the library's safe unpack:
        every name checked, no symlink followed (of the image or already
        in dest), nothing written outside dest. A directory becomes
        dest/<its name> with its contents, a file dest/<its name>; the
        root's contents go straight into dest.

        xattrs, times, chmod and chown set the image's extended
        attributes, times, permission bits and owners (chown by default
        only when running as root); otherwise entries get the process's
        umask, owner and the current time. overwrite replaces a file in
        the way (a directory in the way fails); make_dest makes dest if
        it is missing. jobs: threads unpacking (None: the number of
        cores). What could not be set is told as ExtractWarning and the
        unpack goes on; a failure raises, and what was made before it
        stays."""
        if chown is None:
            chown = os.geteuid() == 0
        if jobs is None:
            jobs = os.cpu_count() or 1
        told = self._fs.extract(path, dest, xattrs=xattrs, times=times,
                                chmod=chmod, chown=chown,
                                overwrite=overwrite, make_dest=make_dest,
                                jobs=jobs)
        for words in told:
            warnings.warn(words, ExtractWarning, stacklevel=2)


class ExtractWarning(UserWarning):
    """Something Image.extract or Writer.add_tree could not do and left
    out (an attribute the file system refuses, an unreadable directory
    skipped)."""


# ---------------------------------------------------------------- writing


@dataclass(frozen=True)
class WriterStats:
    """Numbers about a finished image."""

    bytes_in: int
    bytes_written: int
    image_size: int
    data_blocks: int
    fragment_blocks: int
    duplicate_blocks: int
    duplicate_fragments: int
    sparse_blocks: int
    files: int
    inodes: int
    ids: int
    inode_table_bytes: int
    directory_table_bytes: int


def _uint(name, value, limit=0xFFFFFFFF):
    """value as an int from 0 to limit, or ValueError naming it (the
    extension takes fixed-size integers and would cut bigger ones)."""
    value = int(value)
    if not 0 <= value <= limit:
        raise ValueError(f"{name} {value} is out of range (0 to {limit})")
    return value


def _time(value):
    """Seconds as an image stores them: clamped to 0 .. 2^32 - 1."""
    return max(0, min(int(value), 0xFFFFFFFF))


def _default_time():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None:
        try:
            return max(0, min(int(epoch), 0xFFFFFFFF))
        except ValueError:
            pass
    return int(time.time())


_CHUNK = 1 << 20


def _discard(writer, temp):
    """Drop an unfinished writer and its temporary file (also what the
    garbage collector does for a Writer never closed)."""
    try:
        writer.abort()
    finally:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass


class Writer:
    """A new SquashFS image at path, made when :meth:`close` is called
    (or the ``with`` ends without an exception).

    The image is written to a temporary file beside path and renamed
    into place only once it is complete and synced to storage: until
    then, whatever was at path stays untouched; an exception inside the
    ``with``, a failure of close(), or :meth:`abort` leave nothing
    behind. With overwrite false, an existing path is an error
    (FileExistsError), now and at the rename.

    compressor: "xz", "zstd", "gzip", "lz4", "lzo", "lzma" (see
    :func:`compressors`); None: :func:`default_compressor`.
    compressor_options: its settings as a string ("level=19") or a dict
    ({"level": 19, "extreme": True}); :func:`compressor_help` lists them.
    block_size: of data blocks, a power of two from 4 KiB to 1 MiB.
    jobs: threads compressing (None: the number of cores; the image is
    the same byte for byte whatever the number).
    exportable, fragments, tail_packing, deduplicate, xattrs, compress,
    pad: the image's features (an NFS export table; tails packed into
    fragment blocks; identical files stored once; extended attributes
    kept; compression at all; padding to devblk_size, which the kernel
    needs to mount an image from a loop device).
    mkfs_time and mtime (the time of entries that give none): seconds,
    default SOURCE_DATE_EPOCH if set, else now. uid, gid, mode: the
    owner of entries that give none, and the attributes of directories
    created implicitly as parents. mem_limit: MiB held before the
    writer spills to temporary files (0: its default).

    Entry paths are relative to the image's root ("a/b", "/a/b" and
    "./a//b/" name the same entry); missing parents are created; adding
    a path again replaces the entry. The ``add_*`` methods take
    ``mode`` (permission bits), ``uid``, ``gid``, ``mtime`` and
    ``xattrs`` ({name: bytes}, names with their namespace: "user.x",
    "security.capability"). An entry the image cannot hold raises
    :class:`EntryError` (a ValueError) and changes nothing: the writer
    goes on. Any other failure makes the writer unusable.
    """

    def __init__(self, path, compressor=None, *, compressor_options=None,
                 block_size=131072, jobs=None, exportable=False,
                 fragments=True, tail_packing=True, deduplicate=True,
                 xattrs=True, compress=True, pad=True, devblk_size=4096,
                 mkfs_time=None, mtime=None, uid=0, gid=0, mode=0o755,
                 mem_limit=0, overwrite=True):
        self.path = os.fspath(path)
        self._overwrite = overwrite
        self._closed = False
        self.stats = None
        now = _default_time()
        self._mtime = _time(mtime) if mtime is not None else now
        self._uid = _uint("uid", uid)
        self._gid = _uint("gid", gid)
        mode = _uint("mode", mode, 0o7777)
        if isinstance(compressor_options, dict):
            compressor_options = ",".join(
                k if v is True else f"{k}={v}"
                for k, v in compressor_options.items() if v is not False)
        flags = 0
        if exportable:
            flags |= _c.SQFS_WRITER_EXPORTABLE
        if not fragments:
            flags |= _c.SQFS_WRITER_NO_FRAGMENTS
        if not tail_packing:
            flags |= _c.SQFS_WRITER_NO_TAIL_PACKING
        if not deduplicate:
            flags |= _c.SQFS_WRITER_NO_DEDUPLICATION
        if not xattrs:
            flags |= _c.SQFS_WRITER_NO_XATTRS
        if not compress:
            flags |= _c.SQFS_WRITER_UNCOMPRESSED
        if not pad:
            flags |= _c.SQFS_WRITER_NO_PAD
        if jobs is None:
            jobs = os.cpu_count() or 1

        if not overwrite and os.path.lexists(self.path):
            raise FileExistsError(_errno.EEXIST,
                                  os.strerror(_errno.EEXIST), self.path)
        if os.path.isdir(self.path):
            raise IsADirectoryError(_errno.EISDIR,
                                    os.strerror(_errno.EISDIR), self.path)
        head, tail = os.path.split(self.path)
        for n in range(100):
            temp = os.path.join(head, f".{tail[:200]}.{os.getpid()}.{n}.tmp")
            try:
                self._w = _c.Writer(
                    temp, compressor, compressor_options,
                    _uint("block_size", block_size),
                    _uint("devblk_size", devblk_size),
                    _uint("jobs", jobs, 4096), 0, flags,
                    _time(mkfs_time) if mkfs_time is not None else now,
                    self._uid, self._gid, mode, self._mtime,
                    _uint("mem_limit", mem_limit))
            except FileExistsError:
                continue
            except OSError as e:
                if e.filename == temp:
                    e.filename = self.path
                raise
            break
        else:
            raise FileExistsError(_errno.EEXIST, "no free temporary name "
                                  "beside the image", self.path)
        self._temp = temp
        self._finalizer = weakref.finalize(self, _discard, self._w, temp)

    def __repr__(self):
        return f"<squashforge.Writer {self.path!r}>"

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.abort()
        else:
            self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def usable(self) -> bool:
        """Whether entries can still be added (false after a failure
        that is not a refusal, and once closed)."""
        return not self._closed and self._w.usable

    def abort(self) -> None:
        """Give the image up: nothing is left at path but what was
        there."""
        if not self._closed:
            self._closed = True
        self._finalizer()

    def close(self) -> WriterStats:
        """Finish the image and put it in place; returns (and keeps in
        ``stats``) numbers about it. On failure nothing is left behind
        and the exception says why."""
        if self._closed:
            if self.stats is None:
                raise ValueError("the Writer was aborted")
            return self.stats
        self._closed = True
        try:
            self.stats = WriterStats(**self._w.finish())
            self._commit()
        except BaseException:
            self._finalizer()
            raise
        self._finalizer.detach()
        return self.stats

    def _commit(self):
        if self._overwrite:
            os.replace(self._temp, self.path)
        else:
            # no replace: a link fails if the name appeared meanwhile
            try:
                os.link(self._temp, self.path)
            except FileExistsError:
                raise
            except OSError:
                if os.path.lexists(self.path):
                    raise FileExistsError(
                        _errno.EEXIST, os.strerror(_errno.EEXIST),
                        self.path) from None
                os.rename(self._temp, self.path)
            else:
                os.unlink(self._temp)
        # the rename itself reaches storage once the directory is synced
        head = os.path.dirname(self.path) or "."
        fd = os.open(head, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        except OSError as e:
            if e.errno not in (_errno.EINVAL, _errno.ENOTSUP):
                raise
        finally:
            os.close(fd)

    # ------------------------------------------------------------ entries

    def _check(self):
        if self._closed:
            raise ValueError("operation on a closed Writer")

    def _attrs(self, ftype, mode, default_mode, uid, gid, mtime, xattrs):
        if mode is None:
            mode = default_mode
        elif _stat.S_IFMT(mode) not in (0, ftype):
            raise ValueError(f"mode {mode:#o} is not of this entry's type")
        return dict(
            mode=ftype | _stat.S_IMODE(_uint("mode", mode, 0o177777)),
            uid=self._uid if uid is None else _uint("uid", uid),
            gid=self._gid if gid is None else _uint("gid", gid),
            mtime=self._mtime if mtime is None else _time(mtime),
            xattrs=list(xattrs.items()) if xattrs else None,
        )

    def add_dir(self, path, *, mode=None, uid=None, gid=None, mtime=None,
                xattrs=None) -> None:
        """A directory (0o755 unless mode says); adding one that exists
        sets its attributes and keeps its children. "" or "/" is the
        root."""
        self._check()
        self._w.add(path, **self._attrs(_stat.S_IFDIR, mode, 0o755, uid,
                                        gid, mtime, xattrs))

    def add_symlink(self, path, target, *, mode=None, uid=None, gid=None,
                    mtime=None, xattrs=None) -> None:
        """A symbolic link to target (1 to 4096 bytes, stored as
        given)."""
        self._check()
        self._w.add(path, symlink_target=target,
                    **self._attrs(_stat.S_IFLNK, mode, 0o777, uid, gid,
                                  mtime, xattrs))

    def add_device(self, path, kind, major, minor, *, mode=None, uid=None,
                   gid=None, mtime=None, xattrs=None) -> None:
        """A device node: kind "char" or "block" (or stat.S_IFCHR,
        stat.S_IFBLK), with its major (up to 4095) and minor (up to
        1048575) numbers."""
        self._check()
        kinds = {"char": _stat.S_IFCHR, "c": _stat.S_IFCHR,
                 _stat.S_IFCHR: _stat.S_IFCHR, "block": _stat.S_IFBLK,
                 "b": _stat.S_IFBLK, _stat.S_IFBLK: _stat.S_IFBLK}
        if kind not in kinds:
            raise ValueError(f"device kind {kind!r}: \"char\" or "
                             f"\"block\"")
        # beyond 32 bits the extension would cut them; the library
        # refuses what the image cannot hold (EntryError)
        self._w.add(path, rdev_major=_uint("major", major),
                    rdev_minor=_uint("minor", minor),
                    **self._attrs(kinds[kind], mode, 0o644, uid, gid,
                                  mtime, xattrs))

    def add_fifo(self, path, *, mode=None, uid=None, gid=None, mtime=None,
                 xattrs=None) -> None:
        """A named pipe."""
        self._check()
        self._w.add(path, **self._attrs(_stat.S_IFIFO, mode, 0o644, uid,
                                        gid, mtime, xattrs))

    def add_socket(self, path, *, mode=None, uid=None, gid=None,
                   mtime=None, xattrs=None) -> None:
        """A Unix socket entry."""
        self._check()
        self._w.add(path, **self._attrs(_stat.S_IFSOCK, mode, 0o644, uid,
                                        gid, mtime, xattrs))

    def add_hardlink(self, path, target) -> None:
        """A hard link at path to the entry at target (not a directory),
        sharing its inode and so all of its attributes. A target added
        later is resolved at close()."""
        self._check()
        self._w.add(path, _stat.S_IFREG, hard_link=target)

    def add_file(self, path, source=b"", *, mode=None, uid=None, gid=None,
                 mtime=None, xattrs=None, size=None, compress=True,
                 fragment=True, deduplicate=True, sparse=True,
                 align=False) -> None:
        """A regular file whose data is source:

        - bytes-like (bytes, bytearray, memoryview): the data itself;
        - a str or os.PathLike: a file on disk, read (holes kept as
          holes); its mode, owner and mtime are taken unless given;
        - a binary file object: read to its end.

        size, if known, lets a file too large for the image be refused
        before any data is stored. compress, fragment, deduplicate,
        sparse and align choose how the data is stored (never what a
        reader gets back): compressed; its tail packed with others;
        shared with identical data; zeros stored as holes; its first
        block aligned to devblk_size.

        If reading the source fails midway, the whole image is given up
        (a file cannot be withdrawn from it) and the error raised.
        """
        self._check()
        flags = 0
        if not compress:
            flags |= _c.SQFS_FILE_DONT_COMPRESS
        if not fragment:
            flags |= _c.SQFS_FILE_DONT_FRAGMENT
        if not deduplicate:
            flags |= _c.SQFS_FILE_DONT_DEDUPLICATE
        if not sparse:
            flags |= _c.SQFS_FILE_NO_SPARSE
        if align:
            flags |= _c.SQFS_FILE_ALIGN

        if isinstance(source, (str, os.PathLike)):
            self._add_disk_file(path, os.fspath(source), flags, mode, uid,
                                gid, mtime, xattrs)
            return
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = memoryview(source).cast("B")
            attrs = self._attrs(_stat.S_IFREG, mode, 0o644, uid, gid,
                                mtime, xattrs)
            self._w.add(path, size=len(data), file_flags=flags, **attrs)
            self._stream(lambda: self._w.append(data))
            return
        if not hasattr(source, "read"):
            raise TypeError("source must be bytes-like, a path or a "
                            f"binary file object, not "
                            f"{type(source).__name__}")
        attrs = self._attrs(_stat.S_IFREG, mode, 0o644, uid, gid, mtime,
                            xattrs)
        self._w.add(path, size=_uint("size", size or 0, (1 << 64) - 1),
                    file_flags=flags, **attrs)
        self._stream(lambda: self._copy_fileobj(source))

    def _stream(self, feed):
        """Run feed (which appends the open file's data) and end the
        file; on any failure, give the image up."""
        try:
            feed()
            self._w.end_file()
        except BaseException:
            self.abort()
            raise

    def _copy_fileobj(self, f):
        readinto = getattr(f, "readinto", None)
        if readinto is not None:
            buf = bytearray(_CHUNK)
            view = memoryview(buf)
            while True:
                n = readinto(view)
                if n is None:
                    raise BlockingIOError(_errno.EAGAIN, "the source "
                                          "file object would block")
                if n == 0:
                    return
                self._w.append(view[:n])
        while True:
            chunk = f.read(_CHUNK)
            if chunk is None:
                raise BlockingIOError(_errno.EAGAIN, "the source file "
                                      "object would block")
            if not chunk:
                return
            self._w.append(chunk)

    def _add_disk_file(self, path, source, flags, mode, uid, gid, mtime,
                       xattrs):
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            st = os.fstat(fd)
            if not _stat.S_ISREG(st.st_mode):
                raise OSError(_errno.EINVAL, "not a regular file", source)
            attrs = self._attrs(
                _stat.S_IFREG,
                _stat.S_IMODE(st.st_mode) if mode is None else mode, 0,
                st.st_uid if uid is None else uid,
                st.st_gid if gid is None else gid,
                int(st.st_mtime) if mtime is None else mtime, xattrs)
            self._w.add(path, size=st.st_size, file_flags=flags, **attrs)
            self._stream(lambda: self._copy_fd(fd))
        finally:
            os.close(fd)

    def _copy_fd(self, fd):
        """Data and holes, as SEEK_DATA and SEEK_HOLE tell them (where
        the file system knows them; else all data)."""
        end = os.fstat(fd).st_size
        pos = 0
        while pos < end:
            try:
                data = os.lseek(fd, pos, os.SEEK_DATA)
                hole = os.lseek(fd, data, os.SEEK_HOLE)
            except OSError as e:
                if e.errno == _errno.ENXIO:  # only a hole up to the end
                    data = hole = end
                elif e.errno in (_errno.EINVAL, _errno.EOPNOTSUPP):
                    data, hole = pos, end
                else:
                    raise
            data = min(data, end)
            hole = min(hole, end)
            if data > pos:
                self._w.append_hole(data - pos)
            pos = data
            while pos < hole:
                chunk = os.pread(fd, min(_CHUNK, hole - pos), pos)
                if not chunk:
                    raise OSError(_errno.EIO, "the file shrank while it "
                                  "was read", None)
                self._w.append(chunk)
                pos += len(chunk)

    def add_tree(self, directory, prefix="", *, xattrs=True,
                 hard_links=True, one_file_system=False,
                 skip_unreadable=False) -> None:
        """Copy the tree at directory on disk into the image below prefix
        ("" for the root, whose attributes it then takes), with the
        library's safe walk: every entry type, owners, times, xattrs
        (unless xattrs is false), sparse files, files linked more than
        once as hard links (unless hard_links is false); no symlink
        followed, and a file that changes while it is read refused with
        words. one_file_system stays on directory's file system (mount
        points are kept, empty); skip_unreadable leaves out directories
        that cannot be listed, told as ExtractWarning, instead of
        failing."""
        self._check()
        try:
            told = self._w.add_tree(directory, prefix, xattrs=xattrs,
                                    hard_links=hard_links,
                                    one_file_system=one_file_system,
                                    skip_unreadable=skip_unreadable)
        except EntryError:
            # a refused entry leaves the writer usable, and the entries
            # added before it in the image
            if not self._w.usable:
                self.abort()
            raise
        except BaseException:
            self.abort()
            raise
        for words in told:
            warnings.warn(words, ExtractWarning, stacklevel=2)

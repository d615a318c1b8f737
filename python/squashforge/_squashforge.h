/* SPDX-License-Identifier: MIT */
/*
 * _squashforge.h - what the parts of the extension module share.
 *
 * The extension is a thin layer over the public libsquashfs API (only
 * the headers in include/sqfs/): objects that own a library object each,
 * methods that take and return plain Python values (bytes, ints, tuples).
 * Paths, symlinks, os.walk, stat results and file objects are made of these in
 * Python (__init__.py), where they are easier to read and to get right.
 *
 * The GIL is released around every library call that reads or writes an
 * image, so that decompression, compression and I/O run while other Python
 * threads do; a library call never touches a Python object, except through
 * the file back end of pyfile.c, which takes the GIL for it.
 */
#ifndef SQFS_PY_SQUASHFORGE_H
#define SQFS_PY_SQUASHFORGE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <sqfs/predef.h>
#include <sqfs/error.h>
#include <sqfs/io.h>

/* The exception classes, made by errors.c when the module loads. */
extern PyObject *SqfsPy_Error;
extern PyObject *SqfsPy_CorruptImageError;
extern PyObject *SqfsPy_NotAnImageError;
extern PyObject *SqfsPy_UnsupportedError;
extern PyObject *SqfsPy_EntryError;
extern PyObject *SqfsPy_FileNotFoundError;
extern PyObject *SqfsPy_NotADirectoryError;
extern PyObject *SqfsPy_FileExistsError;

/*
 * Make the exception classes and add them to module. Returns 0, or -1 with
 * an exception set.
 */
int sqfs_py_errors_init(PyObject *module);

/*
 * Raise the exception that stands for the library's error code, carrying
 * the library's words (why; the code's phrase if NULL or empty), the
 * errno that fits the code (or saved_errno for SQFS_ERROR_IO), and
 * filename (may be NULL). cause, if not NULL, becomes the exception's
 * __cause__ (a reference is stolen). Returns NULL, for `return
 * sqfs_py_raise(...)`.
 */
PyObject *sqfs_py_raise(int code, const char *why, PyObject *filename,
			int saved_errno, PyObject *cause);

/*
 * A read-only sqfs_file_t over a Python file object (anything with seek
 * and readinto or read). The library may call it from any thread without
 * the GIL: each call takes a lock of its own first, then the GIL, so that
 * a seek and the read after it are never split. An exception raised by the
 * object is kept (the last one) and the call fails with SQFS_ERROR_IO.
 * Returns 0, or -1 with an exception set.
 */
int sqfs_py_file_open(PyObject *obj, sqfs_file_t **out);

/* The exception the object raised last, taken out of the file (a new
 * reference), or NULL. Call with the GIL. file may be NULL. */
PyObject *sqfs_py_file_take_error(sqfs_file_t *file);

/* Convert a path (str, bytes or os.PathLike) to a new bytes object, or
 * NULL with an exception set. */
PyObject *sqfs_py_fspath_bytes(PyObject *path);

/* Words of what a walk left out (warnings.c): the first
 * SQFS_PY_MAX_WARNINGS, kept by sqfs_py_warnings_keep, a walk's warn
 * callback with a sqfs_py_warnings_t as its user pointer (zeroed first);
 * turned into a list of str (a new reference, or NULL with an
 * exception) once the walk is over, with the GIL; freed in any case. */
#define SQFS_PY_MAX_WARNINGS 100
typedef struct {
	char **words;
	size_t count;
} sqfs_py_warnings_t;

void sqfs_py_warnings_keep(void *user, const char *words);
PyObject *sqfs_py_warnings_list(const sqfs_py_warnings_t *w);
void sqfs_py_warnings_free(sqfs_py_warnings_t *w);

/*
 * Copy the tree at dir into the image wr writes, below prefix ("" for
 * the root), with the library's directory source (sqfs/dir_source.h
 * flags; warn(user, words) for what it leaves out, called on another
 * thread). Runs without the GIL and touches no Python object. Returns 0,
 * or an error code with its words in why.
 */
struct sqfs_writer;
int sqfs_py_copy_tree(struct sqfs_writer *wr, const char *dir,
		      const char *prefix, uint32_t flags,
		      void (*warn)(void *user, const char *words), void *user,
		      char *why);

extern PyTypeObject SqfsPyFS_Type;
extern PyTypeObject SqfsPyFile_Type;
extern PyTypeObject SqfsPyWriter_Type;

#endif /* SQFS_PY_SQUASHFORGE_H */

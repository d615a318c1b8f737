/* SPDX-License-Identifier: MIT */
/*
 * errors.c - the library's error codes as Python exceptions.
 *
 * Every failure becomes an OSError subclass carrying the library's words
 * as its strerror, an errno that fits (what a mounted image would give:
 * ENOENT, ENOTDIR, EIO for damage, ...) and the code itself as `code`, so
 * that a program can catch what it knows (FileNotFoundError), what the
 * library means (CorruptImageError), or everything (SquashfsError).
 */
#include "_squashforge.h"

#include <errno.h>

PyObject *SqfsPy_Error;
PyObject *SqfsPy_CorruptImageError;
PyObject *SqfsPy_NotAnImageError;
PyObject *SqfsPy_UnsupportedError;
PyObject *SqfsPy_EntryError;
PyObject *SqfsPy_FileNotFoundError;
PyObject *SqfsPy_NotADirectoryError;
PyObject *SqfsPy_FileExistsError;

static int add_class(PyObject *module, PyObject **slot, const char *name,
		     const char *doc, PyObject *bases)
{
	char qualified[96];

	if (bases == NULL)
		return -1;
	PyOS_snprintf(qualified, sizeof(qualified), "squashforge.%s", name);
	*slot = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
	Py_DECREF(bases);
	if (*slot == NULL)
		return -1;
	Py_INCREF(*slot);
	if (PyModule_AddObject(module, name, *slot) != 0) {
		Py_DECREF(*slot);
		return -1;
	}
	return 0;
}

static PyObject *pair(PyObject *a, PyObject *b)
{
	return PyTuple_Pack(2, a, b);
}

int sqfs_py_errors_init(PyObject *module)
{
	Py_INCREF(PyExc_OSError);
	if (add_class(module, &SqfsPy_Error, "SquashfsError",
		      "A libsquashfs failure: strerror holds the library's "
		      "words, code the\nnegative sqfs_error_t.",
		      PyExc_OSError) != 0)
		return -1;
	Py_INCREF(SqfsPy_Error);
	if (add_class(module, &SqfsPy_CorruptImageError, "CorruptImageError",
		      "The image is damaged or hostile where this call "
		      "looked (the rest may\nstill be readable).",
		      SqfsPy_Error) != 0)
		return -1;
	Py_INCREF(SqfsPy_CorruptImageError);
	if (add_class(module, &SqfsPy_NotAnImageError, "NotAnImageError",
		      "No SquashFS superblock where the image should start.",
		      SqfsPy_CorruptImageError) != 0)
		return -1;
	Py_INCREF(SqfsPy_Error);
	if (add_class(module, &SqfsPy_UnsupportedError, "UnsupportedError",
		      "Valid, but not supported by this build (a compressor "
		      "it lacks, say).",
		      SqfsPy_Error) != 0)
		return -1;
	if (add_class(module, &SqfsPy_EntryError, "EntryError",
		      "An argument or an entry the library refuses: a path "
		      "with '..', a bad\nmode, a device number or an xattr "
		      "the format cannot hold. A Writer\nstays usable after "
		      "it.",
		      pair(SqfsPy_Error, PyExc_ValueError)) != 0)
		return -1;
	if (add_class(module, &SqfsPy_FileNotFoundError,
		      "SquashfsFileNotFoundError", "No entry of that name.",
		      pair(SqfsPy_Error, PyExc_FileNotFoundError)) != 0)
		return -1;
	if (add_class(module, &SqfsPy_NotADirectoryError,
		      "SquashfsNotADirectoryError",
		      "A path component is not a directory.",
		      pair(SqfsPy_Error, PyExc_NotADirectoryError)) != 0)
		return -1;
	if (add_class(module, &SqfsPy_FileExistsError,
		      "SquashfsFileExistsError", "The entry already exists.",
		      pair(SqfsPy_Error, PyExc_FileExistsError)) != 0)
		return -1;
	return 0;
}

PyObject *sqfs_py_raise(int code, const char *why, PyObject *filename,
			int saved_errno, PyObject *cause)
{
	PyObject *cls = SqfsPy_Error, *exc, *num;
	int err = EIO;

	switch (code) {
	case SQFS_ERROR_ALLOC:
		Py_XDECREF(cause);
		return PyErr_NoMemory();
	case SQFS_ERROR_IO:
		/* a system call's failure: errno says which OSError it is */
		err = saved_errno != 0 ? saved_errno : EIO;
		if (err == ENOENT)
			cls = SqfsPy_FileNotFoundError;
		else if (err == ENOTDIR)
			cls = SqfsPy_NotADirectoryError;
		else if (err == EEXIST)
			cls = SqfsPy_FileExistsError;
		break;
	case SQFS_ERROR_CORRUPTED:
	case SQFS_ERROR_TRUNCATED:
	case SQFS_ERROR_OUT_OF_BOUNDS:
	case SQFS_ERROR_SUPER_VERSION:
	case SQFS_ERROR_SUPER_BLOCK_SIZE:
	case SQFS_ERROR_LOOP:
		cls = SqfsPy_CorruptImageError;
		break;
	case SQFS_ERROR_SUPER_MAGIC:
		cls = SqfsPy_NotAnImageError;
		break;
	case SQFS_ERROR_UNSUPPORTED:
		cls = SqfsPy_UnsupportedError;
		err = EOPNOTSUPP;
		break;
	case SQFS_ERROR_ARG_INVALID:
	case SQFS_ERROR_OVERFLOW:
	case SQFS_ERROR_LIMIT:
		cls = SqfsPy_EntryError;
		err = code == SQFS_ERROR_OVERFLOW ? EOVERFLOW : EINVAL;
		break;
	case SQFS_ERROR_NO_ENTRY:
		cls = SqfsPy_FileNotFoundError;
		err = ENOENT;
		break;
	case SQFS_ERROR_NOT_DIR:
		cls = SqfsPy_NotADirectoryError;
		err = ENOTDIR;
		break;
	case SQFS_ERROR_EXISTS:
		cls = SqfsPy_FileExistsError;
		err = EEXIST;
		break;
	case SQFS_ERROR_NOT_FILE:
	case SQFS_ERROR_SEQUENCE:
		err = EINVAL;
		break;
	case SQFS_ERROR_CHANGED:
		/* a file on disk changed under the walk: a fact of the
		 * source, not of the program */
		err = EAGAIN;
		break;
	case SQFS_ERROR_ABORTED:
		/* a callback stopped the work: the exception it raised is
		 * the cause */
		err = ECANCELED;
		break;
	default:
		break;
	}

	if (why == NULL || why[0] == '\0')
		why = sqfs_error_string(code);

	if (filename != NULL && filename != Py_None)
		exc = PyObject_CallFunction(cls, "isO", err, why, filename);
	else
		exc = PyObject_CallFunction(cls, "is", err, why);
	if (exc == NULL) {
		Py_XDECREF(cause);
		return NULL;
	}
	num = PyLong_FromLong(code);
	if (num == NULL || PyObject_SetAttrString(exc, "code", num) != 0) {
		Py_XDECREF(num);
		Py_DECREF(exc);
		Py_XDECREF(cause);
		return NULL;
	}
	Py_DECREF(num);
	if (cause != NULL)
		PyException_SetCause(exc, cause);
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *sqfs_py_fspath_bytes(PyObject *path)
{
	PyObject *out = NULL;

	if (!PyUnicode_FSConverter(path, &out))
		return NULL;
	return out;
}

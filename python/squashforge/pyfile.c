/* SPDX-License-Identifier: MIT */
/*
 * pyfile.c - an image read from a Python file object.
 *
 * Image(fileobj) reads through the object's seek and readinto (or read),
 * which run Python code: each read_at takes the GIL. The library calls
 * read_at without the GIL (the caller released it), possibly from several
 * threads at once; a seek and the reads after it must not be split by
 * another thread's seek, and the object's own methods may release the GIL
 * while they wait for I/O. So every read_at first takes a lock of this
 * file and only then the GIL: taking them in the other order would let a
 * thread that holds the GIL wait for the lock while the lock's holder waits
 * for the GIL.
 *
 * The file system is opened with SQFS_FS_SERIALIZE_IO and without
 * read-ahead (image.c), so read_at is only ever called from Python threads
 * that are inside a call of the module, never from the library's own
 * threads: those could not take the GIL safely while the interpreter shuts
 * down.
 */
#include "_squashforge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	sqfs_file_t base;
	PyObject *obj;
	PyThread_type_lock lock;
	uint64_t size;
	int has_readinto;
	/* the exception the object raised last (with the GIL) */
	PyObject *error;
} py_file_t;

static void keep_error(py_file_t *f)
{
	PyObject *value;

#if PY_VERSION_HEX >= 0x030C0000
	value = PyErr_GetRaisedException();
#else
	PyObject *type, *tb;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (value != NULL && tb != NULL)
		PyException_SetTraceback(value, tb);
	Py_XDECREF(type);
	Py_XDECREF(tb);
#endif
	Py_XDECREF(f->error);
	f->error = value;
}

/* The object must not keep a view of our buffer past the call: release
 * it, keeping the exception the call may have raised. */
static void release_view(PyObject *view)
{
#if PY_VERSION_HEX >= 0x030C0000
	PyObject *exc = PyErr_GetRaisedException();

	Py_XDECREF(PyObject_CallMethod(view, "release", NULL));
	PyErr_Clear();
	PyErr_SetRaisedException(exc);
#else
	PyObject *type, *value, *tb;

	PyErr_Fetch(&type, &value, &tb);
	Py_XDECREF(PyObject_CallMethod(view, "release", NULL));
	PyErr_Clear();
	PyErr_Restore(type, value, tb);
#endif
	Py_DECREF(view);
}

/* Read size bytes at offset into buf, with the GIL. */
static int read_locked(py_file_t *f, uint64_t offset, uint8_t *buf, size_t size)
{
	PyObject *ret;
	size_t done = 0;

	ret = PyObject_CallMethod(f->obj, "seek", "Ki",
				  (unsigned long long)offset, 0);
	if (ret == NULL)
		goto fail;
	Py_DECREF(ret);

	while (done < size) {
		size_t want = size - done;
		Py_ssize_t got;

		if (want > (size_t)PY_SSIZE_T_MAX)
			want = (size_t)PY_SSIZE_T_MAX;

		if (f->has_readinto) {
			PyObject *view = PyMemoryView_FromMemory(
			    (char *)buf + done, (Py_ssize_t)want, PyBUF_WRITE);

			if (view == NULL)
				goto fail;
			ret =
			    PyObject_CallMethod(f->obj, "readinto", "O", view);
			release_view(view);
			if (ret == NULL)
				goto fail;
			got = ret == Py_None ? -1 : PyLong_AsSsize_t(ret);
			Py_DECREF(ret);
		} else {
			char *data;
			Py_ssize_t len;

			ret = PyObject_CallMethod(f->obj, "read", "n",
						  (Py_ssize_t)want);
			if (ret == NULL)
				goto fail;
			if (PyBytes_AsStringAndSize(ret, &data, &len) != 0) {
				Py_DECREF(ret);
				goto fail;
			}
			if ((size_t)len > want)
				len = (Py_ssize_t)want;
			memcpy(buf + done, data, (size_t)len);
			Py_DECREF(ret);
			got = len;
		}
		if (got < 0) {
			if (PyErr_Occurred())
				goto fail;
			PyErr_SetString(PyExc_OSError,
					"the file object would block");
			goto fail;
		}
		if (got == 0) {
			PyErr_Format(PyExc_OSError,
				     "the file object ended at %llu, before "
				     "the %llu bytes it had",
				     (unsigned long long)(offset + done),
				     (unsigned long long)f->size);
			goto fail;
		}
		done += (size_t)got;
	}
	return 0;
fail:
	keep_error(f);
	errno = EIO;
	return SQFS_ERROR_IO;
}

static int py_file_read_at(sqfs_file_t *file, uint64_t offset, void *buffer,
			   size_t size)
{
	py_file_t *f = (py_file_t *)file;
	PyGILState_STATE gil;
	int ret;

	if (offset > f->size || size > f->size - offset)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	if (size == 0)
		return 0;

	PyThread_acquire_lock(f->lock, WAIT_LOCK);
	gil = PyGILState_Ensure();
	ret = read_locked(f, offset, buffer, size);
	PyGILState_Release(gil);
	PyThread_release_lock(f->lock);
	return ret;
}

static int py_file_write_at(sqfs_file_t *file, uint64_t offset,
			    const void *buffer, size_t size)
{
	(void)file;
	(void)offset;
	(void)buffer;
	(void)size;
	return SQFS_ERROR_UNSUPPORTED;
}

static uint64_t py_file_get_size(const sqfs_file_t *file)
{
	return ((const py_file_t *)file)->size;
}

static int py_file_truncate(sqfs_file_t *file, uint64_t size)
{
	(void)file;
	(void)size;
	return SQFS_ERROR_UNSUPPORTED;
}

static void py_file_destroy(sqfs_file_t *file)
{
	py_file_t *f = (py_file_t *)file;
	PyGILState_STATE gil = PyGILState_Ensure();

	Py_XDECREF(f->obj);
	Py_XDECREF(f->error);
	PyGILState_Release(gil);
	PyThread_free_lock(f->lock);
	free(f);
}

int sqfs_py_file_open(PyObject *obj, sqfs_file_t **out)
{
	PyObject *ret;
	py_file_t *f;
	long long end;

	if (!PyObject_HasAttrString(obj, "seek") ||
	    (!PyObject_HasAttrString(obj, "readinto") &&
	     !PyObject_HasAttrString(obj, "read"))) {
		PyErr_Format(PyExc_TypeError,
			     "expected a path or a binary file object with "
			     "seek and read, not %.100s",
			     Py_TYPE(obj)->tp_name);
		return -1;
	}

	/* the size, once: an image is not expected to change under us */
	ret = PyObject_CallMethod(obj, "seek", "ii", 0, 2);
	if (ret == NULL)
		return -1;
	Py_DECREF(ret);
	ret = PyObject_CallMethod(obj, "tell", NULL);
	if (ret == NULL)
		return -1;
	end = PyLong_AsLongLong(ret);
	Py_DECREF(ret);
	if (end == -1 && PyErr_Occurred())
		return -1;
	if (end < 0) {
		PyErr_SetString(PyExc_ValueError,
				"the file object reports a negative size");
		return -1;
	}

	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		PyErr_NoMemory();
		return -1;
	}
	f->lock = PyThread_allocate_lock();
	if (f->lock == NULL) {
		free(f);
		PyErr_NoMemory();
		return -1;
	}
	Py_INCREF(obj);
	f->obj = obj;
	f->size = (uint64_t)end;
	f->has_readinto = PyObject_HasAttrString(obj, "readinto");
	f->base.destroy = py_file_destroy;
	f->base.read_at = py_file_read_at;
	f->base.write_at = py_file_write_at;
	f->base.get_size = py_file_get_size;
	f->base.truncate = py_file_truncate;
	*out = &f->base;
	return 0;
}

PyObject *sqfs_py_file_take_error(sqfs_file_t *file)
{
	py_file_t *f = (py_file_t *)file;
	PyObject *err;

	if (file == NULL || file->destroy != py_file_destroy)
		return NULL;
	/* keep_error stores it with the GIL, which the caller holds */
	err = f->error;
	f->error = NULL;
	return err;
}

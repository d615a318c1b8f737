/* SPDX-License-Identifier: MIT */
/*
 * writer.c - _squashforge.Writer: the high-level writer (sqfs/writer.h) on
 * a new file.
 *
 * The object creates the file it is given exclusively (the Python layer
 * picks a temporary name beside the target and renames it when finish
 * succeeds), adds entries, streams file data in and finishes the image,
 * syncing and closing the file so that a finished image is known to be
 * on storage.
 *
 * A writer is used by one thread at a time: every call releases the GIL
 * while the library works (compressing, writing), so a second thread
 * could enter; it gets a RuntimeError instead.
 */
#include "_squashforge.h"

#include <sqfs/compressor.h>
#include <sqfs/entry.h>
#include <sqfs/super.h>
#include <sqfs/writer.h>
#include <sqfs/xattr.h>

#include <sqfs/dir_source.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	PyObject_HEAD sqfs_file_t *file;
	sqfs_writer_t *wr;
	/* a call runs without the GIL */
	int busy;
} writer_object;

static int writer_enter(writer_object *self)
{
	if (self->wr == NULL) {
		PyErr_SetString(PyExc_ValueError,
				"operation on a closed Writer");
		return -1;
	}
	if (self->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the Writer is in use by another thread");
		return -1;
	}
	self->busy = 1;
	return 0;
}

static void writer_release(writer_object *self)
{
	sqfs_writer_destroy(self->wr);
	self->wr = NULL;
	sqfs_file_destroy(self->file);
	self->file = NULL;
}

static PyObject *writer_fail(writer_object *self, int code, PyObject *name)
{
	return sqfs_py_raise(code, sqfs_writer_error(self->wr), name, errno,
			     NULL);
}

static PyObject *writer_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static const char *const kwlist[] = {
	    "path",	   "compressor",    "compressor_options",
	    "block_size",  "devblk_size",   "jobs",
	    "max_backlog", "flags",	    "mkfs_time",
	    "uid",	   "gid",	    "mode",
	    "mtime",	   "mem_limit_mib", NULL};
	const char *comp_name = NULL, *comp_options = NULL;
	unsigned int block_size = SQFS_DEFAULT_BLOCK_SIZE;
	unsigned int devblk_size = SQFS_DEFAULT_DEVBLK_SIZE;
	unsigned int jobs = 0, backlog = 0, flags = 0, mkfs_time = 0;
	unsigned int uid = 0, gid = 0, mode = 0755, mtime = 0, mem_limit = 0;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	PyObject *path_obj, *path = NULL;
	sqfs_writer_options_t opt;
	writer_object *self;
	PyThreadState *ts;
	int id, ret, err;

	if (!PyArg_ParseTupleAndKeywords(
		args, kw, "O|zzIIIIIIIIIII", (char **)kwlist, &path_obj,
		&comp_name, &comp_options, &block_size, &devblk_size, &jobs,
		&backlog, &flags, &mkfs_time, &uid, &gid, &mode, &mtime,
		&mem_limit))
		return NULL;

	sqfs_writer_options_init(&opt);
	if (comp_name == NULL) {
		id = sqfs_compressor_default();
	} else {
		id = sqfs_compressor_id_from_name(comp_name);
		if (id < 0) {
			PyOS_snprintf(why, sizeof(why),
				      "unknown compressor '%s' (gzip, lzma, "
				      "lzo, xz, lz4 or zstd)",
				      comp_name);
			return sqfs_py_raise(SQFS_ERROR_ARG_INVALID, why, NULL,
					     0, NULL);
		}
	}
	if (!sqfs_compressor_is_available(id)) {
		PyOS_snprintf(why, sizeof(why),
			      "this libsquashfs is built without %s",
			      sqfs_compressor_name(id));
		return sqfs_py_raise(SQFS_ERROR_UNSUPPORTED, why, NULL, 0,
				     NULL);
	}
	ret = sqfs_compressor_config_init(
	    &opt.compressor, (sqfs_compressor_id_t)id, block_size, 0);
	if (ret != 0) {
		if (ret == SQFS_ERROR_SUPER_BLOCK_SIZE) {
			PyOS_snprintf(why, sizeof(why),
				      "block size %u is not a power of two "
				      "from 4 KiB to 1 MiB",
				      block_size);
			ret = SQFS_ERROR_ARG_INVALID;
		}
		return sqfs_py_raise(ret, why, NULL, 0, NULL);
	}
	if (comp_options != NULL && comp_options[0] != '\0' &&
	    sqfs_compressor_config_parse(&opt.compressor, comp_options, why,
					 sizeof(why)) != 0)
		return sqfs_py_raise(SQFS_ERROR_ARG_INVALID, why, NULL, 0,
				     NULL);
	opt.block_size = block_size;
	opt.devblk_size = devblk_size;
	opt.num_jobs = jobs;
	opt.max_backlog = backlog;
	opt.flags = flags;
	opt.mkfs_time = mkfs_time;
	opt.default_uid = uid;
	opt.default_gid = gid;
	opt.default_mode = (uint16_t)(mode & 07777);
	opt.default_mtime = mtime;
	opt.mem_limit_mib = mem_limit;

	path = sqfs_py_fspath_bytes(path_obj);
	if (path == NULL)
		return NULL;
	self = (writer_object *)type->tp_alloc(type, 0);
	if (self == NULL) {
		Py_DECREF(path);
		return NULL;
	}

	ts = PyEval_SaveThread();
	ret = sqfs_file_open(&self->file, PyBytes_AS_STRING(path), 0);
	err = errno;
	if (ret == 0) {
		ret = sqfs_writer_create(self->file, &opt, &self->wr, why);
		if (ret != 0) {
			/* ours, made a moment ago, and empty */
			sqfs_file_destroy(self->file);
			self->file = NULL;
			unlink(PyBytes_AS_STRING(path));
		}
	}
	PyEval_RestoreThread(ts);

	if (ret != 0 && self->file == NULL && why[0] == '\0') {
		errno = err;
		PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj);
	} else if (ret != 0) {
		sqfs_py_raise(ret, why, NULL, err, NULL);
	}
	Py_DECREF(path);
	if (ret != 0) {
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

static void writer_dealloc(writer_object *self)
{
	writer_release(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A str or bytes-like key of an xattr, as a new bytes object. */
static PyObject *xattr_key(PyObject *key)
{
	if (PyUnicode_Check(key))
		return PyUnicode_EncodeFSDefault(key);
	return PyBytes_FromObject(key);
}

typedef struct {
	sqfs_xattr_t *list;
	PyObject **keys;
	Py_buffer *values;
	size_t count;
} xattr_args_t;

static void xattr_args_free(xattr_args_t *x)
{
	size_t i;

	for (i = 0; i < x->count; ++i) {
		Py_XDECREF(x->keys[i]);
		PyBuffer_Release(&x->values[i]);
	}
	free(x->list);
	free(x->keys);
	free(x->values);
	memset(x, 0, sizeof(*x));
}

/* xattrs: None or a sequence of (key, value) pairs. */
static int xattr_args_parse(PyObject *xattrs, xattr_args_t *x)
{
	PyObject *seq;
	Py_ssize_t n, i;

	memset(x, 0, sizeof(*x));
	if (xattrs == NULL || xattrs == Py_None)
		return 0;
	seq = PySequence_Fast(xattrs, "xattrs must be a sequence of pairs");
	if (seq == NULL)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n == 0) {
		Py_DECREF(seq);
		return 0;
	}
	x->list = calloc((size_t)n, sizeof(x->list[0]));
	x->keys = calloc((size_t)n, sizeof(x->keys[0]));
	x->values = calloc((size_t)n, sizeof(x->values[0]));
	if (x->list == NULL || x->keys == NULL || x->values == NULL) {
		Py_DECREF(seq);
		xattr_args_free(x);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; ++i) {
		PyObject *item = PySequence_Fast_GET_ITEM(seq, i), *key;
		PyObject *value;

		if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
			PyErr_SetString(PyExc_TypeError,
					"xattrs must be (key, value) pairs");
			goto fail;
		}
		key = xattr_key(PyTuple_GET_ITEM(item, 0));
		if (key == NULL)
			goto fail;
		value = PyTuple_GET_ITEM(item, 1);
		if (PyObject_GetBuffer(value, &x->values[i], PyBUF_SIMPLE) !=
		    0) {
			Py_DECREF(key);
			goto fail;
		}
		if (strlen(PyBytes_AS_STRING(key)) !=
		    (size_t)PyBytes_GET_SIZE(key)) {
			PyBuffer_Release(&x->values[i]);
			Py_DECREF(key);
			PyErr_SetString(PyExc_ValueError,
					"embedded null byte in an xattr key");
			goto fail;
		}
		x->keys[i] = key;
		x->list[i].key = PyBytes_AS_STRING(key);
		x->list[i].value = x->values[i].buf;
		x->list[i].size = (size_t)x->values[i].len;
		x->count++;
	}
	Py_DECREF(seq);
	return 0;
fail:
	Py_DECREF(seq);
	xattr_args_free(x);
	return -1;
}

static PyObject *writer_add(writer_object *self, PyObject *args, PyObject *kw)
{
	static const char *const kwlist[] = {
	    "path",	  "mode",   "uid",
	    "gid",	  "mtime",  "rdev_major",
	    "rdev_minor", "size",   "symlink_target",
	    "hard_link",  "xattrs", "file_flags",
	    NULL};
	PyObject *path_obj, *target_obj = Py_None, *link_obj = Py_None;
	PyObject *xattrs = Py_None, *path, *target = NULL, *link = NULL;
	unsigned int mode = 0, uid = 0, gid = 0, major = 0, minor = 0;
	unsigned int file_flags = 0;
	unsigned long long size = 0;
	long long mtime = 0;
	PyThreadState *ts;
	sqfs_entry_t ent;
	xattr_args_t x;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(
		args, kw, "OI|IILIIKOOOI", (char **)kwlist, &path_obj, &mode,
		&uid, &gid, &mtime, &major, &minor, &size, &target_obj,
		&link_obj, &xattrs, &file_flags))
		return NULL;
	path = sqfs_py_fspath_bytes(path_obj);
	if (path == NULL)
		return NULL;
	if (target_obj != Py_None &&
	    (target = sqfs_py_fspath_bytes(target_obj)) == NULL)
		goto fail_args;
	if (link_obj != Py_None &&
	    (link = sqfs_py_fspath_bytes(link_obj)) == NULL)
		goto fail_args;
	if (xattr_args_parse(xattrs, &x) != 0)
		goto fail_args;
	if (writer_enter(self) != 0) {
		xattr_args_free(&x);
		goto fail_args;
	}

	sqfs_entry_init(&ent, PyBytes_AS_STRING(path), mode, uid, gid, mtime);
	ent.rdev_major = major;
	ent.rdev_minor = minor;
	ent.size = size;
	ent.symlink_target = target == NULL ? NULL : PyBytes_AS_STRING(target);
	ent.hard_link = link == NULL ? NULL : PyBytes_AS_STRING(link);
	ent.xattrs = x.list;
	ent.xattr_count = x.count;

	ts = PyEval_SaveThread();
	ret = sqfs_writer_add(self->wr, &ent, file_flags);
	PyEval_RestoreThread(ts);
	self->busy = 0;
	xattr_args_free(&x);
	Py_XDECREF(target);
	Py_XDECREF(link);
	if (ret != 0) {
		writer_fail(self, ret, path_obj);
		Py_DECREF(path);
		return NULL;
	}
	Py_DECREF(path);
	Py_RETURN_NONE;
fail_args:
	Py_XDECREF(target);
	Py_XDECREF(link);
	Py_DECREF(path);
	return NULL;
}

static PyObject *writer_append(writer_object *self, PyObject *arg)
{
	PyThreadState *ts;
	Py_buffer view;
	int ret;

	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) != 0)
		return NULL;
	if (writer_enter(self) != 0) {
		PyBuffer_Release(&view);
		return NULL;
	}
	ts = PyEval_SaveThread();
	ret = sqfs_writer_append(self->wr, view.buf, (size_t)view.len);
	PyEval_RestoreThread(ts);
	self->busy = 0;
	PyBuffer_Release(&view);
	if (ret != 0)
		return writer_fail(self, ret, NULL);
	Py_RETURN_NONE;
}

static PyObject *writer_append_hole(writer_object *self, PyObject *arg)
{
	unsigned long long size = PyLong_AsUnsignedLongLong(arg);
	PyThreadState *ts;
	int ret;

	if (size == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	if (writer_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_writer_append_hole(self->wr, size);
	PyEval_RestoreThread(ts);
	self->busy = 0;
	if (ret != 0)
		return writer_fail(self, ret, NULL);
	Py_RETURN_NONE;
}

static PyObject *writer_end_file(writer_object *self, PyObject *unused)
{
	PyThreadState *ts;
	int ret;

	(void)unused;
	if (writer_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_writer_end_file(self->wr);
	PyEval_RestoreThread(ts);
	self->busy = 0;
	if (ret != 0)
		return writer_fail(self, ret, NULL);
	Py_RETURN_NONE;
}

static PyObject *stats_dict(const sqfs_writer_stats_t *s)
{
	return Py_BuildValue(
	    "{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "bytes_in",
	    (unsigned long long)s->bytes_in, "bytes_written",
	    (unsigned long long)s->bytes_written, "image_size",
	    (unsigned long long)s->image_size, "data_blocks",
	    (unsigned long long)s->data_blocks, "fragment_blocks",
	    (unsigned long long)s->fragment_blocks, "duplicate_blocks",
	    (unsigned long long)s->duplicate_blocks, "duplicate_fragments",
	    (unsigned long long)s->duplicate_fragments, "sparse_blocks",
	    (unsigned long long)s->sparse_blocks, "files",
	    (unsigned long long)s->files, "inodes",
	    (unsigned long long)s->inodes, "ids", (unsigned long long)s->ids,
	    "inode_table_bytes", (unsigned long long)s->inode_table_bytes,
	    "directory_table_bytes",
	    (unsigned long long)s->directory_table_bytes);
}

/*
 * finish() -> stats: finish the image, make it durable (sync, close) and
 * close the writer, whatever the outcome. The caller renames the file into
 * place on success and removes it otherwise.
 */
static PyObject *writer_finish(writer_object *self, PyObject *unused)
{
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_writer_stats_t stats;
	PyThreadState *ts;
	int ret, err = 0;

	(void)unused;
	if (writer_enter(self) != 0)
		return NULL;
	memset(&stats, 0, sizeof(stats));
	ts = PyEval_SaveThread();
	ret = sqfs_writer_finish(self->wr);
	if (ret != 0) {
		err = errno;
		snprintf(why, sizeof(why), "%s", sqfs_writer_error(self->wr));
	} else {
		sqfs_writer_get_stats(self->wr, &stats);
		ret = sqfs_file_sync(self->file);
		if (ret != 0) {
			err = errno;
			snprintf(why, sizeof(why),
				 "cannot write the image to storage: %s",
				 strerror(err));
		} else {
			ret = sqfs_file_close(self->file);
			self->file = NULL;
			if (ret != 0) {
				err = errno;
				snprintf(why, sizeof(why),
					 "closing the image failed: %s",
					 strerror(err));
			}
		}
	}
	PyEval_RestoreThread(ts);
	self->busy = 0;
	writer_release(self);
	if (ret != 0)
		return sqfs_py_raise(ret, why, NULL, err, NULL);
	return stats_dict(&stats);
}

static PyObject *writer_abort(writer_object *self, PyObject *unused)
{
	(void)unused;
	if (self->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the Writer is in use by another thread");
		return NULL;
	}
	writer_release(self);
	Py_RETURN_NONE;
}

static PyObject *writer_get_usable(writer_object *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->wr != NULL && !self->busy &&
			       sqfs_writer_usable(self->wr));
}

static PyObject *writer_get_closed(writer_object *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->wr == NULL);
}

static PyObject *writer_add_tree(writer_object *self, PyObject *args,
				 PyObject *kw)
{
	static const char *const kwlist[] = {
	    "directory",       "prefix",	  "xattrs", "hard_links",
	    "one_file_system", "skip_unreadable", NULL};
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	PyObject *dir_obj, *prefix_obj = NULL, *dir, *prefix = NULL;
	int xattrs = 1, hard_links = 1, one_fs = 0, skip = 0, ret, err;
	sqfs_py_warnings_t warnings = {NULL, 0};
	PyObject *list = NULL;
	uint32_t flags = 0;
	PyThreadState *ts;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Opppp", (char **)kwlist,
					 &dir_obj, &prefix_obj, &xattrs,
					 &hard_links, &one_fs, &skip))
		return NULL;
	dir = sqfs_py_fspath_bytes(dir_obj);
	if (dir == NULL)
		return NULL;
	prefix = prefix_obj == NULL ? PyBytes_FromString("")
				    : sqfs_py_fspath_bytes(prefix_obj);
	if (prefix == NULL || writer_enter(self) != 0) {
		Py_DECREF(dir);
		Py_XDECREF(prefix);
		return NULL;
	}
	if (!xattrs)
		flags |= SQFS_DIR_SOURCE_NO_XATTRS;
	if (!hard_links)
		flags |= SQFS_DIR_SOURCE_NO_HARD_LINKS;
	if (one_fs)
		flags |= SQFS_DIR_SOURCE_ONE_FILESYSTEM;
	if (skip)
		flags |= SQFS_DIR_SOURCE_SKIP_UNREADABLE;

	ts = PyEval_SaveThread();
	ret = sqfs_py_copy_tree(self->wr, PyBytes_AS_STRING(dir),
				PyBytes_AS_STRING(prefix), flags,
				sqfs_py_warnings_keep, &warnings, why);
	err = errno;
	PyEval_RestoreThread(ts);
	self->busy = 0;
	Py_DECREF(prefix);
	Py_DECREF(dir);
	if (ret != 0) {
		sqfs_py_raise(ret, why, dir_obj, err, NULL);
	} else {
		list = sqfs_py_warnings_list(&warnings);
	}
	sqfs_py_warnings_free(&warnings);
	return list;
}

static PyMethodDef writer_methods[] = {
    {"add", (PyCFunction)(void (*)(void))writer_add,
     METH_VARARGS | METH_KEYWORDS,
     "add(path, mode, uid=0, gid=0, mtime=0, rdev_major=0, "
     "rdev_minor=0, size=0,\n    symlink_target=None, hard_link=None, "
     "xattrs=None, file_flags=0)\nAdd one entry (sqfs_writer_add); a "
     "regular file stays open for append."},
    {"append", (PyCFunction)writer_append, METH_O,
     "append(data): data of the open file."},
    {"append_hole", (PyCFunction)writer_append_hole, METH_O,
     "append_hole(size): size bytes of zeros, stored as a hole."},
    {"end_file", (PyCFunction)writer_end_file, METH_NOARGS,
     "Complete the open file."},
    {"finish", (PyCFunction)writer_finish, METH_NOARGS,
     "finish() -> stats: finish, sync and close the image."},
    {"abort", (PyCFunction)writer_abort, METH_NOARGS,
     "Drop the writer and close the file, unfinished."},
    {"add_tree", (PyCFunction)(void (*)(void))writer_add_tree,
     METH_VARARGS | METH_KEYWORDS,
     "add_tree(directory, prefix=b'', xattrs=True, hard_links=True,\n"
     "    one_file_system=False, skip_unreadable=False) -> warnings\n"
     "Copy a directory tree on disk into the image (sqfs_dir_source)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef writer_getset[] = {
    {"usable", (getter)writer_get_usable, NULL,
     "Whether the writer can go on (false after a failure that is not "
     "a refusal).",
     NULL},
    {"closed", (getter)writer_get_closed, NULL,
     "Whether finish() or abort() was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject SqfsPyWriter_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "squashforge._squashforge.Writer",
    .tp_basicsize = sizeof(writer_object),
    .tp_dealloc = (destructor)writer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Writer(path, compressor=None, ...)\n\nThe high-level "
	      "writer (sqfs/writer.h) on a new file at path.",
    .tp_methods = writer_methods,
    .tp_getset = writer_getset,
    .tp_new = writer_new,
};

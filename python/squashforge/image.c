/* SPDX-License-Identifier: MIT */
/*
 * image.c - _squashforge.FS: an image opened as a file system (sqfs/fs.h),
 * and _squashforge.File: one regular file of it opened for reading.
 *
 * The file system object of the library serves any number of threads at
 * once, so every method releases the GIL around its library call and many
 * Python threads read, list and decompress in parallel. Inodes are named
 * by their node ids (ints), which the Python layer gets from resolve,
 * lookup and readdir.
 *
 * Closing while other threads are inside a call: close() only marks the
 * object closed (new calls raise ValueError); the library object is
 * destroyed when the last running call returns and the last File opened
 * from it is closed (a File keeps its image readable). The counters are
 * changed with the GIL held, so they need no lock of their own.
 */
#include "_squashforge.h"

#include <structmember.h>

#include <sqfs/compressor.h>
#include <sqfs/fs.h>
#include <sqfs/image.h>
#include <sqfs/inode.h>
#include <sqfs/super.h>
#include <sqfs/xattr.h>

#include <sqfs/unpack.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	PyObject_HEAD
	    /* what the file system reads: a window over the source when the
	     * image starts at an offset (owning it) */
	    sqfs_file_t *file;
	/* the Python file object's back end under it, or NULL */
	sqfs_file_t *pyfile;
	sqfs_fs_t *fs;
	uint64_t offset;
	PyObject *comp_options;
	int closed;
	/* calls running without the GIL, and Files not closed */
	Py_ssize_t active;
	Py_ssize_t handles;
} fs_object;

/*
 * squashforge.SquashFile: a subclass of io.RawIOBase's C base
 * (_io._RawIOBase), as io.FileIO is, so that reading a file costs C calls
 * only. The base's fields (its __dict__ and weak references) come first
 * and their size is only known at run time: ours follow them, at
 * file_offset (FILE(obj)).
 */
typedef struct {
	fs_object *owner;
	sqfs_fs_file_t *handle;
	PyObject *name;
	uint64_t size;
	/* the position: read, readinto, seek and tell */
	uint64_t pos;
	int closed;
	/* calls running without the GIL */
	Py_ssize_t active;
} file_data;

static Py_ssize_t file_offset;
static PyTypeObject *file_type;
static PyObject *unsupported_operation;

#define FILE_DATA(obj) ((file_data *)((char *)(obj) + file_offset))

/* ------------------------------------------------------------------ */

static void fs_release(fs_object *self)
{
	sqfs_fs_destroy(self->fs);
	self->fs = NULL;
	sqfs_file_destroy(self->file);
	self->file = NULL;
	self->pyfile = NULL;
}

static int fs_enter(fs_object *self)
{
	if (self->closed || self->fs == NULL) {
		PyErr_SetString(PyExc_ValueError,
				"I/O operation on closed image");
		return -1;
	}
	++self->active;
	return 0;
}

static void fs_leave(fs_object *self)
{
	--self->active;
	if (self->closed && self->active == 0 && self->handles == 0)
		fs_release(self);
}

static PyObject *fs_fail(fs_object *self, int code, const char *why,
			 int saved_errno)
{
	return sqfs_py_raise(code, why, NULL, saved_errno,
			     sqfs_py_file_take_error(self->pyfile));
}

static PyObject *stat_tuple(const sqfs_fs_stat_t *st)
{
	return Py_BuildValue("(IIIIIIIIKKIIK)", st->ino, st->mode, st->nlink,
			     st->uid, st->gid, st->mtime, st->rdev_major,
			     st->rdev_minor, (unsigned long long)st->size,
			     (unsigned long long)st->blocks, st->parent,
			     st->has_xattrs, (unsigned long long)st->node);
}

/* Parse offset: a non-negative int, or "auto". */
static int parse_offset(PyObject *obj, int *automatic, uint64_t *offset)
{
	*automatic = 0;
	*offset = 0;
	if (obj == NULL || obj == Py_None)
		return 0;
	if (PyUnicode_Check(obj)) {
		if (PyUnicode_CompareWithASCIIString(obj, "auto") == 0) {
			*automatic = 1;
			return 0;
		}
		PyErr_SetString(PyExc_ValueError,
				"offset must be an int or \"auto\"");
		return -1;
	}
	*offset = PyLong_AsUnsignedLongLong(obj);
	if (*offset == (uint64_t)-1 && PyErr_Occurred()) {
		if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
			PyErr_Clear();
			PyErr_SetString(PyExc_ValueError,
					"offset must not be negative");
		}
		return -1;
	}
	return 0;
}

static int is_path(PyObject *obj)
{
	return PyUnicode_Check(obj) || PyBytes_Check(obj) ||
	       PyObject_HasAttrString(obj, "__fspath__");
}

static PyObject *fs_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	PyThreadState *ts;
	static const char *const kwlist[] = {
	    "source", "offset", "meta_cache", "data_cache", "read_ahead", NULL};
	PyObject *source, *offset_obj = NULL, *path = NULL;
	unsigned long long meta_cache = 0, data_cache = 0;
	int read_ahead = 1, automatic, ret = 0, saved_errno = 0;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_file_t *base = NULL, *win;
	sqfs_fs_options_t opt;
	sqfs_compressor_config_t cfg;
	char comp_text[256] = "";
	fs_object *self;
	uint64_t offset;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OKKp", (char **)kwlist,
					 &source, &offset_obj, &meta_cache,
					 &data_cache, &read_ahead))
		return NULL;
	if (parse_offset(offset_obj, &automatic, &offset) != 0)
		return NULL;

	self = (fs_object *)type->tp_alloc(type, 0);
	if (self == NULL)
		return NULL;

	if (is_path(source)) {
		path = sqfs_py_fspath_bytes(source);
		if (path == NULL)
			goto fail;
		ts = PyEval_SaveThread();
		ret = sqfs_file_open(&base, PyBytes_AS_STRING(path),
				     SQFS_FILE_OPEN_READ_ONLY);
		saved_errno = errno;
		PyEval_RestoreThread(ts);
		if (ret != 0) {
			errno = saved_errno;
			PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError,
							     source);
			goto fail;
		}
	} else {
		if (sqfs_py_file_open(source, &base) != 0)
			goto fail;
		self->pyfile = base;
	}
	self->file = base;

	memset(&opt, 0, sizeof(opt));
	opt.meta_cache_bytes = meta_cache;
	opt.data_cache_bytes = data_cache;
	if (!read_ahead)
		opt.flags |= SQFS_FS_NO_READ_AHEAD;
	/* Python reads a file whole (read()) or in large pieces (1 MiB
	 * readinto, shutil): one call takes more blocks than the default
	 * window of 4 holds, and would catch up with the workers */
	opt.read_ahead_blocks = 32;
	/* pyfile.c: one reader at a time, and only Python threads */
	if (self->pyfile != NULL)
		opt.flags |= SQFS_FS_SERIALIZE_IO | SQFS_FS_NO_READ_AHEAD;

	ts = PyEval_SaveThread();
	if (automatic)
		ret = sqfs_image_locate(base, SQFS_LOCATE_SCAN_LIMIT, &offset,
					why);
	if (ret == 0 && offset != 0) {
		ret = sqfs_file_open_window(&win, base, offset,
					    SQFS_FILE_WINDOW_OWN);
		if (ret == 0)
			self->file = win;
	}
	if (ret == 0)
		ret = sqfs_fs_open(self->file, &opt, &self->fs, why);
	saved_errno = errno;
	if (ret == 0) {
		/* the -X string of the compressor's settings */
		const sqfs_super_t *super = sqfs_fs_super(self->fs);

		if (sqfs_compressor_config_init(
			&cfg, (sqfs_compressor_id_t)super->compression_id,
			super->block_size, SQFS_COMP_FLAG_UNCOMPRESS) == 0 &&
		    ((super->flags & SQFS_FLAG_COMPRESSOR_OPTIONS) == 0 ||
		     sqfs_compressor_config_read_options(&cfg, self->file) ==
			 0) &&
		    sqfs_compressor_config_format(&cfg, comp_text,
						  sizeof(comp_text)) < 0)
			comp_text[0] = '\0';
	}
	PyEval_RestoreThread(ts);
	if (ret != 0) {
		sqfs_py_raise(ret, why, path != NULL ? source : NULL,
			      saved_errno,
			      sqfs_py_file_take_error(self->pyfile));
		goto fail;
	}
	self->offset = offset;
	self->comp_options = PyUnicode_FromString(comp_text);
	if (self->comp_options == NULL)
		goto fail;
	Py_XDECREF(path);
	return (PyObject *)self;
fail:
	Py_XDECREF(path);
	Py_DECREF(self);
	return NULL;
}

static void fs_dealloc(fs_object *self)
{
	/* no call runs (each holds a reference) and no File is open (each
	 * holds one too) */
	fs_release(self);
	Py_XDECREF(self->comp_options);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *fs_close(fs_object *self, PyObject *unused)
{
	(void)unused;
	if (!self->closed) {
		self->closed = 1;
		if (self->active == 0 && self->handles == 0)
			fs_release(self);
	}
	Py_RETURN_NONE;
}

static PyObject *fs_get_closed(fs_object *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->closed);
}

static PyObject *fs_get_offset(fs_object *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLongLong(self->offset);
}

static PyObject *fs_superblock(fs_object *self, PyObject *unused)
{
	const sqfs_super_t *s;
	const char *comp;
	PyObject *out;

	(void)unused;
	if (fs_enter(self) != 0)
		return NULL;
	s = sqfs_fs_super(self->fs);
	comp = sqfs_compressor_name(s->compression_id);
	out = Py_BuildValue(
	    "{s:s,s:O,s:I,s:I,s:I,s:I,s:I,s:H,s:H,s:(HH),s:K,s:K,s:K}",
	    "compressor", comp != NULL ? comp : "unknown", "compressor_options",
	    self->comp_options, "block_size", s->block_size, "inode_count",
	    s->inode_count, "modification_time", s->modification_time,
	    "fragment_count", s->fragment_entry_count, "id_count",
	    (unsigned int)s->id_count, "flags", s->flags, "compression_id",
	    s->compression_id, "version", s->version_major, s->version_minor,
	    "bytes_used", (unsigned long long)s->bytes_used, "root_inode_ref",
	    (unsigned long long)s->root_inode_ref, "offset",
	    (unsigned long long)self->offset);
	fs_leave(self);
	return out;
}

static PyObject *fs_root(fs_object *self, PyObject *unused)
{
	PyObject *out;

	(void)unused;
	if (fs_enter(self) != 0)
		return NULL;
	out = PyLong_FromUnsignedLongLong(sqfs_fs_root(self->fs));
	fs_leave(self);
	return out;
}

static PyObject *fs_stat(fs_object *self, PyObject *arg)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	unsigned long long id = PyLong_AsUnsignedLongLong(arg);
	sqfs_fs_stat_t st;
	int ret, err;

	if (id == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	if (fs_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_fs_stat(self->fs, id, &st, why);
	err = errno;
	PyEval_RestoreThread(ts);
	fs_leave(self);
	if (ret != 0)
		return fs_fail(self, ret, why, err);
	return stat_tuple(&st);
}

static PyObject *fs_lookup(fs_object *self, PyObject *args)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	unsigned long long dir;
	const char *name;
	Py_ssize_t len;
	sqfs_fs_stat_t st;
	int ret, err;

	if (!PyArg_ParseTuple(args, "Ky#", &dir, &name, &len))
		return NULL;
	if (fs_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_fs_lookup(self->fs, dir, name, (size_t)len, &st, why);
	err = errno;
	PyEval_RestoreThread(ts);
	fs_leave(self);
	if (ret != 0)
		return fs_fail(self, ret, why, err);
	return stat_tuple(&st);
}

static PyObject *fs_resolve(fs_object *self, PyObject *arg)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	uint64_t node = 0;
	PyObject *path;
	int ret, err;

	path = sqfs_py_fspath_bytes(arg);
	if (path == NULL)
		return NULL;
	if (fs_enter(self) != 0) {
		Py_DECREF(path);
		return NULL;
	}
	ts = PyEval_SaveThread();
	ret = sqfs_fs_resolve(self->fs, PyBytes_AS_STRING(path), &node, why);
	err = errno;
	PyEval_RestoreThread(ts);
	fs_leave(self);
	Py_DECREF(path);
	if (ret != 0)
		return fs_fail(self, ret, why, err);
	return PyLong_FromUnsignedLongLong(node);
}

/* readdir: the entries are copied out without the GIL, made into Python
 * objects after it. */
typedef struct {
	char *name;
	size_t name_len;
	uint32_t ino, type;
	uint64_t node, next;
	int has_stat;
	sqfs_fs_stat_t st;
} dent_t;

typedef struct {
	dent_t *ents;
	size_t count, max;
	int stopped;
} dent_list_t;

static int collect_dent(void *user, const sqfs_fs_dirent_t *ent)
{
	dent_list_t *l = user;
	dent_t *d;

	if (l->count == l->max) {
		l->stopped = 1;
		return 1;
	}
	d = &l->ents[l->count];
	d->name = malloc(ent->name_len + 1);
	if (d->name == NULL)
		return SQFS_ERROR_ALLOC;
	memcpy(d->name, ent->name, ent->name_len);
	d->name[ent->name_len] = '\0';
	d->name_len = ent->name_len;
	d->ino = ent->ino;
	d->type = ent->type;
	d->node = ent->node;
	d->next = ent->next_cookie;
	d->has_stat = ent->stat != NULL;
	if (ent->stat != NULL)
		d->st = *ent->stat;
	l->count++;
	return 0;
}

static PyObject *fs_readdir(fs_object *self, PyObject *args)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	unsigned long long dir, cookie;
	Py_ssize_t max = 256;
	int with_stat = 1, ret, err;
	PyObject *list = NULL, *out = NULL;
	dent_list_t l;
	size_t i;

	if (!PyArg_ParseTuple(args, "KK|np", &dir, &cookie, &max, &with_stat))
		return NULL;
	if (max < 1 || max > 65536) {
		PyErr_SetString(PyExc_ValueError,
				"count must be from 1 to 65536");
		return NULL;
	}
	memset(&l, 0, sizeof(l));
	l.max = (size_t)max;
	l.ents = calloc(l.max, sizeof(l.ents[0]));
	if (l.ents == NULL)
		return PyErr_NoMemory();
	if (fs_enter(self) != 0) {
		free(l.ents);
		return NULL;
	}
	ts = PyEval_SaveThread();
	ret = sqfs_fs_readdir(self->fs, dir, cookie,
			      with_stat ? SQFS_FS_READDIR_STAT : 0,
			      collect_dent, &l, why);
	err = errno;
	PyEval_RestoreThread(ts);
	fs_leave(self);
	if (ret != 0) {
		fs_fail(self, ret, why, err);
		goto out;
	}

	list = PyList_New((Py_ssize_t)l.count);
	if (list == NULL)
		goto out;
	for (i = 0; i < l.count; ++i) {
		dent_t *d = &l.ents[i];
		PyObject *st, *item;

		if (d->has_stat) {
			st = stat_tuple(&d->st);
			if (st == NULL)
				goto out;
		} else {
			Py_INCREF(Py_None);
			st = Py_None;
		}
		item = Py_BuildValue("(y#IKIN)", d->name,
				     (Py_ssize_t)d->name_len, d->ino,
				     (unsigned long long)d->node, d->type, st);
		if (item == NULL)
			goto out;
		PyList_SET_ITEM(list, (Py_ssize_t)i, item);
	}
	out = Py_BuildValue(
	    "(OK)", list,
	    (unsigned long long)(l.stopped ? l.ents[l.count - 1].next : 0));
out:
	Py_XDECREF(list);
	for (i = 0; i < l.count; ++i)
		free(l.ents[i].name);
	free(l.ents);
	return out;
}

static PyObject *fs_readlink(fs_object *self, PyObject *arg)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	unsigned long long id = PyLong_AsUnsignedLongLong(arg);
	char buf[SQFS_MAX_SYMLINK_SIZE + 1];
	size_t len = 0;
	int ret, err;

	if (id == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	if (fs_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_fs_readlink(self->fs, id, buf, sizeof(buf), &len, why);
	err = errno;
	PyEval_RestoreThread(ts);
	fs_leave(self);
	if (ret != 0)
		return fs_fail(self, ret, why, err);
	return PyBytes_FromStringAndSize(buf, (Py_ssize_t)len);
}

static PyObject *fs_prefetch(fs_object *self, PyObject *arg)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	unsigned long long id = PyLong_AsUnsignedLongLong(arg);
	int ret, err;

	if (id == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	if (fs_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_fs_prefetch(self->fs, id, why);
	err = errno;
	PyEval_RestoreThread(ts);
	fs_leave(self);
	if (ret != 0)
		return fs_fail(self, ret, why, err);
	Py_RETURN_NONE;
}

static PyObject *fs_xattrs(fs_object *self, PyObject *arg)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	unsigned long long id = PyLong_AsUnsignedLongLong(arg);
	sqfs_xattr_t *list = NULL;
	PyObject *out = NULL;
	size_t count = 0, i;
	int ret, err;

	if (id == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	if (fs_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_fs_xattrs(self->fs, id, &list, &count, why);
	err = errno;
	PyEval_RestoreThread(ts);
	fs_leave(self);
	if (ret != 0)
		return fs_fail(self, ret, why, err);

	out = PyList_New((Py_ssize_t)count);
	for (i = 0; out != NULL && i < count; ++i) {
		PyObject *item = Py_BuildValue("(yy#)", list[i].key,
					       (const char *)list[i].value,
					       (Py_ssize_t)list[i].size);

		if (item == NULL) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, (Py_ssize_t)i, item);
	}
	sqfs_xattr_list_free(list, count);
	return out;
}

static PyObject *fs_open_file(fs_object *self, PyObject *args)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	unsigned long long id;
	PyObject *name = Py_None, *obj;
	sqfs_fs_file_t *handle = NULL;
	file_data *f;
	int ret, err;

	if (!PyArg_ParseTuple(args, "K|O", &id, &name))
		return NULL;
	if (fs_enter(self) != 0)
		return NULL;
	ts = PyEval_SaveThread();
	ret = sqfs_fs_file_open(self->fs, id, &handle, why);
	err = errno;
	PyEval_RestoreThread(ts);
	if (ret != 0) {
		fs_leave(self);
		return fs_fail(self, ret, why, err);
	}
	obj = file_type->tp_alloc(file_type, 0);
	if (obj == NULL) {
		sqfs_fs_file_close(handle);
		fs_leave(self);
		return NULL;
	}
	f = FILE_DATA(obj);
	Py_INCREF(self);
	f->owner = self;
	f->handle = handle;
	Py_INCREF(name);
	f->name = name;
	f->size = sqfs_fs_file_size(handle);
	self->handles++;
	fs_leave(self);
	return obj;
}

static PyObject *fs_cache_stats(fs_object *self, PyObject *unused)
{
	sqfs_fs_cache_stats_t s;

	(void)unused;
	if (fs_enter(self) != 0)
		return NULL;
	sqfs_fs_cache_stats(self->fs, &s);
	fs_leave(self);
	return Py_BuildValue(
	    "{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "meta_bytes",
	    (unsigned long long)s.meta_bytes, "meta_limit",
	    (unsigned long long)s.meta_limit, "meta_hits",
	    (unsigned long long)s.meta_hits, "meta_misses",
	    (unsigned long long)s.meta_misses, "data_bytes",
	    (unsigned long long)s.data_bytes, "data_limit",
	    (unsigned long long)s.data_limit, "data_hits",
	    (unsigned long long)s.data_hits, "data_misses",
	    (unsigned long long)s.data_misses, "read_ahead_done",
	    (unsigned long long)s.read_ahead_done, "read_ahead_used",
	    (unsigned long long)s.read_ahead_used, "decompressed",
	    (unsigned long long)s.decompressed);
}

/* extract(...) -> the list of warnings (str) */
static PyObject *fs_extract(fs_object *self, PyObject *args, PyObject *kw)
{
	static const char *const kwlist[] = {
	    "path",  "dest",	  "xattrs",    "times", "chmod",
	    "chown", "overwrite", "make_dest", "jobs",	NULL};
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	PyObject *path_obj, *dest_obj, *path = NULL, *dest = NULL;
	int xattrs = 1, times = 1, chmod = 1, chown = 0, overwrite = 0;
	int make_dest = 0, ret = 0, err;
	unsigned int jobs = 0;
	sqfs_py_warnings_t warnings = {NULL, 0};
	sqfs_unpack_options_t opt;
	sqfs_image_t *img = NULL;
	PyObject *list = NULL;
	PyThreadState *ts;

	if (!PyArg_ParseTupleAndKeywords(
		args, kw, "OO|ppppppI", (char **)kwlist, &path_obj, &dest_obj,
		&xattrs, &times, &chmod, &chown, &overwrite, &make_dest, &jobs))
		return NULL;
	path = sqfs_py_fspath_bytes(path_obj);
	dest = path == NULL ? NULL : sqfs_py_fspath_bytes(dest_obj);
	if (dest == NULL || fs_enter(self) != 0) {
		Py_XDECREF(path);
		Py_XDECREF(dest);
		return NULL;
	}

	sqfs_unpack_options_init(&opt);
	if (xattrs)
		opt.flags |= SQFS_UNPACK_SET_XATTRS;
	if (times)
		opt.flags |= SQFS_UNPACK_SET_TIMES;
	if (chmod)
		opt.flags |= SQFS_UNPACK_CHMOD;
	if (chown)
		opt.flags |= SQFS_UNPACK_CHOWN;
	if (overwrite)
		opt.flags |= SQFS_UNPACK_OVERWRITE;
	if (make_dest)
		opt.flags |= SQFS_UNPACK_MAKE_DEST;
	opt.num_jobs = jobs;
	opt.warn = sqfs_py_warnings_keep;
	opt.user = &warnings;

	/* an image object of its own: they serve one thread each */
	ts = PyEval_SaveThread();
	ret = sqfs_image_open(self->file, &img, why);
	if (ret == 0)
		ret = sqfs_unpack(img, PyBytes_AS_STRING(path),
				  PyBytes_AS_STRING(dest), &opt, why);
	err = errno;
	sqfs_image_destroy(img);
	PyEval_RestoreThread(ts);
	fs_leave(self);

	if (ret != 0) {
		sqfs_py_raise(ret, why, path_obj, err,
			      sqfs_py_file_take_error(self->pyfile));
	} else {
		list = sqfs_py_warnings_list(&warnings);
	}
	sqfs_py_warnings_free(&warnings);
	Py_DECREF(path);
	Py_DECREF(dest);
	return list;
}

static PyMethodDef fs_methods[] = {
    {"close", (PyCFunction)fs_close, METH_NOARGS,
     "Close the image (once running calls and open Files are done)."},
    {"superblock", (PyCFunction)fs_superblock, METH_NOARGS,
     "The superblock's fields as a dict."},
    {"root", (PyCFunction)fs_root, METH_NOARGS,
     "The root directory's node id."},
    {"stat", (PyCFunction)fs_stat, METH_O,
     "stat(id) -> the attributes of a node id or inode number."},
    {"lookup", (PyCFunction)fs_lookup, METH_VARARGS,
     "lookup(dir, name) -> the attributes of name in dir."},
    {"resolve", (PyCFunction)fs_resolve, METH_O,
     "resolve(path) -> the node id of path (no symlink followed)."},
    {"readdir", (PyCFunction)fs_readdir, METH_VARARGS,
     "readdir(dir, cookie, count=256, stat=True) -> (entries, cookie)\n"
     "Up to count entries (name, ino, node, type, stat or None) from "
     "cookie on;\nthe cookie to go on from, 0 at the end."},
    {"prefetch", (PyCFunction)fs_prefetch, METH_O,
     "prefetch(id) -> None: queue the regular file's first blocks for the "
     "read-ahead threads (a hint; sqfs_fs_prefetch)."},
    {"readlink", (PyCFunction)fs_readlink, METH_O,
     "readlink(id) -> the symlink's target (bytes)."},
    {"xattrs", (PyCFunction)fs_xattrs, METH_O,
     "xattrs(id) -> [(key, value)] (bytes) in on-disk order."},
    {"open", (PyCFunction)fs_open_file, METH_VARARGS,
     "open(id, name=None) -> SquashFile: the regular file id, for "
     "reading."},
    {"cache_stats", (PyCFunction)fs_cache_stats, METH_NOARGS,
     "What the caches hold and did."},
    {"extract", (PyCFunction)(void (*)(void))fs_extract,
     METH_VARARGS | METH_KEYWORDS,
     "extract(path, dest, xattrs=True, times=True, chmod=True, "
     "chown=False,\n    overwrite=False, make_dest=False, jobs=0) -> "
     "warnings\nUnpack path of the image into the directory dest "
     "(sqfs_unpack)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef fs_getset[] = {
    {"closed", (getter)fs_get_closed, NULL, "Whether close() was called.",
     NULL},
    {"offset", (getter)fs_get_offset, NULL,
     "Where the image starts in its file.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject SqfsPyFS_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "squashforge._squashforge.FS",
    .tp_basicsize = sizeof(fs_object),
    .tp_dealloc = (destructor)fs_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "FS(source, offset=0, meta_cache=0, data_cache=0, "
	      "read_ahead=True)\n\nAn image as a file system "
	      "(sqfs/fs.h); source is a path or a binary file object.",
    .tp_methods = fs_methods,
    .tp_getset = fs_getset,
    .tp_new = fs_new,
};

/* ------------------------------------------------------------------ */

static void file_release(file_data *f)
{
	fs_object *owner = f->owner;

	sqfs_fs_file_close(f->handle);
	f->handle = NULL;
	owner->handles--;
	if (owner->closed && owner->active == 0 && owner->handles == 0)
		fs_release(owner);
}

static int file_check(file_data *f)
{
	if (f->closed) {
		PyErr_SetString(PyExc_ValueError,
				"I/O operation on closed file.");
		return -1;
	}
	return 0;
}

static void file_leave(file_data *f)
{
	if (--f->active == 0 && f->closed && f->handle != NULL)
		file_release(f);
}

/* Up to size bytes at offset into buf (fewer only at the end of the
 * file), read without the GIL; the count, or -1 with the exception set. */
static ptrdiff_t file_read_at(file_data *f, uint64_t offset, void *buf,
			      size_t size)
{
	PyThreadState *ts;
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	ptrdiff_t ret;
	int err;

	if (offset >= f->size || size == 0)
		return 0;
	++f->active;
	ts = PyEval_SaveThread();
	ret = sqfs_fs_file_read(f->handle, offset, buf, size, why);
	err = errno;
	PyEval_RestoreThread(ts);
	if (ret < 0) {
		fs_fail(f->owner, (int)ret, why, err);
		ret = -1;
	}
	file_leave(f);
	return ret;
}

/* Up to size bytes at offset (fewer only at the end of the file) as a new
 * bytes object: allocated once, filled without the GIL. */
static PyObject *file_read_range(file_data *f, uint64_t offset, Py_ssize_t size)
{
	PyObject *out;
	ptrdiff_t ret;

	if (offset >= f->size)
		size = 0;
	else if ((uint64_t)size > f->size - offset)
		size = (Py_ssize_t)(f->size - offset);
	out = PyBytes_FromStringAndSize(NULL, size);
	if (out == NULL || size == 0)
		return out;
	ret = file_read_at(f, offset, PyBytes_AS_STRING(out), (size_t)size);
	if (ret < 0) {
		Py_DECREF(out);
		out = NULL;
	} else if (ret != size && _PyBytes_Resize(&out, (Py_ssize_t)ret) != 0) {
		out = NULL;
	}
	return out;
}

/* The bytes from the position to the end; the position moves past them. */
static PyObject *file_readall(PyObject *self, PyObject *unused)
{
	file_data *f = FILE_DATA(self);
	uint64_t left;
	PyObject *out;

	(void)unused;
	if (file_check(f) != 0)
		return NULL;
	left = f->pos < f->size ? f->size - f->pos : 0;
	if (left > (uint64_t)PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	out = file_read_range(f, f->pos, (Py_ssize_t)left);
	if (out != NULL)
		f->pos += (uint64_t)PyBytes_GET_SIZE(out);
	return out;
}

/* size from an int, or -1 for None */
static int file_size_arg(PyObject *obj, Py_ssize_t *size)
{
	if (obj == Py_None) {
		*size = -1;
		return 0;
	}
	*size = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
	return *size == -1 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *file_read(PyObject *self, PyObject *const *args,
			   Py_ssize_t nargs)
{
	file_data *f = FILE_DATA(self);
	Py_ssize_t size = -1;
	PyObject *out;

	if (nargs > 1) {
		PyErr_Format(PyExc_TypeError,
			     "read() takes at most 1 argument (%zd given)",
			     nargs);
		return NULL;
	}
	if (nargs == 1 && file_size_arg(args[0], &size) != 0)
		return NULL;
	if (file_check(f) != 0)
		return NULL;
	if (size < 0)
		return file_readall(self, NULL);
	out = file_read_range(f, f->pos, size);
	if (out != NULL)
		f->pos += (uint64_t)PyBytes_GET_SIZE(out);
	return out;
}

static PyObject *file_readinto(PyObject *self, PyObject *arg)
{
	file_data *f = FILE_DATA(self);
	Py_buffer view;
	ptrdiff_t ret;

	/* a TypeError for a read-only buffer, as io.FileIO's */
	if (!PyArg_Parse(arg, "w*", &view))
		return NULL;
	if (file_check(f) != 0) {
		PyBuffer_Release(&view);
		return NULL;
	}
	ret = file_read_at(f, f->pos, view.buf, (size_t)view.len);
	PyBuffer_Release(&view);
	if (ret < 0)
		return NULL;
	f->pos += (uint64_t)ret;
	return PyLong_FromSsize_t((Py_ssize_t)ret);
}

static PyObject *file_pread(PyObject *self, PyObject *const *args,
			    Py_ssize_t nargs)
{
	file_data *f = FILE_DATA(self);
	Py_ssize_t size;
	long long offset;

	if (nargs != 2) {
		PyErr_Format(PyExc_TypeError,
			     "pread() takes 2 arguments (%zd given)", nargs);
		return NULL;
	}
	size = PyNumber_AsSsize_t(args[0], PyExc_OverflowError);
	if (size == -1 && PyErr_Occurred())
		return NULL;
	offset = PyLong_AsLongLong(args[1]);
	if (offset == -1 && PyErr_Occurred())
		return NULL;
	if (file_check(f) != 0)
		return NULL;
	if (offset < 0) {
		errno = EINVAL;
		PyErr_SetObject(
		    PyExc_OSError,
		    Py_BuildValue("(is)", EINVAL, "negative offset"));
		return NULL;
	}
	if (size < 0) {
		PyErr_SetString(PyExc_ValueError, "negative size");
		return NULL;
	}
	return file_read_range(f, (uint64_t)offset, size);
}

static PyObject *file_seek(PyObject *self, PyObject *const *args,
			   Py_ssize_t nargs)
{
	file_data *f = FILE_DATA(self);
	long long offset, base = 0;
	int whence = SEEK_SET;

	if (nargs < 1 || nargs > 2) {
		PyErr_Format(PyExc_TypeError,
			     "seek() takes 1 or 2 arguments (%zd given)",
			     nargs);
		return NULL;
	}
	offset = PyLong_AsLongLong(args[0]);
	if (offset == -1 && PyErr_Occurred())
		return NULL;
	if (nargs == 2) {
		long w = PyLong_AsLong(args[1]);

		if (w == -1 && PyErr_Occurred())
			return NULL;
		whence = w < INT_MIN || w > INT_MAX ? INT_MAX : (int)w;
	}
	if (file_check(f) != 0)
		return NULL;
	switch (whence) {
	case SEEK_SET:
		break;
	case SEEK_CUR:
		base = (long long)f->pos;
		break;
	case SEEK_END:
		base = (long long)f->size;
		break;
	default:
		PyErr_Format(PyExc_ValueError,
			     "invalid whence (%d, should be 0, 1 or 2)",
			     whence);
		return NULL;
	}
	if ((offset > 0 && base > LLONG_MAX - offset)) {
		PyErr_SetString(PyExc_OverflowError, "seek offset too large");
		return NULL;
	}
	offset += base;
	if (offset < 0) {
		PyErr_SetObject(
		    PyExc_OSError,
		    Py_BuildValue("(is)", EINVAL, "Invalid argument"));
		return NULL;
	}
	f->pos = (uint64_t)offset;
	return PyLong_FromLongLong(offset);
}

static PyObject *file_tell(PyObject *self, PyObject *unused)
{
	file_data *f = FILE_DATA(self);

	(void)unused;
	if (file_check(f) != 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(f->pos);
}

static PyObject *file_true(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (file_check(FILE_DATA(self)) != 0)
		return NULL;
	Py_RETURN_TRUE;
}

static PyObject *file_false(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (file_check(FILE_DATA(self)) != 0)
		return NULL;
	Py_RETURN_FALSE;
}

static PyObject *file_flush(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (file_check(FILE_DATA(self)) != 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *file_read_only(PyObject *self, PyObject *const *args,
				Py_ssize_t nargs)
{
	(void)args;
	(void)nargs;
	if (file_check(FILE_DATA(self)) != 0)
		return NULL;
	PyErr_SetString(unsupported_operation, "images are read-only");
	return NULL;
}

/* Closing while another thread reads: the handle goes when it is done.
 * The base's close is not called: flush and closed are ours. */
static PyObject *file_close(PyObject *self, PyObject *unused)
{
	file_data *f = FILE_DATA(self);

	(void)unused;
	if (!f->closed) {
		f->closed = 1;
		if (f->active == 0 && f->handle != NULL)
			file_release(f);
	}
	Py_RETURN_NONE;
}

static PyObject *file_repr(PyObject *self)
{
	PyObject *name = FILE_DATA(self)->name;

	return PyUnicode_FromFormat("<squashforge.SquashFile name=%R>",
				    name != NULL ? name : Py_None);
}

static PyObject *file_get_size(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLongLong(FILE_DATA(self)->size);
}

static PyObject *file_get_closed(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(FILE_DATA(self)->closed);
}

static PyObject *file_get_mode(PyObject *self, void *closure)
{
	(void)self;
	(void)closure;
	return PyUnicode_FromString("rb");
}

static PyObject **file_dict(PyObject *self)
{
	Py_ssize_t off = Py_TYPE(self)->tp_dictoffset;

	return off > 0 ? (PyObject **)((char *)self + off) : NULL;
}

static int file_traverse(PyObject *self, visitproc visit, void *arg)
{
	file_data *f = FILE_DATA(self);
	PyObject **dict = file_dict(self);

	Py_VISIT(Py_TYPE(self));
	Py_VISIT(f->name);
	if (dict != NULL)
		Py_VISIT(*dict);
	return 0;
}

static int file_clear(PyObject *self)
{
	PyObject **dict = file_dict(self);

	Py_CLEAR(FILE_DATA(self)->name);
	if (dict != NULL)
		Py_CLEAR(*dict);
	return 0;
}

static void file_dealloc(PyObject *self)
{
	PyTypeObject *type = Py_TYPE(self);
	file_data *f = FILE_DATA(self);

	/* the base's finalizer closes a file left open (io's way) */
	if (PyObject_CallFinalizerFromDealloc(self) != 0)
		return;
	PyObject_GC_UnTrack(self);
	if (f->handle != NULL)
		file_release(f);
	if (type->tp_weaklistoffset > 0)
		PyObject_ClearWeakRefs(self);
	file_clear(self);
	Py_CLEAR(f->owner);
	type->tp_free(self);
	Py_DECREF(type);
}

static PyMethodDef file_methods[] = {
    {"read", (PyCFunction)(void (*)(void))file_read, METH_FASTCALL,
     "read(size=-1) -> up to size bytes from the position (all to the end "
     "for -1 or None); b\"\" at the end."},
    {"readall", file_readall, METH_NOARGS,
     "readall() -> the bytes from the position to the end."},
    {"readinto", file_readinto, METH_O,
     "readinto(buffer) -> the number of bytes read into buffer (0 at the "
     "end)."},
    {"pread", (PyCFunction)(void (*)(void))file_pread, METH_FASTCALL,
     "pread(size, offset) -> up to size bytes at offset (fewer only at the "
     "end), leaving the position alone; from any thread."},
    {"seek", (PyCFunction)(void (*)(void))file_seek, METH_FASTCALL,
     "seek(offset, whence=0) -> the new position (past the end allowed)."},
    {"tell", file_tell, METH_NOARGS, "tell() -> the position."},
    {"readable", file_true, METH_NOARGS, "True."},
    {"seekable", file_true, METH_NOARGS, "True."},
    {"writable", file_false, METH_NOARGS, "False: images are read-only."},
    {"flush", file_flush, METH_NOARGS, "Nothing to flush."},
    {"write", (PyCFunction)(void (*)(void))file_read_only, METH_FASTCALL,
     "Raises io.UnsupportedOperation: images are read-only."},
    {"truncate", (PyCFunction)(void (*)(void))file_read_only, METH_FASTCALL,
     "Raises io.UnsupportedOperation: images are read-only."},
    {"close", file_close, METH_NOARGS,
     "Close the file (the image's last file closes a closed image)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef file_getset[] = {
    {"size", file_get_size, NULL, "The file's size in bytes.", NULL},
    {"closed", file_get_closed, NULL, "Whether it was closed.", NULL},
    {"mode", file_get_mode, NULL, "\"rb\".", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* offset is set when the base's size is known */
static PyMemberDef file_members[] = {
    {"name", T_OBJECT, 0, 0, "The path it was opened by."},
    {NULL, 0, 0, 0, NULL},
};

static char file_doc[] =
    "SquashFile: a regular file of an image, open for reading: seekable, "
    "and read\nwith read, readinto, readall and the lines of io.IOBase. "
    "Holes of sparse files\nread as zeros. pread(size, offset) reads at "
    "a position without moving it,\nfrom any number of threads at once. "
    "The image stays readable for the file\nuntil the file is closed, "
    "even if the image is closed first.";

/* Only Image.open makes files: where Py_TPFLAGS_DISALLOW_INSTANTIATION
 * is missing (before Python 3.10), the base's tp_new would make a file of
 * no image; with it, tp_new is not used. */
static PyObject *file_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	(void)args;
	(void)kw;
	PyErr_Format(PyExc_TypeError, "cannot create '%s' instances",
		     type->tp_name);
	return NULL;
}

static PyType_Slot file_slots[] = {
    /* from the base: __enter__, __exit__, readline(s), iteration */
    {Py_tp_doc, file_doc},	   {Py_tp_new, file_new},
    {Py_tp_dealloc, file_dealloc}, {Py_tp_traverse, file_traverse},
    {Py_tp_clear, file_clear},	   {Py_tp_repr, file_repr},
    {Py_tp_methods, file_methods}, {Py_tp_getset, file_getset},
    {Py_tp_members, file_members}, {0, NULL},
};

static PyType_Spec file_spec = {
    .name = "squashforge.SquashFile",
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
	     | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
    ,
    .slots = file_slots,
};

int sqfs_py_file_type_init(PyObject *module)
{
	PyObject *io = NULL, *base = NULL, *raw = NULL, *ret = NULL;
	int status = -1;

	io = PyImport_ImportModule("_io");
	if (io == NULL)
		goto out;
	base = PyObject_GetAttrString(io, "_RawIOBase");
	if (base == NULL)
		goto out;
	if (!PyType_Check(base)) {
		PyErr_SetString(PyExc_TypeError,
				"_io._RawIOBase is not a type");
		goto out;
	}
	unsupported_operation =
	    PyObject_GetAttrString(io, "UnsupportedOperation");
	if (unsupported_operation == NULL)
		goto out;
	/* our fields after the base's, pointer-aligned */
	file_offset = ((PyTypeObject *)base)->tp_basicsize;
	file_offset = (file_offset + (Py_ssize_t)sizeof(void *) - 1) &
		      ~((Py_ssize_t)sizeof(void *) - 1);
	file_spec.basicsize =
	    (int)(file_offset + (Py_ssize_t)sizeof(file_data));
	file_members[0].offset = file_offset + offsetof(file_data, name);
	file_type = (PyTypeObject *)PyType_FromSpecWithBases(&file_spec, base);
	if (file_type == NULL)
		goto out;
	/* isinstance(f, io.RawIOBase), as io.FileIO */
	Py_DECREF(io);
	io = PyImport_ImportModule("io");
	if (io == NULL)
		goto out;
	raw = PyObject_GetAttrString(io, "RawIOBase");
	if (raw == NULL)
		goto out;
	ret = PyObject_CallMethod(raw, "register", "O", (PyObject *)file_type);
	if (ret == NULL)
		goto out;
	Py_INCREF(file_type);
	if (PyModule_AddObject(module, "SquashFile", (PyObject *)file_type) !=
	    0) {
		Py_DECREF(file_type);
		goto out;
	}
	status = 0;
out:
	Py_XDECREF(ret);
	Py_XDECREF(raw);
	Py_XDECREF(base);
	Py_XDECREF(io);
	return status;
}

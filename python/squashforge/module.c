/* SPDX-License-Identifier: MIT */
/*
 * module.c - the _squashforge extension module: its types, its exceptions
 * and a few facts about the library it was built against.
 */
#include "_squashforge.h"

#include <sqfs/compressor.h>
#include <sqfs/squashfs.h>

static PyObject *mod_library_version(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyUnicode_FromString(sqfs_version_string());
}

static PyObject *mod_compressors(PyObject *self, PyObject *unused)
{
	PyObject *list = PyList_New(0);
	int id;

	(void)self;
	(void)unused;
	for (id = SQFS_COMP_MIN; list != NULL && id <= SQFS_COMP_MAX; ++id) {
		PyObject *name;

		if (!sqfs_compressor_is_available(id))
			continue;
		name = PyUnicode_FromString(sqfs_compressor_name(id));
		if (name == NULL || PyList_Append(list, name) != 0)
			Py_CLEAR(list);
		Py_XDECREF(name);
	}
	return list;
}

static PyObject *mod_default_compressor(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyUnicode_FromString(
	    sqfs_compressor_name(sqfs_compressor_default()));
}

static PyObject *mod_compressor_help(PyObject *self, PyObject *arg)
{
	const char *name = PyUnicode_AsUTF8(arg), *help;
	int id;

	(void)self;
	if (name == NULL)
		return NULL;
	id = sqfs_compressor_id_from_name(name);
	help = id < 0 ? NULL : sqfs_compressor_options_help(id);
	if (help == NULL) {
		PyErr_Format(PyExc_ValueError,
			     "unknown or unavailable compressor '%s'", name);
		return NULL;
	}
	return PyUnicode_FromString(help);
}

static PyObject *mod_error_string(PyObject *self, PyObject *arg)
{
	long code = PyLong_AsLong(arg);

	(void)self;
	if (code == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(sqfs_error_string((int)code));
}

static PyObject *mod_super_flag_names(PyObject *self, PyObject *arg)
{
	long flags = PyLong_AsLong(arg);
	PyObject *list;
	unsigned int bit;

	(void)self;
	if (flags == -1 && PyErr_Occurred())
		return NULL;
	list = PyList_New(0);
	for (bit = 1; list != NULL && bit <= 0x8000; bit <<= 1) {
		const char *name;
		PyObject *str;

		if ((flags & (long)bit) == 0)
			continue;
		name = sqfs_super_flag_name((uint16_t)bit);
		str = name != NULL ? PyUnicode_FromString(name)
				   : PyUnicode_FromFormat("0x%04x", bit);
		if (str == NULL || PyList_Append(list, str) != 0)
			Py_CLEAR(list);
		Py_XDECREF(str);
	}
	return list;
}

static PyMethodDef mod_methods[] = {
    {"library_version", mod_library_version, METH_NOARGS,
     "The libsquashfs version the module runs with."},
    {"compressors", mod_compressors, METH_NOARGS,
     "The compressors this libsquashfs can read and write."},
    {"default_compressor", mod_default_compressor, METH_NOARGS,
     "The compressor new images use unless told otherwise."},
    {"compressor_help", mod_compressor_help, METH_O,
     "The options a compressor takes, one a line."},
    {"super_flag_names", mod_super_flag_names, METH_O,
     "The names of the superblock flag bits set in flags."},
    {"error_string", mod_error_string, METH_O,
     "The phrase for an sqfs_error_t code."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "squashforge._squashforge",
    .m_doc = "The libsquashfs bindings under the squashforge package.",
    .m_size = -1,
    .m_methods = mod_methods,
};

static int add_type(PyObject *module, PyTypeObject *type, const char *name)
{
	if (PyType_Ready(type) != 0)
		return -1;
	Py_INCREF(type);
	if (PyModule_AddObject(module, name, (PyObject *)type) != 0) {
		Py_DECREF(type);
		return -1;
	}
	return 0;
}

PyMODINIT_FUNC PyInit__squashforge(void);

PyMODINIT_FUNC PyInit__squashforge(void)
{
	PyObject *m = PyModule_Create(&module_def);

	if (m == NULL)
		return NULL;
	if (sqfs_py_errors_init(m) != 0 ||
	    add_type(m, &SqfsPyFS_Type, "FS") != 0 ||
	    add_type(m, &SqfsPyFile_Type, "File") != 0 ||
	    add_type(m, &SqfsPyWriter_Type, "Writer") != 0 ||
	    PyModule_AddIntConstant(m, "SQFS_META_BLOCK_SIZE",
				    SQFS_META_BLOCK_SIZE) != 0) {
		Py_DECREF(m);
		return NULL;
	}
#define FLAG(name) PyModule_AddIntConstant(m, #name, name)
	if (FLAG(SQFS_WRITER_EXPORTABLE) || FLAG(SQFS_WRITER_NO_TAIL_PACKING) ||
	    FLAG(SQFS_WRITER_NO_FRAGMENTS) || FLAG(SQFS_WRITER_NO_XATTRS) ||
	    FLAG(SQFS_WRITER_NO_PROBE) || FLAG(SQFS_WRITER_UNCOMPRESSED) ||
	    FLAG(SQFS_WRITER_NO_PAD) || FLAG(SQFS_WRITER_NO_DEDUPLICATION) ||
	    FLAG(SQFS_FILE_DONT_COMPRESS) || FLAG(SQFS_FILE_DONT_FRAGMENT) ||
	    FLAG(SQFS_FILE_DONT_DEDUPLICATE) || FLAG(SQFS_FILE_NO_SPARSE) ||
	    FLAG(SQFS_FILE_ALIGN)) {
		Py_DECREF(m);
		return NULL;
	}
#undef FLAG
	return m;
}

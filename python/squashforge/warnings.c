/* SPDX-License-Identifier: MIT */
/*
 * warnings.c - what the library's walks left out and went on without
 * (sqfs_unpack's and the directory source's warn callbacks), kept as
 * words for Python's warnings.
 *
 * The callbacks run without the GIL (and add_tree's on its reader
 * thread), so the words are kept in C and become Python strings only
 * when the call is over. Only the first SQFS_PY_MAX_WARNINGS are kept:
 * enough to tell what went wrong, where a tree of a million unsettable
 * attributes need not become a million warnings.
 */
#include "_squashforge.h"

#include <stdlib.h>
#include <string.h>

void sqfs_py_warnings_keep(void *user, const char *words)
{
	sqfs_py_warnings_t *w = user;
	char **grown;

	if (w->count >= SQFS_PY_MAX_WARNINGS)
		return;
	grown = realloc(w->words, (w->count + 1) * sizeof(w->words[0]));
	if (grown == NULL)
		return;
	w->words = grown;
	w->words[w->count] = strdup(words);
	if (w->words[w->count] != NULL)
		w->count++;
}

PyObject *sqfs_py_warnings_list(const sqfs_py_warnings_t *w)
{
	PyObject *list = PyList_New(0);

	for (size_t i = 0; list != NULL && i < w->count; ++i) {
		PyObject *str = PyUnicode_DecodeFSDefault(w->words[i]);

		if (str == NULL || PyList_Append(list, str) != 0)
			Py_CLEAR(list);
		Py_XDECREF(str);
	}
	return list;
}

void sqfs_py_warnings_free(sqfs_py_warnings_t *w)
{
	for (size_t i = 0; i < w->count; ++i)
		free(w->words[i]);
	free(w->words);
	w->words = NULL;
	w->count = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * path.c - the canonical form of paths, and valid names (sqfs/path.h).
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/path.h"

#include "path_internal.h"

#include <string.h>

size_t path_next(const char **path, const char **comp)
{
	const char *p = *path;
	size_t len;

	for (;;) {
		while (*p == '/')
			++p;
		len = strcspn(p, "/");
		if (len != 1 || p[0] != '.')
			break;
		p += len;
	}
	*comp = p;
	*path = p + len;
	return len;
}

int sqfs_path_canonical(char *path)
{
	const char *in = path, *comp;
	char *out = path;
	bool dotdot = false;
	size_t len;

	/* out never overtakes in: each component moves down or stays */
	while ((len = path_next(&in, &comp)) > 0) {
		if (len == 2 && comp[0] == '.' && comp[1] == '.')
			dotdot = true;
		if (out != path)
			*out++ = '/';
		memmove(out, comp, len);
		out += len;
	}
	*out = '\0';
	return dotdot ? SQFS_ERROR_ARG_INVALID : 0;
}

bool sqfs_name_is_valid(const char *name, size_t len)
{
	if (name == NULL || len == 0 || len > SQFS_NAME_MAX)
		return false;
	if (memchr(name, '/', len) != NULL || memchr(name, '\0', len) != NULL)
		return false;
	return !(name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')));
}

int path_walk_failed(errtext_t *e, int code, const char *path, const char *comp,
		     size_t len)
{
	int upto;

	if (code != SQFS_ERROR_NO_ENTRY && code != SQFS_ERROR_NOT_DIR)
		return code;
	/* up to the name that is missing, or up to (without) the name of
	 * what is not a directory; no trailing slashes */
	upto = (int)(code == SQFS_ERROR_NO_ENTRY ? (size_t)(comp - path) + len
						 : (size_t)(comp - path));
	while (upto > 0 && path[upto - 1] == '/')
		--upto;
	return errtext_set(e, code, "'%.*s': %s", upto, path,
			   code == SQFS_ERROR_NO_ENTRY
			       ? "no such file or directory"
			       : "not a directory");
}

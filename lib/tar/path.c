/* SPDX-License-Identifier: MIT */
/*
 * path.c - canonical names of archive entries.
 */
#include "config.h"

#include "tar/path.h"
#include "sqfs/error.h"
#include "sqfs/path.h"

#include <stdlib.h>
#include <string.h>

int tar_path_canonical(const char *path, char **out, bool *unsafe)
{
	char *dst = strdup(path);
	int ret;

	if (dst == NULL)
		return SQFS_ERROR_ALLOC;
	/* the library's one canonical form; ".." is kept and flagged */
	ret = sqfs_path_canonical(dst);
	if (unsafe != NULL)
		*unsafe = ret != 0;
	*out = dst;
	return 0;
}

const char *tar_path_below(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (n == 0)
		return path;
	if (strncmp(path, prefix, n) != 0)
		return NULL;
	if (path[n] == '\0')
		return path + n;
	if (path[n] != '/')
		return NULL;
	return path + n + 1;
}

int tar_path_retarget(const char *target, const char *prefix, char **out)
{
	const char *rest;
	bool unsafe;
	char *canon;
	int ret;

	*out = NULL;
	if (prefix[0] == '\0')
		return 0;

	ret = tar_path_canonical(target, &canon, &unsafe);
	if (ret != 0)
		return ret;

	rest = unsafe ? NULL : tar_path_below(canon, prefix);
	if (rest != NULL && rest[0] != '\0') {
		size_t n = strlen(rest);

		*out = malloc(n + 2);
		if (*out == NULL) {
			free(canon);
			return SQFS_ERROR_ALLOC;
		}
		(*out)[0] = '/';
		memcpy(*out + 1, rest, n + 1);
	}
	free(canon);
	return 0;
}

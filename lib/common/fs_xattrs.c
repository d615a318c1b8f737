/* SPDX-License-Identifier: MIT */
/*
 * fs_xattrs.c - reading an entry's extended attributes from disk.
 *
 * There is no llistxattrat: the entry is named through the root's
 * descriptor in /proc/self/fd, so that the path is resolved from the
 * directory the tool opened, whatever the current directory is, and the
 * l* calls keep a symlink at the end from being followed.
 */
#include "config.h"

#include "common/fs_xattrs.h"
#include "common/print.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

/* Most bytes of xattr names or of one value the kernel hands out. */
#define XATTR_LIST_MAX_BYTES 65536u
#define XATTR_VALUE_MAX_BYTES 65536u

void fs_xattrs_free(fs_xattrs_t *x)
{
	for (size_t i = 0; i < x->count; ++i)
		free((void *)x->list[i].value);
	free(x->list);
	free(x->names);
	memset(x, 0, sizeof(*x));
}

static const char *shown(const char *path)
{
	return path[0] != '\0' ? path : ".";
}

int fs_xattrs_read(int rootfd, const char *path, bool warn_skipped,
		   fs_xattrs_t *x)
{
	char where[PATH_MAX + 64];
	ssize_t len, vlen;
	const char *why;
	size_t n = 0;
	char *name;

	memset(x, 0, sizeof(*x));
	if (path[0] == '\0')
		snprintf(where, sizeof(where), "/proc/self/fd/%d/.", rootfd);
	else if ((size_t)snprintf(where, sizeof(where), "/proc/self/fd/%d/%s",
				  rootfd, path) >= sizeof(where)) {
		tool_error(path, "path too long to read its xattrs");
		return -1;
	}

	x->names = malloc(XATTR_LIST_MAX_BYTES);
	if (x->names == NULL)
		goto oom;
	len = llistxattr(where, x->names, XATTR_LIST_MAX_BYTES);
	if (len < 0) {
		if (errno == ENOTSUP)
			return 0;
		tool_error(shown(path), "listing xattrs: %s", strerror(errno));
		return -1;
	}
	for (name = x->names; name < x->names + len; name += strlen(name) + 1)
		++n;
	if (n == 0)
		return 0;
	x->list = calloc(n, sizeof(x->list[0]));
	if (x->list == NULL)
		goto oom;

	for (name = x->names; name < x->names + len; name += strlen(name) + 1) {
		uint8_t *value = malloc(XATTR_VALUE_MAX_BYTES);

		if (value == NULL)
			goto oom;
		vlen = lgetxattr(where, name, value, XATTR_VALUE_MAX_BYTES);
		if (vlen < 0) {
			free(value);
			/* removed since it was listed */
			if (errno == ENODATA)
				continue;
			tool_error(shown(path), "xattr '%s': %s", name,
				   strerror(errno));
			return -1;
		}
		/* keep only what the value takes */
		x->list[x->count].value =
		    vlen > 0 ? realloc(value, (size_t)vlen) : value;
		if (x->list[x->count].value == NULL) {
			free(value);
			goto oom;
		}
		x->list[x->count].key = name;
		x->list[x->count].size = (size_t)vlen;
		/* what the image cannot hold is left out */
		if (sqfs_xattr_check(&x->list[x->count], &why) != 0) {
			if (warn_skipped)
				tool_warning(shown(path),
					     "xattr '%s': %s; skipped", name,
					     why);
			free((void *)x->list[x->count].value);
			continue;
		}
		x->count += 1;
	}
	return 0;
oom:
	tool_error(NULL, "out of memory");
	return -1;
}

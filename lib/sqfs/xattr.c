/* SPDX-License-Identifier: MIT */
/*
 * xattr.c - what an extended attribute must be for the image to store it:
 * the one place the rules are written (the writer and the xattr writer
 * ask here, and so can programs that would rather drop an attribute than
 * lose the entry).
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/format_internal.h"
#include "sqfs/xattr.h"
#include "sqfs/xattr_writer_internal.h"

#include <stdlib.h>
#include <string.h>

int sqfs_xattr_check(const sqfs_xattr_t *x, const char **why)
{
	return xattr_check_ns(x, why, NULL);
}

int xattr_check_ns(const sqfs_xattr_t *x, const char **why, int *ns)
{
	const char *reason = NULL;
	size_t prefix_len, len;
	int ret = 0, id = -1;

	if (x == NULL || x->key == NULL || (x->value == NULL && x->size > 0)) {
		reason = "no key, or a value without data";
		ret = SQFS_ERROR_ARG_INVALID;
		goto out;
	}
	id = xattr_namespace(x->key, &prefix_len);
	if (id < 0) {
		reason = "namespace not supported (only user., trusted. and "
			 "security.)";
		ret = SQFS_ERROR_UNSUPPORTED;
		goto out;
	}
	/* stop counting past the limit: the rest of the key is irrelevant */
	for (len = 0; len <= SQFS_XATTR_MAX_KEY_SIZE && x->key[len] != '\0';
	     ++len)
		;
	if (len == prefix_len) {
		reason = "empty name";
		ret = SQFS_ERROR_ARG_INVALID;
	} else if (len > SQFS_XATTR_MAX_KEY_SIZE) {
		reason = "name longer than 255 bytes";
		ret = SQFS_ERROR_ARG_INVALID;
	} else if (x->size > SQFS_XATTR_MAX_VALUE_SIZE) {
		reason = "value larger than 64 KiB";
		ret = SQFS_ERROR_OVERFLOW;
	}
out:
	if (why != NULL)
		*why = reason;
	if (ns != NULL)
		*ns = ret == 0 ? id : -1;
	return ret;
}

void sqfs_xattr_list_free(sqfs_xattr_t *list, size_t count)
{
	size_t i;

	if (list == NULL)
		return;
	for (i = 0; i < count; ++i) {
		free((void *)list[i].key);
		free((void *)list[i].value);
	}
	free(list);
}

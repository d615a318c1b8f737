/* SPDX-License-Identifier: MIT */
/*
 * xattr.h - one extended attribute, as the writer takes it and the image
 * reader gives it.
 *
 * A key is the full name with its namespace prefix. SquashFS stores three
 * namespaces: "user.", "trusted." and "security." (which also holds
 * SELinux labels and file capabilities). The writer refuses any other
 * prefix (SQFS_ERROR_UNSUPPORTED), an empty name after the prefix and a
 * key longer than 255 bytes (SQFS_ERROR_ARG_INVALID), and a value longer
 * than 65536 bytes (SQFS_ERROR_OVERFLOW): the limits Linux itself sets
 * (XATTR_NAME_MAX, XATTR_SIZE_MAX). The reader skips keys of namespaces it
 * does not know, as Linux does.
 */
#ifndef SQFS_XATTR_H
#define SQFS_XATTR_H

#include "sqfs/predef.h"

/* One extended attribute: the full key with its namespace prefix and a
 * value of size bytes (binary; not NUL-terminated unless the value
 * itself ends in a NUL). */
typedef struct {
	const char *key;
	const void *value;
	size_t size;
} sqfs_xattr_t;

SQFS_BEGIN_DECLS

/*
 * Whether the image can store x: 0, or the error sqfs_writer_add gives
 * for it (SQFS_ERROR_UNSUPPORTED, SQFS_ERROR_ARG_INVALID or
 * SQFS_ERROR_OVERFLOW, as above). If why is not NULL, *why receives a
 * phrase saying what is wrong ("namespace not supported (only user.,
 * trusted. and security.)", "empty name", "name longer than 255 bytes",
 * "value larger than 64 KiB"; static text), or NULL. A program that would
 * rather drop an attribute than lose its entry asks here first.
 */
SQFS_API int sqfs_xattr_check(const sqfs_xattr_t *x, const char **why);

/*
 * Free a list of count xattrs whose keys and values were each allocated
 * with malloc, as sqfs_image_read_xattrs hands them out; NULL is allowed.
 */
SQFS_API void sqfs_xattr_list_free(sqfs_xattr_t *list, size_t count);

SQFS_END_DECLS

#endif /* SQFS_XATTR_H */

/* SPDX-License-Identifier: MIT */
/*
 * xattr_writer_internal.h - collecting extended attributes and writing
 * the xattr table (internal to the library).
 *
 * Each inode with xattrs refers to one xattr-id entry, which lists a set of
 * key/value pairs in the kv stream. Identical sets (same keys and values,
 * in any order) share one entry. Values of 16 bytes or more that occur in
 * more than one set are stored once: the first occurrence inline, later
 * ones as out-of-line references to it. Only the user., trusted. and
 * security. namespaces exist in the format.
 */
#ifndef SQFS_XATTR_WRITER_INTERNAL_H
#define SQFS_XATTR_WRITER_INTERNAL_H

#include "sqfs/predef.h"
#include "sqfs/xattr.h"

typedef struct xattr_writer xattr_writer_t;

/*
 * sqfs_xattr_check (sqfs/xattr.h) that also gives the namespace id of a
 * key it accepts in *ns (may be NULL): the rules and the namespace lookup
 * in one pass (xattr.c).
 */
int xattr_check_ns(const sqfs_xattr_t *x, const char **why, int *ns);

int xattr_writer_create(xattr_writer_t **out);

void xattr_writer_destroy(xattr_writer_t *xw);

/* Start a new set. */
int xattr_writer_begin(xattr_writer_t *xw);

/*
 * Add a pair to the current set. key carries its namespace prefix; keys of
 * other namespaces give SQFS_ERROR_UNSUPPORTED, an empty name after the
 * prefix or a key over 255 bytes SQFS_ERROR_ARG_INVALID, a value over
 * 65536 bytes SQFS_ERROR_OVERFLOW. A key given twice keeps the last value.
 */
int xattr_writer_add(xattr_writer_t *xw, const char *key, const void *value,
		     size_t size);

/*
 * Close the current set; *index receives its xattr-id index, shared with
 * any identical earlier set, or SQFS_NO_XATTR if the set is empty.
 */
int xattr_writer_end(xattr_writer_t *xw, uint32_t *index);

/*
 * Append the xattr table (kv stream, id entries, header, index) to file
 * and set super->xattr_id_table_start. With no sets it writes nothing,
 * leaves the table absent and sets SQFS_FLAG_NO_XATTRS.
 */
int xattr_writer_flush(xattr_writer_t *xw, sqfs_file_t *file,
		       sqfs_super_t *super, sqfs_compressor_t *cmp);

#endif /* SQFS_XATTR_WRITER_INTERNAL_H */

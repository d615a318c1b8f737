/* SPDX-License-Identifier: MIT */
/*
 * id_table.h - the table of user and group ids.
 *
 * Inodes do not store uid and gid values but 16-bit indexes into one shared
 * table of 32-bit ids; a value used as both uid and gid has one entry. Ids
 * are numbered in order of first use. The format's 16-bit id count limits a
 * table to 65535 entries.
 *
 * A low-level building block. Most programs want the image writer
 * (sqfs/writer.h) or the image reader (sqfs/image.h), which use it; it is
 * public for programs that lay out or inspect tables themselves, and may
 * change between minor versions until the soname reaches 1.
 */
#ifndef SQFS_ID_TABLE_H
#define SQFS_ID_TABLE_H

#include "sqfs/predef.h"

/* Most entries an id table can have. */
#define SQFS_MAX_IDS 65535u

SQFS_BEGIN_DECLS

/* Create an empty id table. */
SQFS_API int sqfs_id_table_create(sqfs_id_table_t **out);

/* Destroy an id table. NULL is allowed. */
SQFS_API void sqfs_id_table_destroy(sqfs_id_table_t *tbl);

/*
 * The index of id, adding it if it is new. Fails with SQFS_ERROR_LIMIT when
 * the table already holds SQFS_MAX_IDS other ids.
 */
SQFS_API int sqfs_id_table_id_to_index(sqfs_id_table_t *tbl, uint32_t id,
				       uint16_t *index);

/* Whether the table holds id (a writer asks before it commits to adding
 * ids, so that it can refuse an entry without changing the table). */
SQFS_API bool sqfs_id_table_contains(const sqfs_id_table_t *tbl, uint32_t id);

/* The id at index, or SQFS_ERROR_OUT_OF_BOUNDS if there is no such entry. */
SQFS_API int sqfs_id_table_index_to_id(const sqfs_id_table_t *tbl,
				       uint16_t index, uint32_t *id);

/* The number of ids in the table. */
SQFS_API size_t sqfs_id_table_count(const sqfs_id_table_t *tbl);

/*
 * Append the table to file as a lookup table and record its position and
 * entry count in super. An empty table is an error (SQFS_ERROR_SEQUENCE):
 * an image needs at least one id.
 */
SQFS_API int sqfs_id_table_write(sqfs_id_table_t *tbl, sqfs_file_t *file,
				 sqfs_super_t *super, sqfs_compressor_t *cmp);

/*
 * Replace the contents of tbl with the id table of the image described by
 * super: id_count entries at id_table_start. The table must lie after the
 * inode and directory tables and end before the xattr table (or
 * bytes_used). Duplicate ids are accepted, as other writers may make them.
 */
SQFS_API int sqfs_id_table_read(sqfs_id_table_t *tbl, sqfs_file_t *file,
				const sqfs_super_t *super,
				sqfs_compressor_t *cmp);

SQFS_END_DECLS

#endif /* SQFS_ID_TABLE_H */

/* SPDX-License-Identifier: MIT */
/*
 * dir_reader.h - reading directory listings, looking up names and paths.
 *
 * Every entry is checked before it is returned: names of 1..256 bytes with
 * no '/' or NUL and not "." or "..", strictly increasing order across the
 * whole listing (so no duplicates), entry types 1..7, header counts of at
 * most 256, inode-number deltas that do not overflow, inode blocks inside
 * the inode table, and runs that end exactly where the listing does.
 */
#ifndef SQFS_DIR_READER_H
#define SQFS_DIR_READER_H

#include "sqfs/predef.h"
#include "sqfs/image.h"

typedef struct sqfs_dir_reader sqfs_dir_reader_t;

/* One directory entry; name is valid until the next call on the reader. */
typedef struct {
	const char *name;
	size_t name_len;
	/* The entry's inode: (block << 16) | offset in the inode table. */
	uint64_t inode_ref;
	uint32_t inode_number;
	/* The basic inode type the entry claims; the inode itself decides. */
	uint16_t type;
} sqfs_dir_entry_t;

SQFS_BEGIN_DECLS

/* Create a directory reader for img (used, not owned). */
SQFS_API int sqfs_dir_reader_create(sqfs_image_t *img, sqfs_dir_reader_t **out);

/* Destroy a reader; NULL is allowed. */
SQFS_API void sqfs_dir_reader_destroy(sqfs_dir_reader_t *dr);

/*
 * Start listing the directory dir (a basic or extended directory inode);
 * SQFS_ERROR_NOT_DIR for any other inode.
 */
SQFS_API int sqfs_dir_reader_open(sqfs_dir_reader_t *dr,
				  const sqfs_inode_t *dir);

/*
 * The next entry of the open listing: returns 0 and fills *ent, 1 at the
 * end of the listing, or a negative error (SQFS_ERROR_CORRUPTED for any
 * violation listed above).
 */
SQFS_API int sqfs_dir_reader_next(sqfs_dir_reader_t *dr, sqfs_dir_entry_t *ent);

/*
 * Find name in the directory dir, using its directory index to skip ahead
 * where it has one, and otherwise what the reader noted about the listing
 * when it last read it (a fixed number of places, for the one listing
 * longer than a metadata block read last), so that many lookups in a long
 * listing do not each read it from the top. SQFS_ERROR_NO_ENTRY if it is
 * not there.
 */
SQFS_API int sqfs_dir_reader_find(sqfs_dir_reader_t *dr,
				  const sqfs_inode_t *dir, const char *name,
				  sqfs_dir_entry_t *ent);

/*
 * Resolve a path from the root ("a/b/c"; leading, repeated and trailing
 * slashes and "." components are ignored; ".." is refused with
 * SQFS_ERROR_ARG_INVALID; symlinks are not followed) and read the inode
 * it names. SQFS_ERROR_NOT_DIR if a component before the last is not a
 * directory, SQFS_ERROR_NO_ENTRY if a name is missing. *out is a new inode
 * to free().
 */
SQFS_API int sqfs_dir_reader_resolve(sqfs_dir_reader_t *dr, const char *path,
				     sqfs_inode_t **out);

SQFS_END_DECLS

#endif /* SQFS_DIR_READER_H */

/* SPDX-License-Identifier: MIT */
/*
 * walker.h - visiting every entry of an image, safely.
 *
 * The walker goes depth first through a directory tree in listing order,
 * a directory before its contents. It refuses what a hostile image can do
 * to a naive recursion: a directory reached twice (a loop, or a directory
 * hard link) ends the walk with SQFS_ERROR_LOOP, and nesting deeper than
 * the limit with SQFS_ERROR_LIMIT. A non-directory inode reached a second
 * time is reported as a hard link to the path where it was first seen,
 * which the walker keeps for inodes whose link count says they have more
 * names, and for the inodes met last (a few thousand), so that a count
 * that says too little (some writers give a hard-linked FIFO a count of 1)
 * still gives links where the names are close. A name of an inode whose
 * first path is in neither is reported as an entry of its own (no
 * link_target), as a copy of a kernel mount, which trusts the count,
 * would make it.
 *
 * Memory: the state of one listing per level of depth, the first paths
 * of the multiply-linked inodes whose names have not all been met yet,
 * the table of inodes met last (2 MiB at most), and two bits per inode
 * number (24 MiB for 10^8 inodes), which let it recognise an inode met
 * again. Not the entries of a listing, however long, nor anything else
 * per inode.
 */
#ifndef SQFS_WALKER_H
#define SQFS_WALKER_H

#include "sqfs/predef.h"
#include "sqfs/image.h"

typedef struct sqfs_walker sqfs_walker_t;

typedef enum {
	/* Report each directory a second time, after its contents (for
	 * setting its times and permissions last). */
	SQFS_WALK_POST_DIRS = 0x01,
	/* Report the start only, even if it is a directory. */
	SQFS_WALK_START_ONLY = 0x02,
	/* Report the start and, if it is a directory, its entries, but
	 * enter none of the directories among them (a listing; they get no
	 * second report). */
	SQFS_WALK_ONE_LEVEL = 0x04,
} sqfs_walker_flags_t;

/* Default nesting limit. */
#define SQFS_WALK_DEFAULT_MAX_DEPTH 1024u

typedef struct {
	/* Path relative to the walk's start ("" for the start itself), '/'
	 * separated; valid until the next call. */
	const char *path;
	/* The entry's inode; valid until the next call. */
	const sqfs_inode_t *inode;
	/* 0 for the start, 1 for its entries, ... */
	uint32_t depth;
	/* For a non-directory inode seen before: the path it was first
	 * reported at (relative to the start); NULL otherwise. */
	const char *link_target;
	/* With SQFS_WALK_POST_DIRS: true on a directory's second report. */
	bool post;
} sqfs_walk_entry_t;

SQFS_BEGIN_DECLS

/*
 * Create a walker over the subtree at path (resolved as
 * sqfs_dir_reader_resolve does; "" is the root). max_depth 0 means
 * SQFS_WALK_DEFAULT_MAX_DEPTH; flags are sqfs_walker_flags_t bits.
 */
SQFS_API int sqfs_walker_create(sqfs_image_t *img, const char *path,
				unsigned int max_depth, unsigned int flags,
				sqfs_walker_t **out);

/* Destroy a walker; NULL is allowed. */
SQFS_API void sqfs_walker_destroy(sqfs_walker_t *w);

/*
 * The next entry: returns 0 and fills *ent, 1 when the walk is complete,
 * or a negative error (the walk cannot continue after one).
 */
SQFS_API int sqfs_walker_next(sqfs_walker_t *w, sqfs_walk_entry_t *ent);

SQFS_END_DECLS

#endif /* SQFS_WALKER_H */

/* SPDX-License-Identifier: MIT */
/*
 * image_source.h - the entries of an image, in order, each with its data.
 *
 * What an archiver, an unpacker or a comparer wants from an image: every
 * entry of a subtree as a neutral sqfs_entry_t (entry.h), depth first, a
 * directory before its contents, each directory's entries in name order;
 * and the data of each regular file as runs, data or holes, front to back.
 * The source walks the tree (as walker.h does, safe against loops,
 * directory hard links and unbounded nesting) ahead of the program, and
 * unpacks the blocks of the files it has walked on worker threads while
 * the program works on earlier entries.
 *
 * Order and determinism: entries and data come in walk order whatever the
 * number of jobs, and how far the source reads ahead does not depend on
 * it either, so a program whose output follows the entries writes the
 * same output for every number of jobs.
 *
 * Memory is bounded: at most max_entries entries and about max_bytes bytes
 * of entries are held ahead, and the file stream holds at most
 * SQFS_FILE_STREAM_BUFFERS(num_jobs) blocks in flight, whatever the image
 * says, plus fixed caches of fragment blocks and small tails (up to 4 MiB
 * each, file_stream.h).
 *
 * Trust: the image is untrusted, and everything is checked as the walker,
 * the inode reader and the data reader check it. A failure ends the
 * source: the entries walked before it are still handed out, then the
 * failure is returned, with words on the image (sqfs_image_error) that
 * name the entry. A bad block fails when its data is read, or when the
 * program moves on to the next entry without reading it (the blocks are
 * unpacked ahead either way).
 *
 * Hard links: an inode met a second time is an entry whose hard_link names
 * the path where it was met first (relative to the start), with the same
 * attributes. Its data is not unpacked ahead again, but a program that
 * wants it (to write a copy) can still read it.
 *
 * Threads: the source is used by one thread at a time, the one that uses
 * the image; the workers only decompress. Without thread support, or with
 * one job, the work is done on the calling thread, with the same results.
 */
#ifndef SQFS_IMAGE_SOURCE_H
#define SQFS_IMAGE_SOURCE_H

#include "sqfs/predef.h"
#include "sqfs/entry.h"
#include "sqfs/image.h"

typedef struct sqfs_image_source sqfs_image_source_t;

typedef enum {
	/* Report each directory a second time after its contents, with
	 * SQFS_ENTRY_POST in its flags. */
	SQFS_SOURCE_POST_DIRS = 0x01,
	/* Unpack no data ahead: for a program that reads little or none;
	 * sqfs_image_source_read still works, through a data reader. */
	SQFS_SOURCE_NO_DATA = 0x02,
	/* Read no extended attributes: entries have none. */
	SQFS_SOURCE_NO_XATTRS = 0x04,
	/* Only the start entry, even if it is a directory. */
	SQFS_SOURCE_START_ONLY = 0x08,
	/* The start and, if it is a directory, its entries, without
	 * entering the directories among them (a listing). */
	SQFS_SOURCE_ONE_LEVEL = 0x10,
} sqfs_image_source_flags_t;

/* The limits a source takes when given 0. */
#define SQFS_SOURCE_DEFAULT_ENTRIES 4096u
#define SQFS_SOURCE_DEFAULT_BYTES (16u << 20)

typedef struct {
	/* sqfs_image_source_flags_t bits. */
	uint32_t flags;
	/* Threads decompressing ahead; 0 or 1: on the calling thread. */
	unsigned int num_jobs;
	/* Nesting limit: deeper directories end the walk with
	 * SQFS_ERROR_LIMIT (0: SQFS_WALK_DEFAULT_MAX_DEPTH). */
	unsigned int max_depth;
	/* Entries held ahead at most, and their bytes (0: the defaults). */
	size_t max_entries;
	size_t max_bytes;
	/* Room for options of later versions: must be zero. */
	uint32_t reserved[8];
} sqfs_image_source_options_t;

/* A range of a file that holds data (not a hole). */
typedef struct {
	uint64_t offset;
	uint64_t size;
} sqfs_extent_t;

SQFS_BEGIN_DECLS

/* Fill opt with the defaults: no flags, one job, the default limits. */
SQFS_API void sqfs_image_source_options_init(sqfs_image_source_options_t *opt);

/*
 * A source of the subtree at path in img ("" for the whole image; resolved
 * as sqfs_dir_reader_resolve does, symlinks not followed). img is used,
 * not owned, and must outlive the source. opt may be NULL for the
 * defaults. Fails with the errors of resolving the path (words on the
 * image), SQFS_ERROR_ARG_INVALID for unknown flags or reserved room that
 * is not zero, or SQFS_ERROR_ALLOC.
 */
SQFS_API int sqfs_image_source_create(sqfs_image_t *img, const char *path,
				      const sqfs_image_source_options_t *opt,
				      sqfs_image_source_t **out);

/* Stop the workers and free everything; NULL is allowed. */
SQFS_API void sqfs_image_source_destroy(sqfs_image_source_t *src);

/*
 * The next entry: 0 with *out pointing at it (valid, with everything it
 * points at, until the next call of next or destroy), 1 after the last, or
 * a negative error (then every later call fails the same way). Paths are
 * relative to the start ("" is the start itself). Data of the previous
 * entry that was not read is skipped; a bad block there fails here, with
 * words naming that entry.
 */
SQFS_API int sqfs_image_source_next(sqfs_image_source_t *src,
				    const sqfs_entry_t **out);

/*
 * The next run (entry.h) of the current entry's data, in file order, a
 * hole taking in every sparse block that follows: 0 with *out
 * filled (out->data valid until the next call on the source), 1 when the
 * data is complete (at once for an empty file or an entry that is not a
 * regular file), or a negative error with words on the image. The runs
 * add up to the entry's size exactly, or reading fails. A hard link's
 * data is read through a data reader, not ahead.
 */
SQFS_API int sqfs_image_source_read(sqfs_image_source_t *src,
				    sqfs_data_run_t *out);

/*
 * Read the current entry's data again from its start (with the next call
 * of sqfs_image_source_read), through a data reader: what was unpacked
 * ahead cannot be handed out twice. For a program that must go back over
 * a file (writing both sides of a difference, say).
 */
SQFS_API int sqfs_image_source_rewind(sqfs_image_source_t *src);

/*
 * The ranges of the current entry that hold data, in order, from the
 * image's block list alone (nothing is unpacked): what a tar writer needs
 * for a sparse map before it writes the data. *list (valid until the next
 * call of next or destroy) holds *count ranges; a file without holes has
 * one range from 0 to its size, an empty file or one that is all holes
 * none. Fails with SQFS_ERROR_NOT_FILE for an entry that is not a regular
 * file, SQFS_ERROR_CORRUPTED for a block list that does not match the
 * size.
 */
SQFS_API int sqfs_image_source_extents(sqfs_image_source_t *src,
				       const sqfs_extent_t **list,
				       size_t *count);

SQFS_END_DECLS

#endif /* SQFS_IMAGE_SOURCE_H */

/* SPDX-License-Identifier: MIT */
/*
 * file_stream.h - the contents of many regular files, in order, unpacked
 * ahead by several threads.
 *
 * For a program that reads whole files one after the other (an archiver,
 * an unpacker): it queues the files' inodes in the order it wants them and
 * takes their blocks back in that order, each file's blocks front to back.
 * While it works on one block, the stream unpacks the blocks after it,
 * across file boundaries, on worker threads.
 *
 * Packed blocks are read from the image's file on the calling thread only
 * (an sqfs_file_t is not thread safe); the workers only decompress, each
 * with its own copy of the compressor. At most SQFS_FILE_STREAM_BUFFERS
 * blocks are in flight at a time (each needs two buffers of the block
 * size), whatever the image says.
 *
 * Fragment blocks: files are seldom read in the order their tails were
 * packed in (a directory's files in name order were often written far
 * apart; a duplicate of a small file shares the first copy's tail,
 * however old). So the stream keeps up to 4 MiB of unpacked fragment
 * blocks (at most 64) besides those in flight, and up to 4 MiB of copies
 * of tails of up to 4 KiB: those handed back (the ones asked for again
 * kept longest), and, when it unpacks a fragment block, those in it of
 * the files queued. A fragment block is thus unpacked about once for the
 * files queued together, and a duplicate's tail is a copy.
 *
 * The stream checks what the data reader checks: the block list against
 * the file size, every block inside the data region, every block unpacking
 * to exactly the size its place implies, every tail inside its fragment
 * block. An error is handed back in order, at the block it belongs to;
 * nothing after it is handed back.
 *
 * A program that walks entries and wants each with its data, in order,
 * is better served by image_source.h, which pairs the stream with the walk
 * of the entries.
 *
 * A stream is used by one thread: the one that created it, or one at a
 * time. Without thread support, or with one job, the same work is done on
 * the calling thread, with the same results.
 */
#ifndef SQFS_FILE_STREAM_H
#define SQFS_FILE_STREAM_H

#include "sqfs/predef.h"
#include "sqfs/data_reader.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"

typedef struct sqfs_file_stream sqfs_file_stream_t;

/* num_jobs is capped at this. */
#define SQFS_FILE_STREAM_MAX_JOBS 64u

/* Blocks in flight at most for num_jobs (after capping; 0 counts as 1):
 * being unpacked, or unpacked and not yet handed back. */
#define SQFS_FILE_STREAM_BUFFERS(num_jobs) (4u * (num_jobs) + 4u)

SQFS_BEGIN_DECLS

/*
 * Create a stream reading from img (used, not owned: it must outlive the
 * stream, and its file must not be read by anyone else while next or
 * enqueue runs). num_jobs is how many blocks may be decompressed at once;
 * 0 or 1 means on the calling thread only.
 */
SQFS_API int sqfs_file_stream_create(sqfs_image_t *img, unsigned int num_jobs,
				     sqfs_file_stream_t **out);

/* Stop the workers and free everything; NULL is allowed. Blocks not yet
 * taken are dropped. */
SQFS_API void sqfs_file_stream_destroy(sqfs_file_stream_t *fs);

/*
 * Queue a regular file to be handed back after every file queued before
 * it. The inode is copied. An inode that does not match the image (a
 * block list of the wrong length, say) is accepted: its error is handed
 * back in its turn. Returns 0, SQFS_ERROR_NOT_FILE for another type of
 * inode, or SQFS_ERROR_ALLOC. May read and start unpacking blocks.
 */
SQFS_API int sqfs_file_stream_enqueue(sqfs_file_stream_t *fs,
				      const sqfs_inode_t *inode, void *user);

/*
 * The next block of the queued files, waiting for it if needed. Returns
 * 0 with *out filled, 1 when every queued file has been handed back (as
 * every _next function of the library does), or
 * a negative error with out->user and out->index naming the block it
 * belongs to. After an error every later call returns the same error.
 */
SQFS_API int sqfs_file_stream_next(sqfs_file_stream_t *fs,
				   sqfs_file_block_t *out);

SQFS_END_DECLS

#endif /* SQFS_FILE_STREAM_H */

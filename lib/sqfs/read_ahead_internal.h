/* SPDX-License-Identifier: MIT */
/*
 * read_ahead_internal.h - entries of an image in an order of the caller's,
 * each with its file data, unpacked ahead (internal: the image source,
 * sqfs/image_source.h, is built on it and is what programs use).
 *
 * A program that handles entries one after the other (an archiver, an
 * unpacker, a comparer) queues them here as it finds them (from a walker,
 * say), each with a pointer of its own, and takes them back in the same
 * order. The regular files among them go into a file stream (file_stream.h)
 * that unpacks their blocks on worker threads, across entries, while the
 * program works on earlier ones; the program reads the data of the oldest
 * entry block by block.
 *
 * Limits: the queue holds at most max_entries entries, and once it holds
 * max_bytes bytes (inode copies, plus what the caller counts for its own
 * pointers) read_ahead_full says to take the oldest out first. Neither
 * depends on the number of jobs, so a program whose output follows the
 * order of the entries writes the same output whatever the number.
 *
 * Trust: file data is checked as the file stream checks it; a bad file
 * fails when its data is read, with words on the image (sqfs_image_error).
 *
 * Threads: the object is used by one thread at a time, the one that uses
 * the image: the workers only decompress. Without thread support, or with
 * one job, the work is done on the calling thread, with the same results.
 */
#ifndef SQFS_READ_AHEAD_INTERNAL_H
#define SQFS_READ_AHEAD_INTERNAL_H

#include "sqfs/predef.h"
#include "sqfs/file_stream.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"

typedef struct read_ahead read_ahead_t;

/* The limits a program takes when it passes 0. */
#define READ_AHEAD_DEFAULT_ENTRIES 4096u
#define READ_AHEAD_DEFAULT_BYTES (16u << 20)

/* A queued entry, as read_ahead_oldest shows it. */
typedef struct {
	/* A copy of the inode queued; owned by the queue, valid until the
	 * entry is popped. */
	const sqfs_inode_t *inode;
	/* The caller's pointer, as queued. */
	void *user;
	/* Whether its data is read through read_ahead_read. */
	bool with_data;
} ahead_entry_t;

/*
 * Create a queue reading from img (used, not owned: it must outlive the
 * queue) with num_jobs decompressing (0 or 1: on the calling thread only).
 * max_entries and max_bytes of 0 take the defaults above. drop, if not
 * NULL, is called with the pointer of every entry still queued when the
 * queue is destroyed. Fails with SQFS_ERROR_ALLOC.
 */
int read_ahead_create(sqfs_image_t *img, unsigned int num_jobs,
		      size_t max_entries, size_t max_bytes,
		      void (*drop)(void *user), read_ahead_t **out);

/* Stop the workers and free everything; NULL is allowed. */
void read_ahead_destroy(read_ahead_t *ra);

/* Whether the oldest entry must be popped before another is pushed. */
bool read_ahead_full(const read_ahead_t *ra);

/* How many entries are queued. */
size_t read_ahead_count(const read_ahead_t *ra);

/*
 * Queue an entry: the inode is copied, user is kept as given and counted
 * as user_bytes against max_bytes. With with_data (a regular file only:
 * SQFS_ERROR_NOT_FILE otherwise) its blocks are unpacked ahead. Fails with
 * SQFS_ERROR_SEQUENCE when full, SQFS_ERROR_ALLOC; nothing is queued then.
 */
int read_ahead_push(read_ahead_t *ra, const sqfs_inode_t *inode, bool with_data,
		    void *user, size_t user_bytes);

/* The oldest entry, or NULL when the queue is empty. */
const ahead_entry_t *read_ahead_oldest(const read_ahead_t *ra);

/*
 * The next block of the oldest entry's data, in file order, waiting for it
 * if needed. Returns 0 with *out filled (its user is the entry's pointer,
 * its data valid until the next call), 1 after the last block (an empty
 * file has one block of size 0), SQFS_ERROR_SEQUENCE for an entry without
 * data or an empty queue, or the error of a bad block, with words on the
 * image. The blocks' offsets and sizes are checked to add up to the file
 * size. After an error every later call fails.
 */
int read_ahead_read(read_ahead_t *ra, sqfs_file_block_t *out);

/*
 * Take the oldest entry out (the caller has done with its pointer). Data
 * of it not yet read is skipped, which may wait for its blocks; an error
 * among them (or one met before) is returned, and the entry goes all the
 * same. Returns 0 also for an empty queue.
 */
int read_ahead_pop(read_ahead_t *ra);

#endif /* SQFS_READ_AHEAD_INTERNAL_H */

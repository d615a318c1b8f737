/* SPDX-License-Identifier: MIT */
/*
 * read_ahead.c - a ring of queued entries in front of a file stream.
 *
 * The stream hands blocks back in the order files were queued, so the
 * entries are a FIFO in the same order and the oldest entry's blocks are
 * always the next ones the stream has. Each slot is the stream's key for
 * its file, which tells the blocks of two entries with the same user
 * pointer apart. Popping an entry whose data was not all read skips the
 * rest, so the stream never falls out of step with the ring.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/file_stream.h"
#include "sqfs/inode.h"
#include "sqfs/read_ahead_internal.h"

#include "image_internal.h"

#include <stdlib.h>
#include <string.h>

/* The image's error text, where the queue words its failures. */
#define ERR(ra) image_errtext((ra)->img)

typedef struct {
	/* what read_ahead_oldest shows; pub.inode is the copy */
	ahead_entry_t pub;
	sqfs_inode_t *inode;
	/* counted against max_bytes */
	size_t bytes;
} slot_t;

struct read_ahead {
	sqfs_image_t *img;
	sqfs_file_stream_t *fs;
	void (*drop)(void *user);

	slot_t *ring;
	size_t max_entries;
	size_t head;
	size_t count;
	size_t bytes;
	size_t max_bytes;

	/* the oldest entry's data: bytes handed out, and whether the last
	 * block was */
	uint64_t read_offset;
	bool read_done;

	/* a failure to read data ends all reading */
	errtext_kept_t failure;
};

int read_ahead_create(sqfs_image_t *img, unsigned int num_jobs,
		      size_t max_entries, size_t max_bytes,
		      void (*drop)(void *user), read_ahead_t **out)
{
	read_ahead_t *ra;
	int ret;

	if (img == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;

	ra = calloc(1, sizeof(*ra));
	if (ra == NULL)
		return SQFS_ERROR_ALLOC;
	ra->img = img;
	ra->drop = drop;
	ra->max_entries =
	    max_entries > 0 ? max_entries : READ_AHEAD_DEFAULT_ENTRIES;
	ra->max_bytes = max_bytes > 0 ? max_bytes : READ_AHEAD_DEFAULT_BYTES;
	/* destroy copes with whatever is not made yet */
	ra->ring = calloc(ra->max_entries, sizeof(ra->ring[0]));
	ret = ra->ring != NULL ? sqfs_file_stream_create(img, num_jobs, &ra->fs)
			       : SQFS_ERROR_ALLOC;
	if (ret != 0)
		read_ahead_destroy(ra);
	else
		*out = ra;
	return ret;
}

static slot_t *oldest(const read_ahead_t *ra)
{
	return ra->count > 0 ? &ra->ring[ra->head] : NULL;
}

static void remove_oldest(read_ahead_t *ra)
{
	slot_t *s = &ra->ring[ra->head];

	ra->bytes -= s->bytes;
	free(s->inode);
	memset(s, 0, sizeof(*s));
	ra->head = (ra->head + 1) % ra->max_entries;
	ra->count -= 1;
	ra->read_offset = 0;
	ra->read_done = false;
}

void read_ahead_destroy(read_ahead_t *ra)
{
	if (ra == NULL)
		return;
	/* stops the workers; the stream has copies of its own inodes */
	sqfs_file_stream_destroy(ra->fs);
	while (ra->count > 0) {
		if (ra->drop != NULL)
			ra->drop(ra->ring[ra->head].pub.user);
		remove_oldest(ra);
	}
	free(ra->ring);
	free(ra);
}

bool read_ahead_full(const read_ahead_t *ra)
{
	return ra->count == ra->max_entries ||
	       (ra->count > 0 && ra->bytes > ra->max_bytes);
}

size_t read_ahead_count(const read_ahead_t *ra)
{
	return ra->count;
}

int read_ahead_push(read_ahead_t *ra, const sqfs_inode_t *inode, bool with_data,
		    void *user, size_t user_bytes)
{
	size_t inode_size;
	slot_t *s;
	int ret;

	if (ra == NULL || inode == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(ra));
	if (ra->count == ra->max_entries)
		return errtext_set(ERR(ra), SQFS_ERROR_SEQUENCE,
				   "read ahead: %zu entries queued, the "
				   "most it holds",
				   ra->count);
	if (with_data && inode->type != SQFS_INODE_FILE &&
	    inode->type != SQFS_INODE_EXT_FILE)
		return errtext_set(ERR(ra), SQFS_ERROR_NOT_FILE,
				   "inode %u: not a regular file",
				   inode->inode_number);
	if (inode->payload_size > SIZE_MAX - sizeof(*inode))
		return SQFS_ERROR_ALLOC;
	inode_size = sizeof(*inode) + inode->payload_size;

	s = &ra->ring[(ra->head + ra->count) % ra->max_entries];
	s->inode = malloc(inode_size);
	if (s->inode == NULL)
		return errtext_end(ERR(ra), SQFS_ERROR_ALLOC, NULL);
	memcpy(s->inode, inode, inode_size);

	if (with_data) {
		/* the slot is the key: user pointers need not differ */
		ret = sqfs_file_stream_enqueue(ra->fs, s->inode, s);
		if (ret != 0) {
			free(s->inode);
			s->inode = NULL;
			return ret;
		}
	}
	s->pub.inode = s->inode;
	s->pub.user = user;
	s->pub.with_data = with_data;
	s->bytes = inode_size + user_bytes;
	ra->bytes += s->bytes;
	ra->count += 1;
	return 0;
}

const ahead_entry_t *read_ahead_oldest(const read_ahead_t *ra)
{
	const slot_t *s = oldest(ra);

	return s != NULL ? &s->pub : NULL;
}

/* A failure of reading: every later read fails with the same words. */
static int read_failed(read_ahead_t *ra, int ret)
{
	errtext_end(ERR(ra), ret, NULL);
	return errtext_keep(ERR(ra), &ra->failure, ret);
}

static int read_block(read_ahead_t *ra, sqfs_file_block_t *out)
{
	slot_t *s = oldest(ra);
	uint64_t size;
	int ret;

	ret = errtext_repeat(ERR(ra), &ra->failure);
	if (ret != 0)
		return ret;
	if (s == NULL || !s->pub.with_data)
		return errtext_set(ERR(ra), SQFS_ERROR_SEQUENCE,
				   "read ahead: the oldest entry has no "
				   "data queued");
	if (ra->read_done)
		return 1;

	ret = sqfs_file_stream_next(ra->fs, out);
	if (ret < 0)
		return read_failed(ra, ret);
	if (ret == 1 || out->user != s) {
		errtext_set(ERR(ra), SQFS_ERROR_INTERNAL,
			    "read ahead: the file stream is out of step "
			    "with the queue");
		return read_failed(ra, SQFS_ERROR_INTERNAL);
	}

	/* the stream checks each block against the inode; this only makes
	 * sure the pieces add up to the file */
	size = s->inode->data.file.file_size;
	if (out->offset != ra->read_offset || out->size > size - out->offset) {
		errtext_set(ERR(ra), SQFS_ERROR_CORRUPTED,
			    "inode %u: block %zu does not continue the "
			    "file",
			    s->inode->inode_number, out->index);
		return read_failed(ra, SQFS_ERROR_CORRUPTED);
	}
	ra->read_offset += out->size;
	if (out->flags & SQFS_FILE_BLOCK_LAST) {
		ra->read_done = true;
		if (ra->read_offset != size) {
			errtext_set(ERR(ra), SQFS_ERROR_CORRUPTED,
				    "inode %u: the data ends at %llu of "
				    "%llu bytes",
				    s->inode->inode_number,
				    (unsigned long long)ra->read_offset,
				    (unsigned long long)size);
			return read_failed(ra, SQFS_ERROR_CORRUPTED);
		}
	}
	out->user = s->pub.user;
	return 0;
}

int read_ahead_read(read_ahead_t *ra, sqfs_file_block_t *out)
{
	if (ra == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(ra));
	return read_block(ra, out);
}

int read_ahead_pop(read_ahead_t *ra)
{
	sqfs_file_block_t blk;
	slot_t *s;
	int ret = 0;

	if (ra == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(ra));
	s = oldest(ra);
	if (s == NULL)
		return 0;
	/* the rest of its blocks come before the next entry's */
	if (s->pub.with_data && !ra->read_done) {
		while ((ret = read_block(ra, &blk)) == 0)
			;
		if (ret > 0)
			ret = 0;
	}
	remove_oldest(ra);
	return ret;
}

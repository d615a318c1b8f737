/* SPDX-License-Identifier: MIT */
/*
 * side_image.c - an image as a side: the library's walker gives the
 * entries in order, and each goes through the read-ahead queue
 * (sqfs/read_ahead.h), so that the blocks of the files after the one
 * being compared are unpacked on other threads meanwhile. The queue's
 * reach does not depend on the number of jobs, so neither does anything
 * printed.
 *
 * The image is untrusted: every failure of the library (a damaged
 * listing, a block that does not unpack) ends the comparison with the
 * library's words, and the verdict is "error", never "equal" or
 * "different".
 */
#include "config.h"

#include "side.h"
#include "common/print.h"
#include "sqfs/data_reader.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/image.h"
#include "sqfs/read_ahead.h"
#include "sqfs/walker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A walker entry held in the queue: copies of what it points at. */
typedef struct {
	char *path;
	char *link_of;
} queued_t;

typedef struct {
	sd_side_t base;
	sqfs_file_t *file;
	sqfs_image_t *img;
	sqfs_walker_t *walker;
	sqfs_read_ahead_t *ahead;
	/* for data read again (sd_side_rewind) or not read ahead */
	sqfs_data_reader_t *data;
	bool with_data;
	bool walk_done;

	/* the head entry, when have_head */
	bool have_head;
	sd_entry_t head;
	const sqfs_inode_t *inode;
	sqfs_xattr_t *xattrs;
	size_t xattr_count;

	/* reading the head's data through the data reader: the next block
	 * index, and whether all is read */
	bool by_reader;
	size_t next_block;
	bool data_done;
} image_side_t;

static void queued_free(void *user)
{
	queued_t *q = user;

	if (q != NULL) {
		free(q->path);
		free(q->link_of);
		free(q);
	}
}

/* The library's words on the last failure, naming the entry if any. */
static int failed(image_side_t *s, const char *path)
{
	if (path != NULL)
		tool_error(s->base.name, "%s: %s", path[0] ? path : "/",
			   sqfs_image_error(s->img));
	else
		tool_error(s->base.name, "%s", sqfs_image_error(s->img));
	return -1;
}

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* Walk on while the queue has room. */
static int fill(image_side_t *s)
{
	while (!s->walk_done && !sqfs_read_ahead_full(s->ahead)) {
		sqfs_walk_entry_t ent;
		queued_t *q;
		bool data;
		int ret;

		ret = sqfs_walker_next(s->walker, &ent);
		if (ret == 1) {
			s->walk_done = true;
			break;
		}
		if (ret != 0)
			return failed(s, NULL);

		q = calloc(1, sizeof(*q));
		if (q == NULL || (q->path = strdup(ent.path)) == NULL ||
		    (ent.link_target != NULL &&
		     (q->link_of = strdup(ent.link_target)) == NULL)) {
			queued_free(q);
			return oom();
		}
		/* a hard link's data is its group's first member's, which
		 * was compared there */
		data =
		    s->with_data && ent.link_target == NULL &&
		    sqfs_inode_type_basic(ent.inode->type) == SQFS_INODE_FILE;
		ret = sqfs_read_ahead_push(s->ahead, ent.inode, data, q,
					   sizeof(*q) + strlen(q->path));
		if (ret != 0) {
			failed(s, q->path);
			queued_free(q);
			return -1;
		}
	}
	return 0;
}

static int image_head(sd_side_t *side, const sd_entry_t **out)
{
	image_side_t *s = (image_side_t *)side;
	const sqfs_ahead_entry_t *e;
	const sqfs_inode_t *in;
	queued_t *q;
	uint32_t major, minor;

	if (s->have_head) {
		*out = &s->head;
		return 0;
	}
	if (fill(s) != 0)
		return -1;
	e = sqfs_read_ahead_oldest(s->ahead);
	if (e == NULL)
		return 1;
	q = e->user;
	in = e->inode;

	memset(&s->head, 0, sizeof(s->head));
	s->head.path = q->path;
	s->head.link_of = q->link_of;
	s->head.mode = sqfs_inode_mode(in);
	s->head.mtime = in->mtime;
	s->head.inode_number = in->inode_number;
	if (sqfs_image_inode_owner(s->img, in, &s->head.uid, &s->head.gid))
		return failed(s, q->path);
	switch (sqfs_inode_type_basic(in->type)) {
	case SQFS_INODE_FILE:
		s->head.size = in->data.file.file_size;
		break;
	case SQFS_INODE_SLINK:
		/* the payload is the target and a NUL */
		s->head.target = (const char *)in->payload;
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(in->data.dev.rdev, &major, &minor);
		s->head.dev_major = major;
		s->head.dev_minor = minor;
		break;
	default:
		break;
	}
	s->inode = in;
	s->by_reader = !e->with_data;
	s->next_block = 0;
	s->data_done = false;
	s->have_head = true;
	*out = &s->head;
	return 0;
}

static int image_pop(sd_side_t *side)
{
	image_side_t *s = (image_side_t *)side;
	const sqfs_ahead_entry_t *e;
	queued_t *q;
	int ret;

	if (!s->have_head)
		return 0;
	sqfs_xattr_list_free(s->xattrs, s->xattr_count);
	s->xattrs = NULL;
	s->xattr_count = 0;
	s->have_head = false;
	/* the queue gives the entry's pointer back to its owner: freed
	 * here, after the message that may name its path */
	e = sqfs_read_ahead_oldest(s->ahead);
	q = e != NULL ? e->user : NULL;
	/* data left unread is skipped: a bad block there is still bad */
	ret = sqfs_read_ahead_pop(s->ahead);
	if (ret != 0)
		failed(s, q != NULL ? q->path : NULL);
	queued_free(q);
	return ret == 0 ? 0 : -1;
}

static int image_xattrs(sd_side_t *side, sqfs_xattr_t **list, size_t *count)
{
	image_side_t *s = (image_side_t *)side;

	if (s->xattrs == NULL && s->xattr_count == 0 &&
	    sqfs_image_read_xattrs(s->img, s->inode, &s->xattrs,
				   &s->xattr_count) != 0) {
		s->xattrs = NULL;
		s->xattr_count = 0;
		return failed(s, s->head.path);
	}
	*list = s->xattrs;
	*count = s->xattr_count;
	return 0;
}

static int image_read(sd_side_t *side, sd_piece_t *out)
{
	image_side_t *s = (image_side_t *)side;
	uint64_t blocks;
	uint32_t word;
	int ret;

	if (s->data_done)
		return 1;
	if (!s->by_reader) {
		sqfs_file_block_t blk;

		ret = sqfs_read_ahead_read(s->ahead, &blk);
		if (ret == 1) {
			s->data_done = true;
			return 1;
		}
		if (ret != 0)
			return failed(s, s->head.path);
		out->zeros = (blk.flags & SQFS_FILE_BLOCK_SPARSE) != 0;
		out->data = out->zeros ? NULL : blk.data;
		out->size = blk.size;
		return 0;
	}

	/* the listed blocks, then the tail in a fragment if there is one */
	blocks = sqfs_inode_block_count(s->inode,
					sqfs_image_super(s->img)->block_size);
	if (s->next_block >=
	    blocks + (s->inode->data.file.fragment_index != SQFS_NO_FRAGMENT)) {
		s->data_done = true;
		return 1;
	}
	ret = sqfs_data_reader_get_block(s->data, s->inode, s->next_block,
					 &out->data, &out->size);
	if (ret != 0)
		return failed(s, s->head.path);
	/* a listed block of size 0 is sparse (the payload need not be
	 * aligned for uint32_t) */
	out->zeros = false;
	if (s->next_block < blocks) {
		memcpy(&word, s->inode->payload + s->next_block * sizeof(word),
		       sizeof(word));
		out->zeros = word == 0;
	}
	if (out->zeros)
		out->data = NULL;
	s->next_block += 1;
	return 0;
}

static int image_rewind(sd_side_t *side)
{
	image_side_t *s = (image_side_t *)side;

	/* what the queue has unpacked cannot be had again: from here on
	 * the data reader reads it, and the queue skips it at the pop */
	s->by_reader = true;
	s->next_block = 0;
	s->data_done = false;
	return 0;
}

static const sqfs_super_t *image_super(const sd_side_t *side)
{
	return sqfs_image_super(((const image_side_t *)side)->img);
}

static void image_close(sd_side_t *side)
{
	image_side_t *s = (image_side_t *)side;

	sqfs_xattr_list_free(s->xattrs, s->xattr_count);
	sqfs_read_ahead_destroy(s->ahead);
	sqfs_data_reader_destroy(s->data);
	sqfs_walker_destroy(s->walker);
	sqfs_image_destroy(s->img);
	sqfs_file_destroy(s->file);
	free(s);
}

static const sd_side_ops_t image_ops = {
    .head = image_head,
    .pop = image_pop,
    .xattrs = image_xattrs,
    .read = image_read,
    .rewind = image_rewind,
    .super = image_super,
    .close = image_close,
};

sd_side_t *sd_image_side_open(const char *path, bool with_data,
			      unsigned int num_jobs)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	image_side_t *s = calloc(1, sizeof(*s));
	int ret;

	if (s == NULL) {
		oom();
		return NULL;
	}
	s->base.ops = &image_ops;
	s->base.name = path;
	s->with_data = with_data;

	ret = sqfs_file_open(&s->file, path, SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		tool_error(path, "%s",
			   ret == SQFS_ERROR_IO ? strerror(errno)
						: sqfs_error_string(ret));
		goto fail;
	}
	ret = sqfs_image_open(s->file, &s->img, why);
	if (ret != 0) {
		tool_error(path, "%s", why);
		goto fail;
	}
	ret = sqfs_walker_create(s->img, "", 0, 0, &s->walker);
	if (ret != 0) {
		failed(s, NULL);
		goto fail;
	}
	ret = sqfs_data_reader_create(s->img, &s->data);
	if (ret == 0)
		ret = sqfs_read_ahead_create(s->img, with_data ? num_jobs : 1,
					     0, 0, queued_free, &s->ahead);
	if (ret != 0) {
		tool_error(path, "%s", sqfs_error_string(ret));
		goto fail;
	}
	return &s->base;
fail:
	image_close(&s->base);
	return NULL;
}

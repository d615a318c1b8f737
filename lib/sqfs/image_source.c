/* SPDX-License-Identifier: MIT */
/*
 * image_source.c - the walker and the read-ahead queue fused into one
 * source of neutral entries with their data (sqfs/image_source.h).
 *
 * The walker runs ahead of the program as far as the read-ahead queue
 * allows; each entry it reports is queued with copies of its path and
 * link target, and a regular file's blocks go into the queue's file
 * stream, which unpacks them on the workers. When the program asks for
 * the next entry, the oldest one leaves the queue and is described in
 * sqfs_entry_t terms: the owner looked up in the id table, the device
 * number decoded, the symlink target and the xattrs read. Only then:
 * what the program never looks at costs nothing but the inode copy.
 *
 * Data goes out as runs: one block of data at a time, or a hole covering
 * every sparse block that follows. A file the queue did not unpack (no
 * data wanted ahead, or a rewind) is read through a data reader with the
 * same checks and the same runs.
 *
 * Failures: the first one ends the source and every later call repeats
 * it. A failure of the walk waits until the entries walked before it were
 * handed out, so that the output of a program ends where it would have
 * ended without reading ahead.
 */
#include "config.h"

#include "sqfs/data_reader.h"
#include "sqfs/error.h"
#include "sqfs/image_source.h"
#include "sqfs/inode.h"
#include "sqfs/read_ahead_internal.h"
#include "sqfs/walker.h"

#include "data_internal.h"
#include "image_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The image's error text, where the source words its failures. */
#define ERR(s) image_errtext((s)->img)

/* What the queue keeps of a walker entry besides the inode. */
typedef struct {
	char *path;
	char *link;
	bool post;
} item_t;

struct sqfs_image_source {
	sqfs_image_t *img;
	uint32_t flags;
	uint32_t block_size;
	sqfs_walker_t *walker;
	read_ahead_t *ahead;
	/* for data not unpacked ahead; made when first needed */
	sqfs_data_reader_t *dr;
	bool walk_done;
	bool walk_failed;

	/* the first failure, handed out again with its words */
	errtext_kept_t failure;

	/* the entry handed out last (the queue's oldest) */
	item_t *cur;
	const sqfs_inode_t *inode;
	bool cur_ahead;
	sqfs_entry_t entry;
	sqfs_xattr_t *xattrs;
	size_t xattr_count;

	/* reading its data: the block list, the next block index and
	 * offset, through the data reader or not, and whether done */
	data_file_t fi;
	bool by_reader;
	size_t next_index;
	uint64_t offset;
	bool data_done;

	/* sqfs_image_source_extents */
	sqfs_extent_t *extents;
	size_t extent_count;
	size_t extent_cap;
};

/* How the words name an entry: "/" for the start of the walk. */
static const char *shown(const item_t *it)
{
	return it->path[0] != '\0' ? it->path : "/";
}

static void item_free(void *user)
{
	item_t *it = user;

	if (it != NULL) {
		free(it->path);
		free(it->link);
		free(it);
	}
}

void sqfs_image_source_options_init(sqfs_image_source_options_t *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->num_jobs = 1;
	opt->max_entries = SQFS_SOURCE_DEFAULT_ENTRIES;
	opt->max_bytes = SQFS_SOURCE_DEFAULT_BYTES;
}

void sqfs_image_source_destroy(sqfs_image_source_t *src)
{
	if (src == NULL)
		return;
	sqfs_xattr_list_free(src->xattrs, src->xattr_count);
	/* the queue frees the items still in it, the current one too */
	read_ahead_destroy(src->ahead);
	sqfs_data_reader_destroy(src->dr);
	sqfs_walker_destroy(src->walker);
	free(src->extents);
	free(src);
}

static bool reserved_zero(const sqfs_image_source_options_t *opt)
{
	for (size_t i = 0; i < sizeof(opt->reserved) / sizeof(opt->reserved[0]);
	     ++i) {
		if (opt->reserved[i] != 0)
			return false;
	}
	return true;
}

int sqfs_image_source_create(sqfs_image_t *img, const char *path,
			     const sqfs_image_source_options_t *opt,
			     sqfs_image_source_t **out)
{
	const uint32_t known = SQFS_SOURCE_POST_DIRS | SQFS_SOURCE_NO_DATA |
			       SQFS_SOURCE_NO_XATTRS | SQFS_SOURCE_START_ONLY |
			       SQFS_SOURCE_ONE_LEVEL;
	sqfs_image_source_options_t defaults;
	sqfs_image_source_t *src;
	unsigned int wflags = 0, jobs;
	int ret;

	if (img == NULL || path == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;
	if (opt == NULL) {
		sqfs_image_source_options_init(&defaults);
		opt = &defaults;
	}
	if ((opt->flags & ~known) != 0 || !reserved_zero(opt))
		return SQFS_ERROR_ARG_INVALID;

	src = calloc(1, sizeof(*src));
	if (src == NULL)
		return SQFS_ERROR_ALLOC;
	src->img = img;
	src->flags = opt->flags;
	ret = data_block_size(img, &src->block_size);
	if (ret != 0)
		goto fail;

	if (opt->flags & SQFS_SOURCE_POST_DIRS)
		wflags |= SQFS_WALK_POST_DIRS;
	if (opt->flags & SQFS_SOURCE_START_ONLY)
		wflags |= SQFS_WALK_START_ONLY;
	if (opt->flags & SQFS_SOURCE_ONE_LEVEL)
		wflags |= SQFS_WALK_ONE_LEVEL;
	ret =
	    sqfs_walker_create(img, path, opt->max_depth, wflags, &src->walker);
	if (ret != 0)
		goto fail;

	/* without data ahead, workers would have nothing to do */
	jobs = (opt->flags & SQFS_SOURCE_NO_DATA) ? 1 : opt->num_jobs;
	ret = read_ahead_create(img, jobs, opt->max_entries, opt->max_bytes,
				item_free, &src->ahead);
	if (ret != 0)
		goto fail;
	*out = src;
	return 0;
fail:
	sqfs_image_source_destroy(src);
	return ret;
}

/* ---- failures ------------------------------------------------------------ */

/* The first failure: kept, with its words, for every later call. */
static int failed(sqfs_image_source_t *src, int ret)
{
	errtext_end(ERR(src), ret, NULL);
	return errtext_keep(ERR(src), &src->failure, ret);
}

/* The start of every public call: fresh words, and the first failure
 * again if there was one. */
static int call_begin(sqfs_image_source_t *src)
{
	errtext_begin(ERR(src));
	return errtext_repeat(ERR(src), &src->failure);
}

/* ---- entries ------------------------------------------------------------- */

static bool is_file(const sqfs_inode_t *inode)
{
	return inode->type == SQFS_INODE_FILE ||
	       inode->type == SQFS_INODE_EXT_FILE;
}

/* Queue walker entries while there is room; a failure of the walk is
 * kept for when the queue is empty. */
static int fill(sqfs_image_source_t *src)
{
	while (!src->walk_done && !src->walk_failed &&
	       !read_ahead_full(src->ahead)) {
		sqfs_walk_entry_t ent;
		item_t *it;
		size_t bytes;
		bool data;
		int ret;

		ret = sqfs_walker_next(src->walker, &ent);
		if (ret == 1) {
			src->walk_done = true;
			break;
		}
		if (ret < 0) {
			src->walk_failed = true;
			break;
		}

		it = calloc(1, sizeof(*it));
		if (it == NULL)
			return SQFS_ERROR_ALLOC;
		it->path = strdup(ent.path);
		it->link =
		    ent.link_target != NULL ? strdup(ent.link_target) : NULL;
		it->post = ent.post;
		if (it->path == NULL ||
		    (ent.link_target != NULL && it->link == NULL)) {
			item_free(it);
			return SQFS_ERROR_ALLOC;
		}
		bytes = sizeof(*it) + strlen(it->path) +
			(it->link != NULL ? strlen(it->link) : 0);
		/* a hard link's data is its first name's, handed out there */
		data = !(src->flags & SQFS_SOURCE_NO_DATA) && !ent.post &&
		       ent.link_target == NULL && is_file(ent.inode);
		ret = read_ahead_push(src->ahead, ent.inode, data, it, bytes);
		if (ret != 0) {
			item_free(it);
			return ret;
		}
	}
	return 0;
}

/* Take the current entry out of the queue; data of it not read is
 * skipped, and a bad block there is a failure that names it. */
static int drop_current(sqfs_image_source_t *src)
{
	item_t *it = src->cur;
	int ret;

	sqfs_xattr_list_free(src->xattrs, src->xattr_count);
	src->xattrs = NULL;
	src->xattr_count = 0;
	src->inode = NULL;
	if (it == NULL)
		return 0;
	src->cur = NULL;
	ret = read_ahead_pop(src->ahead);
	if (ret != 0)
		ret = errtext_wrap(ERR(src), ret, "'%s'", shown(it));
	item_free(it);
	return ret;
}

/* Describe the queue's oldest entry in src->entry. */
static int describe(sqfs_image_source_t *src, const ahead_entry_t *e)
{
	const sqfs_inode_t *in = e->inode;
	sqfs_entry_t *ent = &src->entry;
	item_t *it = e->user;
	int ret;

	src->cur = it;
	src->inode = in;
	src->cur_ahead = e->with_data;
	memset(ent, 0, sizeof(*ent));
	ent->path = it->path;
	ent->hard_link = it->link;
	ent->flags = it->post ? SQFS_ENTRY_POST : 0;
	ent->mode = sqfs_inode_mode(in);
	ent->mtime = in->mtime;
	ent->inode_number = in->inode_number;
	ent->nlink = in->nlink;
	ret = sqfs_image_inode_owner(src->img, in, &ent->uid, &ent->gid);
	if (ret != 0)
		return errtext_wrap(ERR(src), ret, "'%s'", shown(it));

	switch (sqfs_inode_type_basic(in->type)) {
	case SQFS_INODE_DIR:
		ent->size = in->data.dir.size;
		break;
	case SQFS_INODE_FILE:
		ent->size = in->data.file.file_size;
		break;
	case SQFS_INODE_SLINK:
		/* the inode reader stores the target with a NUL after it */
		if (in->payload_size <= in->data.slink.target_size ||
		    in->payload[in->data.slink.target_size] != '\0')
			return errtext_set(ERR(src), SQFS_ERROR_CORRUPTED,
					   "inode %u: the symlink target "
					   "is damaged",
					   in->inode_number);
		ent->size = in->data.slink.target_size;
		ent->symlink_target = (const char *)in->payload;
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(in->data.dev.rdev, &ent->rdev_major,
				       &ent->rdev_minor);
		break;
	default:
		break;
	}

	if (!(src->flags & SQFS_SOURCE_NO_XATTRS)) {
		ret = sqfs_image_read_xattrs(src->img, in, &src->xattrs,
					     &src->xattr_count);
		if (ret != 0) {
			src->xattrs = NULL;
			src->xattr_count = 0;
			return errtext_wrap(ERR(src), ret, "'%s'", shown(it));
		}
		ent->xattrs = src->xattrs;
		ent->xattr_count = src->xattr_count;
	}

	src->by_reader = !src->cur_ahead;
	src->next_index = 0;
	src->offset = 0;
	/* a hard link's data is not unpacked ahead, but can be read */
	src->data_done = !is_file(in) || it->post;
	if (!src->data_done) {
		const char *why = data_file_info(src->block_size, in, &src->fi);

		if (why != NULL)
			return errtext_set(ERR(src), SQFS_ERROR_CORRUPTED,
					   "inode %u: %s", in->inode_number,
					   why);
	}
	return 0;
}

static int next_entry(sqfs_image_source_t *src, const sqfs_entry_t **out)
{
	const ahead_entry_t *e;
	int ret;

	ret = drop_current(src);
	if (ret == 0)
		ret = fill(src);
	if (ret != 0)
		return ret;
	e = read_ahead_oldest(src->ahead);
	if (e == NULL) {
		sqfs_walk_entry_t ent;

		if (!src->walk_failed)
			return 1;
		/* the walker hands out its failure again, with its words */
		return sqfs_walker_next(src->walker, &ent);
	}
	ret = describe(src, e);
	if (ret == 0)
		*out = &src->entry;
	return ret;
}

int sqfs_image_source_next(sqfs_image_source_t *src, const sqfs_entry_t **out)
{
	int ret;

	if (src == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(src);
	if (ret != 0)
		return ret;
	ret = next_entry(src, out);
	return ret < 0 ? failed(src, ret) : ret;
}

/* ---- data ---------------------------------------------------------------- */

/* The length of listed block index (or of the tail, index == count). */
static uint64_t block_length(const sqfs_image_source_t *src, size_t index)
{
	if (index >= src->fi.count)
		return src->fi.tail;
	return data_block_expect(src->block_size, &src->fi, index);
}

/* How many bytes of holes the sparse blocks from index on make, and the
 * index after them. */
static uint64_t hole_from(const sqfs_image_source_t *src, size_t index,
			  size_t *end)
{
	uint64_t size = 0;

	while (data_block_is_sparse(&src->fi, index)) {
		size += block_length(src, index);
		index += 1;
	}
	*end = index;
	return size;
}

/* The next run through the data reader. */
static int read_by_reader(sqfs_image_source_t *src, sqfs_data_run_t *out)
{
	size_t index = src->next_index, end;
	sqfs_file_block_t blk;
	int ret;

	if (src->offset >= src->inode->data.file.file_size ||
	    index > src->fi.count ||
	    (index == src->fi.count && src->fi.tail == 0)) {
		src->data_done = true;
		return 1;
	}
	if (src->dr == NULL) {
		ret = sqfs_data_reader_create(src->img, &src->dr);
		if (ret != 0)
			return ret;
	}
	if (data_block_is_sparse(&src->fi, index)) {
		out->offset = src->offset;
		out->size = hole_from(src, index, &end);
		out->data = NULL;
		src->next_index = end;
		src->offset += out->size;
		return 0;
	}
	ret = sqfs_data_reader_get_block(src->dr, src->inode, index, &blk);
	if (ret != 0)
		return ret;
	if (blk.size != block_length(src, index) || blk.offset != src->offset)
		return errtext_set(
		    ERR(src), SQFS_ERROR_CORRUPTED, "inode %u: block %zu: %s",
		    src->inode->inode_number, index, DATA_WRONG_SIZE);
	out->offset = blk.offset;
	out->size = blk.size;
	out->data = blk.data;
	src->next_index = index + 1;
	src->offset += blk.size;
	return 0;
}

/* The next run from the queue, which checks that the blocks continue the
 * file and add up to its size. */
static int read_ahead_run(sqfs_image_source_t *src, sqfs_data_run_t *out)
{
	sqfs_file_block_t blk;
	int ret;

	do {
		ret = read_ahead_read(src->ahead, &blk);
		if (ret != 0) {
			if (ret == 1)
				src->data_done = true;
			return ret;
		}
		/* an empty file is one block of size 0 */
	} while (blk.size == 0);

	out->offset = blk.offset;
	out->size = blk.size;
	out->data = blk.data;
	src->next_index = blk.index + 1;
	src->offset = blk.offset + blk.size;
	if (!(blk.flags & SQFS_FILE_BLOCK_SPARSE))
		return 0;
	/* a hole takes in the sparse blocks after it */
	out->data = NULL;
	while (data_block_is_sparse(&src->fi, src->next_index)) {
		ret = read_ahead_read(src->ahead, &blk);
		if (ret != 0) {
			if (ret == 1)
				return errtext_set(
				    ERR(src), SQFS_ERROR_INTERNAL,
				    "inode %u: the file stream ends inside "
				    "a hole",
				    src->inode->inode_number);
			return ret;
		}
		if (!(blk.flags & SQFS_FILE_BLOCK_SPARSE) ||
		    blk.index != src->next_index)
			return errtext_set(ERR(src), SQFS_ERROR_INTERNAL,
					   "inode %u: the file stream is "
					   "out of step with the block "
					   "list",
					   src->inode->inode_number);
		out->size += blk.size;
		src->next_index = blk.index + 1;
		src->offset = blk.offset + blk.size;
	}
	return 0;
}

int sqfs_image_source_read(sqfs_image_source_t *src, sqfs_data_run_t *out)
{
	int ret;

	if (src == NULL || out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(src);
	if (ret != 0)
		return ret;
	if (src->inode == NULL || src->data_done)
		return 1;
	ret = src->by_reader ? read_by_reader(src, out)
			     : read_ahead_run(src, out);
	return ret < 0 ? failed(src, ret) : ret;
}

int sqfs_image_source_rewind(sqfs_image_source_t *src)
{
	int ret;

	if (src == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(src);
	if (ret != 0)
		return ret;
	if (src->inode == NULL)
		return errtext_set(ERR(src), SQFS_ERROR_SEQUENCE,
				   "no entry to read again");
	if (!is_file(src->inode) || src->cur->post)
		return 0;
	/* what the queue unpacked is skipped when the entry goes */
	src->by_reader = true;
	src->next_index = 0;
	src->offset = 0;
	src->data_done = false;
	return 0;
}

/* ---- extents ------------------------------------------------------------- */

static int add_extent(sqfs_image_source_t *src, uint64_t offset, uint64_t size)
{
	sqfs_extent_t *last;

	if (size == 0)
		return 0;
	last =
	    src->extent_count > 0 ? &src->extents[src->extent_count - 1] : NULL;
	if (last != NULL && last->offset + last->size == offset) {
		last->size += size;
		return 0;
	}
	if (src->extent_count == src->extent_cap) {
		size_t cap = src->extent_cap ? 2 * src->extent_cap : 16;
		sqfs_extent_t *n = realloc(src->extents, cap * sizeof(n[0]));

		if (n == NULL)
			return SQFS_ERROR_ALLOC;
		src->extents = n;
		src->extent_cap = cap;
	}
	src->extents[src->extent_count].offset = offset;
	src->extents[src->extent_count].size = size;
	src->extent_count += 1;
	return 0;
}

int sqfs_image_source_extents(sqfs_image_source_t *src,
			      const sqfs_extent_t **list, size_t *count)
{
	uint64_t offset = 0;
	int ret = 0;

	if (src == NULL || list == NULL || count == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = call_begin(src);
	if (ret != 0)
		return ret;
	if (src->inode == NULL || !is_file(src->inode))
		return errtext_set(ERR(src), SQFS_ERROR_NOT_FILE,
				   "the entry is not a regular file");
	src->extent_count = 0;
	for (size_t i = 0; ret == 0 && i < src->fi.count; ++i) {
		uint64_t len = block_length(src, i);

		if (!data_block_is_sparse(&src->fi, i))
			ret = add_extent(src, offset, len);
		offset += len;
	}
	if (ret == 0)
		ret = add_extent(src, offset, src->fi.tail);
	if (ret != 0)
		return failed(src, ret);
	*list = src->extents;
	*count = src->extent_count;
	return 0;
}

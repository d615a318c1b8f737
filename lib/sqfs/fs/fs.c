/* SPDX-License-Identifier: MIT */
/*
 * fs.c - the file system object: opening, the caches' wiring, attributes,
 * symlinks and xattrs (sqfs/fs.h). Directories are in fs_dir.c, file
 * contents in fs_file.c.
 */
#include "fs_internal.h"
#include "data_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- serialized I/O ------------------------------------------------------ */

/* A file whose read_at runs one call at a time, for back ends that are
 * not safe to call from several threads (SQFS_FS_SERIALIZE_IO). */
typedef struct {
	sqfs_file_t base;
	sqfs_file_t *under;
	pthread_mutex_t lock;
} serial_file_t;

static int serial_read_at(sqfs_file_t *base, uint64_t offset, void *buffer,
			  size_t size)
{
	serial_file_t *s = (serial_file_t *)base;
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = s->under->read_at(s->under, offset, buffer, size);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static int serial_write_at(sqfs_file_t *base, uint64_t offset,
			   const void *buffer, size_t size)
{
	(void)base;
	(void)offset;
	(void)buffer;
	(void)size;
	return SQFS_ERROR_UNSUPPORTED;
}

static uint64_t serial_get_size(const sqfs_file_t *base)
{
	const serial_file_t *s = (const serial_file_t *)base;

	return s->under->get_size(s->under);
}

static int serial_truncate(sqfs_file_t *base, uint64_t size)
{
	(void)base;
	(void)size;
	return SQFS_ERROR_UNSUPPORTED;
}

static void serial_destroy(sqfs_file_t *base)
{
	serial_file_t *s = (serial_file_t *)base;

	pthread_mutex_destroy(&s->lock);
	free(s);
}

static sqfs_file_t *serial_wrap(sqfs_file_t *file)
{
	serial_file_t *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->under = file;
	pthread_mutex_init(&s->lock, NULL);
	s->base.destroy = serial_destroy;
	s->base.read_at = serial_read_at;
	s->base.write_at = serial_write_at;
	s->base.get_size = serial_get_size;
	s->base.truncate = serial_truncate;
	return &s->base;
}

/* ---- the metadata cache -------------------------------------------------- */

static int meta_load(void *user, cache_block_t *blk)
{
	return meta_reader_decode((sqfs_meta_reader_t *)user, blk->pos,
				  blk->data, &blk->len, &blk->next_pos);
}

int fs_meta_fetch(void *user, sqfs_meta_reader_t *mr, uint64_t pos,
		  uint8_t *data, size_t *len, uint64_t *next)
{
	sqfs_fs_t *fs = user;
	cache_block_t *blk;
	int ret;

	/* a block was checked against its region: the region's end is
	 * part of the key */
	ret = block_cache_get(fs->meta, pos, meta_reader_limit(mr), meta_load,
			      mr, &blk, NULL);
	if (ret != 0)
		return ret;
	memcpy(data, blk->data, blk->len);
	*len = blk->len;
	*next = blk->next_pos;
	block_cache_put(fs->meta, blk);
	return 0;
}

/* ---- opening ------------------------------------------------------------- */

static int open_fail(sqfs_fs_t *fs, char *why, int code, const char *fmt,
		     const char *what)
{
	if (why != NULL)
		snprintf(why, SQFS_ERROR_TEXT_SIZE, fmt, what);
	sqfs_fs_destroy(fs);
	return code;
}

static unsigned int default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > 8 ? 8u : (unsigned int)n;
}

int sqfs_fs_open(sqfs_file_t *file, const sqfs_fs_options_t *opt,
		 sqfs_fs_t **out, char *why)
{
	sqfs_fs_options_t o;
	sqfs_inode_t *root;
	fs_ctx_t *ctx;
	sqfs_fs_t *fs;
	uint64_t meta_bytes, data_bytes;
	size_t i;
	int ret;

	if (why != NULL)
		why[0] = '\0';
	if (file == NULL || out == NULL)
		return open_fail(NULL, why, SQFS_ERROR_ARG_INVALID, "%s",
				 "sqfs_fs_open: no file or no out");
	*out = NULL;
	memset(&o, 0, sizeof(o));
	if (opt != NULL)
		o = *opt;
	for (i = 0; i < sizeof(o.reserved) / sizeof(o.reserved[0]); ++i) {
		if (o.reserved[i] != 0)
			return open_fail(NULL, why, SQFS_ERROR_ARG_INVALID,
					 "%s",
					 "sqfs_fs_open: reserved options "
					 "must be zero");
	}
	if (o.flags & ~(uint32_t)(SQFS_FS_SERIALIZE_IO | SQFS_FS_NO_READ_AHEAD))
		return open_fail(NULL, why, SQFS_ERROR_ARG_INVALID, "%s",
				 "sqfs_fs_open: unknown flags");

	fs = calloc(1, sizeof(*fs));
	if (fs == NULL)
		return open_fail(NULL, why, SQFS_ERROR_ALLOC, "%s",
				 "out of memory");
	pthread_mutex_init(&fs->pool_lock, NULL);
	for (i = 0; i < HANDLE_LOCKS; ++i)
		pthread_mutex_init(&fs->handle_lock[i], NULL);
	number_map_init(&fs->numbers);
	atomic_init(&fs->ra_done, 0);
	atomic_init(&fs->ra_used, 0);
	fs->flags = o.flags;
	fs->file = file;
	if (o.flags & SQFS_FS_SERIALIZE_IO) {
		fs->serial = serial_wrap(file);
		if (fs->serial == NULL)
			return open_fail(fs, why, SQFS_ERROR_ALLOC, "%s",
					 "out of memory");
		fs->file = fs->serial;
	}

	ret = sqfs_image_open(fs->file, &fs->img, why);
	if (ret != 0) {
		sqfs_fs_destroy(fs);
		return ret;
	}
	fs->super = *sqfs_image_super(fs->img);
	if (data_block_size(fs->img, &fs->block_size) != 0)
		return open_fail(fs, why, SQFS_ERROR_CORRUPTED, "%s",
				 "superblock: block size out of range");
	image_data_region(fs->img, &fs->data_start, &fs->data_end);
	fs->has_export = image_has_export(fs->img);

	meta_bytes = o.meta_cache_bytes ? o.meta_cache_bytes
					: SQFS_FS_DEFAULT_META_CACHE;
	data_bytes = o.data_cache_bytes ? o.data_cache_bytes
					: SQFS_FS_DEFAULT_DATA_CACHE;
	ret =
	    block_cache_create(meta_bytes, SQFS_META_BLOCK_SIZE, 64, &fs->meta);
	if (ret == 0)
		ret = block_cache_create(data_bytes, fs->block_size, 8,
					 &fs->data);
	if (ret != 0)
		return open_fail(fs, why, ret, "%s", "out of memory");
	image_set_meta_fetch(fs->img, fs_meta_fetch, fs);

	ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return open_fail(fs, why, SQFS_ERROR_ALLOC, "%s",
				 "out of memory");
	ret = sqfs_image_read_root(ctx->img, &root);
	if (ret != 0) {
		fs_ctx_done(fs, ctx, ret, why);
		sqfs_fs_destroy(fs);
		return ret;
	}
	fs->root_ino = root->inode_number;
	fs->root_ref = fs->super.root_inode_ref;
	free(root);
	fs_ctx_put(fs, ctx);

	fs->read_ahead = o.read_ahead_blocks ? o.read_ahead_blocks
					     : SQFS_FS_DEFAULT_READ_AHEAD;
	if (o.flags & SQFS_FS_NO_READ_AHEAD)
		fs->read_ahead = 0;
	if (fs->read_ahead > 0) {
		ret =
		    prefetch_create(fs,
				    o.read_ahead_threads ? o.read_ahead_threads
							 : default_threads(),
				    &fs->prefetch);
		if (ret != 0)
			return open_fail(fs, why, ret, "%s",
					 "starting the read-ahead threads");
	}
	*out = fs;
	return 0;
}

void sqfs_fs_destroy(sqfs_fs_t *fs)
{
	size_t i;

	if (fs == NULL)
		return;
	/* the workers use contexts and the caches: stop them first */
	prefetch_destroy(fs->prefetch);
	fs_handles_release(fs);
	fs_ctx_free_all(fs);
	block_cache_destroy(fs->data);
	block_cache_destroy(fs->meta);
	sqfs_image_destroy(fs->img);
	if (fs->serial != NULL)
		fs->serial->destroy(fs->serial);
	number_map_cleanup(&fs->numbers);
	pthread_mutex_destroy(&fs->pool_lock);
	for (i = 0; i < HANDLE_LOCKS; ++i)
		pthread_mutex_destroy(&fs->handle_lock[i]);
	free(fs);
}

const sqfs_super_t *sqfs_fs_super(const sqfs_fs_t *fs)
{
	return &fs->super;
}

uint64_t sqfs_fs_root(const sqfs_fs_t *fs)
{
	return fs_node_of(fs->root_ref);
}

/* ---- inodes -------------------------------------------------------------- */

int fs_read_inode_ref(fs_ctx_t *ctx, uint64_t ref, uint32_t ino,
		      sqfs_inode_t **out)
{
	int ret = sqfs_image_read_inode(ctx->img, ref, out);

	if (ret != 0)
		return errtext_wrap(fs_err(ctx), ret, "inode %u", ino);
	if ((*out)->inode_number != ino) {
		ret = errtext_set(fs_err(ctx), SQFS_ERROR_CORRUPTED,
				  "inode %u: the inode there says it is "
				  "inode %u",
				  ino, (*out)->inode_number);
		free(*out);
		*out = NULL;
	}
	return ret;
}

int fs_read_inode(sqfs_fs_t *fs, fs_ctx_t *ctx, uint64_t id, sqfs_inode_t **out,
		  uint64_t *node)
{
	uint64_t ref;
	int ret;

	*out = NULL;
	ret = fs_locate(fs, ctx, id, &ref);
	if (ret != 0)
		return ret;
	if (node != NULL)
		*node = fs_node_of(ref);
	if (!fs_id_is_node(id))
		return fs_read_inode_ref(ctx, ref, (uint32_t)id, out);
	ret = sqfs_image_read_inode(ctx->img, ref, out);
	if (ret != 0)
		return errtext_wrap(fs_err(ctx), ret, "node %llu",
				    (unsigned long long)id);
	return 0;
}

/* st_blocks as Linux's squashfs reports it: the bytes that are not
 * sparse, in 512-byte units rounded up. */
static uint64_t file_blocks(const sqfs_inode_t *inode)
{
	uint64_t size = inode->data.file.file_size;
	uint64_t sparse = inode->data.file.sparse;

	if (sparse >= size)
		return 0;
	return ((size - sparse - 1) >> 9) + 1;
}

int fs_fill_stat(sqfs_fs_t *fs, fs_ctx_t *ctx, const sqfs_inode_t *inode,
		 uint64_t node, sqfs_fs_stat_t *st)
{
	xattr_id_entry_t xid;
	uint32_t parent;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = sqfs_image_inode_owner(ctx->img, inode, &st->uid, &st->gid);
	if (ret != 0)
		return ret;
	st->ino = inode->inode_number;
	st->node = node;
	st->mode = sqfs_inode_mode(inode);
	st->nlink = inode->nlink;
	st->mtime = inode->mtime;
	st->has_xattrs = inode->xattr_index != SQFS_NO_XATTR;

	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_FILE:
		st->size = inode->data.file.file_size;
		st->blocks = file_blocks(inode);
		break;
	case SQFS_INODE_SLINK:
		st->size = inode->data.slink.target_size;
		break;
	case SQFS_INODE_DIR:
		st->size = inode->data.dir.size;
		parent = inode->data.dir.parent_inode;
		/* the root's parent is itself, as ".." at a mount's top */
		if (inode->inode_number == fs->root_ino || parent == 0 ||
		    parent > fs->super.inode_count)
			parent = fs->root_ino;
		st->parent = parent;
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(inode->data.dev.rdev, &st->rdev_major,
				       &st->rdev_minor);
		break;
	default:
		break;
	}
	/* Linux's squashfs counts the xattrs too: the size their id entry
	 * gives, in 512-byte units rounded up (unsigned, as it computes) */
	if (inode->xattr_index != SQFS_NO_XATTR &&
	    image_xattr_id(ctx->img, inode->xattr_index, &xid) == 0)
		st->blocks += ((uint32_t)(xid.size - 1u) >> 9) + 1u;
	return 0;
}

int sqfs_fs_stat(sqfs_fs_t *fs, uint64_t id, sqfs_fs_stat_t *st, char *why)
{
	sqfs_inode_t *inode;
	fs_ctx_t *ctx;
	uint64_t node;
	int ret;

	if (fs == NULL || st == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return SQFS_ERROR_ALLOC;
	ret = fs_read_inode(fs, ctx, id, &inode, &node);
	if (ret == 0) {
		ret = fs_fill_stat(fs, ctx, inode, node, st);
		free(inode);
	}
	return fs_ctx_done(fs, ctx, ret, why);
}

int sqfs_fs_readlink(sqfs_fs_t *fs, uint64_t id, char *buf, size_t size,
		     size_t *len, char *why)
{
	sqfs_inode_t *inode;
	fs_ctx_t *ctx;
	size_t n;
	int ret;

	if (fs == NULL || (buf == NULL && size > 0))
		return SQFS_ERROR_ARG_INVALID;
	ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return SQFS_ERROR_ALLOC;
	ret = fs_read_inode(fs, ctx, id, &inode, NULL);
	if (ret != 0)
		return fs_ctx_done(fs, ctx, ret, why);

	if (sqfs_inode_type_basic(inode->type) != SQFS_INODE_SLINK) {
		ret =
		    errtext_set(fs_err(ctx), SQFS_ERROR_NOT_FILE,
				"inode %u: not a symlink", inode->inode_number);
	} else {
		n = inode->data.slink.target_size;
		if (n >= size || n >= inode->payload_size) {
			ret = errtext_set(fs_err(ctx), SQFS_ERROR_OVERFLOW,
					  "inode %u: a target of %zu bytes "
					  "does not fit in %zu",
					  inode->inode_number, n, size);
		} else {
			memcpy(buf, inode->payload, n);
			buf[n] = '\0';
			if (len != NULL)
				*len = n;
		}
	}
	free(inode);
	return fs_ctx_done(fs, ctx, ret, why);
}

int sqfs_fs_xattrs(sqfs_fs_t *fs, uint64_t id, sqfs_xattr_t **list,
		   size_t *count, char *why)
{
	sqfs_inode_t *inode;
	fs_ctx_t *ctx;
	int ret;

	if (fs == NULL || list == NULL || count == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*list = NULL;
	*count = 0;
	ctx = fs_ctx_get(fs);
	if (ctx == NULL)
		return SQFS_ERROR_ALLOC;
	ret = fs_read_inode(fs, ctx, id, &inode, NULL);
	if (ret == 0) {
		ret = sqfs_image_read_xattrs(ctx->img, inode, list, count);
		free(inode);
	}
	return fs_ctx_done(fs, ctx, ret, why);
}

void sqfs_fs_cache_stats(sqfs_fs_t *fs, sqfs_fs_cache_stats_t *out)
{
	uint64_t ml, dl;

	memset(out, 0, sizeof(*out));
	block_cache_stats(fs->meta, &out->meta_bytes, &out->meta_limit,
			  &out->meta_hits, &out->meta_misses, &ml);
	block_cache_stats(fs->data, &out->data_bytes, &out->data_limit,
			  &out->data_hits, &out->data_misses, &dl);
	out->decompressed = ml + dl;
	out->read_ahead_done = atomic_load(&fs->ra_done);
	out->read_ahead_used = atomic_load(&fs->ra_used);
}

/* SPDX-License-Identifier: MIT */
/*
 * meta_reader.c - reads records from a metadata block stream confined to one
 * region of the image.
 *
 * Inode and directory lookups jump back and forth between a handful of
 * blocks, so decoded blocks live in a small LRU cache keyed by their
 * absolute position. All memory is allocated once, at creation.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_reader.h"
#include "sqfs/super.h"
#include "util/le.h"
#include "sqfs/format_internal.h"
#include "meta_reader_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	/* Absolute position of the block header. */
	uint64_t pos;
	/* Where the block that follows it starts. */
	uint64_t next;
	/* Last use, for eviction; 0 marks an empty slot. */
	uint64_t stamp;
	size_t len;
	uint8_t data[SQFS_META_BLOCK_SIZE];
} cache_entry_t;

struct sqfs_meta_reader {
	sqfs_file_t *file;
	sqfs_compressor_t *cmp;
	uint64_t start;
	uint64_t limit;

	/* The current position. */
	uint64_t block;
	size_t offset;
	/* The cache slot holding block, or -1 if it must be looked up. */
	int cur;

	/* Where blocks come from when not from the file (a shared cache). */
	meta_fetch_fn fetch;
	void *fetch_user;

	uint64_t clock;
	cache_entry_t cache[SQFS_META_READER_CACHE_SIZE];
	uint8_t payload[SQFS_META_BLOCK_SIZE];
};

int sqfs_meta_reader_create(sqfs_file_t *file, sqfs_compressor_t *cmp,
			    uint64_t start, uint64_t limit,
			    sqfs_meta_reader_t **out)
{
	sqfs_meta_reader_t *mr;

	/* an empty region is valid: the directory table may be 0 bytes */
	if (file == NULL || out == NULL || start > limit)
		return SQFS_ERROR_ARG_INVALID;

	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return SQFS_ERROR_ALLOC;

	mr->file = file;
	mr->cmp = cmp;
	mr->start = start;
	mr->limit = limit;
	mr->block = start;
	mr->cur = -1;
	*out = mr;
	return 0;
}

void sqfs_meta_reader_destroy(sqfs_meta_reader_t *mr)
{
	free(mr);
}

static int read_region(sqfs_meta_reader_t *mr, uint64_t pos, void *buf,
		       size_t size)
{
	int ret = mr->file->read_at(mr->file, pos, buf, size);

	/* the region lies inside bytes_used, so the file is too short */
	return ret == SQFS_ERROR_OUT_OF_BOUNDS ? SQFS_ERROR_TRUNCATED : ret;
}

int meta_reader_decode(sqfs_meta_reader_t *mr, uint64_t pos, uint8_t *data,
		       size_t *out_len, uint64_t *next)
{
	size_t len, disk_len;
	uint8_t header[2];
	ptrdiff_t ret;
	int err;

	if (mr->limit - pos < sizeof(header))
		return SQFS_ERROR_CORRUPTED;
	err = read_region(mr, pos, header, sizeof(header));
	if (err != 0)
		return err;

	disk_len = len = get_le16(header) & SQFS_META_LENGTH;
	if (len == 0 || len > SQFS_META_BLOCK_SIZE ||
	    len > mr->limit - pos - sizeof(header))
		return SQFS_ERROR_CORRUPTED;

	if (get_le16(header) & SQFS_META_RAW) {
		err = read_region(mr, pos + 2, data, len);
		if (err != 0)
			return err;
	} else {
		if (mr->cmp == NULL)
			return SQFS_ERROR_UNSUPPORTED;
		err = read_region(mr, pos + 2, mr->payload, len);
		if (err != 0)
			return err;
		ret = sqfs_compressor_uncompress(mr->cmp, mr->payload, len,
						 data, SQFS_META_BLOCK_SIZE);
		if (ret < 0)
			return (int)ret;
		if (ret == 0 || ret > (ptrdiff_t)SQFS_META_BLOCK_SIZE)
			return SQFS_ERROR_CORRUPTED;
		len = (size_t)ret;
	}

	*next = pos + sizeof(header) + disk_len;
	*out_len = len;
	return 0;
}

void meta_reader_set_fetch(sqfs_meta_reader_t *mr, meta_fetch_fn fn, void *user)
{
	mr->fetch = fn;
	mr->fetch_user = user;
}

uint64_t meta_reader_limit(const sqfs_meta_reader_t *mr)
{
	return mr->limit;
}

static int decode_block(sqfs_meta_reader_t *mr, cache_entry_t *ent,
			uint64_t pos)
{
	int ret;

	if (mr->fetch != NULL)
		ret = mr->fetch(mr->fetch_user, mr, pos, ent->data, &ent->len,
				&ent->next);
	else
		ret = meta_reader_decode(mr, pos, ent->data, &ent->len,
					 &ent->next);
	if (ret == 0)
		ent->pos = pos;
	return ret;
}

/* Make the block at absolute position pos the current cache slot. */
static int load_block(sqfs_meta_reader_t *mr, uint64_t pos)
{
	cache_entry_t *ent;
	int i, victim = 0;
	int ret;

	if (pos < mr->start || pos >= mr->limit)
		return SQFS_ERROR_OUT_OF_BOUNDS;

	for (i = 0; i < SQFS_META_READER_CACHE_SIZE; ++i) {
		ent = &mr->cache[i];
		if (ent->stamp != 0 && ent->pos == pos) {
			ent->stamp = ++mr->clock;
			mr->cur = i;
			return 0;
		}
		if (ent->stamp < mr->cache[victim].stamp)
			victim = i;
	}

	ent = &mr->cache[victim];
	ent->stamp = 0;
	if (victim == mr->cur)
		mr->cur = -1;

	ret = decode_block(mr, ent, pos);
	if (ret != 0)
		return ret;

	ent->stamp = ++mr->clock;
	mr->cur = victim;
	return 0;
}

int sqfs_meta_reader_seek(sqfs_meta_reader_t *mr, uint64_t block_start,
			  size_t offset)
{
	int ret;

	if (block_start < mr->start || block_start >= mr->limit ||
	    offset >= SQFS_META_BLOCK_SIZE)
		return SQFS_ERROR_OUT_OF_BOUNDS;

	/* on failure the old position stays valid, cached or not */
	ret = load_block(mr, block_start);
	if (ret != 0)
		return ret;
	if (offset >= mr->cache[mr->cur].len) {
		mr->cur = -1;
		return SQFS_ERROR_OUT_OF_BOUNDS;
	}

	mr->block = block_start;
	mr->offset = offset;
	return 0;
}

int sqfs_meta_reader_read(sqfs_meta_reader_t *mr, void *data, size_t size)
{
	uint8_t *dst = data;
	cache_entry_t *ent;
	size_t n;
	int ret;

	while (size > 0) {
		if (mr->cur < 0) {
			ret = load_block(mr, mr->block);
			if (ret != 0)
				return ret;
		}
		ent = &mr->cache[mr->cur];
		ent->stamp = ++mr->clock;

		/* a block evicted and decoded again may have changed if the
		 * file was rewritten underneath us */
		if (mr->offset >= ent->len)
			return SQFS_ERROR_CORRUPTED;

		n = ent->len - mr->offset;
		if (n > size)
			n = size;
		memcpy(dst, ent->data + mr->offset, n);
		dst += n;
		size -= n;
		mr->offset += n;

		/* only the block directly after this one continues it */
		if (mr->offset == ent->len) {
			mr->block = ent->next;
			mr->offset = 0;
			mr->cur = -1;
		}
	}
	return 0;
}

void sqfs_meta_reader_get_position(const sqfs_meta_reader_t *mr,
				   uint64_t *block_start, size_t *offset)
{
	*block_start = mr->block;
	*offset = mr->offset;
}

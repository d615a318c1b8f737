/* SPDX-License-Identifier: MIT */
/*
 * meta_writer.c - packs a byte stream into 8 KiB metadata blocks.
 *
 * Appends copy into one fixed block buffer; a block is encoded only when it
 * is full or flushed, so the hot path (many small inode and directory
 * records) never allocates. Blocks kept in memory are packed back to back
 * in one growing buffer that write_out stores with a single write.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"
#include "sqfs/format_internal.h"
#include "sqfs/meta_stream_internal.h"

#include <stdlib.h>
#include <string.h>

/* rel in a reference is 48 bits wide */
#define MAX_STREAM_POS ((UINT64_C(1) << 48) - 1)

struct sqfs_meta_writer {
	sqfs_file_t *file;
	sqfs_compressor_t *cmp;
	unsigned int flags;

	/* Position of the current block's header, relative to the stream. */
	uint64_t block_pos;
	size_t fill;

	/* Finished blocks held back by SQFS_META_WRITER_KEEP_IN_MEMORY. */
	uint8_t *kept;
	size_t kept_size;
	size_t kept_capacity;

	uint8_t data[SQFS_META_BLOCK_SIZE];
	/* header followed by the encoded payload */
	uint8_t encoded[SQFS_META_MAX_DISK_SIZE];
};

int sqfs_meta_writer_create(sqfs_file_t *file, sqfs_compressor_t *cmp,
			    unsigned int flags, sqfs_meta_writer_t **out)
{
	const unsigned int known =
	    SQFS_META_WRITER_KEEP_IN_MEMORY | SQFS_META_WRITER_NO_COMPRESS;
	sqfs_meta_writer_t *mw;

	if (file == NULL || out == NULL || (flags & ~known) != 0)
		return SQFS_ERROR_ARG_INVALID;
	if (cmp == NULL && !(flags & SQFS_META_WRITER_NO_COMPRESS))
		return SQFS_ERROR_ARG_INVALID;

	mw = calloc(1, sizeof(*mw));
	if (mw == NULL)
		return SQFS_ERROR_ALLOC;

	mw->file = file;
	mw->cmp = cmp;
	mw->flags = flags;
	*out = mw;
	return 0;
}

void sqfs_meta_writer_destroy(sqfs_meta_writer_t *mw)
{
	if (mw == NULL)
		return;
	free(mw->kept);
	free(mw);
}

static int keep_block(sqfs_meta_writer_t *mw, size_t size)
{
	if (size > mw->kept_capacity - mw->kept_size) {
		size_t capacity = mw->kept_capacity;
		uint8_t *kept;

		if (capacity == 0)
			capacity = 4 * sizeof(mw->encoded);
		while (size > capacity - mw->kept_size) {
			if (capacity > SIZE_MAX / 2)
				return SQFS_ERROR_OVERFLOW;
			capacity *= 2;
		}
		kept = realloc(mw->kept, capacity);
		if (kept == NULL)
			return SQFS_ERROR_ALLOC;
		mw->kept = kept;
		mw->kept_capacity = capacity;
	}
	memcpy(mw->kept + mw->kept_size, mw->encoded, size);
	mw->kept_size += size;
	return 0;
}

/* Encode and emit the current block; on failure the data stays buffered. */
static int finish_block(sqfs_meta_writer_t *mw)
{
	size_t len = 0, total;
	ptrdiff_t ret;
	int err;

	if (mw->fill == 0)
		return 0;

	if (!(mw->flags & SQFS_META_WRITER_NO_COMPRESS)) {
		ret = sqfs_compressor_compress(mw->cmp, mw->data, mw->fill,
					       mw->encoded + 2,
					       SQFS_META_BLOCK_SIZE);
		if (ret < 0)
			return (int)ret;
		len = (size_t)ret;
	}

	if (len > 0 && len < mw->fill) {
		put_le16(mw->encoded, (uint16_t)len);
	} else {
		len = mw->fill;
		memcpy(mw->encoded + 2, mw->data, len);
		put_le16(mw->encoded, (uint16_t)(SQFS_META_RAW | len));
	}
	total = len + 2;

	if (mw->block_pos > MAX_STREAM_POS - total)
		return SQFS_ERROR_OVERFLOW;

	if (mw->flags & SQFS_META_WRITER_KEEP_IN_MEMORY) {
		err = keep_block(mw, total);
	} else {
		err = mw->file->write_at(mw->file, mw->file->get_size(mw->file),
					 mw->encoded, total);
	}
	if (err != 0)
		return err;

	mw->block_pos += total;
	mw->fill = 0;
	return 0;
}

int sqfs_meta_writer_append(sqfs_meta_writer_t *mw, const void *data,
			    size_t size)
{
	const uint8_t *src = data;
	size_t n;
	int ret;

	while (size > 0) {
		/* a full block is left only by an earlier failed write */
		if (mw->fill == SQFS_META_BLOCK_SIZE) {
			ret = finish_block(mw);
			if (ret != 0)
				return ret;
		}

		n = SQFS_META_BLOCK_SIZE - mw->fill;
		if (n > size)
			n = size;
		memcpy(mw->data + mw->fill, src, n);
		mw->fill += n;
		src += n;
		size -= n;

		if (mw->fill == SQFS_META_BLOCK_SIZE) {
			ret = finish_block(mw);
			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

void sqfs_meta_writer_get_position(const sqfs_meta_writer_t *mw,
				   uint64_t *block_start, uint32_t *offset)
{
	*block_start = mw->block_pos;
	*offset = (uint32_t)mw->fill;
}

int sqfs_meta_writer_flush(sqfs_meta_writer_t *mw)
{
	return finish_block(mw);
}

int sqfs_meta_writer_write_out(sqfs_meta_writer_t *mw)
{
	int ret;

	if (!(mw->flags & SQFS_META_WRITER_KEEP_IN_MEMORY) ||
	    mw->kept_size == 0)
		return 0;

	ret = mw->file->write_at(mw->file, mw->file->get_size(mw->file),
				 mw->kept, mw->kept_size);
	if (ret != 0)
		return ret;

	free(mw->kept);
	mw->kept = NULL;
	mw->kept_size = 0;
	mw->kept_capacity = 0;
	return 0;
}

int sqfs_meta_writer_reset(sqfs_meta_writer_t *mw)
{
	if (mw->fill != 0 || mw->kept_size != 0)
		return SQFS_ERROR_SEQUENCE;
	mw->block_pos = 0;
	return 0;
}

/* ---- the writer as a meta_stream_t (meta_stream_internal.h) ---- */

static int stream_append(meta_stream_t *ms, const void *data, size_t size)
{
	return sqfs_meta_writer_append(((meta_writer_stream_t *)ms)->mw, data,
				       size);
}

static void stream_position(const meta_stream_t *ms, uint64_t *block,
			    uint32_t *offset)
{
	sqfs_meta_writer_get_position(((const meta_writer_stream_t *)ms)->mw,
				      block, offset);
}

void meta_writer_stream_init(meta_writer_stream_t *s, sqfs_meta_writer_t *mw)
{
	s->base.append = stream_append;
	s->base.position = stream_position;
	/* positions are final: nothing to fill in later */
	s->base.refer = NULL;
	s->mw = mw;
}

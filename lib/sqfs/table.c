/* SPDX-License-Identifier: MIT */
/*
 * table.c - lookup tables: an array in metadata blocks plus a u64 index.
 *
 * Reading trusts nothing in the index: every value is checked against the
 * limits and its neighbours before a block is touched, and the index must
 * describe the blocks exactly, so overlapping or aliased tables are
 * rejected rather than decoded twice. The output buffer grows as blocks
 * decode instead of being sized from the declared table size up front.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"
#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t block_count(size_t size)
{
	return size / SQFS_META_BLOCK_SIZE +
	       (size % SQFS_META_BLOCK_SIZE != 0 ? 1 : 0);
}

uint64_t table_index_size(uint64_t count, uint64_t entry_size)
{
	uint64_t bytes = count * entry_size;

	return (bytes / SQFS_META_BLOCK_SIZE +
		(bytes % SQFS_META_BLOCK_SIZE != 0 ? 1 : 0)) *
	       sizeof(uint64_t);
}

int table_write_blocks(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       const void *data, size_t size, uint8_t *index)
{
	const uint8_t *src = data;
	size_t count = block_count(size), i, chunk;
	sqfs_meta_writer_t *mw;
	uint64_t base, pos;
	uint32_t offset;
	int ret;

	ret = sqfs_meta_writer_create(
	    file, cmp, cmp == NULL ? SQFS_META_WRITER_NO_COMPRESS : 0, &mw);
	if (ret != 0)
		return ret;

	/* the writer appends at the end of the file and nothing else
	 * writes in between, so stream positions map to file positions */
	base = file->get_size(file);
	for (i = 0; i < count; ++i) {
		sqfs_meta_writer_get_position(mw, &pos, &offset);
		if (base > UINT64_MAX - pos) {
			ret = SQFS_ERROR_OVERFLOW;
			goto out;
		}
		put_le64(index + i * sizeof(uint64_t), base + pos);

		chunk = size - i * SQFS_META_BLOCK_SIZE;
		if (chunk > SQFS_META_BLOCK_SIZE)
			chunk = SQFS_META_BLOCK_SIZE;
		ret = sqfs_meta_writer_append(mw, src, chunk);
		if (ret != 0)
			goto out;
		src += chunk;
	}
	ret = sqfs_meta_writer_flush(mw);
out:
	sqfs_meta_writer_destroy(mw);
	return ret;
}

int sqfs_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
		     const void *data, size_t size, uint64_t *index_start)
{
	size_t count;
	uint64_t pos;
	uint8_t *index;
	int ret;

	if (file == NULL || data == NULL || size == 0 || index_start == NULL)
		return SQFS_ERROR_ARG_INVALID;

	count = block_count(size);
	index = malloc(count * sizeof(uint64_t));
	if (index == NULL)
		return SQFS_ERROR_ALLOC;

	ret = table_write_blocks(file, cmp, data, size, index);
	if (ret == 0) {
		pos = file->get_size(file);
		ret =
		    file->write_at(file, pos, index, count * sizeof(uint64_t));
		if (ret == 0)
			*index_start = pos;
	}
	free(index);
	return ret;
}

int file_read_exact(sqfs_file_t *file, uint64_t pos, void *buf, size_t size)
{
	int ret = file->read_at(file, pos, buf, size);

	/* the caller's limits lie inside bytes_used: the file is short */
	return ret == SQFS_ERROR_OUT_OF_BOUNDS ? SQFS_ERROR_TRUNCATED : ret;
}

int table_read_index(sqfs_file_t *file, uint64_t pos, size_t count,
		     uint64_t **out)
{
	uint64_t *index;
	size_t i;
	int ret;

	*out = NULL;
	if (count > SIZE_MAX / sizeof(uint64_t))
		return SQFS_ERROR_OVERFLOW;
	index = malloc(count * sizeof(uint64_t));
	if (index == NULL)
		return SQFS_ERROR_ALLOC;
	ret = file_read_exact(file, pos, index, count * sizeof(uint64_t));
	if (ret != 0) {
		free(index);
		return ret;
	}
	/* in place: each entry's bytes are read before they are replaced */
	for (i = 0; i < count; ++i)
		index[i] = get_le64((const uint8_t *)(index + i));
	*out = index;
	return 0;
}

/* Limits first, then order and steps. */
int table_check_index(const uint64_t *index, size_t count, uint64_t end,
		      uint64_t lower)
{
	size_t i;

	for (i = 0; i < count; ++i) {
		if (index[i] < lower || index[i] >= end)
			return SQFS_ERROR_OUT_OF_BOUNDS;
	}

	for (i = 1; i < count; ++i) {
		if (index[i] <= index[i - 1] ||
		    index[i] - index[i - 1] > SQFS_META_MAX_DISK_SIZE)
			return SQFS_ERROR_CORRUPTED;
	}

	if (end - index[count - 1] > SQFS_META_MAX_DISK_SIZE)
		return SQFS_ERROR_CORRUPTED;
	return 0;
}

static int read_block(sqfs_file_t *file, sqfs_compressor_t *cmp, uint64_t pos,
		      uint64_t next, uint8_t *out, size_t expected,
		      uint8_t *scratch)
{
	uint8_t header[2];
	ptrdiff_t ret;
	size_t len;
	int err;

	err = file_read_exact(file, pos, header, sizeof(header));
	if (err != 0)
		return err;

	/* the checked index guarantees pos < next and a step of at most
	 * 8194 */
	len = get_le16(header) & SQFS_META_LENGTH;
	if (len == 0 || len > SQFS_META_BLOCK_SIZE || next - pos != len + 2)
		return SQFS_ERROR_CORRUPTED;

	if (get_le16(header) & SQFS_META_RAW) {
		if (len != expected)
			return SQFS_ERROR_CORRUPTED;
		return file_read_exact(file, pos + 2, out, len);
	}

	if (cmp == NULL)
		return SQFS_ERROR_UNSUPPORTED;
	err = file_read_exact(file, pos + 2, scratch, len);
	if (err != 0)
		return err;

	/* an output cap of exactly the expected size defeats bombs */
	ret = sqfs_compressor_uncompress(cmp, scratch, len, out, expected);
	if (ret < 0)
		return (int)ret;
	return (size_t)ret == expected ? 0 : SQFS_ERROR_CORRUPTED;
}

/*
 * Make room for the next chunk bytes after done in *data. The declared size
 * is not trusted with an allocation: a few bytes of image can declare
 * gigabytes of table, so the buffer only grows as blocks decode, doubling
 * (linear copying overall) and never past size, where it ends exactly.
 */
static int grow(uint8_t **data, size_t *capacity, size_t done, size_t chunk,
		size_t size)
{
	size_t want;
	uint8_t *grown;

	if (chunk <= *capacity - done)
		return 0;

	want = *capacity > size / 2 ? size : *capacity * 2;
	if (want < done + chunk)
		want = done + chunk;

	grown = realloc(*data, want);
	if (grown == NULL)
		return SQFS_ERROR_ALLOC;
	*data = grown;
	*capacity = want;
	return 0;
}

int table_decode(sqfs_file_t *file, sqfs_compressor_t *cmp,
		 const uint64_t *index, size_t count, uint64_t end, size_t size,
		 void **out)
{
	uint8_t *scratch, *data = NULL;
	size_t i, chunk, done = 0, capacity = 0;
	int ret = 0;

	if (count != block_count(size))
		return SQFS_ERROR_CORRUPTED;
	scratch = malloc(SQFS_META_BLOCK_SIZE);
	if (scratch == NULL)
		return SQFS_ERROR_ALLOC;

	for (i = 0; i < count; ++i) {
		chunk = size - done;
		if (chunk > SQFS_META_BLOCK_SIZE)
			chunk = SQFS_META_BLOCK_SIZE;

		ret = grow(&data, &capacity, done, chunk, size);
		if (ret != 0)
			goto out;

		ret = read_block(file, cmp, index[i],
				 i + 1 < count ? index[i + 1] : end,
				 data + done, chunk, scratch);
		if (ret != 0)
			goto out;
		done += chunk;
	}

	*out = data;
	data = NULL;
out:
	free(data);
	free(scratch);
	return ret;
}

int table_decode_block(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       const uint64_t *index, size_t count, uint64_t end,
		       size_t size, size_t i, uint8_t *out, size_t *len)
{
	uint8_t *scratch;
	size_t chunk;
	int ret;

	if (i >= count || count != block_count(size))
		return SQFS_ERROR_CORRUPTED;
	chunk = size - i * SQFS_META_BLOCK_SIZE;
	if (chunk > SQFS_META_BLOCK_SIZE)
		chunk = SQFS_META_BLOCK_SIZE;
	scratch = malloc(SQFS_META_BLOCK_SIZE);
	if (scratch == NULL)
		return SQFS_ERROR_ALLOC;
	ret =
	    read_block(file, cmp, index[i], i + 1 < count ? index[i + 1] : end,
		       out, chunk, scratch);
	free(scratch);
	if (ret == 0)
		*len = chunk;
	return ret;
}

int table_lazy_entry(sqfs_file_t *file, sqfs_compressor_t *cmp, table_lazy_t *t,
		     size_t entry_size, uint64_t i, const uint8_t **entry)
{
	uint64_t pos = i * entry_size;
	size_t block = (size_t)(pos / SQFS_META_BLOCK_SIZE), len;
	int ret;

	if (pos >= t->size)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	if (t->data == NULL) {
		t->data = malloc(SQFS_META_BLOCK_SIZE);
		if (t->data == NULL)
			return SQFS_ERROR_ALLOC;
	}
	if (t->which != block + 1) {
		t->which = 0;
		ret = table_decode_block(file, cmp, t->index, t->count, t->end,
					 t->size, block, t->data, &len);
		if (ret != 0)
			return ret;
		t->which = block + 1;
	}
	*entry = t->data + pos % SQFS_META_BLOCK_SIZE;
	return 0;
}

int table_open_index(sqfs_file_t *file, size_t size, uint64_t index_start,
		     uint64_t lower_limit, uint64_t upper_limit, uint64_t **out,
		     size_t *out_count)
{
	uint64_t *index = NULL;
	uint64_t index_size;
	size_t count;
	int ret;

	*out = NULL;
	if (file == NULL || size == 0)
		return SQFS_ERROR_ARG_INVALID;

	count = block_count(size);
	index_size = (uint64_t)count * sizeof(uint64_t);

	if (index_start < lower_limit || index_start > upper_limit ||
	    index_size > upper_limit - index_start)
		return SQFS_ERROR_OUT_OF_BOUNDS;

	/* cheap before allocating: every block needs at least 3 bytes */
	if (index_start - lower_limit <
	    (uint64_t)count * SQFS_META_MIN_DISK_SIZE)
		return SQFS_ERROR_OUT_OF_BOUNDS;

	/* the index is read whole, so the file must really hold it: that
	 * bounds this allocation by the image, not by upper_limit */
	if (index_start + index_size > file->get_size(file))
		return SQFS_ERROR_TRUNCATED;

	ret = table_read_index(file, index_start, count, &index);
	if (ret != 0)
		return ret;

	ret = table_check_index(index, count, index_start, lower_limit);
	if (ret != 0) {
		free(index);
		return ret;
	}
	*out = index;
	*out_count = count;
	return 0;
}

/* sqfs_table_read, and where the first block starts. */
static int table_read(sqfs_file_t *file, sqfs_compressor_t *cmp, size_t size,
		      uint64_t index_start, uint64_t lower_limit,
		      uint64_t upper_limit, void **out, uint64_t *first_block)
{
	uint64_t *index = NULL;
	size_t count;
	int ret;

	if (out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	ret = table_open_index(file, size, index_start, lower_limit,
			       upper_limit, &index, &count);
	if (ret != 0)
		return ret;
	ret = table_decode(file, cmp, index, count, index_start, size, out);
	if (ret == 0 && first_block != NULL)
		*first_block = index[0];
	free(index);
	return ret;
}

int sqfs_table_read(sqfs_file_t *file, sqfs_compressor_t *cmp, size_t size,
		    uint64_t index_start, uint64_t lower_limit,
		    uint64_t upper_limit, void **out)
{
	return table_read(file, cmp, size, index_start, lower_limit,
			  upper_limit, out, NULL);
}

int table_load(sqfs_file_t *file, sqfs_compressor_t *cmp, uint64_t count,
	       uint64_t entry_size, uint64_t index_start, uint64_t lower,
	       uint64_t upper, void **data, uint64_t *first_block)
{
	/* 32-bit hosts: a size_t must hold the table */
	if (count > SIZE_MAX / entry_size)
		return SQFS_ERROR_OVERFLOW;
	return table_read(file, cmp, (size_t)(count * entry_size), index_start,
			  lower, upper, data, first_block);
}

int table_load_words(sqfs_file_t *file, sqfs_compressor_t *cmp, uint64_t count,
		     size_t word_size, uint64_t index_start, uint64_t lower,
		     uint64_t upper, void **out, uint64_t *first_block)
{
	uint8_t *raw;
	void *data;
	int ret;

	*out = NULL;
	if (word_size != 4 && word_size != 8)
		return SQFS_ERROR_INTERNAL;
	ret = table_load(file, cmp, count, word_size, index_start, lower, upper,
			 &data, first_block);
	if (ret != 0)
		return ret;

	/* in place: the buffer comes from malloc, so it is aligned for
	 * uint64_t, and each entry is read before it is replaced */
	raw = data;
	for (size_t i = 0; i < (size_t)count; ++i) {
		if (word_size == 8)
			((uint64_t *)data)[i] = get_le64(raw + i * 8);
		else
			((uint32_t *)data)[i] = get_le32(raw + i * 4);
	}
	*out = data;
	return 0;
}

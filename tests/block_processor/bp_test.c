/* SPDX-License-Identifier: MIT */
/*
 * bp_test.c - the block processor test harness (see bp_test.h).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "support/test_util.h"
#include "block_processor/bp_test.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/table.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

static sqfs_compressor_t *try_level1(sqfs_compressor_id_t id, uint32_t bs)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp = NULL;

	if (!sqfs_compressor_is_available(id))
		return NULL;
	if (sqfs_compressor_config_init(&cfg, id, bs, 0) != 0)
		return NULL;
	if (id == SQFS_COMP_ZSTD)
		cfg.opt.zstd.level = 1;
	else if (id == SQFS_COMP_GZIP)
		cfg.opt.gzip.level = 1;
	if (sqfs_compressor_create(&cfg, &cmp) != 0)
		return NULL;
	return cmp;
}

sqfs_compressor_t *bp_test_compressor(uint32_t block_size, bool gzip)
{
	sqfs_compressor_id_t first = gzip ? SQFS_COMP_GZIP : SQFS_COMP_ZSTD;
	sqfs_compressor_id_t second = gzip ? SQFS_COMP_ZSTD : SQFS_COMP_GZIP;
	sqfs_compressor_t *cmp;

	cmp = try_level1(first, block_size);
	if (cmp == NULL)
		cmp = try_level1(second, block_size);
	if (cmp == NULL)
		cmp = test_first_compressor(block_size);
	assert_non_null(cmp);
	return cmp;
}

unsigned int bp_test_workers = 0;
unsigned int bp_test_backlog = 16;
size_t bp_test_tail_memory = 0;

void bp_ctx_open(bp_ctx_t *c, uint32_t block_size, unsigned int opts,
		 sqfs_file_t *file)
{
	memset(c, 0, sizeof(*c));
	c->file =
	    file != NULL ? file : test_memory_file_filled(BP_TEST_PREFIX, 0);
	c->cmp = bp_test_compressor(block_size, opts & BP_TEST_GZIP);
	c->desc.file = c->file;
	c->desc.cmp = c->cmp;
	c->desc.block_size = block_size;
	c->desc.devblk_size = 4096;
	c->desc.num_workers = bp_test_workers;
	c->desc.max_backlog = bp_test_backlog;
	c->desc.tail_memory = bp_test_tail_memory;
	c->desc.no_tail_packing = (opts & BP_TEST_NO_TAIL_PACKING) != 0;
	c->desc.no_fragments = (opts & BP_TEST_NO_FRAGMENTS) != 0;
	assert_int_equal(block_processor_create(&c->desc, &c->bp), 0);
	assert_non_null(c->bp);
}

void bp_ctx_add(bp_ctx_t *c, file_data_t *fd, const uint8_t *data, size_t size,
		unsigned int flags)
{
	static const size_t chunks[] = {1, 1000, 70000, 4096, 333, 200000};
	size_t done = 0, i = 0;

	assert_int_equal(block_processor_begin(c->bp, fd, flags), 0);
	while (done < size) {
		size_t n = chunks[i++ % (sizeof(chunks) / sizeof(chunks[0]))];

		if (n > size - done)
			n = size - done;
		assert_int_equal(block_processor_append(c->bp, data + done, n),
				 0);
		done += n;
	}
	assert_int_equal(block_processor_end(c->bp), 0);
	assert_true(fd->size == size);
	if (flags & BP_FILE_ALIGN)
		c->padded = true;
}

uint64_t bp_ctx_size(const bp_ctx_t *c)
{
	return c->file->get_size(c->file);
}

void bp_ctx_finish(bp_ctx_t *c)
{
	block_stats_t st;
	uint64_t end;

	assert_int_equal(block_processor_finish(c->bp), 0);
	block_processor_get_stats(c->bp, &st);
	end = bp_ctx_size(c);
	if (c->padded)
		assert_true(end >= BP_TEST_PREFIX + st.bytes_written);
	else
		assert_true(end == BP_TEST_PREFIX + st.bytes_written);

	memset(&c->super, 0, sizeof(c->super));
	c->super.fragment_entry_count = 77;
	assert_int_equal(block_processor_write_fragment_table(c->bp, &c->super),
			 0);
	c->fcount = c->super.fragment_entry_count;
	assert_int_equal(c->fcount, st.fragment_blocks);
	if (c->fcount == 0) {
		assert_true(c->super.fragment_table_start == SQFS_TABLE_ABSENT);
		assert_true(bp_ctx_size(c) == end);
		return;
	}
	assert_true(c->super.fragment_table_start > end);
	assert_int_equal(sqfs_table_read(c->file, c->cmp, c->fcount * 16,
					 c->super.fragment_table_start, end,
					 bp_ctx_size(c), (void **)&c->ftable),
			 0);
}

void bp_ctx_close(bp_ctx_t *c)
{
	block_processor_destroy(c->bp);
	sqfs_compressor_destroy(c->cmp);
	sqfs_file_destroy(c->file);
	free(c->ftable);
	memset(c, 0, sizeof(*c));
}

void bp_fragment_entry(const bp_ctx_t *c, uint32_t idx, uint64_t *start,
		       uint32_t *size_word)
{
	assert_non_null(c->ftable);
	assert_true(idx < c->fcount);
	*start = get_le64(c->ftable + idx * 16);
	*size_word = get_le32(c->ftable + idx * 16 + 8);
	assert_int_equal(get_le32(c->ftable + idx * 16 + 12), 0);
}

/* Decode the block at pos into out (block_size bytes); returns its size. */
static size_t decode_block(const bp_ctx_t *c, uint64_t pos, uint32_t word,
			   uint8_t *out)
{
	uint32_t bs = c->desc.block_size;
	uint32_t len = word & SQFS_SIZE_WORD_LENGTH;
	ptrdiff_t ret;
	uint8_t *raw;

	assert_int_equal(word & 0xFE000000u, 0);
	assert_true(len > 0 && len <= bs);
	raw = malloc(len);
	assert_non_null(raw);
	assert_int_equal(c->file->read_at(c->file, pos, raw, len), 0);
	if (word & SQFS_SIZE_WORD_RAW) {
		memcpy(out, raw, len);
		ret = len;
	} else {
		ret = sqfs_compressor_uncompress(c->cmp, raw, len, out, bs);
		/* stored compressed only where that made it smaller */
		assert_true(ret > (ptrdiff_t)len);
	}
	free(raw);
	return (size_t)ret;
}

void bp_check_file(const bp_ctx_t *c, const file_data_t *fd,
		   const uint8_t *data, size_t size)
{
	uint32_t bs = c->desc.block_size;
	size_t full = size / bs, tail = size % bs, nblocks, i;
	bool has_frag = fd->fragment_index != SQFS_NO_FRAGMENT;
	uint64_t pos = fd->blocks_start, sparse = 0;
	bool stored = false;
	uint8_t *buf;

	assert_true(fd->size == size);
	if (has_frag) {
		assert_true(tail > 0);
		nblocks = full;
	} else {
		assert_int_equal(fd->fragment_offset, 0);
		nblocks = full + (tail > 0);
	}
	assert_int_equal(fd->block_count, nblocks);
	if (nblocks > 0)
		assert_non_null(fd->block_sizes);

	buf = malloc(bs);
	assert_non_null(buf);
	for (i = 0; i < nblocks; ++i) {
		size_t usize = i < full ? bs : tail;
		uint32_t word = fd->block_sizes[i];

		if (word == 0) {
			assert_true(bp_is_zero(data + i * bs, usize));
			sparse += usize;
			continue;
		}
		stored = true;
		assert_int_equal(decode_block(c, pos, word, buf), usize);
		assert_memory_equal(buf, data + i * bs, usize);
		pos += word & SQFS_SIZE_WORD_LENGTH;
	}
	assert_true(fd->sparse_bytes == sparse);
	if (stored)
		assert_true(fd->blocks_start >= BP_TEST_PREFIX);
	else
		assert_true(fd->blocks_start == 0);

	if (has_frag) {
		uint64_t start;
		uint32_t word;
		size_t len;

		bp_fragment_entry(c, fd->fragment_index, &start, &word);
		len = decode_block(c, start, word, buf);
		assert_true(fd->fragment_offset + tail <= len);
		assert_memory_equal(buf + fd->fragment_offset, data + full * bs,
				    tail);
	}
	free(buf);
}

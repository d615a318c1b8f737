/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

/*
 * Decode a whole stream of md-blocks at [start, end) independently of the
 * library's reader, checking the block structure, and return its bytes.
 */
static uint8_t *decode_stream(const uint8_t *img, size_t start, size_t end,
			      sqfs_compressor_t *cmp, size_t *out_size,
			      size_t *raw_blocks, size_t *packed_blocks)
{
	uint8_t *out = NULL;
	size_t size = 0, pos = start;

	*raw_blocks = 0;
	*packed_blocks = 0;
	while (pos < end) {
		uint16_t hdr;
		size_t len;

		assert_true(end - pos >= 2);
		hdr = get_le16(img + pos);
		len = hdr & 0x7FFF;
		assert_true(len >= 1 && len <= SQFS_META_BLOCK_SIZE);
		assert_true(len <= end - pos - 2);

		/* every block but the last holds exactly 8192 bytes */
		assert_true(size % SQFS_META_BLOCK_SIZE == 0);
		out = realloc(out, size + SQFS_META_BLOCK_SIZE);
		assert_non_null(out);

		if (hdr & 0x8000) {
			memcpy(out + size, img + pos + 2, len);
			size += len;
			*raw_blocks += 1;
		} else {
			ptrdiff_t ret;

			assert_non_null(cmp);
			assert_true(len < SQFS_META_BLOCK_SIZE);
			ret = sqfs_compressor_uncompress(cmp, img + pos + 2,
							 len, out + size,
							 SQFS_META_BLOCK_SIZE);
			assert_true(ret > (ptrdiff_t)len);
			size += (size_t)ret;
			*packed_blocks += 1;
		}
		pos += 2 + len;
	}
	assert_int_equal(pos, end);
	*out_size = size;
	return out;
}

/* A writer that stores every block raw; asserts it could be made. */
static sqfs_meta_writer_t *raw_writer(sqfs_file_t *file)
{
	sqfs_meta_writer_t *mw = NULL;

	assert_int_equal(sqfs_meta_writer_create(
			     file, NULL, SQFS_META_WRITER_NO_COMPRESS, &mw),
			 0);
	assert_non_null(mw);
	return mw;
}

static void test_create_args(void **state)
{
	sqfs_meta_writer_t *mw = NULL;
	sqfs_file_t *file = test_memory_file(NULL, 0);

	(void)state;
	assert_int_equal(sqfs_meta_writer_create(file, NULL, 0, &mw),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_meta_writer_create(
			     file, NULL, SQFS_META_WRITER_KEEP_IN_MEMORY, &mw),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(
	    sqfs_meta_writer_create(file, NULL,
				    SQFS_META_WRITER_NO_COMPRESS | 0x100, &mw),
	    SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_meta_writer_create(
			     NULL, NULL, SQFS_META_WRITER_NO_COMPRESS, &mw),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(mw);

	assert_int_equal(sqfs_meta_writer_create(
			     file, NULL, SQFS_META_WRITER_NO_COMPRESS, &mw),
			 0);
	assert_non_null(mw);
	sqfs_meta_writer_destroy(mw);
	sqfs_meta_writer_destroy(NULL);
	sqfs_file_destroy(file);
}

static void test_tiny_stream_bytes(void **state)
{
	static const uint8_t expect[] = {0x05, 0x80, 'h',  'e', 'l', 'l',
					 'o',  0x02, 0x80, '!', '?'};
	sqfs_file_t *file = test_memory_file_filled(3, 0x5A);
	sqfs_meta_writer_t *mw;
	const uint8_t *img;
	uint64_t block;
	uint32_t offset;
	size_t size;

	(void)state;
	mw = raw_writer(file);

	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, 0);
	assert_int_equal(offset, 0);

	assert_int_equal(sqfs_meta_writer_append(mw, "hel", 3), 0);
	assert_int_equal(sqfs_meta_writer_append(mw, "lo", 2), 0);
	assert_int_equal(sqfs_meta_writer_append(mw, "", 0), 0);
	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, 0);
	assert_int_equal(offset, 5);

	/* nothing reaches the file before the block is finished */
	assert_int_equal(file->get_size(file), 3);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	assert_int_equal(file->get_size(file), 3 + 7);
	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, 7);
	assert_int_equal(offset, 0);

	/* flushing an empty block writes nothing */
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	assert_int_equal(file->get_size(file), 3 + 7);

	assert_int_equal(sqfs_meta_writer_append(mw, "!?", 2), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);

	img = test_memory_file_data(file, &size);
	assert_int_equal(size, 3 + sizeof(expect));
	assert_memory_equal(img + 3, expect, sizeof(expect));

	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
}

static void test_full_raw_block(void **state)
{
	uint8_t *data =
	    test_make_data(SQFS_META_BLOCK_SIZE + 1, TEST_DATA_RANDOM, 7);
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_writer_t *mw;
	const uint8_t *img;
	uint64_t block;
	uint32_t offset;
	size_t size;

	(void)state;
	mw = raw_writer(file);

	/* a block is written as soon as it is full */
	assert_int_equal(
	    sqfs_meta_writer_append(mw, data, SQFS_META_BLOCK_SIZE), 0);
	assert_int_equal(file->get_size(file), 2 + SQFS_META_BLOCK_SIZE);
	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, 8194);
	assert_int_equal(offset, 0);

	assert_int_equal(
	    sqfs_meta_writer_append(mw, data + SQFS_META_BLOCK_SIZE, 1), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);

	img = test_memory_file_data(file, &size);
	assert_int_equal(size, 8194 + 3);
	assert_int_equal(img[0], 0x00);
	assert_int_equal(img[1], 0xA0);
	assert_memory_equal(img + 2, data, SQFS_META_BLOCK_SIZE);
	assert_int_equal(get_le16(img + 8194), 0x8001);
	assert_int_equal(img[8196], data[SQFS_META_BLOCK_SIZE]);

	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
	free(data);
}

/* Many small appends of varied size, positions checked against a model. */
static void test_many_records_raw(void **state)
{
	const size_t total = 100000;
	uint8_t *data = test_make_data(total, TEST_DATA_TEXT, 3);
	sqfs_file_t *file = test_memory_file_filled(17, 0x5A);
	size_t done = 0, step = 1, size, out_size, nraw, npacked;
	sqfs_meta_writer_t *mw;
	const uint8_t *img;
	uint8_t *out;
	uint64_t block;
	uint32_t offset;

	(void)state;
	mw = raw_writer(file);

	while (done < total) {
		size_t n = step < total - done ? step : total - done;

		/* raw blocks are 8194 bytes on disk */
		sqfs_meta_writer_get_position(mw, &block, &offset);
		assert_int_equal(block, (done / SQFS_META_BLOCK_SIZE) * 8194);
		assert_int_equal(offset, done % SQFS_META_BLOCK_SIZE);

		assert_int_equal(sqfs_meta_writer_append(mw, data + done, n),
				 0);
		done += n;
		step = (step * 7 + 3) % 301;
	}
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);

	img = test_memory_file_data(file, &size);
	out = decode_stream(img, 17, size, NULL, &out_size, &nraw, &npacked);
	assert_int_equal(out_size, total);
	assert_memory_equal(out, data, total);
	assert_int_equal(nraw, (total + 8191) / 8192);
	assert_int_equal(npacked, 0);

	free(out);
	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
	free(data);
}

static void test_compressed(void **state)
{
	const size_t text_size = 3 * SQFS_META_BLOCK_SIZE + 100;
	const size_t rand_size = 2 * SQFS_META_BLOCK_SIZE;
	sqfs_compressor_t *cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);
	size_t size, out_size, nraw, npacked, text_end;
	uint8_t *text, *rnd, *out;
	sqfs_meta_writer_t *mw;
	sqfs_file_t *file;
	const uint8_t *img;
	uint64_t block;
	uint32_t offset;

	(void)state;
	if (cmp == NULL)
		skip();

	text = test_make_data(text_size, TEST_DATA_TEXT, 11);
	rnd = test_make_data(rand_size, TEST_DATA_RANDOM, 12);
	file = test_memory_file_filled(96, 0x5A);
	assert_int_equal(sqfs_meta_writer_create(file, cmp, 0, &mw), 0);

	assert_int_equal(sqfs_meta_writer_append(mw, text, text_size), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	text_end = (size_t)file->get_size(file);
	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, text_end - 96);
	assert_int_equal(offset, 0);
	/* text shrinks: 4 blocks in far less than 4 * 8194 bytes */
	assert_true(text_end - 96 < text_size / 2);

	img = test_memory_file_data(file, &size);
	out = decode_stream(img, 96, text_end, cmp, &out_size, &nraw, &npacked);
	assert_int_equal(out_size, text_size);
	assert_memory_equal(out, text, text_size);
	assert_int_equal(nraw, 0);
	assert_int_equal(npacked, 4);
	free(out);

	/* incompressible data is stored raw with bit 15 */
	assert_int_equal(sqfs_meta_writer_append(mw, rnd, rand_size), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	img = test_memory_file_data(file, &size);
	assert_int_equal(size, text_end + 2 * 8194);
	assert_int_equal(get_le16(img + text_end), 0xA000);
	assert_int_equal(get_le16(img + text_end + 8194), 0xA000);
	out =
	    decode_stream(img, text_end, size, cmp, &out_size, &nraw, &npacked);
	assert_int_equal(out_size, rand_size);
	assert_memory_equal(out, rnd, rand_size);
	assert_int_equal(nraw, 2);
	free(out);

	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
	sqfs_compressor_destroy(cmp);
	free(text);
	free(rnd);
}

static void test_keep_in_memory(void **state)
{
	const size_t total = 5 * SQFS_META_BLOCK_SIZE + 1234;
	uint8_t *data = test_make_data(total, TEST_DATA_BINARY, 5);
	sqfs_file_t *direct = test_memory_file_filled(50, 0x5A),
		    *kept = test_memory_file_filled(50, 0x5A);
	sqfs_meta_writer_t *mw_direct, *mw_kept;
	const uint8_t *a, *b;
	size_t size_a, size_b;
	uint64_t block;
	uint32_t offset;

	(void)state;
	assert_int_equal(sqfs_meta_writer_create(direct, NULL,
						 SQFS_META_WRITER_NO_COMPRESS,
						 &mw_direct),
			 0);
	assert_int_equal(
	    sqfs_meta_writer_create(kept, NULL,
				    SQFS_META_WRITER_NO_COMPRESS |
					SQFS_META_WRITER_KEEP_IN_MEMORY,
				    &mw_kept),
	    0);

	/* something written before the table is finished */
	assert_int_equal(direct->write_at(direct, 50, "XY", 2), 0);
	assert_int_equal(sqfs_meta_writer_append(mw_direct, data, total), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw_direct), 0);
	/* without the flag write_out has nothing to do */
	assert_int_equal(sqfs_meta_writer_write_out(mw_direct), 0);

	assert_int_equal(sqfs_meta_writer_append(mw_kept, data, total), 0);
	assert_int_equal(kept->get_size(kept), 50);
	sqfs_meta_writer_get_position(mw_kept, &block, &offset);
	assert_int_equal(block, 5 * 8194);
	assert_int_equal(offset, 1234);

	/* kept blocks block a reset, and so does unflushed data */
	assert_int_equal(sqfs_meta_writer_reset(mw_kept), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_meta_writer_flush(mw_kept), 0);
	assert_int_equal(kept->get_size(kept), 50);
	assert_int_equal(sqfs_meta_writer_reset(mw_kept), SQFS_ERROR_SEQUENCE);

	/* the table goes after something written in the meantime */
	assert_int_equal(kept->write_at(kept, 50, "XY", 2), 0);
	assert_int_equal(sqfs_meta_writer_write_out(mw_kept), 0);

	a = test_memory_file_data(direct, &size_a);
	b = test_memory_file_data(kept, &size_b);
	assert_int_equal(size_a, 52 + 5 * 8194 + 1236);
	assert_int_equal(size_b, size_a);
	assert_memory_equal(b, a, size_a);
	assert_int_equal(get_le16(b + 52), 0xA000);

	/* a second write_out adds nothing; now reset works */
	assert_int_equal(sqfs_meta_writer_write_out(mw_kept), 0);
	assert_int_equal(kept->get_size(kept), size_b);
	assert_int_equal(sqfs_meta_writer_reset(mw_kept), 0);
	sqfs_meta_writer_get_position(mw_kept, &block, &offset);
	assert_int_equal(block, 0);
	assert_int_equal(offset, 0);

	/* and the writer is usable for a second stream */
	assert_int_equal(sqfs_meta_writer_append(mw_kept, "ab", 2), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw_kept), 0);
	assert_int_equal(sqfs_meta_writer_write_out(mw_kept), 0);
	b = test_memory_file_data(kept, &size_b);
	assert_int_equal(size_b, size_a + 4);
	assert_int_equal(get_le16(b + size_a), 0x8002);

	sqfs_meta_writer_destroy(mw_direct);
	sqfs_meta_writer_destroy(mw_kept);
	sqfs_file_destroy(direct);
	sqfs_file_destroy(kept);
	free(data);
}

static void test_destroy_discards(void **state)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_writer_t *mw;

	(void)state;
	assert_int_equal(
	    sqfs_meta_writer_create(file, NULL,
				    SQFS_META_WRITER_NO_COMPRESS |
					SQFS_META_WRITER_KEEP_IN_MEMORY,
				    &mw),
	    0);
	assert_int_equal(sqfs_meta_writer_append(mw, "abc", 3), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	assert_int_equal(sqfs_meta_writer_append(mw, "de", 2), 0);
	sqfs_meta_writer_destroy(mw);
	assert_int_equal(file->get_size(file), 0);
	sqfs_file_destroy(file);
}

static void test_reset(void **state)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_writer_t *mw;
	const uint8_t *img;
	uint64_t block;
	uint32_t offset;
	size_t size;

	(void)state;
	mw = raw_writer(file);
	assert_int_equal(sqfs_meta_writer_reset(mw), 0);

	assert_int_equal(sqfs_meta_writer_append(mw, "abcd", 4), 0);
	assert_int_equal(sqfs_meta_writer_reset(mw), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, 6);

	assert_int_equal(sqfs_meta_writer_reset(mw), 0);
	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, 0);
	assert_int_equal(offset, 0);

	/* the second stream is appended after the first */
	assert_int_equal(sqfs_meta_writer_append(mw, "xyz", 3), 0);
	sqfs_meta_writer_get_position(mw, &block, &offset);
	assert_int_equal(block, 0);
	assert_int_equal(offset, 3);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);

	img = test_memory_file_data(file, &size);
	assert_int_equal(size, 6 + 5);
	assert_memory_equal(img,
			    "\x04\x80"
			    "abcd"
			    "\x03\x80"
			    "xyz",
			    11);

	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
}

static void test_write_failure(void **state)
{
	uint8_t *data =
	    test_make_data(SQFS_META_BLOCK_SIZE, TEST_DATA_ZEROS, 1);
	sqfs_file_t *file = NULL;
	sqfs_meta_writer_t *mw;

	(void)state;
	assert_int_equal(
	    sqfs_file_open_memory(&file, NULL, 0, SQFS_FILE_OPEN_READ_ONLY), 0);
	mw = raw_writer(file);
	assert_int_equal(sqfs_meta_writer_append(mw, "ab", 2), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), SQFS_ERROR_UNSUPPORTED);
	/* the data stays buffered, so the next block still fails */
	assert_int_equal(sqfs_meta_writer_reset(mw), SQFS_ERROR_SEQUENCE);
	assert_int_equal(
	    sqfs_meta_writer_append(mw, data, SQFS_META_BLOCK_SIZE),
	    SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(sqfs_meta_writer_append(mw, "c", 1),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(file->get_size(file), 0);

	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_args),
	    cmocka_unit_test(test_tiny_stream_bytes),
	    cmocka_unit_test(test_full_raw_block),
	    cmocka_unit_test(test_many_records_raw),
	    cmocka_unit_test(test_compressed),
	    cmocka_unit_test(test_keep_in_memory),
	    cmocka_unit_test(test_destroy_discards),
	    cmocka_unit_test(test_reset),
	    cmocka_unit_test(test_write_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

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
#include "sqfs/meta_reader.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

/* Counts the reads reaching a file (test_observed_file), to observe the
 * cache. */
static void count_read(void *user, uint64_t offset, size_t size)
{
	(void)offset;
	(void)size;
	*(unsigned int *)user += 1;
}

#define NUM_RECORDS 10000
#define PREFIX 333

typedef struct {
	uint64_t block;
	uint32_t offset;
	size_t start;
	size_t size;
} record_t;

/*
 * Write NUM_RECORDS records of 1..400 bytes with the writer, remembering
 * where each went, then read them back in sequence and by seeking in a
 * scrambled order.
 */
static void roundtrip(sqfs_compressor_t *cmp, test_data_kind_t kind)
{
	record_t *rec = calloc(NUM_RECORDS, sizeof(*rec));
	uint8_t *data, *buf, prefix[PREFIX];
	sqfs_meta_reader_t *mr;
	sqfs_meta_writer_t *mw;
	uint32_t seed = 42;
	size_t i, total = 0, off;
	uint64_t end, block;
	sqfs_file_t *file;

	assert_non_null(rec);
	for (i = 0; i < NUM_RECORDS; ++i) {
		rec[i].size = 1 + test_rand(&seed) % 400;
		rec[i].start = total;
		total += rec[i].size;
	}
	data = test_make_data(total, kind, 9);
	buf = malloc(400);
	assert_non_null(buf);

	memset(prefix, 0xEE, sizeof(prefix));
	file = test_memory_file(prefix, sizeof(prefix));
	assert_int_equal(
	    sqfs_meta_writer_create(
		file, cmp, cmp == NULL ? SQFS_META_WRITER_NO_COMPRESS : 0, &mw),
	    0);
	for (i = 0; i < NUM_RECORDS; ++i) {
		sqfs_meta_writer_get_position(mw, &rec[i].block,
					      &rec[i].offset);
		assert_true(rec[i].offset < SQFS_META_BLOCK_SIZE);
		assert_int_equal(sqfs_meta_writer_append(
				     mw, data + rec[i].start, rec[i].size),
				 0);
	}
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	sqfs_meta_writer_destroy(mw);
	/* something after the stream that must never be read as part of it */
	end = file->get_size(file);
	test_file_append_block(file, 0x8004, "JUNK", 4);

	assert_int_equal(sqfs_meta_reader_create(file, cmp, PREFIX, end, &mr),
			 0);

	/* in order, from the first record, crossing every block boundary */
	assert_int_equal(
	    sqfs_meta_reader_seek(mr, PREFIX + rec[0].block, rec[0].offset), 0);
	for (i = 0; i < NUM_RECORDS; ++i) {
		assert_int_equal(sqfs_meta_reader_read(mr, buf, rec[i].size),
				 0);
		assert_memory_equal(buf, data + rec[i].start, rec[i].size);
		if (i + 1 < NUM_RECORDS) {
			sqfs_meta_reader_get_position(mr, &block, &off);
			assert_int_equal(block, PREFIX + rec[i + 1].block);
			assert_int_equal(off, rec[i + 1].offset);
		}
	}
	/* the stream ends exactly here */
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	/* random access by reference */
	for (i = 0; i < NUM_RECORDS; ++i) {
		size_t k = test_rand(&seed) % NUM_RECORDS;

		assert_int_equal(sqfs_meta_reader_seek(
				     mr, PREFIX + rec[k].block, rec[k].offset),
				 0);
		assert_int_equal(sqfs_meta_reader_read(mr, buf, rec[k].size),
				 0);
		assert_memory_equal(buf, data + rec[k].start, rec[k].size);
	}

	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
	free(buf);
	free(data);
	free(rec);
}

static void test_roundtrip_raw(void **state)
{
	(void)state;
	roundtrip(NULL, TEST_DATA_TEXT);
}

static void test_roundtrip_compressed(void **state)
{
	sqfs_compressor_t *cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);

	(void)state;
	if (cmp == NULL)
		skip();
	roundtrip(cmp, TEST_DATA_TEXT);
	/* random data: raw blocks mixed into a compressed stream */
	roundtrip(cmp, TEST_DATA_RANDOM);
	roundtrip(cmp, TEST_DATA_BINARY);
	sqfs_compressor_destroy(cmp);
}

static void test_create_args(void **state)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_reader_t *mr = NULL;
	uint8_t c;

	(void)state;
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 10, 9, &mr),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_meta_reader_create(NULL, NULL, 0, 9, &mr),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(mr);

	/* an empty region (an empty directory table) is fine to create,
	 * but holds nothing */
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 5, 5, &mr), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 5, 0),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_read(mr, &c, 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_read(mr, &c, 0), 0);
	sqfs_meta_reader_destroy(mr);
	sqfs_meta_reader_destroy(NULL);
	sqfs_file_destroy(file);
}

/* A read continues at pos + 2 + L, whatever lies in between. */
static void test_read_across(void **state)
{
	sqfs_file_t *file = test_memory_file("pre", 3);
	sqfs_meta_reader_t *mr;
	uint64_t block;
	char buf[16];
	size_t off;

	(void)state;
	test_file_append_block(file, 0x8004, "AAAA", 4);
	test_file_append_block(file, 0x8003, "BBB", 3);
	test_file_append_block(file, 0x8002, "CC", 2);

	assert_int_equal(sqfs_meta_reader_create(file, NULL, 3, 3 + 15, &mr),
			 0);
	/* without a seek, reading starts at the region start */
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 1), 0);
	assert_int_equal(buf[0], 'A');

	assert_int_equal(sqfs_meta_reader_seek(mr, 3, 2), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 6), 0);
	assert_memory_equal(buf, "AABBBC", 6);
	sqfs_meta_reader_get_position(mr, &block, &off);
	assert_int_equal(block, 3 + 6 + 5);
	assert_int_equal(off, 1);

	/* ending on a boundary moves to the next block */
	assert_int_equal(sqfs_meta_reader_seek(mr, 9, 0), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 3), 0);
	sqfs_meta_reader_get_position(mr, &block, &off);
	assert_int_equal(block, 14);
	assert_int_equal(off, 0);

	/* a failed seek keeps the old position */
	assert_int_equal(sqfs_meta_reader_seek(mr, 3, 1), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 9, 3),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 4, 0), SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 4), 0);
	assert_memory_equal(buf, "AAAB", 4);

	/* a record running past the last block */
	assert_int_equal(sqfs_meta_reader_seek(mr, 14, 1), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 2),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

static void test_bad_headers(void **state)
{
	sqfs_file_t *file = test_memory_file("xx", 2);
	uint8_t big[SQFS_META_BLOCK_SIZE + 1];
	sqfs_meta_reader_t *mr;
	uint64_t end;

	(void)state;
	memset(big, 'z', sizeof(big));
	test_file_append_block(file, 0x8000, NULL, 0); /* at 2: raw, length 0 */
	test_file_append_block(file, 0x0000, NULL,
			       0); /* at 4: packed, length 0 */
	test_file_append_block(file, 0x8000 | 8193, big,
			       8193); /* at 6: too long */
	end = file->get_size(file);
	test_file_append_block(file, 0x8000 | 8192, big,
			       8192); /* at end: largest */
	test_file_append_block(file, 0x8000, NULL, 0);

	assert_int_equal(
	    sqfs_meta_reader_create(file, NULL, 2, file->get_size(file), &mr),
	    0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 2, 0), SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_meta_reader_seek(mr, 4, 0), SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_meta_reader_seek(mr, 6, 0), SQFS_ERROR_CORRUPTED);
	/* a full 8192-byte block is fine; its successor is not */
	assert_int_equal(sqfs_meta_reader_seek(mr, end, 8191), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, big, 1), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, big, 1),
			 SQFS_ERROR_CORRUPTED);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

static void test_limits(void **state)
{
	sqfs_file_t *file = test_memory_file("0123456789", 10);
	sqfs_meta_reader_t *mr;
	uint8_t buf[64];

	(void)state;
	test_file_append_block(file, 0x800A, "abcdefghij", 10); /* 10 .. 22 */
	test_file_append_block(file, 0x8010, "ABCDEFGHIJKLMNOP",
			       16);			 /* 22 .. 40 */
	test_file_append_block(file, 0x8004, "more", 4); /* 40 .. 46 */

	/* limit cuts the second block: its payload leaves the region */
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 10, 39, &mr), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 22, 0),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_meta_reader_seek(mr, 10, 5), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 5), 0);
	assert_memory_equal(buf, "fghij", 5);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 1),
			 SQFS_ERROR_CORRUPTED);
	sqfs_meta_reader_destroy(mr);

	/* limit cuts a header in half */
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 10, 23, &mr), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 10, 9), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 2),
			 SQFS_ERROR_CORRUPTED);
	sqfs_meta_reader_destroy(mr);

	/* limit right after a block: the stream ends, even though valid
	 * blocks follow in the file */
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 10, 40, &mr), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 22, 10), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 7),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 22, 10), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 6), 0);
	assert_memory_equal(buf, "KLMNOP", 6);
	assert_int_equal(sqfs_meta_reader_seek(mr, 40, 0),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	/* seeks outside the region or the block's data */
	assert_int_equal(sqfs_meta_reader_seek(mr, 0, 0),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 9, 0),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, UINT64_MAX, 0),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 10, 10),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 10, 8192),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 10, SIZE_MAX),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 22, 16),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_meta_reader_seek(mr, 22, 15), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 1), 0);
	assert_int_equal(buf[0], 'P');

	/* a seek into the middle of a block reads garbage as a header:
	 * here "cd" = 0x6463, a compressed block of 0x6463 & 0x7FFF bytes */
	assert_int_equal(sqfs_meta_reader_seek(mr, 12, 0),
			 SQFS_ERROR_CORRUPTED);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

static void test_truncated_file(void **state)
{
	sqfs_file_t *file = test_memory_file("0123", 4);
	sqfs_meta_reader_t *mr;
	uint8_t buf[8];

	(void)state;
	test_file_append_block(file, 0x8004, "abcd", 4); /* 4 .. 10 */
	test_file_append(file,
			 "\x20\x80"
			 "xyz",
			 5); /* claims 32 bytes */

	/* the region claims more than the file has */
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 4, 100, &mr), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 10, 0),
			 SQFS_ERROR_TRUNCATED);
	assert_int_equal(sqfs_meta_reader_seek(mr, 50, 0),
			 SQFS_ERROR_TRUNCATED);
	assert_int_equal(sqfs_meta_reader_seek(mr, 4, 0), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, buf, 5),
			 SQFS_ERROR_TRUNCATED);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

static void test_compressed_without_compressor(void **state)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_reader_t *mr;

	(void)state;
	test_file_append_block(file, 0x0004, "abcd", 4);
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 0, 6, &mr), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 0, 0),
			 SQFS_ERROR_UNSUPPORTED);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

/*
 * A reader with cmp over a file (*file) that holds just one md-block: the
 * header for len bytes of compressed payload, then the payload.
 */
static sqfs_meta_reader_t *one_block_reader(sqfs_compressor_t *cmp,
					    const void *payload, size_t len,
					    sqfs_file_t **file)
{
	sqfs_meta_reader_t *mr = NULL;

	*file = test_memory_file(NULL, 0);
	test_file_append_block(*file, (uint16_t)len, payload, len);
	assert_int_equal(sqfs_meta_reader_create(*file, cmp, 0,
						 (*file)->get_size(*file), &mr),
			 0);
	return mr;
}

/* The result of seeking to offset in one_block_reader's block. */
static int seek_payload(sqfs_compressor_t *cmp, const void *payload, size_t len,
			size_t offset)
{
	sqfs_file_t *file;
	sqfs_meta_reader_t *mr = one_block_reader(cmp, payload, len, &file);
	int ret = sqfs_meta_reader_seek(mr, 0, offset);

	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
	return ret;
}

static void bomb_one(sqfs_compressor_t *big, sqfs_compressor_t *cmp)
{
	const size_t bomb_size = 2 * SQFS_META_BLOCK_SIZE;
	uint8_t *zeros = calloc(1, bomb_size);
	uint8_t packed[SQFS_META_BLOCK_SIZE];
	ptrdiff_t len;
	int ret;

	assert_non_null(zeros);
	len = sqfs_compressor_compress(big, zeros, bomb_size, packed,
				       sizeof(packed));
	assert_true(len > 0 && len < 1000);

	ret = seek_payload(cmp, packed, (size_t)len, 0);
	assert_true(ret == SQFS_ERROR_CORRUPTED || ret == SQFS_ERROR_OVERFLOW);

	/* exactly 8192 bytes is the largest a block may unpack to */
	len = sqfs_compressor_compress(big, zeros, SQFS_META_BLOCK_SIZE, packed,
				       sizeof(packed));
	assert_true(len > 0);
	assert_int_equal(seek_payload(cmp, packed, (size_t)len, 8191), 0);
	free(zeros);
}

/* 16 KiB of zeros packed by a compressor for 64 KiB blocks, as one md-block */
static void test_decompression_bomb(void **state)
{
	sqfs_compressor_t *big, *cmp;
	size_t i, tested = 0;

	(void)state;
	for (i = 0; i < test_compressor_id_count; ++i) {
		big = test_try_compressor(test_compressor_ids[i], 65536);
		cmp = test_try_compressor(test_compressor_ids[i],
					  SQFS_DEFAULT_BLOCK_SIZE);
		if (big != NULL && cmp != NULL) {
			bomb_one(big, cmp);
			tested += 1;
		}
		sqfs_compressor_destroy(big);
		sqfs_compressor_destroy(cmp);
	}
	if (tested == 0)
		skip();
}

static void corrupt_one(sqfs_compressor_t *cmp, bool checked)
{
	uint8_t *text, packed[SQFS_META_BLOCK_SIZE], junk[64];
	sqfs_meta_reader_t *mr;
	sqfs_file_t *file;
	ptrdiff_t len;
	size_t i;
	int ret;

	text = test_make_data(SQFS_META_BLOCK_SIZE, TEST_DATA_TEXT, 4);
	len = sqfs_compressor_compress(cmp, text, SQFS_META_BLOCK_SIZE, packed,
				       sizeof(packed));
	assert_true(len > 16);

	/* the stream cut short */
	ret = seek_payload(cmp, packed, (size_t)len / 2, 0);
	assert_true(ret < 0);

	/* garbage that is not a stream at all; codecs without a checksum
	 * may decode it to something, but never to more than a block */
	for (i = 0; i < sizeof(junk); ++i)
		junk[i] = (uint8_t)(0xFF - i * 3);
	ret = seek_payload(cmp, junk, sizeof(junk), 0);
	if (checked)
		assert_true(ret < 0);

	/* bits flipped all over the stream */
	for (i = 0; i < (size_t)len; i += 7)
		packed[i] ^= 0x5A;
	ret = seek_payload(cmp, packed, (size_t)len, 0);
	if (checked)
		assert_true(ret < 0);
	for (i = 0; i < (size_t)len; i += 7)
		packed[i] ^= 0x5A;

	/* the intact block decodes */
	mr = one_block_reader(cmp, packed, (size_t)len, &file);
	assert_int_equal(sqfs_meta_reader_seek(mr, 0, 100), 0);
	assert_int_equal(sqfs_meta_reader_read(mr, junk, 32), 0);
	assert_memory_equal(junk, text + 100, 32);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
	free(text);
}

static void test_corrupt_payload(void **state)
{
	sqfs_compressor_t *cmp;
	size_t i, tested = 0;

	(void)state;
	for (i = 0; i < test_compressor_id_count; ++i) {
		cmp = test_try_compressor(test_compressor_ids[i],
					  SQFS_DEFAULT_BLOCK_SIZE);
		if (cmp == NULL)
			continue;
		/* zlib, zstd and xz streams carry checksums */
		corrupt_one(cmp, test_compressor_ids[i] == SQFS_COMP_GZIP ||
				     test_compressor_ids[i] == SQFS_COMP_ZSTD ||
				     test_compressor_ids[i] == SQFS_COMP_XZ);
		sqfs_compressor_destroy(cmp);
		tested += 1;
	}
	if (tested == 0)
		skip();
}

#define CACHE_TEST_BLOCKS (3 * SQFS_META_READER_CACHE_SIZE)

static void test_cache(void **state)
{
	unsigned int reads = 0;
	sqfs_file_t *file, *inner;
	uint64_t pos[CACHE_TEST_BLOCKS];
	sqfs_meta_reader_t *mr;
	uint8_t payload[100];
	unsigned int before;
	size_t i, round;

	(void)state;
	assert_int_equal(sqfs_file_open_memory(&inner, NULL, 0, 0), 0);
	file = test_observed_file(inner, count_read, &reads);
	for (i = 0; i < CACHE_TEST_BLOCKS; ++i) {
		memset(payload, (int)('a' + i), sizeof(payload));
		pos[i] = file->get_size(file);
		test_file_append_block(file, 0x8000 | sizeof(payload), payload,
				       sizeof(payload));
	}
	assert_int_equal(
	    sqfs_meta_reader_create(file, NULL, 0, file->get_size(file), &mr),
	    0);

	/* the same block again and again costs one decode */
	assert_int_equal(sqfs_meta_reader_seek(mr, pos[3], 0), 0);
	before = reads;
	for (i = 0; i < 1000; ++i) {
		assert_int_equal(sqfs_meta_reader_seek(mr, pos[3], i % 100), 0);
		assert_int_equal(sqfs_meta_reader_read(mr, payload, 1), 0);
		assert_int_equal(payload[0], 'a' + 3);
	}
	assert_int_equal(reads, before);

	/* as many blocks as slots stay cached in turn */
	for (i = 0; i < SQFS_META_READER_CACHE_SIZE; ++i)
		assert_int_equal(sqfs_meta_reader_seek(mr, pos[i], 0), 0);
	before = reads;
	for (round = 0; round < 5; ++round) {
		for (i = 0; i < SQFS_META_READER_CACHE_SIZE; ++i) {
			assert_int_equal(sqfs_meta_reader_seek(mr, pos[i], 7),
					 0);
			assert_int_equal(sqfs_meta_reader_read(mr, payload, 1),
					 0);
			assert_int_equal(payload[0], 'a' + i);
		}
	}
	assert_int_equal(reads, before);

	/* more blocks than slots: evicted blocks come back correctly */
	for (round = 0; round < 3; ++round) {
		for (i = 0; i < CACHE_TEST_BLOCKS; ++i) {
			size_t k = (i * 5 + round) % CACHE_TEST_BLOCKS;

			assert_int_equal(sqfs_meta_reader_seek(mr, pos[k], 99),
					 0);
			assert_int_equal(sqfs_meta_reader_read(mr, payload, 1),
					 0);
			assert_int_equal(payload[0], 'a' + k);
		}
	}
	assert_true(reads > before);

	/* a long read through all blocks */
	assert_int_equal(sqfs_meta_reader_seek(mr, pos[0], 0), 0);
	for (i = 0; i < CACHE_TEST_BLOCKS; ++i) {
		assert_int_equal(sqfs_meta_reader_read(mr, payload, 100), 0);
		assert_int_equal(payload[0], 'a' + i);
		assert_int_equal(payload[99], 'a' + i);
	}

	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_args),
	    cmocka_unit_test(test_roundtrip_raw),
	    cmocka_unit_test(test_roundtrip_compressed),
	    cmocka_unit_test(test_read_across),
	    cmocka_unit_test(test_bad_headers),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_truncated_file),
	    cmocka_unit_test(test_compressed_without_compressor),
	    cmocka_unit_test(test_decompression_bomb),
	    cmocka_unit_test(test_corrupt_payload),
	    cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

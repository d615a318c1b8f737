/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_reader.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

/* A file that counts the reads reaching it, to observe the cache. */
typedef struct {
	sqfs_file_t base;
	sqfs_file_t *inner;
	unsigned int reads;
} counting_file_t;

static void counting_destroy(sqfs_file_t *base)
{
	counting_file_t *f = (counting_file_t *)base;

	sqfs_file_destroy(f->inner);
	free(f);
}

static int counting_read_at(sqfs_file_t *base, uint64_t offset, void *buf,
			    size_t size)
{
	counting_file_t *f = (counting_file_t *)base;

	f->reads += 1;
	return f->inner->read_at(f->inner, offset, buf, size);
}

static int counting_write_at(sqfs_file_t *base, uint64_t offset,
			     const void *buf, size_t size)
{
	counting_file_t *f = (counting_file_t *)base;

	return f->inner->write_at(f->inner, offset, buf, size);
}

static uint64_t counting_get_size(const sqfs_file_t *base)
{
	const counting_file_t *f = (const counting_file_t *)base;

	return f->inner->get_size(f->inner);
}

static int counting_truncate(sqfs_file_t *base, uint64_t size)
{
	counting_file_t *f = (counting_file_t *)base;

	return f->inner->truncate(f->inner, size);
}

static counting_file_t *new_counting_file(void)
{
	counting_file_t *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(sqfs_file_open_memory(&f->inner, NULL, 0, 0), 0);
	f->base.destroy = counting_destroy;
	f->base.read_at = counting_read_at;
	f->base.write_at = counting_write_at;
	f->base.get_size = counting_get_size;
	f->base.truncate = counting_truncate;
	return f;
}

static sqfs_file_t *file_from(const void *data, size_t size)
{
	sqfs_file_t *file = NULL;

	assert_int_equal(sqfs_file_open_memory(&file, data, size, 0), 0);
	return file;
}

static void append_bytes(sqfs_file_t *file, const void *data, size_t size)
{
	assert_int_equal(file->write_at(file, file->get_size(file), data, size),
			 0);
}

/* Append one md-block with the given header and payload. */
static void append_block(sqfs_file_t *file, uint16_t header,
			 const void *payload, size_t size)
{
	uint8_t hdr[2];

	put_le16(hdr, header);
	append_bytes(file, hdr, 2);
	if (size > 0)
		append_bytes(file, payload, size);
}

static const sqfs_compressor_id_t comp_ids[] = {
    SQFS_COMP_GZIP, SQFS_COMP_ZSTD, SQFS_COMP_XZ,
    SQFS_COMP_LZ4,  SQFS_COMP_LZO,  SQFS_COMP_LZMA,
};
#define NUM_COMP_IDS (sizeof(comp_ids) / sizeof(comp_ids[0]))

static sqfs_compressor_t *create_comp(sqfs_compressor_id_t id,
				      uint32_t block_size)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;

	if (!sqfs_compressor_is_available(id))
		return NULL;
	if (sqfs_compressor_config_init(&cfg, id, block_size, 0))
		return NULL;
	if (sqfs_compressor_create(&cfg, &cmp))
		return NULL;
	return cmp;
}

/* The first working compressor, gzip or zstd if there. */
static sqfs_compressor_t *make_compressor_bs(uint32_t block_size)
{
	sqfs_compressor_t *cmp;
	size_t i;

	for (i = 0; i < NUM_COMP_IDS; ++i) {
		cmp = create_comp(comp_ids[i], block_size);
		if (cmp != NULL)
			return cmp;
	}
	return NULL;
}

static uint32_t next_rand(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
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
		rec[i].size = 1 + next_rand(&seed) % 400;
		rec[i].start = total;
		total += rec[i].size;
	}
	data = test_make_data(total, kind, 9);
	buf = malloc(400);
	assert_non_null(buf);

	memset(prefix, 0xEE, sizeof(prefix));
	file = file_from(prefix, sizeof(prefix));
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
	append_block(file, 0x8004, "JUNK", 4);

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
		size_t k = next_rand(&seed) % NUM_RECORDS;

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
	sqfs_compressor_t *cmp = make_compressor_bs(SQFS_DEFAULT_BLOCK_SIZE);

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
	sqfs_file_t *file = file_from(NULL, 0);
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
	sqfs_file_t *file = file_from("pre", 3);
	sqfs_meta_reader_t *mr;
	uint64_t block;
	char buf[16];
	size_t off;

	(void)state;
	append_block(file, 0x8004, "AAAA", 4);
	append_block(file, 0x8003, "BBB", 3);
	append_block(file, 0x8002, "CC", 2);

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
	sqfs_file_t *file = file_from("xx", 2);
	uint8_t big[SQFS_META_BLOCK_SIZE + 1];
	sqfs_meta_reader_t *mr;
	uint64_t end;

	(void)state;
	memset(big, 'z', sizeof(big));
	append_block(file, 0x8000, NULL, 0); /* at 2: raw, length 0 */
	append_block(file, 0x0000, NULL, 0); /* at 4: packed, length 0 */
	append_block(file, 0x8000 | 8193, big, 8193); /* at 6: too long */
	end = file->get_size(file);
	append_block(file, 0x8000 | 8192, big, 8192); /* at end: largest */
	append_block(file, 0x8000, NULL, 0);

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
	sqfs_file_t *file = file_from("0123456789", 10);
	sqfs_meta_reader_t *mr;
	uint8_t buf[64];

	(void)state;
	append_block(file, 0x800A, "abcdefghij", 10);	    /* 10 .. 22 */
	append_block(file, 0x8010, "ABCDEFGHIJKLMNOP", 16); /* 22 .. 40 */
	append_block(file, 0x8004, "more", 4);		    /* 40 .. 46 */

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
	sqfs_file_t *file = file_from("0123", 4);
	sqfs_meta_reader_t *mr;
	uint8_t buf[8];

	(void)state;
	append_block(file, 0x8004, "abcd", 4); /* 4 .. 10 */
	append_bytes(file,
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
	sqfs_file_t *file = file_from(NULL, 0);
	sqfs_meta_reader_t *mr;

	(void)state;
	append_block(file, 0x0004, "abcd", 4);
	assert_int_equal(sqfs_meta_reader_create(file, NULL, 0, 6, &mr), 0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 0, 0),
			 SQFS_ERROR_UNSUPPORTED);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

static void bomb_one(sqfs_compressor_t *big, sqfs_compressor_t *cmp)
{
	const size_t bomb_size = 2 * SQFS_META_BLOCK_SIZE;
	uint8_t *zeros = calloc(1, bomb_size);
	uint8_t packed[SQFS_META_BLOCK_SIZE];
	sqfs_meta_reader_t *mr;
	sqfs_file_t *file;
	ptrdiff_t len;
	int ret;

	assert_non_null(zeros);
	len = sqfs_compressor_compress(big, zeros, bomb_size, packed,
				       sizeof(packed));
	assert_true(len > 0 && len < 1000);

	file = file_from(NULL, 0);
	append_block(file, (uint16_t)len, packed, (size_t)len);
	assert_int_equal(
	    sqfs_meta_reader_create(file, cmp, 0, file->get_size(file), &mr),
	    0);
	ret = sqfs_meta_reader_seek(mr, 0, 0);
	assert_true(ret == SQFS_ERROR_CORRUPTED || ret == SQFS_ERROR_OVERFLOW);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);

	/* exactly 8192 bytes is the largest a block may unpack to */
	len = sqfs_compressor_compress(big, zeros, SQFS_META_BLOCK_SIZE, packed,
				       sizeof(packed));
	assert_true(len > 0);
	file = file_from(NULL, 0);
	append_block(file, (uint16_t)len, packed, (size_t)len);
	assert_int_equal(
	    sqfs_meta_reader_create(file, cmp, 0, file->get_size(file), &mr),
	    0);
	assert_int_equal(sqfs_meta_reader_seek(mr, 0, 8191), 0);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
	free(zeros);
}

/* 16 KiB of zeros packed by a compressor for 64 KiB blocks, as one md-block */
static void test_decompression_bomb(void **state)
{
	sqfs_compressor_t *big, *cmp;
	size_t i, tested = 0;

	(void)state;
	for (i = 0; i < NUM_COMP_IDS; ++i) {
		big = create_comp(comp_ids[i], 65536);
		cmp = create_comp(comp_ids[i], SQFS_DEFAULT_BLOCK_SIZE);
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

/* Decode one md-block with the given payload; the result of the seek. */
static int seek_payload(sqfs_compressor_t *cmp, const uint8_t *payload,
			size_t len)
{
	sqfs_meta_reader_t *mr;
	sqfs_file_t *file;
	int ret;

	file = file_from(NULL, 0);
	append_block(file, (uint16_t)len, payload, len);
	assert_int_equal(
	    sqfs_meta_reader_create(file, cmp, 0, file->get_size(file), &mr),
	    0);
	ret = sqfs_meta_reader_seek(mr, 0, 0);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
	return ret;
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
	ret = seek_payload(cmp, packed, (size_t)len / 2);
	assert_true(ret < 0);

	/* garbage that is not a stream at all; codecs without a checksum
	 * may decode it to something, but never to more than a block */
	for (i = 0; i < sizeof(junk); ++i)
		junk[i] = (uint8_t)(0xFF - i * 3);
	ret = seek_payload(cmp, junk, sizeof(junk));
	if (checked)
		assert_true(ret < 0);

	/* bits flipped all over the stream */
	for (i = 0; i < (size_t)len; i += 7)
		packed[i] ^= 0x5A;
	ret = seek_payload(cmp, packed, (size_t)len);
	if (checked)
		assert_true(ret < 0);
	for (i = 0; i < (size_t)len; i += 7)
		packed[i] ^= 0x5A;

	/* the intact block decodes */
	file = file_from(NULL, 0);
	append_block(file, (uint16_t)len, packed, (size_t)len);
	assert_int_equal(
	    sqfs_meta_reader_create(file, cmp, 0, file->get_size(file), &mr),
	    0);
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
	for (i = 0; i < NUM_COMP_IDS; ++i) {
		cmp = create_comp(comp_ids[i], SQFS_DEFAULT_BLOCK_SIZE);
		if (cmp == NULL)
			continue;
		/* zlib, zstd and xz streams carry checksums */
		corrupt_one(cmp, comp_ids[i] == SQFS_COMP_GZIP ||
				     comp_ids[i] == SQFS_COMP_ZSTD ||
				     comp_ids[i] == SQFS_COMP_XZ);
		sqfs_compressor_destroy(cmp);
		tested += 1;
	}
	if (tested == 0)
		skip();
}

#define CACHE_TEST_BLOCKS (3 * SQFS_META_READER_CACHE_SIZE)

static void test_cache(void **state)
{
	counting_file_t *cf = new_counting_file();
	sqfs_file_t *file = &cf->base;
	uint64_t pos[CACHE_TEST_BLOCKS];
	sqfs_meta_reader_t *mr;
	uint8_t payload[100];
	unsigned int before;
	size_t i, round;

	(void)state;
	for (i = 0; i < CACHE_TEST_BLOCKS; ++i) {
		memset(payload, (int)('a' + i), sizeof(payload));
		pos[i] = file->get_size(file);
		append_block(file, 0x8000 | sizeof(payload), payload,
			     sizeof(payload));
	}
	assert_int_equal(
	    sqfs_meta_reader_create(file, NULL, 0, file->get_size(file), &mr),
	    0);

	/* the same block again and again costs one decode */
	assert_int_equal(sqfs_meta_reader_seek(mr, pos[3], 0), 0);
	before = cf->reads;
	for (i = 0; i < 1000; ++i) {
		assert_int_equal(sqfs_meta_reader_seek(mr, pos[3], i % 100), 0);
		assert_int_equal(sqfs_meta_reader_read(mr, payload, 1), 0);
		assert_int_equal(payload[0], 'a' + 3);
	}
	assert_int_equal(cf->reads, before);

	/* as many blocks as slots stay cached in turn */
	for (i = 0; i < SQFS_META_READER_CACHE_SIZE; ++i)
		assert_int_equal(sqfs_meta_reader_seek(mr, pos[i], 0), 0);
	before = cf->reads;
	for (round = 0; round < 5; ++round) {
		for (i = 0; i < SQFS_META_READER_CACHE_SIZE; ++i) {
			assert_int_equal(sqfs_meta_reader_seek(mr, pos[i], 7),
					 0);
			assert_int_equal(sqfs_meta_reader_read(mr, payload, 1),
					 0);
			assert_int_equal(payload[0], 'a' + i);
		}
	}
	assert_int_equal(cf->reads, before);

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
	assert_true(cf->reads > before);

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

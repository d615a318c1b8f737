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
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX 100

/*
 * This program is linked with --wrap for malloc, calloc and realloc (see
 * tests/meta/Makemodule.am), so every allocation the library makes passes
 * here. While alloc_watch is set, the largest request is noted in
 * alloc_max and requests over alloc_limit fail as on a machine with that
 * little memory: what sqfs_table_read asks for becomes observable, whatever
 * the machine (or its overcommit policy) would grant.
 */
void *__real_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static bool alloc_watch;
static size_t alloc_limit;
static size_t alloc_max;

static bool alloc_refused(size_t size)
{
	if (!alloc_watch)
		return false;
	if (size > alloc_max)
		alloc_max = size;
	return size > alloc_limit;
}

void *__wrap_malloc(size_t size)
{
	return alloc_refused(size) ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	size_t total = SIZE_MAX;

	if (size == 0 || nmemb <= SIZE_MAX / size)
		total = nmemb * size;
	return alloc_refused(total) ? NULL : __real_calloc(nmemb, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
	return alloc_refused(size) ? NULL : __real_realloc(ptr, size);
}

static void alloc_watch_start(size_t limit)
{
	alloc_limit = limit;
	alloc_max = 0;
	alloc_watch = true;
}

static void alloc_watch_stop(void)
{
	alloc_watch = false;
}

static void append_le64(sqfs_file_t *file, uint64_t v)
{
	uint8_t b[8];

	put_le64(b, v);
	test_file_append(file, b, 8);
}

static void put_index(sqfs_file_t *file, uint64_t index_start, size_t i,
		      uint64_t value)
{
	uint8_t b[8];

	put_le64(b, value);
	assert_int_equal(file->write_at(file, index_start + 8 * i, b, 8), 0);
}

/* Entries of entry_size bytes, each holding its own number. */
static uint8_t *make_entries(size_t size, size_t entry_size)
{
	uint8_t *data = malloc(size);
	size_t i, j;

	assert_non_null(data);
	for (i = 0; i < size / entry_size; ++i) {
		for (j = 0; j < entry_size; ++j) {
			data[i * entry_size + j] =
			    j < 4 ? (uint8_t)(i >> (8 * j)) : (uint8_t)j;
		}
	}
	return data;
}

static void roundtrip(sqfs_compressor_t *cmp, size_t size, size_t entry_size)
{
	uint8_t *data = make_entries(size, entry_size);
	sqfs_file_t *file = test_memory_file_filled(PREFIX, 0xC3);
	size_t count = (size + 8191) / 8192, i, img_size;
	uint64_t index_start = 0, pos;
	const uint8_t *img;
	void *out = NULL;

	assert_int_equal(sqfs_table_write(file, cmp, data, size, &index_start),
			 0);

	/* the index directly follows the blocks and ends the file */
	img = test_memory_file_data(file, &img_size);
	assert_int_equal(index_start + 8 * count, img_size);
	pos = PREFIX;
	for (i = 0; i < count; ++i) {
		uint16_t hdr = get_le16(img + pos);

		assert_int_equal(get_le64(img + index_start + 8 * i), pos);
		if (cmp == NULL) {
			size_t len = i + 1 < count ? 8192 : size - i * 8192;

			assert_int_equal(hdr, 0x8000 | len);
		}
		pos += 2 + (hdr & 0x7FFF);
	}
	assert_int_equal(pos, index_start);

	assert_int_equal(sqfs_table_read(file, cmp, size, index_start, PREFIX,
					 img_size, &out),
			 0);
	assert_non_null(out);
	assert_memory_equal(out, data, size);
	free(out);

	/* the tightest limits still work */
	assert_int_equal(sqfs_table_read(file, cmp, size, index_start, PREFIX,
					 index_start + 8 * count, &out),
			 0);
	free(out);

	sqfs_file_destroy(file);
	free(data);
}

static void test_roundtrip_raw(void **state)
{
	static const size_t sizes[] = {4, 8192, 8196, 100000};
	static const size_t entries[] = {4, 8, 16};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
		for (j = 0; j < sizeof(entries) / sizeof(entries[0]); ++j)
			roundtrip(NULL, sizes[i], entries[j]);
	}
}

static void test_roundtrip_compressed(void **state)
{
	static const size_t sizes[] = {4, 8192, 8196, 100000};
	static const size_t entries[] = {4, 8, 16};
	sqfs_compressor_t *cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);
	size_t i, j;

	(void)state;
	if (cmp == NULL)
		skip();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
		for (j = 0; j < sizeof(entries) / sizeof(entries[0]); ++j)
			roundtrip(cmp, sizes[i], entries[j]);
	}
	sqfs_compressor_destroy(cmp);
}

static void test_write_args(void **state)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	uint64_t start;
	void *out;

	(void)state;
	assert_int_equal(sqfs_table_write(file, NULL, "abcd", 0, &start),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_table_write(file, NULL, NULL, 4, &start),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(file->get_size(file), 0);
	assert_int_equal(sqfs_table_read(file, NULL, 0, 0, 0, 100, &out),
			 SQFS_ERROR_ARG_INVALID);
	sqfs_file_destroy(file);

	/* write errors are passed on */
	assert_int_equal(
	    sqfs_file_open_memory(&file, NULL, 0, SQFS_FILE_OPEN_READ_ONLY), 0);
	assert_int_equal(sqfs_table_write(file, NULL, "abcd", 4, &start),
			 SQFS_ERROR_UNSUPPORTED);
	sqfs_file_destroy(file);
}

/* A raw table of 20000 bytes (blocks of 8192, 8192, 3616) at PREFIX. */
#define T_SIZE 20000
#define T_COUNT 3

typedef struct {
	sqfs_file_t *file;
	uint64_t index_start;
	uint64_t end;
	uint64_t block[T_COUNT];
} fixture_t;

static int setup_fixture(void **state)
{
	fixture_t *fx = calloc(1, sizeof(*fx));
	uint8_t *data = make_entries(T_SIZE, 4);
	size_t i;

	assert_non_null(fx);
	fx->file = test_memory_file_filled(PREFIX, 0xC3);
	assert_int_equal(
	    sqfs_table_write(fx->file, NULL, data, T_SIZE, &fx->index_start),
	    0);
	fx->end = fx->file->get_size(fx->file);
	assert_int_equal(fx->end, fx->index_start + 8 * T_COUNT);
	for (i = 0; i < T_COUNT; ++i)
		fx->block[i] = PREFIX + i * 8194;
	assert_int_equal(fx->index_start, PREFIX + 2 * 8194 + 2 + 3616);
	free(data);
	*state = fx;
	return 0;
}

static int teardown_fixture(void **state)
{
	fixture_t *fx = *state;

	sqfs_file_destroy(fx->file);
	free(fx);
	return 0;
}

static int read_fx(fixture_t *fx, size_t size, uint64_t lower, uint64_t upper)
{
	void *out = NULL;
	int ret;

	ret = sqfs_table_read(fx->file, NULL, size, fx->index_start, lower,
			      upper, &out);
	if (ret == 0) {
		assert_non_null(out);
		free(out);
	}
	return ret;
}

static void test_fixture_valid(void **state)
{
	fixture_t *fx = *state;

	assert_int_equal(read_fx(fx, T_SIZE, PREFIX, fx->end), 0);
	assert_int_equal(read_fx(fx, T_SIZE, 0, fx->end), 0);
}

static void test_bad_limits(void **state)
{
	fixture_t *fx = *state;

	/* index past upper_limit */
	assert_int_equal(read_fx(fx, T_SIZE, PREFIX, fx->end - 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_fx(fx, T_SIZE, PREFIX, fx->index_start),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_fx(fx, T_SIZE, PREFIX, 0),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	/* first block below lower_limit */
	assert_int_equal(read_fx(fx, T_SIZE, PREFIX + 1, fx->end),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_fx(fx, T_SIZE, fx->index_start, fx->end),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_fx(fx, T_SIZE, UINT64_MAX, UINT64_MAX),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	/* an upper limit past the end of the file does not help */
	assert_int_equal(read_fx(fx, T_SIZE + 8192, PREFIX, UINT64_MAX),
			 SQFS_ERROR_TRUNCATED);
}

static void test_size_mismatch(void **state)
{
	fixture_t *fx = *state;

	/* last block shorter or longer than the size says */
	assert_int_equal(read_fx(fx, T_SIZE - 4, PREFIX, fx->end),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(read_fx(fx, T_SIZE + 4, PREFIX, fx->end),
			 SQFS_ERROR_CORRUPTED);
	/* one block fewer: the last one is too far from the index */
	assert_int_equal(read_fx(fx, 2 * 8192, PREFIX, fx->end),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(read_fx(fx, 8192, PREFIX, fx->end),
			 SQFS_ERROR_CORRUPTED);
	/* one block more: the index would run past the limit */
	assert_int_equal(read_fx(fx, T_SIZE + 8192, PREFIX, fx->end),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	/* absurd sizes are rejected before anything is allocated */
	assert_int_equal(read_fx(fx, SIZE_MAX, 0, UINT64_MAX),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_fx(fx, SIZE_MAX, 0, fx->end),
			 SQFS_ERROR_OUT_OF_BOUNDS);
}

/* Patch index entry i, run a read, and restore the entry. */
static int read_patched(fixture_t *fx, size_t i, uint64_t value)
{
	int ret;

	put_index(fx->file, fx->index_start, i, value);
	ret = read_fx(fx, T_SIZE, PREFIX, fx->end);
	put_index(fx->file, fx->index_start, i, fx->block[i]);
	assert_int_equal(read_fx(fx, T_SIZE, PREFIX, fx->end), 0);
	return ret;
}

static void test_bad_index(void **state)
{
	fixture_t *fx = *state;

	/* not strictly increasing */
	assert_int_equal(read_patched(fx, 1, fx->block[0]),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(read_patched(fx, 1, fx->block[2]),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(read_patched(fx, 2, fx->block[0] + 1),
			 SQFS_ERROR_CORRUPTED);
	/* a gap or overlap between blocks */
	assert_int_equal(read_patched(fx, 1, fx->block[1] + 1),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(read_patched(fx, 1, fx->block[1] - 1),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(read_patched(fx, 2, fx->block[2] - 2),
			 SQFS_ERROR_CORRUPTED);
	/* first block starting late: the steps are fine, but its "header"
	 * is table data */
	assert_int_equal(read_patched(fx, 0, fx->block[0] + 2),
			 SQFS_ERROR_CORRUPTED);
	/* a step over 8194 */
	assert_int_equal(read_patched(fx, 2, fx->block[1] + 8195),
			 SQFS_ERROR_CORRUPTED);
	/* below lower_limit, inside or past the index, and huge values */
	assert_int_equal(read_patched(fx, 0, PREFIX - 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_patched(fx, 0, 0), SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_patched(fx, 2, fx->index_start),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_patched(fx, 2, UINT64_MAX),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_patched(fx, 0, UINT64_MAX - 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_patched(fx, 1, UINT64_MAX),
			 SQFS_ERROR_OUT_OF_BOUNDS);
}

static void test_index_start_garbage(void **state)
{
	fixture_t *fx = *state;
	void *out = NULL;
	int ret;

	/* index_start inside the prefix: its "entries" are junk */
	ret = sqfs_table_read(fx->file, NULL, T_SIZE, 50, 0, fx->end, &out);
	assert_true(ret < 0);
	/* in the middle of a block: entries are table data */
	ret = sqfs_table_read(fx->file, NULL, T_SIZE, fx->block[1] + 10, PREFIX,
			      fx->end, &out);
	assert_true(ret < 0);
	/* out of the file */
	assert_int_equal(sqfs_table_read(fx->file, NULL, T_SIZE, fx->end + 8,
					 PREFIX, fx->end, &out),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_table_read(fx->file, NULL, T_SIZE, fx->end + 8,
					 PREFIX, UINT64_MAX, &out),
			 SQFS_ERROR_TRUNCATED);
	assert_int_equal(sqfs_table_read(fx->file, NULL, T_SIZE, UINT64_MAX - 8,
					 0, UINT64_MAX, &out),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_table_read(fx->file, NULL, 8, UINT64_MAX - 8, 0,
					 UINT64_MAX, &out),
			 SQFS_ERROR_TRUNCATED);
	assert_int_equal(
	    sqfs_table_read(fx->file, NULL, 8, UINT64_MAX, 0, UINT64_MAX, &out),
	    SQFS_ERROR_OUT_OF_BOUNDS);
	assert_null(out);
}

/* A table of one block (header, then len bytes of payload) after 10 junk
 * bytes, then its index, which starts at *index_start. */
static sqfs_file_t *one_block_table(uint16_t header, const void *payload,
				    size_t len, uint64_t *index_start)
{
	sqfs_file_t *file = test_memory_file_filled(10, 0xC3);

	test_file_append_block(file, header, payload, len);
	*index_start = file->get_size(file);
	append_le64(file, 10);
	return file;
}

/*
 * sqfs_table_read of a size-byte table whose index starts at index_start,
 * between offset 10 and the end of file; on failure nothing is handed out.
 */
static int read_table(sqfs_file_t *file, sqfs_compressor_t *cmp, size_t size,
		      uint64_t index_start)
{
	void *out = NULL;
	int ret;

	ret = sqfs_table_read(file, cmp, size, index_start, 10,
			      file->get_size(file), &out);
	if (ret == 0)
		free(out);
	else
		assert_null(out);
	return ret;
}

/* Hand-built tables with bad blocks. */
static void test_bad_blocks(void **state)
{
	uint8_t *payload = calloc(1, 8193);
	sqfs_file_t *file;
	uint64_t index_start;

	(void)state;
	assert_non_null(payload);

	/* a short full block: 8000 + 292 bytes for a table of 8292 */
	file = test_memory_file_filled(10, 0xC3);
	test_file_append_block(file, 0x8000 | 8000, payload, 8000);
	test_file_append_block(file, 0x8000 | 292, payload, 292);
	index_start = file->get_size(file);
	append_le64(file, 10);
	append_le64(file, 10 + 8002);
	assert_int_equal(read_table(file, NULL, 8292, index_start),
			 SQFS_ERROR_CORRUPTED);
	sqfs_file_destroy(file);

	/* headers with length 0 and with too large a length */
	file = one_block_table(0x8000, "x", 1, &index_start);
	assert_int_equal(read_table(file, NULL, 4, index_start),
			 SQFS_ERROR_CORRUPTED);
	sqfs_file_destroy(file);

	file = one_block_table(0x8000 | 8193, payload, 8193, &index_start);
	assert_int_equal(read_table(file, NULL, 8192, index_start),
			 SQFS_ERROR_CORRUPTED);
	sqfs_file_destroy(file);

	/* a compressed block and no compressor */
	file = one_block_table(4, "abcd", 4, &index_start);
	assert_int_equal(read_table(file, NULL, 4, index_start),
			 SQFS_ERROR_UNSUPPORTED);
	sqfs_file_destroy(file);

	free(payload);
}

/* Compressed blocks that unpack to the wrong size. */
static void test_bad_compressed(void **state)
{
	sqfs_compressor_t *big = test_first_compressor(65536);
	sqfs_compressor_t *cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);
	uint8_t *zeros = calloc(1, 16384), packed[8192];
	sqfs_file_t *file;
	uint64_t index_start;
	ptrdiff_t len;
	int ret;

	(void)state;
	assert_non_null(zeros);
	if (big == NULL || cmp == NULL) {
		free(zeros);
		sqfs_compressor_destroy(big);
		sqfs_compressor_destroy(cmp);
		skip();
	}

	/* 16 KiB of zeros as the one block of an 8 KiB table */
	len =
	    sqfs_compressor_compress(big, zeros, 16384, packed, sizeof(packed));
	assert_true(len > 0);
	file =
	    one_block_table((uint16_t)len, packed, (size_t)len, &index_start);
	ret = read_table(file, cmp, 8192, index_start);
	assert_true(ret == SQFS_ERROR_CORRUPTED || ret == SQFS_ERROR_OVERFLOW);
	/* or for a 100-byte table */
	ret = read_table(file, cmp, 100, index_start);
	assert_true(ret == SQFS_ERROR_CORRUPTED || ret == SQFS_ERROR_OVERFLOW);
	sqfs_file_destroy(file);

	/* 4000 zeros where a full block of 8192 is expected */
	len =
	    sqfs_compressor_compress(big, zeros, 4000, packed, sizeof(packed));
	assert_true(len > 0);
	file = test_memory_file_filled(10, 0xC3);
	test_file_append_block(file, (uint16_t)len, packed, (size_t)len);
	test_file_append_block(file, 0x8004, "abcd", 4);
	index_start = file->get_size(file);
	append_le64(file, 10);
	append_le64(file, 10 + 2 + (uint64_t)len);
	assert_int_equal(read_table(file, cmp, 8196, index_start),
			 SQFS_ERROR_CORRUPTED);

	/* the payload garbled */
	packed[0] ^= 0xFF;
	packed[1] ^= 0xFF;
	assert_int_equal(file->write_at(file, 12, packed, 2), 0);
	ret = read_table(file, cmp, 8196, index_start);
	assert_true(ret < 0);
	sqfs_file_destroy(file);

	sqfs_compressor_destroy(big);
	sqfs_compressor_destroy(cmp);
	free(zeros);
}

/*
 * A table that declares blocks 3-byte blocks (a header and one byte each,
 * raw) and an index that passes every check on its own: the blocks lie back
 * to back from 10 on and the last one ends at the index. The first full
 * blocks are real 8192-byte blocks. *index_start receives the index
 * position.
 */
static sqfs_file_t *short_blocks_table(size_t blocks, size_t full,
				       uint64_t *index_start)
{
	sqfs_file_t *file = test_memory_file_filled(10, 0xC3);
	uint8_t *payload = calloc(1, SQFS_META_BLOCK_SIZE);
	uint64_t pos = 10;
	size_t i;

	assert_non_null(payload);
	for (i = 0; i < blocks; ++i) {
		if (i < full) {
			test_file_append_block(file,
					       0x8000 | SQFS_META_BLOCK_SIZE,
					       payload, SQFS_META_BLOCK_SIZE);
		} else {
			test_file_append_block(file, 0x8001, "x", 1);
		}
	}
	*index_start = file->get_size(file);
	for (i = 0; i < blocks; ++i) {
		append_le64(file, pos);
		pos += i < full ? 2 + SQFS_META_BLOCK_SIZE : 3;
	}
	assert_int_equal(pos, *index_start);
	free(payload);
	return file;
}

#define HUGE_BLOCKS 65536u
/* Less than the declared 512 MiB, more than anything the image holds. */
#define ALLOC_LIMIT (16u * 1024 * 1024)

/*
 * A table of 512 MiB declared by 704 KiB of image, whose first block is
 * already short: the read must fail as corrupt, having asked for no more
 * than the index (which the file really holds), not for the declared size.
 */
/* Read the huge table with good_blocks real blocks first, watching the
 * allocations. */
static int read_huge_table(uint32_t good_blocks)
{
	uint64_t index_start;
	sqfs_file_t *file =
	    short_blocks_table(HUGE_BLOCKS, good_blocks, &index_start);
	int ret;

	alloc_watch_start(ALLOC_LIMIT);
	ret = read_table(file, NULL, (size_t)HUGE_BLOCKS * SQFS_META_BLOCK_SIZE,
			 index_start);
	alloc_watch_stop();
	sqfs_file_destroy(file);
	return ret;
}

static void test_huge_declared_size(void **state)
{
	(void)state;
	assert_int_equal(read_huge_table(0), SQFS_ERROR_CORRUPTED);
	/* the largest request was the index */
	assert_int_equal(alloc_max, HUGE_BLOCKS * sizeof(uint64_t));
}

/*
 * The same table with 100 real blocks before the short ones: the buffer
 * grows with the blocks decoded, to at most twice what they hold.
 */
static void test_growth_follows_data(void **state)
{
	(void)state;
	assert_int_equal(read_huge_table(100), SQFS_ERROR_CORRUPTED);
	assert_true(alloc_max >= HUGE_BLOCKS * sizeof(uint64_t));
	assert_true(alloc_max <= 2 * 100 * SQFS_META_BLOCK_SIZE);
}

/* Valid tables read the same under a tight limit, and a limit too tight
 * for the table gives SQFS_ERROR_ALLOC (the growing buffer is freed). */
static void test_alloc_limit(void **state)
{
	uint8_t *data = make_entries(100000, 8);
	sqfs_file_t *file = test_memory_file_filled(PREFIX, 0xC3);
	uint64_t index_start = 0;
	void *out = NULL;
	int ret;

	(void)state;
	assert_int_equal(
	    sqfs_table_write(file, NULL, data, 100000, &index_start), 0);

	alloc_watch_start(100000);
	ret = sqfs_table_read(file, NULL, 100000, index_start, PREFIX,
			      file->get_size(file), &out);
	alloc_watch_stop();
	assert_int_equal(ret, 0);
	assert_int_equal(alloc_max, 100000);
	assert_memory_equal(out, data, 100000);
	free(out);
	out = NULL;

	alloc_watch_start(99999);
	ret = sqfs_table_read(file, NULL, 100000, index_start, PREFIX,
			      file->get_size(file), &out);
	alloc_watch_stop();
	assert_int_equal(ret, SQFS_ERROR_ALLOC);
	assert_null(out);

	sqfs_file_destroy(file);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_raw),
	    cmocka_unit_test(test_roundtrip_compressed),
	    cmocka_unit_test(test_write_args),
	    cmocka_unit_test_setup_teardown(test_fixture_valid, setup_fixture,
					    teardown_fixture),
	    cmocka_unit_test_setup_teardown(test_bad_limits, setup_fixture,
					    teardown_fixture),
	    cmocka_unit_test_setup_teardown(test_size_mismatch, setup_fixture,
					    teardown_fixture),
	    cmocka_unit_test_setup_teardown(test_bad_index, setup_fixture,
					    teardown_fixture),
	    cmocka_unit_test_setup_teardown(test_index_start_garbage,
					    setup_fixture, teardown_fixture),
	    cmocka_unit_test(test_bad_blocks),
	    cmocka_unit_test(test_bad_compressed),
	    cmocka_unit_test(test_huge_declared_size),
	    cmocka_unit_test(test_growth_follows_data),
	    cmocka_unit_test(test_alloc_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

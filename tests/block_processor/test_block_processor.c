/* SPDX-License-Identifier: MIT */
/*
 * test_block_processor.c - cutting files into blocks and fragments, sparse
 * blocks and holes, and the per-file and per-processor options; every file
 * is decoded back from the output and compared with its input.
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

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSIZES 6

static void sizes_for(uint32_t bs, size_t sizes[NSIZES])
{
	sizes[0] = 0;
	sizes[1] = 1;
	sizes[2] = bs - 1;
	sizes[3] = bs;
	sizes[4] = bs + 1;
	sizes[5] = 3 * (size_t)bs + 777;
}

static void run_sizes(uint32_t bs, test_data_kind_t kind, bool gzip,
		      unsigned int flags)
{
	file_data_t fd[NSIZES];
	uint8_t *data[NSIZES];
	size_t sizes[NSIZES], i, j;
	uint64_t total = 0, stored = 0, sparse = 0;
	block_stats_t st;
	bp_ctx_t c;

	sizes_for(bs, sizes);
	bp_ctx_open(&c, bs, gzip ? BP_TEST_GZIP : 0, NULL);
	for (i = 0; i < NSIZES; ++i) {
		/* odd seeds: text made with 2k and 2k+1 is the same */
		data[i] =
		    test_make_data(sizes[i] + 1, kind, (uint32_t)(2 * i + 1));
		bp_ctx_add(&c, &fd[i], data[i], sizes[i], flags);
		total += sizes[i];
	}
	bp_ctx_finish(&c);

	for (i = 0; i < NSIZES; ++i) {
		bp_check_file(&c, &fd[i], data[i], sizes[i]);
		for (j = 0; j < fd[i].block_count; ++j) {
			uint32_t w = fd[i].block_sizes[j];

			stored += w != 0;
			sparse += w == 0;
			if (flags & BP_FILE_DONT_COMPRESS)
				assert_true(w & SQFS_SIZE_WORD_RAW);
			if (kind == TEST_DATA_RANDOM)
				assert_true(
				    w ==
				    ((j < sizes[i] / bs ? bs : sizes[i] % bs) |
				     SQFS_SIZE_WORD_RAW));
			if (kind == TEST_DATA_TEXT && j < sizes[i] / bs &&
			    !(flags & BP_FILE_DONT_COMPRESS))
				assert_true(w > 0 && w < bs);
		}
	}

	/* size 0: nothing at all; below a block: a fragment only */
	assert_int_equal(fd[0].block_count, 0);
	assert_null(fd[0].block_sizes);
	assert_true(fd[0].fragment_index == SQFS_NO_FRAGMENT);
	assert_true(fd[0].blocks_start == 0);
	assert_true(fd[1].blocks_start == 0);
	assert_true(fd[1].fragment_index != SQFS_NO_FRAGMENT);
	assert_true(fd[2].fragment_index != SQFS_NO_FRAGMENT);
	/* a multiple of the block size never has a fragment */
	assert_true(fd[3].fragment_index == SQFS_NO_FRAGMENT);
	assert_int_equal(fd[3].block_count, 1);
	assert_int_equal(fd[5].block_count, 3);
	/* blocks of consecutive files follow each other */
	assert_true(fd[4].blocks_start > fd[3].blocks_start);
	assert_true(fd[5].blocks_start > fd[4].blocks_start);

	block_processor_get_stats(c.bp, &st);
	assert_true(st.bytes_in == total);
	assert_true(st.files == NSIZES);
	assert_true(st.data_blocks == stored);
	assert_true(st.sparse_blocks == sparse);
	assert_true(st.duplicate_blocks == 0);
	assert_true(st.duplicate_fragments == 0);
	assert_true(st.fragment_blocks == c.fcount);
	/* the tails 1, bs-1, 1 and 777 cannot share one block */
	assert_true(c.fcount >= 2);
	if (flags & BP_FILE_DONT_COMPRESS) {
		for (i = 0; i < c.fcount; ++i) {
			uint64_t start;
			uint32_t word;

			bp_fragment_entry(&c, (uint32_t)i, &start, &word);
			assert_true(word & SQFS_SIZE_WORD_RAW);
		}
	}

	for (i = 0; i < NSIZES; ++i) {
		file_data_cleanup(&fd[i]);
		assert_null(fd[i].block_sizes);
		free(data[i]);
	}
	bp_ctx_close(&c);
}

static void test_sizes_4k(void **state)
{
	(void)state;
	run_sizes(4096, TEST_DATA_TEXT, false, 0);
	run_sizes(4096, TEST_DATA_TEXT, true, 0);
	run_sizes(4096, TEST_DATA_RANDOM, false, 0);
	run_sizes(4096, TEST_DATA_BINARY, true, 0);
}

static void test_sizes_128k(void **state)
{
	(void)state;
	run_sizes(131072, TEST_DATA_TEXT, false, 0);
	run_sizes(131072, TEST_DATA_TEXT, true, 0);
	run_sizes(131072, TEST_DATA_RANDOM, false, 0);
}

static void test_dont_compress(void **state)
{
	(void)state;
	run_sizes(4096, TEST_DATA_TEXT, false, BP_FILE_DONT_COMPRESS);
	run_sizes(131072, TEST_DATA_TEXT, true, BP_FILE_DONT_COMPRESS);
}

static void test_1mib(void **state)
{
	const uint32_t bs = 1048576;
	const size_t size = 2 * (size_t)bs + 300000;
	file_data_t fd, fd2;
	uint8_t *data, *small;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(size, TEST_DATA_TEXT, 99);
	small = test_make_data(5000, TEST_DATA_RANDOM, 98);
	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &fd, data, size, 0);
	bp_ctx_add(&c, &fd2, small, 5000, 0);
	bp_ctx_finish(&c);
	bp_check_file(&c, &fd, data, size);
	bp_check_file(&c, &fd2, small, 5000);
	assert_int_equal(fd.block_count, 2);
	/* both tails share the one fragment block */
	assert_int_equal(c.fcount, 1);
	assert_int_equal(fd.fragment_index, 0);
	assert_int_equal(fd2.fragment_index, 0);
	assert_int_equal(fd.fragment_offset, 0);
	assert_int_equal(fd2.fragment_offset, 300000);
	file_data_cleanup(&fd);
	file_data_cleanup(&fd2);
	bp_ctx_close(&c);
	free(data);
	free(small);
}

/* Pack data as a file made of the pieces in ops: positive numbers are
 * that many bytes of data, negative ones a hole of that many bytes. */
static void add_with_holes(bp_ctx_t *c, file_data_t *fd, const uint8_t *data,
			   const long *ops, size_t nops, unsigned int flags)
{
	size_t off = 0, i;

	assert_int_equal(block_processor_begin(c->bp, fd, flags), 0);
	for (i = 0; i < nops; ++i) {
		if (ops[i] >= 0) {
			assert_int_equal(block_processor_append(
					     c->bp, data + off, (size_t)ops[i]),
					 0);
			off += (size_t)ops[i];
		} else {
			assert_int_equal(block_processor_append_hole(
					     c->bp, (uint64_t)-ops[i]),
					 0);
			off += (size_t)-ops[i];
		}
	}
	assert_int_equal(block_processor_end(c->bp), 0);
	assert_true(fd->size == off);
}

/* The bytes the pieces stand for: data where given, zeros in holes. */
static uint8_t *expand(const uint8_t *data, const long *ops, size_t nops,
		       size_t *size)
{
	size_t total = 0, off = 0, i;
	uint8_t *out;

	for (i = 0; i < nops; ++i)
		total += (size_t)(ops[i] >= 0 ? ops[i] : -ops[i]);
	out = calloc(1, total + 1);
	assert_non_null(out);
	for (i = 0; i < nops; ++i) {
		size_t n = (size_t)(ops[i] >= 0 ? ops[i] : -ops[i]);

		if (ops[i] >= 0)
			memcpy(out + off, data + off, n);
		off += n;
	}
	*size = total;
	return out;
}

static void test_holes(void **state)
{
	const uint32_t bs = 4096;
	/* data, hole within a block, hole over a block boundary and whole
	 * blocks, data, explicit zero data, a trailing partial hole */
	static const long ops_a[] = {100,   -50, 5000, -(3 * 4096 + 100),
				     4096,  -10, 2000, -4096,
				     -4096, 300, -20};
	/* starts with whole-block holes; ends with a full hole block */
	static const long ops_b[] = {-8192, 4096, -2048, 2048, -4096};
	/* a hole only, ending short: everything sparse, no fragment */
	static const long ops_c[] = {-(2 * 4096 + 123)};
	/* the last is b again without sparse blocks: the hole blocks are
	 * stored as data */
	static const struct {
		const long *ops;
		size_t n;
		unsigned int flags;
	} files[] = {
	    {ops_a, sizeof(ops_a) / sizeof(ops_a[0]), 0},
	    {ops_b, sizeof(ops_b) / sizeof(ops_b[0]), 0},
	    {ops_c, sizeof(ops_c) / sizeof(ops_c[0]), 0},
	    {ops_b, sizeof(ops_b) / sizeof(ops_b[0]), BP_FILE_NO_SPARSE},
	};
	file_data_t fd[4];
	uint8_t *data, *expect[4];
	size_t size[4], i, j;
	block_stats_t st;
	uint64_t sparse_blocks = 0;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(64 * 1024, TEST_DATA_TEXT, 5);
	bp_ctx_open(&c, bs, 0, NULL);
	for (i = 0; i < 4; ++i) {
		add_with_holes(&c, &fd[i], data, files[i].ops, files[i].n,
			       files[i].flags);
		expect[i] = expand(data, files[i].ops, files[i].n, &size[i]);
	}
	bp_ctx_finish(&c);

	for (i = 0; i < 4; ++i) {
		bp_check_file(&c, &fd[i], expect[i], size[i]);
		if (files[i].flags & BP_FILE_NO_SPARSE)
			continue;
		for (j = 0; j < fd[i].block_count; ++j) {
			sparse_blocks += fd[i].block_sizes[j] == 0;
			/* every all-zero block must be sparse */
			if (j * bs < size[i] &&
			    bp_is_zero(expect[i] + j * bs,
				       size[i] - j * bs < bs ? size[i] - j * bs
							     : bs))
				assert_int_equal(fd[i].block_sizes[j], 0);
		}
	}
	/* file a: the 4096 data bytes after the big hole start mid-block;
	 * the two whole hole blocks near the end are sparse */
	assert_true(fd[0].sparse_bytes >= 2 * 4096);
	/* file b: two sparse blocks, data, half hole and half data, then a
	 * last full hole block */
	assert_int_equal(fd[1].block_count, 5);
	assert_int_equal(fd[1].block_sizes[0], 0);
	assert_int_equal(fd[1].block_sizes[1], 0);
	assert_true(fd[1].block_sizes[2] != 0);
	assert_true(fd[1].block_sizes[3] != 0);
	assert_int_equal(fd[1].block_sizes[4], 0);
	assert_true(fd[1].fragment_index == SQFS_NO_FRAGMENT);
	/* file c: three sparse blocks (the last short), no data at all */
	assert_int_equal(fd[2].block_count, 3);
	assert_true(fd[2].fragment_index == SQFS_NO_FRAGMENT);
	assert_true(fd[2].blocks_start == 0);
	assert_true(fd[2].sparse_bytes == size[2]);
	/* file b without sparse blocks */
	assert_int_equal(fd[3].block_count, 5);
	for (j = 0; j < 5; ++j)
		assert_true(fd[3].block_sizes[j] != 0);
	assert_true(fd[3].sparse_bytes == 0);
	assert_true(fd[3].blocks_start > fd[1].blocks_start);

	block_processor_get_stats(c.bp, &st);
	assert_true(st.sparse_blocks == sparse_blocks);
	assert_true(st.bytes_in == size[0] + size[1] + size[2] + size[3]);

	for (i = 0; i < 4; ++i) {
		file_data_cleanup(&fd[i]);
		free(expect[i]);
	}
	free(data);
	bp_ctx_close(&c);
}

static void test_huge_hole(void **state)
{
	const uint32_t bs = 131072;
	const uint64_t hole = 5ull << 30;
	file_data_t fd, fd2;
	block_stats_t st;
	uint64_t before;
	clock_t t0 = clock();
	uint32_t i;
	bp_ctx_t c;

	(void)state;
	bp_ctx_open(&c, bs, 0, NULL);
	before = bp_ctx_size(&c);

	assert_int_equal(block_processor_begin(c.bp, &fd, 0), 0);
	assert_int_equal(block_processor_append_hole(c.bp, hole), 0);
	assert_int_equal(block_processor_end(c.bp), 0);
	assert_true(bp_ctx_size(&c) == before);

	/* the same hole, then 10 bytes of data: a fragment */
	assert_int_equal(block_processor_begin(c.bp, &fd2, 0), 0);
	assert_int_equal(block_processor_append(c.bp, "x", 1), 0);
	assert_int_equal(block_processor_append_hole(c.bp, hole), 0);
	assert_int_equal(block_processor_append(c.bp, "0123456789", 10), 0);
	assert_int_equal(block_processor_end(c.bp), 0);
	bp_ctx_finish(&c);

	assert_true(fd.size == hole);
	assert_int_equal(fd.block_count, hole / bs);
	assert_true(fd.sparse_bytes == hole);
	assert_true(fd.blocks_start == 0);
	assert_true(fd.fragment_index == SQFS_NO_FRAGMENT);
	for (i = 0; i < fd.block_count; ++i)
		assert_int_equal(fd.block_sizes[i], 0);

	/* "x" and zeros: the first block is stored, the rest sparse */
	assert_true(fd2.size == hole + 11);
	assert_int_equal(fd2.block_count, hole / bs);
	assert_true(fd2.block_sizes[0] != 0);
	for (i = 1; i < fd2.block_count; ++i)
		assert_int_equal(fd2.block_sizes[i], 0);
	assert_true(fd2.fragment_index != SQFS_NO_FRAGMENT);
	assert_true(fd2.sparse_bytes == hole - bs);

	block_processor_get_stats(c.bp, &st);
	assert_true(st.bytes_in == 2 * hole + 11);
	assert_true(st.sparse_blocks == 2 * (hole / bs) - 1);
	assert_true(st.data_blocks == 1);
	/* tiny output: one compressed block of zeros and a fragment block */
	assert_true(st.bytes_written < 2048);
	/* and fast, even under sanitizers */
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);

	file_data_cleanup(&fd);
	file_data_cleanup(&fd2);
	bp_ctx_close(&c);
}

static void test_zero_tail(void **state)
{
	const uint32_t bs = 4096;
	file_data_t fd[4];
	uint8_t *data, *zeros;
	bp_ctx_t c;
	size_t i;

	(void)state;
	data = test_make_data(bs + 100, TEST_DATA_TEXT, 1);
	memset(data + bs, 0, 100);
	zeros = calloc(1, bs + 100);
	assert_non_null(zeros);

	bp_ctx_open(&c, bs, 0, NULL);
	/* a data block and a zero tail: a sparse short last block */
	bp_ctx_add(&c, &fd[0], data, bs + 100, 0);
	/* a small zero file: one sparse block, no fragment, no data */
	bp_ctx_add(&c, &fd[1], zeros, 100, 0);
	/* without sparse blocks the same two files store their zeros */
	bp_ctx_add(&c, &fd[2], data, bs + 100, BP_FILE_NO_SPARSE);
	bp_ctx_add(&c, &fd[3], zeros, bs + 100, BP_FILE_NO_SPARSE);
	bp_ctx_finish(&c);

	bp_check_file(&c, &fd[0], data, bs + 100);
	bp_check_file(&c, &fd[1], zeros, 100);
	bp_check_file(&c, &fd[2], data, bs + 100);
	bp_check_file(&c, &fd[3], zeros, bs + 100);

	assert_int_equal(fd[0].block_count, 2);
	assert_int_equal(fd[0].block_sizes[1], 0);
	assert_true(fd[0].fragment_index == SQFS_NO_FRAGMENT);
	assert_true(fd[0].sparse_bytes == 100);
	assert_int_equal(fd[1].block_count, 1);
	assert_int_equal(fd[1].block_sizes[0], 0);
	assert_true(fd[1].fragment_index == SQFS_NO_FRAGMENT);
	assert_true(fd[1].blocks_start == 0);

	assert_true(fd[2].fragment_index != SQFS_NO_FRAGMENT);
	assert_true(fd[2].sparse_bytes == 0);
	assert_true(fd[3].block_sizes[0] != 0);
	assert_true(fd[3].fragment_index != SQFS_NO_FRAGMENT);
	assert_true(fd[3].sparse_bytes == 0);

	for (i = 0; i < 4; ++i)
		file_data_cleanup(&fd[i]);
	bp_ctx_close(&c);
	free(data);
	free(zeros);
}

/* Files of 1000 bytes and of 2 blocks + 1000 under the given options and
 * flags; returns whether each got a fragment. */
static void tail_policy(unsigned int opts, unsigned int flags, bool *small,
			bool *big)
{
	const uint32_t bs = 4096;
	file_data_t a, b;
	uint8_t *data;
	bp_ctx_t c;

	data = test_make_data(2 * bs + 1000, TEST_DATA_TEXT, 7);
	bp_ctx_open(&c, bs, opts, NULL);
	bp_ctx_add(&c, &a, data + 2 * bs, 1000, flags);
	bp_ctx_add(&c, &b, data, 2 * bs + 1000, flags);
	bp_ctx_finish(&c);
	bp_check_file(&c, &a, data + 2 * bs, 1000);
	bp_check_file(&c, &b, data, 2 * bs + 1000);

	*small = a.fragment_index != SQFS_NO_FRAGMENT;
	*big = b.fragment_index != SQFS_NO_FRAGMENT;
	if (!*small && !*big) {
		assert_int_equal(c.fcount, 0);
		assert_int_equal(c.super.fragment_entry_count, 0);
	}
	if (!*big) {
		assert_int_equal(b.block_count, 3);
		assert_true((b.block_sizes[2] & SQFS_SIZE_WORD_LENGTH) <= 1000);
	}

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	bp_ctx_close(&c);
	free(data);
}

static void test_tail_options(void **state)
{
	bool small, big;

	(void)state;
	tail_policy(0, 0, &small, &big);
	assert_true(small && big);
	tail_policy(BP_TEST_NO_TAIL_PACKING, 0, &small, &big);
	assert_true(small && !big);
	tail_policy(BP_TEST_NO_FRAGMENTS, 0, &small, &big);
	assert_true(!small && !big);
	tail_policy(0, BP_FILE_DONT_FRAGMENT, &small, &big);
	assert_true(!small && !big);
}

static void test_align(void **state)
{
	const uint32_t bs = 4096;
	file_data_t a, b, d, e;
	const uint8_t *mem;
	uint64_t before;
	uint8_t *data;
	size_t size, i;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(4 * bs, TEST_DATA_TEXT, 3);
	bp_ctx_open(&c, bs, 0, NULL);

	/* a short last block leaves the output at an odd size */
	bp_ctx_add(&c, &a, data, bs + 10, BP_FILE_DONT_FRAGMENT);
	assert_true(bp_ctx_size(&c) % 4096 != 0);

	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &b, data + bs, 2 * bs, BP_FILE_ALIGN);
	assert_int_equal(b.blocks_start % 4096, 0);
	assert_true(b.blocks_start > before);
	mem = test_memory_file_data(c.file, &size);
	for (i = before; i < b.blocks_start; ++i)
		assert_int_equal(mem[i], 0);

	/* a duplicate of a's unaligned first block is not merged with it
	 * when the file must be aligned */
	bp_ctx_add(&c, &d, data, bs, BP_FILE_ALIGN);
	assert_int_equal(d.blocks_start % 4096, 0);
	assert_true(d.blocks_start != a.blocks_start);

	/* a duplicate of an aligned run: merged, padding cut off too */
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &e, data + bs, 2 * bs, BP_FILE_ALIGN);
	assert_true(e.blocks_start == b.blocks_start);
	assert_true(bp_ctx_size(&c) == before);

	bp_ctx_finish(&c);
	bp_check_file(&c, &a, data, bs + 10);
	bp_check_file(&c, &b, data + bs, 2 * bs);
	bp_check_file(&c, &d, data, bs);
	bp_check_file(&c, &e, data + bs, 2 * bs);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	file_data_cleanup(&d);
	file_data_cleanup(&e);
	bp_ctx_close(&c);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sizes_4k),
	    cmocka_unit_test(test_sizes_128k),
	    cmocka_unit_test(test_dont_compress),
	    cmocka_unit_test(test_1mib),
	    cmocka_unit_test(test_holes),
	    cmocka_unit_test(test_huge_hole),
	    cmocka_unit_test(test_zero_tail),
	    cmocka_unit_test(test_tail_options),
	    cmocka_unit_test(test_align),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_bp_dedup.c - deduplication of whole files (runs of blocks) and of
 * fragments, including forced hash collisions that the byte comparison
 * must catch.
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

static uint64_t const_hash(const void *data, size_t size)
{
	(void)data;
	(void)size;
	return 42;
}

static block_stats_t stats(const bp_ctx_t *c)
{
	block_stats_t st;

	block_processor_get_stats(c->bp, &st);
	return st;
}

static void run_same_twice(uint32_t bs)
{
	const size_t size = 3 * (size_t)bs + 500;
	file_data_t a, b;
	block_stats_t st;
	uint64_t before;
	uint8_t *data;
	bp_ctx_t c;

	data = test_make_data(size, TEST_DATA_TEXT, 11);
	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &a, data, size, 0);
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &b, data, size, 0);
	assert_true(bp_ctx_size(&c) == before);

	assert_true(b.blocks_start == a.blocks_start);
	assert_int_equal(b.block_count, 3);
	assert_memory_equal(b.block_sizes, a.block_sizes, 3 * sizeof(uint32_t));
	assert_int_equal(b.fragment_index, a.fragment_index);
	assert_int_equal(b.fragment_offset, a.fragment_offset);

	st = stats(&c);
	assert_true(st.duplicate_blocks == 3);
	assert_true(st.duplicate_fragments == 1);
	assert_true(st.data_blocks == 3);

	bp_ctx_finish(&c);
	bp_check_file(&c, &a, data, size);
	bp_check_file(&c, &b, data, size);
	file_data_cleanup(&a);
	file_data_cleanup(&b);
	bp_ctx_close(&c);
	free(data);
}

static void test_same_file_twice(void **state)
{
	(void)state;
	run_same_twice(4096);
	run_same_twice(131072);
}

static void test_middle_of_earlier_file(void **state)
{
	const uint32_t bs = 4096;
	file_data_t a, m, d, e;
	uint8_t *data, *e_data;
	uint64_t before, off;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(6 * bs + 100, TEST_DATA_TEXT, 21);
	e_data = malloc(2 * bs);
	assert_non_null(e_data);
	memcpy(e_data, data + 5 * bs, bs);
	memcpy(e_data + bs, data, bs);

	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &a, data, 6 * bs, 0);

	/* blocks 2..4 of a */
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &m, data + 2 * bs, 3 * bs, 0);
	assert_true(bp_ctx_size(&c) == before);
	off = (a.block_sizes[0] & SQFS_SIZE_WORD_LENGTH) +
	      (a.block_sizes[1] & SQFS_SIZE_WORD_LENGTH);
	assert_true(m.blocks_start == a.blocks_start + off);

	/* block 1 of a plus a tail: the block is found, the tail packed */
	bp_ctx_add(&c, &d, data + bs, bs + 100, 0);
	assert_true(d.blocks_start == a.blocks_start + (a.block_sizes[0] &
							SQFS_SIZE_WORD_LENGTH));
	assert_true(d.fragment_index != SQFS_NO_FRAGMENT);

	/* blocks 5 and 0 of a exist, but not back to back */
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &e, e_data, 2 * bs, 0);
	assert_true(e.blocks_start == before);
	assert_true(bp_ctx_size(&c) > before);

	assert_true(stats(&c).duplicate_blocks == 4);
	bp_ctx_finish(&c);
	bp_check_file(&c, &a, data, 6 * bs);
	bp_check_file(&c, &m, data + 2 * bs, 3 * bs);
	bp_check_file(&c, &d, data + bs, bs + 100);
	bp_check_file(&c, &e, e_data, 2 * bs);

	file_data_cleanup(&a);
	file_data_cleanup(&m);
	file_data_cleanup(&d);
	file_data_cleanup(&e);
	bp_ctx_close(&c);
	free(data);
	free(e_data);
}

static void test_one_byte_differs(void **state)
{
	const uint32_t bs = 4096;
	const size_t size = 3 * (size_t)bs;
	file_data_t a, b, s1, s2;
	uint8_t *data, *other;
	uint64_t before;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(size, TEST_DATA_TEXT, 31);
	other = malloc(size);
	assert_non_null(other);
	memcpy(other, data, size);
	other[size - 1] ^= 0x01;

	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &a, data, size, 0);
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &b, other, size, 0);
	assert_true(b.blocks_start == before);
	assert_true(bp_ctx_size(&c) > before);

	/* the same with a short last block */
	bp_ctx_add(&c, &s1, data, size - 50, BP_FILE_DONT_FRAGMENT);
	before = bp_ctx_size(&c);
	memcpy(other, data, size);
	other[size - 51] ^= 0x80;
	bp_ctx_add(&c, &s2, other, size - 50, BP_FILE_DONT_FRAGMENT);
	assert_true(s2.blocks_start == before);
	assert_true(stats(&c).duplicate_blocks == 0);

	bp_ctx_finish(&c);
	bp_check_file(&c, &a, data, size);
	bp_check_file(&c, &s2, other, size - 50);
	other[size - 51] ^= 0x80;
	other[size - 1] ^= 0x01;
	bp_check_file(&c, &b, other, size);
	bp_check_file(&c, &s1, data, size - 50);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	file_data_cleanup(&s1);
	file_data_cleanup(&s2);
	bp_ctx_close(&c);
	free(data);
	free(other);
}

/* All hashes equal: runs of random (raw) blocks have equal size words and
 * hashes, so only the byte comparison tells them apart. */
static void test_block_hash_collision(void **state)
{
	const uint32_t bs = 4096;
	file_data_t a, b, a2, b2;
	uint8_t *x, *y;
	uint64_t before;
	bp_ctx_t c;

	(void)state;
	x = test_make_data(2 * bs, TEST_DATA_RANDOM, 41);
	y = test_make_data(2 * bs, TEST_DATA_RANDOM, 42);

	bp_ctx_open(&c, bs, 0, NULL);
	block_processor_set_hash_fn(c.bp, const_hash);
	bp_ctx_add(&c, &a, x, 2 * bs, 0);
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &b, y, 2 * bs, 0);
	assert_memory_equal(a.block_sizes, b.block_sizes, 8);
	assert_true(b.blocks_start == before);
	assert_true(stats(&c).duplicate_blocks == 0);

	/* real duplicates are still found among the look-alikes */
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &a2, x, 2 * bs, 0);
	bp_ctx_add(&c, &b2, y, 2 * bs, 0);
	assert_true(bp_ctx_size(&c) == before);
	assert_true(a2.blocks_start == a.blocks_start);
	assert_true(b2.blocks_start == b.blocks_start);
	assert_true(stats(&c).duplicate_blocks == 4);

	bp_ctx_finish(&c);
	bp_check_file(&c, &a, x, 2 * bs);
	bp_check_file(&c, &b, y, 2 * bs);
	bp_check_file(&c, &a2, x, 2 * bs);
	bp_check_file(&c, &b2, y, 2 * bs);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	file_data_cleanup(&a2);
	file_data_cleanup(&b2);
	bp_ctx_close(&c);
	free(x);
	free(y);
}

static void test_fragment_hash_collision(void **state)
{
	const uint32_t bs = 4096;
	file_data_t fx, fy, fx2, fz, fp, fq, fp2;
	uint8_t *x, *y, *z, *p, *q;
	bp_ctx_t c;

	(void)state;
	x = test_make_data(3000, TEST_DATA_RANDOM, 51);
	y = test_make_data(3000, TEST_DATA_TEXT, 52);
	z = test_make_data(3000, TEST_DATA_RANDOM, 53);
	p = test_make_data(100, TEST_DATA_TEXT, 54);
	q = test_make_data(100, TEST_DATA_RANDOM, 55);

	bp_ctx_open(&c, bs, 0, NULL);
	block_processor_set_hash_fn(c.bp, const_hash);
	bp_ctx_add(&c, &fx, x, 3000, 0);
	/* y does not fit next to x: x's block is written */
	bp_ctx_add(&c, &fy, y, 3000, 0);
	assert_int_equal(fy.fragment_index, 1);
	/* x again: compared with y (open block) and x (read back) */
	bp_ctx_add(&c, &fx2, x, 3000, 0);
	assert_int_equal(fx2.fragment_index, fx.fragment_index);
	assert_int_equal(fx2.fragment_offset, fx.fragment_offset);
	/* z: same size and hash as x and y, different bytes */
	bp_ctx_add(&c, &fz, z, 3000, 0);
	assert_int_equal(fz.fragment_index, 2);

	/* small ones compared inside the open block */
	bp_ctx_add(&c, &fp, p, 100, 0);
	bp_ctx_add(&c, &fq, q, 100, 0);
	bp_ctx_add(&c, &fp2, p, 100, 0);
	assert_int_equal(fp.fragment_index, 2);
	assert_int_equal(fq.fragment_index, 2);
	assert_true(fq.fragment_offset != fp.fragment_offset);
	assert_int_equal(fp2.fragment_index, fp.fragment_index);
	assert_int_equal(fp2.fragment_offset, fp.fragment_offset);
	assert_true(stats(&c).duplicate_fragments == 2);

	bp_ctx_finish(&c);
	assert_int_equal(c.fcount, 3);
	bp_check_file(&c, &fx, x, 3000);
	bp_check_file(&c, &fy, y, 3000);
	bp_check_file(&c, &fx2, x, 3000);
	bp_check_file(&c, &fz, z, 3000);
	bp_check_file(&c, &fp, p, 100);
	bp_check_file(&c, &fq, q, 100);
	bp_check_file(&c, &fp2, p, 100);

	bp_ctx_close(&c);
	free(x);
	free(y);
	free(z);
	free(p);
	free(q);
}

/*
 * Tails of up to 8 bytes are keyed by their bytes, not the hash function:
 * with every hash equal, 100 tiny tails of each length 1-8 (more than the
 * 64 candidates a hash lookup compares) still dedup exactly: equal bytes
 * share a fragment, different bytes never do, whether the first copy is
 * in the open block or in one written long before.
 */
static void test_tiny_tails_exact(void **state)
{
	const uint32_t bs = 4096;
	enum { PER_SIZE = 100, N = 8 * PER_SIZE };
	file_data_t *first, *again;
	uint8_t bytes[N][8];
	size_t i, j;
	bp_ctx_t c;

	(void)state;
	first = calloc(N, sizeof(first[0]));
	again = calloc(N, sizeof(again[0]));
	assert_non_null(first);
	assert_non_null(again);
	/* odd first bytes: never all zero (that would be a sparse file) */
	for (i = 0; i < N; ++i) {
		for (j = 0; j < 8; ++j)
			bytes[i][j] = (uint8_t)(i / 8 * 2 + 1 + j * 13);
	}
	bp_ctx_open(&c, bs, 0, NULL);
	block_processor_set_hash_fn(c.bp, const_hash);
	for (i = 0; i < N; ++i)
		bp_ctx_add(&c, &first[i], bytes[i], i % 8 + 1, 0);
	assert_int_equal(stats(&c).duplicate_fragments, 0);
	/* filler: the blocks of the first copies are all written */
	for (i = 0; i < 3; ++i) {
		file_data_t fill;
		uint8_t *f = test_make_data(3000, TEST_DATA_RANDOM, 60 + i);

		bp_ctx_add(&c, &fill, f, 3000, 0);
		file_data_cleanup(&fill);
		free(f);
	}
	for (i = N; i-- > 0;)
		bp_ctx_add(&c, &again[i], bytes[i], i % 8 + 1, 0);
	assert_int_equal(stats(&c).duplicate_fragments, N);
	for (i = 0; i < N; ++i) {
		assert_int_equal(again[i].fragment_index,
				 first[i].fragment_index);
		assert_int_equal(again[i].fragment_offset,
				 first[i].fragment_offset);
	}
	bp_ctx_finish(&c);
	for (i = 0; i < N; ++i) {
		bp_check_file(&c, &first[i], bytes[i], i % 8 + 1);
		bp_check_file(&c, &again[i], bytes[i], i % 8 + 1);
		file_data_cleanup(&first[i]);
		file_data_cleanup(&again[i]);
	}
	bp_ctx_close(&c);
	free(first);
	free(again);
}

static void test_fragment_dedup(void **state)
{
	const uint32_t bs = 4096;
	static const size_t sizes[5] = {900, 1, 1500, 901, 2000};
	file_data_t fd[60];
	uint8_t *tails[5];
	size_t i;
	bp_ctx_t c;

	(void)state;
	for (i = 0; i < 5; ++i)
		tails[i] = test_make_data(
		    sizes[i], i % 2 ? TEST_DATA_RANDOM : TEST_DATA_TEXT,
		    (uint32_t)(60 + i));

	bp_ctx_open(&c, bs, BP_TEST_GZIP, NULL);
	for (i = 0; i < 60; ++i) {
		/* new tails until 30, then only repeats, in a shuffled order
		 * so that read-backs of older blocks happen */
		size_t k = i < 30 ? i % 5 : (i * 7 + 3) % 5;

		if (i >= 5 && i < 30) {
			/* variants: one byte changed, never merged */
			uint8_t *v = malloc(sizes[k]);

			assert_non_null(v);
			memcpy(v, tails[k], sizes[k]);
			v[sizes[k] / 2] ^= (uint8_t)i;
			bp_ctx_add(&c, &fd[i], v, sizes[k], 0);
			free(v);
			continue;
		}
		bp_ctx_add(&c, &fd[i], tails[k], sizes[k], 0);
		if (i >= 30) {
			assert_int_equal(fd[i].fragment_index,
					 fd[k].fragment_index);
			assert_int_equal(fd[i].fragment_offset,
					 fd[k].fragment_offset);
		}
	}
	assert_true(stats(&c).duplicate_fragments == 30);
	bp_ctx_finish(&c);
	assert_true(c.fcount > 5);
	for (i = 0; i < 60; ++i) {
		size_t k = i < 30 ? i % 5 : (i * 7 + 3) % 5;

		if (i < 5 || i >= 30)
			bp_check_file(&c, &fd[i], tails[k], sizes[k]);
		file_data_cleanup(&fd[i]);
	}
	for (i = 0; i < 5; ++i)
		free(tails[i]);
	bp_ctx_close(&c);
}

/*
 * More written fragment blocks than the packer keeps decoded: duplicates
 * of tails in every block, asked for in an order that evicts blocks and
 * decodes them again, and variants one byte apart that must never merge
 * with a cached copy.
 */
static void run_cache_eviction(uint32_t bs, size_t size)
{
	enum { DISTINCT = 3 * BP_FRAG_CACHE_SLOTS, ROUNDS = 3 };
	static file_data_t orig[DISTINCT], dup[ROUNDS][DISTINCT];
	static file_data_t var[DISTINCT];
	uint8_t *tails[DISTINCT];
	bp_ctx_t c;

	for (size_t i = 0; i < DISTINCT; ++i)
		tails[i] =
		    test_make_data(size, TEST_DATA_TEXT, (uint32_t)(1000 + i));

	bp_ctx_open(&c, bs, BP_TEST_GZIP, NULL);
	for (size_t i = 0; i < DISTINCT; ++i)
		bp_ctx_add(&c, &orig[i], tails[i], size, 0);

	for (size_t r = 0; r < ROUNDS; ++r) {
		for (size_t n = 0; n < DISTINCT; ++n) {
			/* a stride coprime with DISTINCT visits every tail */
			size_t i = (n * 37 + r * 11) % DISTINCT;

			bp_ctx_add(&c, &dup[r][i], tails[i], size, 0);
			assert_int_equal(dup[r][i].fragment_index,
					 orig[i].fragment_index);
			assert_int_equal(dup[r][i].fragment_offset,
					 orig[i].fragment_offset);
		}
	}
	for (size_t i = 0; i < DISTINCT; ++i) {
		uint8_t *v = malloc(size);

		assert_non_null(v);
		memcpy(v, tails[i], size);
		v[size - 1 - i % 100] ^= 0x5A;
		bp_ctx_add(&c, &var[i], v, size, 0);
		assert_true(var[i].fragment_index != orig[i].fragment_index);
		free(v);
	}
	assert_true(stats(&c).duplicate_fragments ==
		    (uint64_t)ROUNDS * DISTINCT);

	bp_ctx_finish(&c);
	for (size_t i = 0; i < DISTINCT; ++i) {
		bp_check_file(&c, &orig[i], tails[i], size);
		for (size_t r = 0; r < ROUNDS; ++r) {
			bp_check_file(&c, &dup[r][i], tails[i], size);
			file_data_cleanup(&dup[r][i]);
		}
		file_data_cleanup(&orig[i]);
		file_data_cleanup(&var[i]);
		free(tails[i]);
	}
	bp_ctx_close(&c);
}

static void test_fragment_cache_eviction(void **state)
{
	(void)state;
	/* one tail per fragment block: compared in the tail store */
	run_cache_eviction(4096, 3000);
	/* tails too large for the store: compared in fragment blocks read
	 * back and decoded, more of them than the cache holds */
	run_cache_eviction(8192, BP_STORED_TAIL_MAX + 2000);
}

/*
 * b's block duplicates a's, and b's tail overflows the open fragment block.
 * The fragment block must be written after b's duplicate was cut off, or
 * the cut would take the fragment block with it.
 */
static void test_dedup_then_fragment_flush(void **state)
{
	const uint32_t bs = 4096;
	file_data_t a, b;
	uint8_t *da, *db;
	bp_ctx_t c;

	(void)state;
	da = test_make_data(bs + 3000, TEST_DATA_TEXT, 71);
	db = test_make_data(bs + 3000, TEST_DATA_TEXT, 72);
	memcpy(db, da, bs);

	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &a, da, bs + 3000, 0);
	bp_ctx_add(&c, &b, db, bs + 3000, 0);
	assert_true(b.blocks_start == a.blocks_start);
	assert_int_equal(a.fragment_index, 0);
	assert_int_equal(b.fragment_index, 1);
	assert_true(stats(&c).fragment_blocks == 1);
	bp_ctx_finish(&c);
	bp_check_file(&c, &a, da, bs + 3000);
	bp_check_file(&c, &b, db, bs + 3000);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	bp_ctx_close(&c);
	free(da);
	free(db);
}

/* A fragment block written between two data blocks splits the run. */
static void test_run_split_by_fragment_block(void **state)
{
	const uint32_t bs = 4096;
	file_data_t a, b, z, yz, xy;
	uint8_t *data, *buf;
	bp_ctx_t c;

	(void)state;
	/* x = data[0, bs), tails, y = data[2bs, 3bs), z = data[4bs, 5bs) */
	data = test_make_data(5 * bs, TEST_DATA_TEXT, 81);
	buf = malloc(2 * bs);
	assert_non_null(buf);

	bp_ctx_open(&c, bs, 0, NULL);
	/* x, then a tail in fragment block 0 (open) */
	bp_ctx_add(&c, &a, data, bs + 3000, 0);
	/* y right after x; its tail flushes block 0 behind y */
	bp_ctx_add(&c, &b, data + 2 * bs, bs + 3000, 0);
	bp_ctx_add(&c, &z, data + 4 * bs, bs, 0);
	assert_true(b.blocks_start == a.blocks_start + (a.block_sizes[0] &
							SQFS_SIZE_WORD_LENGTH));

	memcpy(buf, data + 2 * bs, bs);
	memcpy(buf + bs, data + 4 * bs, bs);
	bp_ctx_add(&c, &yz, buf, 2 * bs, 0);
	assert_true(yz.blocks_start > z.blocks_start);

	memcpy(buf, data, bs);
	memcpy(buf + bs, data + 2 * bs, bs);
	bp_ctx_add(&c, &xy, buf, 2 * bs, 0);
	assert_true(xy.blocks_start == a.blocks_start);

	bp_ctx_finish(&c);
	bp_check_file(&c, &xy, buf, 2 * bs);
	memcpy(buf, data + 2 * bs, bs);
	memcpy(buf + bs, data + 4 * bs, bs);
	bp_check_file(&c, &yz, buf, 2 * bs);
	bp_check_file(&c, &a, data, bs + 3000);
	bp_check_file(&c, &b, data + 2 * bs, bs + 3000);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	file_data_cleanup(&z);
	file_data_cleanup(&yz);
	file_data_cleanup(&xy);
	bp_ctx_close(&c);
	free(data);
	free(buf);
}

/* Sparse blocks are in the inode, not in the run of stored blocks. */
static void test_sparse_inside_run(void **state)
{
	const uint32_t bs = 4096;
	file_data_t a, b, a2;
	uint8_t *holey, *dense;
	bp_ctx_t c;

	(void)state;
	holey = test_make_data(3 * bs, TEST_DATA_TEXT, 91);
	memset(holey + bs, 0, bs);
	dense = malloc(2 * bs);
	assert_non_null(dense);
	memcpy(dense, holey, bs);
	memcpy(dense + bs, holey + 2 * bs, bs);

	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &a, holey, 3 * bs, 0);
	bp_ctx_add(&c, &b, dense, 2 * bs, 0);
	bp_ctx_add(&c, &a2, holey, 3 * bs, 0);
	assert_true(b.blocks_start == a.blocks_start);
	assert_true(a2.blocks_start == a.blocks_start);
	assert_int_equal(a2.block_sizes[1], 0);
	assert_true(stats(&c).duplicate_blocks == 4);

	bp_ctx_finish(&c);
	bp_check_file(&c, &a, holey, 3 * bs);
	bp_check_file(&c, &b, dense, 2 * bs);
	bp_check_file(&c, &a2, holey, 3 * bs);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	file_data_cleanup(&a2);
	bp_ctx_close(&c);
	free(holey);
	free(dense);
}

static void test_dont_deduplicate(void **state)
{
	const uint32_t bs = 4096;
	const size_t size = 2 * (size_t)bs + 700;
	file_data_t a, b, d, e;
	uint64_t before;
	uint8_t *data;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(size, TEST_DATA_TEXT, 101);
	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &a, data, size, 0);

	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &b, data, size, BP_FILE_DONT_DEDUPLICATE);
	assert_true(b.blocks_start == before);
	assert_true(b.fragment_offset != a.fragment_offset);

	/* b was not recorded: d finds a */
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &d, data, size, 0);
	assert_true(d.blocks_start == a.blocks_start);
	assert_int_equal(d.fragment_offset, a.fragment_offset);
	assert_true(bp_ctx_size(&c) == before);

	/* and e, flagged, does not look */
	bp_ctx_add(&c, &e, data, size, BP_FILE_DONT_DEDUPLICATE);
	assert_true(e.blocks_start == before);
	assert_true(stats(&c).duplicate_blocks == 2);
	assert_true(stats(&c).duplicate_fragments == 1);

	bp_ctx_finish(&c);
	bp_check_file(&c, &a, data, size);
	bp_check_file(&c, &b, data, size);
	bp_check_file(&c, &d, data, size);
	bp_check_file(&c, &e, data, size);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	file_data_cleanup(&d);
	file_data_cleanup(&e);
	bp_ctx_close(&c);
	free(data);
}

/* Many files sharing a first block: the lookup still finds the one run
 * that matches, which is the most recent. */
static void test_shared_first_block(void **state)
{
	const uint32_t bs = 4096;
	file_data_t fd[40], again;
	uint8_t *data, *buf;
	uint64_t before;
	size_t i;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(41 * bs, TEST_DATA_TEXT, 111);
	buf = malloc(2 * bs);
	assert_non_null(buf);

	bp_ctx_open(&c, bs, 0, NULL);
	for (i = 0; i < 40; ++i) {
		memcpy(buf, data, bs);
		memcpy(buf + bs, data + (i + 1) * bs, bs);
		bp_ctx_add(&c, &fd[i], buf, 2 * bs, 0);
	}
	/* every file's pair of blocks differs, so none was merged */
	assert_true(stats(&c).duplicate_blocks == 0);

	memcpy(buf + bs, data + 1 * bs, bs);
	before = bp_ctx_size(&c);
	bp_ctx_add(&c, &again, buf, 2 * bs, 0);
	assert_true(again.blocks_start == fd[0].blocks_start);
	assert_true(bp_ctx_size(&c) == before);

	bp_ctx_finish(&c);
	bp_check_file(&c, &again, buf, 2 * bs);
	for (i = 0; i < 40; ++i)
		file_data_cleanup(&fd[i]);
	file_data_cleanup(&again);
	bp_ctx_close(&c);
	free(data);
	free(buf);
}

/*
 * a is one block p; b is p twice. The run "a's p, then b's own first p"
 * matches b, but it overlaps b's blocks, which the merge would cut off.
 */
static void test_no_overlap_with_self(void **state)
{
	const uint32_t bs = 4096;
	file_data_t a, b;
	uint8_t *data;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(2 * bs, TEST_DATA_RANDOM, 121);
	memcpy(data + bs, data, bs);

	bp_ctx_open(&c, bs, 0, NULL);
	bp_ctx_add(&c, &a, data, bs, 0);
	bp_ctx_add(&c, &b, data, 2 * bs, 0);
	assert_true(b.blocks_start == a.blocks_start + bs);
	assert_true(stats(&c).duplicate_blocks == 0);
	bp_ctx_finish(&c);
	bp_check_file(&c, &a, data, bs);
	bp_check_file(&c, &b, data, 2 * bs);

	file_data_cleanup(&a);
	file_data_cleanup(&b);
	bp_ctx_close(&c);
	free(data);
}

/* The dedup tests again with the index of tails spilling to sorted runs
 * after a handful of records: the same duplicates must be found. */
static void with_spilled_tails(void (*test)(void **), void **state)
{
	bp_test_tail_memory = 1024;
	test(state);
	bp_test_tail_memory = 0;
}

static void test_fragment_dedup_spilled(void **state)
{
	with_spilled_tails(test_fragment_dedup, state);
}

static void test_fragment_cache_eviction_spilled(void **state)
{
	with_spilled_tails(test_fragment_cache_eviction, state);
}

static void test_tiny_tails_exact_spilled(void **state)
{
	with_spilled_tails(test_tiny_tails_exact, state);
}

static void test_fragment_hash_collision_spilled(void **state)
{
	with_spilled_tails(test_fragment_hash_collision, state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_file_twice),
	    cmocka_unit_test(test_middle_of_earlier_file),
	    cmocka_unit_test(test_one_byte_differs),
	    cmocka_unit_test(test_block_hash_collision),
	    cmocka_unit_test(test_fragment_hash_collision),
	    cmocka_unit_test(test_fragment_dedup),
	    cmocka_unit_test(test_fragment_cache_eviction),
	    cmocka_unit_test(test_tiny_tails_exact),
	    cmocka_unit_test(test_dedup_then_fragment_flush),
	    cmocka_unit_test(test_run_split_by_fragment_block),
	    cmocka_unit_test(test_sparse_inside_run),
	    cmocka_unit_test(test_dont_deduplicate),
	    cmocka_unit_test(test_shared_first_block),
	    cmocka_unit_test(test_no_overlap_with_self),
	    cmocka_unit_test(test_fragment_dedup_spilled),
	    cmocka_unit_test(test_fragment_cache_eviction_spilled),
	    cmocka_unit_test(test_tiny_tails_exact_spilled),
	    cmocka_unit_test(test_fragment_hash_collision_spilled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

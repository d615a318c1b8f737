/* SPDX-License-Identifier: MIT */
/*
 * test_tail_index.c - the fragment packer's index of distinct tails: with
 * records spilled to sorted runs and merged, every lookup visits exactly
 * the records an all-in-memory index visits, in the same order (newest
 * first), so dedup decisions do not depend on the memory limit; and what
 * the index holds stays within its memory as the runs grow, their filters
 * folding to make room.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/block_processor/parts.h"

#include <stdlib.h>
#include <string.h>

#define COUNT 60000u

static bp_tail_t model[COUNT];

typedef struct {
	bp_tail_t seen[COUNT];
	size_t count;
	size_t stop_after;
} visits_t;

static int visit(void *user, const bp_tail_t *rec)
{
	visits_t *v = user;

	v->seen[v->count++] = *rec;
	return v->stop_after != 0 && v->count == v->stop_after;
}

static uint64_t next_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/* Records with few distinct (size, hash) pairs, so that keys repeat, and
 * some pairs that differ but share a key (bp_dedup_key). */
static void make_model(void)
{
	uint64_t seed = 42;

	for (uint32_t i = 0; i < COUNT; ++i) {
		bp_tail_t *r = &model[i];

		r->size = 1 + (uint32_t)(next_rand(&seed) % 50);
		r->hash = next_rand(&seed) % 900;
		if (i % 97 == 0) {
			/* another size with the key of size 7, hash 5 */
			r->hash = 5 ^ ((uint64_t)7 * 0x9e3779b97f4a7c15ull) ^
				  ((uint64_t)r->size * 0x9e3779b97f4a7c15ull);
		}
		r->block = i / 100;
		r->offset = i % 100;
	}
}

static void check_lookups(bp_tail_index_t *ti, size_t stop_after)
{
	static visits_t v;

	for (uint32_t size = 1; size <= 50; ++size) {
		for (uint64_t hash = 0; hash < 900; hash += 7) {
			size_t expect = 0;
			int ret;

			v.count = 0;
			v.stop_after = stop_after;
			ret = bp_tail_index_find(ti, hash, size, visit, &v);
			for (size_t i = COUNT; i-- > 0;) {
				if (model[i].size != size ||
				    model[i].hash != hash)
					continue;
				if (stop_after != 0 && expect == stop_after)
					break;
				assert_true(expect < v.count);
				assert_true(v.seen[expect].hash ==
					    model[i].hash);
				assert_int_equal(v.seen[expect].size,
						 model[i].size);
				assert_int_equal(v.seen[expect].block,
						 model[i].block);
				assert_int_equal(v.seen[expect].offset,
						 model[i].offset);
				expect += 1;
			}
			assert_int_equal(v.count, expect);
			assert_int_equal(ret, stop_after != 0 &&
						  expect == stop_after);
		}
	}
	/* the pairs made to share a key are told apart */
	v.count = 0;
	v.stop_after = 0;
	assert_int_equal(bp_tail_index_find(ti, 5, 7, visit, &v), 0);
	for (size_t i = 0; i < v.count; ++i) {
		assert_int_equal(v.seen[i].size, 7);
		assert_true(v.seen[i].hash == 5);
	}
}

static void run(size_t memory, bool expect_merges)
{
	bp_tail_index_t ti;

	bp_tail_index_init(&ti, memory);
	for (uint32_t i = 0; i < COUNT; ++i) {
		assert_int_equal(bp_tail_index_add(&ti, &model[i]), 0);
		if (memory != 0)
			assert_true(bp_tail_index_memory(&ti) <= memory);
	}
	if (memory != 0) {
		assert_true(ti.spilled > COUNT / 2);
		assert_true(ti.run_count < 16);
	}
	assert_true((ti.merges > 0) == expect_merges);
	check_lookups(&ti, 0);
	check_lookups(&ti, 2);
	bp_tail_index_cleanup(&ti);
}

static void test_in_memory(void **state)
{
	(void)state;
	run(0, false);
}

static void test_spilled_few_runs(void **state)
{
	(void)state;
	/* 2 runs of about 22000 records: no merge yet */
	run(1536u << 10, false);
}

static void test_spilled_merged(void **state)
{
	(void)state;
	/* hundreds of runs of about 100 records, merged in tiers, most of
	 * them without a filter for want of room */
	run(8u << 10, true);
}

/* Many records in little memory: the runs' filters fold as they come, so
 * that what the index holds stays within its memory, and lookups find
 * the same records. */
static void test_filters_fold(void **state)
{
	enum { MANY = 600000 };
	const size_t memory = 96u << 10;
	bp_tail_index_t ti;
	uint64_t seed = 99;
	size_t most = 0;
	bp_tail_t r;

	(void)state;
	bp_tail_index_init(&ti, memory);
	for (uint32_t i = 0; i < MANY; ++i) {
		/* the model first (looked up below), then distinct keys */
		if (i < COUNT) {
			r = model[i];
		} else {
			r.size = 1000 + (uint32_t)(next_rand(&seed) % 3000);
			r.hash = next_rand(&seed) | (1ull << 63);
			r.block = i;
			r.offset = 0;
			r.store = 0;
		}
		assert_int_equal(bp_tail_index_add(&ti, &r), 0);
		if (bp_tail_index_memory(&ti) > most)
			most = bp_tail_index_memory(&ti);
	}
	assert_true(most <= memory);
	/* 10 bits per record would be 750 KB: the filters folded */
	assert_true(ti.lookup_bytes < memory);
	assert_true(ti.spilled > MANY / 2);
	check_lookups(&ti, 0);
	bp_tail_index_cleanup(&ti);
}

/* The memory given back while adding (a writer whose directories grew):
 * from the next spill on the index fits the smaller memory, and lookups
 * find the same records. */
static void test_memory_shrinks(void **state)
{
	const size_t memory = 512u << 10;
	bp_tail_index_t ti;
	uint64_t spilled = 0;

	(void)state;
	bp_tail_index_init(&ti, memory);
	for (uint32_t i = 0; i < COUNT; ++i) {
		assert_int_equal(bp_tail_index_add(&ti, &model[i]), 0);
		if (i == COUNT / 3) {
			bp_tail_index_set_memory(&ti, memory / 4);
			spilled = ti.spilled;
		}
		if (spilled != 0 && ti.spilled > spilled)
			assert_true(bp_tail_index_memory(&ti) <= memory / 4);
	}
	assert_true(ti.spilled > spilled);
	check_lookups(&ti, 0);
	bp_tail_index_cleanup(&ti);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_in_memory),
	    cmocka_unit_test(test_spilled_few_runs),
	    cmocka_unit_test(test_spilled_merged),
	    cmocka_unit_test(test_filters_fold),
	    cmocka_unit_test(test_memory_shrinks),
	};

	make_model();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

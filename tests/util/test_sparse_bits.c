/* SPDX-License-Identifier: MIT */
/*
 * test_sparse_bits.c - the lazily paged bit array of lib/util.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/error.h"
#include "util/sparse_bits.h"

#define PAGE_BITS ((uint64_t)SPARSE_BITS_PAGE * 8)

static void test_bits(void **state)
{
	sparse_bits_t b;
	size_t table;

	(void)state;
	assert_int_equal(sparse_bits_init(&b, 3 * PAGE_BITS + 5), 0);
	table = sparse_bits_bytes(&b);
	assert_int_equal(table, 4 * sizeof(void *));
	assert_false(sparse_bits_get(&b, 0));
	assert_false(sparse_bits_get(&b, 3 * PAGE_BITS + 4));
	/* asking allocates nothing */
	assert_int_equal(sparse_bits_bytes(&b), table);

	assert_int_equal(sparse_bits_set(&b, 0), 0);
	assert_int_equal(sparse_bits_set(&b, 9), 0);
	assert_int_equal(sparse_bits_set(&b, 3 * PAGE_BITS + 4), 0);
	assert_int_equal(sparse_bits_set(&b, 3 * PAGE_BITS + 5),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_true(sparse_bits_get(&b, 0));
	assert_true(sparse_bits_get(&b, 9));
	assert_false(sparse_bits_get(&b, 8));
	assert_false(sparse_bits_get(&b, 10));
	assert_false(sparse_bits_get(&b, PAGE_BITS + 9));
	assert_true(sparse_bits_get(&b, 3 * PAGE_BITS + 4));
	assert_false(sparse_bits_get(&b, 3 * PAGE_BITS + 5));
	/* two pages of four */
	assert_int_equal(sparse_bits_bytes(&b), table + 2 * SPARSE_BITS_PAGE);
	sparse_bits_cleanup(&b);
	sparse_bits_cleanup(&b);
}

/* 2^33 bits (two per number of an image claiming 2^32 inodes) cost only
 * the page table until bits are set. */
static void test_huge(void **state)
{
	sparse_bits_t b;

	(void)state;
	assert_int_equal(sparse_bits_init(&b, (uint64_t)1 << 33), 0);
	assert_int_equal(sparse_bits_set(&b, ((uint64_t)1 << 33) - 1), 0);
	assert_true(sparse_bits_get(&b, ((uint64_t)1 << 33) - 1));
	assert_false(sparse_bits_get(&b, ((uint64_t)1 << 33) - 2));
	assert_true(sparse_bits_bytes(&b) <= (2u << 20) + 2 * SPARSE_BITS_PAGE);
	sparse_bits_cleanup(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bits),
	    cmocka_unit_test(test_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

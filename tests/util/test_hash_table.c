/* SPDX-License-Identifier: MIT */
/*
 * test_hash_table.c - the uint64_t -> uint64_t map of lib/util.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/error.h"
#include "util/hash_table.h"

#include <stdlib.h>

static uint64_t next_rand(uint64_t *state)
{
	/* xorshift64: deterministic and never repeats within 2^64 - 1 */
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static void check_load(const hash_table_t *ht)
{
	assert_true(ht->capacity > 0);
	assert_int_equal(ht->capacity & (ht->capacity - 1), 0);
	assert_true(ht->count * 4 <= ht->capacity * 3);
}

static void test_empty(void **state)
{
	hash_table_t ht;
	uint64_t value = 42;

	(void)state;
	hash_table_init(&ht);
	assert_int_equal(hash_table_count(&ht), 0);
	assert_false(hash_table_get(&ht, 0, &value));
	assert_false(hash_table_get(&ht, UINT64_MAX, &value));
	assert_int_equal(value, 42);
	hash_table_cleanup(&ht);
	hash_table_cleanup(&ht);
	assert_int_equal(hash_table_count(&ht), 0);
}

static void test_special_keys(void **state)
{
	hash_table_t ht;
	uint64_t value;

	(void)state;
	hash_table_init(&ht);
	assert_int_equal(hash_table_put(&ht, 0, 7), 0);
	assert_int_equal(hash_table_count(&ht), 1);
	assert_false(hash_table_get(&ht, UINT64_MAX, NULL));
	assert_int_equal(hash_table_put(&ht, UINT64_MAX, 0), 0);
	assert_int_equal(hash_table_put(&ht, 1, UINT64_MAX), 0);
	assert_int_equal(hash_table_count(&ht), 3);

	assert_true(hash_table_get(&ht, 0, &value));
	assert_int_equal(value, 7);
	assert_true(hash_table_get(&ht, UINT64_MAX, &value));
	assert_int_equal(value, 0);
	assert_true(hash_table_get(&ht, 1, &value));
	assert_true(value == UINT64_MAX);
	assert_true(hash_table_get(&ht, 0, NULL));
	assert_false(hash_table_get(&ht, 2, NULL));
	assert_false(hash_table_get(&ht, UINT64_MAX - 1, NULL));
	hash_table_cleanup(&ht);
}

static void test_replace(void **state)
{
	hash_table_t ht;
	uint64_t value, i;

	(void)state;
	hash_table_init(&ht);
	for (i = 0; i < 100; ++i)
		assert_int_equal(hash_table_put(&ht, i * 3, i), 0);
	for (i = 0; i < 100; ++i)
		assert_int_equal(hash_table_put(&ht, i * 3, i + 1000), 0);
	assert_int_equal(hash_table_count(&ht), 100);
	for (i = 0; i < 100; ++i) {
		assert_true(hash_table_get(&ht, i * 3, &value));
		assert_int_equal(value, i + 1000);
		assert_false(hash_table_get(&ht, i * 3 + 1, NULL));
	}
	assert_int_equal(hash_table_put(&ht, 0, 5), 0);
	assert_true(hash_table_get(&ht, 0, &value));
	assert_int_equal(value, 5);
	assert_int_equal(hash_table_count(&ht), 100);
	hash_table_cleanup(&ht);
}

/*
 * A table kept at its fullest (12 keys in 16 slots) many times over, with
 * keys that differ only in their high bits or only in their low bits: long
 * probe chains and chains that wrap around the end of the array must occur
 * among these, and every key must still be found and every absent key
 * reported absent.
 */
static void test_collisions(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint64_t value;
	size_t trial, i;

	(void)state;
	for (trial = 0; trial < 2000; ++trial) {
		uint64_t keys[12];
		hash_table_t ht;

		hash_table_init(&ht);
		for (i = 0; i < 12; ++i) {
			switch (trial % 3) {
			case 0:
				keys[i] = next_rand(&seed);
				break;
			case 1:
				keys[i] = (uint64_t)(trial * 12 + i) << 52;
				break;
			default:
				keys[i] = trial * 12 + i;
				break;
			}
			assert_int_equal(hash_table_put(&ht, keys[i], i), 0);
		}
		assert_int_equal(ht.capacity, 16);
		assert_int_equal(hash_table_count(&ht), 12);
		check_load(&ht);
		for (i = 0; i < 12; ++i) {
			assert_true(hash_table_get(&ht, keys[i], &value));
			assert_int_equal(value, i);
			assert_false(hash_table_get(&ht, keys[i] ^ 0x10, NULL));
		}
		hash_table_cleanup(&ht);
	}
}

static void test_growth(void **state)
{
	const size_t count = 150000;
	uint64_t seed = 12345, value;
	hash_table_t ht;
	uint64_t *keys;
	size_t i;

	(void)state;
	keys = malloc(count * sizeof(keys[0]));
	assert_non_null(keys);

	hash_table_init(&ht);
	for (i = 0; i < count; ++i) {
		/* half random, half sequential, to mix the two patterns */
		keys[i] = (i & 1) ? next_rand(&seed) : i;
		assert_int_equal(hash_table_put(&ht, keys[i], ~(uint64_t)i), 0);
		if ((i & (i - 1)) == 0)
			check_load(&ht);
	}
	assert_int_equal(hash_table_count(&ht), count);
	check_load(&ht);
	assert_true(ht.capacity >= count + count / 3);

	for (i = 0; i < count; ++i) {
		assert_true(hash_table_get(&ht, keys[i], &value));
		assert_true(value == ~(uint64_t)i);
	}
	/* odd numbers beyond the sequential range were never inserted (the
	 * chance that xorshift produced one of them is negligible and the
	 * sequence is fixed) */
	for (i = 0; i < 1000; ++i)
		assert_false(hash_table_get(&ht, count * 2 + 1 + 2 * i, NULL));
	hash_table_cleanup(&ht);
	free(keys);
}

/*
 * Removal keeps every other key reachable: keys that collide into one run
 * (and a run that wraps past the end of the array), removed in random
 * order, checked against a reference after each step; the slots of
 * removed keys are reused by later puts.
 */
static void test_remove(void **state)
{
	enum { COUNT = 4000 };
	static bool present[COUNT];
	uint64_t seed = 99, value;
	hash_table_t ht;
	size_t i, j, live = COUNT;

	(void)state;
	hash_table_init(&ht);
	assert_false(hash_table_remove(&ht, 5));
	for (i = 0; i < COUNT; ++i) {
		assert_int_equal(hash_table_put(&ht, i * 7919, i), 0);
		present[i] = true;
	}
	for (j = 0; j < 3 * COUNT && live > 0; ++j) {
		i = (size_t)(next_rand(&seed) % COUNT);
		assert_int_equal(hash_table_remove(&ht, i * 7919), present[i]);
		if (present[i])
			live -= 1;
		present[i] = false;
		assert_int_equal(hash_table_count(&ht), live);
		if (j % 97 != 0)
			continue;
		for (i = 0; i < COUNT; ++i) {
			assert_int_equal(hash_table_get(&ht, i * 7919, &value),
					 present[i]);
			if (present[i])
				assert_int_equal(value, i);
		}
	}
	/* the array does not grow when removed keys come back */
	j = ht.capacity;
	for (i = 0; i < COUNT; ++i) {
		if (!present[i])
			assert_int_equal(hash_table_put(&ht, i * 7919, i), 0);
	}
	assert_int_equal(hash_table_count(&ht), COUNT);
	assert_int_equal(ht.capacity, j);
	for (i = 0; i < COUNT; ++i)
		assert_true(hash_table_get(&ht, i * 7919, NULL));
	hash_table_cleanup(&ht);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),   cmocka_unit_test(test_special_keys),
	    cmocka_unit_test(test_replace), cmocka_unit_test(test_collisions),
	    cmocka_unit_test(test_growth),  cmocka_unit_test(test_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

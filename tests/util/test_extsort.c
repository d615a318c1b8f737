/* SPDX-License-Identifier: MIT */
/*
 * test_extsort.c - the external sort of lib/util and its spill files:
 * the order (stable, the same at any memory limit), runs and merge passes
 * forced by tiny limits, records larger than the limit, and a spill file
 * that cannot be made or written (the words name the directory).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/error.h"
#include "util/extsort.h"
#include "util/spill.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* A record: a 4-byte key (compared), a 4-byte serial (not compared: it
 * shows stability), then filler bytes derived from the serial. */
typedef struct {
	uint32_t key;
	uint32_t serial;
	size_t len;
} ref_t;

static uint64_t next_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static int cmp_key(const void *a, size_t alen, const void *b, size_t blen,
		   void *user)
{
	uint32_t ka, kb;

	(void)user;
	assert_true(alen >= 8 && blen >= 8);
	memcpy(&ka, a, 4);
	memcpy(&kb, b, 4);
	return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

static int cmp_ref(const void *a, const void *b)
{
	const ref_t *ra = a, *rb = b;

	if (ra->key != rb->key)
		return ra->key < rb->key ? -1 : 1;
	/* serials are given in order: stable means by serial */
	return ra->serial < rb->serial ? -1 : (ra->serial > rb->serial);
}

static void fill_record(uint8_t *buf, const ref_t *r)
{
	memcpy(buf, &r->key, 4);
	memcpy(buf + 4, &r->serial, 4);
	for (size_t i = 8; i < r->len; ++i)
		buf[i] = (uint8_t)(r->serial * 31u + i);
}

/*
 * Sort count records with keys from a small range (many ties) and sizes
 * up to max_len (some of them big_len), at limit; check every record
 * comes back, in stable order, bytes intact. Returns the stats.
 */
static extsort_stats_t run_sort(size_t count, size_t limit, size_t max_len,
				size_t big_every, size_t big_len, uint64_t seed)
{
	extsort_desc_t desc = {limit, cmp_key, NULL, NULL, NULL, 0, 0};
	ref_t *refs = calloc(count, sizeof(refs[0]));
	uint8_t *buf = malloc(big_len > max_len ? big_len : max_len);
	uint8_t *expect = malloc(big_len > max_len ? big_len : max_len);
	extsort_stats_t stats;
	extsort_t *s;
	size_t i, len;
	const void *rec;

	assert_non_null(refs);
	assert_non_null(buf);
	assert_non_null(expect);
	assert_int_equal(extsort_create(&desc, &s), 0);

	for (i = 0; i < count; ++i) {
		refs[i].key = (uint32_t)(next_rand(&seed) % (count / 4 + 1));
		refs[i].serial = (uint32_t)i;
		refs[i].len = 8 + (size_t)(next_rand(&seed) % (max_len - 7));
		if (big_every != 0 && i % big_every == big_every - 1)
			refs[i].len = big_len;
		fill_record(buf, &refs[i]);
		assert_int_equal(extsort_add(s, buf, refs[i].len), 0);
	}
	assert_int_equal(extsort_finish(s), 0);
	assert_int_equal(extsort_add(s, buf, 8), SQFS_ERROR_SEQUENCE);

	qsort(refs, count, sizeof(refs[0]), cmp_ref);
	for (i = 0; i < count; ++i) {
		assert_int_equal(extsort_next(s, &rec, &len), 1);
		assert_int_equal(len, refs[i].len);
		fill_record(expect, &refs[i]);
		assert_memory_equal(rec, expect, len);
	}
	assert_int_equal(extsort_next(s, &rec, &len), 0);
	assert_int_equal(extsort_next(s, &rec, &len), 0);

	extsort_get_stats(s, &stats);
	assert_int_equal(stats.records, count);
	extsort_destroy(s);
	free(expect);
	free(buf);
	free(refs);
	return stats;
}

static void test_in_memory(void **state)
{
	extsort_stats_t st;

	(void)state;
	st = run_sort(5000, 64u << 20, 64, 0, 0, 1);
	assert_int_equal(st.runs, 0);
	assert_int_equal(st.spilled_bytes, 0);
}

static void test_runs_one_merge(void **state)
{
	extsort_stats_t st;

	(void)state;
	/* ~2.4 MB of records in 1 MiB: a few runs, merged at once */
	st = run_sort(40000, 1u << 20, 100, 0, 0, 2);
	assert_true(st.runs >= 3);
	assert_int_equal(st.merge_passes, 0);
}

static void test_many_passes(void **state)
{
	extsort_stats_t st;

	(void)state;
	/* the smallest limit merges two runs at a time: many passes */
	st = run_sort(60000, 0, 60, 0, 0, 3);
	assert_true(st.runs > 20);
	assert_true(st.merge_passes >= 4);
}

static void test_records_larger_than_limit(void **state)
{
	extsort_stats_t st;

	(void)state;
	/* every 500th record is 200 KiB, three times the 64 KiB limit, and
	 * larger than a cursor's buffer */
	st = run_sort(3000, 0, 40, 500, 200u << 10, 4);
	assert_true(st.runs > 3);
}

static void test_empty(void **state)
{
	extsort_desc_t desc = {0, cmp_key, NULL, NULL, NULL, 0, 0};
	const void *rec;
	extsort_t *s;
	size_t len;

	(void)state;
	assert_int_equal(extsort_create(&desc, &s), 0);
	assert_int_equal(extsort_next(s, &rec, &len), SQFS_ERROR_SEQUENCE);
	assert_int_equal(extsort_finish(s), 0);
	assert_int_equal(extsort_next(s, &rec, &len), 0);
	assert_int_equal(extsort_finish(s), SQFS_ERROR_SEQUENCE);
	extsort_destroy(s);
	extsort_destroy(NULL);
}

/* The order depends on the records alone: the same bytes at any limit. */
static void test_same_at_any_limit(void **state)
{
	static const size_t limits[] = {0, 300u << 10, 64u << 20};
	uint64_t digest[3];

	(void)state;
	for (size_t l = 0; l < 3; ++l) {
		extsort_desc_t desc = {limits[l], cmp_key, NULL, NULL,
				       NULL,	  0,	   0};
		uint64_t seed = 99, h = 1469598103934665603ull;
		uint8_t buf[80];
		const void *rec;
		extsort_t *s;
		size_t len;

		assert_int_equal(extsort_create(&desc, &s), 0);
		for (uint32_t i = 0; i < 30000; ++i) {
			ref_t r = {(uint32_t)(next_rand(&seed) % 100), i,
				   8 + (size_t)(next_rand(&seed) % 72)};

			fill_record(buf, &r);
			assert_int_equal(extsort_add(s, buf, r.len), 0);
		}
		assert_int_equal(extsort_finish(s), 0);
		while (extsort_next(s, &rec, &len) == 1) {
			for (size_t i = 0; i < len; ++i)
				h = (h ^ ((const uint8_t *)rec)[i]) *
				    1099511628211ull;
		}
		digest[l] = h;
		extsort_destroy(s);
	}
	assert_true(digest[0] == digest[1]);
	assert_true(digest[1] == digest[2]);
}

static void test_spill_file(void **state)
{
	char why[SPILL_WHY_SIZE], data[10000], back[10000];
	spill_file_t *f;

	(void)state;
	for (size_t i = 0; i < sizeof(data); ++i)
		data[i] = (char)(i * 7);
	assert_int_equal(spill_file_create(0, &f, why), 0);
	assert_string_equal(why, "");
	/* smaller than the buffer, then larger than it */
	assert_int_equal(spill_file_append(f, data, 100), 0);
	assert_int_equal(spill_file_append(f, data + 100, 9900), 0);
	assert_int_equal(spill_file_size(f), 10000);
	assert_int_equal(spill_file_read_at(f, 0, back, 10000), 0);
	assert_memory_equal(back, data, 10000);
	/* across what is on disk and what is buffered */
	assert_int_equal(spill_file_append(f, data, 10), 0);
	assert_int_equal(spill_file_read_at(f, 9995, back, 15), 0);
	assert_memory_equal(back, data + 9995, 5);
	assert_memory_equal(back + 5, data, 10);
	assert_int_equal(spill_file_read_at(f, 10005, back, 6),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(spill_file_reset(f), 0);
	assert_int_equal(spill_file_size(f), 0);
	spill_file_destroy(f);
}

static void test_no_tmpdir(void **state)
{
	extsort_desc_t desc = {0, cmp_key, NULL, NULL, NULL, 0, 0};
	char why[SPILL_WHY_SIZE], rec[64] = {0};
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	extsort_t *s;
	spill_file_t *f;
	int ret = 0;

	(void)state;
	setenv("TMPDIR", "/nonexistent-squashforge-test", 1);
	/* the file is made when the buffer first overflows */
	assert_int_equal(spill_file_create(0, &f, why), 0);
	assert_int_equal(spill_file_append(f, rec, sizeof(rec)), 0);
	for (int i = 0; i < 100 && ret == 0; ++i)
		ret = spill_file_append(f, rec, sizeof(rec));
	assert_int_equal(ret, SQFS_ERROR_IO);
	assert_non_null(
	    strstr(spill_file_error(f), "/nonexistent-squashforge-test"));
	spill_file_destroy(f);
	ret = 0;

	/* the sorter fails when it first needs a file, and keeps failing
	 * with the same words */
	assert_int_equal(extsort_create(&desc, &s), 0);
	for (int i = 0; i < 10000 && ret == 0; ++i)
		ret = extsort_add(s, rec, sizeof(rec));
	assert_int_equal(ret, SQFS_ERROR_IO);
	assert_non_null(strstr(extsort_error(s), "/nonexistent-squashforge"));
	assert_int_equal(extsort_add(s, rec, sizeof(rec)), SQFS_ERROR_IO);
	assert_int_equal(extsort_finish(s), SQFS_ERROR_IO);
	extsort_destroy(s);

	if (old != NULL)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
}

/* A spill file that stops taking bytes (a full $TMPDIR; here the file
 * size limit, in a child process) gives a kept failure with words. */
static void test_write_fails(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {256u << 10, 256u << 10};
		extsort_desc_t desc = {0, cmp_key, NULL, NULL, NULL, 0, 0};
		char rec[100] = {0};
		const void *out;
		size_t len;
		extsort_t *s;
		int ret = 0;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(3);
		if (extsort_create(&desc, &s) != 0)
			_exit(4);
		for (int i = 0; i < 100000 && ret == 0; ++i)
			ret = extsort_add(s, rec, sizeof(rec));
		if (ret == 0)
			ret = extsort_finish(s);
		if (ret != SQFS_ERROR_IO)
			_exit(5);
		if (strstr(extsort_error(s), "temporary file in ") == NULL)
			_exit(6);
		if (extsort_next(s, &out, &len) != SQFS_ERROR_IO)
			_exit(7);
		extsort_destroy(s);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- lookups while adding ------------------------------------------------ */

static int cmp_key_serial(const void *a, size_t alen, const void *b,
			  size_t blen, void *user)
{
	int r = cmp_key(a, alen, b, blen, user);
	uint32_t sa, sb;

	if (r != 0)
		return r;
	memcpy(&sa, (const uint8_t *)a + 4, 4);
	memcpy(&sb, (const uint8_t *)b + 4, 4);
	return sa < sb ? -1 : (sa > sb);
}

static uint64_t hash_of_key(uint32_t key)
{
	return (uint64_t)key * 0x9e3779b97f4a7c15ull;
}

static uint64_t key_hash(const void *rec, size_t len, void *user)
{
	uint32_t k;

	(void)user;
	assert_true(len >= 8);
	memcpy(&k, rec, 4);
	return hash_of_key(k);
}

static int key_cmp(const void *key, size_t klen, const void *rec, size_t len,
		   void *user)
{
	uint32_t a, b;

	(void)user;
	assert_int_equal(klen, 4);
	assert_true(len >= 8);
	memcpy(&a, key, 4);
	memcpy(&b, rec, 4);
	return a < b ? -1 : (a > b);
}

typedef struct {
	uint8_t *seen;
	size_t count;
	const ref_t *refs;
} found_t;

static int visit_found(void *user, const void *rec, size_t len)
{
	found_t *f = user;
	uint8_t expect[300u << 10];
	uint32_t serial;

	memcpy(&serial, (const uint8_t *)rec + 4, 4);
	assert_int_equal(f->seen[serial], 0);
	f->seen[serial] = 1;
	f->count += 1;
	/* the bytes are the record's */
	assert_int_equal(len, f->refs[serial].len);
	fill_record(expect, &f->refs[serial]);
	assert_memory_equal(rec, expect, len);
	return 0;
}

static void test_find(void **state)
{
	enum { COUNT = 40000, KEYS = 3000 };
	extsort_desc_t desc = {0, cmp_key_serial, NULL, key_hash, key_cmp, 0,
			       0};
	static ref_t refs[COUNT];
	static uint8_t seen[COUNT];
	static uint8_t buf[300u << 10];
	found_t found = {seen, 0, refs};
	extsort_stats_t st;
	uint64_t seed = 7;
	const void *rec;
	extsort_t *s;
	size_t len;

	(void)state;
	assert_int_equal(extsort_create(&desc, &s), 0);
	for (uint32_t i = 0; i < COUNT; ++i) {
		refs[i].key = (uint32_t)(next_rand(&seed) % KEYS);
		refs[i].serial = i;
		refs[i].len = 8 + (size_t)(next_rand(&seed) % 80);
		/* a few records larger than a sample span and a cursor */
		if (i % 5000 == 4999)
			refs[i].len = 200u << 10;
		fill_record(buf, &refs[i]);
		assert_int_equal(extsort_add(s, buf, refs[i].len), 0);

		if (i % 997 != 0 && i != COUNT - 1)
			continue;
		for (int q = 0; q < 20; ++q) {
			uint32_t key = (uint32_t)(next_rand(&seed) % KEYS);
			size_t expect = 0;

			if (q == 0)
				key = refs[i].key;
			if (q == 1)
				key = KEYS + 5; /* never added */
			memset(seen, 0, sizeof(seen));
			found.count = 0;
			assert_int_equal(extsort_find(s, &key, 4,
						      hash_of_key(key),
						      visit_found, &found),
					 0);
			for (uint32_t j = 0; j <= i; ++j) {
				if (refs[j].key == key) {
					assert_int_equal(seen[j], 1);
					expect += 1;
				}
			}
			assert_int_equal(found.count, expect);
		}
	}
	extsort_get_stats(s, &st);
	assert_true(st.runs > 10);

	assert_int_equal(extsort_finish(s), 0);
	{
		uint32_t key = 1;

		assert_int_equal(extsort_find(s, &key, 4, hash_of_key(key),
					      visit_found, &found),
				 SQFS_ERROR_SEQUENCE);
	}
	/* sorted by key, then serial */
	for (uint32_t n = 0, last_key = 0, last_serial = 0; n < COUNT; ++n) {
		uint32_t k, sr;

		assert_int_equal(extsort_next(s, &rec, &len), 1);
		memcpy(&k, rec, 4);
		memcpy(&sr, (const uint8_t *)rec + 4, 4);
		assert_true(n == 0 || k > last_key ||
			    (k == last_key && sr > last_serial));
		last_key = k;
		last_serial = sr;
	}
	assert_int_equal(extsort_next(s, &rec, &len), 0);
	extsort_destroy(s);
}

static int stop_at_first(void *user, const void *rec, size_t len)
{
	(void)rec;
	(void)len;
	*(int *)user += 1;
	return 7;
}

static void test_find_stops_and_refuses(void **state)
{
	extsort_desc_t plain = {0, cmp_key, NULL, NULL, NULL, 0, 0};
	extsort_desc_t desc = {0, cmp_key_serial, NULL, key_hash, key_cmp, 0,
			       0};
	uint8_t rec[16] = {0};
	uint32_t key = 0;
	extsort_t *s;
	int calls = 0;

	(void)state;
	assert_int_equal(extsort_create(&plain, &s), 0);
	assert_int_equal(extsort_add(s, rec, sizeof(rec)), 0);
	assert_int_equal(
	    extsort_find(s, &key, 4, hash_of_key(key), stop_at_first, &calls),
	    SQFS_ERROR_UNSUPPORTED);
	extsort_destroy(s);

	assert_int_equal(extsort_create(&desc, &s), 0);
	for (int i = 0; i < 3; ++i)
		assert_int_equal(extsort_add(s, rec, sizeof(rec)), 0);
	assert_int_equal(
	    extsort_find(s, &key, 4, hash_of_key(key), stop_at_first, &calls),
	    7);
	assert_int_equal(calls, 1);
	extsort_destroy(s);
}

/* found_t without the bytes check: counts visits of records of a key */
static int count_visit(void *user, const void *rec, size_t len)
{
	(void)rec;
	(void)len;
	*(size_t *)user += 1;
	return 0;
}

/*
 * Lookups while the runs' filters are held to a small budget: their bytes
 * never pass filter_limit (they fold, then go), and every record of a key
 * is still found, among all runs or among the runs its records went to
 * (extsort_find_in), and never among the others.
 */
static void test_find_filter_limit(void **state)
{
	enum { COUNT = 200000, KEYS = 20000 };
	extsort_desc_t desc = {0, cmp_key_serial, NULL, key_hash, key_cmp, 0,
			       0};
	static uint32_t first[KEYS], last[KEYS], count[KEYS];
	uint8_t buf[64];
	uint64_t seed = 11, most = 0;
	extsort_stats_t st;
	extsort_t *s;

	(void)state;
	desc.mem_limit = 256u << 10;
	desc.filter_limit = 4096;
	for (uint32_t k = 0; k < KEYS; ++k)
		first[k] = UINT32_MAX;
	assert_int_equal(extsort_create(&desc, &s), 0);
	for (uint32_t i = 0; i < COUNT; ++i) {
		ref_t r;

		/* keys drift with i, as a tree's directories do */
		r.key = (uint32_t)((i / 10 + next_rand(&seed) % 500) % KEYS);
		r.serial = i;
		r.len = 8 + (size_t)(next_rand(&seed) % 40);
		fill_record(buf, &r);
		assert_int_equal(extsort_add(s, buf, r.len), 0);
		if (first[r.key] == UINT32_MAX)
			first[r.key] = (uint32_t)extsort_run_count(s);
		last[r.key] = (uint32_t)extsort_run_count(s);
		count[r.key] += 1;

		extsort_get_stats(s, &st);
		assert_true(st.filter_bytes <= 4096);
		if (st.filter_bytes > most)
			most = st.filter_bytes;

		if (i % 1999 != 0)
			continue;
		for (int q = 0; q < 10; ++q) {
			uint32_t key = (uint32_t)(next_rand(&seed) % KEYS);
			size_t n = 0;

			assert_int_equal(extsort_find(s, &key, 4,
						      hash_of_key(key),
						      count_visit, &n),
					 0);
			assert_int_equal(n, count[key]);
			if (count[key] == 0)
				continue;
			n = 0;
			assert_int_equal(
			    extsort_find_in(s, first[key], last[key], &key, 4,
					    hash_of_key(key), count_visit, &n),
			    0);
			assert_int_equal(n, count[key]);
			/* the runs before its first hold none of it */
			n = 0;
			if (first[key] > 0)
				assert_int_equal(
				    extsort_find_in(s, 0, first[key] - 1, &key,
						    4, hash_of_key(key),
						    count_visit, &n),
				    0);
			assert_int_equal(n, 0);
		}
	}
	extsort_get_stats(s, &st);
	/* many runs, whose full filters would take 250 KB */
	assert_true(st.runs > 20);
	assert_true(most > 0);
	extsort_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_in_memory),
	    cmocka_unit_test(test_runs_one_merge),
	    cmocka_unit_test(test_many_passes),
	    cmocka_unit_test(test_records_larger_than_limit),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_same_at_any_limit),
	    cmocka_unit_test(test_spill_file),
	    cmocka_unit_test(test_no_tmpdir),
	    cmocka_unit_test(test_write_fails),
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_find_stops_and_refuses),
	    cmocka_unit_test(test_find_filter_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_fs_threads.c - the file system object from many threads at once:
 * stats, lookups, listings and reads of the same and of different files,
 * every result checked; and single flight: a block that many threads ask
 * for at once is decompressed once. Run under ThreadSanitizer in CI.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "reader/fs_image.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREADS 8

typedef struct {
	sqfs_fs_t *fs;
	uint32_t bs;
	uint64_t files[FI_FILES];
	uint64_t big;
	size_t id;
	pthread_barrier_t *barrier;
	atomic_int *failures;
	/* single flight: the handle every thread reads */
	sqfs_fs_file_t *shared;
} job_t;

static void failed(job_t *j, const char *what, const char *why)
{
	fprintf(stderr, "thread %zu: %s: %s\n", j->id, what, why);
	atomic_fetch_add(j->failures, 1);
}

static int count_cb(void *user, const sqfs_fs_dirent_t *ent)
{
	(*(size_t *)user)++;
	return ent->name_len == 0 ? -1 : 0;
}

static void read_file(job_t *j, size_t i, uint64_t step)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t size = fi_file_size(i, j->bs), off;
	uint8_t *got = malloc(step), *want = malloc(step);
	sqfs_fs_file_t *f;
	ptrdiff_t ret;
	size_t n;

	if (sqfs_fs_file_open(j->fs, j->files[i], &f, why) != 0) {
		failed(j, "open", why);
		goto out;
	}
	for (off = 0; off < size; off += step) {
		n = size - off < step ? (size_t)(size - off) : step;
		ret = sqfs_fs_file_read(f, off, got, step, why);
		if (ret != (ptrdiff_t)n) {
			failed(j, "read", why);
			break;
		}
		fi_file_data(i, j->bs, off, want, n);
		if (memcmp(got, want, n) != 0) {
			failed(j, "read", "wrong data");
			break;
		}
	}
	sqfs_fs_file_close(f);
out:
	free(got);
	free(want);
}

static void *worker(void *arg)
{
	job_t *j = arg;
	char why[SQFS_ERROR_TEXT_SIZE], name[64];
	sqfs_fs_stat_t st;
	uint32_t count = sqfs_fs_super(j->fs)->inode_count, ino;
	uint64_t node;
	size_t round, k, n;

	pthread_barrier_wait(j->barrier);
	for (round = 0; round < 3; ++round) {
		/* the same file in every thread, then a file of its own */
		read_file(j, 5, 1000 + round * 777);
		read_file(j, (j->id + round) % FI_FILES, j->bs / 2 + 13);
		for (k = 0; k < 200; ++k) {
			fi_big_name((j->id * 97 + k * 13 + round) %
					FI_BIG_ENTRIES,
				    name);
			if (sqfs_fs_lookup(j->fs, j->big, name, strlen(name),
					   &st, why) != 0) {
				failed(j, "lookup", why);
				continue;
			}
			if ((st.mode & S_IFMT) != S_IFIFO)
				failed(j, "lookup", "wrong type");
		}
		for (ino = 1 + (uint32_t)j->id; ino <= count; ino += 3) {
			if (sqfs_fs_stat(j->fs, ino, &st, why) != 0 ||
			    st.ino != ino)
				failed(j, "stat", why);
		}
		n = 0;
		if (sqfs_fs_readdir(j->fs, j->big, 0, SQFS_FS_READDIR_STAT,
				    count_cb, &n, why) != 0 ||
		    n != FI_BIG_ENTRIES)
			failed(j, "readdir", why);
		if (sqfs_fs_resolve(j->fs, "a/b/c/d/deep", &node, why) != 0)
			failed(j, "resolve", why);
	}
	return NULL;
}

static sqfs_fs_t *open_fs(const uint8_t *data, size_t size, sqfs_file_t **file,
			  const sqfs_fs_options_t *opt)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_t *fs;

	*file = fi_file(data, size);
	if (sqfs_fs_open(*file, opt, &fs, why) != 0)
		fail_msg("open: %s", why);
	return fs;
}

static void fill_job(job_t *j, sqfs_fs_t *fs, uint32_t bs)
{
	char why[SQFS_ERROR_TEXT_SIZE], path[32];
	size_t i;

	j->fs = fs;
	j->bs = bs;
	for (i = 0; i < FI_FILES; ++i) {
		snprintf(path, sizeof(path), "files/f%02zu", i);
		assert_int_equal(sqfs_fs_resolve(fs, path, &j->files[i], why),
				 0);
	}
	assert_int_equal(sqfs_fs_resolve(fs, "big", &j->big, why), 0);
}

static void run_all(uint32_t bs, uint32_t wflags, const sqfs_fs_options_t *opt)
{
	pthread_t threads[THREADS];
	pthread_barrier_t barrier;
	atomic_int failures;
	job_t jobs[THREADS];
	sqfs_file_t *file;
	sqfs_fs_t *fs;
	uint8_t *data;
	size_t size, i;

	data = fi_build(bs, wflags, false, &size);
	fs = open_fs(data, size, &file, opt);
	atomic_init(&failures, 0);
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (i = 0; i < THREADS; ++i) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		fill_job(&jobs[i], fs, bs);
		jobs[i].id = i;
		jobs[i].barrier = &barrier;
		jobs[i].failures = &failures;
	}
	/* a fresh file system for the threads: nothing known yet */
	sqfs_fs_destroy(fs);
	sqfs_file_close(file);
	fs = open_fs(data, size, &file, opt);
	for (i = 0; i < THREADS; ++i) {
		jobs[i].fs = fs;
		assert_int_equal(
		    pthread_create(&threads[i], NULL, worker, &jobs[i]), 0);
	}
	for (i = 0; i < THREADS; ++i)
		pthread_join(threads[i], NULL);
	assert_int_equal(atomic_load(&failures), 0);
	pthread_barrier_destroy(&barrier);
	sqfs_fs_destroy(fs);
	sqfs_file_close(file);
	free(data);
}

static void test_threads(void **state)
{
	(void)state;
	run_all(4096, 0, NULL);
}

static void test_threads_small_caches(void **state)
{
	sqfs_fs_options_t opt;

	(void)state;
	memset(&opt, 0, sizeof(opt));
	opt.meta_cache_bytes = 1;
	opt.data_cache_bytes = 1;
	opt.read_ahead_threads = 3;
	run_all(8192, SQFS_WRITER_EXPORTABLE, &opt);
}

static void *flight(void *arg)
{
	job_t *j = arg;
	char why[SQFS_ERROR_TEXT_SIZE];
	uint8_t buf[100], want[100];

	pthread_barrier_wait(j->barrier);
	if (sqfs_fs_file_read(j->shared, 70000, buf, sizeof(buf), why) !=
	    (ptrdiff_t)sizeof(buf)) {
		failed(j, "read", why);
		return NULL;
	}
	fi_file_data(5, j->bs, 70000, want, sizeof(want));
	if (memcmp(buf, want, sizeof(buf)) != 0)
		failed(j, "read", "wrong data");
	return NULL;
}

/* N threads asking for one block at once: one decompression. */
static void test_single_flight(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	pthread_t threads[THREADS];
	pthread_barrier_t barrier;
	sqfs_fs_cache_stats_t before, after;
	sqfs_fs_options_t opt;
	atomic_int failures;
	job_t jobs[THREADS];
	sqfs_file_t *file;
	sqfs_fs_file_t *f;
	sqfs_fs_t *fs;
	uint8_t *data;
	uint64_t ino;
	size_t size, i;
	int round;

	(void)state;
	/* 1 MiB blocks take long enough to unpack for the threads to meet */
	data = fi_build(1 << 20, 0, false, &size);
	memset(&opt, 0, sizeof(opt));
	opt.flags = SQFS_FS_NO_READ_AHEAD;
	for (round = 0; round < 4; ++round) {
		fs = open_fs(data, size, &file, &opt);
		assert_int_equal(sqfs_fs_resolve(fs, "files/f05", &ino, why),
				 0);
		assert_int_equal(sqfs_fs_file_open(fs, ino, &f, why), 0);
		atomic_init(&failures, 0);
		pthread_barrier_init(&barrier, NULL, THREADS);
		sqfs_fs_cache_stats(fs, &before);
		for (i = 0; i < THREADS; ++i) {
			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].fs = fs;
			jobs[i].bs = 1 << 20;
			jobs[i].id = i;
			jobs[i].barrier = &barrier;
			jobs[i].failures = &failures;
			jobs[i].shared = f;
			assert_int_equal(
			    pthread_create(&threads[i], NULL, flight, &jobs[i]),
			    0);
		}
		for (i = 0; i < THREADS; ++i)
			pthread_join(threads[i], NULL);
		sqfs_fs_cache_stats(fs, &after);
		assert_int_equal(atomic_load(&failures), 0);
		assert_int_equal(after.decompressed - before.decompressed, 1);
		assert_int_equal(after.data_misses - before.data_misses, 1);
		assert_int_equal(after.data_hits - before.data_hits,
				 THREADS - 1);
		pthread_barrier_destroy(&barrier);
		sqfs_fs_file_close(f);
		sqfs_fs_destroy(fs);
		sqfs_file_close(file);
	}
	free(data);
}

/* Read-ahead: a file read in order finds its next blocks decoded, from
 * its second read on. */
static void test_read_ahead(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_fs_cache_stats_t cs;
	sqfs_fs_options_t opt;
	sqfs_fs_file_t *f;
	sqfs_file_t *file;
	sqfs_fs_t *fs;
	uint8_t *data, buf[4096], want[4096];
	uint64_t off, size;
	uint64_t ino;
	size_t n, isz;
	int spin;

	(void)state;
	data = fi_build(4096, 0, false, &isz);
	memset(&opt, 0, sizeof(opt));
	opt.read_ahead_blocks = 3;
	opt.read_ahead_threads = 2;
	fs = open_fs(data, isz, &file, &opt);
	assert_int_equal(sqfs_fs_resolve(fs, "files/f08", &ino, why), 0);
	assert_int_equal(sqfs_fs_file_open(fs, ino, &f, why), 0);
	size = sqfs_fs_file_size(f);
	for (off = 0; off < size; off += 1024) {
		n = size - off < 1024 ? (size_t)(size - off) : 1024;
		assert_int_equal(sqfs_fs_file_read(f, off, buf, 1024, why), n);
		fi_file_data(8, 4096, off, want, n);
		assert_memory_equal(buf, want, n);
		/* the first read alone queues nothing (a program reading
		 * a file's head only) */
		if (off == 0) {
			usleep(20000);
			sqfs_fs_cache_stats(fs, &cs);
			assert_int_equal(cs.read_ahead_done, 0);
		}
		/* the second, in order, does: give the workers a moment */
		if (off == 1024) {
			for (spin = 0; spin < 2000; ++spin) {
				sqfs_fs_cache_stats(fs, &cs);
				if (cs.read_ahead_done >= 2)
					break;
				usleep(1000);
			}
		}
	}
	sqfs_fs_cache_stats(fs, &cs);
	assert_true(cs.read_ahead_done >= 2);
	assert_true(cs.read_ahead_used >= 1);
	sqfs_fs_file_close(f);
	sqfs_fs_destroy(fs);
	sqfs_file_close(file);
	free(data);
}

/* sqfs_fs_prefetch: the files named are decoded before anyone reads
 * them, and reading them afterwards uses what was decoded; a directory
 * is refused; with read-ahead off it is a no-op. */
static void test_prefetch(void **state)
{
	static const size_t files[] = {3, 4, 5, 7, 11};
	char why[SQFS_ERROR_TEXT_SIZE], name[32];
	sqfs_fs_cache_stats_t cs;
	sqfs_fs_options_t opt;
	sqfs_file_t *file;
	sqfs_fs_t *fs;
	uint8_t *data, *buf, *want;
	uint64_t ino[5], dir, size;
	size_t isz, i;
	int spin, pass;

	(void)state;
	data = fi_build(4096, 0, false, &isz);
	buf = malloc(6 * 4096);
	want = malloc(6 * 4096);
	assert_non_null(buf);
	assert_non_null(want);
	for (pass = 0; pass < 2; ++pass) {
		memset(&opt, 0, sizeof(opt));
		opt.read_ahead_blocks = 8;
		opt.read_ahead_threads = 2;
		if (pass == 1)
			opt.flags = SQFS_FS_NO_READ_AHEAD;
		fs = open_fs(data, isz, &file, &opt);
		assert_int_equal(sqfs_fs_resolve(fs, "files", &dir, why), 0);
		assert_int_equal(sqfs_fs_prefetch(fs, dir, why),
				 pass == 0 ? SQFS_ERROR_NOT_FILE : 0);
		for (i = 0; i < 5; ++i) {
			snprintf(name, sizeof(name), "files/f%02zu", files[i]);
			assert_int_equal(
			    sqfs_fs_resolve(fs, name, &ino[i], why), 0);
			assert_int_equal(sqfs_fs_prefetch(fs, ino[i], why), 0);
		}
		/* the workers decode without a reader: wait for them */
		for (spin = 0; pass == 0 && spin < 5000; ++spin) {
			sqfs_fs_cache_stats(fs, &cs);
			if (cs.read_ahead_done >= 5)
				break;
			usleep(1000);
		}
		sqfs_fs_cache_stats(fs, &cs);
		if (pass == 0)
			assert_true(cs.read_ahead_done >= 5);
		else
			assert_int_equal(cs.read_ahead_done, 0);
		for (i = 0; i < 5; ++i) {
			size = fi_file_size(files[i], 4096);
			assert_true(size <= 6 * 4096);
			assert_int_equal(
			    sqfs_fs_read(fs, ino[i], 0, buf, 6 * 4096, why),
			    (ptrdiff_t)size);
			fi_file_data(files[i], 4096, 0, want, (size_t)size);
			assert_memory_equal(buf, want, (size_t)size);
		}
		sqfs_fs_cache_stats(fs, &cs);
		if (pass == 0)
			assert_true(cs.read_ahead_used >= 5);
		else
			assert_int_equal(cs.read_ahead_used, 0);
		sqfs_fs_destroy(fs);
		sqfs_file_close(file);
	}
	free(buf);
	free(want);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_threads_small_caches),
	    cmocka_unit_test(test_single_flight),
	    cmocka_unit_test(test_read_ahead),
	    cmocka_unit_test(test_prefetch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

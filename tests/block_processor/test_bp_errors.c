/* SPDX-License-Identifier: MIT */
/*
 * test_bp_errors.c - failing output, calls out of order, bad arguments,
 * and byte-identical output for identical input.
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
#include "sqfs/table.h"

#include <stdlib.h>
#include <string.h>

#define BS 4096u
#define NFILES 7

/* A file that fails on demand (test_failing_file), over the prefix the
 * tests' images start with. */
static test_failing_file_t *ff_create(void)
{
	return test_failing_file(test_memory_file_filled(BP_TEST_PREFIX, 0));
}

/* ---- a scenario touching every path that does I/O -------------------------
 */

static int add_file(block_processor_t *bp, file_data_t *fd, const uint8_t *data,
		    size_t size, uint64_t hole, unsigned int flags)
{
	int ret;

	ret = block_processor_begin(bp, fd, flags);
	if (ret == 0 && hole > 0)
		ret = block_processor_append_hole(bp, hole);
	if (ret == 0)
		ret = block_processor_append(bp, data, size);
	if (ret == 0)
		ret = block_processor_end(bp);
	return ret;
}

/* Returns the first error (0 if none); afterwards every call must fail
 * with SQFS_ERROR_SEQUENCE. */
static int run_scenario(block_processor_t *bp, file_data_t *fd,
			const uint8_t *data, sqfs_super_t *super)
{
	file_data_t probe;
	int ret;

	memset(fd, 0, NFILES * sizeof(*fd));
	/* blocks and a fragment; its duplicate (read-back, truncate); a
	 * tail that flushes the fragment block; a duplicate tail read back
	 * from the written block; an aligned holey file; raw data */
	ret = add_file(bp, &fd[0], data, 2 * BS + 3000, 0, 0);
	if (ret == 0)
		ret = add_file(bp, &fd[1], data, 2 * BS + 3000, 0, 0);
	if (ret == 0)
		ret = add_file(bp, &fd[2], data + 3 * BS, BS + 3000, 0, 0);
	if (ret == 0)
		ret = add_file(bp, &fd[3], data + 2 * BS, 3000, 0, 0);
	if (ret == 0)
		ret = add_file(bp, &fd[4], data + 5 * BS, 2 * BS + 100, BS + 5,
			       BP_FILE_ALIGN);
	if (ret == 0)
		ret = add_file(bp, &fd[5], data + 6 * BS, BS + 1000, 0,
			       BP_FILE_DONT_COMPRESS | BP_FILE_ALIGN);
	if (ret == 0)
		ret = add_file(bp, &fd[6], data, 2 * BS + 3000, 0,
			       BP_FILE_ALIGN | BP_FILE_DONT_FRAGMENT);
	if (ret == 0)
		ret = block_processor_finish(bp);
	if (ret == 0)
		ret = block_processor_write_fragment_table(bp, super);
	if (ret == 0)
		return 0;

	assert_true(ret < 0);
	assert_int_equal(block_processor_begin(bp, &probe, 0),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(block_processor_append(bp, "x", 1),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(block_processor_end(bp), SQFS_ERROR_SEQUENCE);
	assert_int_equal(block_processor_finish(bp), SQFS_ERROR_SEQUENCE);
	assert_int_equal(block_processor_write_fragment_table(bp, super),
			 SQFS_ERROR_SEQUENCE);
	return ret;
}

/* Run the scenario on f (which it destroys); *written receives the bytes
 * written successfully, *failures the failures f reported. */
static int scenario_on(test_failing_file_t *f, file_data_t *fd,
		       const uint8_t *data, bool check, uint64_t *written,
		       unsigned int *failures)
{
	sqfs_super_t super;
	bp_ctx_t c;
	size_t i;
	int ret;

	bp_ctx_open(&c, BS, 0, &f->base);
	memset(&super, 0, sizeof(super));
	ret = run_scenario(c.bp, fd, data, &super);
	if (ret == 0 && check) {
		uint8_t *big = malloc(2 * BS + 3000);

		assert_non_null(big);
		memcpy(big, data, 2 * BS + 3000);
		assert_true(fd[1].blocks_start == fd[0].blocks_start);
		assert_int_equal(fd[3].fragment_index, fd[0].fragment_index);
		assert_int_equal(fd[3].fragment_offset, fd[0].fragment_offset);
		assert_int_equal(fd[4].blocks_start % 4096, 0);
		assert_int_equal(fd[5].blocks_start % 4096, 0);
		assert_true(fd[5].block_sizes[0] & SQFS_SIZE_WORD_RAW);
		/* the fragment table is readable */
		c.super = super;
		c.fcount = super.fragment_entry_count;
		assert_int_equal(
		    sqfs_table_read(c.file, c.cmp, c.fcount * 16,
				    super.fragment_table_start, BP_TEST_PREFIX,
				    bp_ctx_size(&c), (void **)&c.ftable),
		    0);
		bp_check_file(&c, &fd[0], big, 2 * BS + 3000);
		bp_check_file(&c, &fd[1], big, 2 * BS + 3000);
		bp_check_file(&c, &fd[6], big, 2 * BS + 3000);
		bp_check_file(&c, &fd[5], data + 6 * BS, BS + 1000);
		free(big);
	}
	for (i = 0; i < NFILES; ++i)
		file_data_cleanup(&fd[i]);
	if (written != NULL)
		*written = f->written;
	if (failures != NULL)
		*failures = f->failures;
	/* the context owns f */
	bp_ctx_close(&c);
	return ret;
}

/* Every write, read-back and truncate happens on the main thread in the
 * serial order, so the thread pool must fail at the same points. */
static const unsigned int io_workers[] = {0, 1, 3, 8};
#define IO_RUNS (sizeof(io_workers) / sizeof(io_workers[0]))

static void write_failures(void)
{
	file_data_t fd[NFILES];
	uint64_t total, budget, step, written;
	unsigned int failures;
	uint8_t *data;
	test_failing_file_t *f;
	int ret;

	data = test_make_data(8 * BS, TEST_DATA_TEXT, 7);

	f = ff_create();
	assert_int_equal(scenario_on(f, fd, data, true, &total, &failures), 0);
	assert_int_equal(failures, 0);
	assert_true(total > 8 * 1024);

	step = total / 150 + 1;
	for (budget = 0; budget < total; budget += step) {
		f = ff_create();
		f->write_bytes = budget;
		ret = scenario_on(f, fd, data, false, &written, &failures);
		assert_int_equal(ret, SQFS_ERROR_IO);
		assert_int_equal(failures, 1);
		assert_true(written <= budget);
	}
	/* the last byte matters too */
	f = ff_create();
	f->write_bytes = total - 1;
	assert_int_equal(scenario_on(f, fd, data, false, NULL, NULL),
			 SQFS_ERROR_IO);
	f = ff_create();
	f->write_bytes = total;
	assert_int_equal(scenario_on(f, fd, data, true, NULL, NULL), 0);
	free(data);
}

static void test_write_failures(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < IO_RUNS; ++i) {
		bp_test_workers = io_workers[i];
		bp_test_backlog = 2 + (unsigned int)i;
		write_failures();
	}
	bp_test_workers = 0;
}

static void read_and_truncate_failures(void)
{
	file_data_t fd[NFILES];
	unsigned int failures;
	uint8_t *data;
	test_failing_file_t *f;

	data = test_make_data(8 * BS, TEST_DATA_TEXT, 7);

	/* the first duplicate needs to read both runs back */
	f = ff_create();
	f->fail_read = true;
	assert_int_equal(scenario_on(f, fd, data, false, NULL, &failures),
			 SQFS_ERROR_IO);
	assert_int_equal(failures, 1);

	/* cutting off the duplicate needs truncate */
	f = ff_create();
	f->fail_truncate = true;
	assert_int_equal(scenario_on(f, fd, data, false, NULL, &failures),
			 SQFS_ERROR_IO);
	assert_int_equal(failures, 1);

	free(data);
}

static void test_read_and_truncate_failures(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < IO_RUNS; ++i) {
		bp_test_workers = io_workers[i];
		read_and_truncate_failures();
	}
	bp_test_workers = 0;
}

/* ---- calls out of order and bad arguments -------------------------------- */

static block_processor_t *make_bp(bp_ctx_t *c)
{
	bp_ctx_open(c, BS, 0, NULL);
	return c->bp;
}

static void test_sequence(void **state)
{
	file_data_t fd, fd2;
	sqfs_super_t super;
	bp_ctx_t c;

	(void)state;
	memset(&super, 0, sizeof(super));

	/* data without a file */
	assert_int_equal(block_processor_append(make_bp(&c), "a", 1),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(block_processor_begin(c.bp, &fd, 0),
			 SQFS_ERROR_SEQUENCE);
	bp_ctx_close(&c);

	assert_int_equal(block_processor_append_hole(make_bp(&c), 1),
			 SQFS_ERROR_SEQUENCE);
	bp_ctx_close(&c);
	assert_int_equal(block_processor_end(make_bp(&c)), SQFS_ERROR_SEQUENCE);
	bp_ctx_close(&c);
	assert_int_equal(
	    block_processor_write_fragment_table(make_bp(&c), &super),
	    SQFS_ERROR_SEQUENCE);
	bp_ctx_close(&c);

	/* a file inside a file; finish with a file open (destroy then
	 * frees the half-filled block) */
	assert_int_equal(block_processor_begin(make_bp(&c), &fd, 0), 0);
	assert_int_equal(block_processor_append(c.bp, "abc", 3), 0);
	assert_int_equal(block_processor_begin(c.bp, &fd2, 0),
			 SQFS_ERROR_SEQUENCE);
	file_data_cleanup(&fd);
	bp_ctx_close(&c);
	assert_int_equal(block_processor_begin(make_bp(&c), &fd, 0), 0);
	assert_int_equal(block_processor_append(c.bp, "abc", 3), 0);
	assert_int_equal(block_processor_finish(c.bp), SQFS_ERROR_SEQUENCE);
	file_data_cleanup(&fd);
	bp_ctx_close(&c);

	/* after finish: no more files, one table */
	make_bp(&c);
	assert_int_equal(block_processor_begin(c.bp, &fd, 0), 0);
	assert_int_equal(block_processor_append(c.bp, "abc", 3), 0);
	assert_int_equal(block_processor_end(c.bp), 0);
	assert_int_equal(block_processor_finish(c.bp), 0);
	assert_int_equal(block_processor_write_fragment_table(c.bp, &super), 0);
	assert_int_equal(super.fragment_entry_count, 1);
	assert_int_equal(block_processor_write_fragment_table(c.bp, &super),
			 SQFS_ERROR_SEQUENCE);
	file_data_cleanup(&fd);
	bp_ctx_close(&c);

	make_bp(&c);
	assert_int_equal(block_processor_finish(c.bp), 0);
	assert_int_equal(block_processor_begin(c.bp, &fd, 0),
			 SQFS_ERROR_SEQUENCE);
	bp_ctx_close(&c);

	make_bp(&c);
	assert_int_equal(block_processor_finish(c.bp), 0);
	assert_int_equal(block_processor_finish(c.bp), SQFS_ERROR_SEQUENCE);
	bp_ctx_close(&c);
}

static void test_bad_arguments(void **state)
{
	block_processor_desc_t desc;
	block_processor_t *bp;
	sqfs_compressor_t *small;
	file_data_t fd;
	bp_ctx_t c;

	(void)state;
	block_processor_destroy(NULL);
	file_data_cleanup(NULL);

	make_bp(&c);
	desc = c.desc;
	bp = (block_processor_t *)&desc;
	assert_int_equal(block_processor_create(NULL, &bp),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(bp);
	assert_int_equal(block_processor_create(&desc, NULL),
			 SQFS_ERROR_ARG_INVALID);
	desc.file = NULL;
	assert_int_equal(block_processor_create(&desc, &bp),
			 SQFS_ERROR_ARG_INVALID);
	desc = c.desc;
	desc.cmp = NULL;
	assert_int_equal(block_processor_create(&desc, &bp),
			 SQFS_ERROR_ARG_INVALID);
	desc = c.desc;
	desc.block_size = 3000;
	assert_int_equal(block_processor_create(&desc, &bp),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	desc.block_size = 2048;
	assert_int_equal(block_processor_create(&desc, &bp),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	desc.block_size = 2u << 20;
	assert_int_equal(block_processor_create(&desc, &bp),
			 SQFS_ERROR_SUPER_BLOCK_SIZE);
	/* a compressor made for smaller blocks */
	small = bp_test_compressor(4096, false);
	desc = c.desc;
	desc.cmp = small;
	desc.block_size = 8192;
	assert_int_equal(block_processor_create(&desc, &bp),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(bp);
	sqfs_compressor_destroy(small);

	/* bad flags and no record */
	assert_int_equal(block_processor_begin(c.bp, &fd, 0x100),
			 SQFS_ERROR_ARG_INVALID);
	bp_ctx_close(&c);
	assert_int_equal(block_processor_begin(make_bp(&c), NULL, 0),
			 SQFS_ERROR_ARG_INVALID);
	bp_ctx_close(&c);

	/* no data pointer */
	assert_int_equal(block_processor_begin(make_bp(&c), &fd, 0), 0);
	assert_int_equal(block_processor_append(c.bp, NULL, 0), 0);
	assert_int_equal(block_processor_append(c.bp, NULL, 1),
			 SQFS_ERROR_ARG_INVALID);
	file_data_cleanup(&fd);
	bp_ctx_close(&c);

	/* sizes the block list cannot hold fail at once */
	assert_int_equal(block_processor_begin(make_bp(&c), &fd, 0), 0);
	assert_int_equal(block_processor_append(c.bp, "abc", 3), 0);
	assert_int_equal(block_processor_append_hole(c.bp, UINT64_MAX),
			 SQFS_ERROR_OVERFLOW);
	file_data_cleanup(&fd);
	bp_ctx_close(&c);
	assert_int_equal(block_processor_begin(make_bp(&c), &fd, 0), 0);
	assert_int_equal(
	    block_processor_append_hole(c.bp, (uint64_t)UINT32_MAX * BS + 1),
	    SQFS_ERROR_OVERFLOW);
	file_data_cleanup(&fd);
	bp_ctx_close(&c);
}

/* ---- determinism ----------------------------------------------------------
 */

static void run_packed(unsigned int workers, const uint8_t *data, uint8_t **out,
		       size_t *out_size, file_data_t *fd)
{
	const uint8_t *mem;
	sqfs_super_t super;
	bp_ctx_t c;

	memset(&c, 0, sizeof(c));
	c.file = test_memory_file_filled(BP_TEST_PREFIX, 0);
	c.cmp = bp_test_compressor(BS, false);
	c.desc.file = c.file;
	c.desc.cmp = c.cmp;
	c.desc.block_size = BS;
	c.desc.devblk_size = 4096;
	c.desc.num_workers = workers;
	c.desc.max_backlog = 4;
	assert_int_equal(block_processor_create(&c.desc, &c.bp), 0);

	memset(&super, 0, sizeof(super));
	assert_int_equal(run_scenario(c.bp, fd, data, &super), 0);
	mem = test_memory_file_data(c.file, out_size);
	*out = malloc(*out_size);
	assert_non_null(*out);
	memcpy(*out, mem, *out_size);
	bp_ctx_close(&c);
}

static void test_determinism(void **state)
{
	static const unsigned int workers[] = {0, 1, 1, 4};
	file_data_t fd[4][NFILES];
	uint8_t *data, *out[4];
	size_t size[4], i, j;

	(void)state;
	data = test_make_data(8 * BS, TEST_DATA_TEXT, 9);
	for (i = 0; i < 4; ++i)
		run_packed(workers[i], data, &out[i], &size[i], fd[i]);

	for (i = 1; i < 4; ++i) {
		assert_int_equal(size[i], size[0]);
		assert_memory_equal(out[i], out[0], size[0]);
		for (j = 0; j < NFILES; ++j) {
			const file_data_t *a = &fd[0][j], *b = &fd[i][j];

			assert_true(a->size == b->size);
			assert_true(a->blocks_start == b->blocks_start);
			assert_true(a->sparse_bytes == b->sparse_bytes);
			assert_int_equal(a->fragment_index, b->fragment_index);
			assert_int_equal(a->fragment_offset,
					 b->fragment_offset);
			assert_int_equal(a->block_count, b->block_count);
			if (a->block_count > 0)
				assert_memory_equal(a->block_sizes,
						    b->block_sizes,
						    a->block_count * 4);
		}
	}
	for (i = 0; i < 4; ++i) {
		for (j = 0; j < NFILES; ++j)
			file_data_cleanup(&fd[i][j]);
		free(out[i]);
	}
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_failures),
	    cmocka_unit_test(test_read_and_truncate_failures),
	    cmocka_unit_test(test_sequence),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_determinism),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

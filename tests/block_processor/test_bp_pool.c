/* SPDX-License-Identifier: MIT */
/*
 * test_bp_pool.c - the thread-pool back end: the serial back end's bytes
 * for any number of workers and any backlog, a bounded number of blocks in
 * flight, and failures in workers that end without deadlock or leak.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "support/test_util.h"
#include "block_processor/bp_test.h"
#include "sqfs/comp/internal.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a generated mix of files -------------------------------------------- */

typedef struct {
	size_t offset;
	size_t size;
	uint64_t hole;
	unsigned int flags;
} file_spec_t;

typedef struct {
	uint32_t block_size;
	uint8_t *pool;
	size_t pool_size;
	file_spec_t *files;
	size_t count;
} scenario_t;

/*
 * Sizes from empty to several blocks, data from a few fixed places in the
 * pool so whole files, runs and tails repeat (deduplication, fragment
 * read-back while fragment blocks are still in flight), some holes, and
 * now and then a flag that changes the path a block takes.
 */
static void make_scenario(scenario_t *s, uint32_t bs, size_t count,
			  uint32_t seed)
{
	static const unsigned int rare_flags[] = {
	    BP_FILE_DONT_FRAGMENT, BP_FILE_DONT_COMPRESS,
	    BP_FILE_DONT_DEDUPLICATE, BP_FILE_ALIGN, BP_FILE_NO_SPARSE};
	uint32_t st = seed;
	size_t i;

	s->block_size = bs;
	s->pool_size = 12 * (size_t)bs;
	s->pool = malloc(s->pool_size);
	assert_non_null(s->pool);
	test_fill_data(s->pool, 4 * (size_t)bs, TEST_DATA_TEXT, seed);
	test_fill_data(s->pool + 4 * (size_t)bs, 2 * (size_t)bs,
		       TEST_DATA_RANDOM, seed);
	test_fill_data(s->pool + 6 * (size_t)bs, (size_t)bs, TEST_DATA_ZEROS,
		       seed);
	test_fill_data(s->pool + 7 * (size_t)bs, 5 * (size_t)bs,
		       TEST_DATA_BINARY, seed);

	s->count = count;
	s->files = calloc(count, sizeof(*s->files));
	assert_non_null(s->files);
	for (i = 0; i < count; ++i) {
		file_spec_t *f = s->files + i;
		uint32_t r = test_rand(&st);

		const size_t tails[] = {1, 17, 100, 999, bs / 3, bs - 1};
		size_t tail = tails[test_rand(&st) % 6];

		/* few distinct tail sizes, so tails repeat */
		switch (r % 6) {
		case 0:
			f->size = r % 3 == 0 ? 0 : tail;
			break;
		case 1:
		case 2:
			f->size = tail;
			break;
		case 3:
			f->size = (1 + test_rand(&st) % 3) * (size_t)bs;
			break;
		default:
			f->size = (1 + test_rand(&st) % 4) * (size_t)bs + tail;
			break;
		}
		/* a handful of start points make repeats likely */
		f->offset = (test_rand(&st) % 8) * ((size_t)bs / 2);
		if (f->offset + f->size > s->pool_size)
			f->offset = s->pool_size - f->size;
		if (test_rand(&st) % 9 == 0)
			f->hole = test_rand(&st) % (3 * (uint64_t)bs);
		if (test_rand(&st) % 7 == 0)
			f->flags = rare_flags[test_rand(&st) % 5];
	}
}

static void free_scenario(scenario_t *s)
{
	free(s->pool);
	free(s->files);
}

typedef struct {
	uint8_t *bytes;
	size_t size;
	file_data_t *fd;
	block_stats_t stats;
	size_t buffers_allocated;
	size_t block_limit;
} packed_t;

static void pack(const scenario_t *s, unsigned int workers,
		 unsigned int backlog, packed_t *out)
{
	const uint8_t *mem;
	bp_ctx_t c;
	size_t i;

	bp_test_workers = workers;
	bp_test_backlog = backlog;
	bp_ctx_open(&c, s->block_size, 0, NULL);
	bp_test_workers = 0;
	bp_test_backlog = 16;

	out->fd = calloc(s->count, sizeof(*out->fd));
	assert_non_null(out->fd);
	for (i = 0; i < s->count; ++i) {
		const file_spec_t *f = s->files + i;

		assert_int_equal(
		    block_processor_begin(c.bp, out->fd + i, f->flags), 0);
		if (f->hole > 0)
			assert_int_equal(
			    block_processor_append_hole(c.bp, f->hole), 0);
		assert_int_equal(
		    block_processor_append(c.bp, s->pool + f->offset, f->size),
		    0);
		assert_int_equal(block_processor_end(c.bp), 0);
		if (f->flags & BP_FILE_ALIGN)
			c.padded = true;
	}
	bp_ctx_finish(&c);
	block_processor_get_stats(c.bp, &out->stats);
	out->buffers_allocated = c.bp->blocks.buffer_bytes / s->block_size;

	mem = test_memory_file_data(c.file, &out->size);
	out->bytes = malloc(out->size);
	assert_non_null(out->bytes);
	memcpy(out->bytes, mem, out->size);
	bp_ctx_close(&c);
}

static void free_packed(const scenario_t *s, packed_t *p)
{
	size_t i;

	for (i = 0; i < s->count; ++i)
		file_data_cleanup(p->fd + i);
	free(p->fd);
	free(p->bytes);
}

static void assert_same_records(const scenario_t *s, const packed_t *a,
				const packed_t *b)
{
	size_t i;

	for (i = 0; i < s->count; ++i) {
		const file_data_t *x = a->fd + i, *y = b->fd + i;

		assert_true(x->size == y->size);
		assert_true(x->blocks_start == y->blocks_start);
		assert_true(x->sparse_bytes == y->sparse_bytes);
		assert_int_equal(x->fragment_index, y->fragment_index);
		assert_int_equal(x->fragment_offset, y->fragment_offset);
		assert_int_equal(x->block_count, y->block_count);
		if (x->block_count > 0)
			assert_memory_equal(x->block_sizes, y->block_sizes,
					    x->block_count * 4);
	}
	assert_memory_equal(&a->stats, &b->stats, sizeof(a->stats));
}

/* ---- the serial bytes, whatever the workers and backlog ------------------ */

static void same_bytes(uint32_t bs, size_t count, uint32_t seed)
{
	static const unsigned int workers[] = {1, 2, 3, 8};
	static const unsigned int backlogs[] = {1, 3, 64};
	packed_t serial, pool;
	scenario_t s;
	size_t w, b;

	make_scenario(&s, bs, count, seed);
	pack(&s, 0, 0, &serial);
	/* the scenario does exercise what it is meant to */
	assert_true(serial.stats.duplicate_blocks > 0);
	assert_true(serial.stats.duplicate_fragments > 0);
	assert_true(serial.stats.sparse_blocks > 0);
	assert_true(serial.stats.fragment_blocks > 1);

	for (w = 0; w < sizeof(workers) / sizeof(workers[0]); ++w) {
		for (b = 0; b < sizeof(backlogs) / sizeof(backlogs[0]); ++b) {
			pack(&s, workers[w], backlogs[b], &pool);
			assert_int_equal(pool.size, serial.size);
			assert_memory_equal(pool.bytes, serial.bytes,
					    serial.size);
			assert_same_records(&s, &serial, &pool);
			free_packed(&s, &pool);
		}
	}
	free_packed(&s, &serial);
	free_scenario(&s);
}

static void test_same_bytes_4k(void **state)
{
	(void)state;
	same_bytes(4096, 400, 1);
	same_bytes(4096, 400, 2);
}

static void test_same_bytes_64k(void **state)
{
	(void)state;
	same_bytes(65536, 120, 3);
}

/* ---- the backlog bounds the blocks in flight ----------------------------- */

static void test_backlog_bounded(void **state)
{
	static const unsigned int backlogs[] = {1, 2, 5, 20};
	packed_t p;
	scenario_t s;
	size_t i;

	(void)state;
	make_scenario(&s, 4096, 300, 4);
	for (i = 0; i < sizeof(backlogs) / sizeof(backlogs[0]); ++i) {
		/* in flight: the backlog, or one fragment block (two
		 * buffers) if it is less; beyond: the block the front end
		 * holds while it asks for the next (one buffer), and the
		 * open fragment block (two) */
		size_t in_flight = backlogs[i] < 2 ? 2 : backlogs[i];

		pack(&s, 8, backlogs[i], &p);
		assert_true(p.buffers_allocated <= in_flight + 3);
		free_packed(&s, &p);
	}
	free_scenario(&s);
}

static void test_backlog_bounded_in_bytes(void **state)
{
	const uint32_t bs = 1u << 20;
	file_data_t fd;
	uint8_t *data;
	bp_ctx_t c;
	size_t i;

	(void)state;
	data = test_make_data(bs, TEST_DATA_RANDOM, 5);
	/* a backlog of 100000 MiB blocks is not honoured: 64 MiB at most */
	bp_test_workers = 2;
	bp_test_backlog = 100000;
	bp_ctx_open(&c, bs, 0, NULL);
	bp_test_workers = 0;
	bp_test_backlog = 16;

	assert_int_equal(
	    block_processor_begin(c.bp, &fd, BP_FILE_DONT_COMPRESS), 0);
	for (i = 0; i < 48; ++i) {
		/* no two blocks alike: nothing waits on deduplication */
		data[0] = (uint8_t)i;
		assert_int_equal(block_processor_append(c.bp, data, bs), 0);
	}
	assert_int_equal(block_processor_end(c.bp), 0);
	bp_ctx_finish(&c);
	assert_true(c.bp->blocks.buffer_bytes <=
		    (64u << 20) + 3 * 2 * (size_t)bs);
	file_data_cleanup(&fd);
	bp_ctx_close(&c);
	free(data);
}

/* ---- a compressor that fails in a worker ----------------------------------
 */

typedef struct {
	atomic_uint calls;
	unsigned int fail_at;
	/* each call takes this long, and the most calls running at once
	 * are counted */
	unsigned int sleep_us;
	atomic_uint running;
	atomic_uint most_running;
} fail_plan_t;

typedef struct {
	sqfs_compressor_t base;
	sqfs_compressor_t *inner;
	fail_plan_t *plan;
} fail_cmp_t;

static const compressor_ops_t fail_ops;

static sqfs_compressor_t *fail_cmp_wrap(sqfs_compressor_t *inner,
					fail_plan_t *plan)
{
	fail_cmp_t *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->base.ops = &fail_ops;
	f->base.cfg = inner->cfg;
	f->inner = inner;
	f->plan = plan;
	return &f->base;
}

static void fail_destroy(sqfs_compressor_t *base)
{
	fail_cmp_t *f = (fail_cmp_t *)base;

	sqfs_compressor_destroy(f->inner);
	free(f);
}

static int fail_copy(const sqfs_compressor_t *base, sqfs_compressor_t **out)
{
	const fail_cmp_t *f = (const fail_cmp_t *)base;
	sqfs_compressor_t *inner;
	int ret;

	ret = sqfs_compressor_copy(f->inner, &inner);
	if (ret != 0)
		return ret;
	*out = fail_cmp_wrap(inner, f->plan);
	return 0;
}

static ptrdiff_t fail_compress(sqfs_compressor_t *base, const uint8_t *in,
			       size_t size, uint8_t *out, size_t outsize)
{
	fail_cmp_t *f = (fail_cmp_t *)base;
	fail_plan_t *plan = f->plan;
	unsigned int now, most;
	ptrdiff_t ret;

	if (atomic_fetch_add(&plan->calls, 1) >= plan->fail_at)
		return SQFS_ERROR_COMPRESSOR;
	now = atomic_fetch_add(&plan->running, 1) + 1;
	most = atomic_load(&plan->most_running);
	while (now > most &&
	       !atomic_compare_exchange_weak(&plan->most_running, &most, now))
		;
	if (plan->sleep_us > 0)
		usleep(plan->sleep_us);
	ret = sqfs_compressor_compress(f->inner, in, size, out, outsize);
	atomic_fetch_sub(&plan->running, 1);
	return ret;
}

static ptrdiff_t fail_uncompress(sqfs_compressor_t *base, const uint8_t *in,
				 size_t size, uint8_t *out, size_t outsize)
{
	fail_cmp_t *f = (fail_cmp_t *)base;

	return sqfs_compressor_uncompress(f->inner, in, size, out, outsize);
}

static const compressor_ops_t fail_ops = {
    .destroy = fail_destroy,
    .copy = fail_copy,
    .compress = fail_compress,
    .uncompress = fail_uncompress,
};

/* Pack the scenario with a compressor failing at call fail_at; the first
 * error must be the compressor's, and then every call is refused. */
static void failing_run(const scenario_t *s, unsigned int workers,
			unsigned int backlog, unsigned int fail_at)
{
	block_processor_desc_t desc;
	block_processor_t *bp;
	sqfs_compressor_t *cmp;
	file_data_t *fd;
	sqfs_file_t *file;
	fail_plan_t plan;
	int ret = 0;
	size_t i;

	memset(&plan, 0, sizeof(plan));
	atomic_init(&plan.calls, 0);
	plan.fail_at = fail_at;
	cmp = fail_cmp_wrap(bp_test_compressor(s->block_size, false), &plan);
	file = test_memory_file_filled(BP_TEST_PREFIX, 0);
	memset(&desc, 0, sizeof(desc));
	desc.file = file;
	desc.cmp = cmp;
	desc.block_size = s->block_size;
	desc.num_workers = workers;
	desc.max_backlog = backlog;
	assert_int_equal(block_processor_create(&desc, &bp), 0);

	fd = calloc(s->count, sizeof(*fd));
	assert_non_null(fd);
	for (i = 0; i < s->count && ret == 0; ++i) {
		const file_spec_t *f = s->files + i;

		ret = block_processor_begin(bp, fd + i, 0);
		if (ret == 0)
			ret = block_processor_append(bp, s->pool + f->offset,
						     f->size);
		if (ret == 0)
			ret = block_processor_end(bp);
	}
	if (ret == 0)
		ret = block_processor_finish(bp);
	assert_int_equal(ret, SQFS_ERROR_COMPRESSOR);
	assert_int_equal(block_processor_finish(bp), SQFS_ERROR_SEQUENCE);

	/* destroy with blocks still queued and workers busy */
	block_processor_destroy(bp);
	for (i = 0; i < s->count; ++i)
		file_data_cleanup(fd + i);
	free(fd);
	sqfs_compressor_destroy(cmp);
	sqfs_file_destroy(file);
}

static void test_compressor_fails(void **state)
{
	static const unsigned int fail_at[] = {0, 1, 7, 50, 200};
	static const unsigned int workers[] = {1, 3, 8};
	scenario_t s;
	size_t i, w;

	(void)state;
	make_scenario(&s, 4096, 300, 6);
	for (w = 0; w < sizeof(workers) / sizeof(workers[0]); ++w) {
		for (i = 0; i < sizeof(fail_at) / sizeof(fail_at[0]); ++i)
			failing_run(&s, workers[w], 2 + (unsigned int)i * 7,
				    fail_at[i]);
	}
	free_scenario(&s);
}

/*
 * Many small files: their tails are packed by the front end and their end
 * markers hold no buffers, so fragment blocks go to the workers as fast as
 * they fill, several at once, even with a backlog of two blocks. (When
 * tails were packed at completion, in order behind the fragment block
 * being compressed, one fragment block was in flight at a time.)
 */
static void test_small_files_keep_workers_busy(void **state)
{
	static uint8_t tail[700];
	block_processor_desc_t desc;
	block_processor_t *bp;
	file_data_t *fd;
	sqfs_file_t *file;
	fail_plan_t plan;
	size_t i, j;

	(void)state;
	memset(&plan, 0, sizeof(plan));
	plan.fail_at = UINT32_MAX;
	plan.sleep_us = 2000;
	file = test_memory_file_filled(BP_TEST_PREFIX, 0);
	memset(&desc, 0, sizeof(desc));
	desc.file = file;
	desc.cmp = fail_cmp_wrap(bp_test_compressor(4096, false), &plan);
	desc.block_size = 4096;
	desc.num_workers = 4;
	/* buffers: two fragment blocks */
	desc.max_backlog = 4;
	assert_int_equal(block_processor_create(&desc, &bp), 0);

	fd = calloc(800, sizeof(*fd));
	assert_non_null(fd);
	for (i = 0; i < 400; ++i) {
		/* no two tails alike: every one is packed */
		for (j = 0; j < sizeof(tail); ++j)
			tail[j] = (uint8_t)(i * 31 + j * (i % 7 + 1));
		assert_int_equal(block_processor_begin(bp, fd + i, 0), 0);
		assert_int_equal(block_processor_append(bp, tail, sizeof(tail)),
				 0);
		assert_int_equal(block_processor_end(bp), 0);
		/* and empty files: a marker each, no buffers */
		assert_int_equal(block_processor_begin(bp, fd + 400 + i, 0), 0);
		assert_int_equal(block_processor_end(bp), 0);
	}
	assert_int_equal(block_processor_finish(bp), 0);
	/* 400 tails of 700 bytes: 5 to a 4 KiB block, 80 fragment blocks */
	assert_true(atomic_load(&plan.calls) >= 80);
	assert_true(atomic_load(&plan.most_running) >= 2);
	/* buffers: the backlog, the block the front end fills, the open
	 * fragment block */
	assert_true(bp->blocks.buffer_bytes <= (4 + 3) * 4096);

	block_processor_destroy(bp);
	for (i = 0; i < 800; ++i)
		file_data_cleanup(fd + i);
	free(fd);
	sqfs_compressor_destroy(desc.cmp);
	sqfs_file_destroy(file);
}

/*
 * The incompressible-block probe: blocks of random bytes are stored raw
 * without a compressor call, and the image is the same bytes as without
 * the probe (the compressor would have given up on them too). Blocks the
 * compressor can shrink still reach it: text, and random bytes that
 * repeat within the block (high byte entropy, but LZ4 finds the repeats).
 */
/* Pack data as one file; returns the compressor calls made, the image
 * in *image (malloc'd) and *image_size. */
static unsigned int probe_run(const uint8_t *data, size_t size, bool no_probe,
			      unsigned int workers, uint8_t **image,
			      size_t *image_size)
{
	block_processor_desc_t desc;
	block_processor_t *bp;
	const uint8_t *img;
	file_data_t fd;
	sqfs_file_t *file;
	fail_plan_t plan;
	size_t img_size;

	memset(&plan, 0, sizeof(plan));
	plan.fail_at = UINT32_MAX;
	file = test_memory_file_filled(BP_TEST_PREFIX, 0);
	memset(&desc, 0, sizeof(desc));
	desc.file = file;
	desc.cmp = fail_cmp_wrap(bp_test_compressor(65536, false), &plan);
	desc.block_size = 65536;
	desc.num_workers = workers;
	desc.no_probe = no_probe;
	assert_int_equal(block_processor_create(&desc, &bp), 0);
	assert_int_equal(block_processor_begin(bp, &fd, 0), 0);
	assert_int_equal(block_processor_append(bp, data, size), 0);
	assert_int_equal(block_processor_end(bp), 0);
	assert_int_equal(block_processor_finish(bp), 0);

	img = test_memory_file_data(file, &img_size);
	*image = malloc(img_size);
	assert_non_null(*image);
	memcpy(*image, img, img_size);
	*image_size = img_size;
	assert_int_equal(fd.block_count, size / 65536);

	block_processor_destroy(bp);
	file_data_cleanup(&fd);
	sqfs_compressor_destroy(desc.cmp);
	sqfs_file_destroy(file);
	return atomic_load(&plan.calls);
}

static void test_probe_skips_incompressible(void **state)
{
	const size_t bs = 65536;
	uint8_t *data = malloc(8 * bs), *random, *text, *with, *without;
	size_t i, with_size, without_size;
	unsigned int w;

	(void)state;
	assert_non_null(data);
	random = test_make_data(4 * bs, TEST_DATA_RANDOM, 3);
	text = test_make_data(2 * bs, TEST_DATA_TEXT, 4);
	/* blocks 0-3 random, 4-5 text, 6 one random 4 KiB piece 16 times,
	 * 7 random again */
	memcpy(data, random, 4 * bs);
	memcpy(data + 4 * bs, text, 2 * bs);
	for (i = 0; i < 16; ++i)
		memcpy(data + 6 * bs + i * 4096, random, 4096);
	memcpy(data + 7 * bs, random + bs, bs);

	if (!bp_probe_available())
		skip();
	for (w = 0; w < 3; w += 2) {
		/* calls: 3 (text, text, repeats) against all 8 */
		assert_int_equal(
		    probe_run(data, 8 * bs, false, w, &with, &with_size), 3);
		assert_int_equal(
		    probe_run(data, 8 * bs, true, w, &without, &without_size),
		    8);
		assert_int_equal(with_size, without_size);
		assert_memory_equal(with, without, with_size);
		free(with);
		free(without);
	}
	free(random);
	free(text);
	free(data);
}

/* Workers stop at once: destroy right after many blocks were queued. */
static void test_destroy_mid_stream(void **state)
{
	file_data_t fd;
	uint8_t *data;
	bp_ctx_t c;

	(void)state;
	data = test_make_data(64 * 4096, TEST_DATA_TEXT, 8);
	bp_test_workers = 4;
	bp_test_backlog = 64;
	bp_ctx_open(&c, 4096, 0, NULL);
	bp_test_workers = 0;
	bp_test_backlog = 16;
	assert_int_equal(block_processor_begin(c.bp, &fd, 0), 0);
	assert_int_equal(block_processor_append(c.bp, data, 64 * 4096 - 100),
			 0);
	bp_ctx_close(&c);
	file_data_cleanup(&fd);
	free(data);
}

/*
 * block_processor_files_complete: a record it calls complete is final.
 * Files of whole blocks (every fifth a duplicate, cut off at its end),
 * tails, empty files; each record is copied the moment it is complete
 * and compared with what it holds after finish.
 */
static void run_files_complete(unsigned int workers)
{
	enum { FILES = 300 };
	static uint8_t data[3 * 4096 + 1000];
	static file_data_t fd[FILES], snap[FILES];
	block_processor_desc_t desc;
	block_processor_t *bp;
	sqfs_file_t *file;
	uint64_t done = 0, now;
	size_t i, j;

	memset(&desc, 0, sizeof(desc));
	file = test_memory_file_filled(BP_TEST_PREFIX, 0);
	desc.file = file;
	desc.cmp = bp_test_compressor(4096, false);
	desc.block_size = 4096;
	desc.num_workers = workers;
	desc.max_backlog = 6;
	assert_int_equal(block_processor_create(&desc, &bp), 0);

	for (i = 0; i < FILES; ++i) {
		size_t size =
		    (i % 4 == 3) ? 0 : 1000 + (i % 5 == 0 ? 2 : i % 3) * 4096;

		/* every fifth file the same: its blocks are cut off */
		for (j = 0; j < size; ++j)
			data[j] = (uint8_t)((i % 5 == 0 ? 1 : i) * 7 + j / 13);
		assert_int_equal(block_processor_begin(bp, &fd[i], 0), 0);
		assert_int_equal(block_processor_append(bp, data, size), 0);
		assert_int_equal(block_processor_end(bp), 0);

		now = block_processor_files_complete(bp);
		assert_true(now >= done && now <= i + 1);
		for (; done < now; ++done) {
			snap[done] = fd[done];
			snap[done].block_sizes = NULL;
			if (fd[done].block_count > 0) {
				snap[done].block_sizes = malloc(
				    fd[done].block_count * sizeof(uint32_t));
				assert_non_null(snap[done].block_sizes);
				memcpy(snap[done].block_sizes,
				       fd[done].block_sizes,
				       fd[done].block_count * sizeof(uint32_t));
			}
		}
	}
	assert_int_equal(block_processor_finish(bp), 0);
	now = block_processor_files_complete(bp);
	assert_int_equal(now, FILES);
	{
		block_stats_t st;

		block_processor_get_stats(bp, &st);
		assert_true(st.duplicate_blocks > 0);
	}
	for (; done < now; ++done) {
		snap[done] = fd[done];
		snap[done].block_sizes = NULL;
		if (fd[done].block_count > 0) {
			snap[done].block_sizes =
			    malloc(fd[done].block_count * sizeof(uint32_t));
			assert_non_null(snap[done].block_sizes);
			memcpy(snap[done].block_sizes, fd[done].block_sizes,
			       fd[done].block_count * sizeof(uint32_t));
		}
	}

	for (i = 0; i < FILES; ++i) {
		assert_true(snap[i].size == fd[i].size);
		assert_true(snap[i].blocks_start == fd[i].blocks_start);
		assert_true(snap[i].sparse_bytes == fd[i].sparse_bytes);
		assert_int_equal(snap[i].fragment_index, fd[i].fragment_index);
		assert_int_equal(snap[i].fragment_offset,
				 fd[i].fragment_offset);
		assert_int_equal(snap[i].block_count, fd[i].block_count);
		if (fd[i].block_count > 0)
			assert_memory_equal(
			    snap[i].block_sizes, fd[i].block_sizes,
			    fd[i].block_count * sizeof(uint32_t));
		file_data_cleanup(&snap[i]);
		file_data_cleanup(&fd[i]);
	}
	block_processor_destroy(bp);
	sqfs_compressor_destroy(desc.cmp);
	sqfs_file_destroy(file);
}

static void test_files_complete(void **state)
{
	(void)state;
	run_files_complete(0);
	run_files_complete(1);
	run_files_complete(3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_bytes_4k),
	    cmocka_unit_test(test_same_bytes_64k),
	    cmocka_unit_test(test_backlog_bounded),
	    cmocka_unit_test(test_backlog_bounded_in_bytes),
	    cmocka_unit_test(test_compressor_fails),
	    cmocka_unit_test(test_destroy_mid_stream),
	    cmocka_unit_test(test_small_files_keep_workers_busy),
	    cmocka_unit_test(test_probe_skips_incompressible),
	    cmocka_unit_test(test_files_complete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

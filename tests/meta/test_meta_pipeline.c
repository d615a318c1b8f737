/* SPDX-License-Identifier: MIT */
/*
 * The metadata pipeline (lib/sqfs/meta_pipeline.c) against a model: a
 * script of records appended to the two tables, with fields naming
 * blocks of the other table. After finish, each table read back must be
 * the records with every field holding the position on disk of the block
 * it names, encoded exactly as sqfs_meta_writer encodes the same bytes;
 * and the output must be the same for any number of workers and any back
 * pressure. Then the rules: back pressure holds, the chains of the worst
 * case do not deadlock, independent blocks are compressed at once, and a
 * compressor or a sink failing mid-way gives its error from then on.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/comp/internal.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/meta_pipeline_internal.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MD SQFS_META_BLOCK_SIZE
#define T_INODES META_PIPE_INODES
#define T_DIRS META_PIPE_DIRS

/* ---- a sink in memory that can fail ---------------------------------- */

typedef struct {
	meta_sink_t base;
	uint8_t *data;
	size_t size;
	size_t writes;
	/* the write that fails (counted from 1), 0: none */
	size_t fail_at;
} test_sink_t;

static int sink_write(meta_sink_t *base, const void *data, size_t size)
{
	test_sink_t *s = (test_sink_t *)base;

	s->writes += 1;
	if (s->writes == s->fail_at)
		return SQFS_ERROR_IO;
	s->data = realloc(s->data, s->size + size);
	assert_non_null(s->data);
	memcpy(s->data + s->size, data, size);
	s->size += size;
	return 0;
}

static void sink_init(test_sink_t *s)
{
	memset(s, 0, sizeof(*s));
	s->base.write = sink_write;
}

/* ---- a compressor that counts, sleeps and fails ------------------------ */

typedef struct {
	atomic_uint calls;
	/* the call that fails (counted from 1), 0: none */
	unsigned int fail_at;
	unsigned int sleep_us;
	atomic_uint running;
	atomic_uint most_running;
} plan_t;

typedef struct {
	sqfs_compressor_t base;
	sqfs_compressor_t *inner;
	plan_t *plan;
} plan_cmp_t;

static const compressor_ops_t plan_ops;

static sqfs_compressor_t *plan_wrap(sqfs_compressor_t *inner, plan_t *plan)
{
	plan_cmp_t *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->base.ops = &plan_ops;
	p->base.cfg = inner->cfg;
	p->inner = inner;
	p->plan = plan;
	return &p->base;
}

static void plan_destroy(sqfs_compressor_t *base)
{
	plan_cmp_t *p = (plan_cmp_t *)base;

	sqfs_compressor_destroy(p->inner);
	free(p);
}

static int plan_copy(const sqfs_compressor_t *base, sqfs_compressor_t **out)
{
	const plan_cmp_t *p = (const plan_cmp_t *)base;
	sqfs_compressor_t *inner;
	int ret;

	ret = sqfs_compressor_copy(p->inner, &inner);
	if (ret != 0)
		return ret;
	*out = plan_wrap(inner, p->plan);
	return 0;
}

static ptrdiff_t plan_compress(sqfs_compressor_t *base, const uint8_t *in,
			       size_t size, uint8_t *out, size_t outsize)
{
	plan_cmp_t *p = (plan_cmp_t *)base;
	plan_t *plan = p->plan;
	unsigned int now, most;
	ptrdiff_t ret;

	if (atomic_fetch_add(&plan->calls, 1) + 1 == plan->fail_at)
		return SQFS_ERROR_COMPRESSOR;
	now = atomic_fetch_add(&plan->running, 1) + 1;
	most = atomic_load(&plan->most_running);
	while (now > most &&
	       !atomic_compare_exchange_weak(&plan->most_running, &most, now))
		;
	if (plan->sleep_us > 0)
		usleep(plan->sleep_us);
	ret = sqfs_compressor_compress(p->inner, in, size, out, outsize);
	atomic_fetch_sub(&plan->running, 1);
	return ret;
}

static ptrdiff_t plan_uncompress(sqfs_compressor_t *base, const uint8_t *in,
				 size_t size, uint8_t *out, size_t outsize)
{
	plan_cmp_t *p = (plan_cmp_t *)base;

	return sqfs_compressor_uncompress(p->inner, in, size, out, outsize);
}

static const compressor_ops_t plan_ops = {
    .destroy = plan_destroy,
    .copy = plan_copy,
    .compress = plan_compress,
    .uncompress = plan_uncompress,
};

static sqfs_compressor_t *make_cmp(plan_t *plan)
{
	sqfs_compressor_t *cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);

	if (cmp == NULL)
		skip();
	memset(plan, 0, sizeof(*plan));
	atomic_init(&plan->calls, 0);
	atomic_init(&plan->running, 0);
	atomic_init(&plan->most_running, 0);
	return plan_wrap(cmp, plan);
}

/* ---- the script and its model ------------------------------------------ */

typedef struct {
	uint64_t pos;
	uint64_t block;
} field_t;

typedef struct {
	uint8_t *bytes;
	size_t size;
	field_t *fields;
	size_t count;
} model_table_t;

typedef enum {
	/* records of every size, a few fields, some in old blocks */
	SCRIPT_MIXED,
	/* tiny records alternating between the tables, each with a field
	 * naming the other table's current block: the longest chains */
	SCRIPT_CHAINS,
	/* no fields at all: every block can be compressed at once */
	SCRIPT_INDEPENDENT,
} script_t;

typedef struct {
	script_t script;
	size_t steps;
	size_t workers;
	size_t max_blocks;
	/* check after each append that the back pressure holds */
	bool watch_backlog;
} run_desc_t;

typedef struct {
	model_table_t model[META_PIPE_TABLES];
	test_sink_t sinks[META_PIPE_TABLES];
	meta_pipe_t *mp;
	/* the first error a call returned, and at which step */
	int error;
	size_t error_step;
	/* the most blocks complete and unwritten seen after a call */
	size_t most_unwritten;
} run_t;

static void model_append(model_table_t *m, const uint8_t *data, size_t size)
{
	m->bytes = realloc(m->bytes, m->size + size);
	assert_non_null(m->bytes);
	memcpy(m->bytes + m->size, data, size);
	m->size += size;
}

static void model_field(model_table_t *m, uint64_t pos, uint64_t block)
{
	m->fields = realloc(m->fields, (m->count + 1) * sizeof(field_t));
	assert_non_null(m->fields);
	m->fields[m->count].pos = pos;
	m->fields[m->count].block = block;
	m->count += 1;
}

static void run_free(run_t *r)
{
	meta_pipe_destroy(r->mp);
	for (int i = 0; i < META_PIPE_TABLES; ++i) {
		free(r->model[i].bytes);
		free(r->model[i].fields);
		free(r->sinks[i].data);
	}
}

static size_t unwritten(const run_t *r)
{
	size_t complete = 0, written = 0;

	for (int i = 0; i < META_PIPE_TABLES; ++i) {
		complete += meta_pipe_block_count(r->mp, i);
		written += r->sinks[i].writes;
	}
	return complete - written;
}

static void note(run_t *r, int ret, size_t step)
{
	if (ret != 0 && r->error == 0) {
		r->error = ret;
		r->error_step = step;
	}
	/* once failed, every call says so */
	if (r->error != 0)
		assert_int_equal(ret, r->error);
}

/* One record: size bytes into table t, with nf fields. */
static void record(run_t *r, const run_desc_t *d, uint32_t *rng, size_t step,
		   int t, size_t size, size_t nf, bool old_blocks)
{
	meta_stream_t *ms = meta_pipe_stream(r->mp, t);
	meta_stream_t *other = meta_pipe_stream(r->mp, t ^ 1);
	uint8_t *buf = malloc(size);
	uint64_t block, here, other_block;
	uint32_t offset, other_offset;
	size_t at = 0, cut;
	int ret;

	assert_non_null(buf);
	test_fill_data(buf, size,
		       test_rand(rng) % 4 ? TEST_DATA_TEXT : TEST_DATA_RANDOM,
		       test_rand(rng));
	meta_stream_position(ms, &block, &offset);
	here = block * MD + offset;
	meta_stream_position(other, &other_block, &other_offset);
	if (size < 4)
		nf = 0;

	for (size_t i = 0; i < nf; ++i) {
		uint64_t target = other_block;

		/* fields in order, not overlapping, anywhere in the record
		 * (so some straddle two blocks) */
		if (size - 4 < at)
			break;
		at += test_rand(rng) % (size - 4 - at + 1);
		if (old_blocks && other_block > 0 && test_rand(rng) % 3 == 0)
			target = test_rand(rng) % other_block;
		/* the placeholder is the block number, as the encoders
		 * write it */
		put_le32(buf + at, (uint32_t)target);
		ret = meta_stream_refer(ms, at, target);
		note(r, ret, step);
		model_field(&r->model[t], here + at, target);
		at += 4;
	}

	/* appended in two pieces, as records sometimes are */
	cut = test_rand(rng) % (size + 1);
	ret = meta_stream_append(ms, buf, cut);
	note(r, ret, step);
	ret = meta_stream_append(ms, buf + cut, size - cut);
	note(r, ret, step);
	model_append(&r->model[t], buf, size);
	free(buf);

	if (r->error == 0) {
		size_t now = unwritten(r);

		if (now > r->most_unwritten)
			r->most_unwritten = now;
		if (d->watch_backlog)
			assert_true(now < d->max_blocks);
	}
}

static void run_script(run_t *r, const run_desc_t *d, sqfs_compressor_t *cmp,
		       size_t sink_fail_at)
{
	meta_pipe_desc_t desc;
	uint32_t rng = 0x5eed1234u;
	int ret;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < META_PIPE_TABLES; ++i)
		sink_init(&r->sinks[i]);
	r->sinks[T_DIRS].fail_at = sink_fail_at;

	memset(&desc, 0, sizeof(desc));
	desc.cmp = cmp;
	desc.sinks[T_INODES] = &r->sinks[T_INODES].base;
	desc.sinks[T_DIRS] = &r->sinks[T_DIRS].base;
	desc.num_workers = d->workers;
	desc.max_blocks = d->max_blocks;
	assert_int_equal(meta_pipe_create(&desc, &r->mp), 0);

	for (size_t step = 0; step < d->steps; ++step) {
		uint32_t x = test_rand(&rng);

		switch (d->script) {
		case SCRIPT_MIXED: {
			size_t size = x % 16 == 0 ? 1 + test_rand(&rng) % 9000
						  : 1 + test_rand(&rng) % 300;

			record(r, d, &rng, step, (x >> 8) % 3 == 0, size,
			       test_rand(&rng) % 4, true);
			break;
		}
		case SCRIPT_CHAINS:
			record(r, d, &rng, step, (int)(step % 2), 24 + x % 40,
			       1, false);
			break;
		case SCRIPT_INDEPENDENT:
			record(r, d, &rng, step, x % 2, 100 + x % 200, 0,
			       false);
			break;
		}
	}
	ret = meta_pipe_finish(r->mp);
	note(r, ret, d->steps);
}

/* The positions of a table's blocks on disk (count + 1 of them: the end
 * last) and the bytes they unpack to. */
static uint64_t *decode_table(const test_sink_t *s, sqfs_compressor_t *cmp,
			      uint8_t **bytes, size_t *size, size_t *count)
{
	uint64_t *pos = NULL;
	size_t n = 0, pos_in = 0, out = 0;
	uint8_t *data = NULL;

	while (pos_in < s->size) {
		uint16_t hdr;
		size_t len;

		assert_true(s->size - pos_in >= 2);
		pos = realloc(pos, (n + 2) * sizeof(*pos));
		assert_non_null(pos);
		pos[n++] = pos_in;
		hdr = get_le16(s->data + pos_in);
		len = hdr & 0x7FFF;
		assert_true(len >= 1 && len <= s->size - pos_in - 2);
		/* every block but the last unpacks to 8 KiB */
		assert_true(out % MD == 0);
		data = realloc(data, out + MD);
		assert_non_null(data);
		if (hdr & 0x8000) {
			memcpy(data + out, s->data + pos_in + 2, len);
			out += len;
		} else {
			ptrdiff_t ret;

			assert_non_null(cmp);
			ret = sqfs_compressor_uncompress(
			    cmp, s->data + pos_in + 2, len, data + out, MD);
			assert_true(ret > (ptrdiff_t)len);
			out += (size_t)ret;
		}
		pos_in += 2 + len;
	}
	pos = realloc(pos, (n + 1) * sizeof(*pos));
	assert_non_null(pos);
	pos[n] = pos_in;
	*bytes = data;
	*size = out;
	*count = n;
	return pos;
}

/* What sqfs_meta_writer makes of the same bytes. */
static void expect_meta_writer(const uint8_t *bytes, size_t size,
			       sqfs_compressor_t *cmp, const test_sink_t *got)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_writer_t *mw;
	const uint8_t *data;
	size_t data_size;

	assert_int_equal(
	    sqfs_meta_writer_create(
		file, cmp, cmp == NULL ? SQFS_META_WRITER_NO_COMPRESS : 0, &mw),
	    0);
	assert_int_equal(sqfs_meta_writer_append(mw, bytes, size), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	data = test_memory_file_data(file, &data_size);
	assert_int_equal(data_size, got->size);
	assert_memory_equal(data, got->data, data_size);
	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
}

/* The whole output against the model. */
static void check_output(run_t *r, sqfs_compressor_t *cmp)
{
	uint64_t *pos[META_PIPE_TABLES];
	uint8_t *bytes[META_PIPE_TABLES];
	size_t size[META_PIPE_TABLES], count[META_PIPE_TABLES];
	uint64_t ref;

	assert_int_equal(r->error, 0);
	for (int t = 0; t < META_PIPE_TABLES; ++t) {
		pos[t] = decode_table(&r->sinks[t], cmp, &bytes[t], &size[t],
				      &count[t]);
		assert_int_equal(size[t], r->model[t].size);
		assert_int_equal(count[t], meta_pipe_block_count(r->mp, t));
		assert_int_equal(meta_pipe_table_size(r->mp, t),
				 r->sinks[t].size);
	}

	for (int t = 0; t < META_PIPE_TABLES; ++t) {
		model_table_t *m = &r->model[t];

		/* the model's bytes with every field filled in */
		for (size_t i = 0; i < m->count; ++i) {
			assert_true(m->fields[i].block <= count[t ^ 1]);
			put_le32(m->bytes + m->fields[i].pos,
				 (uint32_t)pos[t ^ 1][m->fields[i].block]);
		}
		assert_memory_equal(bytes[t], m->bytes, m->size);
		expect_meta_writer(m->bytes, m->size, cmp, &r->sinks[t]);

		/* references made real: every block and the end */
		for (size_t b = 0; b <= count[t]; ++b) {
			uint64_t vref = (b << 16) | (b % MD);

			assert_int_equal(
			    meta_pipe_resolve(r->mp, t, vref, &ref), 0);
			assert_int_equal(ref, (pos[t][b] << 16) | (b % MD));
		}
		assert_int_equal(
		    meta_pipe_resolve(r->mp, t, (count[t] + 1) << 16, &ref),
		    SQFS_ERROR_ARG_INVALID);
		assert_int_equal(meta_pipe_resolve(r->mp, t, MD, &ref),
				 SQFS_ERROR_ARG_INVALID);
	}
	for (int t = 0; t < META_PIPE_TABLES; ++t) {
		free(pos[t]);
		free(bytes[t]);
	}
}

static bool same_output(const run_t *a, const run_t *b)
{
	for (int t = 0; t < META_PIPE_TABLES; ++t) {
		if (a->sinks[t].size != b->sinks[t].size ||
		    memcmp(a->sinks[t].data, b->sinks[t].data,
			   a->sinks[t].size) != 0)
			return false;
	}
	return true;
}

/* ---- the tests ----------------------------------------------------------- */

/* The model holds, and the bytes are the same at every worker count and
 * back pressure. */
static void same_bytes(script_t script, size_t steps, bool raw)
{
	static const size_t workers[] = {0, 1, 2, 3, 8};
	static const size_t backlogs[] = {0, 1, 2, 5};
	sqfs_compressor_t *cmp = NULL;
	run_desc_t d = {script, steps, 0, 0, false};
	run_t ref, run;
	plan_t plan;

	if (!raw)
		cmp = make_cmp(&plan);
	run_script(&ref, &d, cmp, 0);
	check_output(&ref, cmp);
	assert_true(meta_pipe_block_count(ref.mp, T_INODES) > 4);
	assert_true(meta_pipe_block_count(ref.mp, T_DIRS) > 4);

	for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); ++w) {
		for (size_t b = 0; b < sizeof(backlogs) / sizeof(backlogs[0]);
		     ++b) {
			d.workers = workers[w];
			d.max_blocks = backlogs[b];
			run_script(&run, &d, cmp, 0);
			assert_int_equal(run.error, 0);
			if (!same_output(&ref, &run))
				fail_msg("script %d: %zu workers, backlog "
					 "%zu: other bytes",
					 (int)script, workers[w], backlogs[b]);
			run_free(&run);
		}
	}
	run_free(&ref);
	sqfs_compressor_destroy(cmp);
}

static void test_mixed(void **state)
{
	(void)state;
	same_bytes(SCRIPT_MIXED, 3000, false);
}

static void test_mixed_raw(void **state)
{
	(void)state;
	same_bytes(SCRIPT_MIXED, 1500, true);
}

static void test_chains(void **state)
{
	(void)state;
	same_bytes(SCRIPT_CHAINS, 6000, false);
}

/* The producer never runs more than max_blocks ahead of the sinks, even
 * with slow workers; and it does run ahead when allowed. */
static void test_back_pressure(void **state)
{
	run_desc_t d = {SCRIPT_MIXED, 1500, 3, 3, true};
	sqfs_compressor_t *cmp;
	run_t run;
	plan_t plan;

	(void)state;
	cmp = make_cmp(&plan);
	plan.sleep_us = 500;
	run_script(&run, &d, cmp, 0);
	check_output(&run, cmp);
	run_free(&run);

	d.max_blocks = 1;
	run_script(&run, &d, cmp, 0);
	check_output(&run, cmp);
	assert_int_equal(run.most_unwritten, 0);
	run_free(&run);

#ifdef WITH_PTHREAD
	/* the blocks of a slow pool pile up to the limit */
	d.max_blocks = 12;
	d.script = SCRIPT_INDEPENDENT;
	plan.sleep_us = 3000;
	run_script(&run, &d, cmp, 0);
	check_output(&run, cmp);
	assert_true(run.most_unwritten >= 4);
	run_free(&run);
#endif
	sqfs_compressor_destroy(cmp);
}

/* Blocks without fields go to the workers at once: several compress at
 * the same time. */
static void test_parallel(void **state)
{
	run_desc_t d = {SCRIPT_INDEPENDENT, 2000, 3, 0, false};
	sqfs_compressor_t *cmp;
	run_t run;
	plan_t plan;

	(void)state;
	cmp = make_cmp(&plan);
	plan.sleep_us = 2000;
	run_script(&run, &d, cmp, 0);
	check_output(&run, cmp);
#ifdef WITH_PTHREAD
	assert_true(atomic_load(&plan.most_running) >= 2);
#else
	assert_int_equal(atomic_load(&plan.most_running), 1);
#endif
	assert_true(atomic_load(&plan.most_running) <= 3);
	run_free(&run);

	/* one job: on the calling thread, one block at a time */
	atomic_store(&plan.most_running, 0);
	d.workers = 1;
	run_script(&run, &d, cmp, 0);
	check_output(&run, cmp);
	assert_int_equal(atomic_load(&plan.most_running), 1);
	run_free(&run);
	sqfs_compressor_destroy(cmp);
}

/* A compressor failing at call n, or the directory sink failing at write
 * n: that error from then on, for every call; only blocks before it
 * written; nothing leaks (the ASan build) or hangs. */
static void failing(size_t workers, unsigned int cmp_fail, size_t sink_fail)
{
	run_desc_t d = {SCRIPT_MIXED, 1500, workers, 4, false};
	sqfs_compressor_t *cmp;
	size_t total[META_PIPE_TABLES];
	run_t run;
	plan_t plan;
	uint64_t ref;

	cmp = make_cmp(&plan);
	run_script(&run, &d, cmp, 0);
	assert_int_equal(run.error, 0);
	for (int t = 0; t < META_PIPE_TABLES; ++t)
		total[t] = run.sinks[t].size;
	run_free(&run);

	atomic_store(&plan.calls, 0);
	plan.fail_at = cmp_fail;
	run_script(&run, &d, cmp, sink_fail);
	assert_int_equal(run.error,
			 cmp_fail != 0 ? SQFS_ERROR_COMPRESSOR : SQFS_ERROR_IO);
	/* it comes up while appending, not only at the end */
	assert_true(run.error_step < d.steps);
	for (int t = 0; t < META_PIPE_TABLES; ++t) {
		assert_true(run.sinks[t].size <= total[t]);
		assert_int_equal(
		    meta_stream_append(meta_pipe_stream(run.mp, t), "x", 1),
		    run.error);
	}
	assert_true(run.sinks[T_INODES].size + run.sinks[T_DIRS].size <
		    total[T_INODES] + total[T_DIRS]);
	assert_int_equal(meta_pipe_finish(run.mp), run.error);
	assert_int_equal(meta_pipe_resolve(run.mp, T_INODES, 0, &ref),
			 run.error);
	run_free(&run);
	sqfs_compressor_destroy(cmp);
}

static void test_failing_compressor(void **state)
{
	(void)state;
	for (size_t w = 0; w <= 3; ++w) {
		failing(w, 1, 0);
		failing(w, 7, 0);
		failing(w, 25, 0);
	}
}

static void test_failing_sink(void **state)
{
	(void)state;
	for (size_t w = 0; w <= 3; ++w) {
		failing(w, 0, 1);
		failing(w, 0, 6);
	}
}

/* What the streams refuse: a refusal leaves the pipeline as it was, a
 * failure ends it. */
static void test_rules(void **state)
{
	static uint8_t buf[2 * MD];
	meta_stream_t *im, *dm;
	meta_pipe_desc_t desc;
	test_sink_t sinks[2];
	meta_pipe_t *mp;
	uint64_t ref;

	(void)state;
	sink_init(&sinks[0]);
	sink_init(&sinks[1]);
	memset(&desc, 0, sizeof(desc));
	assert_int_equal(meta_pipe_create(&desc, &mp), SQFS_ERROR_ARG_INVALID);
	desc.sinks[0] = &sinks[0].base;
	desc.sinks[1] = &sinks[1].base;

	/* nothing written: two empty tables */
	assert_int_equal(meta_pipe_create(&desc, &mp), 0);
	assert_int_equal(meta_pipe_resolve(mp, T_INODES, 5, &ref),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(meta_pipe_finish(mp), 0);
	assert_int_equal(meta_pipe_resolve(mp, T_INODES, 5, &ref), 0);
	assert_int_equal(ref, 5);
	assert_int_equal(meta_pipe_table_size(mp, T_DIRS), 0);
	assert_int_equal(sinks[0].writes + sinks[1].writes, 0);
	/* finished: no more */
	im = meta_pipe_stream(mp, T_INODES);
	assert_int_equal(meta_stream_append(im, buf, 1), SQFS_ERROR_SEQUENCE);
	assert_int_equal(meta_stream_refer(im, 0, 0), SQFS_ERROR_SEQUENCE);
	assert_int_equal(meta_pipe_finish(mp), SQFS_ERROR_SEQUENCE);
	meta_pipe_destroy(mp);

	assert_int_equal(meta_pipe_create(&desc, &mp), 0);
	im = meta_pipe_stream(mp, T_INODES);
	dm = meta_pipe_stream(mp, T_DIRS);
	/* a block that does not exist yet: the directory table has only
	 * block 0, being filled */
	assert_int_equal(meta_stream_refer(im, 0, 1), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(meta_stream_refer(im, 0, 0), 0);
	/* fields come in order and do not overlap */
	assert_int_equal(meta_stream_refer(im, 2, 0), SQFS_ERROR_SEQUENCE);
	assert_int_equal(meta_stream_refer(im, 4, 0), 0);
	assert_int_equal(meta_stream_append(im, buf, 8), 0);
	assert_int_equal(meta_stream_append(dm, buf, 2 * MD), 0);
	assert_int_equal(meta_stream_refer(im, 0, 3), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(meta_stream_refer(im, 0, 2), 0);
	assert_int_equal(meta_stream_append(im, buf, 4), 0);
	/* a field declared and never appended ends it */
	assert_int_equal(meta_stream_refer(im, 10, 1), 0);
	assert_int_equal(meta_pipe_finish(mp), SQFS_ERROR_SEQUENCE);
	assert_int_equal(meta_stream_append(dm, buf, 1), SQFS_ERROR_SEQUENCE);
	assert_int_equal(meta_pipe_finish(mp), SQFS_ERROR_SEQUENCE);
	meta_pipe_destroy(mp);

	free(sinks[0].data);
	free(sinks[1].data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mixed),
	    cmocka_unit_test(test_mixed_raw),
	    cmocka_unit_test(test_chains),
	    cmocka_unit_test(test_back_pressure),
	    cmocka_unit_test(test_parallel),
	    cmocka_unit_test(test_failing_compressor),
	    cmocka_unit_test(test_failing_sink),
	    cmocka_unit_test(test_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

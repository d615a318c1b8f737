/* SPDX-License-Identifier: MIT */
/*
 * test_shared_tails.c - small files whose tails are read far from where
 * they were packed: duplicates of files read long before, and files read
 * in another order than they were written. The file stream and the data
 * reader give the right bytes and unpack each fragment block a bounded
 * number of times, not once per file (lib/sqfs/tail_cache.c, the cached
 * fragment blocks of lib/sqfs/file_stream.c); and the tail cache's own
 * rules: probation, protection, the doorkeeper, its byte bound, held
 * entries.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "support/test_util.h"

#include "reader/count_uncompress.h"

#include "sqfs/data_reader.h"
#include "sqfs/error.h"
#include "sqfs/file_stream.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "sqfs/tail_cache_internal.h"
#include "sqfs/walker.h"
#include "sqfs/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BS 4096u
#define RAW_BIT 0x01000000u

/* Files in all; the first ORIG_FIRST are all originals, after that 1 in 5
 * is a duplicate of an original chosen from a reservoir of POOL (as
 * scripts/gentar makes them, denser). So a duplicated original is met
 * again some 5,000 files later: within what a stream's tail cache holds on
 * probation, beyond what a data reader's does. The tails read (some 9 MB)
 * are twice what either cache holds: it evicts all along. */
#define FILES 40000u
#define ORIG_FIRST 2000u
#define POOL 1024u

static const unsigned int job_counts[] = {1, 2, 3, 8};
#define JOB_COUNTS (sizeof(job_counts) / sizeof(job_counts[0]))

/* ---- the image ------------------------------------------------------------
 */

typedef struct {
	/* for each file, the original whose contents it has (itself if it
	 * is one) */
	size_t src[FILES];
	size_t dups;
	/* how many distinct originals the duplicates copy */
	size_t targets;
} plan_t;

/* Which files are duplicates of which: originals anywhere in the past,
 * uniformly (Algorithm R over the originals), so their tails lie in any
 * fragment block written before. */
static void make_plan(plan_t *pl)
{
	size_t pool[POOL], seen = 0;
	bool *used = calloc(FILES, sizeof(bool));
	uint32_t rng = 12345;

	assert_non_null(used);
	memset(pl, 0, sizeof(*pl));
	for (size_t i = 0; i < FILES; ++i) {
		uint32_t r = test_rand(&rng);

		if (i >= ORIG_FIRST && r % 5 == 0) {
			pl->src[i] = pool[test_rand(&rng) % POOL];
			pl->dups += 1;
			if (!used[pl->src[i]]) {
				used[pl->src[i]] = true;
				pl->targets += 1;
			}
			continue;
		}
		pl->src[i] = i;
		if (seen < POOL) {
			pool[seen] = i;
		} else {
			uint32_t k = test_rand(&rng) % (uint32_t)(seen + 1);

			if (k < POOL)
				pool[k] = i;
		}
		seen += 1;
	}
	free(used);
}

/* Original o: 9 to 308 bytes of text, starting with its number so no two
 * originals are equal. */
static size_t orig_size(size_t o)
{
	uint32_t rng = (uint32_t)o * 2654435761u + 7;

	return 9 + test_rand(&rng) % 300;
}

static void orig_data(size_t o, uint8_t *buf, size_t size)
{
	char head[16];

	test_fill_data(buf, size, TEST_DATA_TEXT, (uint32_t)o + 1);
	snprintf(head, sizeof(head), "%06zu", o);
	memcpy(buf, head, 6);
}

static uint8_t *make_image(const plan_t *pl, size_t *out_size)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_writer_options_t opt;
	sqfs_entry_t ent;
	sqfs_writer_t *wr;
	const uint8_t *bytes;
	uint8_t buf[512], *copy;
	char name[32];

	sqfs_writer_options_init(&opt);
	opt.block_size = BS;
	assert_int_equal(sqfs_compressor_config_init(
			     &opt.compressor, sqfs_compressor_default(), BS, 0),
			 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);

	sqfs_entry_init(&ent, name, S_IFREG | 0644, 0, 0, 0);
	for (size_t i = 0; i < FILES; ++i) {
		size_t size = orig_size(pl->src[i]);

		orig_data(pl->src[i], buf, size);
		snprintf(name, sizeof(name), "f%05zu", i);
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		assert_int_equal(sqfs_writer_append(wr, buf, size), 0);
		assert_int_equal(sqfs_writer_end_file(wr), 0);
	}
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	bytes = test_memory_file_data(file, out_size);
	copy = malloc(*out_size);
	assert_non_null(copy);
	memcpy(copy, bytes, *out_size);
	sqfs_file_destroy(file);
	return copy;
}

typedef struct {
	plan_t plan;
	uint8_t *bytes;
	size_t size;
	sqfs_file_t *file;
	sqfs_image_t *img;
	/* the file inodes, in walk (= name = writing) order */
	sqfs_inode_t *inodes[FILES];
	/* compressed fragment blocks, each unpacked at least once */
	size_t frag_blocks;
} image_t;

static image_t im;

static int setup(void **state)
{
	sqfs_walk_entry_t ent;
	sqfs_fragment_t frag;
	sqfs_walker_t *w;
	size_t n = 0, len;
	int ret;

	(void)state;
	make_plan(&im.plan);
	im.bytes = make_image(&im.plan, &im.size);
	assert_int_equal(sqfs_file_open_memory(&im.file, im.bytes, im.size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_open(im.file, &im.img, NULL), 0);
	assert_int_equal(sqfs_walker_create(im.img, "", 0, 0, &w), 0);
	while ((ret = sqfs_walker_next(w, &ent)) == 0) {
		if (sqfs_inode_type_basic(ent.inode->type) != SQFS_INODE_FILE)
			continue;
		assert_true(n < FILES);
		len = sizeof(*ent.inode) + ent.inode->payload_size;
		im.inodes[n] = malloc(len);
		assert_non_null(im.inodes[n]);
		memcpy(im.inodes[n], ent.inode, len);
		n += 1;
	}
	assert_int_equal(ret, 1);
	assert_int_equal(n, FILES);
	sqfs_walker_destroy(w);

	for (uint32_t i = 0; i < sqfs_image_super(im.img)->fragment_entry_count;
	     ++i) {
		assert_int_equal(sqfs_image_get_fragment(im.img, i, &frag), 0);
		im.frag_blocks += !(frag.size & RAW_BIT);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < FILES; ++i)
		free(im.inodes[i]);
	sqfs_image_destroy(im.img);
	sqfs_file_destroy(im.file);
	free(im.bytes);
	return 0;
}

/* ---- the tests ------------------------------------------------------------
 */

/* The image is what the test is about: duplicates share their original's
 * tail, which lies in many different fragment blocks, far more than the
 * stream keeps unpacked. */
static void test_image_shares_tails(void **state)
{
	uint32_t frontier = 0;
	size_t far = 0;

	(void)state;
	assert_true(im.frag_blocks > 2 * SQFS_FILE_STREAM_BUFFERS(8));
	assert_true(im.plan.dups > 1000);
	assert_true(im.plan.targets > POOL && im.plan.targets < FILES / 4);
	for (size_t i = 0; i < FILES; ++i) {
		const sqfs_inode_t *in = im.inodes[i];
		const sqfs_inode_t *o = im.inodes[im.plan.src[i]];

		assert_int_equal(in->data.file.file_size,
				 orig_size(im.plan.src[i]));
		assert_int_not_equal(in->data.file.fragment_index,
				     SQFS_NO_FRAGMENT);
		assert_int_equal(in->data.file.fragment_index,
				 o->data.file.fragment_index);
		assert_int_equal(in->data.file.fragment_offset,
				 o->data.file.fragment_offset);
		if (im.plan.src[i] != i &&
		    frontier > o->data.file.fragment_index +
				   SQFS_FILE_STREAM_BUFFERS(1))
			far += 1;
		if (in->data.file.fragment_index > frontier)
			frontier = in->data.file.fragment_index;
	}
	/* most duplicates point further back than a one-job stream keeps */
	assert_true(far > im.plan.dups / 2);
}

/*
 * Every file through a stream, in order: the right bytes, and each
 * fragment block unpacked once, plus a few for the duplicates whose tail
 * was no longer in the cache: fewer than one for every eight originals
 * copied (7 for 2,425 with this image's layout). Without the tail cache
 * nearly every duplicate unpacks a block (8,777 blocks at one job).
 */
static void test_stream(void **state)
{
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk;
	uint8_t expect[512];
	unsigned long calls, bound;
	size_t size;

	(void)state;
	bound = (unsigned long)(im.frag_blocks + im.plan.targets / 8);
	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		count_uncompress(im.img);
		assert_int_equal(
		    sqfs_file_stream_create(im.img, job_counts[j], &fs), 0);
		for (size_t i = 0; i < FILES; ++i)
			assert_int_equal(sqfs_file_stream_enqueue(
					     fs, im.inodes[i], &im.inodes[i]),
					 0);
		for (size_t i = 0; i < FILES; ++i) {
			size = orig_size(im.plan.src[i]);
			orig_data(im.plan.src[i], expect, size);
			assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
			assert_ptr_equal(blk.user, &im.inodes[i]);
			assert_int_equal(blk.size, size);
			assert_int_equal(blk.flags, SQFS_FILE_BLOCK_LAST);
			assert_memory_equal(blk.data, expect, size);
		}
		assert_int_equal(sqfs_file_stream_next(fs, &blk), 1);
		sqfs_file_stream_destroy(fs);
		calls = stop_counting(im.img);
		print_message("jobs %u: %lu blocks unpacked for %zu fragment "
			      "blocks, %zu duplicates of %zu files\n",
			      job_counts[j], calls, im.frag_blocks,
			      im.plan.dups, im.plan.targets);
		assert_true(calls >= im.frag_blocks);
		assert_true(calls <= bound);
	}
}

/*
 * The same through one data reader. It keeps one fragment block, so a
 * duplicate's miss costs its block and the way back to the current one;
 * its smaller cache misses more of the first duplicates, but the
 * doorkeeper keeps the later ones: fewer blocks than originals copied
 * (1,374 for 2,425 here; without the cache nearly two per duplicate,
 * 14,759).
 */
/*
 * The files in another order than they were packed in, as a directory
 * listing in name order gives files written at different times: runs of
 * run files, each run in a shuffled order, with ahead files queued ahead
 * of the one being read. Returns the blocks unpacked, checking every
 * file's bytes.
 */
static unsigned long stream_shuffled(unsigned int jobs, size_t run,
				     size_t ahead)
{
	size_t *order = malloc(FILES * sizeof(size_t));
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk;
	uint8_t expect[512];
	uint32_t rng = 99;
	size_t size, queued = 0, i;

	assert_non_null(order);
	for (i = 0; i < FILES; ++i)
		order[i] = i;
	for (size_t r = 0; r < FILES; r += run) {
		size_t n = FILES - r < run ? FILES - r : run;

		for (size_t k = n - 1; k > 0; --k) {
			size_t j = test_rand(&rng) % (k + 1), t;

			t = order[r + k];
			order[r + k] = order[r + j];
			order[r + j] = t;
		}
	}

	count_uncompress(im.img);
	assert_int_equal(sqfs_file_stream_create(im.img, jobs, &fs), 0);
	for (i = 0; i < FILES; ++i) {
		while (queued < FILES && queued <= i + ahead) {
			assert_int_equal(sqfs_file_stream_enqueue(
					     fs, im.inodes[order[queued]],
					     &im.inodes[order[queued]]),
					 0);
			++queued;
		}
		size = orig_size(im.plan.src[order[i]]);
		orig_data(im.plan.src[order[i]], expect, size);
		assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
		assert_ptr_equal(blk.user, &im.inodes[order[i]]);
		assert_int_equal(blk.size, size);
		assert_memory_equal(blk.data, expect, size);
	}
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 1);
	sqfs_file_stream_destroy(fs);
	free(order);
	return stop_counting(im.img);
}

/*
 * Runs of 1,000 files with 8 queued ahead: a run's tails span some 60
 * fragment blocks, more than a stream's slots (8 to 36) but fewer than the
 * unpacked fragment blocks it keeps besides, so each block is unpacked
 * about once (keeping only the slots: one block for most files, 24,509 at
 * one job). Runs of 4,000 files, all queued from the start: 220 blocks a
 * run, more than are kept, but when a block is unpacked the tails in it
 * of the files queued are copied, so each is still unpacked about once.
 */
static void test_stream_out_of_order(void **state)
{
	unsigned long calls;

	(void)state;
	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		calls = stream_shuffled(job_counts[j], 1000, 8);
		print_message("runs of 1000, 8 ahead, jobs %u: %lu blocks "
			      "unpacked for %zu fragment blocks\n",
			      job_counts[j], calls, im.frag_blocks);
		assert_true(calls >= im.frag_blocks);
		assert_true(calls <= im.frag_blocks + im.frag_blocks / 4);

		calls = stream_shuffled(job_counts[j], 4000, FILES);
		print_message("runs of 4000, all queued, jobs %u: %lu blocks "
			      "unpacked for %zu fragment blocks\n",
			      job_counts[j], calls, im.frag_blocks);
		assert_true(calls >= im.frag_blocks);
		assert_true(calls <= im.frag_blocks + im.frag_blocks / 4);
	}
}

static void test_data_reader(void **state)
{
	sqfs_data_reader_t *dr;
	uint8_t got[512], expect[512];
	unsigned long calls;
	size_t size;

	(void)state;
	count_uncompress(im.img);
	assert_int_equal(sqfs_data_reader_create(im.img, &dr), 0);
	for (size_t i = 0; i < FILES; ++i) {
		size = orig_size(im.plan.src[i]);
		orig_data(im.plan.src[i], expect, size);
		memset(got, 0, sizeof(got));
		assert_int_equal(sqfs_data_reader_read(dr, im.inodes[i], 0, got,
						       sizeof(got)),
				 (ptrdiff_t)size);
		assert_memory_equal(got, expect, size);
	}
	sqfs_data_reader_destroy(dr);
	calls = stop_counting(im.img);
	print_message("data reader: %lu blocks unpacked for %zu fragment "
		      "blocks, %zu duplicates of %zu files\n",
		      calls, im.frag_blocks, im.plan.dups, im.plan.targets);
	assert_true(calls >= im.frag_blocks);
	assert_true(calls <= im.frag_blocks + im.plan.targets);
}

/* The cache's own rules, on keys and bytes of its own. */
static void test_tail_cache_rules(void **state)
{
	uint8_t data[TAIL_CACHE_MAX_TAIL + 1];
	tail_cache_t tc;
	tail_entry_t *e, *held;
	size_t limit = 16384;

	(void)state;
	for (size_t i = 0; i < sizeof(data); ++i)
		data[i] = (uint8_t)(i * 7);
	assert_int_equal(tail_cache_init(&tc, limit), 0);

	/* a copy, under its whole key; too big or empty, never */
	assert_null(tail_cache_get(&tc, 3, 100, 50));
	tail_cache_offer(&tc, 3, 100, 50, data + 1);
	e = tail_cache_get(&tc, 3, 100, 50);
	assert_non_null(e);
	assert_memory_equal(e->data, data + 1, 50);
	assert_true(e->protect);
	assert_null(tail_cache_get(&tc, 3, 100, 49));
	assert_null(tail_cache_get(&tc, 3, 99, 50));
	assert_null(tail_cache_get(&tc, 2, 100, 50));
	tail_cache_offer(&tc, 5, 0, TAIL_CACHE_MAX_TAIL + 1, data);
	assert_null(tail_cache_get(&tc, 5, 0, TAIL_CACHE_MAX_TAIL + 1));
	tail_cache_offer(&tc, 5, 0, 0, data);
	assert_null(tail_cache_get(&tc, 5, 0, 0));
	/* offered again: the first copy stays */
	tail_cache_offer(&tc, 3, 100, 50, data + 2);
	assert_memory_equal(tail_cache_get(&tc, 3, 100, 50)->data, data + 1,
			    50);
	assert_int_equal(tc.kept, 1);

	/* a scan of tails read once goes through probation and leaves
	 * what was used again; the bound holds all along */
	held = e;
	tail_cache_hold(held);
	tail_cache_offer(&tc, 7, 0, 100, data);
	assert_non_null(tail_cache_get(&tc, 7, 0, 100));
	for (uint32_t k = 0; k < 1000; ++k) {
		tail_cache_offer(&tc, 10 + k, k, 100, data + k % 64);
		assert_true(tc.bytes <= limit);
		assert_true(tc.protect_bytes <= limit / 4);
	}
	assert_non_null(tail_cache_get(&tc, 1009, 999, 100));
	assert_null(tail_cache_get(&tc, 11, 1, 100));
	e = tail_cache_get(&tc, 7, 0, 100);
	assert_non_null(e);
	assert_memory_equal(e->data, data, 100);
	e = tail_cache_get(&tc, 3, 100, 50);
	assert_ptr_equal(e, held);
	assert_memory_equal(e->data, data + 1, 50);

	/* one evicted before it was asked for again comes back protected
	 * while the doorkeeper remembers it */
	tail_cache_offer(&tc, 10, 0, 100, data);
	e = tail_cache_get(&tc, 10, 0, 100);
	assert_non_null(e);
	assert_memory_equal(e->data, data, 100);

	/* the protected segment holds a quarter: the least recently used of it
	 * go back on probation, then out */
	for (uint32_t k = 0; k < 1000; ++k) {
		tail_cache_offer(&tc, 5000 + k, k, 200, data + k % 64);
		assert_non_null(tail_cache_get(&tc, 5000 + k, k, 200));
		assert_true(tc.bytes <= limit);
		assert_true(tc.protect_bytes <= limit / 4);
	}
	assert_null(tail_cache_get(&tc, 7, 0, 100));
	assert_ptr_equal(tail_cache_get(&tc, 3, 100, 50), held);

	/* no room while everything is held: the tail is not kept */
	tail_cache_release(held);
	for (e = tc.probation.next; e != &tc.probation; e = e->next)
		tail_cache_hold(e);
	for (e = tc.protect.next; e != &tc.protect; e = e->next)
		tail_cache_hold(e);
	tail_cache_offer(&tc, 99999, 0, TAIL_CACHE_MAX_TAIL, data);
	assert_null(tail_cache_get(&tc, 99999, 0, TAIL_CACHE_MAX_TAIL));
	assert_non_null(tail_cache_get(&tc, 3, 100, 50));
	assert_true(tc.bytes <= limit);
	tail_cache_cleanup(&tc);

	/* a zeroed cache (never made) is empty and cleans up */
	memset(&tc, 0, sizeof(tc));
	assert_null(tail_cache_get(&tc, 1, 2, 3));
	tail_cache_offer(&tc, 1, 2, 3, data);
	assert_null(tail_cache_get(&tc, 1, 2, 3));
	tail_cache_cleanup(&tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_image_shares_tails),
	    cmocka_unit_test(test_stream),
	    cmocka_unit_test(test_stream_out_of_order),
	    cmocka_unit_test(test_data_reader),
	    cmocka_unit_test(test_tail_cache_rules),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

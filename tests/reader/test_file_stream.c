/* SPDX-License-Identifier: MIT */
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
#include "sqfs/walker.h"
#include "sqfs/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS 4096u
#define RAW_BIT 0x01000000u
#define LEN_MASK 0x00FFFFFFu

static const unsigned int job_counts[] = {1, 2, 3, 8};
#define JOB_COUNTS (sizeof(job_counts) / sizeof(job_counts[0]))

/* ---- the image ------------------------------------------------------------
 */

typedef enum {
	K_TEXT,
	K_RANDOM,
	/* text with every odd block a hole */
	K_HOLEY,
	K_ZEROS,
} kind_t;

/* File i of the test image: its size and kind. Small text files share
 * fragment blocks; random ones give raw blocks; the others give sparse
 * blocks, short last blocks and tails of larger files. */
static void file_spec(size_t i, uint64_t *size, kind_t *kind)
{
	static const uint64_t sizes[] = {
	    0,	    1,		BS - 1,	     BS,     BS + 1,
	    3 * BS, 3 * BS + 7, 5 * BS + 99, 2 * BS, 7 * BS + 300,
	};
	uint32_t rng = (uint32_t)i * 2654435761u + 1;

	*kind = K_TEXT;
	if (i % 3 != 0) {
		/* mostly small files, several to a fragment block */
		*size = 1 + test_rand(&rng) % 900;
		return;
	}
	*size = sizes[(i / 3) % 10];
	switch ((i / 3) % 4) {
	case 1:
		*kind = K_RANDOM;
		break;
	case 2:
		*kind = K_HOLEY;
		break;
	case 3:
		*kind = i % 2 ? K_ZEROS : K_TEXT;
		break;
	}
}

static uint8_t *file_data(size_t i, uint64_t size, kind_t kind)
{
	uint8_t *buf = malloc((size_t)size + 1);
	size_t off;

	assert_non_null(buf);
	if (kind == K_RANDOM)
		test_fill_data(buf, (size_t)size, TEST_DATA_RANDOM,
			       (uint32_t)i);
	else if (kind == K_ZEROS)
		memset(buf, 0, (size_t)size);
	else
		test_fill_data(buf, (size_t)size, TEST_DATA_TEXT, (uint32_t)i);
	if (kind == K_HOLEY) {
		for (off = BS; off < size; off += 2 * BS)
			memset(buf + off, 0,
			       size - off < BS ? (size_t)(size - off) : BS);
	}
	return buf;
}

/* An image of count files "f00000" .. with our writer; its bytes are
 * returned (malloc'd). */
static uint8_t *make_image(int comp, size_t count, uint32_t flags,
			   size_t *out_size)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_writer_options_t opt;
	sqfs_entry_t ent;
	sqfs_writer_t *wr;
	const uint8_t *bytes;
	uint8_t *copy;
	char name[32];
	uint64_t size, off, n;
	kind_t kind;
	uint8_t *data;

	sqfs_writer_options_init(&opt);
	opt.block_size = BS;
	opt.flags = flags;
	if (comp == 0)
		comp = sqfs_compressor_default();
	assert_int_equal(
	    sqfs_compressor_config_init(&opt.compressor, comp, BS, 0), 0);
	if (comp == SQFS_COMP_GZIP)
		opt.compressor.opt.gzip.level = 1;
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);

	sqfs_entry_init(&ent, name, S_IFREG | 0644, 0, 0, 0);
	for (size_t i = 0; i < count; ++i) {
		file_spec(i, &size, &kind);
		data = file_data(i, size, kind);
		snprintf(name, sizeof(name), "f%05zu", i);
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		for (off = 0; off < size; off += n) {
			n = BS - off % BS;
			if (n > size - off)
				n = size - off;
			if (kind == K_HOLEY && (off / BS) % 2 == 1)
				assert_int_equal(sqfs_writer_append_hole(wr, n),
						 0);
			else
				assert_int_equal(sqfs_writer_append(
						     wr, data + off, (size_t)n),
						 0);
		}
		assert_int_equal(sqfs_writer_end_file(wr), 0);
		free(data);
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
	uint8_t *bytes;
	size_t size;
	sqfs_file_t *file;
	sqfs_image_t *img;
	/* the file inodes in walk (= name = writing) order */
	sqfs_inode_t **inodes;
	size_t count;
} image_t;

static void open_image(image_t *im, const uint8_t *bytes, size_t size)
{
	sqfs_walk_entry_t ent;
	sqfs_walker_t *w;
	sqfs_inode_t *copy;
	size_t len;
	int ret;

	memset(im, 0, sizeof(*im));
	im->bytes = malloc(size);
	assert_non_null(im->bytes);
	memcpy(im->bytes, bytes, size);
	im->size = size;
	assert_int_equal(sqfs_file_open_memory(&im->file, im->bytes, size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_open(im->file, &im->img, NULL), 0);
	assert_int_equal(sqfs_walker_create(im->img, "", 0, 0, &w), 0);
	while ((ret = sqfs_walker_next(w, &ent)) == 0) {
		if (sqfs_inode_type_basic(ent.inode->type) != SQFS_INODE_FILE)
			continue;
		len = sizeof(*ent.inode) + ent.inode->payload_size;
		copy = malloc(len);
		assert_non_null(copy);
		memcpy(copy, ent.inode, len);
		im->inodes = realloc(im->inodes,
				     (im->count + 1) * sizeof(im->inodes[0]));
		assert_non_null(im->inodes);
		im->inodes[im->count++] = copy;
	}
	assert_int_equal(ret, 1);
	sqfs_walker_destroy(w);
}

static void close_image(image_t *im)
{
	for (size_t i = 0; i < im->count; ++i)
		free(im->inodes[i]);
	free(im->inodes);
	sqfs_image_destroy(im->img);
	sqfs_file_destroy(im->file);
	free(im->bytes);
}

static uint32_t word_of(const sqfs_inode_t *inode, size_t i)
{
	uint32_t w;

	memcpy(&w, inode->payload + i * 4, 4);
	return w;
}

static size_t pieces_of(const sqfs_inode_t *inode)
{
	size_t n = inode->payload_size / 4;

	if (inode->data.file.fragment_index != SQFS_NO_FRAGMENT)
		++n;
	return n == 0 ? 1 : n;
}

/* ---- comparing with the data reader --------------------------------------
 */

/*
 * Stream the files of im (enqueueing up to ahead files before the one
 * being read; 0: all at once) and compare every block with what the data
 * reader gives. Returns how many files were checked completely.
 */
static void check_stream(image_t *im, unsigned int jobs, size_t ahead)
{
	sqfs_data_reader_t *dr;
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk, rb;
	size_t queued = 0;

	assert_int_equal(sqfs_data_reader_create(im->img, &dr), 0);
	assert_int_equal(sqfs_file_stream_create(im->img, jobs, &fs), 0);

	for (size_t i = 0; i < im->count; ++i) {
		const sqfs_inode_t *inode = im->inodes[i];
		size_t n = pieces_of(inode);
		uint64_t offset = 0;

		while (queued < im->count &&
		       (ahead == 0 || queued <= i + ahead)) {
			assert_int_equal(
			    sqfs_file_stream_enqueue(fs, im->inodes[queued],
						     &im->inodes[queued]),
			    0);
			++queued;
		}

		for (size_t k = 0; k < n; ++k) {
			assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
			assert_ptr_equal(blk.user, &im->inodes[i]);
			assert_int_equal(blk.index, k);
			assert_true(blk.offset == offset);
			assert_int_equal(blk.flags & SQFS_FILE_BLOCK_LAST,
					 k + 1 == n ? SQFS_FILE_BLOCK_LAST : 0);
			if (inode->data.file.file_size == 0) {
				assert_int_equal(blk.size, 0);
				assert_non_null(blk.data);
				continue;
			}
			/* the same piece, the same words, as the data
			 * reader gives it */
			assert_int_equal(
			    sqfs_data_reader_get_block(dr, inode, k, &rb), 0);
			assert_int_equal(blk.size, rb.size);
			assert_memory_equal(blk.data, rb.data, rb.size);
			assert_true(blk.offset == rb.offset);
			assert_int_equal(blk.index, rb.index);
			assert_int_equal(blk.flags, rb.flags);
			assert_int_equal((blk.flags & SQFS_FILE_BLOCK_SPARSE) !=
					     0,
					 k < inode->payload_size / 4 &&
					     word_of(inode, k) == 0);
			offset += rb.size;
		}
		assert_true(offset == inode->data.file.file_size);
	}
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 1);
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 1);

	/* a stream that ran dry takes more */
	assert_int_equal(sqfs_file_stream_enqueue(fs, im->inodes[0], NULL), 0);
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
	assert_null(blk.user);
	sqfs_file_stream_destroy(fs);
	sqfs_data_reader_destroy(dr);
}

static void test_same_as_data_reader(void **state)
{
	size_t size, sparse = 0, raw = 0, packed = 0, tails = 0;
	uint8_t *bytes;
	image_t im;

	(void)state;
	bytes = make_image(0, 150, 0, &size);
	open_image(&im, bytes, size);
	assert_int_equal(im.count, 150);

	/* the image has every kind of block */
	for (size_t i = 0; i < im.count; ++i) {
		const sqfs_inode_t *inode = im.inodes[i];

		for (size_t k = 0; k < inode->payload_size / 4; ++k) {
			uint32_t w = word_of(inode, k);

			sparse += w == 0;
			raw += w != 0 && (w & RAW_BIT);
			packed += w != 0 && !(w & RAW_BIT);
		}
		tails += inode->data.file.fragment_index != SQFS_NO_FRAGMENT;
	}
	assert_true(sparse > 0 && raw > 0 && packed > 0 && tails > 50);

	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		check_stream(&im, job_counts[j], 0);
		check_stream(&im, job_counts[j], 1);
		check_stream(&im, job_counts[j], 7);
	}
	close_image(&im);
	free(bytes);
}

static void test_every_compressor(void **state)
{
	uint8_t *bytes;
	size_t size;
	image_t im;

	(void)state;
	for (size_t c = 0; c < test_compressor_id_count; ++c) {
		if (!sqfs_compressor_is_available(test_compressor_ids[c]))
			continue;
		bytes = make_image(test_compressor_ids[c], 60, 0, &size);
		open_image(&im, bytes, size);
		check_stream(&im, 1, 3);
		check_stream(&im, 3, 3);
		close_image(&im);
		free(bytes);
	}

	/* short last blocks instead of tails */
	bytes = make_image(0, 60, SQFS_WRITER_NO_FRAGMENTS, &size);
	open_image(&im, bytes, size);
	check_stream(&im, 1, 0);
	check_stream(&im, 2, 0);
	close_image(&im);
	free(bytes);
}

/* ---- decompressing once, within bounds -----------------------------------
 */

static void drain(sqfs_file_stream_t *fs)
{
	sqfs_file_block_t blk;
	int ret;

	while ((ret = sqfs_file_stream_next(fs, &blk)) == 0)
		;
	assert_int_equal(ret, 1);
}

static void test_unpack_once(void **state)
{
	size_t size, packed = 0, frag_blocks = 0;
	uint32_t last_frag = SQFS_NO_FRAGMENT;
	sqfs_file_stream_t *fs;
	sqfs_fragment_t frag;
	uint8_t *bytes;
	image_t im;

	(void)state;
	bytes = make_image(0, 150, 0, &size);
	open_image(&im, bytes, size);

	/* files are written in walk order, so a fragment block's users
	 * follow each other */
	for (size_t i = 0; i < im.count; ++i) {
		const sqfs_inode_t *inode = im.inodes[i];
		uint32_t fi = inode->data.file.fragment_index;

		for (size_t k = 0; k < inode->payload_size / 4; ++k) {
			uint32_t w = word_of(inode, k);

			packed += w != 0 && !(w & RAW_BIT);
		}
		if (fi != SQFS_NO_FRAGMENT && fi != last_frag) {
			assert_int_equal(
			    sqfs_image_get_fragment(im.img, fi, &frag), 0);
			frag_blocks += !(frag.size & RAW_BIT);
			assert_true(last_frag == SQFS_NO_FRAGMENT ||
				    fi > last_frag);
			last_frag = fi;
		}
	}
	assert_true(frag_blocks > 3);

	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		count_uncompress(im.img);
		assert_int_equal(
		    sqfs_file_stream_create(im.img, job_counts[j], &fs), 0);
		for (size_t i = 0; i < im.count; ++i)
			assert_int_equal(
			    sqfs_file_stream_enqueue(fs, im.inodes[i], NULL),
			    0);
		drain(fs);
		sqfs_file_stream_destroy(fs);
		assert_int_equal(uncompress_count(), packed + frag_blocks);
		stop_counting(im.img);
	}
	close_image(&im);
	free(bytes);
}

static void test_bounded(void **state)
{
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk;
	unsigned int jobs;
	unsigned long limit;
	uint8_t *bytes;
	size_t size;
	image_t im;

	(void)state;
	bytes = make_image(0, 300, 0, &size);
	open_image(&im, bytes, size);

	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		jobs = job_counts[j];
		limit = SQFS_FILE_STREAM_BUFFERS(jobs);
		count_uncompress(im.img);
		assert_int_equal(sqfs_file_stream_create(im.img, jobs, &fs), 0);
		for (size_t i = 0; i < im.count; ++i)
			assert_int_equal(
			    sqfs_file_stream_enqueue(fs, im.inodes[i], NULL),
			    0);
		/* give the workers time to run as far as they can */
		usleep(20000);
		assert_true(uncompress_count() <= limit);
		for (unsigned long k = 1; k <= 40; ++k) {
			assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
			usleep(1000);
			/* each block handed back frees at most one buffer
			 * (the one before it) */
			assert_true(uncompress_count() <= limit + k);
		}
		assert_true(uncompress_count() > 0);
		sqfs_file_stream_destroy(fs);
		stop_counting(im.img);
	}

	/* more jobs than allowed are capped, not refused */
	assert_int_equal(sqfs_file_stream_create(im.img, 100000, &fs), 0);
	assert_int_equal(sqfs_file_stream_enqueue(fs, im.inodes[1], NULL), 0);
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
	sqfs_file_stream_destroy(fs);

	close_image(&im);
	free(bytes);
}

/* ---- errors ----------------------------------------------------------------
 */

/* The first file (from from) with a compressed listed block; *block gets
 * its index and *pos where it is stored. */
static size_t find_packed(const image_t *im, size_t from, size_t *block,
			  uint64_t *pos)
{
	for (size_t i = from; i < im->count; ++i) {
		const sqfs_inode_t *inode = im->inodes[i];
		uint64_t p = inode->data.file.blocks_start;

		for (size_t k = 0; k < inode->payload_size / 4; ++k) {
			uint32_t w = word_of(inode, k);

			if (w != 0 && !(w & RAW_BIT) && k > 0) {
				*block = k;
				*pos = p;
				return i;
			}
			p += w & LEN_MASK;
		}
	}
	fail();
	return 0;
}

/*
 * Stream every file of im: all blocks before file bad's block bad_block
 * match the data reader, that block gives expect (at its file and index),
 * and so does every call after it.
 */
static void check_error_at(image_t *im, unsigned int jobs, size_t bad,
			   size_t bad_block, int expect, size_t ahead)
{
	sqfs_data_reader_t *dr;
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk, want;
	size_t queued = 0;
	int ret;

	assert_int_equal(sqfs_data_reader_create(im->img, &dr), 0);
	assert_int_equal(sqfs_file_stream_create(im->img, jobs, &fs), 0);
	for (size_t i = 0; i <= bad; ++i) {
		size_t n = i == bad ? bad_block : pieces_of(im->inodes[i]);

		while (queued < im->count && queued <= i + ahead) {
			assert_int_equal(
			    sqfs_file_stream_enqueue(fs, im->inodes[queued],
						     im->inodes[queued]),
			    0);
			++queued;
		}
		for (size_t k = 0; k < n; ++k) {
			assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
			assert_ptr_equal(blk.user, im->inodes[i]);
			if (im->inodes[i]->data.file.file_size == 0)
				continue;
			assert_int_equal(sqfs_data_reader_get_block(
					     dr, im->inodes[i], k, &want),
					 0);
			assert_int_equal(blk.size, want.size);
			assert_memory_equal(blk.data, want.data, want.size);
		}
	}
	for (int rep = 0; rep < 3; ++rep) {
		memset(&blk, 0, sizeof(blk));
		ret = sqfs_file_stream_next(fs, &blk);
		assert_int_equal(ret, expect);
		assert_ptr_equal(blk.user, im->inodes[bad]);
		assert_int_equal(blk.index, bad_block);
	}
	/* more files are taken, but nothing more is handed back */
	assert_int_equal(sqfs_file_stream_enqueue(fs, im->inodes[0], NULL), 0);
	assert_int_equal(sqfs_file_stream_next(fs, &blk), expect);
	sqfs_file_stream_destroy(fs);
	sqfs_data_reader_destroy(dr);
}

static void test_corrupt_block(void **state)
{
	size_t size, bad, bad_block;
	sqfs_data_reader_t *dr;
	sqfs_file_block_t blk;
	uint8_t *bytes;
	uint64_t pos;
	image_t im;
	int expect;

	(void)state;
	bytes = make_image(0, 120, 0, &size);
	open_image(&im, bytes, size);
	bad = find_packed(&im, 40, &bad_block, &pos);
	close_image(&im);

	/* garbage in the middle of the stored block */
	memset(bytes + pos + 4, 0x5A, 40);
	open_image(&im, bytes, size);
	assert_int_equal(sqfs_data_reader_create(im.img, &dr), 0);
	expect =
	    sqfs_data_reader_get_block(dr, im.inodes[bad], bad_block, &blk);
	sqfs_data_reader_destroy(dr);
	assert_true(expect < 0);

	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		check_error_at(&im, job_counts[j], bad, bad_block, expect, 0);
		check_error_at(&im, job_counts[j], bad, bad_block, expect, 50);
	}
	close_image(&im);
	free(bytes);
}

static void test_corrupt_fragment(void **state)
{
	size_t size, bad = 0, first = SIZE_MAX;
	sqfs_data_reader_t *dr;
	sqfs_fragment_t frag;
	sqfs_file_block_t blk;
	uint8_t *bytes;
	image_t im;
	int expect;

	(void)state;
	bytes = make_image(0, 120, 0, &size);
	open_image(&im, bytes, size);
	/* a compressed fragment block in the middle of the image */
	for (size_t i = 50; i < im.count && first == SIZE_MAX; ++i) {
		uint32_t fi = im.inodes[i]->data.file.fragment_index;

		if (fi == SQFS_NO_FRAGMENT ||
		    im.inodes[i - 1]->data.file.fragment_index == fi)
			continue;
		assert_int_equal(sqfs_image_get_fragment(im.img, fi, &frag), 0);
		if (!(frag.size & RAW_BIT))
			first = i;
	}
	assert_true(first != SIZE_MAX);
	/* the first of its users, wherever the writer put the tails */
	for (bad = 0; bad < first; ++bad) {
		if (im.inodes[bad]->data.file.fragment_index ==
		    im.inodes[first]->data.file.fragment_index)
			break;
	}
	close_image(&im);

	memset(bytes + frag.start + 2, 0xA5, 30);
	open_image(&im, bytes, size);
	assert_int_equal(sqfs_data_reader_create(im.img, &dr), 0);
	expect = sqfs_data_reader_get_block(
	    dr, im.inodes[bad], im.inodes[bad]->payload_size / 4, &blk);
	sqfs_data_reader_destroy(dr);
	assert_true(expect < 0);

	for (size_t j = 0; j < JOB_COUNTS; ++j)
		check_error_at(&im, job_counts[j], bad,
			       im.inodes[bad]->payload_size / 4, expect, 20);
	close_image(&im);
	free(bytes);
}

/* What the data reader says about block index of inode. */
static int reader_says(image_t *im, const sqfs_inode_t *inode, size_t index)
{
	sqfs_data_reader_t *dr;
	sqfs_file_block_t blk;
	int ret;

	assert_int_equal(sqfs_data_reader_create(im->img, &dr), 0);
	ret = sqfs_data_reader_get_block(dr, inode, index, &blk);
	sqfs_data_reader_destroy(dr);
	return ret;
}

static void error_case(image_t *im, size_t bad, size_t index)
{
	int expect = reader_says(im, im->inodes[bad], index);

	assert_true(expect < 0);
	for (size_t j = 0; j < JOB_COUNTS; ++j)
		check_error_at(im, job_counts[j], bad, index, expect, 10);
}

static void test_corrupt_inode(void **state)
{
	sqfs_inode_t *saved = NULL, *inode;
	size_t size, bad, tail;
	uint8_t *bytes;
	image_t im;

	(void)state;
	bytes = make_image(0, 60, 0, &size);
	open_image(&im, bytes, size);

	/* a file of several blocks, the first stored, and a tail */
	for (bad = 10; bad < im.count; ++bad) {
		saved = im.inodes[bad];
		if (saved->payload_size >= 8 && word_of(saved, 0) != 0 &&
		    saved->data.file.fragment_index != SQFS_NO_FRAGMENT)
			break;
	}
	assert_true(bad < im.count);
	tail = saved->payload_size / 4;
	inode = malloc(sizeof(*saved) + saved->payload_size);
	assert_non_null(inode);
	im.inodes[bad] = inode;

	/* a block list one word short: refused at its turn */
	memcpy(inode, saved, sizeof(*saved) + saved->payload_size);
	inode->payload_size -= 4;
	assert_int_equal(reader_says(&im, inode, 0), SQFS_ERROR_CORRUPTED);
	error_case(&im, bad, 0);

	/* blocks outside the data region: found at the first block */
	memcpy(inode, saved, sizeof(*saved) + saved->payload_size);
	inode->data.file.blocks_start = (uint64_t)size + 4096;
	assert_int_equal(reader_says(&im, inode, 0), SQFS_ERROR_CORRUPTED);
	error_case(&im, bad, 0);

	/* a block word with reserved bits, after a good block */
	memcpy(inode, saved, sizeof(*saved) + saved->payload_size);
	memcpy(inode->payload + 4, &(uint32_t){0x80000010u}, 4);
	error_case(&im, bad, 1);

	/* a tail past the end of its fragment block */
	memcpy(inode, saved, sizeof(*saved) + saved->payload_size);
	inode->data.file.fragment_offset = BS - 1;
	assert_int_equal(reader_says(&im, inode, tail), SQFS_ERROR_CORRUPTED);
	error_case(&im, bad, tail);

	/* a fragment index past the table */
	inode->data.file.fragment_offset = 0;
	inode->data.file.fragment_index = 100000;
	error_case(&im, bad, tail);

	im.inodes[bad] = saved;
	free(inode);
	close_image(&im);
	free(bytes);
}

/* ---- lifetime --------------------------------------------------------------
 */

static void test_destroy_midway(void **state)
{
	size_t size, bad, bad_block;
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk;
	uint8_t *bytes;
	uint64_t pos;
	image_t im;

	(void)state;
	bytes = make_image(0, 200, 0, &size);
	open_image(&im, bytes, size);

	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		for (int taken = 0; taken < 40; taken += 13) {
			assert_int_equal(
			    sqfs_file_stream_create(im.img, job_counts[j], &fs),
			    0);
			for (size_t i = 0; i < im.count; ++i)
				assert_int_equal(sqfs_file_stream_enqueue(
						     fs, im.inodes[i], NULL),
						 0);
			for (int k = 0; k < taken; ++k)
				assert_int_equal(
				    sqfs_file_stream_next(fs, &blk), 0);
			sqfs_file_stream_destroy(fs);
		}
		/* never used */
		assert_int_equal(
		    sqfs_file_stream_create(im.img, job_counts[j], &fs), 0);
		sqfs_file_stream_destroy(fs);
	}
	bad = find_packed(&im, 20, &bad_block, &pos);
	close_image(&im);

	/* after an error, with work still queued behind it */
	memset(bytes + pos, 0xFF, 16);
	open_image(&im, bytes, size);
	for (size_t j = 0; j < JOB_COUNTS; ++j) {
		assert_int_equal(
		    sqfs_file_stream_create(im.img, job_counts[j], &fs), 0);
		for (size_t i = 0; i < im.count; ++i)
			assert_int_equal(
			    sqfs_file_stream_enqueue(fs, im.inodes[i], NULL),
			    0);
		while (sqfs_file_stream_next(fs, &blk) == 0)
			;
		sqfs_file_stream_destroy(fs);
	}
	(void)bad;
	close_image(&im);
	free(bytes);
}

static void test_args(void **state)
{
	sqfs_file_stream_t *fs;
	sqfs_file_block_t blk;
	sqfs_inode_t *root;
	uint8_t *bytes;
	size_t size;
	image_t im;

	(void)state;
	bytes = make_image(0, 4, 0, &size);
	open_image(&im, bytes, size);

	assert_int_equal(sqfs_file_stream_create(NULL, 1, &fs),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_stream_create(im.img, 1, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_stream_create(im.img, 0, &fs), 0);
	assert_int_equal(sqfs_file_stream_next(NULL, &blk),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_stream_next(fs, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_stream_enqueue(NULL, im.inodes[0], NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_stream_enqueue(fs, NULL, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_read_root(im.img, &root), 0);
	assert_int_equal(sqfs_file_stream_enqueue(fs, root, NULL),
			 SQFS_ERROR_NOT_FILE);
	free(root);

	/* nothing queued: nothing to give */
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 1);

	/* the empty file f00000: one empty last block */
	assert_int_equal(im.inodes[0]->data.file.file_size, 0);
	assert_int_equal(sqfs_file_stream_enqueue(fs, im.inodes[0], &size), 0);
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 0);
	assert_ptr_equal(blk.user, &size);
	assert_int_equal(blk.size, 0);
	assert_int_equal(blk.flags, SQFS_FILE_BLOCK_LAST);
	assert_int_equal(sqfs_file_stream_next(fs, &blk), 1);
	sqfs_file_stream_destroy(fs);
	sqfs_file_stream_destroy(NULL);

	close_image(&im);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_as_data_reader),
	    cmocka_unit_test(test_every_compressor),
	    cmocka_unit_test(test_unpack_once),
	    cmocka_unit_test(test_bounded),
	    cmocka_unit_test(test_corrupt_block),
	    cmocka_unit_test(test_corrupt_fragment),
	    cmocka_unit_test(test_corrupt_inode),
	    cmocka_unit_test(test_destroy_midway),
	    cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * The read-ahead queue: entries come back in the order pushed, each file's
 * data whole and its own (also when user pointers repeat), at every job
 * count and with limits from one entry up; data not read is skipped on
 * pop; a bad file fails in words; misuse is refused.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "support/test_util.h"

#include "sqfs/dir_reader.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/image_internal.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/read_ahead_internal.h"
#include "sqfs/walker.h"
#include "sqfs/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BS 4096u
#define FILES 60

/* File i: its size and bytes (text or random, some with holes). */
static uint64_t file_size(size_t i)
{
	static const uint64_t sizes[] = {
	    0,	    1,		100,	 BS - 1, BS,
	    BS + 1, 3 * BS + 7, 10 * BS, 2 * BS, 5 * BS + 99};
	return sizes[i % 10];
}

static uint8_t *file_bytes(size_t i)
{
	uint64_t size = file_size(i);
	uint8_t *buf = malloc((size_t)size + 1);

	assert_non_null(buf);
	test_fill_data(buf, (size_t)size,
		       i % 3 == 1 ? TEST_DATA_RANDOM : TEST_DATA_TEXT,
		       (uint32_t)i);
	/* every third file: its second block a hole */
	if (i % 3 == 2 && size > BS)
		memset(buf + BS, 0, size - BS < BS ? (size_t)(size - BS) : BS);
	return buf;
}

typedef struct {
	uint8_t *bytes;
	size_t size;
	sqfs_file_t *file;
	sqfs_image_t *img;
} image_t;

/* d/fNN files, with a directory and a symlink between them. */
static void make_image(image_t *im)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_writer_options_t opt;
	sqfs_entry_t ent;
	sqfs_writer_t *wr;
	const uint8_t *bytes;
	char name[32];

	sqfs_writer_options_init(&opt);
	opt.block_size = BS;
	assert_int_equal(sqfs_compressor_config_init(
			     &opt.compressor, sqfs_compressor_default(), BS, 0),
			 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);
	for (size_t i = 0; i < FILES; ++i) {
		uint8_t *data = file_bytes(i);
		uint64_t size = file_size(i);

		snprintf(name, sizeof(name), "d/f%02zu", i);
		sqfs_entry_init(&ent, name, S_IFREG | 0644, 0, 0, 0);
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		if (i % 3 == 2 && size > BS) {
			assert_int_equal(sqfs_writer_append(wr, data, BS), 0);
			assert_int_equal(
			    sqfs_writer_append_hole(
				wr, size - BS < BS ? size - BS : BS),
			    0);
			if (size > 2 * BS)
				assert_int_equal(
				    sqfs_writer_append(wr, data + 2 * BS,
						       (size_t)(size - 2 * BS)),
				    0);
		} else {
			assert_int_equal(
			    sqfs_writer_append(wr, data, (size_t)size), 0);
		}
		assert_int_equal(sqfs_writer_end_file(wr), 0);
		free(data);
		if (i % 7 == 0) {
			snprintf(name, sizeof(name), "d/f%02zu_s", i);
			sqfs_entry_init(&ent, name, S_IFLNK | 0777, 0, 0, 0);
			ent.symlink_target = "x";
			assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		}
	}
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	bytes = test_memory_file_data(file, &im->size);
	im->bytes = malloc(im->size);
	assert_non_null(im->bytes);
	memcpy(im->bytes, bytes, im->size);
	sqfs_file_destroy(file);
	assert_int_equal(sqfs_file_open_memory(&im->file, im->bytes, im->size,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_open(im->file, &im->img, NULL), 0);
}

static void close_image(image_t *im)
{
	sqfs_image_destroy(im->img);
	sqfs_file_destroy(im->file);
	free(im->bytes);
}

/* The file number of an entry's name ("f07" -> 7), or -1. */
static int file_number(const char *path)
{
	const char *p = strrchr(path, '/');

	if (p == NULL || p[1] != 'f' || strchr(p, '_') != NULL)
		return -1;
	return atoi(p + 2);
}

/* Read the oldest entry's data whole and compare it with file i. */
static void check_data(read_ahead_t *ra, size_t i)
{
	uint64_t size = file_size(i), off = 0;
	uint8_t *want = file_bytes(i);
	sqfs_file_block_t blk;
	int ret;

	while ((ret = read_ahead_read(ra, &blk)) == 0) {
		assert_int_equal(blk.offset, off);
		assert_true(blk.size <= size - off);
		assert_memory_equal(blk.data, want + off, blk.size);
		off += blk.size;
	}
	assert_int_equal(ret, 1);
	assert_int_equal(off, size);
	/* and stays at the end */
	assert_int_equal(read_ahead_read(ra, &blk), 1);
	free(want);
}

/*
 * Walk the image, pushing every entry (files with data, user: the file
 * number + 1, or NULL when same_user) and popping the oldest when full.
 * Every skip-th file's data is left unread (skip 0: none).
 */
static void walk_case(image_t *im, unsigned int jobs, size_t max_entries,
		      size_t max_bytes, bool same_user, size_t skip)
{
	read_ahead_t *ra;
	sqfs_walk_entry_t ent;
	sqfs_walker_t *w;
	int order[FILES * 2], pushed = 0, popped = 0, ret;

	assert_int_equal(
	    read_ahead_create(im->img, jobs, max_entries, max_bytes, NULL, &ra),
	    0);
	assert_int_equal(sqfs_walker_create(im->img, "", 0, 0, &w), 0);
	for (;;) {
		ret = sqfs_walker_next(w, &ent);
		assert_true(ret >= 0);
		while (read_ahead_full(ra) ||
		       (ret == 1 && read_ahead_count(ra) > 0)) {
			const ahead_entry_t *e = read_ahead_oldest(ra);
			int n = order[popped++];

			assert_non_null(e);
			if (!same_user)
				assert_ptr_equal(e->user,
						 (void *)(uintptr_t)(n + 1));
			assert_int_equal(e->with_data, n >= 0);
			if (n >= 0 && (skip == 0 || (size_t)n % skip != 0))
				check_data(ra, (size_t)n);
			assert_int_equal(read_ahead_pop(ra), 0);
		}
		if (ret == 1)
			break;
		order[pushed] = file_number(ent.path);
		assert_int_equal(
		    read_ahead_push(
			ra, ent.inode, order[pushed] >= 0,
			same_user ? NULL
				  : (void *)(uintptr_t)(order[pushed] + 1),
			strlen(ent.path)),
		    0);
		++pushed;
	}
	assert_int_equal(popped, pushed);
	assert_null(read_ahead_oldest(ra));
	assert_int_equal(read_ahead_pop(ra), 0);
	sqfs_walker_destroy(w);
	read_ahead_destroy(ra);
}

static void test_order_and_data(void **state)
{
	static const unsigned int jobs[] = {0, 1, 2, 8};
	static const size_t entries[] = {1, 2, 5, 0};
	image_t im;

	(void)state;
	make_image(&im);
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); ++j) {
		for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]);
		     ++e) {
			walk_case(&im, jobs[j], entries[e], 0, false, 0);
			walk_case(&im, jobs[j], entries[e], 0, true, 0);
			walk_case(&im, jobs[j], entries[e], 0, false, 3);
		}
		/* a byte budget that one entry fills */
		walk_case(&im, jobs[j], 0, 1, false, 0);
		walk_case(&im, jobs[j], 0, 2000, true, 2);
	}
	close_image(&im);
}

/* Half a file read, then popped: the next file is whole. */
static void test_partial_read(void **state)
{
	read_ahead_t *ra;
	sqfs_file_block_t blk;
	sqfs_inode_t *a, *b;
	image_t im;

	(void)state;
	make_image(&im);
	{
		sqfs_dir_reader_t *dr;

		assert_int_equal(sqfs_dir_reader_create(im.img, &dr), 0);
		assert_int_equal(sqfs_dir_reader_resolve(dr, "d/f07", &a), 0);
		assert_int_equal(sqfs_dir_reader_resolve(dr, "d/f09", &b), 0);
		sqfs_dir_reader_destroy(dr);
	}
	assert_int_equal(read_ahead_create(im.img, 2, 0, 0, NULL, &ra), 0);
	assert_int_equal(read_ahead_push(ra, a, true, NULL, 0), 0);
	assert_int_equal(read_ahead_push(ra, b, true, NULL, 0), 0);
	assert_int_equal(read_ahead_read(ra, &blk), 0);
	assert_int_equal(blk.offset, 0);
	assert_int_equal(read_ahead_read(ra, &blk), 0);
	assert_int_equal(blk.offset, BS);
	assert_int_equal(read_ahead_pop(ra), 0);
	check_data(ra, 9);
	assert_int_equal(read_ahead_pop(ra), 0);
	read_ahead_destroy(ra);
	free(a);
	free(b);
	close_image(&im);
}

static int dropped;

static void count_drop(void *user)
{
	assert_ptr_equal(user, &dropped);
	++dropped;
}

static void test_misuse_and_damage(void **state)
{
	sqfs_dir_reader_t *dr;
	read_ahead_t *ra;
	sqfs_file_block_t blk;
	sqfs_inode_t *dir, *file, *bad;
	uint64_t start, end;
	char want[SQFS_ERROR_TEXT_SIZE];
	size_t len;
	image_t im;

	(void)state;
	make_image(&im);
	assert_int_equal(sqfs_dir_reader_create(im.img, &dr), 0);
	assert_int_equal(sqfs_dir_reader_resolve(dr, "d", &dir), 0);
	assert_int_equal(sqfs_dir_reader_resolve(dr, "d/f07", &file), 0);
	sqfs_dir_reader_destroy(dr);

	assert_int_equal(read_ahead_create(NULL, 1, 0, 0, NULL, &ra),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(read_ahead_create(im.img, 1, 2, 0, count_drop, &ra),
			 0);
	assert_null(read_ahead_oldest(ra));
	assert_int_equal(read_ahead_read(ra, &blk), SQFS_ERROR_SEQUENCE);
	assert_int_equal(read_ahead_push(ra, dir, true, &dropped, 0),
			 SQFS_ERROR_NOT_FILE);
	snprintf(want, sizeof(want), "inode %u: not a regular file",
		 dir->inode_number);
	assert_string_equal(sqfs_image_error(im.img), want);
	assert_int_equal(read_ahead_count(ra), 0);

	/* a directory without data, then a file whose blocks lie outside */
	assert_int_equal(read_ahead_push(ra, dir, false, &dropped, 0), 0);
	len = sizeof(*file) + file->payload_size;
	bad = malloc(len);
	assert_non_null(bad);
	memcpy(bad, file, len);
	image_data_region(im.img, &start, &end);
	bad->data.file.blocks_start = end;
	assert_int_equal(read_ahead_push(ra, bad, true, &dropped, 0), 0);
	assert_true(read_ahead_full(ra));
	assert_int_equal(read_ahead_push(ra, file, true, &dropped, 0),
			 SQFS_ERROR_SEQUENCE);

	assert_int_equal(read_ahead_read(ra, &blk), SQFS_ERROR_SEQUENCE);
	assert_int_equal(read_ahead_pop(ra), 0);
	assert_int_equal(read_ahead_read(ra, &blk), SQFS_ERROR_CORRUPTED);
	snprintf(want, sizeof(want),
		 "inode %u: block 0: block list runs past the data",
		 bad->inode_number);
	assert_string_equal(sqfs_image_error(im.img), want);
	assert_int_equal(read_ahead_read(ra, &blk), SQFS_ERROR_CORRUPTED);
	assert_string_equal(sqfs_image_error(im.img), want);

	/* left queued: dropped at destroy */
	dropped = 0;
	read_ahead_destroy(ra);
	assert_int_equal(dropped, 1);
	read_ahead_destroy(NULL);

	free(bad);
	free(file);
	free(dir);
	close_image(&im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_data),
	    cmocka_unit_test(test_partial_read),
	    cmocka_unit_test(test_misuse_and_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

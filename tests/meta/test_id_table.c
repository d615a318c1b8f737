/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/id_table.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

static sqfs_id_table_t *new_table(void)
{
	sqfs_id_table_t *tbl = NULL;

	assert_int_equal(sqfs_id_table_create(&tbl), 0);
	assert_non_null(tbl);
	return tbl;
}

static uint16_t to_index(sqfs_id_table_t *tbl, uint32_t id)
{
	uint16_t index = 0xFFFF;

	assert_int_equal(sqfs_id_table_id_to_index(tbl, id, &index), 0);
	return index;
}

static uint32_t to_id(const sqfs_id_table_t *tbl, uint16_t index)
{
	uint32_t id = 0;

	assert_int_equal(sqfs_id_table_index_to_id(tbl, index, &id), 0);
	return id;
}

static void test_numbering(void **state)
{
	sqfs_id_table_t *tbl = new_table();
	uint32_t id;

	(void)state;
	assert_int_equal(sqfs_id_table_count(tbl), 0);
	assert_int_equal(sqfs_id_table_index_to_id(tbl, 0, &id),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	assert_int_equal(to_index(tbl, 1000), 0);
	assert_int_equal(to_index(tbl, 0), 1);
	assert_int_equal(to_index(tbl, 1000), 0);
	assert_int_equal(to_index(tbl, UINT32_MAX), 2);
	assert_int_equal(to_index(tbl, 0), 1);
	assert_int_equal(to_index(tbl, 65534), 3);
	assert_int_equal(sqfs_id_table_count(tbl), 4);

	assert_int_equal(to_id(tbl, 0), 1000);
	assert_int_equal(to_id(tbl, 1), 0);
	assert_int_equal(to_id(tbl, 2), UINT32_MAX);
	assert_int_equal(to_id(tbl, 3), 65534);
	assert_int_equal(sqfs_id_table_index_to_id(tbl, 4, &id),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_id_table_index_to_id(tbl, 0xFFFF, &id),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	sqfs_id_table_destroy(tbl);
	sqfs_id_table_destroy(NULL);
}

/* Spread ids over the whole 32-bit range, distinct for distinct i. */
static uint32_t nth_id(uint32_t i)
{
	return i * UINT32_C(2246822519) + UINT32_C(12345);
}

static void test_limit(void **state)
{
	sqfs_id_table_t *tbl = new_table();
	uint16_t index;
	uint32_t i;

	(void)state;
	for (i = 0; i < SQFS_MAX_IDS; ++i)
		assert_int_equal(to_index(tbl, nth_id(i)), i);
	assert_int_equal(sqfs_id_table_count(tbl), SQFS_MAX_IDS);

	/* one more is refused; known ids still resolve */
	assert_int_equal(
	    sqfs_id_table_id_to_index(tbl, nth_id(SQFS_MAX_IDS), &index),
	    SQFS_ERROR_LIMIT);
	assert_int_equal(sqfs_id_table_count(tbl), SQFS_MAX_IDS);
	for (i = 0; i < SQFS_MAX_IDS; i += 97)
		assert_int_equal(to_index(tbl, nth_id(i)), i);
	assert_int_equal(to_index(tbl, nth_id(SQFS_MAX_IDS - 1)),
			 SQFS_MAX_IDS - 1);
	assert_int_equal(to_id(tbl, SQFS_MAX_IDS - 1),
			 nth_id(SQFS_MAX_IDS - 1));

	sqfs_id_table_destroy(tbl);
}

/* Sequential ids, the usual case, collide the least well in many hashes. */
static void test_sequential_ids(void **state)
{
	sqfs_id_table_t *tbl = new_table();
	uint32_t i;

	(void)state;
	for (i = 0; i < 20000; ++i)
		assert_int_equal(to_index(tbl, i * 65536u), i);
	for (i = 0; i < 20000; ++i)
		assert_int_equal(to_index(tbl, i * 65536u), i);
	for (i = 0; i < 20000; ++i)
		assert_int_equal(to_id(tbl, (uint16_t)i), i * 65536u);
	sqfs_id_table_destroy(tbl);
}

/*
 * An image with a superblock, placeholder inode and directory tables, and
 * the id table written after them.
 */
typedef struct {
	sqfs_file_t *file;
	sqfs_super_t super;
} image_t;

static void image_init(image_t *img)
{
	memset(&img->super, 0, sizeof(img->super));
	img->file = test_memory_file_filled(300, 0x77);
	img->super.inode_table_start = 96;
	img->super.directory_table_start = 200;
	img->super.fragment_table_start = SQFS_TABLE_ABSENT;
	img->super.export_table_start = SQFS_TABLE_ABSENT;
	img->super.xattr_id_table_start = SQFS_TABLE_ABSENT;
	img->super.id_table_start = SQFS_TABLE_ABSENT;
}

static void write_ids(image_t *img, sqfs_compressor_t *cmp, uint32_t count)
{
	sqfs_id_table_t *tbl = new_table();
	uint32_t i;

	for (i = 0; i < count; ++i)
		assert_int_equal(to_index(tbl, nth_id(i)), i);
	assert_int_equal(sqfs_id_table_write(tbl, img->file, &img->super, cmp),
			 0);
	img->super.bytes_used = img->file->get_size(img->file);
	sqfs_id_table_destroy(tbl);
}

static void roundtrip(sqfs_compressor_t *cmp, uint32_t count)
{
	sqfs_id_table_t *tbl = new_table();
	const uint8_t *data;
	image_t img;
	uint32_t i;
	size_t size;

	image_init(&img);
	write_ids(&img, cmp, count);
	assert_int_equal(img.super.id_count, count);
	assert_true(img.super.id_table_start >= 300);
	assert_int_equal(img.super.id_table_start +
			     8 * ((count * 4 + 8191) / 8192),
			 img.super.bytes_used);

	if (cmp == NULL) {
		/* entries are u32 little endian, after a raw block header */
		data = test_memory_file_data(img.file, &size);
		assert_int_equal(get_le16(data + 300),
				 0x8000 |
				     (count * 4 < 8192 ? count * 4 : 8192));
		assert_int_equal(get_le32(data + 302), nth_id(0));
		if (count > 1)
			assert_int_equal(get_le32(data + 306), nth_id(1));
	}

	/* existing contents are replaced */
	assert_int_equal(to_index(tbl, 4242), 0);
	assert_int_equal(sqfs_id_table_read(tbl, img.file, &img.super, cmp), 0);
	assert_int_equal(sqfs_id_table_count(tbl), count);
	for (i = 0; i < count; ++i) {
		assert_int_equal(to_id(tbl, (uint16_t)i), nth_id(i));
		assert_int_equal(to_index(tbl, nth_id(i)), i);
	}
	/* a new id after reading gets the next index */
	if (count < SQFS_MAX_IDS)
		assert_int_equal(to_index(tbl, 4242), count);

	sqfs_id_table_destroy(tbl);
	sqfs_file_destroy(img.file);
}

static void test_roundtrip_raw(void **state)
{
	(void)state;
	roundtrip(NULL, 1);
	roundtrip(NULL, 3);
	roundtrip(NULL, 2048);
	roundtrip(NULL, 5000);
	roundtrip(NULL, SQFS_MAX_IDS);
}

static void test_roundtrip_compressed(void **state)
{
	sqfs_compressor_t *cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);

	(void)state;
	if (cmp == NULL)
		skip();
	roundtrip(cmp, 1);
	roundtrip(cmp, 5000);
	roundtrip(cmp, SQFS_MAX_IDS);
	sqfs_compressor_destroy(cmp);
}

static void test_write_empty(void **state)
{
	sqfs_id_table_t *tbl = new_table();
	image_t img;

	(void)state;
	image_init(&img);
	assert_int_equal(sqfs_id_table_write(tbl, img.file, &img.super, NULL),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(img.file->get_size(img.file), 300);
	assert_int_equal(img.super.id_table_start, SQFS_TABLE_ABSENT);
	sqfs_id_table_destroy(tbl);
	sqfs_file_destroy(img.file);
}

/* A failed read leaves the table as it was. */
static void check_read_fails(image_t *img, const sqfs_super_t *super,
			     int expect)
{
	sqfs_id_table_t *tbl = new_table();

	assert_int_equal(to_index(tbl, 99), 0);
	assert_int_equal(to_index(tbl, 98), 1);
	assert_int_equal(sqfs_id_table_read(tbl, img->file, super, NULL),
			 expect);
	assert_int_equal(sqfs_id_table_count(tbl), 2);
	assert_int_equal(to_id(tbl, 0), 99);
	assert_int_equal(to_id(tbl, 1), 98);
	assert_int_equal(to_index(tbl, 98), 1);
	sqfs_id_table_destroy(tbl);
}

static void test_read_bad(void **state)
{
	sqfs_super_t super;
	image_t img;

	(void)state;
	image_init(&img);
	write_ids(&img, NULL, 3000); /* blocks at 300 and 8494 */

	super = img.super;
	super.id_count = 0;
	check_read_fails(&img, &super, SQFS_ERROR_CORRUPTED);

	/* more or fewer ids than stored */
	super = img.super;
	super.id_count = 3001;
	check_read_fails(&img, &super, SQFS_ERROR_CORRUPTED);
	super.id_count = 2999;
	check_read_fails(&img, &super, SQFS_ERROR_CORRUPTED);
	super.id_count = 2048;
	check_read_fails(&img, &super, SQFS_ERROR_CORRUPTED);
	/* three blocks: the index would run past the end */
	super.id_count = 4097;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);

	/* the table overlapping the directory table */
	super = img.super;
	super.directory_table_start = 301;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);
	super = img.super;
	super.inode_table_start = img.super.id_table_start;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);

	/* running past the xattr table or the end of the image */
	super = img.super;
	super.xattr_id_table_start = img.super.bytes_used - 1;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);
	super = img.super;
	super.bytes_used -= 8;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);
	/* an xattr table after it is fine, and then bytes_used is not the
	 * bound */
	super = img.super;
	super.xattr_id_table_start = img.super.bytes_used;
	super.bytes_used = img.super.bytes_used + 100;
	{
		sqfs_id_table_t *tbl = new_table();

		assert_int_equal(
		    sqfs_id_table_read(tbl, img.file, &super, NULL), 0);
		assert_int_equal(sqfs_id_table_count(tbl), 3000);
		sqfs_id_table_destroy(tbl);
	}

	/* hostile table start */
	super = img.super;
	super.id_table_start = UINT64_MAX - 4;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);
	super.id_table_start = 0;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);
	super.id_table_start = img.super.id_table_start - 8;
	check_read_fails(&img, &super, SQFS_ERROR_OUT_OF_BOUNDS);

	/* the image cut short */
	super = img.super;
	super.bytes_used += 4096;
	super.id_table_start += 4096;
	check_read_fails(&img, &super, SQFS_ERROR_TRUNCATED);

	sqfs_file_destroy(img.file);
}

/* Other writers may store an id twice; such tables still read. */
static void test_read_duplicates(void **state)
{
	uint8_t raw[16];
	sqfs_id_table_t *tbl = new_table();
	image_t img;

	(void)state;
	image_init(&img);
	put_le32(raw, 5);
	put_le32(raw + 4, 5);
	put_le32(raw + 8, 7);
	put_le32(raw + 12, 5);
	assert_int_equal(sqfs_table_write(img.file, NULL, raw, sizeof(raw),
					  &img.super.id_table_start),
			 0);
	img.super.id_count = 4;
	img.super.bytes_used = img.file->get_size(img.file);

	assert_int_equal(sqfs_id_table_read(tbl, img.file, &img.super, NULL),
			 0);
	assert_int_equal(sqfs_id_table_count(tbl), 4);
	assert_int_equal(to_id(tbl, 1), 5);
	assert_int_equal(to_id(tbl, 3), 5);
	assert_int_equal(to_index(tbl, 5), 0);
	assert_int_equal(to_index(tbl, 7), 2);
	assert_int_equal(to_index(tbl, 8), 4);

	sqfs_id_table_destroy(tbl);
	sqfs_file_destroy(img.file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_numbering),
	    cmocka_unit_test(test_limit),
	    cmocka_unit_test(test_sequential_ids),
	    cmocka_unit_test(test_roundtrip_raw),
	    cmocka_unit_test(test_roundtrip_compressed),
	    cmocka_unit_test(test_write_empty),
	    cmocka_unit_test(test_read_bad),
	    cmocka_unit_test(test_read_duplicates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

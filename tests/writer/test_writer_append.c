/* SPDX-License-Identifier: MIT */
/*
 * Appending (sqfs_writer_create_append): an image made in memory is
 * appended to, and the result read back with the library's readers: the
 * old data area is a byte prefix of the new image's, the old entries are
 * there with their data where it was, new files equal to old ones add no
 * blocks, -root-becomes puts the old tree below a name, and what is wrong
 * (mismatched options, an old fragment block outside the data area) is
 * refused.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "sqfs/dir_reader.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/image_source.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "sqfs/writer.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BS 4096u
#define BIG (3 * BS + 100)

/* Bytes of a file from a seed: compressible, different per seed. */
static void fill(uint8_t *buf, size_t size, uint32_t seed)
{
	for (size_t i = 0; i < size; ++i)
		buf[i] = (uint8_t)((i / 7) * seed + seed);
}

static void add_file(sqfs_writer_t *wr, const char *path, size_t size,
		     uint32_t seed)
{
	uint8_t *buf = malloc(size + 1);
	sqfs_entry_t e;

	assert_non_null(buf);
	fill(buf, size, seed);
	sqfs_entry_init(&e, path, S_IFREG | 0644, 1, 2, 1000);
	e.size = size;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, buf, size), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	free(buf);
}

static void options(sqfs_writer_options_t *opt, uint32_t flags)
{
	sqfs_writer_options_init(opt);
	opt->block_size = BS;
	assert_int_equal(sqfs_compressor_config_init(&opt->compressor,
						     sqfs_compressor_default(),
						     BS, 0),
			 0);
	opt->flags = flags;
}

/* The old image: files big and small, a directory, a symlink, a hard
 * link, an xattr. */
static sqfs_file_t *old_image(uint32_t flags)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_file_t *f;
	sqfs_entry_t e;
	sqfs_xattr_t x = {
	    .key = "user.k", .value = (const uint8_t *)"v", .size = 1};

	options(&opt, flags);
	assert_int_equal(sqfs_file_open_memory(&f, NULL, 0, 0), 0);
	assert_int_equal(sqfs_writer_create(f, &opt, &wr, NULL), 0);
	sqfs_entry_init(&e, "", S_IFDIR | 0700, 5, 6, 77);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	add_file(wr, "big", BIG, 3);
	add_file(wr, "d/small", 300, 5);
	sqfs_entry_init(&e, "d", S_IFDIR | 0750, 0, 0, 88);
	e.xattrs = &x;
	e.xattr_count = 1;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	sqfs_entry_init(&e, "sl", S_IFLNK | 0777, 0, 0, 1);
	e.symlink_target = "big";
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	sqfs_entry_init(&e, "hl", 0, 0, 0, 0);
	e.hard_link = "big";
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	return f;
}

static const uint8_t *bytes_of(sqfs_file_t *f, size_t *size)
{
	const uint8_t *p = sqfs_file_memory_data(f, size);

	assert_non_null(p);
	return p;
}

/* An inode of img by path. */
static sqfs_inode_t *inode_at(sqfs_image_t *img, const char *path)
{
	sqfs_dir_reader_t *dr;
	sqfs_inode_t *in = NULL;

	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_dir_reader_resolve(dr, path, &in), 0);
	sqfs_dir_reader_destroy(dr);
	return in;
}

/* The contents of a regular file of img, compared with fill(seed). */
static void check_data(sqfs_image_t *img, const char *path, size_t size,
		       uint32_t seed)
{
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	uint8_t *want = malloc(size + 1);
	size_t got = 0;

	assert_non_null(want);
	fill(want, size, seed);
	assert_int_equal(sqfs_image_source_create(img, path, NULL, &src), 0);
	assert_int_equal(sqfs_image_source_next(src, &e), 0);
	assert_int_equal(e->size, size);
	while (sqfs_image_source_read(src, &run) == 0) {
		assert_non_null(run.data);
		assert_memory_equal(run.data, want + run.offset, run.size);
		got += run.size;
	}
	assert_int_equal(got, size);
	sqfs_image_source_destroy(src);
	free(want);
}

/* Append to old at old_root: "same" equal to big, "same_small" equal to
 * d/small, "new" new. Returns the new image's file. */
static sqfs_file_t *append(sqfs_file_t *old, const char *old_root,
			   sqfs_writer_stats_t *st)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_file_t *f;
	char why[SQFS_ERROR_TEXT_SIZE];

	assert_int_equal(sqfs_image_open(old, &img, NULL), 0);
	options(&opt, 0);
	assert_int_equal(sqfs_writer_options_from_image(&opt, img), 0);
	assert_int_equal(sqfs_file_open_memory(&f, NULL, 0, 0), 0);
	assert_int_equal(
	    sqfs_writer_create_append(f, img, old_root, &opt, &wr, why), 0);
	assert_string_equal(why, "");
	sqfs_image_destroy(img);
	add_file(wr, "same", BIG, 3);
	add_file(wr, "same_small", 300, 5);
	add_file(wr, "new", 5000, 9);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_get_stats(wr, st);
	sqfs_writer_destroy(wr);
	return f;
}

static void test_append_root(void **state)
{
	sqfs_file_t *old = old_image(SQFS_WRITER_EXPORTABLE), *nf;
	const uint8_t *a, *b;
	sqfs_writer_stats_t st;
	sqfs_inode_t *in1, *in2;
	sqfs_image_t *img;
	size_t asz, bsz;
	uint64_t its;
	uint32_t uid, gid;
	sqfs_xattr_t *xl;
	size_t xc;

	(void)state;
	nf = append(old, NULL, &st);
	a = bytes_of(old, &asz);
	b = bytes_of(nf, &bsz);
	/* the old data area is a byte prefix of the new image's */
	its = get_le64(a + 64);
	assert_true(bsz > its);
	assert_memory_equal(a + SQFS_SUPER_SIZE, b + SQFS_SUPER_SIZE,
			    its - SQFS_SUPER_SIZE);
	/* "same" and "same_small" added nothing; "new" its blocks */
	assert_int_equal(st.duplicate_blocks, 3);
	assert_int_equal(st.duplicate_fragments, 2);
	assert_int_equal(st.data_blocks, 1);

	assert_int_equal(sqfs_image_open(nf, &img, NULL), 0);
	/* the old image's choices are kept */
	assert_true(sqfs_image_super(img)->flags & SQFS_FLAG_EXPORTABLE);
	assert_int_equal(sqfs_image_super(img)->block_size, BS);
	check_data(img, "big", BIG, 3);
	check_data(img, "hl", BIG, 3);
	check_data(img, "d/small", 300, 5);
	check_data(img, "same", BIG, 3);
	check_data(img, "same_small", 300, 5);
	check_data(img, "new", 5000, 9);
	in1 = inode_at(img, "big");
	in2 = inode_at(img, "same");
	assert_int_equal(in1->data.file.blocks_start,
			 in2->data.file.blocks_start);
	assert_int_equal(in1->nlink, 2);
	free(in1);
	free(in2);
	/* the old root's attributes, the old directory's xattr */
	in1 = inode_at(img, "");
	assert_int_equal(sqfs_inode_mode(in1), S_IFDIR | 0700);
	assert_int_equal(in1->mtime, 77);
	assert_int_equal(sqfs_image_inode_owner(img, in1, &uid, &gid), 0);
	assert_int_equal(uid, 5);
	assert_int_equal(gid, 6);
	free(in1);
	in1 = inode_at(img, "d");
	assert_int_equal(sqfs_image_read_xattrs(img, in1, &xl, &xc), 0);
	assert_int_equal(xc, 1);
	assert_string_equal(xl[0].key, "user.k");
	sqfs_xattr_list_free(xl, xc);
	free(in1);
	in1 = inode_at(img, "sl");
	assert_int_equal(sqfs_inode_mode(in1), S_IFLNK | 0777);
	free(in1);
	sqfs_image_destroy(img);
	sqfs_file_destroy(nf);
	sqfs_file_destroy(old);
}

/* Appending twice: the first append's image is a valid start too. */
static void test_append_twice(void **state)
{
	sqfs_file_t *old = old_image(0), *f1, *f2;
	sqfs_writer_stats_t st;
	sqfs_image_t *img;

	(void)state;
	f1 = append(old, "r1", &st);
	f2 = append(f1, "r2", &st);
	/* everything is a duplicate the second time */
	assert_int_equal(st.data_blocks, 0);
	assert_int_equal(sqfs_image_open(f2, &img, NULL), 0);
	check_data(img, "r2/r1/big", BIG, 3);
	check_data(img, "r2/same", BIG, 3);
	check_data(img, "r2/new", 5000, 9);
	check_data(img, "new", 5000, 9);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f2);
	sqfs_file_destroy(f1);
	sqfs_file_destroy(old);
}

/* -root-becomes: the old root is a directory with its attributes; the
 * new root has the defaults until added. */
static void test_append_old_root(void **state)
{
	sqfs_file_t *old = old_image(0), *nf;
	sqfs_writer_stats_t st;
	sqfs_inode_t *in;
	sqfs_image_t *img;

	(void)state;
	nf = append(old, "old", &st);
	assert_int_equal(sqfs_image_open(nf, &img, NULL), 0);
	in = inode_at(img, "old");
	assert_int_equal(sqfs_inode_mode(in), S_IFDIR | 0700);
	free(in);
	in = inode_at(img, "");
	assert_int_equal(sqfs_inode_mode(in), S_IFDIR | 0755);
	free(in);
	check_data(img, "old/big", BIG, 3);
	check_data(img, "old/hl", BIG, 3);
	check_data(img, "same", BIG, 3);
	sqfs_image_destroy(img);
	sqfs_file_destroy(nf);
	sqfs_file_destroy(old);
}

static void test_append_refused(void **state)
{
	sqfs_file_t *old = old_image(SQFS_WRITER_UNCOMPRESSED), *f, *bad;
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr = NULL;
	sqfs_image_t *img;
	const uint8_t *a;
	uint8_t *copy;
	size_t asz;
	uint64_t its, pos;

	(void)state;
	assert_int_equal(sqfs_image_open(old, &img, NULL), 0);
	assert_int_equal(sqfs_file_open_memory(&f, NULL, 0, 0), 0);

	/* options that do not match the image */
	options(&opt, 0);
	assert_int_equal(sqfs_writer_options_from_image(&opt, img), 0);
	opt.block_size = 2 * BS;
	opt.compressor.block_size = 2 * BS;
	assert_int_equal(sqfs_writer_create_append(f, img, "", &opt, &wr, why),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(wr);
	assert_non_null(strstr(why, "blocks of 4096"));
	assert_int_equal(f->get_size(f), 0);
	/* a path that cannot be */
	assert_int_equal(sqfs_writer_options_from_image(&opt, img), 0);
	assert_int_equal(
	    sqfs_writer_create_append(f, img, "../x", &opt, &wr, why),
	    SQFS_ERROR_ARG_INVALID);
	assert_int_equal(
	    sqfs_writer_create_append(NULL, img, "", &opt, &wr, NULL),
	    SQFS_ERROR_ARG_INVALID);
	sqfs_image_destroy(img);

	/* a block list (the inode table is stored raw) that runs past the
	 * data area, into where the new image's tables go: the inode of
	 * "big" is found by its size, blocks_start is 12 bytes before it;
	 * the inode reader or the append refuses it, naming the entry */
	a = bytes_of(old, &asz);
	copy = malloc(asz);
	assert_non_null(copy);
	memcpy(copy, a, asz);
	its = get_le64(copy + 64);
	for (pos = its; pos + 4 <= get_le64(copy + 72); ++pos) {
		if (get_le32(copy + pos) == BIG)
			break;
	}
	assert_true(pos + 4 <= get_le64(copy + 72));
	put_le32(copy + pos - 12, (uint32_t)its - 10);
	assert_int_equal(
	    sqfs_file_open_memory(&bad, copy, asz, SQFS_FILE_OPEN_READ_ONLY),
	    0);
	free(copy);
	assert_int_equal(sqfs_image_open(bad, &img, NULL), 0);
	options(&opt, 0);
	assert_int_equal(sqfs_writer_options_from_image(&opt, img), 0);
	assert_int_equal(sqfs_writer_create_append(f, img, "", &opt, &wr, why),
			 SQFS_ERROR_CORRUPTED);
	assert_null(wr);
	assert_non_null(strstr(why, "'big'"));
	sqfs_image_destroy(img);
	sqfs_file_destroy(bad);
	sqfs_file_destroy(f);
	sqfs_file_destroy(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_append_root),
	    cmocka_unit_test(test_append_twice),
	    cmocka_unit_test(test_append_old_root),
	    cmocka_unit_test(test_append_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

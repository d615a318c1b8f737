/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "support/test_util.h"
#include "reader/dir_image.h"

#include "sqfs/dir_reader.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/meta_reader.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

typedef struct {
	char **names;
	uint64_t *refs;
	uint32_t *numbers;
	uint16_t *types;
	size_t count;
} listing_t;

static void listing_free(listing_t *l)
{
	size_t i;

	for (i = 0; i < l->count; ++i)
		free(l->names[i]);
	free(l->names);
	free(l->refs);
	free(l->numbers);
	free(l->types);
	memset(l, 0, sizeof(*l));
}

/* List dir completely; returns what the last next() returned. */
static int list_dir(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
		    listing_t *out)
{
	sqfs_dir_entry_t ent;
	size_t cap = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = sqfs_dir_reader_open(dr, dir);
	if (ret != 0)
		return ret;
	while ((ret = sqfs_dir_reader_next(dr, &ent)) == 0) {
		assert_int_equal(strlen(ent.name), ent.name_len);
		if (out->count == cap) {
			cap = cap ? cap * 2 : 64;
			out->names = realloc(out->names, cap * sizeof(char *));
			out->refs = realloc(out->refs, cap * sizeof(uint64_t));
			out->numbers =
			    realloc(out->numbers, cap * sizeof(uint32_t));
			out->types =
			    realloc(out->types, cap * sizeof(uint16_t));
			assert_true(out->names && out->refs && out->numbers &&
				    out->types);
		}
		out->names[out->count] = strdup(ent.name);
		assert_non_null(out->names[out->count]);
		out->refs[out->count] = ent.inode_ref;
		out->numbers[out->count] = ent.inode_number;
		out->types[out->count] = ent.type;
		out->count++;
	}
	return ret;
}

static sqfs_inode_t *resolve(sqfs_dir_reader_t *dr, const char *path)
{
	sqfs_inode_t *inode = NULL;

	assert_int_equal(sqfs_dir_reader_resolve(dr, path, &inode), 0);
	assert_non_null(inode);
	return inode;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Every entry of l points at an inode of its number and basic type, the
 * numbers are distinct and inside the image's range, and names are
 * strictly increasing.
 */
static void check_entries(sqfs_image_t *img, const listing_t *l)
{
	uint32_t count = sqfs_image_super(img)->inode_count;
	sqfs_inode_t *inode;
	uint8_t *seen = calloc(count + 1, 1);
	size_t i;

	assert_non_null(seen);
	for (i = 0; i < l->count; ++i) {
		if (i > 0)
			assert_true(strcmp(l->names[i - 1], l->names[i]) < 0);
		assert_true(l->numbers[i] >= 1 && l->numbers[i] <= count);
		assert_int_equal(seen[l->numbers[i]], 0);
		seen[l->numbers[i]] = 1;
		assert_int_equal(sqfs_image_read_inode(img, l->refs[i], &inode),
				 0);
		assert_int_equal(inode->inode_number, l->numbers[i]);
		assert_int_equal(sqfs_inode_type_basic(inode->type),
				 l->types[i]);
		free(inode);
	}
	free(seen);
}

static void expect_names(const listing_t *l, const char *const *names,
			 size_t count)
{
	size_t i;

	assert_int_equal(l->count, count);
	for (i = 0; i < count; ++i)
		assert_string_equal(l->names[i], names[i]);
}

/* ---- listings of valid images -------------------------------------------- */

static void test_writer_listing(void **state)
{
	/* byte order: upper case before lower, UTF-8 after ASCII, a
	 * prefix before its extensions */
	static const char *const root_names[] = {
	    "B", "a", "a-", "a0", "dir", "empty", "fifo", "file", "\xc3\xa9",
	};
	static const uint16_t root_types[] = {
	    SQFS_INODE_FIFO, SQFS_INODE_FIFO, SQFS_INODE_FILE,
	    SQFS_INODE_FILE, SQFS_INODE_DIR,  SQFS_INODE_DIR,
	    SQFS_INODE_FIFO, SQFS_INODE_FILE, SQFS_INODE_FIFO,
	};
	static const char *const dir_names[] = {"x", "y"};
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *root, *dir, *file;
	sqfs_dir_entry_t ent;
	sqfs_writer_t *wr;
	sqfs_file_t *f;
	sqfs_image_t *img;
	listing_t l;
	size_t i;
	(void)state;

	wr = di_writer(&f);
	di_add_file(wr, "file", "hello");
	di_add_fifo(wr, "\xc3\xa9");
	di_add_dir(wr, "dir");
	di_add_fifo(wr, "dir/y");
	di_add_file(wr, "dir/x", "x");
	di_add_dir(wr, "empty");
	di_add_fifo(wr, "fifo");
	di_add_file(wr, "a0", "a0");
	di_add_file(wr, "a-", "a-");
	di_add_fifo(wr, "a");
	di_add_fifo(wr, "B");
	img = di_finish(wr, f);

	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	assert_int_equal(list_dir(dr, root, &l), 1);
	expect_names(&l, root_names, 9);
	for (i = 0; i < l.count; ++i)
		assert_int_equal(l.types[i], root_types[i]);
	check_entries(img, &l);
	listing_free(&l);

	/* the end is sticky */
	assert_int_equal(sqfs_dir_reader_next(dr, &ent), 1);

	dir = resolve(dr, "dir");
	assert_int_equal(list_dir(dr, dir, &l), 1);
	expect_names(&l, dir_names, 2);
	check_entries(img, &l);
	listing_free(&l);
	free(dir);

	dir = resolve(dr, "empty");
	assert_int_equal(list_dir(dr, dir, &l), 1);
	assert_int_equal(l.count, 0);
	assert_int_equal(sqfs_dir_reader_next(dr, &ent), 1);
	free(dir);

	/* only directories can be listed */
	file = resolve(dr, "file");
	assert_int_equal(sqfs_dir_reader_open(dr, file), SQFS_ERROR_NOT_DIR);
	assert_int_equal(sqfs_dir_reader_next(dr, &ent), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_dir_reader_find(dr, file, "x", &ent),
			 SQFS_ERROR_NOT_DIR);
	free(file);

	assert_int_equal(sqfs_dir_reader_open(NULL, root),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_dir_reader_next(dr, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_dir_reader_create(NULL, &dr),
			 SQFS_ERROR_ARG_INVALID);

	free(root);
	sqfs_dir_reader_destroy(dr);
	sqfs_dir_reader_destroy(NULL);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* Find every name of the listing l in dir, then names just around them. */
static void find_all(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
		     const listing_t *l, size_t step)
{
	sqfs_dir_entry_t ent;
	char name[300];
	size_t i;

	for (i = 0; i < l->count; i += step) {
		assert_int_equal(
		    sqfs_dir_reader_find(dr, dir, l->names[i], &ent), 0);
		assert_string_equal(ent.name, l->names[i]);
		assert_int_equal(ent.inode_ref, l->refs[i]);
		assert_int_equal(ent.inode_number, l->numbers[i]);

		/* just after the name, so before the next one */
		snprintf(name, sizeof(name), "%s\x01", l->names[i]);
		assert_int_equal(sqfs_dir_reader_find(dr, dir, name, &ent),
				 SQFS_ERROR_NO_ENTRY);
	}
	/* the last one and the misses at both ends */
	assert_int_equal(
	    sqfs_dir_reader_find(dr, dir, l->names[l->count - 1], &ent), 0);
	assert_int_equal(sqfs_dir_reader_find(dr, dir, "\x01", &ent),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_dir_reader_find(dr, dir, "A", &ent),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_dir_reader_find(dr, dir, "\xff", &ent),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_dir_reader_find(dr, dir, ".", &ent),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_dir_reader_find(dr, dir, "..", &ent),
			 SQFS_ERROR_NO_ENTRY);
}

/* The same inode without its directory index. */
static sqfs_inode_t *strip_index(const sqfs_inode_t *dir)
{
	sqfs_inode_t *copy = sqfs_inode_alloc(0);

	assert_non_null(copy);
	memcpy(copy, dir, sizeof(*copy));
	copy->payload_size = 0;
	copy->data.dir.index_count = 0;
	return copy;
}

static void check_big_dir(sqfs_image_t *img, sqfs_dir_reader_t *dr,
			  const char *path, size_t count, bool want_index)
{
	sqfs_inode_t *dir = resolve(dr, path), *plain;
	listing_t l;
	size_t i;
	char **expect = malloc(count * sizeof(char *));

	assert_non_null(expect);
	assert_int_equal(list_dir(dr, dir, &l), 1);
	assert_int_equal(l.count, count);
	for (i = 0; i < count; ++i) {
		expect[i] = malloc(16);
		assert_non_null(expect[i]);
		snprintf(expect[i], 16, "f%zu", i);
	}
	qsort(expect, count, sizeof(char *), cmp_names);
	for (i = 0; i < count; ++i) {
		assert_string_equal(l.names[i], expect[i]);
		free(expect[i]);
	}
	free(expect);
	check_entries(img, &l);

	if (want_index) {
		assert_int_equal(dir->type, SQFS_INODE_EXT_DIR);
		assert_true(dir->data.dir.index_count > 0);
	}
	find_all(dr, dir, &l, 1);
	plain = strip_index(dir);
	find_all(dr, plain, &l, count > 1000 ? 997 : 1);
	free(plain);
	listing_free(&l);
	free(dir);
}

static void test_big_dirs(void **state)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_file_t *f;
	char path[64];
	size_t i;
	(void)state;

	wr = di_writer(&f);
	for (i = 0; i < 300; ++i) {
		snprintf(path, sizeof(path), "d300/f%zu", i);
		di_add_fifo(wr, path);
	}
	for (i = 0; i < 20000; ++i) {
		snprintf(path, sizeof(path), "d20k/f%zu", i);
		di_add_fifo(wr, path);
	}
	img = di_finish(wr, f);
	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	check_big_dir(img, dr, "d300", 300, true);
	check_big_dir(img, dr, "d20k", 20000, true);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

static void test_mksquashfs(void **state)
{
	static const char *const root_names[] = {"big", "empty", "sub",
						 "z_last"};
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *root, *dir;
	sqfs_image_t *img;
	sqfs_file_t *f;
	listing_t l;
	char name[64], *tmp;
	size_t i;
	(void)state;

	if (!di_have_mksquashfs())
		skip();
	tmp = di_tempdir();
	di_mkdir(tmp, "big");
	di_mkdir(tmp, "empty");
	di_mkdir(tmp, "sub");
	di_touch(tmp, "z_last");
	di_touch(tmp, "sub/b");
	di_touch(tmp, "sub/a");
	for (i = 0; i < 1500; ++i) {
		snprintf(name, sizeof(name), "big/f%zu", i);
		di_touch(tmp, name);
	}
	img = di_mksquashfs(tmp, &f);

	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	assert_int_equal(list_dir(dr, root, &l), 1);
	expect_names(&l, root_names, 4);
	check_entries(img, &l);
	listing_free(&l);
	free(root);

	dir = resolve(dr, "empty");
	assert_int_equal(list_dir(dr, dir, &l), 1);
	assert_int_equal(l.count, 0);
	free(dir);

	check_big_dir(img, dr, "big", 1500, true);

	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
	di_cleanup(tmp);
}

/* ---- resolving paths ----------------------------------------------------- */

static void test_resolve(void **state)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *inode, *root, *file;
	sqfs_dir_entry_t ent;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_file_t *f;
	char long_name[300];
	static const char *const same[] = {
	    "a/b/c/file",	"/a/b/c/file",	 "a//b/./c/file/",
	    "./a/b/c/./file//", "///a/b/c/file",
	};
	static const char *const roots[] = {"", "/", ".", "//./"};
	size_t i;
	(void)state;

	wr = di_writer(&f);
	di_add_file(wr, "a/b/c/file", "data");
	di_add_dir(wr, "a/b/d");
	di_add_fifo(wr, "a/x");
	img = di_finish(wr, f);
	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);

	file = resolve(dr, same[0]);
	assert_int_equal(file->type, SQFS_INODE_FILE);
	assert_int_equal(file->data.file.file_size, 4);
	for (i = 1; i < sizeof(same) / sizeof(same[0]); ++i) {
		inode = resolve(dr, same[i]);
		assert_int_equal(inode->inode_number, file->inode_number);
		free(inode);
	}
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); ++i) {
		inode = resolve(dr, roots[i]);
		assert_int_equal(inode->inode_number, root->inode_number);
		assert_int_equal(inode->type, root->type);
		free(inode);
	}
	inode = resolve(dr, "a/b/d/");
	assert_int_equal(inode->type, SQFS_INODE_DIR);
	free(inode);
	inode = resolve(dr, "a/x");
	assert_int_equal(inode->type, SQFS_INODE_FIFO);
	free(inode);

	inode = NULL;
	assert_int_equal(sqfs_dir_reader_resolve(dr, "..", &inode),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a/../a", &inode),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(sqfs_image_error(img), "'..' in path 'a/../a'");
	assert_int_equal(sqfs_dir_reader_resolve(dr, "missing/..", &inode),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a/b/c/file/x", &inode),
			 SQFS_ERROR_NOT_DIR);
	assert_string_equal(sqfs_image_error(img),
			    "'a/b/c/file': not a directory");
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a/x/y/z", &inode),
			 SQFS_ERROR_NOT_DIR);
	assert_string_equal(sqfs_image_error(img), "'a/x': not a directory");
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a/missing", &inode),
			 SQFS_ERROR_NO_ENTRY);
	assert_string_equal(sqfs_image_error(img),
			    "'a/missing': no such file or directory");
	assert_int_equal(sqfs_dir_reader_resolve(dr, "/a//b/nope/c", &inode),
			 SQFS_ERROR_NO_ENTRY);
	assert_string_equal(sqfs_image_error(img),
			    "'/a//b/nope': no such file or directory");
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a/b/c/fil", &inode),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a/b/c/file2", &inode),
			 SQFS_ERROR_NO_ENTRY);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(sqfs_dir_reader_resolve(dr, long_name, &inode),
			 SQFS_ERROR_NO_ENTRY);
	assert_null(inode);
	assert_int_equal(sqfs_dir_reader_resolve(dr, NULL, &inode),
			 SQFS_ERROR_ARG_INVALID);

	assert_int_equal(sqfs_dir_reader_find(dr, root, "", &ent),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_dir_reader_find(dr, root, "a/b", &ent),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_dir_reader_find(dr, root, long_name, &ent),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_dir_reader_find(dr, root, "a", &ent), 0);
	assert_int_equal(ent.type, SQFS_INODE_DIR);

	free(root);
	free(file);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* ---- hostile listings ---------------------------------------------------- */

/*
 * An image whose root holds the listing that build makes, with FIFO
 * inodes 1 and 2 at refs[0] and refs[1]; the root is inode 3. Listing the
 * root must fail with expect, and so must every later call.
 */
typedef void (*build_fn)(di_listing_t *l, const uint64_t *refs);

static void expect_listing(build_fn build, int expect)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_dir_entry_t ent;
	sqfs_inode_t *root;
	sqfs_image_t *img;
	sqfs_file_t *f;
	di_craft_t *c = di_craft_new();
	di_listing_t *l = calloc(1, sizeof(*l));
	uint64_t refs[2], root_ref;
	listing_t out;
	int ret;

	assert_non_null(l);
	refs[0] = di_craft_fifo(c, 1);
	refs[1] = di_craft_fifo(c, 2);
	build(l, refs);
	root_ref = di_craft_dir(c, 3, l, false, NULL, 0, 0);
	img = di_craft_finish(c, 3, root_ref, &f);
	free(l);

	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	ret = list_dir(dr, root, &out);
	if (expect == 0) {
		assert_int_equal(ret, 1);
	} else {
		assert_int_equal(ret, expect);
		assert_int_equal(sqfs_dir_reader_next(dr, &ent), expect);
	}
	listing_free(&out);

	/* a lookup either fails or finds a checked entry */
	ret = sqfs_dir_reader_find(dr, root, "zzz", &ent);
	assert_true(ret < 0);

	free(root);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

#define ENT(l, refs, i, delta, type, name)                                 \
	di_lst_entry(l, (uint16_t)((refs)[i] & 0xFFFF), delta, type, name, \
		     sizeof(name) - 1)

static void lst_two(di_listing_t *l, const uint64_t *refs, const char *a,
		    size_t alen, const char *b, size_t blen)
{
	di_lst_header(l, 1, (uint32_t)(refs[0] >> 16), 1);
	di_lst_entry(l, (uint16_t)(refs[0] & 0xFFFF), 0, SQFS_INODE_FIFO, a,
		     alen);
	di_lst_entry(l, (uint16_t)(refs[1] & 0xFFFF), 1, SQFS_INODE_FIFO, b,
		     blen);
}

static void b_valid(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "a", 1, "b", 1);
}

static void b_slash(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "a", 1, "b/c", 3);
}

static void b_nul(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "a", 1, "b\0c", 3);
}

static void b_dot(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, ".", 1, "a", 1);
}

static void b_dotdot(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "..", 2, "a", 1);
}

static void b_unsorted(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "b", 1, "a", 1);
}

static void b_prefix_unsorted(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "ab", 2, "a", 1);
}

static void b_duplicate(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "a", 1, "a", 1);
}

static void b_unsorted_runs(di_listing_t *l, const uint64_t *refs)
{
	di_lst_one(l, refs[0], 1, SQFS_INODE_FIFO, "b");
	di_lst_one(l, refs[1], 2, SQFS_INODE_FIFO, "a");
}

static void b_count_256(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 256, (uint32_t)(refs[0] >> 16), 1);
	ENT(l, refs, 0, 0, SQFS_INODE_FIFO, "a");
	ENT(l, refs, 1, 1, SQFS_INODE_FIFO, "b");
}

/* n entries in one run, all naming inode 1 */
static void lst_run(di_listing_t *l, const uint64_t *refs, uint32_t n)
{
	char name[8];
	uint32_t i;

	di_lst_header(l, n - 1, (uint32_t)(refs[0] >> 16), 1);
	for (i = 0; i < n; ++i) {
		snprintf(name, sizeof(name), "n%03u", (unsigned int)i);
		di_lst_entry(l, (uint16_t)(refs[0] & 0xFFFF), 0,
			     SQFS_INODE_FIFO, name, 4);
	}
}

static void b_run_256(di_listing_t *l, const uint64_t *refs)
{
	lst_run(l, refs, 256);
}

static void b_run_257(di_listing_t *l, const uint64_t *refs)
{
	lst_run(l, refs, 257);
}

static void b_count_huge(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0xFFFFFFFFu, (uint32_t)(refs[0] >> 16), 1);
	ENT(l, refs, 0, 0, SQFS_INODE_FIFO, "a");
}

static void b_type_0(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 1);
	ENT(l, refs, 0, 0, 0, "a");
}

static void b_type_8(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 1);
	ENT(l, refs, 0, 0, SQFS_INODE_EXT_DIR, "a");
}

static void b_name_257(di_listing_t *l, const uint64_t *refs)
{
	char name[257];

	memset(name, 'n', sizeof(name));
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 1);
	di_lst_entry(l, (uint16_t)(refs[0] & 0xFFFF), 0, SQFS_INODE_FIFO, name,
		     sizeof(name));
}

static void b_name_256(di_listing_t *l, const uint64_t *refs)
{
	char name[256];

	memset(name, 'n', sizeof(name));
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 1);
	di_lst_entry(l, (uint16_t)(refs[0] & 0xFFFF), 0, SQFS_INODE_FIFO, name,
		     sizeof(name));
}

static void b_delta_high(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 1);
	ENT(l, refs, 0, 3, SQFS_INODE_FIFO, "a");
}

static void b_delta_zero(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 1);
	ENT(l, refs, 0, -1, SQFS_INODE_FIFO, "a");
}

static void b_delta_negative(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 0);
	ENT(l, refs, 0, -32768, SQFS_INODE_FIFO, "a");
}

static void b_delta_wrap(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 0xFFFFFFFFu);
	ENT(l, refs, 0, 2, SQFS_INODE_FIFO, "a");
}

static void b_delta_wrap_down(di_listing_t *l, const uint64_t *refs)
{
	/* 0xFFFFFFFF - 0xFFFFFFFE would be 1 with 32-bit wrap-around only */
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 0xFFFFFFFFu);
	ENT(l, refs, 0, -32768, SQFS_INODE_FIFO, "a");
}

static void b_block_outside(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, 0x10000, 1);
	ENT(l, refs, 0, 0, SQFS_INODE_FIFO, "a");
}

static void b_block_huge(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, 0xFFFFFFFFu, 1);
	ENT(l, refs, 0, 0, SQFS_INODE_FIFO, "a");
}

static void b_offset_8192(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 0, (uint32_t)(refs[0] >> 16), 1);
	di_lst_entry(l, 8192, 0, SQFS_INODE_FIFO, "a", 1);
}

/* the header promises two entries, the listing holds one */
static void b_run_short(di_listing_t *l, const uint64_t *refs)
{
	di_lst_header(l, 1, (uint32_t)(refs[0] >> 16), 1);
	ENT(l, refs, 0, 0, SQFS_INODE_FIFO, "a");
}

/* the listing ends inside the second entry's name; bytes follow */
static void b_end_in_name(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "a", 1, "bcdef", 5);
	l->size -= 3;
	l->pad = 3;
}

/* the listing ends inside the second entry's fixed part */
static void b_end_in_entry(di_listing_t *l, const uint64_t *refs)
{
	lst_two(l, refs, "a", 1, "bcdef", 5);
	l->size -= 10;
	l->pad = 10;
}

/* a second header, cut off, at the end of the listing */
static void b_end_in_header(di_listing_t *l, const uint64_t *refs)
{
	di_lst_one(l, refs[0], 1, SQFS_INODE_FIFO, "a");
	di_lst_one(l, refs[1], 2, SQFS_INODE_FIFO, "b");
	l->size -= 12;
	l->pad = 12;
}

/* a header with no entry left after it */
static void b_header_only(di_listing_t *l, const uint64_t *refs)
{
	di_lst_one(l, refs[0], 1, SQFS_INODE_FIFO, "a");
	di_lst_header(l, 0, (uint32_t)(refs[1] >> 16), 2);
	di_lst_entry(l, 0, 0, SQFS_INODE_FIFO, "bbbbbbbbbb", 10);
	l->size -= 18;
	l->pad = 18;
}

static void test_hostile_listings(void **state)
{
	(void)state;
	expect_listing(b_valid, 0);
	expect_listing(b_name_256, 0);
	expect_listing(b_slash, SQFS_ERROR_CORRUPTED);
	expect_listing(b_nul, SQFS_ERROR_CORRUPTED);
	expect_listing(b_dot, SQFS_ERROR_CORRUPTED);
	expect_listing(b_dotdot, SQFS_ERROR_CORRUPTED);
	expect_listing(b_unsorted, SQFS_ERROR_CORRUPTED);
	expect_listing(b_prefix_unsorted, SQFS_ERROR_CORRUPTED);
	expect_listing(b_duplicate, SQFS_ERROR_CORRUPTED);
	expect_listing(b_unsorted_runs, SQFS_ERROR_CORRUPTED);
	expect_listing(b_run_256, 0);
	expect_listing(b_run_257, SQFS_ERROR_CORRUPTED);
	expect_listing(b_count_256, SQFS_ERROR_CORRUPTED);
	expect_listing(b_count_huge, SQFS_ERROR_CORRUPTED);
	expect_listing(b_type_0, SQFS_ERROR_CORRUPTED);
	expect_listing(b_type_8, SQFS_ERROR_CORRUPTED);
	expect_listing(b_name_257, SQFS_ERROR_CORRUPTED);
	expect_listing(b_delta_high, SQFS_ERROR_CORRUPTED);
	expect_listing(b_delta_zero, SQFS_ERROR_CORRUPTED);
	expect_listing(b_delta_negative, SQFS_ERROR_CORRUPTED);
	expect_listing(b_delta_wrap, SQFS_ERROR_CORRUPTED);
	expect_listing(b_delta_wrap_down, SQFS_ERROR_CORRUPTED);
	expect_listing(b_block_outside, SQFS_ERROR_CORRUPTED);
	expect_listing(b_block_huge, SQFS_ERROR_CORRUPTED);
	expect_listing(b_offset_8192, SQFS_ERROR_CORRUPTED);
	expect_listing(b_run_short, SQFS_ERROR_CORRUPTED);
	expect_listing(b_end_in_name, SQFS_ERROR_CORRUPTED);
	expect_listing(b_end_in_entry, SQFS_ERROR_CORRUPTED);
	expect_listing(b_end_in_header, SQFS_ERROR_CORRUPTED);
	expect_listing(b_header_only, SQFS_ERROR_CORRUPTED);
}

/* ---- hostile directory inodes -------------------------------------------- */

static void test_hostile_inodes(void **state)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *root, *copy;
	sqfs_dir_entry_t ent;
	sqfs_image_t *img;
	sqfs_file_t *f;
	di_craft_t *c = di_craft_new();
	di_listing_t *l = calloc(1, sizeof(*l));
	uint64_t refs[2], root_ref;
	listing_t out;
	int ret;
	(void)state;

	assert_non_null(l);
	refs[0] = di_craft_fifo(c, 1);
	refs[1] = di_craft_fifo(c, 2);
	b_valid(l, refs);
	root_ref = di_craft_dir(c, 3, l, false, NULL, 0, 0);
	img = di_craft_finish(c, 3, root_ref, &f);
	free(l);
	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	copy = sqfs_inode_alloc(0);
	assert_non_null(copy);

	/* sizes that no listing can have */
	memcpy(copy, root, sizeof(*copy));
	copy->data.dir.size = 2;
	assert_int_equal(sqfs_dir_reader_open(dr, copy), SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_dir_reader_next(dr, &ent), SQFS_ERROR_SEQUENCE);
	copy->data.dir.size = 23;
	assert_int_equal(sqfs_dir_reader_open(dr, copy), SQFS_ERROR_CORRUPTED);

	/* an empty directory's position means nothing */
	copy->data.dir.size = 3;
	copy->data.dir.start_block = 0xFFFFFFFFu;
	copy->data.dir.offset = 8191;
	assert_int_equal(list_dir(dr, copy, &out), 1);
	assert_int_equal(out.count, 0);
	assert_int_equal(sqfs_dir_reader_find(dr, copy, "a", &ent),
			 SQFS_ERROR_NO_ENTRY);

	/* a listing outside the directory table, or inside no block */
	memcpy(copy, root, sizeof(*copy));
	copy->data.dir.start_block = 0xFFFFFFFFu;
	assert_true(sqfs_dir_reader_open(dr, copy) < 0);
	assert_true(sqfs_dir_reader_find(dr, copy, "a", &ent) < 0);
	copy->data.dir.start_block = 1;
	assert_true(sqfs_dir_reader_open(dr, copy) < 0);
	copy->data.dir.start_block = root->data.dir.start_block;
	copy->data.dir.offset = 8192;
	assert_true(sqfs_dir_reader_open(dr, copy) < 0);
	copy->data.dir.offset = 4000;
	assert_true(sqfs_dir_reader_open(dr, copy) < 0);

	/* a listing longer than the table: the table ends first */
	memcpy(copy, root, sizeof(*copy));
	copy->data.dir.size += 40;
	ret = list_dir(dr, copy, &out);
	assert_true(ret < 0);
	listing_free(&out);

	/* shifted by a byte: garbage, but never a crash */
	memcpy(copy, root, sizeof(*copy));
	copy->data.dir.offset += 1;
	copy->data.dir.size -= 1;
	ret = list_dir(dr, copy, &out);
	assert_true(ret < 0);
	listing_free(&out);

	free(copy);
	free(root);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* An image with an empty root, so an empty directory table. */
static void test_empty_root(void **state)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *root, *inode;
	sqfs_dir_entry_t ent;
	sqfs_image_t *img;
	sqfs_file_t *f;
	di_craft_t *c = di_craft_new();
	uint64_t root_ref;
	(void)state;

	root_ref = di_craft_dir(c, 1, NULL, false, NULL, 0, 0);
	img = di_craft_finish(c, 1, root_ref, &f);
	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	assert_int_equal(sqfs_dir_reader_open(dr, root), 0);
	assert_int_equal(sqfs_dir_reader_next(dr, &ent), 1);
	assert_int_equal(sqfs_dir_reader_find(dr, root, "a", &ent),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a", &inode),
			 SQFS_ERROR_NO_ENTRY);
	inode = resolve(dr, "/");
	assert_int_equal(inode->inode_number, 1);
	free(inode);
	free(root);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* An entry whose inode has another number, seen through resolve. */
static void test_number_mismatch(void **state)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *inode = NULL;
	sqfs_image_t *img;
	sqfs_file_t *f;
	di_craft_t *c = di_craft_new();
	di_listing_t l = {0};
	uint64_t ref, root_ref;
	(void)state;

	ref = di_craft_fifo(c, 1);
	di_lst_one(&l, ref, 2, SQFS_INODE_FIFO, "a");
	root_ref = di_craft_dir(c, 3, &l, false, NULL, 0, 0);
	img = di_craft_finish(c, 3, root_ref, &f);
	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_dir_reader_resolve(dr, "a", &inode),
			 SQFS_ERROR_CORRUPTED);
	assert_null(inode);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* ---- hostile directory indexes ------------------------------------------- */

typedef struct {
	uint32_t index;
	uint32_t start;
	const char *name;
	size_t name_len;
} idx_t;

/* dir with its index replaced by count entries (raw name sizes). */
static sqfs_inode_t *with_index(const sqfs_inode_t *dir, const idx_t *idx,
				size_t count, uint16_t claimed)
{
	size_t i, size = 0;
	sqfs_inode_t *copy;
	uint8_t *p;

	for (i = 0; i < count; ++i)
		size += 12 + (idx[i].name_len == 0 ? 1 : idx[i].name_len);
	copy = sqfs_inode_alloc(size);
	assert_non_null(copy);
	memcpy(copy, dir, sizeof(*copy));
	copy->type = SQFS_INODE_EXT_DIR;
	copy->payload_size = size;
	copy->data.dir.index_count = claimed;
	p = copy->payload;
	for (i = 0; i < count; ++i) {
		put_le32(p, idx[i].index);
		put_le32(p + 4, idx[i].start);
		put_le32(p + 8, (uint32_t)(idx[i].name_len - 1));
		memcpy(p + 12, idx[i].name,
		       idx[i].name_len == 0 ? 1 : idx[i].name_len);
		p += 12 + (idx[i].name_len == 0 ? 1 : idx[i].name_len);
	}
	return copy;
}

/* The real index entries of dir, decoded (names point into dir). */
static size_t get_index(const sqfs_inode_t *dir, idx_t *out, size_t max)
{
	size_t pos = 0, count = 0;

	while (pos < dir->payload_size && count < max) {
		const uint8_t *p = dir->payload + pos;

		out[count].index = get_le32(p);
		out[count].start = get_le32(p + 4);
		out[count].name_len = get_le32(p + 8) + 1;
		out[count].name = (const char *)p + 12;
		pos += 12 + out[count].name_len;
		count++;
	}
	return count;
}

/* Where name is in l; it must be there, and not last. */
static size_t find_pos(const listing_t *l, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < l->count; ++i) {
		if (strlen(l->names[i]) == len &&
		    memcmp(l->names[i], name, len) == 0)
			return i;
	}
	fail_msg("index name not in the listing");
	return 0;
}

static void find_with(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
		      const listing_t *l)
{
	find_all(dr, dir, l, 97);
}

static void test_hostile_index(void **state)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *dir, *bad;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_file_t *f;
	idx_t real[64], idx[64];
	listing_t l;
	char path[64];
	size_t i, n, pos;
	int k;
	(void)state;

	wr = di_writer(&f);
	for (i = 0; i < 3000; ++i) {
		snprintf(path, sizeof(path), "d/f%zu", i);
		di_add_fifo(wr, path);
	}
	img = di_finish(wr, f);
	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	dir = resolve(dr, "d");
	assert_int_equal(list_dir(dr, dir, &l), 1);
	n = get_index(dir, real, 64);
	assert_int_equal(n, dir->data.dir.index_count);
	assert_true(n >= 4);

	/* the real index works */
	find_with(dr, dir, &l);

	/* every index entry shifted by a few bytes */
	memcpy(idx, real, sizeof(idx));
	for (i = 0; i < n; ++i)
		idx[i].index += 5;
	bad = with_index(dir, idx, n, (uint16_t)n);
	find_with(dr, bad, &l);
	free(bad);

	/* pointing at the wrong block */
	memcpy(idx, real, sizeof(idx));
	for (i = 0; i < n; ++i)
		idx[i].start += 100;
	bad = with_index(dir, idx, n, (uint16_t)n);
	find_with(dr, bad, &l);
	free(bad);

	/* the names of the entries after and before those indexed */
	for (k = -1; k <= 1; k += 2) {
		memcpy(idx, real, sizeof(idx));
		for (i = 1; i < n; ++i) {
			pos = find_pos(&l, real[i].name, real[i].name_len);
			idx[i].name = l.names[pos + k];
			idx[i].name_len = strlen(idx[i].name);
		}
		bad = with_index(dir, idx, n, (uint16_t)n);
		find_with(dr, bad, &l);
		free(bad);
	}

	/* out of order, and past the listing */
	memcpy(idx, real, sizeof(idx));
	idx[1] = real[2];
	idx[2] = real[1];
	bad = with_index(dir, idx, n, (uint16_t)n);
	find_with(dr, bad, &l);
	free(bad);
	memcpy(idx, real, sizeof(idx));
	idx[n - 1].index = dir->data.dir.size;
	bad = with_index(dir, idx, n, (uint16_t)n);
	find_with(dr, bad, &l);
	free(bad);
	memcpy(idx, real, sizeof(idx));
	idx[n - 1].index = 0xFFFFFFF0u;
	idx[n - 1].start = 0xFFFFFFF0u;
	bad = with_index(dir, idx, n, (uint16_t)n);
	find_with(dr, bad, &l);
	free(bad);

	/* names too long, and more entries claimed than present */
	memcpy(idx, real, sizeof(idx));
	idx[2].name_len = 0;
	idx[1].name_len = 300;
	{
		char longname[300];

		memset(longname, 'f', sizeof(longname));
		idx[1].name = longname;
		bad = with_index(dir, idx, n, (uint16_t)n);
		find_with(dr, bad, &l);
		free(bad);
	}
	bad = with_index(dir, real, n, (uint16_t)(n + 5));
	find_with(dr, bad, &l);
	free(bad);
	bad = with_index(dir, real, n, 0xFFFF);
	find_with(dr, bad, &l);
	free(bad);

	/* one entry pointing into the middle of an entry, named like it */
	for (i = 1; i + 1 < l.count; i += 211) {
		idx[0].index = 37;
		idx[0].start = dir->data.dir.start_block;
		idx[0].name = l.names[i];
		idx[0].name_len = strlen(l.names[i]);
		bad = with_index(dir, idx, 1, 1);
		find_with(dr, bad, &l);
		free(bad);
	}

	listing_free(&l);
	free(dir);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* ---- how often lookups decode a block ------------------------------------ */

/*
 * Counts the metadata blocks decoded from position from on (the hook of a
 * test_observed_file): the metadata reader reads a block's 2-byte header
 * on its own, once each time it decodes the block. Once the image is open, the
 * calls made here read nothing at or past the directory table but directory
 * blocks.
 */
typedef struct {
	uint64_t from;
	size_t decodes;
	/* the distinct blocks decoded, to tell a second decode from a first */
	uint64_t seen[1024];
	size_t seen_count;
} decode_count_t;

/* test_observed_file's hook */
static void count_decode(void *user, uint64_t offset, size_t size)
{
	decode_count_t *f = user;
	size_t i;

	if (size == 2 && offset >= f->from) {
		f->decodes += 1;
		for (i = 0; i < f->seen_count && f->seen[i] != offset; ++i)
			;
		if (i == f->seen_count) {
			assert_true(f->seen_count < 1024);
			f->seen[f->seen_count++] = offset;
		}
	}
}

static void count_reset(decode_count_t *f)
{
	f->decodes = 0;
	f->seen_count = 0;
}

/* Lookups of n names from list (sorted), in order, spread over all of it. */
static void find_spread(sqfs_dir_reader_t *dr, const sqfs_inode_t *dir,
			char **list, size_t count, size_t n)
{
	sqfs_dir_entry_t ent;
	size_t i;

	for (i = 0; i < n; ++i) {
		const char *name = list[i * (count - 1) / (n - 1)];

		assert_int_equal(sqfs_dir_reader_find(dr, dir, name, &ent), 0);
		assert_string_equal(ent.name, name);
	}
}

/*
 * count FIFOs named by fmt in d/, packed by the library's writer, looked up
 * in d's listing without its index (as in an image whose writer made
 * none). The listing is longer than the metadata reader's cache, which a
 * lookup that reads the listing from the top for each name decodes again
 * and again.
 */
static void check_lookup_decodes(const char *fmt, size_t count)
{
	decode_count_t *cf = calloc(1, sizeof(*cf));
	sqfs_dir_reader_t *dr = NULL, *fresh = NULL;
	sqfs_file_t *inner, *file;
	sqfs_inode_t *dir, *plain, *inode;
	char **names = malloc(count * sizeof(char *));
	char path[320], name[300];
	sqfs_dir_entry_t ent;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	uint32_t seed = 7;
	size_t i, k, blocks;
	listing_t l;

	assert_non_null(cf);
	assert_non_null(names);
	wr = di_writer(&inner);
	for (i = 0; i < count; ++i) {
		snprintf(name, sizeof(name), fmt, i);
		names[i] = strdup(name);
		assert_non_null(names[i]);
		snprintf(path, sizeof(path), "d/%s", name);
		di_add_fifo(wr, path);
	}
	qsort(names, count, sizeof(char *), cmp_names);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	file = test_observed_file(inner, count_decode, cf);
	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	cf->from = sqfs_image_super(img)->directory_table_start;

	assert_int_equal(sqfs_dir_reader_create(img, &dr), 0);
	assert_int_equal(sqfs_dir_reader_create(img, &fresh), 0);
	dir = resolve(dr, "d");
	plain = strip_index(dir);

	/* names in order: every block is decoded once */
	count_reset(cf);
	find_spread(fresh, plain, names, count, 1000);
	blocks = cf->seen_count;
	assert_true(blocks > SQFS_META_READER_CACHE_SIZE);
	assert_int_equal(cf->decodes, blocks);

	/* a whole listing: the same, and lookups after it decode no block
	 * twice */
	count_reset(cf);
	assert_int_equal(list_dir(dr, plain, &l), 1);
	assert_int_equal(l.count, count);
	assert_int_equal(cf->decodes, blocks);
	assert_int_equal(cf->seen_count, blocks);
	listing_free(&l);
	count_reset(cf);
	find_spread(dr, plain, names, count, 1000);
	assert_int_equal(cf->decodes, cf->seen_count);

	/* in any order, hits and misses: a few blocks a lookup at most */
	count_reset(cf);
	for (i = 0; i < 1000; ++i) {
		k = test_rand(&seed) % count;
		assert_int_equal(
		    sqfs_dir_reader_find(dr, plain, names[k], &ent), 0);
		assert_string_equal(ent.name, names[k]);
		snprintf(name, sizeof(name), "%s\x01", names[k]);
		assert_int_equal(sqfs_dir_reader_find(dr, plain, name, &ent),
				 SQFS_ERROR_NO_ENTRY);
	}
	assert_true(cf->decodes <= 3 * 2000);

	/* paths: reading the root's listing in between loses nothing */
	count_reset(cf);
	for (i = 0; i < 1000; ++i) {
		k = test_rand(&seed) % count;
		snprintf(path, sizeof(path), "d/%s", names[k]);
		inode = resolve(dr, path);
		free(inode);
	}
	assert_true(cf->decodes <= 3 * 1000 + 1);

	free(plain);
	free(dir);
	for (i = 0; i < count; ++i)
		free(names[i]);
	free(names);
	sqfs_dir_reader_destroy(fresh);
	sqfs_dir_reader_destroy(dr);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	free(cf);
}

static void test_lookup_decodes(void **state)
{
	(void)state;
	/* about 35 blocks */
	check_lookup_decodes("f%zu", 20000);
	/* about 110 blocks: more than the reader keeps places for */
	check_lookup_decodes("a_longer_name_for_more_blocks_%06zu", 20000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer_listing),
	    cmocka_unit_test(test_big_dirs),
	    cmocka_unit_test(test_mksquashfs),
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_hostile_listings),
	    cmocka_unit_test(test_hostile_inodes),
	    cmocka_unit_test(test_empty_root),
	    cmocka_unit_test(test_number_mismatch),
	    cmocka_unit_test(test_hostile_index),
	    cmocka_unit_test(test_lookup_decodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

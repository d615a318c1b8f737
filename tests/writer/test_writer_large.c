/* SPDX-License-Identifier: MIT */
/*
 * The high-level writer at scale: a directory of 20,000 entries, deep
 * nesting, and a sparse file of 5 GiB.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "writer/writer_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define HUGE_DIR 20000

static sqfs_writer_t *new_writer(const char *path, sqfs_file_t **file)
{
	sqfs_writer_options_t opt;

	wt_options(&opt);
	return wt_create(path, &opt, file);
}

static void finish(sqfs_writer_t *wr, sqfs_file_t *file)
{
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
}

static void test_huge_directory(void **state)
{
	sqfs_entry_t ent = wt_make_entry(NULL, S_IFREG | 0644, 0, 0, 1000);
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	char name[64];
	wt_entry_t *e;
	wt_tmp_t tmp;

	(void)state;
	wt_tmp_init(&tmp);
	wt_model_init(&model);
	wt_model_set(&model, "", S_IFDIR | 0755, 0, 0, 0);
	wt_model_set(&model, "big", S_IFDIR | 0755, 0, 0, 0);

	wr = new_writer(tmp.image, &file);

	/* Added in an order unlike the sorted one. */
	for (uint32_t i = 0; i < HUGE_DIR; ++i) {
		uint32_t k = (i * 7919u) % HUGE_DIR;

		snprintf(name, sizeof(name), "big/%s-%05u",
			 (k % 3) ? "file" : "f", k);
		ent.path = name;
		ent.uid = k % 5;
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		assert_int_equal(sqfs_writer_end_file(wr), 0);
		wt_model_add(&model, name, S_IFREG | 0644, k % 5, 0, 1000);
	}

	/* Replacing and linking inside the huge directory finds entries. */
	for (uint32_t k = 0; k < HUGE_DIR; k += 997) {
		sqfs_entry_t sl = wt_make_entry(name, S_IFLNK | 0777, 0, 0, 5);
		char target[64];

		snprintf(name, sizeof(name), "big/%s-%05u",
			 (k % 3) ? "file" : "f", k);
		sl.symlink_target = "x";
		assert_int_equal(sqfs_writer_add(wr, &sl, 0), 0);
		e = wt_model_set(&model, name, S_IFLNK | 0777, 0, 0, 5);
		e->target = strdup("x");

		snprintf(name, sizeof(name), "big/link-%05u", k);
		snprintf(target, sizeof(target), "big/%s-%05u",
			 ((k + 1) % 3) ? "file" : "f", k + 1);
		assert_int_equal(wt_add_link(wr, name, target), 0);
		e = wt_model_set(&model, name, 0, 0, 0, 0);
		e->link_of = strdup(target + 0);
	}
	finish(wr, file);

	/* Extracting 20,000 files takes seconds of disk time and adds
	 * little to the listing: check the listing and the links. */
	if (!wt_have(UNSQUASHFS))
		skip();
	wt_check_listing(&tmp, &model);
	if (wt_have(RDSQUASHFS)) {
		char *v = wt_rd_stat(tmp.image, "/big", "Inode type: ");

		assert_non_null(v);
		assert_string_equal(v, "extended directory");
		free(v);
		wt_check_rd_list(&tmp, &model, "big");
		for (uint32_t k = 0; k < HUGE_DIR; k += 997 * 4) {
			char *a, *b;

			snprintf(name, sizeof(name), "/big/link-%05u", k);
			a = wt_rd_stat(tmp.image, name, "Inode number: ");
			snprintf(name, sizeof(name), "/big/%s-%05u",
				 ((k + 1) % 3) ? "file" : "f", k + 1);
			b = wt_rd_stat(tmp.image, name, "Inode number: ");
			assert_non_null(a);
			assert_non_null(b);
			assert_string_equal(a, b);
			free(a);
			free(b);
		}
	}
	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

static void test_deep_nesting(void **state)
{
	char path[2048] = "";
	sqfs_entry_t ent = wt_make_entry(path, S_IFDIR | 0711, 1, 1, 77);
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_entry_t *e;
	wt_tmp_t tmp;
	size_t len = 0;

	(void)state;
	wt_tmp_init(&tmp);
	wt_model_init(&model);
	wt_model_set(&model, "", S_IFDIR | 0755, 0, 0, 0);

	wr = new_writer(tmp.image, &file);

	/* 200 levels; each level also holds a file, given deepest first so
	 * every directory on the way is made implicitly at first. */
	for (int i = 0; i < 200; ++i) {
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%s%c",
					i ? "/" : "", 'a' + i % 26);
		e = wt_model_set(&model, path, S_IFDIR | 0711, 1, 1, 77);
		(void)e;
	}
	{
		char leaf[2100];

		snprintf(leaf, sizeof(leaf), "%s/leaf", path);
		e = wt_model_set(&model, leaf, S_IFREG | 0644, 2, 2, 88);
		e->size = 1000;
		e->kind = TEST_DATA_TEXT;
		e->seed = 9;
		wt_write_file(wr, e, NULL, 0);
	}
	for (int i = 199; i >= 0; --i) {
		char file_path[2100];

		path[i * 2 + 1] = '\0';
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		snprintf(file_path, sizeof(file_path), "%s/f%d", path, i);
		e = wt_model_set(&model, file_path, S_IFREG | 0600, 0, 0, 1);
		e->size = (uint64_t)i;
		e->kind = TEST_DATA_BINARY;
		e->seed = (uint32_t)i + 1;
		wt_write_file(wr, e, NULL, 0);
	}
	finish(wr, file);

	wt_check_image(&tmp, &model);
	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

static void test_sparse_5g(void **state)
{
	sqfs_writer_stats_t st;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_entry_t *e;
	wt_tmp_t tmp;
	char *v;

	(void)state;
	wt_tmp_init(&tmp);
	wt_model_init(&model);
	wt_model_set(&model, "", S_IFDIR | 0755, 0, 0, 0);

	wr = new_writer(tmp.image, &file);
	e = wt_model_set(&model, "sparse", S_IFREG | 0644, 0, 0, 3);
	e->hole_size = (uint64_t)5 << 30;
	e->size = e->hole_size + 70000;
	e->kind = TEST_DATA_TEXT;
	e->seed = 4;
	wt_write_file(wr, e, NULL, 0);

	/* A hole-only file smaller than a block, and one of 4 GiB. */
	e = wt_model_set(&model, "hole-small", S_IFREG | 0644, 0, 0, 3);
	e->hole_size = 1000;
	e->size = 1000;
	wt_write_file(wr, e, NULL, 0);
	e = wt_model_set(&model, "hole-4g", S_IFREG | 0644, 0, 0, 3);
	e->hole_size = (uint64_t)4 << 30;
	e->size = e->hole_size;
	wt_write_file(wr, e, NULL, 0);

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_get_stats(wr, &st);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	assert_true(st.sparse_blocks >= 40960 + 32768);
	assert_true(st.image_size < (1u << 20));

	wt_check_image(&tmp, &model);
	if (wt_have(RDSQUASHFS)) {
		v = wt_rd_stat(tmp.image, "/sparse", "Inode type: ");
		assert_non_null(v);
		assert_string_equal(v, "extended file");
		free(v);
		v = wt_rd_stat(tmp.image, "/sparse", "Sparse: ");
		assert_non_null(v);
		assert_true(strtoull(v, NULL, 10) >= ((uint64_t)5 << 30));
		free(v);
		v = wt_rd_stat(tmp.image, "/hole-4g", "Sparse: ");
		assert_non_null(v);
		assert_true(strtoull(v, NULL, 10) == ((uint64_t)4 << 30) - 1);
		free(v);
	}
	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_huge_directory),
	    cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_sparse_5g),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

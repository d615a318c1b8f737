/* SPDX-License-Identifier: MIT */
/*
 * The high-level writer builds a tree with every kind of entry, read back
 * by the independent readers: listings, extraction, inode details.
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

#define T0 1600000000u

static const char *const file_xattrs[] = {"user.comment=hello world",
					  "user.a=1", NULL};
static const char *const dir_xattrs[] = {"trusted.x=y", "user.dir=a directory",
					 NULL};
static const char *const root_xattrs[] = {"user.root=the root", NULL};
static const char *const long_xattr[] = {
    "user.long=0123456789abcdef0123456789abcdef0123456789abcdef", NULL};

/* The implicit directories of a path, as the writer makes them. */
static void model_parents(wt_model_t *m, const char *path)
{
	char buf[4096];

	strcpy(buf, path);
	for (char *p = strchr(buf, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (wt_model_find(m, buf) == NULL)
			wt_model_set(m, buf, S_IFDIR | 0755, 0, 0, 12345);
		*p = '/';
	}
}

static void add_dir(sqfs_writer_t *wr, wt_model_t *m, const char *path,
		    uint32_t mode, uint32_t uid, uint32_t gid, uint32_t mtime,
		    const char *const *xattrs)
{
	sqfs_entry_t ent = wt_make_entry(path, S_IFDIR | mode, uid, gid, mtime);
	wt_xattr_set_t set;
	wt_entry_t *e;

	wt_xattr_set(&set, xattrs);
	ent.xattrs = set.x;
	ent.xattr_count = set.count;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);

	{
		char canon[4096];
		size_t len;

		while (path[0] == '/')
			++path;
		len = strlen(path);
		while (len > 0 && path[len - 1] == '/')
			--len;
		memcpy(canon, path, len);
		canon[len] = '\0';
		model_parents(m, canon);
		e = wt_model_set(m, canon, S_IFDIR | mode, uid, gid, mtime);
	}
	e->xattrs = xattrs;
}

static void add_file(sqfs_writer_t *wr, wt_model_t *m, const char *path,
		     uint32_t mode, uint64_t size, int kind, uint32_t seed,
		     const char *const *xattrs)
{
	wt_entry_t *e;
	wt_xattr_set_t set;

	model_parents(m, path);
	e = wt_model_set(m, path, S_IFREG | mode, 1000, 1000, T0 + seed);
	e->size = size;
	e->kind = kind;
	e->seed = seed;
	e->xattrs = xattrs;
	wt_xattr_set(&set, xattrs);
	wt_write_file(wr, e, set.x, set.count);
}

static void add_symlink(sqfs_writer_t *wr, wt_model_t *m, const char *path,
			const char *target)
{
	sqfs_entry_t ent = wt_make_entry(path, S_IFLNK | 0777, 7, 8, T0);
	wt_entry_t *e;

	model_parents(m, path);
	ent.symlink_target = target;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	e = wt_model_set(m, path, S_IFLNK | 0777, 7, 8, T0);
	e->target = strdup(target);
}

static void add_special(sqfs_writer_t *wr, wt_model_t *m, const char *path,
			uint32_t mode, uint32_t major, uint32_t minor)
{
	sqfs_entry_t ent = wt_make_entry(path, mode, 3, 4, T0 - 1);
	wt_entry_t *e;

	model_parents(m, path);
	ent.rdev_major = major;
	ent.rdev_minor = minor;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	e = wt_model_set(m, path, mode, 3, 4, T0 - 1);
	e->major = major;
	e->minor = minor;
}

static void add_link(sqfs_writer_t *wr, wt_model_t *m, const char *path,
		     const char *target, const char *final)
{
	wt_entry_t *e;

	model_parents(m, path);
	assert_int_equal(wt_add_link(wr, path, target), 0);
	e = wt_model_set(m, path, 0, 0, 0, 0);
	e->link_of = strdup(final);
}

/* Everything the writer can hold, in an order that exercises forward
 * references, replacement and late attributes. */
static void build_tree(sqfs_writer_t *wr, wt_model_t *m)
{
	sqfs_entry_t ent;
	char name[300];
	wt_entry_t *e;

	wt_model_set(m, "", S_IFDIR | 0755, 0, 0, 12345);

	add_link(wr, m, "hl/fwd", "/later//target/", "later/target");
	add_link(wr, m, "hl/l2l", "./hl/fwd", "later/target");

	add_dir(wr, m, "dir", 0755, 1, 2, 1000000, dir_xattrs);
	add_file(wr, m, "dir/file.txt", 0644, 5000, TEST_DATA_TEXT, 1,
		 file_xattrs);
	add_file(wr, m, "dir/same-xattrs", 0644, 10, TEST_DATA_TEXT, 2,
		 file_xattrs);
	add_file(wr, m, "dir/big.bin", 0600, 300000, TEST_DATA_RANDOM, 3,
		 long_xattr);
	add_file(wr, m, "dir/text.big", 0644, 400000, TEST_DATA_TEXT, 4,
		 long_xattr);
	add_file(wr, m, "dir/zeros", 0644, 200000, TEST_DATA_ZEROS, 5, NULL);
	add_file(wr, m, "dir/dup-of-big", 0644, 300000, TEST_DATA_RANDOM, 3,
		 NULL);
	add_file(wr, m, "empty", 0600, 0, TEST_DATA_TEXT, 6, NULL);
	add_file(wr, m, "one-block", 0644, 131072, TEST_DATA_BINARY, 7, NULL);
	add_file(wr, m, "suid", 04755, 100, TEST_DATA_TEXT, 8, NULL);
	add_file(wr, m, "later/target", 0640, 3000, TEST_DATA_TEXT, 9, NULL);

	add_symlink(wr, m, "link", "dir/file.txt");
	add_symlink(wr, m, "dir/up", "../one-block");
	add_special(wr, m, "dev/null", S_IFCHR | 0666, 1, 3);
	add_special(wr, m, "dev/sda1", S_IFBLK | 0660, 8, 1);
	add_special(wr, m, "dev/big", S_IFBLK | 0600, 259, 300000);
	add_special(wr, m, "dev/max", S_IFCHR | 0600, 4095, 0xFFFFF);
	add_special(wr, m, "fifo", S_IFIFO | 0644, 0, 0);
	add_special(wr, m, "sock", S_IFSOCK | 0755, 0, 0);

	add_link(wr, m, "hl/back", "dir/file.txt", "dir/file.txt");
	add_link(wr, m, "hl/to-symlink", "link", "link");
	add_link(wr, m, "hl/to-fifo", "fifo", "fifo");

	/* A file replaced by a file. */
	add_file(wr, m, "rep/a", 0644, 777, TEST_DATA_TEXT, 10, NULL);
	add_file(wr, m, "rep/a", 0600, 1234, TEST_DATA_BINARY, 11, NULL);
	/* A directory (with contents) replaced by a file. */
	add_file(wr, m, "rep/d/x/y", 0644, 50, TEST_DATA_TEXT, 12, NULL);
	add_dir(wr, m, "rep/d", 0700, 0, 0, 99, NULL);
	wt_model_remove(m, "rep/d");
	add_file(wr, m, "rep/d", 0644, 60, TEST_DATA_TEXT, 13, NULL);
	/* A file replaced by a directory, a symlink by a device. */
	add_file(wr, m, "rep/f", 0644, 70, TEST_DATA_TEXT, 14, NULL);
	add_dir(wr, m, "rep/f", 01777, 0, 0, 98, NULL);
	add_symlink(wr, m, "rep/s", "nowhere");
	add_special(wr, m, "rep/s", S_IFCHR | 0600, 5, 1);
	/* A hard link replaced by a file. */
	add_link(wr, m, "rep/l", "empty", "empty");
	add_file(wr, m, "rep/l", 0644, 5, TEST_DATA_TEXT, 15, NULL);

	/* Implicit directories; then one of them gets its attributes. */
	add_file(wr, m, "imp/sub/file", 0644, 20, TEST_DATA_TEXT, 16, NULL);
	add_dir(wr, m, "imp/", 0700, 5, 6, 777777, NULL);
	add_dir(wr, m, "dev", 0755, 0, 0, 4242, NULL);

	/* Directory order is by unsigned bytes, a prefix first. */
	add_file(wr, m, "sort/a-b", 0644, 1, TEST_DATA_TEXT, 17, NULL);
	add_file(wr, m, "sort/a/x", 0644, 1, TEST_DATA_TEXT, 18, NULL);
	add_file(wr, m, "sort/a.b", 0644, 1, TEST_DATA_TEXT, 19, NULL);
	add_file(wr, m, "sort/B", 0644, 1, TEST_DATA_TEXT, 20, NULL);
	add_file(wr, m, "sort/\xc3\xa9t\xc3\xa9", 0644, 1, TEST_DATA_TEXT, 21,
		 NULL);
	add_file(wr, m, "sort/a", 0644, 0, TEST_DATA_TEXT, 22, NULL);
	wt_model_remove(m, "sort/a");
	add_file(wr, m, "sort/a", 0644, 2, TEST_DATA_TEXT, 22, NULL);
	add_dir(wr, m, "sort/empty-dir", 0755, 0, 0, 1, NULL);

	add_file(wr, m, "sort/a.d/x", 0644, 1, TEST_DATA_TEXT, 24, NULL);

	/* The longest name most file systems can extract. */
	memcpy(name, "sort/", 5);
	memset(name + 5, 'n', 255);
	name[260] = '\0';
	add_file(wr, m, name, 0644, 3, TEST_DATA_TEXT, 23, NULL);

	/* Times outside the image's range are clamped. */
	ent = wt_make_entry("time/before", S_IFREG | 0644, 0, 0, -5);
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	model_parents(m, "time/before");
	wt_model_set(m, "time/before", S_IFREG | 0644, 0, 0, 0);
	ent.path = "time/after";
	ent.mtime = (int64_t)1 << 40;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	wt_model_set(m, "time/after", S_IFREG | 0644, 0, 0, UINT32_MAX);

	/* A directory of 300 entries gets a directory index. */
	for (int i = 0; i < 300; ++i) {
		snprintf(name, sizeof(name), "d300/entry-%03d", i);
		if (i % 3 == 0) {
			add_symlink(wr, m, name, "target");
		} else {
			ent = wt_make_entry(name, S_IFREG | 0644,
					    (uint32_t)i % 7, 0, T0);
			assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
			assert_int_equal(sqfs_writer_end_file(wr), 0);
			model_parents(m, name);
			wt_model_set(m, name, S_IFREG | 0644, (uint32_t)i % 7,
				     0, T0);
		}
	}

	/* The root's attributes come last. */
	add_dir(wr, m, "/", 0750, 1000, 100, T0 + 100, root_xattrs);
	e = wt_model_find(m, "");
	assert_non_null(e);
}

static sqfs_writer_t *new_writer(const char *path, sqfs_file_t **file,
				 uint32_t flags, unsigned int jobs)
{
	sqfs_writer_options_t opt;

	wt_options(&opt);
	opt.default_mtime = 12345;
	opt.flags = flags;
	opt.num_jobs = jobs;
	return wt_create(path, &opt, file);
}

static uint32_t stat_number(const char *image, const char *path,
			    const char *field)
{
	char *v = wt_rd_stat(image, path, field);
	unsigned long n;

	if (v == NULL)
		fail_msg("rdsquashfs -s %s: no %s", path, field);
	n = strtoul(v, NULL, 0);
	free(v);
	return (uint32_t)n;
}

static void check_stat_text(const char *image, const char *path,
			    const char *field, const char *expect)
{
	char *v = wt_rd_stat(image, path, field);

	if (v == NULL || strcmp(v, expect) != 0)
		fail_msg("rdsquashfs -s %s: %s'%s', expected '%s'", path, field,
			 v ? v : "(none)", expect);
	free(v);
}

static void check_inodes(const char *image, const sqfs_writer_stats_t *st)
{
	uint32_t n = (uint32_t)st->inodes, a, b;

	if (!wt_have(RDSQUASHFS))
		return;

	/* Root last, its parent one past the end (as mksquashfs). */
	assert_int_equal(stat_number(image, "/", "Inode number: "), n);
	assert_int_equal(stat_number(image, "/", "Parent inode: "), n + 1);
	assert_int_equal(stat_number(image, "/dir", "Parent inode: "), n);
	/* 2 + subdirectories: dev dir hl imp later rep sort time d300 */
	assert_int_equal(stat_number(image, "/", "Hard link count: "), 11);
	assert_int_equal(stat_number(image, "/rep", "Hard link count: "), 3);

	/* Hard links share one inode, counted, extended for files. */
	a = stat_number(image, "/later/target", "Inode number: ");
	b = stat_number(image, "/hl/fwd", "Inode number: ");
	assert_int_equal(a, b);
	assert_int_equal(stat_number(image, "/hl/l2l", "Inode number: "), a);
	assert_int_equal(
	    stat_number(image, "/later/target", "Hard link count: "), 3);
	check_stat_text(image, "/later/target",
			"Inode type: ", "extended file");
	assert_int_equal(stat_number(image, "/link", "Hard link count: "), 2);
	check_stat_text(image, "/link", "Inode type: ", "symbolic link");
	assert_int_equal(stat_number(image, "/fifo", "Hard link count: "), 2);

	/* Post-order: children before their directory. */
	assert_true(stat_number(image, "/dir/file.txt", "Inode number: ") <
		    stat_number(image, "/dir", "Inode number: "));
	assert_true(stat_number(image, "/imp/sub", "Inode number: ") <
		    stat_number(image, "/imp", "Inode number: "));

	/* Basic versus extended. */
	check_stat_text(image, "/one-block", "Inode type: ", "file");
	check_stat_text(image, "/dir/zeros", "Inode type: ", "extended file");
	assert_true(stat_number(image, "/dir/zeros", "Sparse: ") > 0);
	check_stat_text(image, "/dir/file.txt",
			"Inode type: ", "extended file");
	check_stat_text(image, "/dir", "Inode type: ", "extended directory");
	check_stat_text(image, "/d300", "Inode type: ", "extended directory");
	check_stat_text(image, "/", "Inode type: ", "extended directory");
	check_stat_text(image, "/sort", "Inode type: ", "directory");
	check_stat_text(image, "/dev/null", "Inode type: ", "character device");

	/* An empty file has no data at all. */
	assert_int_equal(stat_number(image, "/empty", "File size: "), 0);
	assert_int_equal(stat_number(image, "/empty", "Blocks start: "), 0);
	check_stat_text(image, "/empty", "Fragment index: ", "0xFFFFFFFF");
}

static void test_full_tree(void **state)
{
	sqfs_writer_stats_t st;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_tmp_t tmp;

	(void)state;
	wt_tmp_init(&tmp);
	wt_model_init(&model);

	wr = new_writer(tmp.image, &file, 0, 0);
	build_tree(wr, &model);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_get_stats(wr, &st);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	/* Stats agree with the image. */
	assert_true(st.inodes > 300);
	assert_int_equal(st.inodes + 5, model.count);
	assert_true(st.image_size % 4096 == 0);
	assert_true(st.files > 200);
	assert_true(st.bytes_in >= 300000 * 2 + 400000 + 200000);
	assert_true(st.bytes_written < st.bytes_in);
	assert_true(st.inode_table_bytes > 0);
	assert_true(st.directory_table_bytes > 0);
	assert_true(st.ids >= 5);

	wt_check_image(&tmp, &model);
	check_inodes(tmp.image, &st);
	wt_check_rd_list(&tmp, &model, "");
	wt_check_rd_list(&tmp, &model, "dev");
	wt_check_rd_list(&tmp, &model, "hl");
	wt_check_rd_list(&tmp, &model, "sort");
	wt_check_rd_list(&tmp, &model, "d300");

	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

/* The same entries give the same bytes, with or without worker threads. */
static void test_deterministic(void **state)
{
	char second[PATH_MAX + 16], third[PATH_MAX + 16];
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_tmp_t tmp;

	(void)state;
	wt_tmp_init(&tmp);
	snprintf(second, sizeof(second), "%s/second", tmp.dir);
	snprintf(third, sizeof(third), "%s/third", tmp.dir);

	wt_model_init(&model);
	wr = new_writer(tmp.image, &file, 0, 0);
	build_tree(wr, &model);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
	wt_model_free(&model);

	wt_model_init(&model);
	wr = new_writer(second, &file, 0, 0);
	build_tree(wr, &model);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
	wt_model_free(&model);

	wt_model_init(&model);
	wr = new_writer(third, &file, 0, 3);
	build_tree(wr, &model);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
	wt_model_free(&model);

	assert_true(wt_files_equal(tmp.image, second));
	assert_true(wt_files_equal(tmp.image, third));
	wt_tmp_cleanup(&tmp);
}

static char *superblock_info(const char *image)
{
	char cmd[PATH_MAX + 64], *out;
	int status;

	snprintf(cmd, sizeof(cmd), "%s -s '%s' 2>&1", UNSQUASHFS, image);
	out = wt_run(cmd, &status);
	if (status != 0)
		fail_msg("unsquashfs -s failed:\n%s", out);
	return out;
}

/* Flags: export table, fragments, xattrs; an options block first. */
static void test_flags(void **state)
{
	sqfs_writer_options_t opt;
	sqfs_entry_t ent = wt_make_entry("", S_IFDIR | 0755, 0, 0, 0);
	sqfs_xattr_t x = {"user.k", "v", 1};
	sqfs_super_t super;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_entry_t *e;
	wt_tmp_t tmp;
	sqfs_writer_stats_t stats;
	char *info;

	(void)state;
	if (!wt_have(UNSQUASHFS))
		skip();
	wt_tmp_init(&tmp);

	/* Exportable, no fragments, xattrs dropped, non-default options. */
	wt_options(&opt);
	opt.flags = SQFS_WRITER_EXPORTABLE | SQFS_WRITER_NO_FRAGMENTS |
		    SQFS_WRITER_NO_XATTRS;
	opt.compressor.opt.gzip.level = 3;
	opt.block_size = 4096;
	opt.compressor.block_size = 4096;
	opt.devblk_size = 1024;
	wr = wt_create(tmp.image, &opt, &file);

	wt_model_init(&model);
	wt_model_set(&model, "", S_IFDIR | 0755, 0, 0, 0);
	for (int i = 0; i < 5; ++i) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		e = wt_model_set(&model, name, S_IFREG | 0644, 0, 0, 0);
		e->size = (uint64_t)(i * 3000 + 1);
		e->kind = TEST_DATA_TEXT;
		e->seed = (uint32_t)i + 1;
		wt_write_file(wr, e, &x, 1);
	}
	ent.xattrs = &x;
	ent.xattr_count = 1;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	assert_int_equal(sqfs_super_read(&super, file), 0);
	assert_true(super.flags & SQFS_FLAG_EXPORTABLE);
	assert_true(super.flags & SQFS_FLAG_NO_FRAGMENTS);
	assert_true(super.flags & SQFS_FLAG_NO_XATTRS);
	assert_true(super.flags & SQFS_FLAG_DEDUPLICATED);
	assert_true(super.flags & SQFS_FLAG_COMPRESSOR_OPTIONS);
	assert_false(super.flags & SQFS_FLAG_ALWAYS_FRAGMENTS);
	assert_int_equal(super.fragment_entry_count, 0);
	assert_int_equal(super.inode_count, 6);
	assert_true(super.export_table_start != SQFS_TABLE_ABSENT);
	assert_true(super.xattr_id_table_start == SQFS_TABLE_ABSENT);
	assert_true(file->get_size(file) % 1024 == 0);
	assert_true(file->get_size(file) >= super.bytes_used);
	assert_true(file->get_size(file) - super.bytes_used < 1024);
	sqfs_file_destroy(file);

	info = superblock_info(tmp.image);
	assert_non_null(strstr(info, "Filesystem is exportable via NFS"));
	assert_non_null(strstr(info, "Number of inodes 6"));
	assert_non_null(strstr(info, "Block size 4096"));
	free(info);
	wt_check_image(&tmp, &model);
	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);

	/* The defaults: fragments with tail packing, xattrs, no export. */
	wt_tmp_init(&tmp);
	wt_options(&opt);
	opt.compressor.opt.gzip.level = 9;
	wr = wt_create(tmp.image, &opt, &file);
	ent = wt_make_entry("a", S_IFREG | 0644, 0, 0, 0);
	ent.xattrs = &x;
	ent.xattr_count = 1;
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, "hello", 5), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	assert_int_equal(sqfs_super_read(&super, file), 0);
	assert_int_equal(super.flags,
			 SQFS_FLAG_DEDUPLICATED | SQFS_FLAG_ALWAYS_FRAGMENTS);
	assert_int_equal(super.export_table_start, SQFS_TABLE_ABSENT);
	assert_true(super.xattr_id_table_start != SQFS_TABLE_ABSENT);
	assert_int_equal(super.fragment_entry_count, 1);
	assert_true(file->get_size(file) % 4096 == 0);
	sqfs_file_destroy(file);

	info = superblock_info(tmp.image);
	assert_null(strstr(info, "Filesystem is exportable via NFS"));
	free(info);
	wt_tmp_cleanup(&tmp);

	/* No deduplication: two equal files keep two copies of their data,
	 * and the superblock says duplicates are not removed. */
	wt_tmp_init(&tmp);
	wt_options(&opt);
	opt.flags = SQFS_WRITER_NO_DEDUPLICATION | SQFS_WRITER_NO_FRAGMENTS;
	wr = wt_create(tmp.image, &opt, &file);
	for (int i = 0; i < 2; ++i) {
		static char block[4096];

		memset(block, 'q', sizeof(block));
		ent = wt_make_entry(i == 0 ? "one" : "two", S_IFREG | 0644, 0,
				    0, 0);
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		assert_int_equal(sqfs_writer_append(wr, block, sizeof(block)),
				 0);
		assert_int_equal(sqfs_writer_end_file(wr), 0);
	}
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_get_stats(wr, &stats);
	assert_int_equal(stats.duplicate_blocks, 0);
	assert_int_equal(stats.data_blocks, 2);
	sqfs_writer_destroy(wr);
	assert_int_equal(sqfs_super_read(&super, file), 0);
	assert_false(super.flags & SQFS_FLAG_DEDUPLICATED);
	sqfs_file_destroy(file);
	info = superblock_info(tmp.image);
	assert_non_null(strstr(info, "Duplicates are not removed"));
	free(info);
	wt_tmp_cleanup(&tmp);
}

/*
 * Per-file flags, each seen by an independent reader (squashfs-tools-ng's
 * rdsquashfs -s: block sizes, raw or compressed, fragment, start) and the
 * contents by unsquashfs, against files written without them.
 */
static char *rd_field(const wt_tmp_t *tmp, const char *path, const char *f)
{
	char *v = wt_rd_stat(tmp->image, path, f);

	if (v == NULL)
		fail_msg("rdsquashfs -s %s: no \"%s\"", path, f);
	return v;
}

static bool rd_field_is(const wt_tmp_t *tmp, const char *path, const char *f,
			const char *expect)
{
	char *v = rd_field(tmp, path, f);
	bool same = strncmp(v, expect, strlen(expect)) == 0;

	free(v);
	return same;
}

static uint64_t rd_number(const wt_tmp_t *tmp, const char *path, const char *f)
{
	char *v = rd_field(tmp, path, f);
	uint64_t n = strtoull(v, NULL, 0);

	free(v);
	return n;
}

static void test_file_flags(void **state)
{
	static const struct {
		const char *name;
		unsigned int flags;
		int kind;
		uint64_t size;
		uint64_t hole;
	} files[] = {
	    /* 3 blocks and a tail of text; the same data again */
	    {"plain", 0, TEST_DATA_TEXT, 3 * 4096 + 1000, 0},
	    {"same", 0, TEST_DATA_TEXT, 3 * 4096 + 1000, 0},
	    {"nocomp", SQFS_FILE_DONT_COMPRESS, TEST_DATA_TEXT, 3 * 4096 + 999,
	     0},
	    {"nofrag", SQFS_FILE_DONT_FRAGMENT, TEST_DATA_TEXT, 3 * 4096 + 998,
	     0},
	    {"nodedup", SQFS_FILE_DONT_DEDUPLICATE, TEST_DATA_TEXT,
	     3 * 4096 + 1000, 0},
	    {"odd", 0, TEST_DATA_TEXT, 777, 0},
	    {"align", SQFS_FILE_ALIGN, TEST_DATA_TEXT, 2 * 4096 + 10, 0},
	    {"sparse", 0, TEST_DATA_TEXT, 3 * 4096, 2 * 4096},
	    {"nosparse", SQFS_FILE_NO_SPARSE, TEST_DATA_TEXT, 3 * 4096 + 1,
	     2 * 4096},
	};
	sqfs_entry_t ent = wt_make_entry("x", S_IFREG | 0644, 0, 0, 0);
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_entry_t *e;
	wt_tmp_t tmp;
	size_t i;

	(void)state;
	if (!wt_have(UNSQUASHFS) || !wt_have(RDSQUASHFS))
		skip();
	wt_tmp_init(&tmp);
	wt_options(&opt);
	opt.block_size = 4096;
	opt.compressor.block_size = 4096;
	opt.devblk_size = 4096;
	wr = wt_create(tmp.image, &opt, &file);

	/* unknown bits are refused before anything changes */
	assert_int_equal(sqfs_writer_add(wr, &ent, 0x20),
			 SQFS_ERROR_ARG_INVALID);
	/* and flags are for regular files only */
	ent.mode = S_IFIFO | 0644;
	assert_int_equal(sqfs_writer_add(wr, &ent, SQFS_FILE_DONT_COMPRESS),
			 SQFS_ERROR_ARG_INVALID);

	wt_model_init(&model);
	wt_model_set(&model, "", S_IFDIR | 0755, 0, 0, 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); ++i) {
		e = wt_model_set(&model, files[i].name, S_IFREG | 0644, 0, 0,
				 0);
		e->size = files[i].size;
		e->hole_size = files[i].hole;
		e->kind = files[i].kind;
		/* same seed: same data where the sizes agree */
		e->seed = 7;
		e->file_flags = files[i].flags;
		wt_write_file(wr, e, NULL, 0);
	}
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
	wt_check_image(&tmp, &model);

	/* without flags: compressed blocks, a fragment, deduplicated */
	assert_true(rd_field_is(&tmp, "/plain", "\tBlock #0 size: ", ""));
	assert_true(rd_field_is(&tmp, "/plain", "Block count: ", "3"));
	assert_false(
	    rd_field_is(&tmp, "/plain", "Fragment index: ", "0xFFFFFFFF"));
	assert_int_equal(rd_number(&tmp, "/same", "Blocks start: "),
			 rd_number(&tmp, "/plain", "Blocks start: "));
	assert_int_equal(rd_number(&tmp, "/same", "Fragment index: "),
			 rd_number(&tmp, "/plain", "Fragment index: "));

	/* SQFS_FILE_DONT_COMPRESS: every block raw, 4096 bytes */
	for (i = 0; i < 3; ++i) {
		char f[32];

		snprintf(f, sizeof(f), "\tBlock #%zu size: ", i);
		assert_true(
		    rd_field_is(&tmp, "/nocomp", f, "4096 (uncompressed)"));
		assert_false(
		    rd_field_is(&tmp, "/plain", f, "4096 (uncompressed)"));
	}

	/* SQFS_FILE_DONT_FRAGMENT: the tail is a fourth, short block */
	assert_true(
	    rd_field_is(&tmp, "/nofrag", "Fragment index: ", "0xFFFFFFFF"));
	assert_true(rd_field_is(&tmp, "/nofrag", "Block count: ", "4"));

	/* SQFS_FILE_DONT_DEDUPLICATE: its own copy of plain's data, and
	 * its tail not shared either */
	assert_true(rd_number(&tmp, "/nodedup", "Blocks start: ") !=
		    rd_number(&tmp, "/plain", "Blocks start: "));
	assert_true(rd_number(&tmp, "/nodedup", "Fragment offset: ") !=
			rd_number(&tmp, "/plain", "Fragment offset: ") ||
		    rd_number(&tmp, "/nodedup", "Fragment index: ") !=
			rd_number(&tmp, "/plain", "Fragment index: "));

	/* SQFS_FILE_ALIGN: starts at a multiple of the device block size
	 * though the file before it ("odd") is a fragment only */
	assert_int_equal(rd_number(&tmp, "/align", "Blocks start: ") % 4096, 0);

	/* holes: sparse blocks (size 0) unless SQFS_FILE_NO_SPARSE */
	assert_true(rd_field_is(&tmp, "/sparse", "\tBlock #0 size: ", "0 "));
	assert_true(rd_field_is(&tmp, "/sparse", "\tBlock #1 size: ", "0 "));
	assert_false(rd_field_is(&tmp, "/nosparse", "\tBlock #0 size: ", "0 "));
	assert_false(rd_field_is(&tmp, "/nosparse", "\tBlock #1 size: ", "0 "));

	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

/* Data begins right after the superblock and the options block. */
static void test_data_start(void **state)
{
	sqfs_writer_options_t opt;
	sqfs_entry_t ent = wt_make_entry("r", S_IFREG | 0644, 0, 0, 0);
	uint8_t *data = test_make_data(131072, TEST_DATA_RANDOM, 5);
	const uint8_t *img;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	size_t size;

	(void)state;
	for (int with_options = 0; with_options < 2; ++with_options) {
		wt_options(&opt);
		opt.compressor.opt.gzip.level = with_options ? 4 : 9;
		file = test_memory_file(NULL, 0);
		assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		assert_int_equal(sqfs_writer_append(wr, data, 131072), 0);
		assert_int_equal(sqfs_writer_end_file(wr), 0);
		assert_int_equal(sqfs_writer_finish(wr), 0);
		sqfs_writer_destroy(wr);

		img = test_memory_file_data(file, &size);
		assert_true(size > 96 + 10 + 131072);
		/* Random data is stored raw, at 96 (+ 10 with options). */
		assert_memory_equal(img + 96 + (with_options ? 10 : 0), data,
				    131072);
		if (with_options) {
			assert_int_equal(img[96], 8);
			assert_int_equal(img[97], 0x80);
		}
		sqfs_file_destroy(file);
	}
	free(data);
}

/* An image of nothing but the root. */
static void test_empty_image(void **state)
{
	sqfs_writer_stats_t st;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_tmp_t tmp;

	(void)state;
	wt_tmp_init(&tmp);
	wr = new_writer(tmp.image, &file, 0, 0);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_get_stats(wr, &st);
	assert_int_equal(st.inodes, 1);
	assert_int_equal(st.ids, 1);
	assert_int_equal(st.directory_table_bytes, 0);
	assert_int_equal(st.image_size, 4096);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);

	wt_model_init(&model);
	wt_model_set(&model, "", S_IFDIR | 0755, 0, 0, 12345);
	wt_check_image(&tmp, &model);
	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_tree),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_flags),
	    cmocka_unit_test(test_file_flags),
	    cmocka_unit_test(test_data_start),
	    cmocka_unit_test(test_empty_image),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

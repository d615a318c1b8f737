/* SPDX-License-Identifier: MIT */
/*
 * test_fs_source.c - the walk of a tree on disk (lib/common/fs_source.c)
 * and opening its objects again (fs_open.c): order, entries, hard links,
 * data runs with holes; depth beyond the directories it keeps open and
 * beyond the open-file limit; a directory replaced while the walk is in
 * it or away from it; a symlink anywhere on a path never followed.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"

#include "common/fs_open.h"
#include "common/fs_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_at(int dfd, const char *name, const char *data)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

static fs_source_t *walk_of(int fd)
{
	fs_source_t *s;

	assert_int_equal(fs_source_open(fd, NULL, 0, &s), 0);
	return s;
}

/* The order, the entries and their attributes. */
static void test_order_and_entries(void **state)
{
	int dfd = test_tmpdir_open();
	const sqfs_entry_t *e;
	char seen[1024] = "";
	fs_source_t *s;

	(void)state;
	assert_int_equal(mkdirat(dfd, "b", 0700), 0);
	assert_int_equal(mkdirat(dfd, "b/d", 0755), 0);
	write_at(dfd, "a", "aaa");
	write_at(dfd, "b/c", "cc");
	write_at(dfd, "b-x", "x");
	assert_int_equal(symlinkat("../a", dfd, "b/l"), 0);
	assert_int_equal(linkat(dfd, "a", dfd, "b/d/h", 0), 0);
	assert_int_equal(mkfifoat(dfd, "f", 0600), 0);

	s = walk_of(dfd);
	while (fs_source_next(s, &e) == 0) {
		strcat(seen, e->path);
		if (e->hard_link != NULL) {
			strcat(seen, "=");
			strcat(seen, e->hard_link);
		}
		strcat(seen, ";");
		if (strcmp(e->path, "b") == 0)
			assert_int_equal(e->mode, S_IFDIR | 0700);
		if (strcmp(e->path, "b/l") == 0) {
			assert_int_equal(e->mode & S_IFMT, S_IFLNK);
			assert_string_equal(e->symlink_target, "../a");
			assert_int_equal(e->size, 4);
		}
		if (strcmp(e->path, "b/c") == 0) {
			assert_int_equal(e->mode, S_IFREG | 0644);
			assert_int_equal(e->size, 2);
		}
		if (strcmp(e->path, "f") == 0)
			assert_int_equal(e->mode, S_IFIFO | 0600);
	}
	/* byte order in each directory, a directory before its contents,
	 * a hard link's later name naming its first */
	assert_string_equal(seen, ";a;b;b/c;b/d;b/d/h=a;b/l;b-x;f;");
	fs_source_close(s);
}

/* A file's data as runs, holes without data; rewound, the same again. */
static void test_data_runs(void **state)
{
	int dfd = test_tmpdir_open(), fd;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	static char block[65536];
	uint64_t pos = 0, holes = 0, data = 0;
	fs_source_t *s;

	(void)state;
	memset(block, 'D', sizeof(block));
	fd = openat(dfd, "sparse", O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, block, sizeof(block), 0),
			 (ssize_t)sizeof(block));
	/* a hole of 10 MiB, then data */
	assert_int_equal(pwrite(fd, block, sizeof(block), 10 << 20),
			 (ssize_t)sizeof(block));
	close(fd);

	s = walk_of(dfd);
	assert_int_equal(fs_source_next(s, &e), 0);
	assert_int_equal(fs_source_next(s, &e), 0);
	assert_string_equal(e->path, "sparse");
	for (int pass = 0; pass < 2; ++pass) {
		pos = holes = data = 0;
		while (fs_source_read(s, &run) == 0) {
			assert_true(run.offset == pos);
			if (run.data == NULL) {
				holes += run.size;
			} else {
				for (size_t i = 0; i < run.size; ++i)
					assert_int_equal(run.data[i], 'D');
				data += run.size;
			}
			pos += run.size;
		}
		assert_true(pos == e->size);
		assert_true(data == 2 * sizeof(block));
		/* a file system without SEEK_HOLE reports no hole */
		assert_true(holes == 0 || holes == e->size - data);
		assert_int_equal(fs_source_rewind(s), 0);
	}
	fs_source_close(s);
}

static int count_entries(int dfd, int *err)
{
	const sqfs_entry_t *e;
	fs_source_t *s = walk_of(dup(dfd));
	int n = 0, ret;

	while ((ret = fs_source_next(s, &e)) == 0)
		++n;
	*err = ret;
	fs_source_close(s);
	return n;
}

/*
 * A tree deeper than the directories the walk keeps open, walked with
 * an open-file limit far below its depth: every entry, every directory
 * left and come back to.
 */
static void test_deep(void **state)
{
	struct rlimit old, low;
	int dfd = test_tmpdir_open(), cur, next, n, err;
	const int depth = 300;

	(void)state;
	cur = dup(dfd);
	for (int i = 0; i < depth; ++i) {
		/* a file beside each directory: reached after coming back */
		write_at(cur, "z", "z");
		assert_int_equal(mkdirat(cur, "d", 0755), 0);
		next = openat(cur, "d", O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(cur);
		cur = next;
	}
	close(cur);

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 48;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	n = count_entries(dfd, &err);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(err, 1);
	/* the root, and per level a directory and a file */
	assert_int_equal(n, 1 + 2 * depth);
	close(dfd);
}

/*
 * A directory far up the stack (closed while the walk is deep) replaced
 * by another: when the walk comes back to it, it is opened again, found
 * not to be the one it met, and the walk fails rather than read the
 * other.
 */
static void test_replaced_while_away(void **state)
{
	int dfd = test_tmpdir_open(), cur, next, ret;
	const sqfs_entry_t *e;
	fs_source_t *s;
	const int depth = FS_SOURCE_OPEN_DIRS + 8;

	(void)state;
	cur = dup(dfd);
	for (int i = 0; i < depth; ++i) {
		assert_int_equal(mkdirat(cur, "d", 0755), 0);
		write_at(cur, "zz", "z");
		next = openat(cur, "d", O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(cur);
		cur = next;
	}
	close(cur);

	s = walk_of(dup(dfd));
	/* down to the deepest directory */
	while ((ret = fs_source_next(s, &e)) == 0 &&
	       strlen(e->path) < (size_t)depth * 2 - 1)
		;
	assert_int_equal(ret, 0);
	/* swap d/d for another directory with the same contents' names */
	assert_int_equal(renameat(dfd, "d/d", dfd, "d/moved"), 0);
	assert_int_equal(mkdirat(dfd, "d/d", 0755), 0);
	write_at(dfd, "d/d/zz", "secret");
	while ((ret = fs_source_next(s, &e)) == 0)
		assert_true(strcmp(e->path, "d/d/zz") != 0);
	assert_int_equal(ret, -1);
	fs_source_close(s);
	close(dfd);
}

/* A directory replaced between its report and the walk entering it. */
static void test_replaced_before_entering(void **state)
{
	int dfd = test_tmpdir_open(), ret;
	const sqfs_entry_t *e;
	fs_source_t *s;

	(void)state;
	assert_int_equal(mkdirat(dfd, "d", 0755), 0);
	write_at(dfd, "d/f", "mine");
	assert_int_equal(mkdirat(dfd, "other", 0755), 0);
	write_at(dfd, "other/f", "secret");
	s = walk_of(dup(dfd));
	while ((ret = fs_source_next(s, &e)) == 0 && strcmp(e->path, "d") != 0)
		;
	assert_int_equal(ret, 0);
	assert_int_equal(renameat(dfd, "d", dfd, "d.old"), 0);
	assert_int_equal(symlinkat("other", dfd, "d"), 0);
	/* entering d: a symlink now, never followed */
	assert_int_equal(fs_source_next(s, &e), -1);
	fs_source_close(s);

	/* the same with another directory in its place */
	assert_int_equal(unlinkat(dfd, "d", 0), 0);
	assert_int_equal(renameat(dfd, "d.old", dfd, "d"), 0);
	s = walk_of(dup(dfd));
	while ((ret = fs_source_next(s, &e)) == 0 && strcmp(e->path, "d") != 0)
		;
	assert_int_equal(renameat(dfd, "d", dfd, "d.old"), 0);
	assert_int_equal(renameat(dfd, "other", dfd, "d"), 0);
	assert_int_equal(fs_source_next(s, &e), -1);
	fs_source_close(s);
	close(dfd);
}

/* A file swapped after its report: its data is not read. */
static void test_file_replaced(void **state)
{
	int dfd = test_tmpdir_open(), ret;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	fs_source_t *s;

	(void)state;
	write_at(dfd, "f", "mine");
	write_at(dfd, "secret", "secret");
	s = walk_of(dup(dfd));
	while ((ret = fs_source_next(s, &e)) == 0 && strcmp(e->path, "f") != 0)
		;
	assert_int_equal(ret, 0);
	assert_int_equal(unlinkat(dfd, "f", 0), 0);
	assert_int_equal(symlinkat("secret", dfd, "f"), 0);
	assert_int_equal(fs_source_read(s, &run), -1);
	fs_source_close(s);

	/* another file in its place: not the one the walk saw */
	assert_int_equal(unlinkat(dfd, "f", 0), 0);
	write_at(dfd, "f", "mine");
	s = walk_of(dup(dfd));
	while ((ret = fs_source_next(s, &e)) == 0 && strcmp(e->path, "f") != 0)
		;
	assert_int_equal(renameat(dfd, "secret", dfd, "f"), 0);
	assert_int_equal(fs_source_read(s, &run), -1);
	fs_source_close(s);
	close(dfd);
}

/* A file that grows after its report: reading its xattrs does not
 * change what the walk saw, so its data is read up to the size lstat
 * gave, as the entry says. */
static void test_grown_after_report(void **state)
{
	int dfd = test_tmpdir_open(), fd, ret;
	const sqfs_entry_t *e;
	const sqfs_xattr_t *xl;
	sqfs_data_run_t run;
	uint64_t total = 0;
	size_t xn;
	fs_source_t *s;

	(void)state;
	write_at(dfd, "f", "four");
	s = walk_of(dup(dfd));
	while ((ret = fs_source_next(s, &e)) == 0 && strcmp(e->path, "f") != 0)
		;
	assert_int_equal(ret, 0);
	assert_int_equal(e->size, 4);
	fd = openat(dfd, "f", O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "more", 4), 4);
	close(fd);
	assert_int_equal(fs_source_xattrs(s, false, &xl, &xn), 0);
	assert_int_equal(fs_source_stat(s)->st_size, 4);
	while (fs_source_read(s, &run) == 0)
		total += run.size;
	assert_true(total == 4);
	fs_source_close(s);
	close(dfd);
}

/* Opening again: every component without following a symlink; the
 * object checked; paths deeper than the chain keeps. */
static void test_chain(void **state)
{
	int dfd = test_tmpdir_open(), fd, err, cur, next;
	struct stat st;
	fs_chain_t c;
	fs_id_t id;
	char path[8192];
	size_t len = 0;

	(void)state;
	assert_int_equal(mkdirat(dfd, "a", 0755), 0);
	assert_int_equal(mkdirat(dfd, "a/b", 0755), 0);
	write_at(dfd, "a/b/f", "f");
	assert_int_equal(mkdirat(dfd, "out", 0755), 0);
	assert_int_equal(mkdirat(dfd, "out/b", 0755), 0);
	write_at(dfd, "out/b/f", "secret");
	assert_int_equal(symlinkat("out", dfd, "l"), 0);
	assert_int_equal(fstatat(dfd, "a/b/f", &st, 0), 0);
	id = fs_id_of(&st);

	fs_chain_init(&c, dfd);
	fd = fs_chain_open(&c, "a/b/f", O_RDONLY, &id, &st, &err);
	assert_true(fd >= 0);
	close(fd);
	/* through a symlinked component: refused, whatever it leads to */
	assert_int_equal(fs_chain_open(&c, "l/b/f", O_RDONLY, NULL, &st, &err),
			 -1);
	assert_int_equal(err, FS_ERR_REPLACED);
	/* the last component a symlink: refused */
	assert_int_equal(fs_chain_open(&c, "l", O_RDONLY, NULL, &st, &err), -1);
	/* another object at the path: refused */
	assert_int_equal(fs_chain_open(&c, "out/b/f", O_RDONLY, &id, &st, &err),
			 -1);
	assert_int_equal(err, FS_ERR_REPLACED);
	/* the chain follows a directory moved away (it keeps it open),
	 * never what took its name */
	fd = fs_chain_open(&c, "a/b/f", O_RDONLY, &id, &st, &err);
	assert_true(fd >= 0);
	close(fd);
	fs_chain_cleanup(&c);

	/* deeper than the chain keeps */
	cur = dup(dfd);
	for (unsigned int i = 0; i < FS_CHAIN_MAX + 20; ++i) {
		assert_int_equal(mkdirat(cur, "n", 0755), 0);
		next = openat(cur, "n", O_RDONLY | O_DIRECTORY);
		close(cur);
		cur = next;
		memcpy(path + len, "n/", 2);
		len += 2;
	}
	write_at(cur, "leaf", "leaf");
	assert_int_equal(fstatat(cur, "leaf", &st, 0), 0);
	close(cur);
	id = fs_id_of(&st);
	memcpy(path + len, "leaf", 5);
	fs_chain_init(&c, dfd);
	for (int k = 0; k < 2; ++k) {
		fd = fs_chain_open(&c, path, O_RDONLY, &id, &st, &err);
		assert_true(fd >= 0);
		close(fd);
	}
	fs_chain_cleanup(&c);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_order_and_entries,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_data_runs, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_deep, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_replaced_while_away,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_replaced_before_entering,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(
		test_file_replaced, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_grown_after_report,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_chain, test_tmpdir_setup,
					    test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

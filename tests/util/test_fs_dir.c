/* SPDX-License-Identifier: MIT */
/*
 * test_fs_dir.c - a directory's names in byte order, a symlink's target
 * of any length, and an entry's xattrs as an image can hold them
 * (lib/util/fs_dir.c, fs_xattrs.c).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"

#include "sqfs/error.h"
#include "util/fs_dir.h"
#include "util/fs_xattrs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static void touch_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	close(fd);
}

static void test_names_sorted(void **state)
{
	/* byte order: unsigned, so UTF-8 and 0xff sort after ASCII; a
	 * prefix before its extensions; '-' (0x2d) before '/'-free '0' */
	static const char *const made[] = {
	    "b", "\xff", "a-c", "\xc3\xa9", "a", "A", "a0", "\x01", "ab",
	};
	static const char *const sorted[] = {
	    "\x01", "A", "a", "a-c", "a0", "ab", "b", "\xc3\xa9", "\xff",
	};
	size_t n = sizeof(made) / sizeof(made[0]), count;
	char **names;
	int dfd = test_tmpdir_open();
	(void)state;

	for (size_t i = 0; i < n; ++i)
		touch_at(dfd, made[i]);
	assert_int_equal(fs_dir_names(dup(dfd), &names, &count), 0);
	assert_int_equal(count, n);
	for (size_t i = 0; i < n; ++i)
		assert_string_equal(names[i], sorted[i]);
	fs_dir_names_free(names, count);
	close(dfd);
}

static void test_names_empty_and_bad(void **state)
{
	char **names = (char **)1;
	size_t count = 7;
	int dfd = test_tmpdir_open(), sub;
	(void)state;

	assert_int_equal(mkdirat(dfd, "empty", 0755), 0);
	sub = openat(dfd, "empty", O_RDONLY | O_DIRECTORY);
	assert_true(sub >= 0);
	/* "." and ".." are never names */
	assert_int_equal(fs_dir_names(sub, &names, &count), 0);
	assert_int_equal(count, 0);
	fs_dir_names_free(names, count);

	/* not a directory: an error with errno, nothing returned */
	touch_at(dfd, "file");
	sub = openat(dfd, "file", O_RDONLY);
	assert_true(sub >= 0);
	errno = 0;
	assert_int_equal(fs_dir_names(sub, &names, &count), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_null(names);
	assert_int_equal(count, 0);
	close(dfd);
}

static void test_read_link(void **state)
{
	char long_target[3000];
	char *target = NULL;
	int dfd = test_tmpdir_open();
	(void)state;

	memset(long_target, 'x', sizeof(long_target) - 1);
	long_target[sizeof(long_target) - 1] = '\0';
	assert_int_equal(symlinkat("short", dfd, "s"), 0);
	assert_int_equal(symlinkat(long_target, dfd, "l"), 0);

	assert_int_equal(fs_read_link(dfd, "s", 5, &target), 0);
	assert_string_equal(target, "short");
	/* a hint far below the real size (the target grew since lstat):
	 * read again, never cut */
	assert_int_equal(fs_read_link(dfd, "l", 1, &target), 0);
	assert_string_equal(target, long_target);
	/* a hint above it */
	assert_int_equal(fs_read_link(dfd, "s", 100, &target), 0);
	assert_string_equal(target, "short");

	errno = 0;
	assert_int_equal(fs_read_link(dfd, "missing", 5, &target), -1);
	assert_int_equal(errno, ENOENT);
	free(target);
	close(dfd);
}

/* The xattrs of name in dfd: through a descriptor for a file, by name
 * for a symlink, as the walk reads them. */
static int read_xattrs(int dfd, const char *name, fs_xattrs_t *x)
{
	struct stat st;
	fs_id_t id;
	int fd, ret;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		id = fs_id_of(&st);
		return fs_xattrs_read_at(dfd, name, &id, NULL, NULL, x, NULL);
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	ret = fs_xattrs_read_fd(fd, NULL, NULL, x, NULL);
	close(fd);
	return ret;
}

static void test_xattrs(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	fs_xattrs_t x;
	char path[300];
	struct stat st;
	fs_id_t id;
	int dfd = test_tmpdir_open();
	(void)state;

	touch_at(dfd, "f");
	assert_int_equal(symlinkat("f", dfd, "link"), 0);
	snprintf(path, sizeof(path), "%s/f", test_tmpdir);
	if (setxattr(path, "user.one", "1", 1, 0) != 0) {
		/* a file system without user xattrs: none read */
		assert_int_equal(read_xattrs(dfd, "f", &x), 0);
		assert_int_equal(x.count, 0);
		fs_xattrs_free(&x);
		close(dfd);
		skip();
	}
	assert_int_equal(setxattr(path, "user.two", "\0\1", 2, 0), 0);
	/* a namespace an image cannot hold is left out */
	(void)setxattr(path, "system.nothing", "x", 1, 0);

	assert_int_equal(read_xattrs(dfd, "f", &x), 0);
	assert_int_equal(x.count, 2);
	for (size_t i = 0; i < x.count; ++i) {
		if (strcmp(x.list[i].key, "user.one") == 0) {
			assert_int_equal(x.list[i].size, 1);
			assert_memory_equal(x.list[i].value, "1", 1);
		} else {
			assert_string_equal(x.list[i].key, "user.two");
			assert_int_equal(x.list[i].size, 2);
			assert_memory_equal(x.list[i].value, "\0\1", 2);
		}
	}
	fs_xattrs_free(&x);
	assert_null(x.list);

	/* the symlink's own (none), never its target's */
	assert_int_equal(read_xattrs(dfd, "link", &x), 0);
	assert_int_equal(x.count, 0);
	fs_xattrs_free(&x);

	/* by name, the object must be the one given: the file's id for the
	 * name of the symlink is refused, and so is a missing name */
	assert_int_equal(fstatat(dfd, "f", &st, 0), 0);
	id = fs_id_of(&st);
	assert_int_equal(
	    fs_xattrs_read_at(dfd, "link", &id, NULL, NULL, &x, why),
	    SQFS_ERROR_CHANGED);
	assert_string_equal(why, "was replaced since it was scanned");
	fs_xattrs_free(&x);
	assert_int_equal(
	    fs_xattrs_read_at(dfd, "missing", &id, NULL, NULL, &x, why),
	    SQFS_ERROR_IO);
	assert_string_equal(why, strerror(ENOENT));
	fs_xattrs_free(&x);
	/* and a name with more than one component is never taken */
	assert_int_equal(
	    fs_xattrs_read_at(dfd, "a/f", &id, NULL, NULL, &x, why),
	    SQFS_ERROR_ARG_INVALID);
	fs_xattrs_free(&x);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		test_names_sorted, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_names_empty_and_bad,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_read_link, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_xattrs, test_tmpdir_setup,
					    test_tmpdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

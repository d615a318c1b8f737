/* SPDX-License-Identifier: MIT */
/*
 * test_fs_move.c - moving a finished file to its name (lib/common/fs_move.c):
 * moved when the name is free; refused, with both left as they were, when
 * anything is there (a file, a directory, a symlink, a dangling one).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"

#include "common/fs_move.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int dfd = -1;

static int setup(void **state)
{
	if (test_tmpdir_setup(state) != 0)
		return -1;
	dfd = open(test_tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dfd >= 0 ? 0 : -1;
}

static int teardown(void **state)
{
	close(dfd);
	return test_tmpdir_teardown(state);
}

static void put(const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void expect(const char *name, const char *text)
{
	char buf[64] = "";
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
	assert_string_equal(buf, text);
}

static void test_moved(void **state)
{
	struct stat st;

	(void)state;
	put("tmp", "done");
	assert_int_equal(fs_move_no_replace(dfd, "tmp", "name"), 0);
	expect("name", "done");
	assert_int_equal(fstatat(dfd, "tmp", &st, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(errno, ENOENT);
}

static void refused(const char *target)
{
	struct stat before, after;

	put("tmp", "new");
	assert_int_equal(fstatat(dfd, target, &before, AT_SYMLINK_NOFOLLOW), 0);
	errno = 0;
	assert_int_equal(fs_move_no_replace(dfd, "tmp", target), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(fstatat(dfd, target, &after, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(before.st_ino == after.st_ino);
	expect("tmp", "new");
}

static void test_refused(void **state)
{
	(void)state;
	put("file", "old");
	refused("file");
	expect("file", "old");
	assert_int_equal(mkdirat(dfd, "dir", 0755), 0);
	refused("dir");
	assert_int_equal(symlinkat("file", dfd, "link"), 0);
	refused("link");
	assert_int_equal(symlinkat("nowhere", dfd, "dangling"), 0);
	refused("dangling");
}

/* AT_FDCWD and paths, as the output file uses it. */
static void test_paths(void **state)
{
	char from[300], to[300];

	(void)state;
	put("a", "x");
	snprintf(from, sizeof(from), "%s/a", test_tmpdir);
	snprintf(to, sizeof(to), "%s/b", test_tmpdir);
	assert_int_equal(fs_move_no_replace(AT_FDCWD, from, to), 0);
	expect("b", "x");
	put("a", "y");
	assert_int_equal(fs_move_no_replace(AT_FDCWD, from, to), -1);
	assert_int_equal(errno, EEXIST);
	expect("b", "x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_moved, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

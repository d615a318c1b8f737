/* SPDX-License-Identifier: MIT */
/*
 * test_fs_open.c - opening again what a walk of a tree on disk saw
 * (lib/util/fs_open.c): every component without following a symlink,
 * the object checked to be the one seen, paths deeper than the chain
 * keeps open.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"

#include "util/fs_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_at(int dfd, const char *name, const char *data)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
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

/* A FIFO where a file was seen is refused without blocking (the
 * opening is non-blocking), and a file opened is left blocking. */
static void test_fifo_refused(void **state)
{
	int dfd = test_tmpdir_open(), fd, err, fl;
	struct stat st;
	fs_id_t id;

	(void)state;
	write_at(dfd, "f", "f");
	assert_int_equal(fstatat(dfd, "f", &st, AT_SYMLINK_NOFOLLOW), 0);
	id = fs_id_of(&st);
	fd = fs_open_checked(dfd, "f", O_RDONLY, &id, NULL, &err);
	assert_true(fd >= 0);
	fl = fcntl(fd, F_GETFL);
	assert_true(fl >= 0 && !(fl & O_NONBLOCK));
	close(fd);
	/* made before f goes, so that it cannot take f's inode number */
	assert_int_equal(mkfifoat(dfd, "g", 0644), 0);
	assert_int_equal(renameat(dfd, "g", dfd, "f"), 0);
	assert_int_equal(fs_open_checked(dfd, "f", O_RDONLY, &id, NULL, &err),
			 -1);
	assert_int_equal(err, FS_ERR_REPLACED);
	assert_string_equal(fs_err_string(err),
			    "was replaced since it was scanned");
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_chain, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(
		test_fifo_refused, test_tmpdir_setup, test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

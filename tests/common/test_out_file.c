/* SPDX-License-Identifier: MIT */
/*
 * test_out_file.c - the output-file helper: an image appears complete or
 * not at all, and an existing file is only replaced with force.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/out_file.h"
#include "sqfs/io.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];
static char target[300];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	(void)state;

	snprintf(dir, sizeof(dir), "%s/test_out_file.XXXXXX",
		 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(target, sizeof(target), "%s/image.sqfs", dir);
	return 0;
}

static int teardown(void **state)
{
	struct dirent *de;
	char path[600];
	DIR *d;
	(void)state;

	d = opendir(dir);
	if (d != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (unlink(path) != 0)
				rmdir(path);
		}
		closedir(d);
	}
	rmdir(dir);
	return 0;
}

static size_t count_files(void)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			++n;
	}
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static void check_contents(const char *path, const char *text)
{
	char buf[256];
	size_t n;
	FILE *fp = fopen(path, "rb");

	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void put(out_file_t *of, const char *text)
{
	sqfs_file_t *f = out_file_get(of);

	assert_non_null(f);
	assert_int_equal(f->write_at(f, 0, text, strlen(text)), 0);
}

static void test_new_target(void **state)
{
	out_file_t *of = NULL;
	char temp[600];
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	assert_non_null(of);
	snprintf(temp, sizeof(temp), "%s", out_file_temp_path(of));
	/* beside the target, not the target */
	assert_int_equal(strncmp(temp, dir, strlen(dir)), 0);
	assert_null(strchr(temp + strlen(dir) + 1, '/'));
	assert_string_not_equal(temp, target);
	assert_int_equal(access(temp, F_OK), 0);
	assert_int_not_equal(access(target, F_OK), 0);

	put(of, "image");
	assert_int_equal(out_file_commit(of), 0);
	out_file_destroy(of);

	check_contents(target, "image");
	assert_int_not_equal(access(temp, F_OK), 0);
	assert_int_equal(count_files(), 1);
}

static void test_failure_removes_temp(void **state)
{
	out_file_t *of = NULL;
	char temp[600];
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	snprintf(temp, sizeof(temp), "%s", out_file_temp_path(of));
	put(of, "half an image");
	out_file_destroy(of);

	assert_int_not_equal(access(temp, F_OK), 0);
	assert_int_not_equal(access(target, F_OK), 0);
	assert_int_equal(count_files(), 0);
}

static void test_existing_kept(void **state)
{
	out_file_t *of = NULL;
	(void)state;

	write_file(target, "precious");
	assert_int_equal(out_file_open(&of, target, false), -1);
	assert_null(of);
	check_contents(target, "precious");
	assert_int_equal(count_files(), 1);

	/* a failed forced run leaves it alone as well */
	assert_int_equal(out_file_open(&of, target, true), 0);
	put(of, "broken");
	out_file_destroy(of);
	check_contents(target, "precious");
	assert_int_equal(count_files(), 1);
}

static void test_force_replaces(void **state)
{
	out_file_t *of = NULL;
	(void)state;

	write_file(target, "old image");
	assert_int_equal(out_file_open(&of, target, true), 0);
	put(of, "new");
	/* until the commit, the old file is there */
	check_contents(target, "old image");
	assert_int_equal(out_file_commit(of), 0);
	out_file_destroy(of);
	check_contents(target, "new");
	assert_int_equal(count_files(), 1);
}

/* A file that appears while packing is not replaced without force. */
static void test_appeared_meanwhile(void **state)
{
	out_file_t *of = NULL;
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	put(of, "ours");
	write_file(target, "theirs");
	assert_int_equal(out_file_commit(of), -1);
	out_file_destroy(of);
	check_contents(target, "theirs");
	assert_int_equal(count_files(), 1);
}

static void test_refused_targets(void **state)
{
	out_file_t *of = NULL;
	char path[600];
	(void)state;

	/* a directory, even with force */
	assert_int_equal(mkdir(target, 0755), 0);
	assert_int_equal(out_file_open(&of, target, false), -1);
	assert_int_equal(out_file_open(&of, target, true), -1);
	assert_int_equal(rmdir(target), 0);

	/* a symlink is an existing file */
	assert_int_equal(symlink("nowhere", target), 0);
	assert_int_equal(out_file_open(&of, target, false), -1);
	assert_int_equal(out_file_open(&of, target, true), -1);
	assert_int_equal(unlink(target), 0);

	/* a missing directory */
	snprintf(path, sizeof(path), "%s/missing/image.sqfs", dir);
	assert_int_equal(out_file_open(&of, path, false), -1);

	/* not a file name */
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(out_file_open(&of, path, true), -1);
	assert_int_equal(out_file_open(&of, "", false), -1);
	assert_null(of);
	assert_int_equal(count_files(), 0);

	out_file_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_new_target, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failure_removes_temp, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_existing_kept, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_force_replaces, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_appeared_meanwhile, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_refused_targets, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

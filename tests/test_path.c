/* SPDX-License-Identifier: MIT */
/*
 * test_path.c - the one canonical form of paths and the valid names
 * (sqfs/path.h), which the writer, the readers and every tool share.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/error.h"
#include "sqfs/path.h"

#include <string.h>

static void check(const char *in, const char *want, int ret)
{
	char buf[512];

	strcpy(buf, in);
	assert_int_equal(sqfs_path_canonical(buf), ret);
	assert_string_equal(buf, want);
}

static void test_canonical(void **state)
{
	(void)state;
	check("", "", 0);
	check("/", "", 0);
	check(".", "", 0);
	check("./", "", 0);
	check("//.//./", "", 0);
	check("a", "a", 0);
	check("/a/b", "a/b", 0);
	check("./a//b/", "a/b", 0);
	check("a/./b/.", "a/b", 0);
	check("...", "...", 0);
	check(".a/b.", ".a/b.", 0);
	check("a/ /b", "a/ /b", 0);
	/* ".." is kept, and said */
	check("..", "..", SQFS_ERROR_ARG_INVALID);
	check("/a/../b/", "a/../b", SQFS_ERROR_ARG_INVALID);
	check("a/..b", "a/..b", 0);
	/* canonical stays canonical */
	check("x/y/z", "x/y/z", 0);
}

static void test_names(void **state)
{
	char name[300];

	(void)state;
	assert_true(sqfs_name_is_valid("a", 1));
	assert_true(sqfs_name_is_valid("...", 3));
	assert_true(sqfs_name_is_valid(".a", 2));
	assert_true(sqfs_name_is_valid("\xff\xfe", 2));
	assert_false(sqfs_name_is_valid("", 0));
	assert_false(sqfs_name_is_valid(".", 1));
	assert_false(sqfs_name_is_valid("..", 2));
	assert_false(sqfs_name_is_valid("a/b", 3));
	assert_false(sqfs_name_is_valid("a\0b", 3));
	assert_false(sqfs_name_is_valid(NULL, 1));
	/* only the len bytes count */
	assert_true(sqfs_name_is_valid("ab/c", 2));
	memset(name, 'n', sizeof(name));
	assert_true(sqfs_name_is_valid(name, SQFS_NAME_MAX));
	assert_false(sqfs_name_is_valid(name, SQFS_NAME_MAX + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_canonical),
	    cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

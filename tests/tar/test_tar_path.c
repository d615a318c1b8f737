/* SPDX-License-Identifier: MIT */
/*
 * test_tar_path.c - canonical entry names, unsafe-name detection, the
 * --root-becomes prefix and symlink retargeting of lib/tar.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tar/path.h"

#include <stdlib.h>
#include <string.h>

static void check_canon(const char *in, const char *expect, bool unsafe)
{
	bool flag = !unsafe;
	char *out = NULL;

	assert_int_equal(tar_path_canonical(in, &out, &flag), 0);
	assert_non_null(out);
	assert_string_equal(out, expect);
	assert_int_equal(flag, unsafe);
	free(out);

	/* the flag is optional */
	assert_int_equal(tar_path_canonical(in, &out, NULL), 0);
	assert_string_equal(out, expect);
	free(out);
}

static void test_canonical(void **state)
{
	(void)state;
	check_canon("a/b", "a/b", false);
	check_canon("./a/b", "a/b", false);
	check_canon("/a/b", "a/b", false);
	check_canon("//a//b//", "a/b", false);
	check_canon("././a/./b/.", "a/b", false);
	check_canon("a/b/", "a/b", false);
	check_canon(".hidden/..dots/...", ".hidden/..dots/...", false);
	check_canon("a.b/c.", "a.b/c.", false);

	/* the root */
	check_canon("", "", false);
	check_canon(".", "", false);
	check_canon("./", "", false);
	check_canon("/", "", false);
	check_canon("//./", "", false);

	/* climbing out */
	check_canon("..", "..", true);
	check_canon("../x", "../x", true);
	check_canon("a/../b", "a/../b", true);
	check_canon("a/..", "a/..", true);
	check_canon("/../etc/passwd", "../etc/passwd", true);
	check_canon("./a/b/../../..", "a/b/../../..", true);
}

static void test_below(void **state)
{
	(void)state;
	assert_string_equal(tar_path_below("a/b/c", "a"), "b/c");
	assert_string_equal(tar_path_below("a/b/c", "a/b"), "c");
	assert_string_equal(tar_path_below("a/b", "a/b"), "");
	assert_null(tar_path_below("ab/c", "a"));
	assert_null(tar_path_below("a", "a/b"));
	assert_null(tar_path_below("b/a", "a"));
	assert_null(tar_path_below("", "a"));
	/* the root contains everything */
	assert_string_equal(tar_path_below("x/y", ""), "x/y");
	assert_string_equal(tar_path_below("", ""), "");
}

static void check_retarget(const char *target, const char *prefix,
			   const char *expect)
{
	char *out = (char *)"unset";

	assert_int_equal(tar_path_retarget(target, prefix, &out), 0);
	if (expect == NULL) {
		assert_null(out);
	} else {
		assert_non_null(out);
		assert_string_equal(out, expect);
		free(out);
	}
}

/* What Debian's tar2sqfs -r root does, observed as a black box. */
static void test_retarget(void **state)
{
	(void)state;
	check_retarget("/root/sub/deep/f", "root", "/sub/deep/f");
	check_retarget("root/sub/deep/f", "root", "/sub/deep/f");
	check_retarget("./root/sub", "root", "/sub");
	check_retarget("//root//sub", "root", "/sub");
	check_retarget("/root/sub/", "root", "/sub");
	check_retarget("/root/./sub", "root", "/sub");
	check_retarget("root//sub//x//", "root", "/sub/x");
	check_retarget("root/sub/.", "root", "/sub");

	/* kept as they are */
	check_retarget("/root", "root", NULL);
	check_retarget("/root/", "root", NULL);
	check_retarget("root/.", "root", NULL);
	check_retarget("root", "root", NULL);
	check_retarget("/rootx/a", "root", NULL);
	check_retarget("rootx/a", "root", NULL);
	check_retarget("sub/deep/f", "root", NULL);
	check_retarget("../root/sub", "root", NULL);
	check_retarget("/root/sub/../x", "root", NULL);
	check_retarget("root/..", "root", NULL);
	check_retarget("/etc/passwd", "root", NULL);
	check_retarget("ROOT/sub", "root", NULL);

	/* a deeper prefix */
	check_retarget("/a/b/c", "a/b", "/c");
	check_retarget("/a/bc", "a/b", NULL);

	/* no prefix: nothing moves */
	check_retarget("/x/y", "", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_canonical),
	    cmocka_unit_test(test_below),
	    cmocka_unit_test(test_retarget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

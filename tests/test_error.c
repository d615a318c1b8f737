/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "sqfs/error.h"

#include <string.h>

static void every_code_has_its_own_text(void **state)
{
	const char *seen[32] = {NULL};
	int count = 0;

	(void)state;
	for (int code = 0; code >= SQFS_ERROR_LAST; --code) {
		const char *text = sqfs_error_string(code);

		assert_non_null(text);
		assert_string_not_equal(text, "unknown error");
		assert_true(strlen(text) > 3);
		for (int i = 0; i < count; ++i)
			assert_string_not_equal(seen[i], text);
		seen[count++] = text;
	}
	assert_int_equal(count, 1 - SQFS_ERROR_LAST);
}

static void unknown_codes(void **state)
{
	(void)state;
	assert_string_equal(sqfs_error_string(1), "unknown error");
	assert_string_equal(sqfs_error_string(SQFS_ERROR_LAST - 1),
			    "unknown error");
	assert_string_equal(sqfs_error_string(-1000), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_code_has_its_own_text),
	    cmocka_unit_test(unknown_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

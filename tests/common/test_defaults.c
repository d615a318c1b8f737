/* SPDX-License-Identifier: MIT */
/*
 * test_defaults.c - --defaults and SOURCE_DATE_EPOCH (lib/common).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/defaults.h"

#include <string.h>

static const tool_defaults_t initial = {
    .uid = 0,
    .gid = 0,
    .mode = 0755,
    .mtime = 0,
};

static void test_defaults_good(void **state)
{
	tool_defaults_t d = initial;
	char err[128];
	(void)state;

	assert_int_equal(defaults_parse(&d, "uid=1000", err, sizeof(err)), 0);
	assert_int_equal(d.uid, 1000);
	assert_int_equal(d.gid, 0);
	assert_int_equal(d.mode, 0755);

	assert_int_equal(defaults_parse(&d,
					"gid=4294967295,mode=1777,"
					"mtime=4294967295,uid=0",
					err, sizeof(err)),
			 0);
	assert_int_equal(d.uid, 0);
	assert_int_equal(d.gid, UINT32_MAX);
	assert_int_equal(d.mode, 01777);
	assert_int_equal(d.mtime, UINT32_MAX);

	/* mode is octal; a later value wins */
	assert_int_equal(
	    defaults_parse(&d, "mode=0700,mode=755", err, sizeof(err)), 0);
	assert_int_equal(d.mode, 0755);
}

static void check_bad(const char *str, const char *in_message)
{
	tool_defaults_t d = initial;
	char err[128];

	err[0] = '\0';
	assert_int_equal(defaults_parse(&d, str, err, sizeof(err)), -1);
	if (strstr(err, in_message) == NULL)
		fail_msg("'%s': message '%s' lacks '%s'", str, err, in_message);
}

static void test_defaults_bad(void **state)
{
	(void)state;
	check_bad("", "key=value");
	check_bad("uid", "'uid'");
	check_bad("uid=", "'uid='");
	check_bad("uid=-1", "'uid=-1'");
	check_bad("uid=4294967296", "too large");
	check_bad("gid=1x", "'gid=1x'");
	check_bad("mode=10000", "too large");
	check_bad("mode=0758", "octal");
	check_bad("mode=rwx", "'mode=rwx'");
	check_bad("mtime=4294967296", "too large");
	check_bad("mtime=1.5", "'mtime=1.5'");
	check_bad("owner=1", "unknown key");
	check_bad("uid=1,,gid=2", "key=value");
	check_bad("uid=1,", "key=value");
	check_bad("uid=1=2", "'uid=1=2'");
	check_bad("mtime=11111111111111111111111111111111111111111111111111"
		  "111111111111111111",
		  "too long");
}

static void check_sde(const char *value, int ret, uint32_t expect)
{
	uint32_t out = 777;

	assert_int_equal(source_date_epoch(value, &out), ret);
	assert_int_equal(out, expect);
}

static void test_source_date_epoch(void **state)
{
	(void)state;
	check_sde(NULL, 0, 0);
	check_sde("0", 0, 0);
	check_sde("1000", 0, 1000);
	check_sde("1700000000", 0, 1700000000);
	check_sde("4294967295", 0, UINT32_MAX);

	/* anything else: an error for a warning, and 0 */
	check_sde("", -1, 0);
	check_sde("4294967296", -1, 0);
	check_sde("99999999999", -1, 0);
	check_sde("-1", -1, 0);
	check_sde("+5", -1, 0);
	check_sde(" 5", -1, 0);
	check_sde("5 ", -1, 0);
	check_sde("abc", -1, 0);
	check_sde("12abc", -1, 0);
	check_sde("1e9", -1, 0);
	check_sde("0x10", -1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_good),
	    cmocka_unit_test(test_defaults_bad),
	    cmocka_unit_test(test_source_date_epoch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

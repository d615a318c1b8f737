/* SPDX-License-Identifier: MIT */
/*
 * test_parse.c - numbers, sizes and block sizes of the command line
 * (lib/common/parse.c).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/parse.h"

static void check_size(const char *str, uint64_t max, uint64_t expect)
{
	uint64_t out = 12345;
	const char *err = parse_size(str, max, &out);

	if (err != NULL)
		fail_msg("'%s': %s", str, err);
	assert_int_equal(out, expect);
}

static void check_size_bad(const char *str, uint64_t max)
{
	uint64_t out = 12345;

	assert_non_null(parse_size(str, max, &out));
	assert_int_equal(out, 12345);
}

static void test_size(void **state)
{
	(void)state;
	check_size("0", UINT64_MAX, 0);
	check_size("4096", UINT64_MAX, 4096);
	check_size("4K", UINT64_MAX, 4096);
	check_size("4k", UINT64_MAX, 4096);
	check_size("1M", UINT64_MAX, 1048576);
	check_size("1m", UINT64_MAX, 1048576);
	check_size("3G", UINT64_MAX, 3ull << 30);
	check_size("3g", UINT64_MAX, 3ull << 30);
	check_size("18446744073709551615", UINT64_MAX, UINT64_MAX);
	check_size("1K", 1024, 1024);
	check_size("007", UINT64_MAX, 7);

	check_size_bad("", UINT64_MAX);
	check_size_bad("K", UINT64_MAX);
	check_size_bad("-1", UINT64_MAX);
	check_size_bad("+1", UINT64_MAX);
	check_size_bad(" 1", UINT64_MAX);
	check_size_bad("1 ", UINT64_MAX);
	check_size_bad("1KB", UINT64_MAX);
	check_size_bad("1KK", UINT64_MAX);
	check_size_bad("1T", UINT64_MAX);
	check_size_bad("1.5M", UINT64_MAX);
	check_size_bad("0x10", UINT64_MAX);
	check_size_bad("18446744073709551616", UINT64_MAX);
	check_size_bad("17179869184G", UINT64_MAX);
	check_size_bad("1025", 1024);
	check_size_bad("2K", 1024);
	check_size_bad("4294967296", UINT32_MAX);
}

static void test_uint(void **state)
{
	uint64_t out = 0;
	(void)state;

	assert_null(parse_uint("0", 10, &out));
	assert_int_equal(out, 0);
	assert_null(parse_uint("4294967295", UINT32_MAX, &out));
	assert_int_equal(out, UINT32_MAX);
	assert_non_null(parse_uint("4294967296", UINT32_MAX, &out));
	assert_non_null(parse_uint("11", 10, &out));
	assert_non_null(parse_uint("1K", UINT64_MAX, &out));
	assert_non_null(parse_uint("", UINT64_MAX, &out));
	assert_non_null(parse_uint("-0", UINT64_MAX, &out));
	assert_non_null(
	    parse_uint("99999999999999999999999", UINT64_MAX, &out));

	assert_null(parse_octal("0755", 07777, &out));
	assert_int_equal(out, 0755);
	assert_null(parse_octal("7777", 07777, &out));
	assert_int_equal(out, 07777);
	assert_non_null(parse_octal("10000", 07777, &out));
	assert_non_null(parse_octal("0758", 07777, &out));
	assert_non_null(parse_octal("8", 07777, &out));
	assert_non_null(parse_octal("", 07777, &out));
}

static void test_count(void **state)
{
	uint64_t out = 0;

	(void)state;
	assert_null(parse_count("1", 4096, &out));
	assert_int_equal(out, 1);
	assert_null(parse_count("4096", 4096, &out));
	assert_int_equal(out, 4096);
	assert_string_equal(parse_count("0", 4096, &out), "must be at least 1");
	assert_non_null(parse_count("4097", 4096, &out));
	assert_non_null(parse_count("", 4096, &out));
	assert_non_null(parse_count("-1", 4096, &out));
	assert_non_null(parse_count("2x", 4096, &out));
}

static void test_block_size(void **state)
{
	uint32_t out = 0;
	(void)state;

	assert_null(parse_block_size("4096", &out));
	assert_int_equal(out, 4096);
	assert_null(parse_block_size("128K", &out));
	assert_int_equal(out, 131072);
	assert_null(parse_block_size("1M", &out));
	assert_int_equal(out, 1048576);
	assert_non_null(parse_block_size("2048", &out));
	assert_non_null(parse_block_size("2M", &out));
	assert_non_null(parse_block_size("100000", &out));
	assert_non_null(parse_block_size("0", &out));
	assert_non_null(parse_block_size("x", &out));
	assert_int_equal(out, 1048576);

	assert_null(parse_dev_block_size("1024", &out));
	assert_int_equal(out, 1024);
	assert_null(parse_dev_block_size("1500", &out));
	assert_int_equal(out, 1500);
	assert_null(parse_dev_block_size("4K", &out));
	assert_int_equal(out, 4096);
	assert_non_null(parse_dev_block_size("1023", &out));
	assert_non_null(parse_dev_block_size("0", &out));
	assert_non_null(parse_dev_block_size("4G", &out));
	assert_non_null(parse_dev_block_size("", &out));
	assert_int_equal(out, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_size),
	    cmocka_unit_test(test_uint),
	    cmocka_unit_test(test_count),
	    cmocka_unit_test(test_block_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

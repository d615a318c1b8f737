/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const algorithms[] = {
    "lzo1x_1", "lzo1x_1_11", "lzo1x_1_12", "lzo1x_1_15", "lzo1x_999",
};

static void make_cfg(sqfs_compressor_config_t *cfg, uint32_t block_size,
		     const char *options)
{
	test_config_parse(cfg, SQFS_COMP_LZO, block_size, options);
}

static void roundtrip(uint32_t block_size, const char *options)
{
	test_compressor_roundtrip_parsed(SQFS_COMP_LZO, block_size, options);
}

static void test_defaults(void **state)
{
	sqfs_compressor_config_t cfg;
	const char *help;
	char buf[128];

	(void)state;
	assert_int_equal(
	    sqfs_compressor_config_init(&cfg, SQFS_COMP_LZO, 131072, 0), 0);
	test_assert_defaults(&cfg, 131072);
	assert_int_equal(sqfs_compressor_config_validate(&cfg), 0);
	assert_true(sqfs_compressor_config_format(&cfg, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "algorithm=lzo1x_999,level=8");

	help = sqfs_compressor_options_help(SQFS_COMP_LZO);
	assert_non_null(help);
	assert_non_null(strstr(help, "algorithm="));
	assert_non_null(strstr(help, "lzo1x_1_15"));
	assert_non_null(strstr(help, "level=1..9"));
}

static void test_roundtrip_algorithms(void **state)
{
	char opts[64];

	(void)state;
	for (size_t i = 0; i < sizeof(algorithms) / sizeof(algorithms[0]);
	     ++i) {
		snprintf(opts, sizeof(opts), "algorithm=%s", algorithms[i]);
		roundtrip(131072, opts);
	}
}

static void test_roundtrip_sizes(void **state)
{
	(void)state;
	roundtrip(4096, "level=1");
	roundtrip(4096, "level=9");
	roundtrip(4096, "algorithm=lzo1x_1_11");
	roundtrip(1048576, "algorithm=lzo1x_1");
	roundtrip(65536, NULL);
	roundtrip(1048576, "level=1");
}

static void test_roundtrip_level0(void **state)
{
	sqfs_compressor_config_t cfg;

	(void)state;
	/* what other writers may store for lzo1x_999: the library's own
	 * default level */
	make_cfg(&cfg, 16384, NULL);
	cfg.opt.lzo.level = 0;
	assert_int_equal(sqfs_compressor_config_validate(&cfg), 0);
	test_compressor_roundtrip(&cfg);
}

static void test_bomb(void **state)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;

	(void)state;
	make_cfg(&cfg, 1048576, "algorithm=lzo1x_1");
	cmp = test_create_compressor(&cfg);
	test_zeros_bomb(cmp, 65536, SQFS_ERROR_OVERFLOW, 4096, NULL);
	sqfs_compressor_destroy(cmp);
}

static void test_uncompress_bad(void **state)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;
	uint8_t *in = test_make_data(65536, TEST_DATA_TEXT, 5);
	uint8_t *out = malloc(65536 + 16);
	uint8_t *back = malloc(65536);
	ptrdiff_t csize;

	(void)state;
	assert_non_null(out);
	assert_non_null(back);
	make_cfg(&cfg, 65536, NULL);
	cmp = test_create_compressor(&cfg);
	csize = sqfs_compressor_compress(cmp, in, 65536, out, 65536);
	assert_true(csize > 0);

	/* bytes after the end of the stream */
	memset(out + csize, 0, 16);
	assert_int_equal(sqfs_compressor_uncompress(cmp, out, (size_t)csize + 4,
						    back, 65536),
			 SQFS_ERROR_CORRUPTED);
	/* cut short */
	assert_int_equal(sqfs_compressor_uncompress(cmp, out, (size_t)csize - 3,
						    back, 65536),
			 SQFS_ERROR_CORRUPTED);
	/* not lzo at all: an error, never more than the buffer */
	assert_true(sqfs_compressor_uncompress(cmp, in, 4000, back, 65536) < 0);

	/* a decompress-only instance reads the same data */
	assert_int_equal(test_decoder_only(&cfg, 65536, 5), (size_t)csize);

	sqfs_compressor_destroy(cmp);
	free(in);
	free(out);
	free(back);
}

static void test_options_block(void **state)
{
	static const uint8_t expect[] = {0x08, 0x80, 0x04, 0, 0,
					 0,    0x03, 0,	   0, 0};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, NULL);
	assert_int_equal(test_options_roundtrip(&cfg), 0);
	make_cfg(&cfg, 131072, "level=8");
	assert_int_equal(test_options_roundtrip(&cfg), 0);

	for (size_t i = 0; i < 4; ++i) {
		char opts[64];

		snprintf(opts, sizeof(opts), "algorithm=%s", algorithms[i]);
		make_cfg(&cfg, 131072, opts);
		assert_int_equal(test_options_roundtrip(&cfg), 10);
	}
	make_cfg(&cfg, 131072, "level=1");
	assert_int_equal(test_options_roundtrip(&cfg), 10);
	make_cfg(&cfg, 4096, "level=9");
	assert_int_equal(test_options_roundtrip(&cfg), 10);
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.lzo.level = 0;
	assert_int_equal(test_options_roundtrip(&cfg), 10);

	/* the layout gensquashfs writes for algorithm=lzo1x_999,level=3 */
	make_cfg(&cfg, 131072, "level=3");
	test_options_written(&cfg, expect, sizeof(expect));
}

static void test_options_corrupt(void **state)
{
	static const struct {
		uint8_t len;
		uint8_t block[14];
		int result;
	} cases[] = {
	    /* mksquashfs -Xalgorithm lzo1x_1 */
	    {10, {0x08, 0x80, 0, 0, 0, 0, 0, 0, 0, 0}, 0},
	    {10, {0x08, 0x80, 4, 0, 0, 0, 9, 0, 0, 0}, 0},
	    /* level 0 for lzo1x_999, as squashfs-tools-ng allows */
	    {10, {0x08, 0x80, 4, 0, 0, 0, 0, 0, 0, 0}, 0},
	    /* algorithm 7, 5, 2^32-1 */
	    {10, {0x08, 0x80, 7, 0, 0, 0, 0, 0, 0, 0}, SQFS_ERROR_CORRUPTED},
	    {10, {0x08, 0x80, 5, 0, 0, 0, 0, 0, 0, 0}, SQFS_ERROR_CORRUPTED},
	    {10,
	     {0x08, 0x80, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    /* a level with another algorithm; level 10 */
	    {10, {0x08, 0x80, 1, 0, 0, 0, 5, 0, 0, 0}, SQFS_ERROR_CORRUPTED},
	    {10, {0x08, 0x80, 4, 0, 0, 0, 10, 0, 0, 0}, SQFS_ERROR_CORRUPTED},
	    {10, {0x08, 0x80, 4, 0, 0, 0, 8, 0, 0, 1}, SQFS_ERROR_CORRUPTED},
	    /* wrong lengths, truncated, compressed */
	    {6, {0x04, 0x80, 4, 0, 0, 0}, SQFS_ERROR_CORRUPTED},
	    {14,
	     {0x0c, 0x80, 4, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    {8, {0x08, 0x80, 4, 0, 0, 0, 8, 0}, SQFS_ERROR_CORRUPTED},
	    {10, {0x08, 0x00, 4, 0, 0, 0, 8, 0, 0, 0}, SQFS_ERROR_CORRUPTED},
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_options_block_gives(SQFS_COMP_LZO, 131072, 0,
					 cases[i].block, cases[i].len,
					 cases[i].result);

	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_LZO, 131072, 0,
						 cases[1].block, 10),
			 0);
	assert_int_equal(cfg.opt.lzo.algorithm, SQFS_LZO1X_999);
	assert_int_equal(cfg.opt.lzo.level, 9);
	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_LZO, 131072, 0,
						 cases[0].block, 10),
			 0);
	assert_int_equal(cfg.opt.lzo.algorithm, SQFS_LZO1X_1);
	assert_int_equal(cfg.opt.lzo.level, 0);
}

static void test_parse_format(void **state)
{
	static const char *const cases[] = {
	    "",
	    "algorithm=lzo1x_1",
	    "algorithm=lzo1x_1_11",
	    "algorithm=lzo1x_1_12",
	    "algorithm=lzo1x_1_15",
	    "algorithm=lzo1x_999",
	    "level=1",
	    "algorithm=lzo1x_999,level=9",
	    "algorithm=lzo1x_1,algorithm=lzo1x_999,level=2",
	};
	sqfs_compressor_config_t a, b;
	char buf[128];

	(void)state;
	make_cfg(&b, 131072, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		make_cfg(&a, 131072, cases[i]);
		assert_true(test_format_reparse(&a, &b) > 0);
	}

	make_cfg(&a, 131072, "algorithm=lzo1x_1_12");
	assert_int_equal(a.opt.lzo.algorithm, SQFS_LZO1X_1_12);
	assert_int_equal(a.opt.lzo.level, 0);
	sqfs_compressor_config_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "algorithm=lzo1x_1_12");

	/* back to lzo1x_999: its default level again */
	make_cfg(&a, 131072, "algorithm=lzo1x_1,algorithm=lzo1x_999");
	assert_int_equal(a.opt.lzo.level, 8);
	/* a level given before the algorithm is kept */
	make_cfg(&a, 131072, "level=3,algorithm=lzo1x_999");
	assert_int_equal(a.opt.lzo.algorithm, SQFS_LZO1X_999);
	assert_int_equal(a.opt.lzo.level, 3);
	sqfs_compressor_config_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "algorithm=lzo1x_999,level=3");
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
	    "algorithm=bogus",
	    "algorithm=",
	    "algorithm",
	    "algorithm=LZO1X_1",
	    "level=0",
	    "level=10",
	    "level=",
	    "level=a",
	    "algorithm=lzo1x_1,level=5",
	    "level=5,algorithm=lzo1x_1",
	    "algorithm=lzo1x_1_15,level=8",
	    "hc",
	    "lzo1x_1",
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
		test_bad_option(&cfg, bad[i], NULL);

	make_cfg(&cfg, 131072, NULL);
	cfg.opt.lzo.algorithm = 5;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, "algorithm=lzo1x_1");
	cfg.opt.lzo.level = 1;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.lzo.level = 10;
	test_create_fails(&cfg, SQFS_ERROR_ARG_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_roundtrip_algorithms),
	    cmocka_unit_test(test_roundtrip_sizes),
	    cmocka_unit_test(test_roundtrip_level0),
	    cmocka_unit_test(test_bomb),
	    cmocka_unit_test(test_uncompress_bad),
	    cmocka_unit_test(test_options_block),
	    cmocka_unit_test(test_options_corrupt),
	    cmocka_unit_test(test_parse_format),
	    cmocka_unit_test(test_parse_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

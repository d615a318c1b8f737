/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

enum { F_NONE = 0, F_HC = SQFS_LZ4_HC };

static void make_cfg(sqfs_compressor_config_t *cfg, uint32_t block_size,
		     uint32_t flags)
{
	assert_int_equal(
	    sqfs_compressor_config_init(cfg, SQFS_COMP_LZ4, block_size, 0), 0);
	cfg->opt.lz4.flags = flags;
}

static sqfs_compressor_t *create(uint32_t block_size, uint32_t flags)
{
	sqfs_compressor_config_t cfg;

	make_cfg(&cfg, block_size, flags);
	return test_create_compressor(&cfg);
}

/* flags, block size */
#define ROUNDTRIP_CASES(X) \
	X(F_NONE, 4096)    \
	X(F_NONE, 131072)  \
	X(F_NONE, 1048576) \
	X(F_HC, 4096)      \
	X(F_HC, 131072)    \
	X(F_HC, 1048576)

#define DEFINE_ROUNDTRIP(flags, bs)                             \
	static void test_roundtrip_##flags##_##bs(void **state) \
	{                                                       \
		sqfs_compressor_config_t cfg;                   \
		(void)state;                                    \
		make_cfg(&cfg, bs, flags);                      \
		test_compressor_roundtrip(&cfg);                \
	}
ROUNDTRIP_CASES(DEFINE_ROUNDTRIP)

#define LIST_ROUNDTRIP(flags, bs) \
	cmocka_unit_test(test_roundtrip_##flags##_##bs),

static void check_written(uint32_t flags, const uint8_t *expect, size_t len)
{
	sqfs_compressor_config_t cfg;

	make_cfg(&cfg, 131072, flags);
	test_options_written(&cfg, expect, len);
}

static void test_options(void **state)
{
	static const uint8_t plain[] = {0x08, 0x80, 1, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t hc[] = {0x08, 0x80, 1, 0, 0, 0, 1, 0, 0, 0};
	sqfs_compressor_config_t cfg;

	(void)state;
	/* the kernel refuses lz4 images without the block: always there */
	make_cfg(&cfg, 131072, F_NONE);
	assert_int_equal(test_options_roundtrip(&cfg), 10);
	make_cfg(&cfg, 4096, F_HC);
	assert_int_equal(test_options_roundtrip(&cfg), 10);

	check_written(F_NONE, plain, sizeof(plain));
	check_written(F_HC, hc, sizeof(hc));
}

static void test_parse_format(void **state)
{
	static const char *const inputs[] = {"", "hc", "hc,hc"};
	sqfs_compressor_config_t cfg, start;
	char text[64], err[128];

	(void)state;
	make_cfg(&start, 131072, F_NONE);
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); ++i) {
		test_config_parse(&cfg, SQFS_COMP_LZ4, 131072, inputs[i]);
		test_format_reparse(&cfg, &start);
	}

	make_cfg(&cfg, 131072, F_NONE);
	assert_int_equal(
	    sqfs_compressor_config_format(&cfg, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, "hc", err, sizeof(err)), 0);
	assert_int_equal(cfg.opt.lz4.flags, SQFS_LZ4_HC);
	assert_int_equal(
	    sqfs_compressor_config_format(&cfg, text, sizeof(text)), 2);
	assert_string_equal(text, "hc");
	assert_int_equal(sqfs_compressor_config_format(&cfg, text, 2),
			 SQFS_ERROR_OVERFLOW);

	assert_non_null(
	    strstr(sqfs_compressor_options_help(SQFS_COMP_LZ4), "hc"));
}

static void test_bad_options(void **state)
{
	static const struct {
		const char *opts;
		const char *named;
	} cases[] = {
	    {"foo", "foo"},	     {"level=0", "level"},
	    {"level=10", "level"},   {"level=abc", "level"},
	    {"window=16", "window"}, {"level", "level"},
	    {"hc=1", "hc"},	     {"hc,HC", "HC"},
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, F_NONE);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_bad_option(&cfg, cases[i].opts, cases[i].named);

	make_cfg(&cfg, 131072, 0x2);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
}

static void test_corrupt_options(void **state)
{
	static const struct {
		uint8_t len;
		uint8_t bytes[20];
	} cases[] = {
	    /* version 2, version 0 */
	    {10, {0x08, 0x80, 2, 0, 0, 0, 0, 0, 0, 0}},
	    {10, {0x08, 0x80, 0, 0, 0, 0, 0, 0, 0, 0}},
	    {10, {0x08, 0x80, 1, 0, 0, 1, 0, 0, 0, 0}},
	    /* payload of 4, 10 and 16 bytes */
	    {6, {0x04, 0x80, 1, 0, 0, 0}},
	    {12, {0x0a, 0x80, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	    {18, {0x10, 0x80, 1, 0, 0, 0, 0, 0, 0, 0}},
	    /* unknown flags; "level follows" without a level */
	    {10, {0x08, 0x80, 1, 0, 0, 0, 4, 0, 0, 0}},
	    {10, {0x08, 0x80, 1, 0, 0, 0, 0, 0, 0, 0x80}},
	    {10, {0x08, 0x80, 1, 0, 0, 0, 2, 0, 0, 0}},
	    {14, {0x0c, 0x80, 1, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0}},
	    {14, {0x0c, 0x80, 2, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0}},
	    /* "compressed" bit clear */
	    {10, {0x08, 0x00, 1, 0, 0, 0, 0, 0, 0, 0}},
	    /* truncated, or no block at all */
	    {8, {0x08, 0x80, 1, 0, 0, 0, 0, 0}},
	    {0, {0}},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_options_block_gives(SQFS_COMP_LZ4, 131072, 0,
					 cases[i].bytes, cases[i].len,
					 SQFS_ERROR_CORRUPTED);
}

/* The 12-byte block of newer squashfs-tools: the level is ignored. */
static void test_accept_options(void **state)
{
	static const struct {
		uint8_t len;
		uint8_t bytes[14];
		uint32_t flags;
	} cases[] = {
	    {14, {0x0c, 0x80, 1, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0}, F_HC},
	    {14, {0x0c, 0x80, 1, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0}, F_NONE},
	    {14, {0x0c, 0x80, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, F_NONE},
	    {10, {0x08, 0x80, 1, 0, 0, 0, 1, 0, 0, 0}, F_HC},
	    {10, {0x08, 0x80, 1, 0, 0, 0, 0, 0, 0, 0}, F_NONE},
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		assert_int_equal(
		    test_read_options_block(&cfg, SQFS_COMP_LZ4, 131072, 0,
					    cases[i].bytes, cases[i].len),
		    0);
		assert_int_equal(cfg.opt.lz4.flags, cases[i].flags);
	}
}

static void test_bomb(void **state)
{
	sqfs_compressor_t *cmp = create(1048576, F_NONE);

	(void)state;
	test_zeros_bomb(cmp, 8192, 0, 4096, NULL);
	sqfs_compressor_destroy(cmp);
}

static void test_corrupt_streams(void **state)
{
	/* a token for 15+ literals whose length byte is missing, and one
	 * whose literals run past the end of the block */
	static const uint8_t cut_length[] = {0xF0};
	static const uint8_t cut_literals[] = {0x50, 'a', 'b'};
	/* a match reaching back before the start of the output */
	static const uint8_t bad_offset[] = {0x14, 'a', 0x10, 0x00, 0x50,
					     'a',  'b', 'c',  'd',  'e'};
	sqfs_compressor_t *cmp = create(131072, F_NONE);
	uint8_t *in = test_make_data(8192, TEST_DATA_TEXT, 2);
	uint8_t packed[8192], back[8192];
	ptrdiff_t csize, ret;

	(void)state;
	assert_int_equal(sqfs_compressor_uncompress(cmp, cut_length,
						    sizeof(cut_length), back,
						    sizeof(back)),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_compressor_uncompress(cmp, cut_literals,
						    sizeof(cut_literals), back,
						    sizeof(back)),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_compressor_uncompress(cmp, bad_offset,
						    sizeof(bad_offset), back,
						    sizeof(back)),
			 SQFS_ERROR_CORRUPTED);

	csize = sqfs_compressor_compress(cmp, in, 8192, packed, 8192);
	assert_true(csize > 16);

	/* cut short: an error or less output, never more */
	for (ptrdiff_t len = 1; len < csize; len += 1 + len / 4) {
		ret = sqfs_compressor_uncompress(cmp, packed, (size_t)len, back,
						 sizeof(back));
		assert_true(ret < 8192);
	}

	assert_int_equal(sqfs_compressor_uncompress(cmp, packed, (size_t)csize,
						    back, sizeof(back)),
			 8192);
	assert_memory_equal(back, in, 8192);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, packed, (size_t)csize, back, 8191),
	    SQFS_ERROR_CORRUPTED);

	free(in);
	sqfs_compressor_destroy(cmp);
}

static void test_output_bound(void **state)
{
	static const uint32_t flags[] = {F_NONE, F_HC};

	(void)state;
	for (size_t f = 0; f < 2; ++f) {
		sqfs_compressor_t *cmp = create(131072, flags[f]);

		test_compress_bound(cmp, true);
		sqfs_compressor_destroy(cmp);
	}
}

/* HC must actually change the encoding, and beat the fast mode. */
static void test_hc_smaller(void **state)
{
	sqfs_compressor_t *fast = create(131072, F_NONE);
	sqfs_compressor_t *hc = create(131072, F_HC);
	uint8_t *in = test_make_data(131072, TEST_DATA_TEXT, 4);
	uint8_t *out = malloc(131072);
	ptrdiff_t fast_size, hc_size;

	(void)state;
	assert_non_null(out);
	fast_size = sqfs_compressor_compress(fast, in, 131072, out, 131072);
	hc_size = sqfs_compressor_compress(hc, in, 131072, out, 131072);
	assert_true(fast_size > 0);
	assert_true(hc_size > 0);
	assert_true(hc_size < fast_size);

	free(in);
	free(out);
	sqfs_compressor_destroy(hc);
	sqfs_compressor_destroy(fast);
}

static void test_uncompress_only(void **state)
{
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 4096, F_HC);
	test_decoder_only(&cfg, 4096, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_parse_format),
	    cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_corrupt_options),
	    cmocka_unit_test(test_accept_options),
	    cmocka_unit_test(test_bomb),
	    cmocka_unit_test(test_corrupt_streams),
	    cmocka_unit_test(test_output_bound),
	    cmocka_unit_test(test_hc_smaller),
	    cmocka_unit_test(test_uncompress_only),
	    ROUNDTRIP_CASES(LIST_ROUNDTRIP)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

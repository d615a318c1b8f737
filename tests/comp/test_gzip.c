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
#include <zlib.h>

enum {
	S_NONE = 0,
	S_DEFAULT = SQFS_GZIP_DEFAULT,
	S_FILTERED = SQFS_GZIP_FILTERED,
	S_HUFFMAN = SQFS_GZIP_HUFFMAN,
	S_RLE = SQFS_GZIP_RLE,
	S_FIXED = SQFS_GZIP_FIXED,
	S_ALL = SQFS_GZIP_ALL_STRATEGIES,
};

static void make_cfg(sqfs_compressor_config_t *cfg, uint32_t block_size,
		     uint32_t level, uint16_t window, uint16_t strategies)
{
	assert_int_equal(
	    sqfs_compressor_config_init(cfg, SQFS_COMP_GZIP, block_size, 0), 0);
	cfg->opt.gzip.level = level;
	cfg->opt.gzip.window_size = window;
	cfg->opt.gzip.strategies = strategies;
}

/* name: level, window, strategies, block size */
#define ROUNDTRIP_CASES(X)         \
	X(1, 15, S_NONE, 4096)     \
	X(1, 15, S_NONE, 131072)   \
	X(1, 15, S_NONE, 1048576)  \
	X(6, 15, S_NONE, 4096)     \
	X(6, 15, S_NONE, 131072)   \
	X(6, 15, S_NONE, 1048576)  \
	X(9, 15, S_NONE, 4096)     \
	X(9, 15, S_NONE, 131072)   \
	X(9, 15, S_NONE, 1048576)  \
	X(9, 8, S_NONE, 4096)      \
	X(9, 8, S_NONE, 131072)    \
	X(6, 12, S_NONE, 4096)     \
	X(6, 12, S_NONE, 131072)   \
	X(9, 15, S_DEFAULT, 4096)  \
	X(9, 15, S_FILTERED, 4096) \
	X(9, 15, S_HUFFMAN, 4096)  \
	X(9, 15, S_RLE, 4096)      \
	X(9, 15, S_FIXED, 4096)    \
	X(9, 15, S_FIXED, 131072)  \
	X(9, 15, S_ALL, 4096)      \
	X(9, 15, S_ALL, 131072)

#define DEFINE_ROUNDTRIP(level, window, strat, bs)                        \
	static void test_roundtrip_l##level##_w##window##_##strat##_##bs( \
	    void **state)                                                 \
	{                                                                 \
		sqfs_compressor_config_t cfg;                             \
		(void)state;                                              \
		make_cfg(&cfg, bs, level, window, strat);                 \
		test_compressor_roundtrip(&cfg);                          \
	}
ROUNDTRIP_CASES(DEFINE_ROUNDTRIP)

#define LIST_ROUNDTRIP(level, window, strat, bs) \
	cmocka_unit_test(test_roundtrip_l##level##_w##window##_##strat##_##bs),

static void test_options_default(void **state)
{
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, 9, 15, 0);
	assert_int_equal(test_options_roundtrip(&cfg), 0);
}

static void test_options_nondefault(void **state)
{
	static const struct {
		uint32_t level;
		uint16_t window, strategies;
	} cases[] = {
	    {5, 12, S_FILTERED | S_RLE}, {1, 15, 0},	 {9, 8, 0},
	    {9, 15, S_DEFAULT},		 {9, 15, S_ALL},
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		make_cfg(&cfg, 65536, cases[i].level, cases[i].window,
			 cases[i].strategies);
		assert_int_equal(test_options_roundtrip(&cfg), 10);
	}
}

/* The bytes mksquashfs writes for level 5, window 12, filtered + RLE. */
static void test_options_bytes(void **state)
{
	static const uint8_t expect[] = {0x08, 0x80, 0x05, 0x00, 0x00,
					 0x00, 0x0c, 0x00, 0x0a, 0x00};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, 5, 12, S_FILTERED | S_RLE);
	test_options_written(&cfg, expect, sizeof(expect));
}

static void test_parse_format(void **state)
{
	static const char *const inputs[] = {
	    "",
	    "level=1",
	    "window=8,huffman",
	    "level=5,window=12,filtered,rle",
	    "default,filtered,huffman,rle,fixed",
	    "fixed,level=3",
	};
	sqfs_compressor_config_t cfg, start;
	char text[128], err[128];

	(void)state;
	make_cfg(&start, 131072, 9, 15, 0);
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); ++i) {
		test_config_parse(&cfg, SQFS_COMP_GZIP, 131072, inputs[i]);
		assert_true(test_format_reparse(&cfg, &start) > 0);
	}

	make_cfg(&cfg, 131072, 9, 15, 0);
	assert_int_equal(
	    sqfs_compressor_config_format(&cfg, text, sizeof(text)),
	    (int)strlen("level=9,window=15"));
	assert_string_equal(text, "level=9,window=15");

	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, "level=5,window=12,filtered,rle",
					 err, sizeof(err)),
	    0);
	assert_int_equal(cfg.opt.gzip.level, 5);
	assert_int_equal(cfg.opt.gzip.window_size, 12);
	assert_int_equal(cfg.opt.gzip.strategies, S_FILTERED | S_RLE);
	sqfs_compressor_config_format(&cfg, text, sizeof(text));
	assert_string_equal(text, "level=5,window=12,filtered,rle");

	/* options not named keep their value */
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, "huffman", err, sizeof(err)), 0);
	assert_int_equal(cfg.opt.gzip.level, 5);
	assert_int_equal(cfg.opt.gzip.strategies,
			 S_FILTERED | S_RLE | S_HUFFMAN);

	/* too small a buffer */
	assert_int_equal(sqfs_compressor_config_format(&cfg, text, 10),
			 SQFS_ERROR_OVERFLOW);
	assert_int_equal(sqfs_compressor_config_format(&cfg, text, 30),
			 SQFS_ERROR_OVERFLOW);

	assert_non_null(sqfs_compressor_options_help(SQFS_COMP_GZIP));
	assert_non_null(strstr(sqfs_compressor_options_help(SQFS_COMP_GZIP),
			       "level=<1..9>"));
}

static void test_bad_options(void **state)
{
	static const struct {
		const char *opts;
		const char *named;
	} cases[] = {
	    {"foo", "foo"},
	    {"level=0", "level"},
	    {"level=10", "level"},
	    {"level=abc", "level"},
	    {"window=16", "window"},
	    {"window=7", "window"},
	    {"level", "level"},
	    {"level=", "level"},
	    {"filtered=1", "filtered"},
	    {"level=5,bogus", "bogus"},
	    {"level=-1", "level"},
	    {"level=99999999999", "level"},
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, 9, 15, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_bad_option(&cfg, cases[i].opts, cases[i].named);

	/* validate catches what a caller set directly */
	make_cfg(&cfg, 131072, 0, 15, 0);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, 9, 16, 0);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, 9, 15, 0x20);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, 9, 15, 0x20);
	test_create_fails(&cfg, SQFS_ERROR_ARG_INVALID);
}

static void test_corrupt_options(void **state)
{
	static const struct {
		uint8_t len;
		uint8_t bytes[20];
	} cases[] = {
	    /* payload of 6 and 10 bytes */
	    {8, {0x06, 0x80, 9, 0, 0, 0, 15, 0}},
	    {12, {0x0a, 0x80, 9, 0, 0, 0, 15, 0, 0, 0, 0, 0}},
	    /* level 0, level 10 */
	    {10, {0x08, 0x80, 0, 0, 0, 0, 15, 0, 0, 0}},
	    {10, {0x08, 0x80, 10, 0, 0, 0, 15, 0, 0, 0}},
	    {10, {0x08, 0x80, 9, 0, 0, 1, 15, 0, 0, 0}},
	    /* window 7, window 16 */
	    {10, {0x08, 0x80, 9, 0, 0, 0, 7, 0, 0, 0}},
	    {10, {0x08, 0x80, 9, 0, 0, 0, 16, 0, 0, 0}},
	    {10, {0x08, 0x80, 9, 0, 0, 0, 15, 1, 0, 0}},
	    /* unknown strategy bits */
	    {10, {0x08, 0x80, 9, 0, 0, 0, 15, 0, 0x20, 0}},
	    {10, {0x08, 0x80, 9, 0, 0, 0, 15, 0, 0, 0x80}},
	    /* "compressed" bit clear */
	    {10, {0x08, 0x00, 9, 0, 0, 0, 15, 0, 0, 0}},
	    /* empty payload */
	    {2, {0x00, 0x80}},
	    /* truncated: header says 8, file ends after 4 */
	    {6, {0x08, 0x80, 9, 0, 0, 0}},
	    /* header itself cut off */
	    {1, {0x08}},
	    {0, {0}},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_options_block_gives(SQFS_COMP_GZIP, 131072, 0,
					 cases[i].bytes, cases[i].len,
					 SQFS_ERROR_CORRUPTED);
}

static void test_accept_options(void **state)
{
	static const uint8_t only_default[] = {0x08, 0x80, 9, 0, 0,
					       0,    15,   0, 1, 0};
	static const uint8_t small[] = {0x08, 0x80, 1, 0, 0, 0, 8, 0, 0x1f, 0};
	sqfs_compressor_config_t cfg;

	(void)state;
	/* other writers store the default strategy bit explicitly */
	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_GZIP, 131072,
						 0, only_default,
						 sizeof(only_default)),
			 0);
	assert_int_equal(cfg.opt.gzip.level, 9);
	assert_int_equal(cfg.opt.gzip.window_size, 15);
	assert_int_equal(cfg.opt.gzip.strategies, S_DEFAULT);

	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_GZIP, 131072,
						 0, small, sizeof(small)),
			 0);
	assert_int_equal(cfg.opt.gzip.level, 1);
	assert_int_equal(cfg.opt.gzip.window_size, 8);
	assert_int_equal(cfg.opt.gzip.strategies, S_ALL);
}

static sqfs_compressor_t *create(uint32_t block_size, uint32_t level,
				 uint16_t window, uint16_t strategies)
{
	sqfs_compressor_config_t cfg;

	make_cfg(&cfg, block_size, level, window, strategies);
	return test_create_compressor(&cfg);
}

static void test_bomb(void **state)
{
	sqfs_compressor_t *cmp = create(1048576, 9, 15, 0);

	(void)state;
	test_zeros_bomb(cmp, 4096, SQFS_ERROR_OVERFLOW, 4096, NULL);
	sqfs_compressor_destroy(cmp);
}

static void test_corrupt_streams(void **state)
{
	/* a stored block in a stream with a 256-byte window (CINFO 0) */
	static const uint8_t hello[] = {0x08, 0x1d, 0x01, 0x05, 0x00, 0xfa,
					0xff, 'h',  'e',  'l',	'l',  'o',
					0x06, 0x2c, 0x02, 0x15};
	static const uint8_t garbage[] = {0x12, 0x34, 0x56, 0x78, 0x9a};
	sqfs_compressor_t *cmp = create(131072, 9, 15, 0);
	uint8_t buf[64], bad[sizeof(hello) + 1];

	(void)state;
	test_decode_fits(cmp, hello, sizeof(hello), buf, sizeof(buf), 5);
	assert_memory_equal(buf, "hello", 5);

	/* wrong checksum */
	memcpy(bad, hello, sizeof(hello));
	bad[sizeof(hello) - 1] ^= 1;
	assert_int_equal(sqfs_compressor_uncompress(cmp, bad, sizeof(hello),
						    buf, sizeof(buf)),
			 SQFS_ERROR_CORRUPTED);

	/* stream cut anywhere */
	for (size_t len = 1; len < sizeof(hello); ++len) {
		assert_int_equal(sqfs_compressor_uncompress(cmp, hello, len,
							    buf, sizeof(buf)),
				 SQFS_ERROR_CORRUPTED);
	}

	/* bytes after the end of the stream */
	memcpy(bad, hello, sizeof(hello));
	bad[sizeof(hello)] = 0;
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, bad, sizeof(bad), buf, sizeof(buf)),
	    SQFS_ERROR_CORRUPTED);

	assert_int_equal(sqfs_compressor_uncompress(
			     cmp, garbage, sizeof(garbage), buf, sizeof(buf)),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, garbage, 0, buf, sizeof(buf)),
	    SQFS_ERROR_CORRUPTED);

	/* the stream state must survive failures */
	assert_int_equal(sqfs_compressor_uncompress(cmp, hello, sizeof(hello),
						    buf, sizeof(buf)),
			 5);
	sqfs_compressor_destroy(cmp);
}

static void test_stream_header(void **state)
{
	static const uint16_t windows[] = {8, 9, 12, 15};
	uint8_t *in = test_make_data(8192, TEST_DATA_TEXT, 7);
	uint8_t out[8192];

	(void)state;
	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); ++i) {
		sqfs_compressor_t *cmp = create(4096, 9, windows[i], 0);
		unsigned expect = windows[i] == 8 ? 1 : windows[i] - 8u;
		ptrdiff_t csize;

		csize =
		    sqfs_compressor_compress(cmp, in, 8192, out, sizeof(out));
		assert_true(csize > 2);
		/* zlib, deflate, window as asked (zlib turns 8 into 9) */
		assert_int_equal(out[0] & 0x0F, 8);
		assert_int_equal(out[0] >> 4, expect);
		assert_int_equal(((out[0] << 8) | out[1]) % 31, 0);
		sqfs_compressor_destroy(cmp);
	}
	free(in);
}

static void test_output_bound(void **state)
{
	sqfs_compressor_t *cmp = create(131072, 9, 15, S_ALL);

	(void)state;
	test_compress_bound(cmp, false);
	sqfs_compressor_destroy(cmp);
}

/* Several strategies: the smallest single result wins, the first in bit
 * order on a tie. */
static void test_strategy_choice(void **state)
{
	static const uint16_t single[] = {S_DEFAULT, S_FILTERED, S_HUFFMAN,
					  S_RLE, S_FIXED};
	const size_t size = 65536;
	uint8_t *out = malloc(size), *best = malloc(size);

	(void)state;
	assert_non_null(out);
	assert_non_null(best);

	for (int kind = TEST_DATA_ZEROS; kind < TEST_DATA_KIND_COUNT; ++kind) {
		uint8_t *in = test_make_data(size, (test_data_kind_t)kind, 5);
		sqfs_compressor_t *all = create(size, 6, 15, S_ALL);
		ptrdiff_t best_size = 0, got;

		for (size_t i = 0; i < 5; ++i) {
			sqfs_compressor_t *one = create(size, 6, 15, single[i]);

			got =
			    sqfs_compressor_compress(one, in, size, out, size);
			assert_true(got >= 0);
			if (got > 0 && (best_size == 0 || got < best_size)) {
				best_size = got;
				memcpy(best, out, (size_t)got);
			}
			sqfs_compressor_destroy(one);
		}

		got = sqfs_compressor_compress(all, in, size, out, size);
		assert_int_equal(got, best_size);
		if (got > 0)
			assert_memory_equal(out, best, (size_t)got);

		sqfs_compressor_destroy(all);
		free(in);
	}
	free(out);
	free(best);
}

/*
 * Whichever library makes and decodes the streams here (zlib, or
 * libdeflate where configured), they are plain zlib streams: zlib itself,
 * as the kernel and unsquashfs use it, must decode ours, and ours must
 * decode zlib's, at every level and for every kind of data.
 */
static void test_zlib_interop(void **state)
{
	static const uint32_t levels[] = {1, 6, 9};
	const size_t size = 131072;
	uint8_t *packed = malloc(size), *back = malloc(size);

	(void)state;
	assert_non_null(packed);
	assert_non_null(back);

	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); ++l) {
		sqfs_compressor_t *cmp = create(size, levels[l], 15, 0);

		for (int kind = TEST_DATA_RANDOM; kind < TEST_DATA_KIND_COUNT;
		     ++kind) {
			uint8_t *in = test_make_data(
			    size, (test_data_kind_t)kind, 11 + (uint32_t)l);
			uLongf zlen = (uLongf)size;
			ptrdiff_t csize;

			csize = sqfs_compressor_compress(cmp, in, size, packed,
							 size);
			assert_true(csize >= 0);
			if (csize > 0) {
				memset(back, 0, size);
				assert_int_equal(uncompress(back, &zlen, packed,
							    (uLong)csize),
						 Z_OK);
				assert_int_equal(zlen, size);
				assert_memory_equal(back, in, size);
			} else {
				assert_int_equal(kind, TEST_DATA_RANDOM);
			}

			zlen = (uLongf)size;
			if (compress2(packed, &zlen, in, (uLong)size,
				      (int)levels[l]) == Z_OK) {
				memset(back, 0, size);
				assert_int_equal(
				    sqfs_compressor_uncompress(
					cmp, packed, (size_t)zlen, back, size),
				    (ptrdiff_t)size);
				assert_memory_equal(back, in, size);
			}
			free(in);
		}
		sqfs_compressor_destroy(cmp);
	}
	free(packed);
	free(back);
}

static void test_uncompress_only(void **state)
{
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 4096, 9, 15, S_ALL);
	test_decoder_only(&cfg, 4096, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_options_default),
	    cmocka_unit_test(test_options_nondefault),
	    cmocka_unit_test(test_options_bytes),
	    cmocka_unit_test(test_parse_format),
	    cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_corrupt_options),
	    cmocka_unit_test(test_accept_options),
	    cmocka_unit_test(test_bomb),
	    cmocka_unit_test(test_corrupt_streams),
	    cmocka_unit_test(test_stream_header),
	    cmocka_unit_test(test_output_bound),
	    cmocka_unit_test(test_strategy_choice),
	    cmocka_unit_test(test_uncompress_only),
	    cmocka_unit_test(test_zlib_interop),
	    ROUNDTRIP_CASES(LIST_ROUNDTRIP)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

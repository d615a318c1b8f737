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

static void make_cfg(sqfs_compressor_config_t *cfg, uint32_t block_size,
		     uint32_t level)
{
	assert_int_equal(
	    sqfs_compressor_config_init(cfg, SQFS_COMP_ZSTD, block_size, 0), 0);
	cfg->opt.zstd.level = level;
}

static sqfs_compressor_t *create(uint32_t block_size, uint32_t level)
{
	sqfs_compressor_config_t cfg;

	make_cfg(&cfg, block_size, level);
	return test_create_compressor(&cfg);
}

/* level, block size; level 22 is slow, so not at 1 MiB */
#define ROUNDTRIP_CASES(X) \
	X(1, 4096)         \
	X(1, 131072)       \
	X(1, 1048576)      \
	X(3, 4096)         \
	X(3, 131072)       \
	X(3, 1048576)      \
	X(15, 4096)        \
	X(15, 131072)      \
	X(15, 1048576)     \
	X(22, 4096)        \
	X(22, 131072)

#define DEFINE_ROUNDTRIP(level, bs)                              \
	static void test_roundtrip_l##level##_##bs(void **state) \
	{                                                        \
		sqfs_compressor_config_t cfg;                    \
		(void)state;                                     \
		make_cfg(&cfg, bs, level);                       \
		test_compressor_roundtrip(&cfg);                 \
	}
ROUNDTRIP_CASES(DEFINE_ROUNDTRIP)

#define LIST_ROUNDTRIP(level, bs) \
	cmocka_unit_test(test_roundtrip_l##level##_##bs),

static void test_options(void **state)
{
	static const uint8_t expect[] = {0x04, 0x80, 0x03, 0x00, 0x00, 0x00};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, 15);
	assert_int_equal(test_options_roundtrip(&cfg), 0);

	make_cfg(&cfg, 131072, 1);
	assert_int_equal(test_options_roundtrip(&cfg), 6);
	make_cfg(&cfg, 4096, 22);
	assert_int_equal(test_options_roundtrip(&cfg), 6);
	make_cfg(&cfg, 1048576, 14);
	assert_int_equal(test_options_roundtrip(&cfg), 6);

	/* the bytes mksquashfs writes for -Xcompression-level 3 */
	make_cfg(&cfg, 131072, 3);
	test_options_written(&cfg, expect, sizeof(expect));
}

static void test_parse_format(void **state)
{
	static const char *const inputs[] = {"", "level=1", "level=22",
					     "level=7,level=15"};
	sqfs_compressor_config_t cfg, start;
	char text[64], err[128];

	(void)state;
	/* the text must name the level even where it is the default */
	make_cfg(&start, 131072, 2);
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); ++i) {
		test_config_parse(&cfg, SQFS_COMP_ZSTD, 131072, inputs[i]);
		assert_true(test_format_reparse(&cfg, &start) > 0);
	}

	make_cfg(&cfg, 131072, 15);
	sqfs_compressor_config_format(&cfg, text, sizeof(text));
	assert_string_equal(text, "level=15");
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, "level=4", err, sizeof(err)), 0);
	assert_int_equal(cfg.opt.zstd.level, 4);
	sqfs_compressor_config_format(&cfg, text, sizeof(text));
	assert_string_equal(text, "level=4");
	assert_int_equal(sqfs_compressor_config_format(&cfg, text, 7),
			 SQFS_ERROR_OVERFLOW);

	assert_non_null(strstr(sqfs_compressor_options_help(SQFS_COMP_ZSTD),
			       "level=<1..22>"));
}

static void test_bad_options(void **state)
{
	static const struct {
		const char *opts;
		const char *named;
	} cases[] = {
	    {"foo", "foo"},	     {"level=0", "level"},
	    {"level=23", "level"},   {"level=abc", "level"},
	    {"window=16", "window"}, {"level", "level"},
	    {"level=", "level"},     {"level=3,hc", "hc"},
	    {"level=3x", "level"},
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, 15);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_bad_option(&cfg, cases[i].opts, cases[i].named);

	make_cfg(&cfg, 131072, 0);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, 23);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
}

static void test_corrupt_options(void **state)
{
	static const struct {
		uint8_t len;
		uint8_t bytes[12];
	} cases[] = {
	    {4, {0x02, 0x80, 3, 0}},
	    {10, {0x08, 0x80, 3, 0, 0, 0, 0, 0, 0, 0}},
	    {6, {0x04, 0x80, 0, 0, 0, 0}},
	    {6, {0x04, 0x80, 23, 0, 0, 0}},
	    {6, {0x04, 0x80, 3, 0, 1, 0}},
	    {6, {0x04, 0x80, 0xff, 0xff, 0xff, 0xff}},
	    {6, {0x04, 0x00, 3, 0, 0, 0}},
	    {4, {0x04, 0x80, 3, 0}},
	    {0, {0}},
	};
	static const uint8_t good[] = {0x04, 0x80, 22, 0, 0, 0};
	sqfs_compressor_config_t cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_options_block_gives(SQFS_COMP_ZSTD, 131072, 0,
					 cases[i].bytes, cases[i].len,
					 SQFS_ERROR_CORRUPTED);

	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_ZSTD, 131072,
						 0, good, sizeof(good)),
			 0);
	assert_int_equal(cfg.opt.zstd.level, 22);
}

static void test_bomb(void **state)
{
	sqfs_compressor_t *cmp = create(1048576, 15);

	(void)state;
	/* the frame header states the size: nothing may be written at all */
	test_zeros_bomb(cmp, 4096, SQFS_ERROR_OVERFLOW, 0, NULL);
	sqfs_compressor_destroy(cmp);
}

/* Window size and content size from a frame header (RFC 8878, 3.1.1.1). */
static void parse_frame_header(const uint8_t *frame, size_t size,
			       uint64_t *window, uint64_t *content)
{
	static const size_t fcs_bytes[4] = {0, 2, 4, 8};
	static const size_t did_bytes[4] = {0, 1, 2, 4};
	size_t pos = 5, fcs_len;
	uint8_t fhd;
	bool single;

	assert_true(size >= 6);
	assert_int_equal(frame[0], 0x28);
	assert_int_equal(frame[1], 0xb5);
	assert_int_equal(frame[2], 0x2f);
	assert_int_equal(frame[3], 0xfd);

	fhd = frame[4];
	single = (fhd & 0x20) != 0;
	fcs_len = fcs_bytes[fhd >> 6];
	if (single && fcs_len == 0)
		fcs_len = 1;
	/* the content size must be there */
	assert_true(fcs_len > 0);

	*window = 0;
	if (!single) {
		uint8_t wd = frame[pos++];
		uint64_t base = UINT64_C(1) << (10 + (wd >> 3));

		*window = base + (base / 8) * (wd & 7);
	}
	pos += did_bytes[fhd & 3];
	assert_true(pos + fcs_len <= size);

	*content = 0;
	for (size_t i = 0; i < fcs_len; ++i)
		*content |= (uint64_t)frame[pos + i] << (8 * i);
	if (fcs_len == 2)
		*content += 256;
	if (single)
		*window = *content;
}

static void test_frame_header(void **state)
{
	static const struct {
		uint32_t block_size, level;
		size_t input;
	} cases[] = {
	    {4096, 1, 4096},	    {4096, 22, 8192},	{4096, 15, 1000},
	    {131072, 19, 131072},   {131072, 3, 300},	{1048576, 1, 1048576},
	    {1048576, 15, 1048576}, {65536, 22, 65536},
	};
	uint8_t *in = test_make_data(1048576, TEST_DATA_TEXT, 11);
	uint8_t *out = malloc(1048576);

	(void)state;
	assert_non_null(out);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		sqfs_compressor_t *cmp =
		    create(cases[i].block_size, cases[i].level);
		uint64_t limit =
		    cases[i].block_size > 8192 ? cases[i].block_size : 8192;
		uint64_t window, content;
		ptrdiff_t csize;

		csize = sqfs_compressor_compress(cmp, in, cases[i].input, out,
						 cases[i].input);
		assert_true(csize > 0);
		parse_frame_header(out, (size_t)csize, &window, &content);
		assert_int_equal(content, cases[i].input);
		if (window > limit)
			fail_msg("case %zu: window %llu over %llu", i,
				 (unsigned long long)window,
				 (unsigned long long)limit);
		sqfs_compressor_destroy(cmp);
	}
	free(in);
	free(out);
}

static void test_corrupt_streams(void **state)
{
	static const uint8_t garbage[] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc};
	sqfs_compressor_t *cmp = create(131072, 3);
	uint8_t *in = test_make_data(8192, TEST_DATA_TEXT, 2);
	uint8_t packed[2 * 8192], back[8192 + 64];
	ptrdiff_t csize, ret;

	(void)state;
	csize = sqfs_compressor_compress(cmp, in, 8192, packed, 8192);
	assert_true(csize > 8 && csize < 4096);

	assert_int_equal(sqfs_compressor_uncompress(
			     cmp, garbage, sizeof(garbage), back, sizeof(back)),
			 SQFS_ERROR_CORRUPTED);

	/* truncated anywhere */
	for (ptrdiff_t len = 1; len < csize; len += 1 + len / 4) {
		ret = sqfs_compressor_uncompress(cmp, packed, (size_t)len, back,
						 sizeof(back));
		if (ret != SQFS_ERROR_CORRUPTED)
			fail_msg("cut at %td: got %td", len, ret);
	}

	/* a second frame or stray bytes after the first */
	memcpy(packed + csize, packed, (size_t)csize);
	assert_int_equal(sqfs_compressor_uncompress(cmp, packed,
						    2 * (size_t)csize, back,
						    sizeof(back)),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(sqfs_compressor_uncompress(cmp, packed,
						    (size_t)csize + 1, back,
						    sizeof(back)),
			 SQFS_ERROR_CORRUPTED);

	/* the frame claims more than the buffer holds */
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, packed, (size_t)csize, back, 8191),
	    SQFS_ERROR_OVERFLOW);

	/* still works after all that */
	assert_int_equal(sqfs_compressor_uncompress(cmp, packed, (size_t)csize,
						    back, sizeof(back)),
			 8192);
	assert_memory_equal(back, in, 8192);

	free(in);
	sqfs_compressor_destroy(cmp);
}

static void test_output_bound(void **state)
{
	sqfs_compressor_t *cmp = create(131072, 15);

	(void)state;
	test_compress_bound(cmp, false);
	sqfs_compressor_destroy(cmp);
}

static void test_uncompress_only(void **state)
{
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 4096, 15);
	test_decoder_only(&cfg, 4096, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_parse_format),
	    cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_corrupt_options),
	    cmocka_unit_test(test_bomb),
	    cmocka_unit_test(test_frame_header),
	    cmocka_unit_test(test_corrupt_streams),
	    cmocka_unit_test(test_output_bound),
	    cmocka_unit_test(test_uncompress_only),
	    ROUNDTRIP_CASES(LIST_ROUNDTRIP)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

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
	sqfs_compressor_t *cmp = NULL;

	make_cfg(&cfg, block_size, level);
	assert_int_equal(sqfs_compressor_create(&cfg, &cmp), 0);
	assert_non_null(cmp);
	return cmp;
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
	sqfs_file_t *file = NULL;
	const uint8_t *data;
	size_t size;

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
	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	assert_int_equal(sqfs_compressor_config_write_options(&cfg, file), 6);
	data = sqfs_file_memory_data(file, &size);
	assert_int_equal(size, SQFS_SUPER_SIZE + sizeof(expect));
	assert_memory_equal(data + SQFS_SUPER_SIZE, expect, sizeof(expect));
	sqfs_file_destroy(file);
}

static void test_parse_format(void **state)
{
	static const char *const inputs[] = {"", "level=1", "level=22",
					     "level=7,level=15"};
	sqfs_compressor_config_t cfg, again;
	char text[64], err[128];
	int len;

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); ++i) {
		make_cfg(&cfg, 131072, 15);
		assert_int_equal(sqfs_compressor_config_parse(&cfg, inputs[i],
							      err, sizeof(err)),
				 0);
		len = sqfs_compressor_config_format(&cfg, text, sizeof(text));
		assert_true(len > 0);
		assert_int_equal((size_t)len, strlen(text));

		make_cfg(&again, 131072, 15);
		again.opt.zstd.level = 2;
		assert_int_equal(sqfs_compressor_config_parse(&again, text, err,
							      sizeof(err)),
				 0);
		assert_memory_equal(&cfg, &again, sizeof(cfg));
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
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		make_cfg(&cfg, 131072, 15);
		err[0] = '\0';
		assert_int_equal(sqfs_compressor_config_parse(
				     &cfg, cases[i].opts, err, sizeof(err)),
				 SQFS_ERROR_ARG_INVALID);
		if (strstr(err, cases[i].named) == NULL)
			fail_msg("'%s': message '%s' does not name '%s'",
				 cases[i].opts, err, cases[i].named);
	}

	make_cfg(&cfg, 131072, 0);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, 23);
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
}

/* Read an options block (2-byte header + payload) placed at offset 96. */
static int read_block(sqfs_compressor_config_t *cfg, const uint8_t *block,
		      size_t len)
{
	uint8_t image[SQFS_SUPER_SIZE + 32];
	sqfs_file_t *file = NULL;
	int ret;

	assert_true(len <= sizeof(image) - SQFS_SUPER_SIZE);
	memset(image, 0, SQFS_SUPER_SIZE);
	memcpy(image + SQFS_SUPER_SIZE, block, len);

	make_cfg(cfg, 131072, 15);
	assert_int_equal(sqfs_file_open_memory(&file, image,
					       SQFS_SUPER_SIZE + len,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	ret = sqfs_compressor_config_read_options(cfg, file);
	sqfs_file_destroy(file);
	return ret;
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
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		int ret = read_block(&cfg, cases[i].bytes, cases[i].len);

		if (ret != SQFS_ERROR_CORRUPTED)
			fail_msg("case %zu: got %d", i, ret);
	}

	assert_int_equal(read_block(&cfg, good, sizeof(good)), 0);
	assert_int_equal(cfg.opt.zstd.level, 22);
}

static void test_bomb(void **state)
{
	const size_t big = 1048576, small = 4096, guard = 64;
	sqfs_compressor_t *cmp = create(1048576, 15);
	uint8_t *in = test_make_data(big, TEST_DATA_ZEROS, 1);
	uint8_t *packed = malloc(big);
	uint8_t *out = malloc(small + guard);
	ptrdiff_t csize, ret;

	(void)state;
	assert_non_null(packed);
	assert_non_null(out);

	csize = sqfs_compressor_compress(cmp, in, big, packed, big);
	assert_true(csize > 0 && csize < 4096);

	memset(out, 0xAA, small + guard);
	ret =
	    sqfs_compressor_uncompress(cmp, packed, (size_t)csize, out, small);
	assert_int_equal(ret, SQFS_ERROR_OVERFLOW);
	for (size_t i = 0; i < small + guard; ++i)
		assert_int_equal(out[i], 0xAA);

	free(in);
	free(packed);
	free(out);
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
	uint8_t *in = test_make_data(131072, TEST_DATA_TEXT, 3);
	uint8_t *out = malloc(131072 + 64);
	ptrdiff_t csize;

	(void)state;
	assert_non_null(out);

	csize = sqfs_compressor_compress(cmp, in, 131072, out, 131072);
	assert_true(csize > 0);

	memset(out, 0xAA, 131072 + 64);
	assert_int_equal(
	    sqfs_compressor_compress(cmp, in, 131072, out, (size_t)csize),
	    csize);
	memset(out, 0xAA, 131072 + 64);
	assert_int_equal(
	    sqfs_compressor_compress(cmp, in, 131072, out, (size_t)csize - 1),
	    0);
	for (size_t i = (size_t)csize - 1; i < 131072 + 64; ++i)
		assert_int_equal(out[i], 0xAA);
	assert_int_equal(sqfs_compressor_compress(cmp, in, 131072, out, 0), 0);
	assert_int_equal(sqfs_compressor_compress(cmp, in, 1, out, 131072), 0);

	free(in);
	free(out);
	sqfs_compressor_destroy(cmp);
}

static void test_uncompress_only(void **state)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *enc = create(4096, 15);
	sqfs_compressor_t *dec = NULL, *copy = NULL;
	uint8_t *in = test_make_data(4096, TEST_DATA_TEXT, 9);
	uint8_t packed[4096], back[4096];
	ptrdiff_t csize;

	(void)state;
	assert_int_equal(sqfs_compressor_config_init(&cfg, SQFS_COMP_ZSTD, 4096,
						     SQFS_COMP_FLAG_UNCOMPRESS),
			 0);
	assert_int_equal(sqfs_compressor_create(&cfg, &dec), 0);
	assert_int_equal(sqfs_compressor_copy(dec, &copy), 0);

	csize = sqfs_compressor_compress(enc, in, 4096, packed, 4096);
	assert_true(csize > 0);
	assert_int_equal(sqfs_compressor_compress(dec, in, 4096, back, 4096),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(
	    sqfs_compressor_uncompress(dec, packed, (size_t)csize, back, 4096),
	    4096);
	assert_memory_equal(in, back, 4096);
	assert_int_equal(
	    sqfs_compressor_uncompress(copy, packed, (size_t)csize, back, 4096),
	    4096);

	free(in);
	sqfs_compressor_destroy(copy);
	sqfs_compressor_destroy(dec);
	sqfs_compressor_destroy(enc);
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

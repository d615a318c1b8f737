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

static void make_cfg(sqfs_compressor_config_t *cfg, uint32_t block_size,
		     const char *options)
{
	test_config_parse(cfg, SQFS_COMP_LZMA, block_size, options);
}

static void roundtrip(uint32_t block_size, const char *options)
{
	test_compressor_roundtrip_parsed(SQFS_COMP_LZMA, block_size, options);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

/* The uncompressed-size field of an lzma header. */
static void set_size(uint8_t *hdr, uint64_t size)
{
	for (int i = 0; i < 8; ++i)
		hdr[5 + i] = (uint8_t)(size >> (8 * i));
}

static void test_defaults(void **state)
{
	sqfs_compressor_config_t cfg;
	const char *help;
	char buf[256];

	(void)state;
	assert_int_equal(
	    sqfs_compressor_config_init(&cfg, SQFS_COMP_LZMA, 65536, 0), 0);
	test_assert_defaults(&cfg, 65536);
	assert_int_equal(sqfs_compressor_config_validate(&cfg), 0);

	assert_true(sqfs_compressor_config_format(&cfg, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "dictsize=65536,level=5,lc=3,lp=0,pb=2");

	help = sqfs_compressor_options_help(SQFS_COMP_LZMA);
	assert_non_null(help);
	assert_non_null(strstr(help, "level=0..9"));
	assert_non_null(strstr(help, "default 5"));
	assert_null(strstr(help, "x86"));
}

static void test_roundtrip_level0_1m(void **state)
{
	(void)state;
	roundtrip(1048576, "level=0");
}

static void test_roundtrip_level5(void **state)
{
	(void)state;
	roundtrip(131072, NULL);
	/* 8 KiB metadata blocks with the 4 KiB default dictionary */
	roundtrip(4096, NULL);
}

static void test_roundtrip_level9(void **state)
{
	(void)state;
	roundtrip(4096, "level=9");
	roundtrip(4096, "level=9,extreme");
	roundtrip(32768, "level=1,dictsize=12K,lc=0,lp=4,pb=4");
	roundtrip(16384, "level=1,dictsize=50%,lc=4,pb=0");
}

static size_t compress_text(sqfs_compressor_t *cmp, size_t size, uint8_t *out)
{
	uint8_t *in = test_make_data(size, TEST_DATA_TEXT, 3);
	ptrdiff_t ret = sqfs_compressor_compress(cmp, in, size, out, size);

	assert_true(ret > 13);
	free(in);
	return (size_t)ret;
}

static void test_header(void **state)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;
	uint8_t *out = malloc(131072);
	uint8_t *back = malloc(131072);
	uint8_t *in = test_make_data(100000, TEST_DATA_TEXT, 3);
	size_t size;

	(void)state;
	assert_non_null(out);
	assert_non_null(back);

	/* properties byte (pb * 5 + lp) * 9 + lc, dictionary size, and the
	 * real uncompressed size where the encoder writes "unknown" */
	make_cfg(&cfg, 131072, "lc=1,lp=2,pb=1,dictsize=48K");
	assert_int_equal(sqfs_compressor_create(&cfg, &cmp), 0);
	size = compress_text(cmp, 100000, out);
	assert_int_equal(out[0], (1 * 5 + 2) * 9 + 1);
	assert_int_equal(le32(out + 1), 49152);
	assert_int_equal(le32(out + 5), 100000);
	assert_int_equal(le32(out + 9), 0);

	/* unknown size: the decoder runs to the end marker */
	memset(out + 5, 0xff, 8);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, out, size, back, 131072), 100000);
	assert_memory_equal(back, in, 100000);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, out, size, back, 99999),
	    SQFS_ERROR_OVERFLOW);

	/* a size larger than the buffer is refused before decoding */
	set_size(out, 100000);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, out, size, back, 100000), 100000);
	set_size(out, 100001);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, out, size, back, 100000),
	    SQFS_ERROR_OVERFLOW);
	set_size(out, 0xeeeeeeeeeeeeeeeeull);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, out, size, back, 131072),
	    SQFS_ERROR_OVERFLOW);

	/* shorter than a header, or nothing after it */
	assert_int_equal(sqfs_compressor_uncompress(cmp, out, 12, back, 131072),
			 SQFS_ERROR_CORRUPTED);
	set_size(out, 100000);
	assert_int_equal(sqfs_compressor_uncompress(cmp, out, 13, back, 131072),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, out, size - 50, back, 131072),
	    SQFS_ERROR_CORRUPTED);

	/* a dictionary far beyond the memory limit */
	out[4] = 0xff;
	assert_true(sqfs_compressor_uncompress(cmp, out, size, back, 131072) <
		    0);

	sqfs_compressor_destroy(cmp);
	free(in);
	free(out);
	free(back);
}

static void test_tool_block(void **state)
{
	/* the first inode-table block of an image mksquashfs 4.5.1 wrote
	 * with -comp lzma: the header holds the real size (100) */
	static const uint8_t block[] = {
	    0x5d, 0x00, 0x20, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x14, 0xb5, 0xe9, 0x26,
	    0xa4, 0x6b, 0x7c, 0x9d, 0xf2, 0x88, 0x52, 0xac, 0x2d, 0x21,
	    0x10, 0x74, 0x8e, 0x55, 0x71, 0x8e, 0xf6, 0xaf, 0xa8, 0x8c,
	    0x4f, 0x7a, 0x9f, 0x01, 0x13, 0x14, 0xbe, 0x6f, 0x9d, 0xcc,
	    0x42, 0x35, 0x68, 0x5b, 0xc4, 0x9a, 0xe4, 0x7b, 0xae, 0xbf,
	    0xda, 0x86, 0x45, 0x41, 0xff, 0xe2, 0x1a, 0x50, 0x00,
	};
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;
	uint8_t out[128];

	(void)state;
	assert_int_equal(sqfs_compressor_config_init(&cfg, SQFS_COMP_LZMA,
						     131072,
						     SQFS_COMP_FLAG_UNCOMPRESS),
			 0);
	cmp = test_create_compressor(&cfg);
	test_decode_fits(cmp, block, sizeof(block), out, sizeof(out), 100);
	/* a regular file inode, mode 0644 */
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 0xa4);
	assert_int_equal(out[3], 0x01);
	sqfs_compressor_destroy(cmp);
}

static void test_bomb(void **state)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;
	uint8_t *in = calloc(1, 1048576);
	uint8_t *packed;
	size_t csize;

	(void)state;
	assert_non_null(in);
	make_cfg(&cfg, 1048576, "level=0");
	cmp = test_create_compressor(&cfg);

	csize = test_zeros_bomb(cmp, 4096, SQFS_ERROR_OVERFLOW, 4096, &packed);
	/* also when the header does not tell */
	memset(packed + 5, 0xff, 8);
	test_decode_bomb(cmp, packed, csize, SQFS_ERROR_OVERFLOW, 4096);

	/* not even room for the header */
	assert_int_equal(sqfs_compressor_compress(cmp, in, 1048576, packed, 12),
			 0);

	sqfs_compressor_destroy(cmp);
	free(in);
	free(packed);
}

static void test_options_block(void **state)
{
	static const uint8_t block[] = {0x08, 0x80, 0, 0, 1, 0, 0, 0, 0, 0};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, NULL);
	assert_int_equal(test_options_roundtrip(&cfg), 0);
	/* nothing is ever stored, whatever the settings */
	make_cfg(&cfg, 131072, "dictsize=64K,level=9,lc=0,lp=2,pb=0,extreme");
	assert_int_equal(test_options_roundtrip(&cfg), 0);

	/* an lzma image never has an options block */
	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_LZMA, 131072,
						 0, block, sizeof(block)),
			 SQFS_ERROR_CORRUPTED);
}

static void test_parse_format(void **state)
{
	static const struct {
		uint32_t block_size;
		const char *options;
	} cases[] = {
	    {131072, ""},
	    {131072, "level=0,extreme"},
	    {131072, "dictsize=50%,lc=0,lp=4,pb=0"},
	    {1048576, "dictsize=768K,level=9,pb=4"},
	    {4096, "dictsize=8K"},
	};
	sqfs_compressor_config_t a, b;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		make_cfg(&a, cases[i].block_size, cases[i].options);
		assert_int_equal(
		    sqfs_compressor_config_init(&b, SQFS_COMP_LZMA,
						cases[i].block_size, 0),
		    0);
		assert_true(test_format_reparse(&a, &b) > 0);
	}

	make_cfg(&a, 1048576, "dictsize=768K,level=9,pb=4,extreme");
	assert_int_equal(a.opt.xz.dict_size, 786432);
	assert_int_equal(a.opt.xz.level, 9);
	assert_int_equal(a.opt.xz.pb, 4);
	assert_true(a.flags & SQFS_COMP_FLAG_EXTREME);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
	    "dictsize=5000", "dictsize=20K", "dictsize=200%", "dictsize=4K",
	    "dictsize=256K", "dictsize",     "level=10",      "level=",
	    "lc=4,lp=1",     "lc=5",	     "pb=5",	      "extreme=yes",
	    "x86",	     "arm",	     "sparc",	      "bogus",
	    "level=5,,x",
	};
	sqfs_compressor_config_t cfg;
	char err[256];

	(void)state;
	make_cfg(&cfg, 131072, NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
		test_bad_option(&cfg, bad[i], NULL);

	/* filters are refused with a message pointing at xz */
	make_cfg(&cfg, 131072, NULL);
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, "x86", err, sizeof(err)),
	    SQFS_ERROR_ARG_INVALID);
	assert_non_null(strstr(err, "xz"));

	make_cfg(&cfg, 131072, NULL);
	cfg.opt.xz.filters = SQFS_XZ_FILTER_X86;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.xz.dict_size = 3 * 65536;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.xz.pb = 5;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
}

static void test_uncompress_only(void **state)
{
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 65536, "level=3");
	/* more than the 13-byte header */
	assert_true(test_decoder_only(&cfg, 65536, 3) > 13);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_roundtrip_level0_1m),
	    cmocka_unit_test(test_roundtrip_level5),
	    cmocka_unit_test(test_roundtrip_level9),
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_tool_block),
	    cmocka_unit_test(test_bomb),
	    cmocka_unit_test(test_options_block),
	    cmocka_unit_test(test_parse_format),
	    cmocka_unit_test(test_parse_bad),
	    cmocka_unit_test(test_uncompress_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const filter_names[] = {
    "x86", "powerpc", "ia64", "arm", "armthumb", "sparc",
};

static void make_cfg(sqfs_compressor_config_t *cfg, uint32_t block_size,
		     const char *options)
{
	test_config_parse(cfg, SQFS_COMP_XZ, block_size, options);
}

static void roundtrip(uint32_t block_size, const char *options)
{
	test_compressor_roundtrip_parsed(SQFS_COMP_XZ, block_size, options);
}

static void test_defaults(void **state)
{
	sqfs_compressor_config_t cfg;
	char buf[256];

	(void)state;
	assert_int_equal(
	    sqfs_compressor_config_init(&cfg, SQFS_COMP_XZ, 131072, 0), 0);
	test_assert_defaults(&cfg, 131072);
	assert_int_equal(sqfs_compressor_config_validate(&cfg), 0);

	assert_true(sqfs_compressor_config_format(&cfg, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "dictsize=131072,level=6,lc=3,lp=0,pb=2");
	assert_int_equal(sqfs_compressor_config_format(&cfg, buf, 10),
			 SQFS_ERROR_OVERFLOW);

	/* 4 KiB blocks: the block size is the default dictionary even
	 * though it is below the 8 KiB minimum for explicit ones */
	assert_int_equal(
	    sqfs_compressor_config_init(&cfg, SQFS_COMP_XZ, 4096, 0), 0);
	test_assert_defaults(&cfg, 4096);
	assert_int_equal(sqfs_compressor_config_validate(&cfg), 0);

	assert_non_null(sqfs_compressor_options_help(SQFS_COMP_XZ));
	assert_non_null(
	    strstr(sqfs_compressor_options_help(SQFS_COMP_XZ), "dictsize="));
	assert_non_null(
	    strstr(sqfs_compressor_options_help(SQFS_COMP_XZ), "armthumb"));
}

static void test_roundtrip_default(void **state)
{
	(void)state;
	roundtrip(131072, NULL);
	/* metadata blocks (8 KiB) with the 4 KiB default dictionary */
	roundtrip(4096, NULL);
}

static void test_roundtrip_level0_1m(void **state)
{
	(void)state;
	roundtrip(1048576, "level=0");
}

static void test_roundtrip_level9(void **state)
{
	(void)state;
	roundtrip(4096, "level=9");
	roundtrip(4096, "level=9,extreme");
	roundtrip(16384, "level=2,extreme");
}

static void test_roundtrip_filters(void **state)
{
	char opts[64];

	(void)state;
	for (size_t i = 0; i < sizeof(filter_names) / sizeof(filter_names[0]);
	     ++i) {
		snprintf(opts, sizeof(opts), "level=1,%s", filter_names[i]);
		roundtrip(4096, opts);
	}
#ifdef LZMA_FILTER_ARM64
	roundtrip(4096, "level=1,arm64");
#endif
	roundtrip(32768, "level=1,x86,powerpc,ia64,arm,armthumb,sparc");
	roundtrip(4096, "x86,powerpc,ia64,arm,armthumb,sparc,dictsize=8K");
}

static void test_roundtrip_dict_lclppb(void **state)
{
	(void)state;
	roundtrip(131072, "level=1,dictsize=50%");
	roundtrip(65536, "level=0,dictsize=24K");
	roundtrip(32768, "level=1,lc=1,lp=2,pb=0");
	roundtrip(16384, "level=1,lc=0,lp=4,pb=4");
}

/* The LZMA2 dictionary size recorded in the first block header. */
static uint32_t stream_dict_size(const uint8_t *xz, size_t size)
{
	const uint8_t *p = xz + 12, *end;
	uint8_t flags;

	assert_true(size > 12 + 16);
	end = p + (p[0] + 1) * 4;
	flags = p[1];
	p += 2;
	/* skip compressed and uncompressed size (multibyte integers) */
	for (int bit = 0x40; bit <= 0x80; bit <<= 1) {
		if (flags & bit) {
			while (*p & 0x80)
				++p;
			++p;
		}
	}
	/* then the filters: id, properties size, properties; LZMA2 last */
	for (int i = 0; i <= (flags & 3); ++i) {
		uint8_t id = *p++, props = *p++;

		assert_true(p + props <= end);
		if (id == 0x21) {
			assert_int_equal(props, 1);
			return (2u | (p[0] & 1u)) << (p[0] / 2 + 11);
		}
		p += props;
	}
	fail_msg("no LZMA2 filter in the block header");
	return 0;
}

static size_t compress_kind(const char *options, uint32_t block_size,
			    test_data_kind_t kind, uint8_t *out)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;
	uint8_t *in = test_make_data(block_size, kind, 7);
	ptrdiff_t ret;

	make_cfg(&cfg, block_size, options);
	cmp = test_create_compressor(&cfg);
	ret = sqfs_compressor_compress(cmp, in, block_size, out, block_size);
	assert_true(ret > 0);
	sqfs_compressor_destroy(cmp);
	free(in);
	return (size_t)ret;
}

static void test_stream_format(void **state)
{
	static const uint8_t magic[] = {0xfd, '7', 'z', 'X', 'Z', 0, 0, 1};
	uint8_t *out = malloc(131072);
	size_t size;

	(void)state;
	assert_non_null(out);

	/* a complete stream, CRC32 check (stream flags 00 01) */
	size = compress_kind(NULL, 131072, TEST_DATA_TEXT, out);
	assert_memory_equal(out, magic, sizeof(magic));
	assert_int_equal(out[size - 2], 'Y');
	assert_int_equal(out[size - 1], 'Z');
	assert_int_equal(stream_dict_size(out, size), 131072);

	size = compress_kind("dictsize=24K", 131072, TEST_DATA_TEXT, out);
	assert_int_equal(stream_dict_size(out, size), 24576);

	/* the kernel gets what it expects for 4 KiB blocks */
	size = compress_kind(NULL, 4096, TEST_DATA_TEXT, out);
	assert_int_equal(stream_dict_size(out, size), 4096);

	size = compress_kind("x86,arm", 131072, TEST_DATA_BINARY, out);
	assert_int_equal(stream_dict_size(out, size), 131072);
	free(out);
}

static void test_filter_choice(void **state)
{
	uint8_t *out = malloc(131072);
	size_t plain, x86, all;

	(void)state;
	assert_non_null(out);
	/* several filters keep the smallest, never worse than none */
	plain = compress_kind("level=1", 131072, TEST_DATA_BINARY, out);
	x86 = compress_kind("level=1,x86", 131072, TEST_DATA_BINARY, out);
	all = compress_kind("level=1,x86,powerpc,ia64,arm,armthumb,sparc",
			    131072, TEST_DATA_BINARY, out);
	assert_true(x86 <= plain);
	assert_true(all <= x86);
	free(out);
}

static void test_decode_streams(void **state)
{
	/* "hello squashfs\n" as xz writes it with a CRC64 check */
	static const uint8_t crc64[] = {
	    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4,
	    0x46, 0x02, 0x00, 0x21, 0x01, 0x16, 0x00, 0x00, 0x00, 0x74, 0x2f,
	    0xe5, 0xa3, 0x01, 0x00, 0x0e, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20,
	    0x73, 0x71, 0x75, 0x61, 0x73, 0x68, 0x66, 0x73, 0x0a, 0x00, 0x00,
	    0x25, 0x5d, 0xcd, 0x8d, 0x12, 0x97, 0xcc, 0xa3, 0x00, 0x01, 0x27,
	    0x0f, 0xdf, 0x1a, 0xfc, 0x6a, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00,
	    0x00, 0x00, 0x00, 0x04, 0x59, 0x5a,
	};
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;
	uint8_t stream[sizeof(crc64) + 4];
	uint8_t out[64];

	(void)state;
	assert_int_equal(sqfs_compressor_config_init(&cfg, SQFS_COMP_XZ, 131072,
						     SQFS_COMP_FLAG_UNCOMPRESS),
			 0);
	cmp = test_create_compressor(&cfg);

	test_decode_fits(cmp, crc64, sizeof(crc64), out, sizeof(out), 15);
	assert_memory_equal(out, "hello squashfs\n", 15);

	/* bytes after the stream */
	memcpy(stream, crc64, sizeof(crc64));
	memset(stream + sizeof(crc64), 0, 4);
	assert_int_equal(sqfs_compressor_uncompress(cmp, stream, sizeof(stream),
						    out, sizeof(out)),
			 SQFS_ERROR_CORRUPTED);

	/* cut short, and a damaged payload the CRC64 catches */
	assert_int_equal(sqfs_compressor_uncompress(
			     cmp, crc64, sizeof(crc64) - 12, out, sizeof(out)),
			 SQFS_ERROR_CORRUPTED);
	memcpy(stream, crc64, sizeof(crc64));
	stream[30] ^= 0x20;
	assert_int_equal(sqfs_compressor_uncompress(cmp, stream, sizeof(crc64),
						    out, sizeof(out)),
			 SQFS_ERROR_CORRUPTED);

	/* not xz at all */
	memset(stream, 0x5a, sizeof(stream));
	assert_int_equal(sqfs_compressor_uncompress(cmp, stream, sizeof(stream),
						    out, sizeof(out)),
			 SQFS_ERROR_CORRUPTED);

	/* a decompress-only instance cannot compress */
	assert_int_equal(sqfs_compressor_compress(cmp, out, sizeof(out), stream,
						  sizeof(stream)),
			 SQFS_ERROR_SEQUENCE);
	sqfs_compressor_destroy(cmp);
}

static void test_bomb(void **state)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;

	(void)state;
	make_cfg(&cfg, 1048576, "level=0");
	cmp = test_create_compressor(&cfg);
	test_zeros_bomb(cmp, 4096, SQFS_ERROR_OVERFLOW, 4096, NULL);
	sqfs_compressor_destroy(cmp);
}

static void test_options_block(void **state)
{
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, NULL);
	assert_int_equal(test_options_roundtrip(&cfg), 0);

	/* not stored: the reader gets the defaults for these */
	make_cfg(&cfg, 131072, "level=9,lc=0,lp=1,pb=0,extreme");
	assert_int_equal(test_options_roundtrip(&cfg), 0);

	make_cfg(&cfg, 131072, "dictsize=50%");
	assert_int_equal(test_options_roundtrip(&cfg), 10);
	make_cfg(&cfg, 131072, "x86");
	assert_int_equal(test_options_roundtrip(&cfg), 10);
	make_cfg(&cfg, 131072,
		 "dictsize=96K,x86,powerpc,ia64,arm,armthumb,sparc");
	assert_int_equal(test_options_roundtrip(&cfg), 10);
	make_cfg(&cfg, 4096, "arm");
	assert_int_equal(test_options_roundtrip(&cfg), 10);
	make_cfg(&cfg, 4096, "dictsize=8K");
	assert_int_equal(test_options_roundtrip(&cfg), 10);
}

static void test_options_layout(void **state)
{
	/* -Xbcj x86,arm -Xdict-size 50% at 128 KiB, as mksquashfs writes */
	static const uint8_t expect[] = {0x08, 0x80, 0x00, 0x00, 0x01,
					 0x00, 0x09, 0x00, 0x00, 0x00};
	sqfs_compressor_config_t cfg;

	(void)state;
	make_cfg(&cfg, 131072, "x86,arm,dictsize=50%");
	test_options_written(&cfg, expect, sizeof(expect));
}

static void test_options_corrupt(void **state)
{
	/* riscv tried: whether this liblzma has it only matters for
	 * compressing */
	static const uint8_t riscv[] = {0x08, 0x80, 0, 0, 1, 0, 0x80, 0, 0, 0};
	static const uint8_t bit8[] = {0x08, 0x80, 0, 0, 1, 0, 0, 1, 0, 0};
	static const struct {
		uint32_t block_size;
		uint8_t len;
		uint8_t block[14];
		int result;
	} cases[] = {
	    /* what gensquashfs writes for 4 KiB blocks */
	    {4096, 10, {0x08, 0x80, 0x00, 0x20, 0, 0, 0, 0, 0, 0}, 0},
	    {131072, 10, {0x08, 0x80, 0x00, 0x60, 0, 0, 1, 0, 0, 0}, 0},
	    {131072, 10, {0x08, 0x80, 0, 0, 2, 0, 0x3f, 0, 0, 0}, 0},
	    /* wrong lengths */
	    {131072, 6, {0x04, 0x80, 0, 0, 1, 0}, SQFS_ERROR_CORRUPTED},
	    {131072,
	     14,
	     {0x0c, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    /* truncated */
	    {131072, 6, {0x08, 0x80, 0, 0, 1, 0}, SQFS_ERROR_CORRUPTED},
	    /* compressed (bit 15 clear) */
	    {131072,
	     10,
	     {0x08, 0x00, 0, 0, 1, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    /* 5000, 20 KiB (not 2^n, 3*2^n), 4 KiB, 256 KiB > block */
	    {131072,
	     10,
	     {0x08, 0x80, 0x88, 0x13, 0, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    {131072,
	     10,
	     {0x08, 0x80, 0x00, 0x50, 0, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    {131072,
	     10,
	     {0x08, 0x80, 0x00, 0x10, 0, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    {131072,
	     10,
	     {0x08, 0x80, 0, 0, 4, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    {4096,
	     10,
	     {0x08, 0x80, 0x00, 0x40, 0, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    {131072,
	     10,
	     {0x08, 0x80, 0, 0, 0, 0, 0, 0, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    /* unknown filter bits */
	    {131072,
	     10,
	     {0x08, 0x80, 0, 0, 1, 0, 0x00, 0x01, 0, 0},
	     SQFS_ERROR_CORRUPTED},
	    {131072,
	     10,
	     {0x08, 0x80, 0, 0, 1, 0, 0x01, 0, 0, 0x80},
	     SQFS_ERROR_CORRUPTED},
	};
	sqfs_compressor_config_t cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		test_options_block_gives(SQFS_COMP_XZ, cases[i].block_size, 0,
					 cases[i].block, cases[i].len,
					 cases[i].result);

	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_XZ, 131072,
						 SQFS_COMP_FLAG_UNCOMPRESS,
						 riscv, sizeof(riscv)),
			 0);
	assert_int_equal(cfg.opt.xz.filters, SQFS_XZ_FILTER_RISCV);
	{
		char buf[128];

		assert_true(
		    sqfs_compressor_config_format(&cfg, buf, sizeof(buf)) > 0);
		assert_non_null(strstr(buf, ",riscv"));
	}
	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_XZ, 131072,
						 SQFS_COMP_FLAG_UNCOMPRESS,
						 bit8, sizeof(bit8)),
			 SQFS_ERROR_CORRUPTED);
#ifndef LZMA_FILTER_RISCV
	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_XZ, 131072, 0,
						 riscv, sizeof(riscv)),
			 SQFS_ERROR_CORRUPTED);
#endif

	assert_int_equal(test_read_options_block(&cfg, SQFS_COMP_XZ, 131072, 0,
						 cases[1].block, 10),
			 0);
	assert_int_equal(cfg.opt.xz.dict_size, 24576);
	assert_int_equal(cfg.opt.xz.filters, SQFS_XZ_FILTER_X86);
	assert_int_equal(cfg.opt.xz.level, 6);
	assert_int_equal(cfg.opt.xz.lc, 3);
	assert_int_equal(cfg.opt.xz.lp, 0);
	assert_int_equal(cfg.opt.xz.pb, 2);
}

static void test_parse_format(void **state)
{
	static const struct {
		uint32_t block_size;
		const char *options;
	} cases[] = {
	    {131072, ""},
	    {131072, "level=0,extreme"},
	    {131072, "dictsize=50%,x86,sparc"},
	    {131072, "dictsize=12K,lc=0,lp=4,pb=0"},
	    {1048576, "dictsize=1M,level=9,pb=4,powerpc,ia64,arm,armthumb"},
	    {4096, "dictsize=8192"},
	    {4096, "dictsize=100%"},
	};
	sqfs_compressor_config_t a, b;
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		make_cfg(&a, cases[i].block_size, cases[i].options);
		assert_int_equal(sqfs_compressor_config_init(
				     &b, SQFS_COMP_XZ, cases[i].block_size, 0),
				 0);
		assert_true(test_format_reparse(&a, &b) > 0);
	}

	make_cfg(&a, 131072, "dictsize=50%,level=3,lc=2,lp=1,pb=1,x86,arm");
	assert_int_equal(a.opt.xz.dict_size, 65536);
	assert_int_equal(a.opt.xz.level, 3);
	assert_int_equal(a.opt.xz.lc, 2);
	assert_int_equal(a.opt.xz.lp, 1);
	assert_int_equal(a.opt.xz.pb, 1);
	assert_int_equal(a.opt.xz.filters,
			 SQFS_XZ_FILTER_X86 | SQFS_XZ_FILTER_ARM);
	assert_int_equal(a.flags & SQFS_COMP_FLAG_EXTREME, 0);
	sqfs_compressor_config_format(&a, buf, sizeof(buf));
	assert_string_equal(buf,
			    "dictsize=65536,level=3,lc=2,lp=1,pb=1,x86,arm");

	/* lc + lp may pass through 5 on the way to a valid pair */
	make_cfg(&a, 131072, "lp=2,lc=2");
	assert_int_equal(a.opt.xz.lc + a.opt.xz.lp, 4);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
	    "dictsize=5000", "dictsize=20K", "dictsize=200%", "dictsize=256K",
	    "dictsize=4K",   "dictsize=",    "dictsize",      "dictsize=1G",
	    "level=10",	     "level=-1",     "level=x",	      "level",
	    "lc=4,lp=1",     "lc=5",	     "lp=5",	      "pb=5",
	    "extreme=1",     "x86=1",	     "bogus",	      "X86",
	    "level=6,fast",  "riscv,arm64x",
	};
	sqfs_compressor_config_t cfg;
	char err[256];

	(void)state;
	assert_int_equal(
	    sqfs_compressor_config_init(&cfg, SQFS_COMP_XZ, 131072, 0), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
		test_bad_option(&cfg, bad[i], NULL);

	/* 8 KiB is the most for 4 KiB blocks */
	assert_int_equal(
	    sqfs_compressor_config_init(&cfg, SQFS_COMP_XZ, 4096, 0), 0);
	assert_int_equal(sqfs_compressor_config_parse(&cfg, "dictsize=12K", err,
						      sizeof(err)),
			 SQFS_ERROR_ARG_INVALID);

#ifndef LZMA_FILTER_RISCV
	/* a filter this liblzma lacks is named in the message */
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, "riscv", err, sizeof(err)),
	    SQFS_ERROR_ARG_INVALID);
	assert_non_null(strstr(err, "riscv"));
#endif

	/* out-of-range settings set directly are refused at create time */
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.xz.lc = 4;
	cfg.opt.xz.lp = 1;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.xz.dict_size = 20480;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.xz.filters = 0x100;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	make_cfg(&cfg, 131072, NULL);
	cfg.opt.xz.level = 10;
	test_create_fails(&cfg, SQFS_ERROR_ARG_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_roundtrip_default),
	    cmocka_unit_test(test_roundtrip_level0_1m),
	    cmocka_unit_test(test_roundtrip_level9),
	    cmocka_unit_test(test_roundtrip_filters),
	    cmocka_unit_test(test_roundtrip_dict_lclppb),
	    cmocka_unit_test(test_stream_format),
	    cmocka_unit_test(test_filter_choice),
	    cmocka_unit_test(test_decode_streams),
	    cmocka_unit_test(test_bomb),
	    cmocka_unit_test(test_options_block),
	    cmocka_unit_test(test_options_layout),
	    cmocka_unit_test(test_options_corrupt),
	    cmocka_unit_test(test_parse_format),
	    cmocka_unit_test(test_parse_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

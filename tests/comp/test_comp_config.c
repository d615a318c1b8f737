/* SPDX-License-Identifier: MIT */
/*
 * test_comp_config.c - the compressor framework shared by all back ends:
 * registry, defaults, option strings, the options block, and the argument
 * checks done before a back end is called.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	sqfs_compressor_id_t id;
	const char *name;
	bool built;
	/* settings away from every default, and a word the help must hold */
	const char *custom;
	const char *help_word;
} comp_info_t;

static const comp_info_t comps[] = {
    {SQFS_COMP_GZIP, "gzip",
#ifdef WITH_GZIP
     true,
#else
     false,
#endif
     "level=5,window=12,filtered,rle", "level"},
    {SQFS_COMP_LZMA, "lzma",
#ifdef WITH_XZ
     true,
#else
     false,
#endif
     "level=2,dictsize=32K,lc=1,lp=1,pb=1", "level"},
    {SQFS_COMP_LZO, "lzo",
#ifdef WITH_LZO
     true,
#else
     false,
#endif
     "algorithm=lzo1x_999,level=3", "algorithm"},
    {SQFS_COMP_XZ, "xz",
#ifdef WITH_XZ
     true,
#else
     false,
#endif
     "dictsize=64K,level=3,x86,arm", "dictsize"},
    {SQFS_COMP_LZ4, "lz4",
#ifdef WITH_LZ4
     true,
#else
     false,
#endif
     "hc", "hc"},
    {SQFS_COMP_ZSTD, "zstd",
#ifdef WITH_ZSTD
     true,
#else
     false,
#endif
     "level=7", "level"},
};

#define COMP_COUNT (sizeof(comps) / sizeof(comps[0]))

/* ---- registry ---------------------------------------------------------- */

static void test_names(void **state)
{
	static const int bad_ids[] = {-1, 0, 7, 255, 0x10001};
	static const char *const bad_names[] = {"",	 "GZIP",  "gzip ", "gz",
						"zstd1", "lzma2", "none"};
	(void)state;

	for (size_t i = 0; i < COMP_COUNT; ++i) {
		assert_string_equal(sqfs_compressor_name(comps[i].id),
				    comps[i].name);
		assert_int_equal(sqfs_compressor_id_from_name(comps[i].name),
				 comps[i].id);
	}
	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); ++i) {
		assert_null(sqfs_compressor_name(bad_ids[i]));
		assert_false(sqfs_compressor_is_available(bad_ids[i]));
		assert_null(sqfs_compressor_options_help(bad_ids[i]));
	}
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); ++i) {
		assert_int_equal(sqfs_compressor_id_from_name(bad_names[i]),
				 SQFS_ERROR_UNSUPPORTED);
	}
	assert_int_equal(sqfs_compressor_id_from_name(NULL),
			 SQFS_ERROR_UNSUPPORTED);
}

static void test_available(void **state)
{
	sqfs_compressor_config_t cfg;
	(void)state;

	for (size_t i = 0; i < COMP_COUNT; ++i) {
		int ret = sqfs_compressor_config_init(
		    &cfg, comps[i].id, SQFS_DEFAULT_BLOCK_SIZE, 0);

		assert_int_equal(sqfs_compressor_is_available(comps[i].id),
				 comps[i].built);
		assert_int_equal(ret,
				 comps[i].built ? 0 : SQFS_ERROR_UNSUPPORTED);
		if (comps[i].built)
			assert_non_null(
			    sqfs_compressor_options_help(comps[i].id));
		else
			assert_null(sqfs_compressor_options_help(comps[i].id));
	}
}

static void test_default(void **state)
{
	sqfs_compressor_id_t id = sqfs_compressor_default();
	(void)state;

	assert_true(sqfs_compressor_is_available(id));
#ifdef WITH_XZ
	assert_int_equal(id, SQFS_COMP_XZ);
#elif defined(WITH_ZSTD)
	assert_int_equal(id, SQFS_COMP_ZSTD);
#elif defined(WITH_GZIP)
	assert_int_equal(id, SQFS_COMP_GZIP);
#elif defined(WITH_LZ4)
	assert_int_equal(id, SQFS_COMP_LZ4);
#else
	assert_int_equal(id, SQFS_COMP_LZO);
#endif
}

static void test_init_rejects(void **state)
{
	static const uint32_t bad_sizes[] = {
	    0,		 1,	     2048,	   3000,
	    4095,	 4097,	     65536 + 4096, 2 * 1048576,
	    1048576 + 1, UINT32_MAX,
	};
	sqfs_compressor_config_t cfg, orig;
	sqfs_compressor_id_t id = sqfs_compressor_default();
	sqfs_compressor_t *cmp = NULL;
	(void)state;

	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); ++i) {
		assert_int_equal(
		    sqfs_compressor_config_init(&cfg, id, bad_sizes[i], 0),
		    SQFS_ERROR_SUPER_BLOCK_SIZE);
	}
	assert_int_equal(sqfs_compressor_config_init(
			     &cfg, (sqfs_compressor_id_t)0, 131072, 0),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(sqfs_compressor_config_init(
			     &cfg, (sqfs_compressor_id_t)7, 131072, 0),
			 SQFS_ERROR_UNSUPPORTED);

	/* the bounds themselves are fine */
	assert_int_equal(sqfs_compressor_config_init(&cfg, id, 4096, 0), 0);
	assert_int_equal(sqfs_compressor_config_init(&cfg, id, 1048576, 0), 0);

	/* a configuration broken after init is caught before a back end
	 * sees it */
	assert_int_equal(sqfs_compressor_config_init(&orig, id, 131072, 0), 0);
	cfg = orig;
	cfg.block_size = 3000;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_not_equal(sqfs_compressor_create(&cfg, &cmp), 0);
	assert_null(cmp);
	cfg = orig;
	cfg.id = 0;
	assert_int_equal(sqfs_compressor_config_validate(&cfg),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(sqfs_compressor_create(&cfg, &cmp),
			 SQFS_ERROR_UNSUPPORTED);
	assert_null(cmp);
	cfg.id = 7;
	assert_int_equal(sqfs_compressor_config_parse(&cfg, "", NULL, 0),
			 SQFS_ERROR_UNSUPPORTED);
}

/* ---- per compressor ------------------------------------------------------ */

static const comp_info_t *setup_info(void **state)
{
	const comp_info_t *info = *state;

	if (!info->built)
		skip();
	return info;
}

static void test_defaults(void **state)
{
	static const uint32_t sizes[] = {4096, 8192, 131072, 1048576};
	const comp_info_t *info = setup_info(state);
	sqfs_compressor_config_t cfg;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
		memset(&cfg, 0xA5, sizeof(cfg));
		assert_int_equal(
		    sqfs_compressor_config_init(&cfg, info->id, sizes[i], 0),
		    0);
		assert_int_equal(cfg.id, info->id);
		assert_int_equal(cfg.flags, 0);
		assert_int_equal(cfg.block_size, sizes[i]);
		test_assert_defaults(&cfg, sizes[i]);
		/* the defaults must be usable at every block size */
		assert_int_equal(sqfs_compressor_config_validate(&cfg), 0);
	}

	assert_int_equal(sqfs_compressor_config_init(&cfg, info->id, 65536,
						     SQFS_COMP_FLAG_UNCOMPRESS),
			 0);
	assert_int_equal(cfg.flags, SQFS_COMP_FLAG_UNCOMPRESS);
	test_assert_defaults(&cfg, 65536);
}

static void test_help(void **state)
{
	const comp_info_t *info = setup_info(state);
	const char *help = sqfs_compressor_options_help(info->id);

	assert_non_null(help);
	assert_non_null(strstr(help, info->help_word));
}

/* format -> parse gives the configuration back, defaults or not */
static void check_format_parse(const sqfs_compressor_config_t *cfg)
{
	sqfs_compressor_config_t start;

	assert_int_equal(
	    sqfs_compressor_config_init(&start, (sqfs_compressor_id_t)cfg->id,
					cfg->block_size, cfg->flags),
	    0);
	test_format_reparse(cfg, &start);
}

static void test_format_parse(void **state)
{
	const comp_info_t *info = setup_info(state);
	sqfs_compressor_config_t cfg, def;
	char err[128];

	assert_int_equal(sqfs_compressor_config_init(&def, info->id, 131072, 0),
			 0);
	check_format_parse(&def);

	cfg = def;
	if (sqfs_compressor_config_parse(&cfg, info->custom, err,
					 sizeof(err)) != 0)
		fail_msg("parsing '%s' failed: %s", info->custom, err);
	assert_memory_not_equal(&cfg.opt, &def.opt, sizeof(def.opt));
	check_format_parse(&cfg);

	/* settings away from the defaults survive the options block (lzma
	 * has none) */
	if (info->id == SQFS_COMP_LZMA)
		assert_int_equal(test_options_roundtrip(&cfg), 0);
	else
		assert_true(test_options_roundtrip(&cfg) > 2);
}

static void test_parse_noop(void **state)
{
	const comp_info_t *info = setup_info(state);
	sqfs_compressor_config_t cfg, orig;
	char err[64];

	assert_int_equal(
	    sqfs_compressor_config_init(&orig, info->id, 131072, 0), 0);
	cfg = orig;

	strcpy(err, "stale");
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, NULL, err, sizeof(err)), 0);
	assert_memory_equal(&cfg, &orig, sizeof(cfg));
	assert_string_equal(err, "");

	strcpy(err, "stale");
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, "", err, sizeof(err)), 0);
	assert_memory_equal(&cfg, &orig, sizeof(cfg));
	assert_string_equal(err, "");

	assert_int_equal(sqfs_compressor_config_parse(&cfg, NULL, NULL, 0), 0);
	assert_int_equal(sqfs_compressor_config_parse(&cfg, "", NULL, 0), 0);
	assert_memory_equal(&cfg, &orig, sizeof(cfg));
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
	    "bogus", "level=abc", "level=",	  "level=99999999999",
	    "=5",    "level=1x",  "dictsize=12Q", "level=-1",
	};
	const comp_info_t *info = setup_info(state);
	sqfs_compressor_config_t cfg;
	char err[256], opts[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
		assert_int_equal(
		    sqfs_compressor_config_init(&cfg, info->id, 131072, 0), 0);
		test_bad_option(&cfg, bad[i], NULL);

		/* no buffer, or an empty one: still an error, no crash */
		assert_int_equal(
		    sqfs_compressor_config_init(&cfg, info->id, 131072, 0), 0);
		assert_int_equal(
		    sqfs_compressor_config_parse(&cfg, bad[i], NULL, 0),
		    SQFS_ERROR_ARG_INVALID);
		err[0] = 'x';
		assert_int_equal(
		    sqfs_compressor_config_parse(&cfg, bad[i], err, 0),
		    SQFS_ERROR_ARG_INVALID);
		assert_int_equal(err[0], 'x');
		/* a one-byte buffer holds just the terminator */
		assert_int_equal(
		    sqfs_compressor_config_parse(&cfg, bad[i], err, 1),
		    SQFS_ERROR_ARG_INVALID);
		assert_int_equal(err[0], '\0');
	}

	/* a good option before a bad one does not hide the error, and the
	 * message names the culprit */
	snprintf(opts, sizeof(opts), "%s,bogus", info->custom);
	assert_int_equal(sqfs_compressor_config_init(&cfg, info->id, 131072, 0),
			 0);
	assert_int_equal(
	    sqfs_compressor_config_parse(&cfg, opts, err, sizeof(err)),
	    SQFS_ERROR_ARG_INVALID);
	assert_non_null(strstr(err, "bogus"));
}

static void test_default_options_block(void **state)
{
	const comp_info_t *info = setup_info(state);
	sqfs_compressor_config_t cfg, back;
	sqfs_file_t *file = test_memory_file(NULL, 0);
	const uint8_t *data;
	size_t size;
	int ret;

	assert_int_equal(sqfs_compressor_config_init(&cfg, info->id, 131072, 0),
			 0);
	ret = sqfs_compressor_config_write_options(&cfg, file);
	data = sqfs_file_memory_data(file, &size);

	if (info->id != SQFS_COMP_LZ4) {
		/* at the defaults the block is left out entirely */
		assert_int_equal(ret, 0);
		assert_int_equal(size, 0);
		sqfs_file_destroy(file);
		return;
	}

	/* lz4 always has one: raw header 0x8008, version 1, flags 0 */
	assert_int_equal(ret, 10);
	assert_int_equal(size, SQFS_SUPER_SIZE + 10);
	assert_int_equal(get_le16(data + SQFS_SUPER_SIZE), 0x8008);
	assert_int_equal(get_le32(data + SQFS_SUPER_SIZE + 2), 1);
	assert_int_equal(get_le32(data + SQFS_SUPER_SIZE + 6), 0);

	assert_int_equal(
	    sqfs_compressor_config_init(&back, info->id, 131072, 0), 0);
	assert_int_equal(sqfs_compressor_config_read_options(&back, file), 0);
	assert_memory_equal(&back, &cfg, sizeof(cfg));
	sqfs_file_destroy(file);
}

/* read_options on an image of size bytes: 96 zeros, then block */
static int read_options_from(sqfs_compressor_id_t id, const uint8_t *block,
			     size_t block_len)
{
	sqfs_compressor_config_t cfg;

	return test_read_options_block(&cfg, id, 131072, 0, block, block_len);
}

static void test_read_options_bad(void **state)
{
	const comp_info_t *info = setup_info(state);
	uint8_t block[2 + 32];

	memset(block, 0, sizeof(block));

	/* no room for the header at all, or only half of it */
	assert_int_equal(read_options_from(info->id, block, 0),
			 SQFS_ERROR_CORRUPTED);
	put_le16(block, 0x8008);
	assert_int_equal(read_options_from(info->id, block, 1),
			 SQFS_ERROR_CORRUPTED);

	/* header promises more than the file holds */
	assert_int_equal(read_options_from(info->id, block, 2),
			 SQFS_ERROR_CORRUPTED);
	assert_int_equal(read_options_from(info->id, block, 9),
			 SQFS_ERROR_CORRUPTED);

	/* compressed options blocks are not accepted */
	put_le16(block, 0x0008);
	assert_int_equal(read_options_from(info->id, block, sizeof(block)),
			 SQFS_ERROR_CORRUPTED);

	/* length 0, and longer than any compressor's payload */
	put_le16(block, 0x8000);
	assert_int_equal(read_options_from(info->id, block, sizeof(block)),
			 SQFS_ERROR_CORRUPTED);
	put_le16(block, 0x8000 | (SQFS_COMP_OPTIONS_MAX_SIZE + 1));
	assert_int_equal(read_options_from(info->id, block, sizeof(block)),
			 SQFS_ERROR_CORRUPTED);
	put_le16(block, 0xFFFF);
	assert_int_equal(read_options_from(info->id, block, sizeof(block)),
			 SQFS_ERROR_CORRUPTED);

	/* a one-byte payload fits no compressor's layout */
	put_le16(block, 0x8001);
	assert_int_equal(read_options_from(info->id, block, sizeof(block)),
			 SQFS_ERROR_CORRUPTED);
}

static void test_compress_args(void **state)
{
	static const uint32_t sizes[] = {4096, 131072};
	const comp_info_t *info = setup_info(state);

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
		size_t max = sizes[s] > SQFS_META_BLOCK_SIZE
				 ? sizes[s]
				 : SQFS_META_BLOCK_SIZE;
		uint8_t *in = test_make_data(max + 1, TEST_DATA_ZEROS, 1);
		uint8_t *out = malloc(max + 1);
		uint8_t *back = malloc(max);
		sqfs_compressor_config_t cfg;
		sqfs_compressor_t *cmp = NULL;
		ptrdiff_t ret;

		assert_non_null(out);
		assert_non_null(back);
		assert_int_equal(
		    sqfs_compressor_config_init(&cfg, info->id, sizes[s], 0),
		    0);
		assert_int_equal(sqfs_compressor_create(&cfg, &cmp), 0);

		assert_int_equal(
		    sqfs_compressor_compress(cmp, in, 0, out, max + 1),
		    SQFS_ERROR_ARG_INVALID);
		assert_int_equal(
		    sqfs_compressor_compress(cmp, in, max + 1, out, max + 1),
		    SQFS_ERROR_ARG_INVALID);
		assert_int_equal(
		    sqfs_compressor_uncompress(cmp, out, 0, back, max),
		    SQFS_ERROR_CORRUPTED);

		/* exactly the largest size is fine, and round trips */
		ret = sqfs_compressor_compress(cmp, in, max, out, max);
		assert_true(ret > 0 && (size_t)ret < max);
		assert_int_equal(sqfs_compressor_uncompress(
				     cmp, out, (size_t)ret, back, max),
				 (ptrdiff_t)max);
		assert_memory_equal(back, in, max);

		sqfs_compressor_destroy(cmp);
		free(in);
		free(out);
		free(back);
	}
	sqfs_compressor_destroy(NULL);
}

static void test_uncompress_only(void **state)
{
	const comp_info_t *info = setup_info(state);
	sqfs_compressor_config_t cfg;

	assert_int_equal(sqfs_compressor_config_init(&cfg, info->id, 4096, 0),
			 0);
	test_decoder_only(&cfg, 4096, 7);
}

static void test_copy(void **state)
{
	const comp_info_t *info = setup_info(state);
	uint8_t *in = test_make_data(8192, TEST_DATA_TEXT, 3);
	uint8_t out1[8192], out2[8192], back[8192];
	sqfs_compressor_config_t cfg, got;
	sqfs_compressor_t *cmp = NULL, *copy = NULL;
	ptrdiff_t size1, size2;
	const char *opts = info->custom;
	char err[128];

	assert_int_equal(sqfs_compressor_config_init(&cfg, info->id, 8192, 0),
			 0);
	/* a copy must carry non-default settings too (the custom xz and
	 * lzma dictionary would not fit this block size) */
	if (info->id == SQFS_COMP_XZ || info->id == SQFS_COMP_LZMA)
		opts = "level=3,extreme";
	if (sqfs_compressor_config_parse(&cfg, opts, err, sizeof(err)) != 0)
		fail_msg("'%s': %s", opts, err);
	assert_int_equal(sqfs_compressor_create(&cfg, &cmp), 0);
	size1 = sqfs_compressor_compress(cmp, in, 8192, out1, sizeof(out1));
	assert_true(size1 > 0);

	assert_int_equal(sqfs_compressor_copy(cmp, &copy), 0);
	assert_non_null(copy);
	assert_ptr_not_equal(copy, cmp);
	sqfs_compressor_get_config(copy, &got);
	assert_memory_equal(&got, &cfg, sizeof(cfg));

	/* the copy lives on alone and behaves the same */
	sqfs_compressor_destroy(cmp);
	size2 = sqfs_compressor_compress(copy, in, 8192, out2, sizeof(out2));
	assert_int_equal(size2, size1);
	assert_memory_equal(out2, out1, (size_t)size1);
	assert_int_equal(sqfs_compressor_uncompress(copy, out1, (size_t)size1,
						    back, sizeof(back)),
			 8192);
	assert_memory_equal(back, in, 8192);

	sqfs_compressor_destroy(copy);
	free(in);
}

#define PER_COMP(func, i, name)                                         \
	{                                                               \
#func "(" name ")", func, NULL, NULL, (void *)&comps[i] \
	}

/* in the order of comps[] */
#define ALL_COMP(func)                                         \
	PER_COMP(func, 0, "gzip"), PER_COMP(func, 1, "lzma"),  \
	    PER_COMP(func, 2, "lzo"), PER_COMP(func, 3, "xz"), \
	    PER_COMP(func, 4, "lz4"), PER_COMP(func, 5, "zstd")

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_available),
	    cmocka_unit_test(test_default),
	    cmocka_unit_test(test_init_rejects),
	    ALL_COMP(test_defaults),
	    ALL_COMP(test_help),
	    ALL_COMP(test_format_parse),
	    ALL_COMP(test_parse_noop),
	    ALL_COMP(test_parse_errors),
	    ALL_COMP(test_default_options_block),
	    ALL_COMP(test_read_options_bad),
	    ALL_COMP(test_compress_args),
	    ALL_COMP(test_uncompress_only),
	    ALL_COMP(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

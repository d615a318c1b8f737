/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/test_util.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *test_data_kind_name(test_data_kind_t kind)
{
	static const char *const names[] = {"random", "zeros", "text",
					    "binary"};
	return kind < TEST_DATA_KIND_COUNT ? names[kind] : "?";
}

static uint32_t xorshift32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

static void fill_text(uint8_t *buf, size_t size, uint32_t seed)
{
	static const char *const words[] = {
	    "the",	"block",  "of",	       "data",	"is",	 "packed",
	    "into",	"a",	  "squashfs",  "image", "and",	 "read",
	    "back",	"by",	  "kernel",    "when",	"it",	 "mounts",
	    "files",	"with",	  "fragments", "inode", "table", "entry",
	    "compress", "stream", "\n",	       "zstd",	"xz",	 "gzip",
	};
	uint32_t state = seed | 1;
	size_t pos = 0;

	while (pos < size) {
		const char *w = words[xorshift32(&state) %
				      (sizeof(words) / sizeof(words[0]))];
		size_t len = strlen(w);

		for (size_t i = 0; i < len && pos < size; ++i)
			buf[pos++] = (uint8_t)w[i];
		if (pos < size && w[0] != '\n')
			buf[pos++] = ' ';
	}
}

static void fill_binary(uint8_t *buf, size_t size, uint32_t seed)
{
	FILE *fp = fopen("/proc/self/exe", "rb");
	size_t done = 0;

	assert_non_null(fp);
	/* skip the ELF header so different seeds give different code */
	fseek(fp, (long)(seed % 4096), SEEK_SET);
	while (done < size) {
		size_t n = fread(buf + done, 1, size - done, fp);

		if (n == 0) {
			if (done == 0)
				fail_msg("cannot read /proc/self/exe");
			rewind(fp);
			continue;
		}
		done += n;
	}
	fclose(fp);
}

void test_fill_data(uint8_t *buf, size_t size, test_data_kind_t kind,
		    uint32_t seed)
{
	uint32_t state = seed * 2654435761u + 1;

	switch (kind) {
	case TEST_DATA_RANDOM:
		for (size_t i = 0; i < size; ++i)
			buf[i] = (uint8_t)(xorshift32(&state) >> 24);
		break;
	case TEST_DATA_ZEROS:
		memset(buf, 0, size);
		break;
	case TEST_DATA_TEXT:
		fill_text(buf, size, seed);
		break;
	case TEST_DATA_BINARY:
		fill_binary(buf, size, seed);
		break;
	default:
		fail_msg("unknown data kind %d", (int)kind);
	}
}

uint8_t *test_make_data(size_t size, test_data_kind_t kind, uint32_t seed)
{
	uint8_t *buf = malloc(size > 0 ? size : 1);

	assert_non_null(buf);
	test_fill_data(buf, size, kind, seed);
	return buf;
}

const char *test_fixture_path(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", TEST_DATA_DIR, name);
	return path;
}

uint8_t *test_load_fixture(const char *name, size_t *size)
{
	const char *path = test_fixture_path(name);
	FILE *fp = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (fp == NULL)
		fail_msg("cannot open fixture %s", path);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = ftell(fp);
	assert_true(len >= 0);
	rewind(fp);
	buf = malloc(len > 0 ? (size_t)len : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	*size = (size_t)len;
	return buf;
}

static void check_one(sqfs_compressor_t *cmp, sqfs_compressor_t *copy,
		      size_t size, test_data_kind_t kind, uint32_t seed)
{
	uint8_t *in = test_make_data(size, kind, seed);
	uint8_t *out = malloc(size);
	uint8_t *out2 = malloc(size);
	uint8_t *back = malloc(size);
	uint8_t *small = malloc(size - 1);
	ptrdiff_t csize, csize2, ret;

	assert_non_null(out);
	assert_non_null(out2);
	assert_non_null(back);
	assert_non_null(small);

	csize = sqfs_compressor_compress(cmp, in, size, out, size);
	assert_true(csize >= 0);
	assert_true((size_t)csize < size);

	csize2 = sqfs_compressor_compress(copy, in, size, out2, size);
	assert_int_equal(csize2, csize);
	if (csize > 0)
		assert_memory_equal(out, out2, (size_t)csize);

	if (kind == TEST_DATA_RANDOM) {
		/* incompressible input must be reported, not stored bigger */
		assert_int_equal(csize, 0);
		goto out;
	}
	if (kind == TEST_DATA_ZEROS || kind == TEST_DATA_TEXT)
		assert_true(csize > 0);
	if (csize == 0)
		goto out;

	ret = sqfs_compressor_uncompress(cmp, out, (size_t)csize, back, size);
	if (ret != (ptrdiff_t)size)
		fail_msg("%s, %zu bytes: uncompress returned %td",
			 test_data_kind_name(kind), size, ret);
	assert_memory_equal(in, back, size);

	/* a block that unpacks past its bound must fail, not overrun */
	ret = sqfs_compressor_uncompress(cmp, out, (size_t)csize, small,
					 size - 1);
	assert_true(ret < 0);

	/* truncated stream: an error, or at least nothing past the bound */
	if (csize > 1) {
		ret = sqfs_compressor_uncompress(cmp, out, (size_t)csize / 2,
						 back, size);
		assert_true(ret < (ptrdiff_t)size || ret < 0);
	}

	/* bit flips all over the stream: must not crash or overrun */
	for (ptrdiff_t pos = 0; pos < csize; pos += 1 + csize / 16) {
		memcpy(out2, out, (size_t)csize);
		out2[pos] ^= (uint8_t)(1u << (pos % 8));
		ret = sqfs_compressor_uncompress(cmp, out2, (size_t)csize, back,
						 size);
		assert_true(ret <= (ptrdiff_t)size);
	}
out:
	free(in);
	free(out);
	free(out2);
	free(back);
	free(small);
}

void test_compressor_roundtrip(const sqfs_compressor_config_t *cfg)
{
	sqfs_compressor_t *cmp = NULL, *copy = NULL;
	sqfs_compressor_config_t got;
	size_t sizes[3];
	size_t count = 0;

	assert_int_equal(sqfs_compressor_create(cfg, &cmp), 0);
	assert_non_null(cmp);
	assert_int_equal(sqfs_compressor_copy(cmp, &copy), 0);
	assert_non_null(copy);

	sqfs_compressor_get_config(cmp, &got);
	assert_memory_equal(&got, cfg, sizeof(got));

	sizes[count++] = cfg->block_size;
	sizes[count++] = cfg->block_size / 3 + 7;
	if (cfg->block_size < SQFS_META_BLOCK_SIZE)
		sizes[count++] = SQFS_META_BLOCK_SIZE;

	for (size_t s = 0; s < count; ++s) {
		for (int kind = 0; kind < TEST_DATA_KIND_COUNT; ++kind) {
			check_one(cmp, copy, sizes[s], (test_data_kind_t)kind,
				  (uint32_t)(s * 31 + (size_t)kind + 1));
		}
	}

	sqfs_compressor_destroy(copy);
	sqfs_compressor_destroy(cmp);
}

int test_options_roundtrip(const sqfs_compressor_config_t *cfg)
{
	sqfs_compressor_config_t back;
	sqfs_file_t *file = NULL;
	int written;

	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	written = sqfs_compressor_config_write_options(cfg, file);
	assert_true(written >= 0);

	assert_int_equal(
	    sqfs_compressor_config_init(&back, (sqfs_compressor_id_t)cfg->id,
					cfg->block_size, cfg->flags),
	    0);
	if (written > 0) {
		size_t size;
		const uint8_t *data = sqfs_file_memory_data(file, &size);

		assert_int_equal(size, SQFS_SUPER_SIZE + (size_t)written);
		/* stored raw: bit 15 set, length of the payload */
		assert_int_equal(data[SQFS_SUPER_SIZE + 1] & 0x80, 0x80);
		assert_int_equal(
		    sqfs_compressor_config_read_options(&back, file), 0);
	}
	sqfs_file_destroy(file);

	switch (cfg->id) {
	case SQFS_COMP_GZIP:
		assert_int_equal(back.opt.gzip.level, cfg->opt.gzip.level);
		assert_int_equal(back.opt.gzip.window_size,
				 cfg->opt.gzip.window_size);
		assert_int_equal(back.opt.gzip.strategies,
				 cfg->opt.gzip.strategies);
		break;
	case SQFS_COMP_XZ:
		assert_int_equal(back.opt.xz.filters, cfg->opt.xz.filters);
		assert_int_equal(back.opt.xz.dict_size, cfg->opt.xz.dict_size);
		break;
	case SQFS_COMP_LZMA:
		/* the format has no options block for lzma: the stream
		 * header carries what a decoder needs */
		assert_int_equal(written, 0);
		break;
	case SQFS_COMP_LZ4:
		assert_int_equal(back.opt.lz4.flags, cfg->opt.lz4.flags);
		break;
	case SQFS_COMP_ZSTD:
		assert_int_equal(back.opt.zstd.level, cfg->opt.zstd.level);
		break;
	case SQFS_COMP_LZO:
		assert_int_equal(back.opt.lzo.algorithm,
				 cfg->opt.lzo.algorithm);
		assert_int_equal(back.opt.lzo.level, cfg->opt.lzo.level);
		break;
	default:
		fail_msg("unknown compressor %u", cfg->id);
	}
	return written;
}

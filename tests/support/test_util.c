/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *test_data_kind_name(test_data_kind_t kind)
{
	static const char *const names[] = {"random", "zeros", "text",
					    "binary"};
	return kind < TEST_DATA_KIND_COUNT ? names[kind] : "?";
}

uint32_t test_rand(uint32_t *state)
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
	/* every seed its own text: xorshift needs a non-zero state */
	uint32_t state = seed * 2654435761u + 0x9E3779B9u;

	if (state == 0)
		state = 1;
	size_t pos = 0;

	while (pos < size) {
		const char *w = words[test_rand(&state) %
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
			buf[i] = (uint8_t)(test_rand(&state) >> 24);
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

void test_assert_defaults(const sqfs_compressor_config_t *cfg,
			  uint32_t block_size)
{
	switch (cfg->id) {
	case SQFS_COMP_GZIP:
		assert_int_equal(cfg->opt.gzip.level, 9);
		assert_int_equal(cfg->opt.gzip.window_size, 15);
		assert_int_equal(cfg->opt.gzip.strategies, 0);
		break;
	case SQFS_COMP_XZ:
	case SQFS_COMP_LZMA:
		assert_int_equal(cfg->opt.xz.dict_size, block_size);
		assert_int_equal(cfg->opt.xz.level,
				 cfg->id == SQFS_COMP_XZ ? 6 : 5);
		assert_int_equal(cfg->opt.xz.filters, 0);
		assert_int_equal(cfg->opt.xz.lc, 3);
		assert_int_equal(cfg->opt.xz.lp, 0);
		assert_int_equal(cfg->opt.xz.pb, 2);
		break;
	case SQFS_COMP_ZSTD:
		assert_int_equal(cfg->opt.zstd.level, 15);
		break;
	case SQFS_COMP_LZO:
		assert_int_equal(cfg->opt.lzo.algorithm, SQFS_LZO1X_999);
		assert_int_equal(cfg->opt.lzo.level, 8);
		break;
	case SQFS_COMP_LZ4:
		assert_int_equal(cfg->opt.lz4.flags, 0);
		break;
	default:
		fail_msg("unknown compressor %u", cfg->id);
	}
}

void test_config_parse(sqfs_compressor_config_t *cfg, sqfs_compressor_id_t id,
		       uint32_t block_size, const char *options)
{
	char err[256];
	int ret;

	assert_int_equal(sqfs_compressor_config_init(cfg, id, block_size, 0),
			 0);
	ret = sqfs_compressor_config_parse(cfg, options, err, sizeof(err));
	if (ret != 0)
		fail_msg("'%s': %d (%s)", options, ret, err);
}

void test_compressor_roundtrip_parsed(sqfs_compressor_id_t id,
				      uint32_t block_size, const char *options)
{
	sqfs_compressor_config_t cfg;

	test_config_parse(&cfg, id, block_size, options);
	test_compressor_roundtrip(&cfg);
}

sqfs_compressor_t *test_create_compressor(const sqfs_compressor_config_t *cfg)
{
	sqfs_compressor_t *cmp = NULL;

	assert_int_equal(sqfs_compressor_create(cfg, &cmp), 0);
	assert_non_null(cmp);
	return cmp;
}

void test_create_fails(const sqfs_compressor_config_t *cfg, int expect)
{
	sqfs_compressor_t *cmp = NULL;

	assert_int_equal(sqfs_compressor_create(cfg, &cmp), expect);
	assert_null(cmp);
}

const sqfs_compressor_id_t test_compressor_ids[] = {
    SQFS_COMP_GZIP, SQFS_COMP_ZSTD, SQFS_COMP_XZ,
    SQFS_COMP_LZ4,  SQFS_COMP_LZO,  SQFS_COMP_LZMA,
};
const size_t test_compressor_id_count =
    sizeof(test_compressor_ids) / sizeof(test_compressor_ids[0]);

sqfs_compressor_t *test_try_compressor(sqfs_compressor_id_t id,
				       uint32_t block_size)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp;

	if (!sqfs_compressor_is_available(id))
		return NULL;
	if (sqfs_compressor_config_init(&cfg, id, block_size, 0))
		return NULL;
	if (sqfs_compressor_create(&cfg, &cmp))
		return NULL;
	return cmp;
}

sqfs_compressor_t *test_first_compressor(uint32_t block_size)
{
	sqfs_compressor_t *cmp;

	for (size_t i = 0; i < test_compressor_id_count; ++i) {
		cmp = test_try_compressor(test_compressor_ids[i], block_size);
		if (cmp != NULL)
			return cmp;
	}
	return NULL;
}

int test_format_reparse(const sqfs_compressor_config_t *cfg,
			const sqfs_compressor_config_t *start)
{
	sqfs_compressor_config_t back = *start;
	char buf[512], err[128];
	int len;

	len = sqfs_compressor_config_format(cfg, buf, sizeof(buf));
	assert_true(len >= 0);
	assert_int_equal(strlen(buf), (size_t)len);

	/* too small a buffer is reported, not overrun */
	if (len > 0) {
		char small[sizeof(buf)];

		memset(small, 'x', sizeof(small));
		assert_int_equal(
		    sqfs_compressor_config_format(cfg, small, (size_t)len),
		    SQFS_ERROR_OVERFLOW);
		assert_int_equal(small[len], 'x');
		assert_int_equal(small[len - 1], '\0');
		assert_int_equal(sqfs_compressor_config_format(cfg, small, 0),
				 SQFS_ERROR_OVERFLOW);
	}

	if (sqfs_compressor_config_parse(&back, buf, err, sizeof(err)) != 0)
		fail_msg("parsing '%s' failed: %s", buf, err);
	assert_memory_equal(&back, cfg, sizeof(back));
	return len;
}

void test_bad_option(const sqfs_compressor_config_t *start, const char *options,
		     const char *named)
{
	const char *name = sqfs_compressor_name(start->id);
	sqfs_compressor_config_t cfg = *start;
	char err[256];
	int ret;

	if (name == NULL)
		name = "?";
	memset(err, 0, sizeof(err));
	ret = sqfs_compressor_config_parse(&cfg, options, err, sizeof(err));
	if (ret != SQFS_ERROR_ARG_INVALID)
		fail_msg("%s: '%s' was accepted (%d)", name, options, ret);
	if (err[0] == '\0')
		fail_msg("%s: no message for '%s'", name, options);
	assert_non_null(memchr(err, '\0', sizeof(err)));
	if (named != NULL && strstr(err, named) == NULL)
		fail_msg("%s: '%s': message '%s' does not name '%s'", name,
			 options, err, named);
}

void test_options_written(const sqfs_compressor_config_t *cfg,
			  const uint8_t *expect, size_t len)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	const uint8_t *data;
	size_t size;

	assert_int_equal(sqfs_compressor_config_write_options(cfg, file),
			 (int)len);
	data = test_memory_file_data(file, &size);
	assert_int_equal(size, SQFS_SUPER_SIZE + len);
	assert_memory_equal(data + SQFS_SUPER_SIZE, expect, len);
	sqfs_file_destroy(file);
}

int test_read_options_block(sqfs_compressor_config_t *cfg,
			    sqfs_compressor_id_t id, uint32_t block_size,
			    uint16_t flags, const void *block, size_t len)
{
	uint8_t *image = calloc(1, SQFS_SUPER_SIZE + len);
	sqfs_file_t *file = NULL;
	int ret;

	assert_non_null(image);
	if (len > 0)
		memcpy(image + SQFS_SUPER_SIZE, block, len);
	assert_int_equal(
	    sqfs_compressor_config_init(cfg, id, block_size, flags), 0);
	assert_int_equal(sqfs_file_open_memory(&file, image,
					       SQFS_SUPER_SIZE + len,
					       SQFS_FILE_OPEN_READ_ONLY),
			 0);
	ret = sqfs_compressor_config_read_options(cfg, file);
	sqfs_file_destroy(file);
	free(image);
	return ret;
}

void test_options_block_gives(sqfs_compressor_id_t id, uint32_t block_size,
			      uint16_t flags, const void *block, size_t len,
			      int expect)
{
	sqfs_compressor_config_t cfg;
	char hex[3 * 32 + 1] = "";
	int ret;

	ret = test_read_options_block(&cfg, id, block_size, flags, block, len);
	if (ret == expect)
		return;
	for (size_t i = 0; i < len && i < 32; ++i)
		snprintf(hex + 3 * i, 4, " %02x", ((const uint8_t *)block)[i]);
	fail_msg("options block%s (%zu bytes, block size %u): %d, expected %d",
		 hex, len, (unsigned)block_size, ret, expect);
}

size_t test_decoder_only(const sqfs_compressor_config_t *cfg, size_t size,
			 uint32_t seed)
{
	sqfs_compressor_config_t dec_cfg = *cfg, got;
	sqfs_compressor_t *enc = test_create_compressor(cfg), *dec;
	sqfs_compressor_t *copy = NULL;
	uint8_t *in = test_make_data(size, TEST_DATA_TEXT, seed);
	uint8_t *packed = malloc(size), *back = malloc(size);
	ptrdiff_t csize;

	assert_non_null(packed);
	assert_non_null(back);
	csize = sqfs_compressor_compress(enc, in, size, packed, size);
	assert_true(csize > 0);

	dec_cfg.flags |= SQFS_COMP_FLAG_UNCOMPRESS;
	dec = test_create_compressor(&dec_cfg);
	sqfs_compressor_get_config(dec, &got);
	assert_memory_equal(&got, &dec_cfg, sizeof(got));
	assert_int_equal(sqfs_compressor_copy(dec, &copy), 0);
	assert_non_null(copy);

	assert_int_equal(sqfs_compressor_compress(dec, in, size, back, size),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(
	    sqfs_compressor_uncompress(dec, packed, (size_t)csize, back, size),
	    (ptrdiff_t)size);
	assert_memory_equal(in, back, size);
	memset(back, 0, size);
	assert_int_equal(
	    sqfs_compressor_uncompress(copy, packed, (size_t)csize, back, size),
	    (ptrdiff_t)size);
	assert_memory_equal(in, back, size);

	free(in);
	free(packed);
	free(back);
	sqfs_compressor_destroy(copy);
	sqfs_compressor_destroy(dec);
	sqfs_compressor_destroy(enc);
	return (size_t)csize;
}

void test_decode_fits(sqfs_compressor_t *cmp, const uint8_t *in, size_t size,
		      uint8_t *out, size_t outsize, size_t n)
{
	uint8_t *exact = malloc(n);

	assert_non_null(exact);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, in, size, out, outsize),
	    (ptrdiff_t)n);
	assert_int_equal(sqfs_compressor_uncompress(cmp, in, size, exact, n),
			 (ptrdiff_t)n);
	assert_int_equal(
	    sqfs_compressor_uncompress(cmp, in, size, exact, n - 1),
	    SQFS_ERROR_OVERFLOW);
	free(exact);
}

/* How far past an output buffer the tests look for stray writes. */
#define GUARD_SIZE 64

size_t test_exact_fit(sqfs_compressor_t *cmp, const uint8_t *in, size_t size,
		      uint8_t *out, bool untouched_all)
{
	ptrdiff_t csize;

	csize = sqfs_compressor_compress(cmp, in, size, out, size);
	assert_true(csize > 0 && (size_t)csize < size);

	assert_int_equal(sqfs_compressor_compress(cmp, in, size, out, 0), 0);
	/* a single byte never shrinks */
	assert_int_equal(sqfs_compressor_compress(cmp, in, 1, out, size), 0);

	memset(out, 0xAA, size + GUARD_SIZE);
	assert_int_equal(
	    sqfs_compressor_compress(cmp, in, size, out, (size_t)csize - 1), 0);
	for (size_t i = untouched_all ? 0 : (size_t)csize - 1;
	     i < size + GUARD_SIZE; ++i)
		assert_int_equal(out[i], 0xAA);

	memset(out, 0xAA, size + GUARD_SIZE);
	assert_int_equal(
	    sqfs_compressor_compress(cmp, in, size, out, (size_t)csize), csize);
	return (size_t)csize;
}

void test_compress_bound(sqfs_compressor_t *cmp, bool untouched_all)
{
	const size_t size = 131072;
	uint8_t *in = test_make_data(size, TEST_DATA_TEXT, 3);
	uint8_t *out = malloc(size + GUARD_SIZE);

	assert_non_null(out);
	test_exact_fit(cmp, in, size, out, untouched_all);
	free(in);
	free(out);
}

void test_decode_bomb(sqfs_compressor_t *cmp, const uint8_t *packed,
		      size_t size, int expect, size_t untouched_from)
{
	uint8_t out[4096 + GUARD_SIZE];
	ptrdiff_t ret;

	memset(out, 0xAA, sizeof(out));
	ret = sqfs_compressor_uncompress(cmp, packed, size, out, 4096);
	if (expect != 0)
		assert_int_equal(ret, expect);
	else
		assert_true(ret < 0);
	for (size_t i = untouched_from; i < sizeof(out); ++i)
		assert_int_equal(out[i], 0xAA);
}

size_t test_zeros_bomb(sqfs_compressor_t *cmp, size_t max_packed, int expect,
		       size_t untouched_from, uint8_t **packed)
{
	const size_t big = 1048576;
	uint8_t *in = test_make_data(big, TEST_DATA_ZEROS, 1);
	uint8_t *out = malloc(big + GUARD_SIZE);
	size_t csize;

	assert_non_null(out);
	csize = test_exact_fit(cmp, in, big, out, false);
	assert_true(csize < max_packed);
	test_decode_bomb(cmp, out, csize, expect, untouched_from);

	free(in);
	if (packed != NULL)
		*packed = out;
	else
		free(out);
	return csize;
}

sqfs_file_t *test_memory_file(const void *data, size_t size)
{
	sqfs_file_t *file = NULL;

	assert_int_equal(sqfs_file_open_memory(&file, data, size, 0), 0);
	assert_non_null(file);
	return file;
}

sqfs_file_t *test_memory_file_filled(size_t size, uint8_t fill)
{
	uint8_t *data = malloc(size + 1);
	sqfs_file_t *file;

	assert_non_null(data);
	memset(data, fill, size);
	file = test_memory_file(data, size);
	free(data);
	return file;
}

typedef struct {
	sqfs_file_t base;
	sqfs_file_t *inner;
	void (*on_read)(void *user, uint64_t offset, size_t size);
	void *user;
} observed_file_t;

static int observed_read_at(sqfs_file_t *base, uint64_t offset, void *buf,
			    size_t size)
{
	observed_file_t *f = (observed_file_t *)base;

	f->on_read(f->user, offset, size);
	return f->inner->read_at(f->inner, offset, buf, size);
}

static int observed_write_at(sqfs_file_t *base, uint64_t offset,
			     const void *buf, size_t size)
{
	observed_file_t *f = (observed_file_t *)base;

	return f->inner->write_at(f->inner, offset, buf, size);
}

static uint64_t observed_get_size(const sqfs_file_t *base)
{
	const observed_file_t *f = (const observed_file_t *)base;

	return f->inner->get_size(f->inner);
}

static int observed_truncate(sqfs_file_t *base, uint64_t size)
{
	observed_file_t *f = (observed_file_t *)base;

	return f->inner->truncate(f->inner, size);
}

/* Forwards: the wrapper is as durable as what it wraps. */
static int observed_sync(sqfs_file_t *base)
{
	observed_file_t *f = (observed_file_t *)base;

	return sqfs_file_sync(f->inner);
}

static void observed_destroy(sqfs_file_t *base)
{
	observed_file_t *f = (observed_file_t *)base;

	sqfs_file_destroy(f->inner);
	free(f);
}

sqfs_file_t *test_observed_file(sqfs_file_t *inner,
				void (*on_read)(void *user, uint64_t offset,
						size_t size),
				void *user)
{
	observed_file_t *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->inner = inner;
	f->on_read = on_read;
	f->user = user;
	f->base.read_at = observed_read_at;
	f->base.write_at = observed_write_at;
	f->base.get_size = observed_get_size;
	f->base.truncate = observed_truncate;
	f->base.sync = observed_sync;
	f->base.destroy = observed_destroy;
	return &f->base;
}

static int failing_read_at(sqfs_file_t *base, uint64_t offset, void *buf,
			   size_t size)
{
	test_failing_file_t *f = (test_failing_file_t *)base;

	if (f->fail_read) {
		f->failures += 1;
		return SQFS_ERROR_IO;
	}
	return f->inner->read_at(f->inner, offset, buf, size);
}

static int failing_write_at(sqfs_file_t *base, uint64_t offset, const void *buf,
			    size_t size)
{
	test_failing_file_t *f = (test_failing_file_t *)base;

	if (f->write_calls == 0 || size > f->write_bytes) {
		f->write_bytes = 0;
		f->failures += 1;
		return SQFS_ERROR_IO;
	}
	if (f->write_calls != UINT64_MAX)
		f->write_calls -= 1;
	f->write_bytes -= size;
	f->writes += 1;
	f->written += size;
	return f->inner->write_at(f->inner, offset, buf, size);
}

static uint64_t failing_get_size(const sqfs_file_t *base)
{
	const test_failing_file_t *f = (const test_failing_file_t *)base;

	return f->inner->get_size(f->inner);
}

static int failing_truncate(sqfs_file_t *base, uint64_t size)
{
	test_failing_file_t *f = (test_failing_file_t *)base;

	if (f->fail_truncate) {
		f->failures += 1;
		return SQFS_ERROR_IO;
	}
	return f->inner->truncate(f->inner, size);
}

static int failing_sync(sqfs_file_t *base)
{
	test_failing_file_t *f = (test_failing_file_t *)base;

	return sqfs_file_sync(f->inner);
}

static void failing_destroy(sqfs_file_t *base)
{
	test_failing_file_t *f = (test_failing_file_t *)base;

	sqfs_file_destroy(f->inner);
	free(f);
}

test_failing_file_t *test_failing_file(sqfs_file_t *inner)
{
	test_failing_file_t *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->inner = inner;
	f->base.read_at = failing_read_at;
	f->base.write_at = failing_write_at;
	f->base.get_size = failing_get_size;
	f->base.truncate = failing_truncate;
	f->base.sync = failing_sync;
	f->base.destroy = failing_destroy;
	f->write_calls = UINT64_MAX;
	f->write_bytes = UINT64_MAX;
	return f;
}

const uint8_t *test_memory_file_data(const sqfs_file_t *file, size_t *size)
{
	const uint8_t *data = sqfs_file_memory_data(file, size);

	assert_non_null(data);
	return data;
}

void test_file_append(sqfs_file_t *file, const void *data, size_t size)
{
	assert_int_equal(file->write_at(file, file->get_size(file), data, size),
			 0);
}

void test_file_append_block(sqfs_file_t *file, uint16_t header,
			    const void *payload, size_t size)
{
	uint8_t hdr[2];

	put_le16(hdr, header);
	test_file_append(file, hdr, 2);
	if (size > 0)
		test_file_append(file, payload, size);
}

/* ---- temporary directories ---------------------------------------------- */

int test_mkdtemp(char *buf, size_t size, const char *prefix)
{
	const char *base = getenv("TMPDIR");

	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	if ((size_t)snprintf(buf, size, "%s/%s-XXXXXX", base, prefix) >= size)
		return -1;
	return mkdtemp(buf) != NULL ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int test_remove_tree(const char *dir)
{
	return nftw(dir, remove_one, 64, FTW_DEPTH | FTW_PHYS);
}

char test_tmpdir[256];

int test_tmpdir_setup(void **state)
{
	(void)state;
	return test_mkdtemp(test_tmpdir, sizeof(test_tmpdir), "sqfs-test");
}

int test_tmpdir_teardown(void **state)
{
	(void)state;
	return test_remove_tree(test_tmpdir);
}

int test_tmpdir_open(void)
{
	int fd = open(test_tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

/* SPDX-License-Identifier: MIT */
/*
 * gzip.c - the "gzip" compressor: every block is one zlib stream (RFC 1950).
 *
 * Where libdeflate is available it makes the streams of the default
 * strategy at window 15 (about three times faster than zlib at level 9,
 * and smaller; doc/compressors.md has the figures) and decodes all
 * streams. zlib does the rest: libdeflate has neither strategies nor a
 * window below 32 KiB.
 */
#include "config.h"

#include "comp/internal.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef WITH_LIBDEFLATE
#include <libdeflate.h>

/* libdeflate gives up on a stream that would end within a few bytes of
 * the buffer's end (9 at most, measured), so it writes into a scratch
 * buffer this much larger than the limit and the result is checked. */
#define LD_SLACK 64
#endif

#define GZIP_STRATEGY_COUNT 5

static const struct {
	const char *name;
	uint16_t bit;
	int zlib_strategy;
} strategies[GZIP_STRATEGY_COUNT] = {
    {"default", SQFS_GZIP_DEFAULT, Z_DEFAULT_STRATEGY},
    {"filtered", SQFS_GZIP_FILTERED, Z_FILTERED},
    {"huffman", SQFS_GZIP_HUFFMAN, Z_HUFFMAN_ONLY},
    {"rle", SQFS_GZIP_RLE, Z_RLE},
    {"fixed", SQFS_GZIP_FIXED, Z_FIXED},
};

typedef struct {
	sqfs_compressor_t base;

#ifdef WITH_LIBDEFLATE
	/* The default strategy at window 15, if selected; it is the first
	 * candidate, ahead of the zlib streams. */
	struct libdeflate_compressor *ld_deflate;
	struct libdeflate_decompressor *ld_inflate;
	uint8_t *ld_scratch;
	size_t ld_scratch_size;
#endif

	/*
	 * One deflate stream per other selected strategy, in bit order.
	 * Older zlib versions emit stray bytes when deflateParams is called
	 * on a reset stream, so the strategy is never changed on a live
	 * stream.
	 */
	z_stream deflate[GZIP_STRATEGY_COUNT];
	size_t deflate_count;
	/* All candidates: deflate_count, plus one for libdeflate. */
	size_t candidates;

	/* Holds the candidate of the second and later strategies. */
	uint8_t *scratch;
	size_t scratch_size;

	z_stream inflate;
	bool inflate_ready;
} gzip_compressor_t;

static void gzip_defaults(sqfs_compressor_config_t *cfg)
{
	cfg->opt.gzip.level = SQFS_GZIP_DEFAULT_LEVEL;
	cfg->opt.gzip.window_size = SQFS_GZIP_DEFAULT_WINDOW;
	cfg->opt.gzip.strategies = 0;
}

static int gzip_validate(const sqfs_compressor_config_t *cfg)
{
	if (cfg->opt.gzip.level < SQFS_GZIP_MIN_LEVEL ||
	    cfg->opt.gzip.level > SQFS_GZIP_MAX_LEVEL)
		return SQFS_ERROR_ARG_INVALID;
	if (cfg->opt.gzip.window_size < SQFS_GZIP_MIN_WINDOW ||
	    cfg->opt.gzip.window_size > SQFS_GZIP_MAX_WINDOW)
		return SQFS_ERROR_ARG_INVALID;
	if (cfg->opt.gzip.strategies & ~SQFS_GZIP_ALL_STRATEGIES)
		return SQFS_ERROR_ARG_INVALID;
	return 0;
}

static int gzip_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			     const char *value, char *err, size_t errsize)
{
	uint32_t v;
	int ret;

	if (strcmp(key, "level") == 0) {
		ret = comp_parse_uint(key, value, SQFS_GZIP_MIN_LEVEL,
				      SQFS_GZIP_MAX_LEVEL, &v, err, errsize);
		if (ret == 0)
			cfg->opt.gzip.level = v;
		return ret;
	}

	if (strcmp(key, "window") == 0) {
		ret = comp_parse_uint(key, value, SQFS_GZIP_MIN_WINDOW,
				      SQFS_GZIP_MAX_WINDOW, &v, err, errsize);
		if (ret == 0)
			cfg->opt.gzip.window_size = (uint16_t)v;
		return ret;
	}

	for (size_t i = 0; i < GZIP_STRATEGY_COUNT; ++i) {
		if (strcmp(key, strategies[i].name) != 0)
			continue;
		if (value != NULL) {
			return comp_error(err, errsize,
					  "gzip: '%s' takes no value", key);
		}
		cfg->opt.gzip.strategies |= strategies[i].bit;
		return 0;
	}

	return comp_error(err, errsize, "gzip: unknown option '%s'", key);
}

static int gzip_format(const sqfs_compressor_config_t *cfg, char *buf,
		       size_t size)
{
	size_t len = 0;
	int ret;

	ret = snprintf(buf, size, "level=%u,window=%u",
		       (unsigned)cfg->opt.gzip.level,
		       (unsigned)cfg->opt.gzip.window_size);
	if (ret < 0)
		return ret;
	len = (size_t)ret;

	for (size_t i = 0; i < GZIP_STRATEGY_COUNT; ++i) {
		if (!(cfg->opt.gzip.strategies & strategies[i].bit))
			continue;
		/* keep measuring once the buffer is full, like snprintf */
		ret = snprintf(len < size ? buf + len : NULL,
			       len < size ? size - len : 0, ",%s",
			       strategies[i].name);
		if (ret < 0)
			return ret;
		len += (size_t)ret;
	}

	return len > INT_MAX ? -1 : (int)len;
}

static size_t gzip_encode_options(const sqfs_compressor_config_t *cfg,
				  uint8_t out[SQFS_COMP_OPTIONS_MAX_SIZE])
{
	if (cfg->opt.gzip.level == SQFS_GZIP_DEFAULT_LEVEL &&
	    cfg->opt.gzip.window_size == SQFS_GZIP_DEFAULT_WINDOW &&
	    cfg->opt.gzip.strategies == 0)
		return 0;

	put_le32(out, cfg->opt.gzip.level);
	put_le16(out + 4, cfg->opt.gzip.window_size);
	put_le16(out + 6, cfg->opt.gzip.strategies);
	return 8;
}

static int gzip_decode_options(sqfs_compressor_config_t *cfg,
			       const uint8_t *payload, size_t size)
{
	uint32_t level;
	uint16_t window, strat;

	if (size != 8)
		return SQFS_ERROR_CORRUPTED;

	level = get_le32(payload);
	window = get_le16(payload + 4);
	strat = get_le16(payload + 6);

	if (level < SQFS_GZIP_MIN_LEVEL || level > SQFS_GZIP_MAX_LEVEL)
		return SQFS_ERROR_CORRUPTED;
	if (window < SQFS_GZIP_MIN_WINDOW || window > SQFS_GZIP_MAX_WINDOW)
		return SQFS_ERROR_CORRUPTED;
	if (strat & ~SQFS_GZIP_ALL_STRATEGIES)
		return SQFS_ERROR_CORRUPTED;

	cfg->opt.gzip.level = level;
	cfg->opt.gzip.window_size = window;
	cfg->opt.gzip.strategies = strat;
	return 0;
}

static void gzip_destroy(sqfs_compressor_t *base)
{
	gzip_compressor_t *gz = (gzip_compressor_t *)base;

	for (size_t i = 0; i < gz->deflate_count; ++i)
		deflateEnd(&gz->deflate[i]);
#ifdef WITH_LIBDEFLATE
	libdeflate_free_compressor(gz->ld_deflate);
	libdeflate_free_decompressor(gz->ld_inflate);
	free(gz->ld_scratch);
#endif
	if (gz->inflate_ready)
		inflateEnd(&gz->inflate);
	free(gz->scratch);
	free(gz);
}

static int zlib_init_error(int zret)
{
	return zret == Z_MEM_ERROR ? SQFS_ERROR_ALLOC : SQFS_ERROR_COMPRESSOR;
}

/*
 * Compress into out with at most limit bytes. Returns the stream size, 0
 * if it did not fit, or a negative error.
 */
static ptrdiff_t deflate_one(z_stream *strm, const uint8_t *in, size_t size,
			     uint8_t *out, size_t limit)
{
	int ret = deflateReset(strm);

	if (ret != Z_OK)
		return SQFS_ERROR_COMPRESSOR;

	strm->next_in = (Bytef *)in;
	strm->avail_in = (uInt)size;
	strm->next_out = out;
	strm->avail_out = (uInt)limit;

	ret = deflate(strm, Z_FINISH);
	if (ret == Z_STREAM_END)
		return (ptrdiff_t)strm->total_out;
	if (ret == Z_OK || ret == Z_BUF_ERROR)
		return 0;
	return SQFS_ERROR_COMPRESSOR;
}

/* Candidate i (see gzip_compressor_t) into out, as deflate_one. */
static ptrdiff_t candidate(gzip_compressor_t *gz, size_t i, const uint8_t *in,
			   size_t size, uint8_t *out, size_t limit)
{
#ifdef WITH_LIBDEFLATE
	if (gz->ld_deflate != NULL) {
		size_t ret;

		if (i == 0) {
			size_t cap = gz->ld_scratch_size;

			if (limit < cap - LD_SLACK)
				cap = limit + LD_SLACK;
			/* 0: it did not fit */
			ret = libdeflate_zlib_compress(gz->ld_deflate, in, size,
						       gz->ld_scratch, cap);
			if (ret == 0 || ret > limit)
				return 0;
			memcpy(out, gz->ld_scratch, ret);
			return (ptrdiff_t)ret;
		}
		--i;
	}
#endif
	return deflate_one(&gz->deflate[i], in, size, out, limit);
}

static ptrdiff_t gzip_compress(sqfs_compressor_t *base, const uint8_t *in,
			       size_t size, uint8_t *out, size_t outsize)
{
	gzip_compressor_t *gz = (gzip_compressor_t *)base;
	size_t limit = size - 1;
	ptrdiff_t best = 0, ret;

	if (gz->candidates == 0)
		return SQFS_ERROR_SEQUENCE;
	if (size > UINT_MAX)
		return 0;
	if (outsize < limit)
		limit = outsize;

	for (size_t i = 0; i < gz->candidates; ++i) {
		/* the first result that fits goes to out, later ones must
		 * beat it in the scratch buffer */
		if (best == 0) {
			ret = candidate(gz, i, in, size, out, limit);
		} else {
			size_t cap = (size_t)best - 1;

			if (cap > gz->scratch_size)
				cap = gz->scratch_size;
			ret = candidate(gz, i, in, size, gz->scratch, cap);
			if (ret > 0)
				memcpy(out, gz->scratch, (size_t)ret);
		}
		if (ret < 0)
			return ret;
		if (ret > 0)
			best = ret;
	}

	return best;
}

#ifdef WITH_LIBDEFLATE
static ptrdiff_t gzip_uncompress(sqfs_compressor_t *base, const uint8_t *in,
				 size_t size, uint8_t *out, size_t outsize)
{
	gzip_compressor_t *gz = (gzip_compressor_t *)base;
	size_t used = 0, len = 0;

	if (outsize > PTRDIFF_MAX)
		outsize = PTRDIFF_MAX;

	switch (libdeflate_zlib_decompress_ex(gz->ld_inflate, in, size, out,
					      outsize, &used, &len)) {
	case LIBDEFLATE_SUCCESS:
		/* a block is exactly one stream: trailing bytes mean the
		 * size in the inode or the stream is wrong */
		if (used != size || len > outsize)
			return SQFS_ERROR_CORRUPTED;
		return (ptrdiff_t)len;
	case LIBDEFLATE_INSUFFICIENT_SPACE:
		return SQFS_ERROR_OVERFLOW;
	default:
		return SQFS_ERROR_CORRUPTED;
	}
}
#else
static ptrdiff_t gzip_uncompress(sqfs_compressor_t *base, const uint8_t *in,
				 size_t size, uint8_t *out, size_t outsize)
{
	gzip_compressor_t *gz = (gzip_compressor_t *)base;
	z_stream *strm = &gz->inflate;
	int ret;

	if (size > UINT_MAX)
		return SQFS_ERROR_CORRUPTED;
	if (outsize > UINT_MAX)
		outsize = UINT_MAX;

	if (inflateReset(strm) != Z_OK)
		return SQFS_ERROR_COMPRESSOR;

	strm->next_in = (Bytef *)in;
	strm->avail_in = (uInt)size;
	strm->next_out = out;
	strm->avail_out = (uInt)outsize;

	ret = inflate(strm, Z_FINISH);
	switch (ret) {
	case Z_STREAM_END:
		/* a block is exactly one stream: trailing bytes mean the
		 * size in the inode or the stream is wrong */
		if (strm->avail_in != 0)
			return SQFS_ERROR_CORRUPTED;
		return (ptrdiff_t)strm->total_out;
	case Z_OK:
	case Z_BUF_ERROR:
		if (strm->avail_out == 0)
			return SQFS_ERROR_OVERFLOW;
		return SQFS_ERROR_CORRUPTED;
	case Z_MEM_ERROR:
		return SQFS_ERROR_ALLOC;
	default:
		return SQFS_ERROR_CORRUPTED;
	}
}
#endif

static int gzip_create(const sqfs_compressor_config_t *cfg,
		       sqfs_compressor_t **out);

static int gzip_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	return gzip_create(&cmp->cfg, out);
}

static const compressor_ops_t gzip_ops = {
    .destroy = gzip_destroy,
    .copy = gzip_copy,
    .compress = gzip_compress,
    .uncompress = gzip_uncompress,
};

static int gzip_init_deflate(gzip_compressor_t *gz,
			     const sqfs_compressor_config_t *cfg)
{
	uint16_t selected = cfg->opt.gzip.strategies;
	int ret;

	if (selected == 0)
		selected = SQFS_GZIP_DEFAULT;

#ifdef WITH_LIBDEFLATE
	/* libdeflate's window is always 32 KiB, and its levels 1..9 are
	 * zlib's */
	if ((selected & SQFS_GZIP_DEFAULT) && cfg->opt.gzip.window_size == 15) {
		gz->ld_deflate =
		    libdeflate_alloc_compressor((int)cfg->opt.gzip.level);
		gz->ld_scratch_size = (cfg->block_size > SQFS_META_BLOCK_SIZE
					   ? cfg->block_size
					   : SQFS_META_BLOCK_SIZE) +
				      LD_SLACK;
		gz->ld_scratch = malloc(gz->ld_scratch_size);
		if (gz->ld_deflate == NULL || gz->ld_scratch == NULL)
			return SQFS_ERROR_ALLOC;
		selected &= (uint16_t)~SQFS_GZIP_DEFAULT;
		gz->candidates++;
	}
#endif

	for (size_t i = 0; i < GZIP_STRATEGY_COUNT; ++i) {
		z_stream *strm = &gz->deflate[gz->deflate_count];

		if (!(selected & strategies[i].bit))
			continue;

		/* zlib silently turns window 8 into 9; the stream header
		 * then says 9, which every inflater accepts */
		ret = deflateInit2(strm, (int)cfg->opt.gzip.level, Z_DEFLATED,
				   (int)cfg->opt.gzip.window_size, 8,
				   strategies[i].zlib_strategy);
		if (ret != Z_OK)
			return zlib_init_error(ret);
		gz->deflate_count++;
		gz->candidates++;
	}

	if (gz->candidates > 1) {
		gz->scratch_size = cfg->block_size > SQFS_META_BLOCK_SIZE
				       ? cfg->block_size
				       : SQFS_META_BLOCK_SIZE;
		gz->scratch = malloc(gz->scratch_size);
		if (gz->scratch == NULL)
			return SQFS_ERROR_ALLOC;
	}
	return 0;
}

static int gzip_create(const sqfs_compressor_config_t *cfg,
		       sqfs_compressor_t **out)
{
	gzip_compressor_t *gz = calloc(1, sizeof(*gz));
	int ret;

	if (gz == NULL)
		return SQFS_ERROR_ALLOC;

	gz->base.ops = &gzip_ops;
	gz->base.cfg = *cfg;

#ifdef WITH_LIBDEFLATE
	/* it decodes streams of any window */
	gz->ld_inflate = libdeflate_alloc_decompressor();
	if (gz->ld_inflate == NULL) {
		free(gz);
		return SQFS_ERROR_ALLOC;
	}
#else
	/* 15 accepts streams made with any smaller window */
	ret = inflateInit2(&gz->inflate, 15);
	if (ret != Z_OK) {
		free(gz);
		return zlib_init_error(ret);
	}
	gz->inflate_ready = true;
#endif

	if (!(cfg->flags & SQFS_COMP_FLAG_UNCOMPRESS)) {
		ret = gzip_init_deflate(gz, cfg);
		if (ret != 0) {
			gzip_destroy(&gz->base);
			return ret;
		}
	}

	*out = &gz->base;
	return 0;
}

const comp_backend_t sqfs_comp_gzip = {
    .id = SQFS_COMP_GZIP,
    .name = "gzip",
    .help = "level=<1..9>     compression level (default 9)\n"
	    "window=<8..15>   deflate window size, as a power of two "
	    "(default 15)\n"
	    "default          strategy default; with several strategies each "
	    "block keeps the smallest result (none given: default)\n"
	    "filtered         strategy filtered\n"
	    "huffman          strategy Huffman only\n"
	    "rle              strategy run-length encoding\n"
	    "fixed            strategy fixed Huffman codes\n",
    .defaults = gzip_defaults,
    .validate = gzip_validate,
    .parse_option = gzip_parse_option,
    .format = gzip_format,
    .encode_options = gzip_encode_options,
    .decode_options = gzip_decode_options,
    .create = gzip_create,
};

/* SPDX-License-Identifier: MIT */
/*
 * zstd.c - the zstd compressor: every block is one zstd frame.
 */
#include "config.h"

#include "comp/internal.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Frames of other writers never need more than the largest block. */
#define ZSTD_DECODE_WINDOW_LOG_MAX 20

typedef struct {
	sqfs_compressor_t base;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	/*
	 * zstd needs some slack in its output buffer: a block that would
	 * fit exactly can fail to compress in place, so it goes here first.
	 */
	uint8_t *scratch;
	size_t scratch_size;
} zstd_compressor_t;

static void zstd_defaults(sqfs_compressor_config_t *cfg)
{
	cfg->opt.zstd.level = SQFS_ZSTD_DEFAULT_LEVEL;
}

static int zstd_validate(const sqfs_compressor_config_t *cfg)
{
	if (cfg->opt.zstd.level < SQFS_ZSTD_MIN_LEVEL ||
	    cfg->opt.zstd.level > SQFS_ZSTD_MAX_LEVEL)
		return SQFS_ERROR_ARG_INVALID;
	return 0;
}

static int zstd_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			     const char *value, char *err, size_t errsize)
{
	uint32_t v;
	int ret;

	if (strcmp(key, "level") != 0)
		return comp_error(err, errsize, "zstd: unknown option '%s'",
				  key);

	ret = comp_parse_uint(key, value, SQFS_ZSTD_MIN_LEVEL,
			      SQFS_ZSTD_MAX_LEVEL, &v, err, errsize);
	if (ret == 0)
		cfg->opt.zstd.level = v;
	return ret;
}

static int zstd_format(const sqfs_compressor_config_t *cfg, char *buf,
		       size_t size)
{
	return snprintf(buf, size, "level=%u", (unsigned)cfg->opt.zstd.level);
}

static size_t zstd_encode_options(const sqfs_compressor_config_t *cfg,
				  uint8_t out[SQFS_COMP_OPTIONS_MAX_SIZE])
{
	if (cfg->opt.zstd.level == SQFS_ZSTD_DEFAULT_LEVEL)
		return 0;

	put_le32(out, cfg->opt.zstd.level);
	return 4;
}

static int zstd_decode_options(sqfs_compressor_config_t *cfg,
			       const uint8_t *payload, size_t size)
{
	uint32_t level;

	if (size != 4)
		return SQFS_ERROR_CORRUPTED;

	level = get_le32(payload);
	if (level < SQFS_ZSTD_MIN_LEVEL || level > SQFS_ZSTD_MAX_LEVEL)
		return SQFS_ERROR_CORRUPTED;

	cfg->opt.zstd.level = level;
	return 0;
}

/* The kernel decodes with a window of max(block_size, 8192). */
static int window_log(uint32_t block_size)
{
	uint32_t window = block_size > SQFS_META_BLOCK_SIZE
			      ? block_size
			      : SQFS_META_BLOCK_SIZE;
	int log = 0;

	while (log < 31 && (UINT32_C(1) << log) < window)
		++log;
	return log;
}

static void zstd_destroy(sqfs_compressor_t *base)
{
	zstd_compressor_t *zs = (zstd_compressor_t *)base;

	ZSTD_freeCCtx(zs->cctx);
	ZSTD_freeDCtx(zs->dctx);
	free(zs->scratch);
	free(zs);
}

static ptrdiff_t zstd_compress(sqfs_compressor_t *base, const uint8_t *in,
			       size_t size, uint8_t *out, size_t outsize)
{
	zstd_compressor_t *zs = (zstd_compressor_t *)base;
	size_t ret;

	if (zs->cctx == NULL)
		return SQFS_ERROR_SEQUENCE;

	ret = ZSTD_compress2(zs->cctx, zs->scratch, zs->scratch_size, in, size);
	if (ZSTD_isError(ret))
		return SQFS_ERROR_COMPRESSOR;
	if (ret >= size || ret > outsize || ret > PTRDIFF_MAX)
		return 0;

	memcpy(out, zs->scratch, ret);
	return (ptrdiff_t)ret;
}

static ptrdiff_t zstd_uncompress(sqfs_compressor_t *base, const uint8_t *in,
				 size_t size, uint8_t *out, size_t outsize)
{
	zstd_compressor_t *zs = (zstd_compressor_t *)base;
	unsigned long long content;
	size_t ret;

	/* refuse a bomb before doing any work */
	content = ZSTD_getFrameContentSize(in, size);
	if (content == ZSTD_CONTENTSIZE_ERROR)
		return SQFS_ERROR_CORRUPTED;
	if (content != ZSTD_CONTENTSIZE_UNKNOWN && content > outsize)
		return SQFS_ERROR_OVERFLOW;

	/* exactly one frame: ZSTD_decompressDCtx would go on to decode
	 * whatever follows the first one */
	ret = ZSTD_findFrameCompressedSize(in, size);
	if (ZSTD_isError(ret) || ret != size)
		return SQFS_ERROR_CORRUPTED;

	ret = ZSTD_decompressDCtx(zs->dctx, out, outsize, in, size);
	if (ZSTD_isError(ret)) {
		switch (ZSTD_getErrorCode(ret)) {
		case ZSTD_error_dstSize_tooSmall:
			return SQFS_ERROR_OVERFLOW;
		case ZSTD_error_memory_allocation:
			return SQFS_ERROR_ALLOC;
		default:
			return SQFS_ERROR_CORRUPTED;
		}
	}
	if (ret > outsize || ret > PTRDIFF_MAX)
		return SQFS_ERROR_CORRUPTED;
	return (ptrdiff_t)ret;
}

static int zstd_create(const sqfs_compressor_config_t *cfg,
		       sqfs_compressor_t **out);

static int zstd_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	return zstd_create(&cmp->cfg, out);
}

static const compressor_ops_t zstd_ops = {
    .destroy = zstd_destroy,
    .copy = zstd_copy,
    .compress = zstd_compress,
    .uncompress = zstd_uncompress,
};

static int zstd_init_cctx(zstd_compressor_t *zs,
			  const sqfs_compressor_config_t *cfg)
{
	uint32_t max = cfg->block_size > SQFS_META_BLOCK_SIZE
			   ? cfg->block_size
			   : SQFS_META_BLOCK_SIZE;

	zs->scratch_size = ZSTD_compressBound(max);
	zs->scratch = malloc(zs->scratch_size);
	if (zs->scratch == NULL)
		return SQFS_ERROR_ALLOC;

	zs->cctx = ZSTD_createCCtx();
	if (zs->cctx == NULL)
		return SQFS_ERROR_ALLOC;

	if (ZSTD_isError(ZSTD_CCtx_setParameter(
		zs->cctx, ZSTD_c_compressionLevel, (int)cfg->opt.zstd.level)))
		return SQFS_ERROR_COMPRESSOR;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(zs->cctx, ZSTD_c_windowLog,
						window_log(cfg->block_size))))
		return SQFS_ERROR_COMPRESSOR;
	if (ZSTD_isError(
		ZSTD_CCtx_setParameter(zs->cctx, ZSTD_c_contentSizeFlag, 1)))
		return SQFS_ERROR_COMPRESSOR;
	return 0;
}

static int zstd_create(const sqfs_compressor_config_t *cfg,
		       sqfs_compressor_t **out)
{
	zstd_compressor_t *zs = calloc(1, sizeof(*zs));
	int ret;

	if (zs == NULL)
		return SQFS_ERROR_ALLOC;

	zs->base.ops = &zstd_ops;
	zs->base.cfg = *cfg;

	zs->dctx = ZSTD_createDCtx();
	if (zs->dctx == NULL) {
		ret = SQFS_ERROR_ALLOC;
		goto fail;
	}
	if (ZSTD_isError(ZSTD_DCtx_setParameter(zs->dctx, ZSTD_d_windowLogMax,
						ZSTD_DECODE_WINDOW_LOG_MAX))) {
		ret = SQFS_ERROR_COMPRESSOR;
		goto fail;
	}

	if (!(cfg->flags & SQFS_COMP_FLAG_UNCOMPRESS)) {
		ret = zstd_init_cctx(zs, cfg);
		if (ret != 0)
			goto fail;
	}

	*out = &zs->base;
	return 0;
fail:
	zstd_destroy(&zs->base);
	return ret;
}

const comp_backend_t sqfs_comp_zstd = {
    .id = SQFS_COMP_ZSTD,
    .name = "zstd",
    .help = "level=<1..22>    compression level (default 15)\n",
    .defaults = zstd_defaults,
    .validate = zstd_validate,
    .parse_option = zstd_parse_option,
    .format = zstd_format,
    .encode_options = zstd_encode_options,
    .decode_options = zstd_decode_options,
    .create = zstd_create,
};

/* SPDX-License-Identifier: MIT */
/*
 * lz4.c - the lz4 compressor: every block is one raw LZ4 block (no frame).
 */
#include "config.h"

#include "comp/internal.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The only options-block version the kernel mounts. */
#define LZ4_OPTIONS_VERSION 1
/* Newer squashfs-tools: a u32 level follows the flags. */
#define LZ4_FLAG_HAS_LEVEL 0x02

typedef struct {
	sqfs_compressor_t base;
	void *state;
	/* Room for the worst case, so the encoder never runs short. */
	uint8_t *scratch;
	size_t scratch_size;
} lz4_compressor_t;

static void lz4_defaults(sqfs_compressor_config_t *cfg)
{
	cfg->opt.lz4.flags = 0;
}

static int lz4_validate(const sqfs_compressor_config_t *cfg)
{
	if (cfg->opt.lz4.flags & ~(uint32_t)SQFS_LZ4_HC)
		return SQFS_ERROR_ARG_INVALID;
	return 0;
}

static int lz4_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			    const char *value, char *err, size_t errsize)
{
	if (strcmp(key, "hc") != 0)
		return comp_error(err, errsize, "lz4: unknown option '%s'",
				  key);
	if (value != NULL)
		return comp_error(err, errsize, "lz4: '%s' takes no value",
				  key);

	cfg->opt.lz4.flags |= SQFS_LZ4_HC;
	return 0;
}

static int lz4_format(const sqfs_compressor_config_t *cfg, char *buf,
		      size_t size)
{
	return snprintf(buf, size, "%s",
			(cfg->opt.lz4.flags & SQFS_LZ4_HC) ? "hc" : "");
}

/* Always written: the kernel refuses lz4 images without the block. */
static size_t lz4_encode_options(const sqfs_compressor_config_t *cfg,
				 uint8_t out[SQFS_COMP_OPTIONS_MAX_SIZE])
{
	put_le32(out, LZ4_OPTIONS_VERSION);
	put_le32(out + 4, cfg->opt.lz4.flags);
	return 8;
}

static int lz4_decode_options(sqfs_compressor_config_t *cfg,
			      const uint8_t *payload, size_t size)
{
	uint32_t flags, known = SQFS_LZ4_HC;

	/* the 12-byte variant's level only tunes the encoder; decoding
	 * needs none of it, and re-encoding uses the HC maximum */
	if (size == 12)
		known |= LZ4_FLAG_HAS_LEVEL;
	else if (size != 8)
		return SQFS_ERROR_CORRUPTED;

	if (get_le32(payload) != LZ4_OPTIONS_VERSION)
		return SQFS_ERROR_CORRUPTED;

	flags = get_le32(payload + 4);
	if (flags & ~known)
		return SQFS_ERROR_CORRUPTED;

	cfg->opt.lz4.flags = flags & SQFS_LZ4_HC;
	return 0;
}

static void lz4_destroy(sqfs_compressor_t *base)
{
	lz4_compressor_t *lz = (lz4_compressor_t *)base;

	free(lz->state);
	free(lz->scratch);
	free(lz);
}

static ptrdiff_t lz4_compress(sqfs_compressor_t *base, const uint8_t *in,
			      size_t size, uint8_t *out, size_t outsize)
{
	lz4_compressor_t *lz = (lz4_compressor_t *)base;
	int ret;

	if (lz->scratch == NULL)
		return SQFS_ERROR_SEQUENCE;
	if (size > LZ4_MAX_INPUT_SIZE ||
	    (size_t)LZ4_compressBound((int)size) > lz->scratch_size)
		return SQFS_ERROR_INTERNAL;

	if (base->cfg.opt.lz4.flags & SQFS_LZ4_HC) {
		ret = LZ4_compress_HC_extStateHC(
		    lz->state, (const char *)in, (char *)lz->scratch, (int)size,
		    (int)lz->scratch_size, LZ4HC_CLEVEL_MAX);
	} else {
		ret = LZ4_compress_fast_extState(lz->state, (const char *)in,
						 (char *)lz->scratch, (int)size,
						 (int)lz->scratch_size, 1);
	}

	if (ret <= 0)
		return SQFS_ERROR_COMPRESSOR;
	if ((size_t)ret >= size || (size_t)ret > outsize)
		return 0;

	memcpy(out, lz->scratch, (size_t)ret);
	return ret;
}

static ptrdiff_t lz4_uncompress(sqfs_compressor_t *base, const uint8_t *in,
				size_t size, uint8_t *out, size_t outsize)
{
	int ret;

	(void)base;
	if (size > INT_MAX)
		return SQFS_ERROR_CORRUPTED;
	if (outsize > INT_MAX)
		outsize = INT_MAX;

	/* lz4 reports a too small buffer just like a broken block */
	ret = LZ4_decompress_safe((const char *)in, (char *)out, (int)size,
				  (int)outsize);
	if (ret < 0)
		return SQFS_ERROR_CORRUPTED;
	return ret;
}

static int lz4_create(const sqfs_compressor_config_t *cfg,
		      sqfs_compressor_t **out);

static int lz4_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	return lz4_create(&cmp->cfg, out);
}

static const compressor_ops_t lz4_ops = {
    .destroy = lz4_destroy,
    .copy = lz4_copy,
    .compress = lz4_compress,
    .uncompress = lz4_uncompress,
};

static int lz4_init_encoder(lz4_compressor_t *lz,
			    const sqfs_compressor_config_t *cfg)
{
	uint32_t max = cfg->block_size > SQFS_META_BLOCK_SIZE
			   ? cfg->block_size
			   : SQFS_META_BLOCK_SIZE;
	int state_size, bound;

	if (cfg->opt.lz4.flags & SQFS_LZ4_HC)
		state_size = LZ4_sizeofStateHC();
	else
		state_size = LZ4_sizeofState();

	bound = max <= LZ4_MAX_INPUT_SIZE ? LZ4_compressBound((int)max) : 0;
	if (state_size <= 0 || bound <= 0)
		return SQFS_ERROR_COMPRESSOR;

	lz->state = malloc((size_t)state_size);
	lz->scratch_size = (size_t)bound;
	lz->scratch = malloc(lz->scratch_size);
	if (lz->state == NULL || lz->scratch == NULL)
		return SQFS_ERROR_ALLOC;
	return 0;
}

static int lz4_create(const sqfs_compressor_config_t *cfg,
		      sqfs_compressor_t **out)
{
	lz4_compressor_t *lz = calloc(1, sizeof(*lz));
	int ret;

	if (lz == NULL)
		return SQFS_ERROR_ALLOC;

	lz->base.ops = &lz4_ops;
	lz->base.cfg = *cfg;

	if (!(cfg->flags & SQFS_COMP_FLAG_UNCOMPRESS)) {
		ret = lz4_init_encoder(lz, cfg);
		if (ret != 0) {
			lz4_destroy(&lz->base);
			return ret;
		}
	}

	*out = &lz->base;
	return 0;
}

const comp_backend_t sqfs_comp_lz4 = {
    .id = SQFS_COMP_LZ4,
    .name = "lz4",
    .help = "hc               high compression: slower, smaller "
	    "(default off)\n",
    .defaults = lz4_defaults,
    .validate = lz4_validate,
    .parse_option = lz4_parse_option,
    .format = lz4_format,
    .encode_options = lz4_encode_options,
    .decode_options = lz4_decode_options,
    .create = lz4_create,
};

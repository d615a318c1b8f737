/* SPDX-License-Identifier: MIT */
/*
 * lzma_options.c - the LZMA settings and decoder loop shared by the xz and
 * lzma back ends.
 */
#include "config.h"

#include "comp/lzma_internal.h"

#include <stdio.h>
#include <string.h>

static uint32_t dict_size_max(uint32_t block_size)
{
	return block_size > SQFS_XZ_MIN_DICT_SIZE ? block_size
						  : SQFS_XZ_MIN_DICT_SIZE;
}

bool lzmaopt_dict_size_valid(uint32_t dict_size, uint32_t block_size)
{
	uint32_t low = dict_size & (~dict_size + 1);

	if (dict_size == block_size)
		return true;
	if (dict_size < SQFS_XZ_MIN_DICT_SIZE ||
	    dict_size > dict_size_max(block_size))
		return false;
	/* the kernel's xz decoder takes only what LZMA2 can encode exactly */
	return dict_size == low || dict_size == 3 * low;
}

void lzmaopt_defaults(sqfs_compressor_config_t *cfg, uint32_t level)
{
	cfg->opt.xz.dict_size = cfg->block_size;
	cfg->opt.xz.level = level;
	cfg->opt.xz.filters = 0;
	cfg->opt.xz.lc = SQFS_XZ_DEFAULT_LC;
	cfg->opt.xz.lp = SQFS_XZ_DEFAULT_LP;
	cfg->opt.xz.pb = SQFS_XZ_DEFAULT_PB;
}

int lzmaopt_validate(const sqfs_compressor_config_t *cfg)
{
	if (!lzmaopt_dict_size_valid(cfg->opt.xz.dict_size, cfg->block_size))
		return SQFS_ERROR_ARG_INVALID;
	if (cfg->opt.xz.level > SQFS_XZ_MAX_LEVEL)
		return SQFS_ERROR_ARG_INVALID;
	if (cfg->opt.xz.lc > LZMA_LCLP_MAX || cfg->opt.xz.lp > LZMA_LCLP_MAX ||
	    cfg->opt.xz.lc + cfg->opt.xz.lp > LZMA_LCLP_MAX)
		return SQFS_ERROR_ARG_INVALID;
	if (cfg->opt.xz.pb > LZMA_PB_MAX)
		return SQFS_ERROR_ARG_INVALID;
	return 0;
}

static int parse_bits(const char *key, const char *value, uint32_t max,
		      uint8_t *out, char *err, size_t errsize)
{
	uint32_t v;
	int ret = comp_parse_uint(key, value, 0, max, &v, err, errsize);

	if (ret == 0)
		*out = (uint8_t)v;
	return ret;
}

int lzmaopt_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			 const char *value, char *err, size_t errsize)
{
	uint32_t v;
	int ret;

	if (strcmp(key, "dictsize") == 0) {
		ret = comp_parse_size(key, value, cfg->block_size, &v, err,
				      errsize);
		if (ret != 0)
			return ret;
		if (!lzmaopt_dict_size_valid(v, cfg->block_size)) {
			return comp_error(
			    err, errsize,
			    "'dictsize': %u must be 2^n or 2^n+2^(n-1) "
			    "bytes, %u to %u",
			    (unsigned)v, SQFS_XZ_MIN_DICT_SIZE,
			    (unsigned)dict_size_max(cfg->block_size));
		}
		cfg->opt.xz.dict_size = v;
		return 0;
	}
	if (strcmp(key, "level") == 0) {
		return comp_parse_uint(key, value, SQFS_XZ_MIN_LEVEL,
				       SQFS_XZ_MAX_LEVEL, &cfg->opt.xz.level,
				       err, errsize);
	}
	if (strcmp(key, "lc") == 0)
		return parse_bits(key, value, LZMA_LCLP_MAX, &cfg->opt.xz.lc,
				  err, errsize);
	if (strcmp(key, "lp") == 0)
		return parse_bits(key, value, LZMA_LCLP_MAX, &cfg->opt.xz.lp,
				  err, errsize);
	if (strcmp(key, "pb") == 0)
		return parse_bits(key, value, LZMA_PB_MAX, &cfg->opt.xz.pb, err,
				  errsize);
	if (strcmp(key, "extreme") == 0) {
		if (value != NULL)
			return comp_error(err, errsize,
					  "'extreme' takes no value");
		cfg->flags |= SQFS_COMP_FLAG_EXTREME;
		return 0;
	}
	return SQFS_LZMA_OPTION_UNKNOWN;
}

int lzmaopt_format(const sqfs_compressor_config_t *cfg, char *buf, size_t size)
{
	return snprintf(buf, size, "dictsize=%u,level=%u,lc=%u,lp=%u,pb=%u%s",
			(unsigned)cfg->opt.xz.dict_size,
			(unsigned)cfg->opt.xz.level, (unsigned)cfg->opt.xz.lc,
			(unsigned)cfg->opt.xz.lp, (unsigned)cfg->opt.xz.pb,
			(cfg->flags & SQFS_COMP_FLAG_EXTREME) ? ",extreme"
							      : "");
}

int lzmaopt_encoder_options(const sqfs_compressor_config_t *cfg,
			    lzma_options_lzma *opt)
{
	uint32_t preset = cfg->opt.xz.level;

	if (cfg->flags & SQFS_COMP_FLAG_EXTREME)
		preset |= LZMA_PRESET_EXTREME;
	if (lzma_lzma_preset(opt, preset))
		return SQFS_ERROR_COMPRESSOR;

	opt->dict_size = cfg->opt.xz.dict_size;
	opt->lc = cfg->opt.xz.lc;
	opt->lp = cfg->opt.xz.lp;
	opt->pb = cfg->opt.xz.pb;
	return 0;
}

ptrdiff_t lzmaopt_run_decoder(lzma_stream *strm, const uint8_t *in, size_t size,
			      uint8_t *out, size_t outsize, bool allow_trailing)
{
	lzma_ret ret;

	strm->next_in = in;
	strm->avail_in = size;
	strm->next_out = out;
	strm->avail_out = outsize;

	/* LZMA_OK means progress; a call that can make none says so with
	 * LZMA_BUF_ERROR, so this ends */
	do {
		ret = lzma_code(strm, LZMA_FINISH);
	} while (ret == LZMA_OK);

	switch (ret) {
	case LZMA_STREAM_END:
		if (strm->avail_in != 0 && !allow_trailing)
			return SQFS_ERROR_CORRUPTED;
		return (ptrdiff_t)(outsize - strm->avail_out);
	case LZMA_BUF_ERROR:
		/* no progress with the output full: the block unpacks past
		 * the bound; with room left: the input ran out */
		return strm->avail_out == 0 ? SQFS_ERROR_OVERFLOW
					    : SQFS_ERROR_CORRUPTED;
	case LZMA_MEM_ERROR:
		return SQFS_ERROR_ALLOC;
	default:
		return SQFS_ERROR_CORRUPTED;
	}
}

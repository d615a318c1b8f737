/* SPDX-License-Identifier: MIT */
/*
 * lzma.c - the lzma back end: each block is a legacy LZMA1 (.lzma,
 * "lzma_alone") stream whose header holds the real uncompressed size, as
 * mksquashfs and gensquashfs write it. The kernel cannot read these
 * images; the tools can.
 */
#include "config.h"

#include "comp/internal.h"
#include "comp/lzma_internal.h"
#include "util/le.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

/* properties byte, u32 dictionary size, u64 uncompressed size */
#define LZMA_HEADER_SIZE 13
#define LZMA_HEADER_SIZE_OFFSET 5
#define LZMA_SIZE_UNKNOWN UINT64_MAX

typedef struct {
	sqfs_compressor_t base;
	lzma_options_lzma opt;
	/* kept so liblzma reuses its buffers between blocks */
	lzma_stream enc;
	lzma_stream dec;
} lzma1_compressor_t;

static const char *const lzma1_filter_names[] = {
    "x86", "powerpc", "ia64", "arm", "armthumb", "sparc", "arm64", "riscv",
};

static void lzma1_defaults(sqfs_compressor_config_t *cfg)
{
	lzmaopt_defaults(cfg, SQFS_LZMA_DEFAULT_LEVEL);
}

static int lzma1_validate(const sqfs_compressor_config_t *cfg)
{
	if (cfg->opt.xz.filters != 0)
		return SQFS_ERROR_ARG_INVALID;
	return lzmaopt_validate(cfg);
}

static int lzma1_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			      const char *value, char *err, size_t errsize)
{
	int ret = lzmaopt_parse_option(cfg, key, value, err, errsize);

	if (ret != SQFS_LZMA_OPTION_UNKNOWN)
		return ret;

	for (size_t i = 0;
	     i < sizeof(lzma1_filter_names) / sizeof(lzma1_filter_names[0]);
	     ++i) {
		if (strcmp(key, lzma1_filter_names[i]) == 0)
			return comp_error(err, errsize,
					  "lzma has no filters ('%s' is "
					  "an xz option)",
					  key);
	}
	return comp_error(err, errsize, "unknown lzma option '%s'", key);
}

static int lzma1_format(const sqfs_compressor_config_t *cfg, char *buf,
			size_t size)
{
	return lzmaopt_format(cfg, buf, size);
}

static size_t lzma1_encode_options(const sqfs_compressor_config_t *cfg,
				   uint8_t out[SQFS_COMP_OPTIONS_MAX_SIZE])
{
	(void)cfg;
	(void)out;
	/* the stream header carries everything a decoder needs */
	return 0;
}

static int lzma1_decode_options(sqfs_compressor_config_t *cfg,
				const uint8_t *payload, size_t size)
{
	(void)cfg;
	(void)payload;
	(void)size;
	/* no writer stores one, and there is no layout to read */
	return SQFS_ERROR_CORRUPTED;
}

static ptrdiff_t lzma1_compress(sqfs_compressor_t *cmp, const uint8_t *in,
				size_t size, uint8_t *out, size_t outsize)
{
	lzma1_compressor_t *lz = (lzma1_compressor_t *)cmp;
	size_t limit = outsize < size - 1 ? outsize : size - 1;
	lzma_ret ret;

	ret = lzma_alone_encoder(&lz->enc, &lz->opt);
	if (ret != LZMA_OK)
		return ret == LZMA_MEM_ERROR ? SQFS_ERROR_ALLOC
					     : SQFS_ERROR_COMPRESSOR;

	lz->enc.next_in = in;
	lz->enc.avail_in = size;
	lz->enc.next_out = out;
	lz->enc.avail_out = limit;

	do {
		ret = lzma_code(&lz->enc, LZMA_FINISH);
	} while (ret == LZMA_OK);

	if (ret == LZMA_BUF_ERROR)
		return 0;
	if (ret != LZMA_STREAM_END)
		return ret == LZMA_MEM_ERROR ? SQFS_ERROR_ALLOC
					     : SQFS_ERROR_COMPRESSOR;

	/* the encoder cannot know the size up front and writes "unknown";
	 * the tools' images hold the real one */
	put_le64(out + LZMA_HEADER_SIZE_OFFSET, (uint64_t)size);
	return (ptrdiff_t)(limit - lz->enc.avail_out);
}

static ptrdiff_t lzma1_uncompress(sqfs_compressor_t *cmp, const uint8_t *in,
				  size_t size, uint8_t *out, size_t outsize)
{
	lzma1_compressor_t *lz = (lzma1_compressor_t *)cmp;
	uint64_t expect;
	lzma_ret ret;

	if (size < LZMA_HEADER_SIZE)
		return SQFS_ERROR_CORRUPTED;

	/* a bomb announces itself in the header: no need to unpack it */
	expect = get_le64(in + LZMA_HEADER_SIZE_OFFSET);
	if (expect != LZMA_SIZE_UNKNOWN && expect > outsize)
		return SQFS_ERROR_OVERFLOW;

	ret = lzma_alone_decoder(&lz->dec, SQFS_LZMA_MEMLIMIT);
	if (ret != LZMA_OK)
		return ret == LZMA_MEM_ERROR ? SQFS_ERROR_ALLOC
					     : SQFS_ERROR_COMPRESSOR;

	/* with a known size the decoder may stop before the end marker
	 * that follows it, so bytes may be left */
	return lzmaopt_run_decoder(&lz->dec, in, size, out, outsize, true);
}

static void lzma1_destroy(sqfs_compressor_t *cmp)
{
	lzma1_compressor_t *lz = (lzma1_compressor_t *)cmp;

	lzma_end(&lz->enc);
	lzma_end(&lz->dec);
	free(lz);
}

static int lzma1_create(const sqfs_compressor_config_t *cfg,
			sqfs_compressor_t **out);

static int lzma1_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	return lzma1_create(&cmp->cfg, out);
}

static const compressor_ops_t lzma1_ops = {
    .destroy = lzma1_destroy,
    .copy = lzma1_copy,
    .compress = lzma1_compress,
    .uncompress = lzma1_uncompress,
};

static int lzma1_create(const sqfs_compressor_config_t *cfg,
			sqfs_compressor_t **out)
{
	lzma1_compressor_t *lz = calloc(1, sizeof(*lz));
	const lzma_stream init = LZMA_STREAM_INIT;
	int ret;

	if (lz == NULL)
		return SQFS_ERROR_ALLOC;

	lz->base.ops = &lzma1_ops;
	lz->base.cfg = *cfg;
	lz->enc = init;
	lz->dec = init;

	if (!(cfg->flags & SQFS_COMP_FLAG_UNCOMPRESS)) {
		ret = lzmaopt_encoder_options(cfg, &lz->opt);
		if (ret != 0) {
			free(lz);
			return ret;
		}
	}

	*out = &lz->base;
	return 0;
}

const comp_backend_t sqfs_comp_lzma = {
    .id = SQFS_COMP_LZMA,
    .name = "lzma",
    .help = SQFS_LZMA_HELP("5"),
    .defaults = lzma1_defaults,
    .validate = lzma1_validate,
    .parse_option = lzma1_parse_option,
    .format = lzma1_format,
    .encode_options = lzma1_encode_options,
    .decode_options = lzma1_decode_options,
    .create = lzma1_create,
};

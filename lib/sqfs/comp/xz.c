/* SPDX-License-Identifier: MIT */
/*
 * xz.c - the xz back end: each block is one complete .xz stream with a
 * CRC32 check, LZMA2 behind an optional BCJ filter.
 */
#include "config.h"

#include "comp/internal.h"
#include "comp/lzma_internal.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XZ_OPTIONS_SIZE 8

typedef struct {
	const char *name;
	uint32_t flag;
	lzma_vli id;
} xz_filter_t;

/*
 * In on-disk bit order, which is also the order they are tried in. A
 * filter this build's liblzma lacks has the id LZMA_VLI_UNKNOWN.
 */
static const xz_filter_t xz_filters[] = {
    {"x86", SQFS_XZ_FILTER_X86, LZMA_FILTER_X86},
    {"powerpc", SQFS_XZ_FILTER_POWERPC, LZMA_FILTER_POWERPC},
    {"ia64", SQFS_XZ_FILTER_IA64, LZMA_FILTER_IA64},
    {"arm", SQFS_XZ_FILTER_ARM, LZMA_FILTER_ARM},
    {"armthumb", SQFS_XZ_FILTER_ARMTHUMB, LZMA_FILTER_ARMTHUMB},
    {"sparc", SQFS_XZ_FILTER_SPARC, LZMA_FILTER_SPARC},
#ifdef LZMA_FILTER_ARM64
    {"arm64", SQFS_XZ_FILTER_ARM64, LZMA_FILTER_ARM64},
#else
    {"arm64", SQFS_XZ_FILTER_ARM64, LZMA_VLI_UNKNOWN},
#endif
#ifdef LZMA_FILTER_RISCV
    {"riscv", SQFS_XZ_FILTER_RISCV, LZMA_FILTER_RISCV},
#else
    {"riscv", SQFS_XZ_FILTER_RISCV, LZMA_VLI_UNKNOWN},
#endif
};

#define XZ_FILTER_COUNT (sizeof(xz_filters) / sizeof(xz_filters[0]))

/*
 * lzma_stream_buffer_encode builds and frees a whole encoder for every
 * block, asking for the same few large buffers each time. malloc gives
 * buffers that large back to the kernel when they are freed, which then
 * has to map and zero fresh pages for the next block (about 4 brk calls
 * and 5% of the time per block). This allocator keeps them instead.
 */
#define XZ_CACHE_SLOTS 16

typedef struct {
	void *ptr;
	size_t size;
	bool in_use;
} xz_cache_slot_t;

typedef struct {
	xz_cache_slot_t slot[XZ_CACHE_SLOTS];
} xz_cache_t;

typedef struct {
	sqfs_compressor_t base;
	lzma_options_lzma opt;
	xz_cache_t cache;
	lzma_allocator allocator;
	/* the decoder is kept so its buffers are reused between blocks */
	lzma_stream strm;
	/* room for the candidates after the first when several filters are
	 * tried; NULL otherwise */
	uint8_t *scratch;
} xz_compressor_t;

static uint32_t xz_supported_filters(void)
{
	uint32_t mask = 0;

	for (size_t i = 0; i < XZ_FILTER_COUNT; ++i) {
		if (xz_filters[i].id != LZMA_VLI_UNKNOWN)
			mask |= xz_filters[i].flag;
	}
	return mask;
}

static size_t xz_max_block(const sqfs_compressor_config_t *cfg)
{
	return cfg->block_size > SQFS_META_BLOCK_SIZE ? cfg->block_size
						      : SQFS_META_BLOCK_SIZE;
}

static void xz_defaults(sqfs_compressor_config_t *cfg)
{
	lzmaopt_defaults(cfg, SQFS_XZ_DEFAULT_LEVEL);
}

static int xz_validate(const sqfs_compressor_config_t *cfg)
{
	/* the bits only record what the writer tried: a reader need not
	 * have those filters to accept the options */
	uint32_t allowed = (cfg->flags & SQFS_COMP_FLAG_UNCOMPRESS)
			       ? SQFS_XZ_FILTER_ALL
			       : xz_supported_filters();

	if (cfg->opt.xz.filters & ~allowed)
		return SQFS_ERROR_ARG_INVALID;
	return lzmaopt_validate(cfg);
}

static int xz_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			   const char *value, char *err, size_t errsize)
{
	size_t i;
	int ret;

	ret = lzmaopt_parse_option(cfg, key, value, err, errsize);
	if (ret != SQFS_LZMA_OPTION_UNKNOWN)
		return ret;

	for (i = 0; i < XZ_FILTER_COUNT; ++i) {
		if (strcmp(key, xz_filters[i].name) != 0)
			continue;
		if (value != NULL)
			return comp_error(err, errsize, "'%s' takes no value",
					  key);
		if (xz_filters[i].id == LZMA_VLI_UNKNOWN)
			return comp_error(
			    err, errsize,
			    "the xz filter '%s' is not supported by the "
			    "liblzma this was built with",
			    key);
		cfg->opt.xz.filters |= xz_filters[i].flag;
		return 0;
	}

	return comp_error(err, errsize, "unknown xz option '%s'", key);
}

static int xz_format(const sqfs_compressor_config_t *cfg, char *buf,
		     size_t size)
{
	int len = lzmaopt_format(cfg, buf, size);

	for (size_t i = 0; i < XZ_FILTER_COUNT && len >= 0; ++i) {
		size_t used = (size_t)len;
		int n;

		if (!(cfg->opt.xz.filters & xz_filters[i].flag))
			continue;
		n = snprintf(used < size ? buf + used : NULL,
			     used < size ? size - used : 0, ",%s",
			     xz_filters[i].name);
		len = n < 0 ? n : len + n;
	}
	return len;
}

static size_t xz_encode_options(const sqfs_compressor_config_t *cfg,
				uint8_t out[SQFS_COMP_OPTIONS_MAX_SIZE])
{
	if (cfg->opt.xz.dict_size == cfg->block_size &&
	    cfg->opt.xz.filters == 0)
		return 0;

	put_le32(out, cfg->opt.xz.dict_size);
	put_le32(out + 4, cfg->opt.xz.filters);
	return XZ_OPTIONS_SIZE;
}

static int xz_decode_options(sqfs_compressor_config_t *cfg,
			     const uint8_t *payload, size_t size)
{
	uint32_t dict_size, filters;

	if (size != XZ_OPTIONS_SIZE)
		return SQFS_ERROR_CORRUPTED;

	dict_size = get_le32(payload);
	filters = get_le32(payload + 4);

	if (!lzmaopt_dict_size_valid(dict_size, cfg->block_size))
		return SQFS_ERROR_CORRUPTED;
	if (filters & ~(uint32_t)SQFS_XZ_FILTER_ALL)
		return SQFS_ERROR_CORRUPTED;

	cfg->opt.xz.dict_size = dict_size;
	cfg->opt.xz.filters = filters;
	return 0;
}

static void *xz_cache_alloc(void *opaque, size_t nmemb, size_t size)
{
	xz_cache_t *cache = opaque;
	xz_cache_slot_t *spare = NULL;
	void *ptr;

	if (nmemb != 0 && size > SIZE_MAX / nmemb)
		return NULL;
	size = nmemb * size;
	if (size == 0)
		size = 1;

	for (size_t i = 0; i < XZ_CACHE_SLOTS; ++i) {
		xz_cache_slot_t *s = cache->slot + i;

		if (s->in_use)
			continue;
		if (s->ptr != NULL && s->size == size) {
			s->in_use = true;
			return s->ptr;
		}
		/* an empty slot, else a cached buffer of another size */
		if (spare == NULL || (spare->ptr != NULL && s->ptr == NULL))
			spare = s;
	}

	ptr = malloc(size);
	if (ptr == NULL || spare == NULL)
		return ptr;
	free(spare->ptr);
	spare->ptr = ptr;
	spare->size = size;
	spare->in_use = true;
	return ptr;
}

static void xz_cache_free(void *opaque, void *ptr)
{
	xz_cache_t *cache = opaque;

	for (size_t i = 0; i < XZ_CACHE_SLOTS; ++i) {
		if (cache->slot[i].ptr == ptr && ptr != NULL) {
			cache->slot[i].in_use = false;
			return;
		}
	}
	free(ptr);
}

/* One candidate: 0 if it does not fit in outsize bytes. */
static ptrdiff_t xz_try(xz_compressor_t *xz, lzma_vli bcj, const uint8_t *in,
			size_t size, uint8_t *out, size_t outsize)
{
	lzma_filter chain[3];
	size_t pos = 0, n = 0;
	lzma_ret ret;

	if (bcj != LZMA_VLI_UNKNOWN) {
		chain[n].id = bcj;
		chain[n++].options = NULL;
	}
	chain[n].id = LZMA_FILTER_LZMA2;
	chain[n++].options = &xz->opt;
	chain[n].id = LZMA_VLI_UNKNOWN;
	chain[n].options = NULL;

	ret = lzma_stream_buffer_encode(chain, LZMA_CHECK_CRC32, &xz->allocator,
					in, size, out, &pos, outsize);
	if (ret == LZMA_OK)
		return (ptrdiff_t)pos;
	if (ret == LZMA_BUF_ERROR)
		return 0;
	return ret == LZMA_MEM_ERROR ? SQFS_ERROR_ALLOC : SQFS_ERROR_COMPRESSOR;
}

static ptrdiff_t xz_compress(sqfs_compressor_t *cmp, const uint8_t *in,
			     size_t size, uint8_t *out, size_t outsize)
{
	xz_compressor_t *xz = (xz_compressor_t *)cmp;
	size_t limit = outsize < size - 1 ? outsize : size - 1;
	ptrdiff_t best, ret;

	best = xz_try(xz, LZMA_VLI_UNKNOWN, in, size, out, limit);
	if (best < 0)
		return best;

	for (size_t i = 0; i < XZ_FILTER_COUNT; ++i) {
		if (!(cmp->cfg.opt.xz.filters & xz_filters[i].flag) ||
		    xz_filters[i].id == LZMA_VLI_UNKNOWN)
			continue;

		/* only a strictly smaller result may replace the best, so
		 * the first of equal candidates wins */
		if (best > 0)
			limit = (size_t)best - 1;

		ret =
		    xz_try(xz, xz_filters[i].id, in, size, xz->scratch, limit);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			memcpy(out, xz->scratch, (size_t)ret);
			best = ret;
		}
	}
	return best;
}

static ptrdiff_t xz_uncompress(sqfs_compressor_t *cmp, const uint8_t *in,
			       size_t size, uint8_t *out, size_t outsize)
{
	xz_compressor_t *xz = (xz_compressor_t *)cmp;
	lzma_ret ret;

	/* any check type is fine: the format only asks writers for CRC32 */
	ret = lzma_stream_decoder(&xz->strm, SQFS_LZMA_MEMLIMIT, 0);
	if (ret != LZMA_OK)
		return ret == LZMA_MEM_ERROR ? SQFS_ERROR_ALLOC
					     : SQFS_ERROR_COMPRESSOR;

	return lzmaopt_run_decoder(&xz->strm, in, size, out, outsize, false);
}

static void xz_destroy(sqfs_compressor_t *cmp)
{
	xz_compressor_t *xz = (xz_compressor_t *)cmp;

	lzma_end(&xz->strm);
	for (size_t i = 0; i < XZ_CACHE_SLOTS; ++i)
		free(xz->cache.slot[i].ptr);
	free(xz->scratch);
	free(xz);
}

static int xz_create(const sqfs_compressor_config_t *cfg,
		     sqfs_compressor_t **out);

static int xz_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	return xz_create(&cmp->cfg, out);
}

static const compressor_ops_t xz_ops = {
    .destroy = xz_destroy,
    .copy = xz_copy,
    .compress = xz_compress,
    .uncompress = xz_uncompress,
};

static int xz_create(const sqfs_compressor_config_t *cfg,
		     sqfs_compressor_t **out)
{
	xz_compressor_t *xz = calloc(1, sizeof(*xz));
	const lzma_stream init = LZMA_STREAM_INIT;
	int ret;

	if (xz == NULL)
		return SQFS_ERROR_ALLOC;

	xz->base.ops = &xz_ops;
	xz->base.cfg = *cfg;
	xz->strm = init;
	xz->allocator.alloc = xz_cache_alloc;
	xz->allocator.free = xz_cache_free;
	xz->allocator.opaque = &xz->cache;

	if (!(cfg->flags & SQFS_COMP_FLAG_UNCOMPRESS)) {
		ret = lzmaopt_encoder_options(cfg, &xz->opt);
		if (ret != 0) {
			free(xz);
			return ret;
		}
		if (cfg->opt.xz.filters != 0) {
			xz->scratch = malloc(xz_max_block(cfg));
			if (xz->scratch == NULL) {
				free(xz);
				return SQFS_ERROR_ALLOC;
			}
		}
	}

	*out = &xz->base;
	return 0;
}

/* clang-format off */
static const char xz_help[] = SQFS_LZMA_HELP("6")
	"x86            try the x86 BCJ filter; with several filters, each is "
	"tried and the smallest result kept (default: none)\n"
	"powerpc        try the PowerPC BCJ filter\n"
	"ia64           try the IA-64 BCJ filter\n"
	"arm            try the ARM BCJ filter\n"
	"armthumb       try the ARM-Thumb BCJ filter\n"
	"sparc          try the SPARC BCJ filter\n"
#ifdef LZMA_FILTER_ARM64
	"arm64          try the ARM64 BCJ filter\n"
#endif
#ifdef LZMA_FILTER_RISCV
	"riscv          try the RISC-V BCJ filter\n"
#endif
	;
/* clang-format on */

const comp_backend_t sqfs_comp_xz = {
    .id = SQFS_COMP_XZ,
    .name = "xz",
    .help = xz_help,
    .defaults = xz_defaults,
    .validate = xz_validate,
    .parse_option = xz_parse_option,
    .format = xz_format,
    .encode_options = xz_encode_options,
    .decode_options = xz_decode_options,
    .create = xz_create,
};

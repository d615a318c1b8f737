/* SPDX-License-Identifier: MIT */
/*
 * lzo.c - the lzo back end: each block is raw LZO1X data, made by one of
 * five compressors that a single decoder reads.
 */
#include "config.h"

#include "comp/internal.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <lzo/lzo1x.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef WITH_PTHREAD
#include <pthread.h>
#endif

#define LZO_OPTIONS_SIZE 8

/* What the level means when another writer stored 0 for lzo1x_999. */
#define LZO_LEVEL_LIBRARY_DEFAULT 0

typedef struct {
	const char *name;
	size_t work_size;
} sqlzo_algorithm_t;

/* Indexed by the on-disk id. */
static const sqlzo_algorithm_t sqlzo_algorithms[] = {
    [SQFS_LZO1X_1] = {"lzo1x_1", LZO1X_1_MEM_COMPRESS},
    [SQFS_LZO1X_1_11] = {"lzo1x_1_11", LZO1X_1_11_MEM_COMPRESS},
    [SQFS_LZO1X_1_12] = {"lzo1x_1_12", LZO1X_1_12_MEM_COMPRESS},
    [SQFS_LZO1X_1_15] = {"lzo1x_1_15", LZO1X_1_15_MEM_COMPRESS},
    [SQFS_LZO1X_999] = {"lzo1x_999", LZO1X_999_MEM_COMPRESS},
};

#define LZO_ALGORITHM_COUNT \
	(sizeof(sqlzo_algorithms) / sizeof(sqlzo_algorithms[0]))

typedef struct {
	sqfs_compressor_t base;
	void *work;
	/* the compressors cannot be told the output size: they write here,
	 * sized for the worst case */
	uint8_t *scratch;
	size_t scratch_size;
} sqlzo_compressor_t;

#ifdef WITH_PTHREAD
static pthread_once_t sqlzo_once = PTHREAD_ONCE_INIT;
static int sqlzo_init_result;

static void sqlzo_init_once(void)
{
	sqlzo_init_result = lzo_init();
}
#endif

static int sqlzo_global_init(void)
{
#ifdef WITH_PTHREAD
	if (pthread_once(&sqlzo_once, sqlzo_init_once) != 0)
		return SQFS_ERROR_INTERNAL;
#else
	static bool done;
	static int sqlzo_init_result;

	if (!done) {
		sqlzo_init_result = lzo_init();
		done = true;
	}
#endif
	return sqlzo_init_result == LZO_E_OK ? 0 : SQFS_ERROR_COMPRESSOR;
}

static void sqlzo_defaults(sqfs_compressor_config_t *cfg)
{
	cfg->opt.lzo.algorithm = SQFS_LZO_DEFAULT_ALGORITHM;
	cfg->opt.lzo.level = SQFS_LZO_DEFAULT_LEVEL;
}

/* Levels other writers store: 0..9 for lzo1x_999, only 0 for the rest. */
static bool sqlzo_settings_valid(uint32_t algorithm, uint32_t level)
{
	if (algorithm >= LZO_ALGORITHM_COUNT)
		return false;
	if (algorithm == SQFS_LZO1X_999)
		return level <= SQFS_LZO_MAX_LEVEL;
	return level == 0;
}

static int sqlzo_validate(const sqfs_compressor_config_t *cfg)
{
	return sqlzo_settings_valid(cfg->opt.lzo.algorithm, cfg->opt.lzo.level)
		   ? 0
		   : SQFS_ERROR_ARG_INVALID;
}

static int sqlzo_parse_algorithm(sqfs_compressor_config_t *cfg,
				 const char *value, char *err, size_t errsize)
{
	uint32_t id;

	if (value == NULL || *value == '\0')
		return comp_error(err, errsize, "'algorithm' needs a value");

	for (id = 0; id < LZO_ALGORITHM_COUNT; ++id) {
		if (strcmp(value, sqlzo_algorithms[id].name) == 0)
			break;
	}
	if (id == LZO_ALGORITHM_COUNT)
		return comp_error(err, errsize, "unknown lzo algorithm '%s'",
				  value);

	if (id == SQFS_LZO1X_999) {
		/* keep a level given before the algorithm */
		if (cfg->opt.lzo.algorithm != SQFS_LZO1X_999)
			cfg->opt.lzo.level = SQFS_LZO_DEFAULT_LEVEL;
	} else {
		/* a level other than the default was asked for explicitly */
		if (cfg->opt.lzo.algorithm == SQFS_LZO1X_999 &&
		    cfg->opt.lzo.level != SQFS_LZO_DEFAULT_LEVEL)
			return comp_error(
			    err, errsize,
			    "'level' is only valid with lzo1x_999");
		cfg->opt.lzo.level = 0;
	}
	cfg->opt.lzo.algorithm = id;
	return 0;
}

static int sqlzo_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			      const char *value, char *err, size_t errsize)
{
	if (strcmp(key, "algorithm") == 0)
		return sqlzo_parse_algorithm(cfg, value, err, errsize);

	if (strcmp(key, "level") == 0) {
		if (cfg->opt.lzo.algorithm != SQFS_LZO1X_999)
			return comp_error(
			    err, errsize,
			    "'level' is only valid with lzo1x_999");
		return comp_parse_uint(key, value, SQFS_LZO_MIN_LEVEL,
				       SQFS_LZO_MAX_LEVEL, &cfg->opt.lzo.level,
				       err, errsize);
	}

	return comp_error(err, errsize, "unknown lzo option '%s'", key);
}

static int sqlzo_format(const sqfs_compressor_config_t *cfg, char *buf,
			size_t size)
{
	uint32_t algorithm = cfg->opt.lzo.algorithm;
	const char *name = algorithm < LZO_ALGORITHM_COUNT
			       ? sqlzo_algorithms[algorithm].name
			       : "?";

	/* level 0 (another writer's "library default") has no option form */
	if (algorithm == SQFS_LZO1X_999 &&
	    cfg->opt.lzo.level != LZO_LEVEL_LIBRARY_DEFAULT)
		return snprintf(buf, size, "algorithm=%s,level=%u", name,
				(unsigned)cfg->opt.lzo.level);
	return snprintf(buf, size, "algorithm=%s", name);
}

static size_t sqlzo_encode_options(const sqfs_compressor_config_t *cfg,
				   uint8_t out[SQFS_COMP_OPTIONS_MAX_SIZE])
{
	if (cfg->opt.lzo.algorithm == SQFS_LZO_DEFAULT_ALGORITHM &&
	    cfg->opt.lzo.level == SQFS_LZO_DEFAULT_LEVEL)
		return 0;

	put_le32(out, cfg->opt.lzo.algorithm);
	put_le32(out + 4, cfg->opt.lzo.level);
	return LZO_OPTIONS_SIZE;
}

static int sqlzo_decode_options(sqfs_compressor_config_t *cfg,
				const uint8_t *payload, size_t size)
{
	uint32_t algorithm, level;

	if (size != LZO_OPTIONS_SIZE)
		return SQFS_ERROR_CORRUPTED;

	algorithm = get_le32(payload);
	level = get_le32(payload + 4);
	if (!sqlzo_settings_valid(algorithm, level))
		return SQFS_ERROR_CORRUPTED;

	cfg->opt.lzo.algorithm = algorithm;
	cfg->opt.lzo.level = level;
	return 0;
}

static ptrdiff_t sqlzo_compress(sqfs_compressor_t *cmp, const uint8_t *in,
				size_t size, uint8_t *out, size_t outsize)
{
	sqlzo_compressor_t *lzo = (sqlzo_compressor_t *)cmp;
	lzo_uint len = lzo->scratch_size;
	int ret;

	switch (cmp->cfg.opt.lzo.algorithm) {
	case SQFS_LZO1X_1:
		ret = lzo1x_1_compress(in, size, lzo->scratch, &len, lzo->work);
		break;
	case SQFS_LZO1X_1_11:
		ret = lzo1x_1_11_compress(in, size, lzo->scratch, &len,
					  lzo->work);
		break;
	case SQFS_LZO1X_1_12:
		ret = lzo1x_1_12_compress(in, size, lzo->scratch, &len,
					  lzo->work);
		break;
	case SQFS_LZO1X_1_15:
		ret = lzo1x_1_15_compress(in, size, lzo->scratch, &len,
					  lzo->work);
		break;
	case SQFS_LZO1X_999:
		if (cmp->cfg.opt.lzo.level == LZO_LEVEL_LIBRARY_DEFAULT) {
			ret = lzo1x_999_compress(in, size, lzo->scratch, &len,
						 lzo->work);
		} else {
			ret = lzo1x_999_compress_level(
			    in, size, lzo->scratch, &len, lzo->work, NULL, 0,
			    NULL, (int)cmp->cfg.opt.lzo.level);
		}
		break;
	default:
		return SQFS_ERROR_INTERNAL;
	}

	if (ret != LZO_E_OK)
		return SQFS_ERROR_COMPRESSOR;
	if (len >= size || len > outsize)
		return 0;

	memcpy(out, lzo->scratch, len);
	return (ptrdiff_t)len;
}

static ptrdiff_t sqlzo_uncompress(sqfs_compressor_t *cmp, const uint8_t *in,
				  size_t size, uint8_t *out, size_t outsize)
{
	lzo_uint len = outsize;
	int ret;

	(void)cmp;
	ret = lzo1x_decompress_safe(in, size, out, &len, NULL);

	switch (ret) {
	case LZO_E_OK:
		return (ptrdiff_t)len;
	case LZO_E_OUTPUT_OVERRUN:
		return SQFS_ERROR_OVERFLOW;
	default:
		return SQFS_ERROR_CORRUPTED;
	}
}

static void sqlzo_destroy(sqfs_compressor_t *cmp)
{
	sqlzo_compressor_t *lzo = (sqlzo_compressor_t *)cmp;

	free(lzo->work);
	free(lzo->scratch);
	free(lzo);
}

static int sqlzo_create(const sqfs_compressor_config_t *cfg,
			sqfs_compressor_t **out);

static int sqlzo_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	return sqlzo_create(&cmp->cfg, out);
}

static const compressor_ops_t sqlzo_ops = {
    .destroy = sqlzo_destroy,
    .copy = sqlzo_copy,
    .compress = sqlzo_compress,
    .uncompress = sqlzo_uncompress,
};

static int sqlzo_create(const sqfs_compressor_config_t *cfg,
			sqfs_compressor_t **out)
{
	sqlzo_compressor_t *lzo;
	size_t max_in;
	int ret;

	ret = sqlzo_global_init();
	if (ret != 0)
		return ret;

	lzo = calloc(1, sizeof(*lzo));
	if (lzo == NULL)
		return SQFS_ERROR_ALLOC;

	lzo->base.ops = &sqlzo_ops;
	lzo->base.cfg = *cfg;

	if (!(cfg->flags & SQFS_COMP_FLAG_UNCOMPRESS)) {
		max_in = cfg->block_size > SQFS_META_BLOCK_SIZE
			     ? cfg->block_size
			     : SQFS_META_BLOCK_SIZE;
		/* the worst case growth LZO1X documents */
		lzo->scratch_size = max_in + max_in / 16 + 64 + 3;
		lzo->scratch = malloc(lzo->scratch_size);
		lzo->work =
		    malloc(sqlzo_algorithms[cfg->opt.lzo.algorithm].work_size);
		if (lzo->scratch == NULL || lzo->work == NULL) {
			sqlzo_destroy(&lzo->base);
			return SQFS_ERROR_ALLOC;
		}
	}

	*out = &lzo->base;
	return 0;
}

const comp_backend_t sqfs_comp_lzo = {
    .id = SQFS_COMP_LZO,
    .name = "lzo",
    .help = "algorithm=NAME  lzo1x_1, lzo1x_1_11, lzo1x_1_12, lzo1x_1_15 "
	    "or lzo1x_999 (default lzo1x_999)\n"
	    "level=1..9      compression level, lzo1x_999 only "
	    "(default 8)\n",
    .defaults = sqlzo_defaults,
    .validate = sqlzo_validate,
    .parse_option = sqlzo_parse_option,
    .format = sqlzo_format,
    .encode_options = sqlzo_encode_options,
    .decode_options = sqlzo_decode_options,
    .create = sqlzo_create,
};

/* SPDX-License-Identifier: MIT */
/*
 * compressor.c - the compressor registry and everything the back ends
 * share: names, defaults, option strings, the options block, dispatch.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "comp/internal.h"
#include "util/le.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[SQFS_COMP_MAX + 1] = {
    [SQFS_COMP_GZIP] = "gzip", [SQFS_COMP_LZMA] = "lzma",
    [SQFS_COMP_LZO] = "lzo",   [SQFS_COMP_XZ] = "xz",
    [SQFS_COMP_LZ4] = "lz4",   [SQFS_COMP_ZSTD] = "zstd",
};

static const comp_backend_t *const backends[SQFS_COMP_MAX + 1] = {
#ifdef WITH_GZIP
    [SQFS_COMP_GZIP] = &sqfs_comp_gzip,
#endif
#ifdef WITH_XZ
    [SQFS_COMP_LZMA] = &sqfs_comp_lzma, [SQFS_COMP_XZ] = &sqfs_comp_xz,
#endif
#ifdef WITH_LZO
    [SQFS_COMP_LZO] = &sqfs_comp_lzo,
#endif
#ifdef WITH_LZ4
    [SQFS_COMP_LZ4] = &sqfs_comp_lz4,
#endif
#ifdef WITH_ZSTD
    [SQFS_COMP_ZSTD] = &sqfs_comp_zstd,
#endif
};

static const comp_backend_t *get_backend(int id)
{
	if (id < SQFS_COMP_MIN || id > SQFS_COMP_MAX)
		return NULL;
	return backends[id];
}

static bool block_size_valid(uint32_t block_size)
{
	return block_size >= SQFS_MIN_BLOCK_SIZE &&
	       block_size <= SQFS_MAX_BLOCK_SIZE &&
	       (block_size & (block_size - 1)) == 0;
}

const char *sqfs_compressor_name(int id)
{
	if (id < SQFS_COMP_MIN || id > SQFS_COMP_MAX)
		return NULL;
	return names[id];
}

int sqfs_compressor_id_from_name(const char *name)
{
	for (int id = SQFS_COMP_MIN; id <= SQFS_COMP_MAX; ++id) {
		if (name != NULL && strcmp(names[id], name) == 0)
			return id;
	}
	return SQFS_ERROR_UNSUPPORTED;
}

bool sqfs_compressor_is_available(int id)
{
	return get_backend(id) != NULL;
}

sqfs_compressor_id_t sqfs_compressor_default(void)
{
	static const sqfs_compressor_id_t order[] = {
	    SQFS_COMP_XZ,  SQFS_COMP_ZSTD, SQFS_COMP_GZIP,
	    SQFS_COMP_LZ4, SQFS_COMP_LZO,
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); ++i) {
		if (get_backend(order[i]) != NULL)
			return order[i];
	}
	/* configure refuses a build without any compressor */
	return SQFS_COMP_GZIP;
}

const char *sqfs_compressor_options_help(int id)
{
	const comp_backend_t *be = get_backend(id);

	return be == NULL ? NULL : be->help;
}

int sqfs_compressor_config_init(sqfs_compressor_config_t *cfg,
				sqfs_compressor_id_t id, uint32_t block_size,
				uint16_t flags)
{
	const comp_backend_t *be = get_backend(id);

	if (be == NULL)
		return SQFS_ERROR_UNSUPPORTED;
	if (!block_size_valid(block_size))
		return SQFS_ERROR_SUPER_BLOCK_SIZE;

	memset(cfg, 0, sizeof(*cfg));
	cfg->id = (uint16_t)id;
	cfg->flags = flags;
	cfg->block_size = block_size;
	be->defaults(cfg);
	return 0;
}

int sqfs_compressor_config_validate(const sqfs_compressor_config_t *cfg)
{
	const comp_backend_t *be = get_backend(cfg->id);

	if (be == NULL)
		return SQFS_ERROR_UNSUPPORTED;
	if (!block_size_valid(cfg->block_size))
		return SQFS_ERROR_ARG_INVALID;
	return be->validate(cfg);
}

int comp_error(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errsize > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errsize, fmt, ap);
		va_end(ap);
	}
	return SQFS_ERROR_ARG_INVALID;
}

int comp_parse_uint(const char *key, const char *value, uint32_t min,
		    uint32_t max, uint32_t *out, char *err, size_t errsize)
{
	unsigned long long v = 0;

	if (value == NULL || *value == '\0')
		return comp_error(err, errsize, "'%s' needs a value", key);

	for (const char *p = value; *p != '\0'; ++p) {
		if (*p < '0' || *p > '9')
			return comp_error(err, errsize,
					  "'%s': '%s' is not a number", key,
					  value);
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > UINT32_MAX)
			break;
	}

	if (v < min || v > max) {
		return comp_error(err, errsize,
				  "'%s' must be between %u and %u", key,
				  (unsigned)min, (unsigned)max);
	}
	*out = (uint32_t)v;
	return 0;
}

int comp_parse_size(const char *key, const char *value, uint32_t percent_base,
		    uint32_t *out, char *err, size_t errsize)
{
	unsigned long long v = 0;
	const char *p = value;

	if (value == NULL || *value == '\0')
		return comp_error(err, errsize, "'%s' needs a value", key);

	if (*p < '0' || *p > '9')
		goto fail;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned long long)(*p++ - '0');
		if (v > UINT32_MAX)
			goto fail;
	}

	switch (*p) {
	case '\0':
		break;
	case 'k':
	case 'K':
		v *= 1024;
		++p;
		break;
	case 'm':
	case 'M':
		v *= 1024 * 1024;
		++p;
		break;
	case '%':
		if (v > 100)
			goto fail;
		v = v * percent_base / 100;
		++p;
		break;
	default:
		goto fail;
	}

	if (*p != '\0' || v > UINT32_MAX)
		goto fail;
	*out = (uint32_t)v;
	return 0;
fail:
	return comp_error(err, errsize, "'%s': '%s' is not a valid size", key,
			  value);
}

int sqfs_compressor_config_parse(sqfs_compressor_config_t *cfg,
				 const char *options, char *err, size_t errsize)
{
	const comp_backend_t *be = get_backend(cfg->id);
	char *copy, *item, *save = NULL;
	int ret = 0;

	if (be == NULL)
		return SQFS_ERROR_UNSUPPORTED;
	if (err != NULL && errsize > 0)
		err[0] = '\0';
	if (options == NULL)
		return 0;

	copy = strdup(options);
	if (copy == NULL)
		return SQFS_ERROR_ALLOC;

	for (item = strtok_r(copy, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		char *value = strchr(item, '=');

		if (value != NULL)
			*(value++) = '\0';

		ret = be->parse_option(cfg, item, value, err, errsize);
		if (ret != 0)
			break;
	}

	free(copy);
	if (ret == 0) {
		ret = be->validate(cfg);
		if (ret != 0 && err != NULL && errsize > 0 && err[0] == '\0') {
			comp_error(err, errsize, "options out of range for %s",
				   be->name);
		}
	}
	return ret;
}

int sqfs_compressor_config_format(const sqfs_compressor_config_t *cfg,
				  char *buffer, size_t size)
{
	const comp_backend_t *be = get_backend(cfg->id);
	int len;

	if (be == NULL)
		return SQFS_ERROR_UNSUPPORTED;

	len = be->format(cfg, buffer, size);
	if (len < 0)
		return SQFS_ERROR_INTERNAL;
	if ((size_t)len >= size)
		return SQFS_ERROR_OVERFLOW;
	return len;
}

int sqfs_compressor_config_write_options(const sqfs_compressor_config_t *cfg,
					 sqfs_file_t *file)
{
	const comp_backend_t *be = get_backend(cfg->id);
	uint8_t block[2 + SQFS_COMP_OPTIONS_MAX_SIZE];
	size_t len;
	int ret;

	if (be == NULL)
		return SQFS_ERROR_UNSUPPORTED;

	len = be->encode_options(cfg, block + 2);
	if (len == 0)
		return 0;

	/* always stored raw: readers (squashfs-tools-ng) insist on it */
	put_le16(block, (uint16_t)(0x8000 | len));
	ret = file->write_at(file, SQFS_SUPER_SIZE, block, len + 2);
	if (ret != 0)
		return ret;
	return (int)(len + 2);
}

int sqfs_compressor_config_read_options(sqfs_compressor_config_t *cfg,
					sqfs_file_t *file)
{
	const comp_backend_t *be = get_backend(cfg->id);
	uint8_t payload[SQFS_COMP_OPTIONS_MAX_SIZE];
	uint8_t header[2];
	uint16_t len;
	int ret;

	if (be == NULL)
		return SQFS_ERROR_UNSUPPORTED;

	ret = file->read_at(file, SQFS_SUPER_SIZE, header, sizeof(header));
	if (ret == SQFS_ERROR_OUT_OF_BOUNDS)
		return SQFS_ERROR_CORRUPTED;
	if (ret != 0)
		return ret;

	len = get_le16(header);
	if ((len & 0x8000) == 0)
		return SQFS_ERROR_CORRUPTED;
	len &= 0x7FFF;
	if (len == 0 || len > sizeof(payload))
		return SQFS_ERROR_CORRUPTED;

	ret = file->read_at(file, SQFS_SUPER_SIZE + 2, payload, len);
	if (ret == SQFS_ERROR_OUT_OF_BOUNDS)
		return SQFS_ERROR_CORRUPTED;
	if (ret != 0)
		return ret;

	ret = be->decode_options(cfg, payload, len);
	if (ret != 0)
		return ret;

	return be->validate(cfg) == 0 ? 0 : SQFS_ERROR_CORRUPTED;
}

int sqfs_compressor_create(const sqfs_compressor_config_t *cfg,
			   sqfs_compressor_t **out)
{
	const comp_backend_t *be = get_backend(cfg->id);
	int ret;

	if (be == NULL)
		return SQFS_ERROR_UNSUPPORTED;

	ret = sqfs_compressor_config_validate(cfg);
	if (ret != 0)
		return ret;

	return be->create(cfg, out);
}

int sqfs_compressor_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	return cmp->ops->copy(cmp, out);
}

void sqfs_compressor_destroy(sqfs_compressor_t *cmp)
{
	if (cmp != NULL)
		cmp->ops->destroy(cmp);
}

void sqfs_compressor_get_config(const sqfs_compressor_t *cmp,
				sqfs_compressor_config_t *cfg)
{
	*cfg = cmp->cfg;
}

ptrdiff_t sqfs_compressor_compress(sqfs_compressor_t *cmp, const uint8_t *in,
				   size_t size, uint8_t *out, size_t outsize)
{
	/* metadata blocks are 8 KiB even when data blocks are 4 KiB */
	size_t max = cmp->cfg.block_size > SQFS_META_BLOCK_SIZE
			 ? cmp->cfg.block_size
			 : SQFS_META_BLOCK_SIZE;

	if (size == 0 || size > max)
		return SQFS_ERROR_ARG_INVALID;
	if (cmp->cfg.flags & SQFS_COMP_FLAG_UNCOMPRESS)
		return SQFS_ERROR_SEQUENCE;
	return cmp->ops->compress(cmp, in, size, out, outsize);
}

ptrdiff_t sqfs_compressor_uncompress(sqfs_compressor_t *cmp, const uint8_t *in,
				     size_t size, uint8_t *out, size_t outsize)
{
	if (size == 0)
		return SQFS_ERROR_CORRUPTED;
	return cmp->ops->uncompress(cmp, in, size, out, outsize);
}

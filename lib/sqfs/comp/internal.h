/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what each compressor back end provides to the registry.
 *
 * compressor.c owns everything common (ids and names, option-string
 * splitting, the options block header, dispatch); a back end file
 * (gzip.c, xz.c, ...) supplies only what is specific to its codec through
 * one comp_backend_t.
 */
#ifndef SQFS_COMP_INTERNAL_H
#define SQFS_COMP_INTERNAL_H

#include "sqfs/compressor.h"
#include "sqfs/error.h"

typedef struct {
	void (*destroy)(sqfs_compressor_t *cmp);
	/* Make an independent instance with the same configuration. */
	int (*copy)(const sqfs_compressor_t *cmp, sqfs_compressor_t **out);
	/* Contract of sqfs_compressor_compress / _uncompress. */
	ptrdiff_t (*compress)(sqfs_compressor_t *cmp, const uint8_t *in,
			      size_t size, uint8_t *out, size_t outsize);
	ptrdiff_t (*uncompress)(sqfs_compressor_t *cmp, const uint8_t *in,
				size_t size, uint8_t *out, size_t outsize);
} compressor_ops_t;

/* Every back end's object starts with this. */
struct sqfs_compressor {
	const compressor_ops_t *ops;
	sqfs_compressor_config_t cfg;
};

typedef struct {
	sqfs_compressor_id_t id;
	const char *name;
	/* What sqfs_compressor_options_help returns. */
	const char *help;

	/* Set cfg->opt to the defaults; id, flags, block_size are set. */
	void (*defaults)(sqfs_compressor_config_t *cfg);

	/* 0, or SQFS_ERROR_ARG_INVALID for a setting out of range. */
	int (*validate)(const sqfs_compressor_config_t *cfg);

	/*
	 * Apply one option; value is NULL when the option had no '='.
	 * SQFS_ERROR_ARG_INVALID with a message in err for unknown options
	 * and bad values (use comp_error).
	 */
	int (*parse_option)(sqfs_compressor_config_t *cfg, const char *key,
			    const char *value, char *err, size_t errsize);

	/* Print all settings, snprintf-style: the length it needed. */
	int (*format)(const sqfs_compressor_config_t *cfg, char *buf,
		      size_t size);

	/*
	 * The options-block payload for cfg (little endian), or 0 when cfg
	 * is at its defaults and the block must be left out.
	 */
	size_t (*encode_options)(const sqfs_compressor_config_t *cfg,
				 uint8_t out[SQFS_COMP_OPTIONS_MAX_SIZE]);

	/* Set cfg from a payload of size bytes; SQFS_ERROR_CORRUPTED if the
	 * size or a value is wrong. */
	int (*decode_options)(sqfs_compressor_config_t *cfg,
			      const uint8_t *payload, size_t size);

	/* Create an instance; cfg has been validated. */
	int (*create)(const sqfs_compressor_config_t *cfg,
		      sqfs_compressor_t **out);
} comp_backend_t;

extern const comp_backend_t sqfs_comp_gzip;
extern const comp_backend_t sqfs_comp_lzma;
extern const comp_backend_t sqfs_comp_lzo;
extern const comp_backend_t sqfs_comp_xz;
extern const comp_backend_t sqfs_comp_lz4;
extern const comp_backend_t sqfs_comp_zstd;

/* Format a message into err (if there is room); returns
 * SQFS_ERROR_ARG_INVALID so callers can write `return comp_error(...)`. */
int comp_error(char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Parse value as a decimal integer in [min, max] for option key. A missing
 * or malformed value or one out of range gives SQFS_ERROR_ARG_INVALID with
 * a message.
 */
int comp_parse_uint(const char *key, const char *value, uint32_t min,
		    uint32_t max, uint32_t *out, char *err, size_t errsize);

/*
 * Parse a size: a decimal number with an optional K or M suffix (binary
 * units), or N% of percent_base. No range check.
 */
int comp_parse_size(const char *key, const char *value, uint32_t percent_base,
		    uint32_t *out, char *err, size_t errsize);

#endif /* SQFS_COMP_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * compressor.h - one interface for the six SquashFS compressors.
 *
 * An image uses a single compressor for data, fragments and metadata. Its
 * settings live in an sqfs_compressor_config_t: fill one with defaults with
 * sqfs_compressor_config_init, adjust it (directly, or from a "-X" option
 * string with sqfs_compressor_config_parse), then create a compressor from
 * it. Settings that differ from the defaults are stored in the image's
 * compressor-options block (always, for lz4) at offset 96.
 *
 * A compressor object is not thread safe; give each thread its own copy
 * (sqfs_compressor_copy). Every block is compressed as one complete,
 * independent stream, as the format requires.
 */
#ifndef SQFS_COMPRESSOR_H
#define SQFS_COMPRESSOR_H

#include "sqfs/predef.h"

/* Compressor ids as stored in the superblock. */
typedef enum {
	SQFS_COMP_GZIP = 1,
	SQFS_COMP_LZMA = 2,
	SQFS_COMP_LZO = 3,
	SQFS_COMP_XZ = 4,
	SQFS_COMP_LZ4 = 5,
	SQFS_COMP_ZSTD = 6,

	SQFS_COMP_MIN = 1,
	SQFS_COMP_MAX = 6,
} sqfs_compressor_id_t;

/* Flags of sqfs_compressor_config_t.flags. */
typedef enum {
	/* The compressor will only decompress: skip encoder state. */
	SQFS_COMP_FLAG_UNCOMPRESS = 0x0001,
	/* xz and lzma: use the "extreme" (slower, smaller) preset variant. */
	SQFS_COMP_FLAG_EXTREME = 0x0002,
} sqfs_comp_flag_t;

/* gzip strategies; several may be set, then each block is compressed with
 * each and the smallest result kept. The values are the on-disk bits. */
typedef enum {
	SQFS_GZIP_DEFAULT = 0x01,
	SQFS_GZIP_FILTERED = 0x02,
	SQFS_GZIP_HUFFMAN = 0x04,
	SQFS_GZIP_RLE = 0x08,
	SQFS_GZIP_FIXED = 0x10,
	SQFS_GZIP_ALL_STRATEGIES = 0x1F,
} sqfs_gzip_strategy_t;

/* xz branch/call/jump filters; several may be set, then each is tried
 * (besides no filter) and the smallest result kept. On-disk bits. */
typedef enum {
	SQFS_XZ_FILTER_X86 = 0x01,
	SQFS_XZ_FILTER_POWERPC = 0x02,
	SQFS_XZ_FILTER_IA64 = 0x04,
	SQFS_XZ_FILTER_ARM = 0x08,
	SQFS_XZ_FILTER_ARMTHUMB = 0x10,
	SQFS_XZ_FILTER_SPARC = 0x20,
	/* Only where liblzma has these filters (5.4 and 5.6 on). */
	SQFS_XZ_FILTER_ARM64 = 0x40,
	SQFS_XZ_FILTER_RISCV = 0x80,
	SQFS_XZ_FILTER_ALL = 0xFF,
} sqfs_xz_filter_t;

/* lz4 flags (on-disk). */
typedef enum {
	SQFS_LZ4_HC = 0x01,
} sqfs_lz4_flag_t;

/* LZO algorithms, with their on-disk ids. */
typedef enum {
	SQFS_LZO1X_1 = 0,
	SQFS_LZO1X_1_11 = 1,
	SQFS_LZO1X_1_12 = 2,
	SQFS_LZO1X_1_15 = 3,
	SQFS_LZO1X_999 = 4,
} sqfs_lzo_algorithm_t;

/* Ranges and defaults of the settings. */
#define SQFS_GZIP_MIN_LEVEL 1
#define SQFS_GZIP_MAX_LEVEL 9
#define SQFS_GZIP_DEFAULT_LEVEL 9
#define SQFS_GZIP_MIN_WINDOW 8
#define SQFS_GZIP_MAX_WINDOW 15
#define SQFS_GZIP_DEFAULT_WINDOW 15

#define SQFS_XZ_MIN_LEVEL 0
#define SQFS_XZ_MAX_LEVEL 9
#define SQFS_XZ_DEFAULT_LEVEL 6
#define SQFS_LZMA_DEFAULT_LEVEL 5
#define SQFS_XZ_MIN_DICT_SIZE 8192u
#define SQFS_XZ_DEFAULT_LC 3
#define SQFS_XZ_DEFAULT_LP 0
#define SQFS_XZ_DEFAULT_PB 2

#define SQFS_ZSTD_MIN_LEVEL 1
#define SQFS_ZSTD_MAX_LEVEL 22
#define SQFS_ZSTD_DEFAULT_LEVEL 15

#define SQFS_LZO_MIN_LEVEL 1
#define SQFS_LZO_MAX_LEVEL 9
#define SQFS_LZO_DEFAULT_LEVEL 8
#define SQFS_LZO_DEFAULT_ALGORITHM SQFS_LZO1X_999

/* Largest compressor-options payload any compressor reads or writes. */
#define SQFS_COMP_OPTIONS_MAX_SIZE 16

struct sqfs_compressor_config {
	/* A sqfs_compressor_id_t. */
	uint16_t id;
	/* sqfs_comp_flag_t bits. */
	uint16_t flags;
	/* The image's data block size: the largest input a block has. */
	uint32_t block_size;

	union {
		struct {
			uint32_t level;
			uint16_t window_size;
			/* sqfs_gzip_strategy_t bits; 0 means default. */
			uint16_t strategies;
		} gzip;

		/* xz and lzma (lzma has no filters). */
		struct {
			/* The block size (the default, also at 4 KiB), or
			 * 2^n or 3 * 2^(n-1) from 8 KiB up to the larger of
			 * the block size and 8 KiB: the kernel refuses other
			 * dictionary sizes. */
			uint32_t dict_size;
			uint32_t level;
			/* sqfs_xz_filter_t bits. */
			uint32_t filters;
			uint8_t lc;
			uint8_t lp;
			uint8_t pb;
		} xz;

		struct {
			/* sqfs_lz4_flag_t bits. */
			uint32_t flags;
		} lz4;

		struct {
			uint32_t level;
		} zstd;

		struct {
			/* A sqfs_lzo_algorithm_t. */
			uint32_t algorithm;
			/* Used by SQFS_LZO1X_999 only; 0 for the others. */
			uint32_t level;
		} lzo;

		/* Room for settings of later versions without an ABI break. */
		uint8_t reserved[64];
	} opt;
};

SQFS_BEGIN_DECLS

/*
 * Fill cfg with the defaults of compressor id for images of block_size.
 * flags are sqfs_comp_flag_t bits. Fails with SQFS_ERROR_UNSUPPORTED for an
 * id this build lacks and SQFS_ERROR_SUPER_BLOCK_SIZE for a bad block size.
 */
SQFS_API int sqfs_compressor_config_init(sqfs_compressor_config_t *cfg,
					 sqfs_compressor_id_t id,
					 uint32_t block_size, uint16_t flags);

/*
 * Apply a comma-separated list of options, as the tools' -X takes it
 * ("level=5,window=12,filtered"). Options not named keep their value. On
 * SQFS_ERROR_ARG_INVALID, a message naming the offending option is written
 * to err (if err is not NULL and errsize > 0) and cfg may be partly changed.
 */
SQFS_API int sqfs_compressor_config_parse(sqfs_compressor_config_t *cfg,
					  const char *options, char *err,
					  size_t errsize);

/*
 * Write every setting of cfg as an option string that
 * sqfs_compressor_config_parse accepts, NUL-terminated, into buffer.
 * Returns the string length, or SQFS_ERROR_OVERFLOW if it does not fit.
 */
SQFS_API int sqfs_compressor_config_format(const sqfs_compressor_config_t *cfg,
					   char *buffer, size_t size);

/*
 * Check that every setting of cfg is within range for its compressor and
 * block size. Returns 0 or SQFS_ERROR_ARG_INVALID.
 */
SQFS_API int
sqfs_compressor_config_validate(const sqfs_compressor_config_t *cfg);

/*
 * Store the compressor-options block at offset 96 of file if cfg differs
 * from the defaults (always for lz4). Returns the number of bytes written,
 * header included (0 when no block is needed), or a negative error. The
 * caller sets SQFS_FLAG_COMPRESSOR_OPTIONS when the result is positive.
 */
SQFS_API int
sqfs_compressor_config_write_options(const sqfs_compressor_config_t *cfg,
				     sqfs_file_t *file);

/*
 * Read the compressor-options block at offset 96 of file into cfg, which
 * must already be initialised for the image's compressor and block size.
 * A block that is missing, truncated, compressed, of the wrong length, or
 * holds settings out of range gives SQFS_ERROR_CORRUPTED.
 */
SQFS_API int sqfs_compressor_config_read_options(sqfs_compressor_config_t *cfg,
						 sqfs_file_t *file);

/*
 * Create a compressor from a configuration. Fails with
 * SQFS_ERROR_UNSUPPORTED for a compressor this build lacks and
 * SQFS_ERROR_ARG_INVALID for settings out of range.
 */
SQFS_API int sqfs_compressor_create(const sqfs_compressor_config_t *cfg,
				    sqfs_compressor_t **out);

/* Create an independent compressor with the same settings, for another
 * thread. */
SQFS_API int sqfs_compressor_copy(const sqfs_compressor_t *cmp,
				  sqfs_compressor_t **out);

/* Destroy a compressor; NULL is allowed and does nothing. */
SQFS_API void sqfs_compressor_destroy(sqfs_compressor_t *cmp);

/* Copy the configuration a compressor was created with into cfg. */
SQFS_API void sqfs_compressor_get_config(const sqfs_compressor_t *cmp,
					 sqfs_compressor_config_t *cfg);

/*
 * Compress size bytes of in into out, which holds outsize bytes. size is at
 * most the larger of the block size and 8192 (metadata blocks are 8 KiB
 * even in images of 4 KiB blocks). Returns the compressed size, which is
 * smaller than size and at most outsize; 0 if compression would not make
 * the data smaller or the result does not fit (the caller then stores the
 * block raw; out holds garbage); a negative error if the compression
 * library failed.
 */
SQFS_API ptrdiff_t sqfs_compressor_compress(sqfs_compressor_t *cmp,
					    const uint8_t *in, size_t size,
					    uint8_t *out, size_t outsize);

/*
 * Decompress the size bytes of one block at in into out, never writing
 * more than outsize bytes. Returns the decompressed size, or
 * SQFS_ERROR_CORRUPTED for a malformed stream, or SQFS_ERROR_OVERFLOW when
 * the stream would decompress to more than outsize bytes (where the codec
 * can tell this apart from corruption).
 */
SQFS_API ptrdiff_t sqfs_compressor_uncompress(sqfs_compressor_t *cmp,
					      const uint8_t *in, size_t size,
					      uint8_t *out, size_t outsize);

/* The name of a compressor ("gzip", "xz", ...); NULL for an unknown id. */
SQFS_API const char *sqfs_compressor_name(int id);

/* The id of a compressor name, or SQFS_ERROR_UNSUPPORTED if unknown. */
SQFS_API int sqfs_compressor_id_from_name(const char *name);

/* Whether this build of the library can use compressor id. */
SQFS_API bool sqfs_compressor_is_available(int id);

/* The compressor new images use unless told otherwise: xz if built, else
 * the first built of zstd, gzip, lz4, lzo. */
SQFS_API sqfs_compressor_id_t sqfs_compressor_default(void);

/*
 * A text, one option per line, describing what sqfs_compressor_config_parse
 * accepts for compressor id, with ranges and defaults. NULL for an unknown
 * or unavailable id.
 */
SQFS_API const char *sqfs_compressor_options_help(int id);

SQFS_END_DECLS

#endif /* SQFS_COMPRESSOR_H */

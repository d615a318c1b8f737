/* SPDX-License-Identifier: MIT */
/*
 * lzma_internal.h - what the xz and lzma back ends share.
 *
 * Both keep their settings in cfg->opt.xz and take the same LZMA options
 * (dictsize, level, lc, lp, pb, extreme); xz adds BCJ filters. Both also
 * run liblzma decoders the same way: one call over a whole block with the
 * output bounded by the caller's buffer.
 */
#ifndef SQFS_COMP_LZMA_INTERNAL_H
#define SQFS_COMP_LZMA_INTERNAL_H

#include "comp/internal.h"

#include <lzma.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Both decoders refuse streams that would need more memory than this; a
 * valid block never comes close (dictionaries are at most 1 MiB). */
#define SQFS_LZMA_MEMLIMIT (64u * 1024 * 1024)

/* lzmaopt_parse_option's result for a key it does not know. */
#define SQFS_LZMA_OPTION_UNKNOWN 1

/* The help lines of the shared options; level is the default preset. */
#define SQFS_LZMA_HELP(level)                                                  \
	"dictsize=SIZE  dictionary size in bytes, with a K or M suffix, or "   \
	"N% of the block size; 2^n or 2^n+2^(n-1), 8K up to the block size "   \
	"(default: the block size)\n"                                          \
	"level=0..9     compression preset (default " level ")\n"              \
	"extreme        the slower, slightly smaller variant of the preset "   \
	"(default: off)\n"                                                     \
	"lc=0..4        literal context bits, lc + lp at most 4 (default 3)\n" \
	"lp=0..4        literal position bits (default 0)\n"                   \
	"pb=0..4        position bits (default 2)\n"

/*
 * Whether dict_size is usable for images of block_size: 2^n or
 * 2^n + 2^(n-1), from 8 KiB up to the block size. The block size itself is
 * always allowed, as it is the default even for 4 KiB blocks; with 4 KiB
 * blocks 8 KiB is allowed too, as gensquashfs writes that (metadata blocks
 * are 8 KiB).
 */
bool lzmaopt_dict_size_valid(uint32_t dict_size, uint32_t block_size);

/* Set the shared settings to their defaults with the given preset. */
void lzmaopt_defaults(sqfs_compressor_config_t *cfg, uint32_t level);

/* Check the shared settings: 0 or SQFS_ERROR_ARG_INVALID. */
int lzmaopt_validate(const sqfs_compressor_config_t *cfg);

/*
 * Apply one of the shared options. Returns 0, SQFS_ERROR_ARG_INVALID with
 * a message, or SQFS_LZMA_OPTION_UNKNOWN if key is not a shared option.
 */
int lzmaopt_parse_option(sqfs_compressor_config_t *cfg, const char *key,
			 const char *value, char *err, size_t errsize);

/* Print the shared settings, snprintf-style. */
int lzmaopt_format(const sqfs_compressor_config_t *cfg, char *buf, size_t size);

/* The LZMA1/LZMA2 encoder settings for cfg: 0 or SQFS_ERROR_COMPRESSOR. */
int lzmaopt_encoder_options(const sqfs_compressor_config_t *cfg,
			    lzma_options_lzma *opt);

/*
 * Run a freshly initialised decoder over size bytes of in, writing at most
 * outsize bytes. Returns the decompressed size, SQFS_ERROR_OVERFLOW when
 * the output would not fit, SQFS_ERROR_CORRUPTED for a bad stream (or for
 * bytes after its end, unless allow_trailing), SQFS_ERROR_ALLOC.
 */
ptrdiff_t lzmaopt_run_decoder(lzma_stream *strm, const uint8_t *in, size_t size,
			      uint8_t *out, size_t outsize,
			      bool allow_trailing);

#endif /* SQFS_COMP_LZMA_INTERNAL_H */

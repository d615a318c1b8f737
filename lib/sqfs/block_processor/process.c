/* SPDX-License-Identifier: MIT */
/*
 * process.c - what happens to one block on its way: the zero check, the
 * incompressible-block probe, compression and the hash. A worker may run
 * it on any thread: it reads only the block and the bp_proc_t settings and
 * writes only the block.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#ifdef WITH_LZ4
#include <lz4.h>
#endif

bool bp_is_zero(const uint8_t *data, size_t size)
{
	/* if the first byte is 0 and every byte equals its successor, all
	 * are 0; memcmp is far faster than a byte loop */
	if (size == 0)
		return true;
	return data[0] == 0 && memcmp(data, data + 1, size - 1) == 0;
}

static uint64_t bp_xxh3(const void *data, size_t size)
{
	return XXH3_64bits(data, size);
}

void bp_proc_init(bp_proc_t *proc, uint32_t block_size,
		  const sqfs_compressor_config_t *cfg, bool no_probe)
{
	proc->block_size = block_size;
	/* LZ4 itself is as quick as the probe */
	proc->probe =
	    !no_probe && bp_probe_available() && cfg->id != SQFS_COMP_LZ4;
	proc->hash_fn = bp_xxh3;
}

void block_processor_set_hash_fn(block_processor_t *bp, bp_hash_fn_t fn)
{
	bp->proc.hash_fn = fn != NULL ? fn : bp_xxh3;
}

/*
 * Whether a block would not shrink, so that it can be stored raw without
 * running the configured compressor (xz or zstd spend a fifth of their
 * time on rootfs.tar on blocks they then store raw: packages, images,
 * archives). Two cheap tests, both needed, both looking at the block alone
 * so that the decision, like the image, is the same at any thread count:
 *   - order-0 entropy of at least PROBE_MIN_BITS bits per byte: an entropy
 *     coder (gzip's Huffman, zstd's FSE, xz's range coder) could save at
 *     most 8 - PROBE_MIN_BITS bits per byte;
 *   - LZ4 at its fastest finds too few repeats to save PROBE_MIN_SAVING
 *     of the block: no match finder would find much either.
 * out (block_size bytes) is scratch space for LZ4.
 */
#define PROBE_MIN_BITS 7.97
#define PROBE_MIN_SAVING 128 /* 1/128 of the block */

bool bp_probe_available(void)
{
#ifdef WITH_LZ4
	return true;
#else
	return false;
#endif
}

#ifdef WITH_LZ4
/*
 * log2 of x > 0, without libm: linking it for this one function put
 * half a megabyte of its pages into every tool's memory. x = m * 2^e
 * with m in [1, 2) (exact steps), then log2(m) = 2 atanh(y) / ln 2 with
 * y = (m - 1) / (m + 1) <= 1/3, by the series y + y^3/3 + y^5/5 ...:
 * 30 terms leave an error far below a double's precision.
 */
static double log2_of(double x)
{
	double e = 0.0, y, y2, term, sum = 0.0;

	while (x >= 2.0) {
		x /= 2.0;
		e += 1.0;
	}
	while (x < 1.0) {
		x *= 2.0;
		e -= 1.0;
	}
	y = (x - 1.0) / (x + 1.0);
	y2 = y * y;
	term = y;
	for (int k = 1; k < 60; k += 2) {
		sum += term / k;
		term *= y2;
	}
	return e + 2.0 * sum / 0.69314718055994530942;
}
#endif

static bool looks_incompressible(const uint8_t *data, size_t size, uint8_t *out)
{
#ifdef WITH_LZ4
	uint32_t count[256] = {0};
	double bits = 0.0;
	size_t i;

	if (size < 1024 || size > (size_t)INT32_MAX)
		return false;
	for (i = 0; i < size; ++i)
		count[data[i]] += 1;
	for (i = 0; i < 256; ++i) {
		if (count[i] > 0) {
			double p = (double)count[i] / (double)size;

			bits -= p * log2_of(p);
		}
	}
	if (bits < PROBE_MIN_BITS)
		return false;
	return LZ4_compress_fast((const char *)data, (char *)out, (int)size,
				 (int)(size - size / PROBE_MIN_SAVING), 1) == 0;
#else
	(void)data;
	(void)size;
	(void)out;
	return false;
#endif
}

static int bp_compress(const bp_proc_t *proc, sqfs_compressor_t *cmp,
		       uint8_t *scratch, bp_block_t *blk, bool raw)
{
	uint8_t *dst = blk->out != NULL ? blk->out : scratch;
	ptrdiff_t ret = 0;

	if (!raw && !(blk->flags & BP_FILE_DONT_COMPRESS) &&
	    !(proc->probe && looks_incompressible(blk->data, blk->size, dst))) {
		ret = sqfs_compressor_compress(cmp, blk->data, blk->size, dst,
					       blk->size);
		if (ret < 0)
			return (int)ret;
		if ((size_t)ret >= blk->size)
			return SQFS_ERROR_INTERNAL;
	}

	if (ret > 0) {
		/* a data block's data is not needed once compressed: the
		 * compressed form takes its place (see blocks.c) */
		if (dst == scratch)
			memcpy(blk->data, scratch, (size_t)ret);
		blk->stored = dst == scratch ? blk->data : dst;
		blk->size_word = (uint32_t)ret;
	} else {
		blk->stored = blk->data;
		blk->size_word = blk->size | SQFS_SIZE_WORD_RAW;
	}
	/* The hash covers the stored bytes: the block writer compares runs
	 * of stored blocks, and the stored form is shorter to hash. */
	blk->hash =
	    proc->hash_fn(blk->stored, blk->size_word & SQFS_SIZE_WORD_LENGTH);
	return 0;
}

int bp_process_block(const bp_proc_t *proc, sqfs_compressor_t *cmp,
		     uint8_t *scratch, bp_block_t *blk)
{
	blk->size_word = 0;
	blk->stored = NULL;
	blk->hash = 0;

	if (blk->size > proc->block_size)
		return SQFS_ERROR_INTERNAL;

	switch (blk->kind) {
	case BP_BLOCK_DATA:
		if (blk->size == 0)
			return SQFS_ERROR_INTERNAL;
		if (!(blk->flags & BP_FILE_NO_SPARSE) &&
		    bp_is_zero(blk->data, blk->size))
			return 0;
		return bp_compress(proc, cmp, scratch, blk, proc->raw_data);
	case BP_BLOCK_FRAGMENTS:
		/* never sparse: a fragment table entry must point at data */
		if (blk->size == 0)
			return SQFS_ERROR_INTERNAL;
		return bp_compress(proc, cmp, scratch, blk,
				   proc->raw_fragments);
	case BP_BLOCK_SPARSE:
	case BP_BLOCK_FILE_END:
		return 0;
	case BP_BLOCK_TAIL:
		/* packed by the front end, never submitted */
		break;
	}
	return SQFS_ERROR_INTERNAL;
}

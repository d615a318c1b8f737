/* SPDX-License-Identifier: MIT */
/*
 * process.c - what happens to one block: its structure, the processing a
 * worker may do (zero check, compression, hash) and the completion the
 * main thread does in submission order (an I/O number; nothing else).
 */
#include "config.h"

#include "sqfs/block_processor/internal.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#ifdef WITH_LZ4
#include <lz4.h>
#endif

static void block_reset(bp_block_t *blk)
{
	blk->next = NULL;
	blk->kind = BP_BLOCK_DATA;
	blk->flags = 0;
	blk->fd = NULL;
	blk->index = 0;
	blk->size = 0;
	blk->proc_seq = 0;
	blk->io_seq = 0;
	blk->error = 0;
	blk->size_word = 0;
	blk->stored = NULL;
	blk->hash = 0;
}

int bp_block_alloc(sqfs_block_processor_t *bp, bp_block_t **out)
{
	size_t bs = bp->desc.block_size;
	bp_block_t *blk = bp->free_blocks;

	if (blk != NULL) {
		bp->free_blocks = blk->next;
	} else {
		/* one allocation: the structure, then data and out */
		blk = malloc(sizeof(*blk) + 2 * bs);
		if (blk == NULL)
			return SQFS_ERROR_ALLOC;
		blk->data = (uint8_t *)(blk + 1);
		blk->out = blk->data + bs;
		blk->marker = false;
		blk->all_next = bp->all_blocks;
		bp->all_blocks = blk;
		bp->block_count += 1;
	}

	bp->blocks_in_use += 1;
	block_reset(blk);
	*out = blk;
	return 0;
}

int bp_marker_alloc(sqfs_block_processor_t *bp, bp_block_t **out)
{
	bp_block_t *blk = bp->free_markers;

	if (blk != NULL) {
		bp->free_markers = blk->next;
	} else {
		blk = malloc(sizeof(*blk));
		if (blk == NULL)
			return SQFS_ERROR_ALLOC;
		blk->data = NULL;
		blk->out = NULL;
		blk->marker = true;
		blk->all_next = bp->all_blocks;
		bp->all_blocks = blk;
	}

	bp->markers_in_use += 1;
	block_reset(blk);
	blk->kind = BP_BLOCK_FILE_END;
	*out = blk;
	return 0;
}

void bp_block_release(sqfs_block_processor_t *bp, bp_block_t *blk)
{
	if (blk->marker) {
		blk->next = bp->free_markers;
		bp->free_markers = blk;
		bp->markers_in_use -= 1;
		return;
	}
	blk->next = bp->free_blocks;
	bp->free_blocks = blk;
	bp->blocks_in_use -= 1;
}

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

void sqfs_block_processor_set_hash_fn(sqfs_block_processor_t *bp,
				      bp_hash_fn_t fn)
{
	bp->hash_fn = fn != NULL ? fn : bp_xxh3;
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

			bits -= p * log2(p);
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

static int bp_compress(const sqfs_block_processor_t *bp, sqfs_compressor_t *cmp,
		       bp_block_t *blk)
{
	ptrdiff_t ret = 0;

	if (!(blk->flags & SQFS_BLK_DONT_COMPRESS) &&
	    !(bp->probe &&
	      looks_incompressible(blk->data, blk->size, blk->out))) {
		ret = sqfs_compressor_compress(cmp, blk->data, blk->size,
					       blk->out, blk->size);
		if (ret < 0)
			return (int)ret;
		if ((size_t)ret >= blk->size)
			return SQFS_ERROR_INTERNAL;
	}

	if (ret > 0) {
		blk->stored = blk->out;
		blk->size_word = (uint32_t)ret;
	} else {
		blk->stored = blk->data;
		blk->size_word = blk->size | BP_SIZE_RAW;
	}
	/* The hash covers the stored bytes: the block writer compares runs
	 * of stored blocks, and the stored form is shorter to hash. */
	blk->hash = bp->hash_fn(blk->stored, blk->size_word & BP_SIZE_MASK);
	return 0;
}

int bp_process_block(const sqfs_block_processor_t *bp, sqfs_compressor_t *cmp,
		     bp_block_t *blk)
{
	blk->size_word = 0;
	blk->stored = NULL;
	blk->hash = 0;

	if (blk->size > bp->desc.block_size)
		return SQFS_ERROR_INTERNAL;

	switch (blk->kind) {
	case BP_BLOCK_DATA:
		if (blk->size == 0)
			return SQFS_ERROR_INTERNAL;
		if (!(blk->flags & SQFS_BLK_NO_SPARSE) &&
		    bp_is_zero(blk->data, blk->size))
			return 0;
		return bp_compress(bp, cmp, blk);
	case BP_BLOCK_FRAGMENTS:
		/* never sparse: a fragment table entry must point at data */
		if (blk->size == 0)
			return SQFS_ERROR_INTERNAL;
		return bp_compress(bp, cmp, blk);
	case BP_BLOCK_SPARSE:
	case BP_BLOCK_FILE_END:
		return 0;
	case BP_BLOCK_TAIL:
		/* packed by the front end, never submitted */
		break;
	}
	return SQFS_ERROR_INTERNAL;
}

int bp_handle_completed(sqfs_block_processor_t *bp, bp_block_t *blk)
{
	switch (blk->kind) {
	case BP_BLOCK_DATA:
	case BP_BLOCK_SPARSE:
	case BP_BLOCK_FILE_END:
	case BP_BLOCK_FRAGMENTS:
		return bp->ops->queue_io(bp, blk);
	case BP_BLOCK_TAIL:
		break;
	}
	bp_block_release(bp, blk);
	return SQFS_ERROR_INTERNAL;
}

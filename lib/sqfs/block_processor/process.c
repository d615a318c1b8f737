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

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

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

static int bp_compress(const sqfs_block_processor_t *bp, sqfs_compressor_t *cmp,
		       bp_block_t *blk)
{
	ptrdiff_t ret = 0;

	if (!(blk->flags & SQFS_BLK_DONT_COMPRESS)) {
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

/* SPDX-License-Identifier: MIT */
/*
 * blocks.c - the block pool: block structures with their two buffers
 * (data, and out for the compressed form), and bare FILE_END markers, each
 * kept on a free list once made. The front end and the back ends take and
 * give back; how many may be out at once is the back end's policy.
 */
#include "config.h"

#include "sqfs/block_processor/internal.h"
#include "sqfs/error.h"

#include <stdlib.h>

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

void bp_blocks_init(bp_block_pool_t *pool, uint32_t block_size)
{
	pool->block_size = block_size;
	pool->all = NULL;
	pool->free_blocks = NULL;
	pool->free_markers = NULL;
	pool->block_count = 0;
	pool->blocks_in_use = 0;
	pool->markers_in_use = 0;
}

void bp_blocks_cleanup(bp_block_pool_t *pool)
{
	bp_block_t *blk;

	while (pool->all != NULL) {
		blk = pool->all;
		pool->all = blk->all_next;
		free(blk);
	}
	bp_blocks_init(pool, pool->block_size);
}

int bp_block_alloc(bp_block_pool_t *pool, bp_block_t **out)
{
	size_t bs = pool->block_size;
	bp_block_t *blk = pool->free_blocks;

	if (blk != NULL) {
		pool->free_blocks = blk->next;
	} else {
		/* one allocation: the structure, then data and out */
		blk = malloc(sizeof(*blk) + 2 * bs);
		if (blk == NULL)
			return SQFS_ERROR_ALLOC;
		blk->data = (uint8_t *)(blk + 1);
		blk->out = blk->data + bs;
		blk->marker = false;
		blk->all_next = pool->all;
		pool->all = blk;
		pool->block_count += 1;
	}

	pool->blocks_in_use += 1;
	block_reset(blk);
	*out = blk;
	return 0;
}

int bp_marker_alloc(bp_block_pool_t *pool, bp_block_t **out)
{
	bp_block_t *blk = pool->free_markers;

	if (blk != NULL) {
		pool->free_markers = blk->next;
	} else {
		blk = malloc(sizeof(*blk));
		if (blk == NULL)
			return SQFS_ERROR_ALLOC;
		blk->data = NULL;
		blk->out = NULL;
		blk->marker = true;
		blk->all_next = pool->all;
		pool->all = blk;
	}

	pool->markers_in_use += 1;
	block_reset(blk);
	blk->kind = BP_BLOCK_FILE_END;
	*out = blk;
	return 0;
}

void bp_block_release(bp_block_pool_t *pool, bp_block_t *blk)
{
	if (blk->marker) {
		blk->next = pool->free_markers;
		pool->free_markers = blk;
		pool->markers_in_use -= 1;
		return;
	}
	blk->next = pool->free_blocks;
	pool->free_blocks = blk;
	pool->blocks_in_use -= 1;
}

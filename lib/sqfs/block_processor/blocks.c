/* SPDX-License-Identifier: MIT */
/*
 * blocks.c - the block pool: block structures and the block_size buffers
 * they carry, each kept on a free list once made. The front end and the
 * back ends take and give back; how many may be out at once is the back
 * end's policy.
 *
 * A file's data block has one buffer: processing compresses into the
 * worker's scratch and copies the result back over the data, which is not
 * needed once compressed. A fragment block has a second buffer (out) for
 * the compressed form, because the packer may still read its data while it
 * waits to be written. A FILE_END marker has none. Buffers are shared by
 * all kinds, so the buffers ever made never exceed the most in use at
 * once.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

static void block_reset(bp_block_t *blk)
{
	blk->next = NULL;
	blk->kind = BP_BLOCK_DATA;
	blk->flags = 0;
	blk->fd = NULL;
	blk->index = 0;
	blk->size = 0;
	blk->proc_seq = 0;
	blk->error = 0;
	blk->size_word = 0;
	blk->stored = NULL;
	blk->hash = 0;
	blk->data = NULL;
	blk->out = NULL;
	blk->marker = false;
}

void bp_blocks_init(bp_block_pool_t *pool, uint32_t block_size)
{
	memset(pool, 0, sizeof(*pool));
	pool->block_size = block_size;
}

void bp_blocks_cleanup(bp_block_pool_t *pool)
{
	bp_block_t *blk;
	size_t i;

	while (pool->all != NULL) {
		blk = pool->all;
		pool->all = blk->all_next;
		free(blk);
	}
	for (i = 0; i < pool->buffers.count; ++i)
		free(((uint8_t **)pool->buffers.data)[i]);
	array_cleanup(&pool->buffers);
	bp_blocks_init(pool, pool->block_size);
}

/* A free buffer links to the next through its first bytes. */
static int buffer_get(bp_block_pool_t *pool, uint8_t **out)
{
	uint8_t *buf = pool->free_buffers;
	int ret;

	if (buf != NULL) {
		memcpy(&pool->free_buffers, buf, sizeof(buf));
		*out = buf;
		return 0;
	}

	ret = array_reserve(&pool->buffers, sizeof(buf), 1);
	if (ret != 0)
		return ret;
	buf = malloc(pool->block_size);
	if (buf == NULL)
		return SQFS_ERROR_ALLOC;
	((uint8_t **)pool->buffers.data)[pool->buffers.count++] = buf;
	pool->buffer_bytes += pool->block_size;
	*out = buf;
	return 0;
}

static void buffer_put(bp_block_pool_t *pool, uint8_t *buf)
{
	if (buf == NULL)
		return;
	memcpy(buf, &pool->free_buffers, sizeof(buf));
	pool->free_buffers = buf;
}

static int structure_get(bp_block_pool_t *pool, bp_block_t **out)
{
	bp_block_t *blk = pool->free_structs;

	if (blk != NULL) {
		pool->free_structs = blk->next;
	} else {
		blk = malloc(sizeof(*blk));
		if (blk == NULL)
			return SQFS_ERROR_ALLOC;
		blk->all_next = pool->all;
		pool->all = blk;
	}
	block_reset(blk);
	*out = blk;
	return 0;
}

int bp_block_alloc(bp_block_pool_t *pool, bool with_out, bp_block_t **out)
{
	bp_block_t *blk;
	int ret;

	ret = structure_get(pool, &blk);
	if (ret != 0)
		return ret;
	ret = buffer_get(pool, &blk->data);
	if (ret == 0 && with_out)
		ret = buffer_get(pool, &blk->out);
	if (ret != 0) {
		buffer_put(pool, blk->data);
		blk->data = NULL;
		blk->next = pool->free_structs;
		pool->free_structs = blk;
		return ret;
	}

	pool->blocks_in_use += 1;
	*out = blk;
	return 0;
}

int bp_marker_alloc(bp_block_pool_t *pool, bp_block_t **out)
{
	bp_block_t *blk;
	int ret;

	ret = structure_get(pool, &blk);
	if (ret != 0)
		return ret;
	blk->marker = true;
	blk->kind = BP_BLOCK_FILE_END;
	pool->markers_in_use += 1;
	*out = blk;
	return 0;
}

void bp_block_release(bp_block_pool_t *pool, bp_block_t *blk)
{
	if (blk->marker) {
		pool->markers_in_use -= 1;
	} else {
		buffer_put(pool, blk->data);
		buffer_put(pool, blk->out);
		pool->blocks_in_use -= 1;
	}
	blk->data = NULL;
	blk->out = NULL;
	blk->next = pool->free_structs;
	pool->free_structs = blk;
}

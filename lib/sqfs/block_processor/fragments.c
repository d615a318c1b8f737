/* SPDX-License-Identifier: MIT */
/*
 * fragments.c - the fragment packer: deduplicates tails and packs them
 * into fragment blocks.
 *
 * Every distinct tail gets a record (size, hash, block, offset); a hash map
 * takes the key of (size, hash) to the latest record with that key and
 * each record links to the previous one. A candidate with the same size and
 * hash is compared byte for byte: directly in the open fragment block, or
 * in a written fragment block read back from the output and decoded (the
 * last one decoded is kept, since duplicates tend to cluster).
 */
#include "config.h"

#include "sqfs/block_processor/internal.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"

#include <stdlib.h>
#include <string.h>

void bp_fragments_cleanup(sqfs_block_processor_t *bp)
{
	array_cleanup(&bp->frag.list);
	array_cleanup(&bp->frag.table);
	free(bp->frag.cache);
	free(bp->frag.scratch);
	array_cleanup(&bp->frag.pending);
	hash_table_cleanup(&bp->frag.map);
	bp->frag.cache = NULL;
	bp->frag.scratch = NULL;
	bp->frag.cache_index = BP_NONE;
}

/* Decode written fragment block number idx into the cache. */
static int load_fragment_block(sqfs_block_processor_t *bp, uint32_t idx)
{
	const size_t bs = bp->desc.block_size;
	sqfs_file_t *file = bp->desc.file;
	const bp_frag_entry_t *e;
	uint32_t len;
	ptrdiff_t ret;

	if (idx >= bp->frag.table.count)
		return SQFS_ERROR_INTERNAL;
	e = bp_frag_table(bp) + idx;
	len = e->size_word & BP_SIZE_MASK;
	if (len == 0 || len > bs)
		return SQFS_ERROR_INTERNAL;

	if (bp->frag.cache == NULL) {
		bp->frag.cache = malloc(bs);
		if (bp->frag.cache == NULL)
			return SQFS_ERROR_ALLOC;
	}
	bp->frag.cache_index = BP_NONE;

	if (e->size_word & BP_SIZE_RAW) {
		ret = file->read_at(file, e->start, bp->frag.cache, len);
		if (ret != 0)
			return (int)ret;
		ret = len;
	} else {
		if (bp->frag.scratch == NULL) {
			bp->frag.scratch = malloc(bs);
			if (bp->frag.scratch == NULL)
				return SQFS_ERROR_ALLOC;
		}
		ret = file->read_at(file, e->start, bp->frag.scratch, len);
		if (ret != 0)
			return (int)ret;
		ret = sqfs_compressor_uncompress(bp->desc.cmp, bp->frag.scratch,
						 len, bp->frag.cache, bs);
		if (ret < 0)
			return (int)ret;
	}

	bp->frag.cache_index = idx;
	bp->frag.cache_size = (uint32_t)ret;
	return 0;
}

/*
 * Forget pending fragment blocks that have been written. A written block
 * has a non-zero table entry (it always holds data) and may already be
 * reused for other data, so its pointer is never looked at again.
 */
static void prune_pending(sqfs_block_processor_t *bp)
{
	bp_pending_t *list = bp_frag_pending(bp);
	size_t i, kept = 0;

	for (i = 0; i < bp->frag.pending.count; ++i) {
		if (bp_frag_table(bp)[list[i].index].size_word == 0)
			list[kept++] = list[i];
	}
	bp->frag.pending.count = kept;
}

static int add_pending(sqfs_block_processor_t *bp, const bp_block_t *blk)
{
	bp_pending_t *p;
	int ret;

	prune_pending(bp);
	ret = array_reserve(&bp->frag.pending, sizeof(bp_pending_t), 1);
	if (ret != 0)
		return ret;
	p = bp_frag_pending(bp) + bp->frag.pending.count++;
	p->index = blk->index;
	p->blk = blk;
	return 0;
}

/* A fragment block handed to the back end but not yet written, or NULL.
 * Workers only read its data (they compress into out), so the main thread
 * may read it too. */
static const bp_block_t *pending_block(sqfs_block_processor_t *bp, uint32_t idx)
{
	const bp_pending_t *list = bp_frag_pending(bp);
	size_t i;

	if (bp_frag_table(bp)[idx].size_word != 0)
		return NULL;
	for (i = 0; i < bp->frag.pending.count; ++i) {
		if (list[i].index == idx)
			return list[i].blk;
	}
	return NULL;
}

/* The bytes of an earlier fragment. */
static int fragment_bytes(sqfs_block_processor_t *bp, const bp_fragment_t *rec,
			  const uint8_t **out)
{
	const bp_block_t *blk = bp->frag.blk;
	int ret;

	if (blk == NULL || rec->block != blk->index) {
		if (rec->block >= bp->frag.table.count)
			return SQFS_ERROR_INTERNAL;
		blk = pending_block(bp, rec->block);
	}
	if (blk != NULL) {
		if (rec->offset > blk->size ||
		    rec->size > blk->size - rec->offset)
			return SQFS_ERROR_INTERNAL;
		*out = blk->data + rec->offset;
		return 0;
	}

	if (rec->block != bp->frag.cache_index) {
		ret = load_fragment_block(bp, rec->block);
		if (ret != 0)
			return ret;
	}
	/* what we wrote ourselves decoded shorter: the output changed */
	if (rec->offset > bp->frag.cache_size ||
	    rec->size > bp->frag.cache_size - rec->offset)
		return SQFS_ERROR_CORRUPTED;
	*out = bp->frag.cache + rec->offset;
	return 0;
}

/* Look for an earlier fragment equal to the tail: *out receives its
 * record, or BP_NONE. */
static int find_fragment(sqfs_block_processor_t *bp, const bp_block_t *tail,
			 uint32_t *out)
{
	unsigned int tried = 0;
	const uint8_t *bytes;
	uint64_t i;
	int ret;

	*out = BP_NONE;
	if (!hash_table_get(&bp->frag.map, bp_dedup_key(tail->hash, tail->size),
			    &i))
		return 0;

	for (; i != BP_NONE; i = bp_frag_list(bp)[i].prev) {
		const bp_fragment_t *rec;

		if (i >= bp->frag.list.count)
			return SQFS_ERROR_INTERNAL;
		rec = bp_frag_list(bp) + i;
		if (rec->size != tail->size || rec->hash != tail->hash)
			continue;
		if (tried++ == BP_MAX_CANDIDATES)
			break;

		ret = fragment_bytes(bp, rec, &bytes);
		if (ret != 0)
			return ret;
		if (memcmp(bytes, tail->data, tail->size) == 0) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	return 0;
}

static int record_fragment(sqfs_block_processor_t *bp, const bp_block_t *tail,
			   uint32_t block, uint32_t offset)
{
	uint64_t key = bp_dedup_key(tail->hash, tail->size), prev;
	bp_fragment_t *rec;
	int ret;

	/* records are linked by u32 numbers; past that, stop recording */
	if (bp->frag.list.count >= BP_NONE - 1)
		return 0;

	ret = array_reserve(&bp->frag.list, sizeof(*rec), 1);
	if (ret != 0)
		return ret;

	rec = bp_frag_list(bp) + bp->frag.list.count;
	rec->hash = tail->hash;
	rec->size = tail->size;
	rec->block = block;
	rec->offset = offset;
	rec->prev = BP_NONE;
	if (hash_table_get(&bp->frag.map, key, &prev))
		rec->prev = (uint32_t)prev;

	ret = hash_table_put(&bp->frag.map, key, bp->frag.list.count);
	if (ret != 0)
		return ret;
	bp->frag.list.count += 1;
	return 0;
}

/* Open a new fragment block with the next fragment table index. */
static int open_fragment_block(sqfs_block_processor_t *bp)
{
	bp_frag_entry_t *table;
	bp_block_t *blk;
	int ret;

	/* 0xFFFFFFFF means "no fragment" in an inode */
	if (bp->frag.table.count >= SQFS_NO_FRAGMENT)
		return SQFS_ERROR_LIMIT;

	ret = array_reserve(&bp->frag.table, sizeof(*table), 1);
	if (ret != 0)
		return ret;

	ret = bp->ops->get_block(bp, &blk);
	if (ret != 0)
		return ret;
	blk->kind = BP_BLOCK_FRAGMENTS;
	blk->flags = 0;
	blk->fd = NULL;
	blk->size = 0;
	blk->index = (uint32_t)bp->frag.table.count;

	table = bp_frag_table(bp) + bp->frag.table.count++;
	table->start = 0;
	table->size_word = 0;
	bp->frag.blk = blk;
	bp->frag.fill = 0;
	return 0;
}

int bp_flush_fragments(sqfs_block_processor_t *bp)
{
	bp_block_t *blk = bp->frag.blk;
	int ret;

	if (blk == NULL)
		return 0;
	bp->frag.blk = NULL;
	blk->size = bp->frag.fill;
	bp->frag.fill = 0;
	ret = add_pending(bp, blk);
	if (ret != 0) {
		bp_block_release(bp, blk);
		return ret;
	}
	return bp->ops->submit(bp, blk);
}

int bp_pack_tail(sqfs_block_processor_t *bp, const bp_block_t *tail)
{
	bool dedup = !(tail->flags & SQFS_BLK_DONT_DEDUPLICATE);
	sqfs_file_data_t *fd = tail->fd;
	uint32_t match, offset;
	int ret;

	if (fd == NULL || tail->size == 0 || tail->size >= bp->desc.block_size)
		return SQFS_ERROR_INTERNAL;

	if (dedup) {
		ret = find_fragment(bp, tail, &match);
		if (ret != 0)
			return ret;
		if (match != BP_NONE) {
			fd->fragment_index = bp_frag_list(bp)[match].block;
			fd->fragment_offset = bp_frag_list(bp)[match].offset;
			bp->stats.duplicate_fragments += 1;
			return 0;
		}
	}

	if (bp->frag.blk != NULL &&
	    tail->size > bp->desc.block_size - bp->frag.fill) {
		ret = bp_flush_fragments(bp);
		if (ret != 0)
			return ret;
	}
	if (bp->frag.blk == NULL) {
		ret = open_fragment_block(bp);
		if (ret != 0)
			return ret;
	}

	offset = bp->frag.fill;
	memcpy(bp->frag.blk->data + offset, tail->data, tail->size);
	bp->frag.fill += tail->size;
	bp->frag.blk->size = bp->frag.fill;
	/* a file that must stay uncompressed keeps its tail raw too */
	bp->frag.blk->flags |= tail->flags & SQFS_BLK_DONT_COMPRESS;

	fd->fragment_index = bp->frag.blk->index;
	fd->fragment_offset = offset;

	if (dedup)
		return record_fragment(bp, tail, bp->frag.blk->index, offset);
	return 0;
}

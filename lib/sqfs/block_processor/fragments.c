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

static uint64_t fragment_key(uint64_t hash, uint32_t size)
{
	return hash ^ ((uint64_t)size * 0x9e3779b97f4a7c15ull);
}

void bp_fragments_cleanup(sqfs_block_processor_t *bp)
{
	free(bp->frag.list);
	free(bp->frag.table);
	free(bp->frag.cache);
	free(bp->frag.scratch);
	free(bp->frag.pending);
	hash_table_cleanup(&bp->frag.map);
	bp->frag.list = NULL;
	bp->frag.table = NULL;
	bp->frag.cache = NULL;
	bp->frag.scratch = NULL;
	bp->frag.pending = NULL;
	bp->frag.pending_count = bp->frag.pending_capacity = 0;
	bp->frag.count = bp->frag.capacity = 0;
	bp->frag.table_count = bp->frag.table_capacity = 0;
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

	if (idx >= bp->frag.table_count)
		return SQFS_ERROR_INTERNAL;
	e = bp->frag.table + idx;
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
	size_t i, kept = 0;

	for (i = 0; i < bp->frag.pending_count; ++i) {
		uint32_t idx = bp->frag.pending[i].index;

		if (bp->frag.table[idx].size_word == 0)
			bp->frag.pending[kept++] = bp->frag.pending[i];
	}
	bp->frag.pending_count = kept;
}

static int add_pending(sqfs_block_processor_t *bp, const bp_block_t *blk)
{
	prune_pending(bp);
	if (bp->frag.pending_count == bp->frag.pending_capacity) {
		size_t cap = bp->frag.pending_capacity
				 ? bp->frag.pending_capacity * 2
				 : 16;
		void *list;

		if (cap > SIZE_MAX / sizeof(*bp->frag.pending))
			return SQFS_ERROR_OVERFLOW;
		list =
		    realloc(bp->frag.pending, cap * sizeof(*bp->frag.pending));
		if (list == NULL)
			return SQFS_ERROR_ALLOC;
		bp->frag.pending = list;
		bp->frag.pending_capacity = cap;
	}
	bp->frag.pending[bp->frag.pending_count].index = blk->index;
	bp->frag.pending[bp->frag.pending_count].blk = blk;
	bp->frag.pending_count += 1;
	return 0;
}

/* A fragment block handed to the back end but not yet written, or NULL.
 * Workers only read its data (they compress into out), so the main thread
 * may read it too. */
static const bp_block_t *pending_block(sqfs_block_processor_t *bp, uint32_t idx)
{
	size_t i;

	if (bp->frag.table[idx].size_word != 0)
		return NULL;
	for (i = 0; i < bp->frag.pending_count; ++i) {
		if (bp->frag.pending[i].index == idx)
			return bp->frag.pending[i].blk;
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
		if (rec->block >= bp->frag.table_count)
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
	if (!hash_table_get(&bp->frag.map, fragment_key(tail->hash, tail->size),
			    &i))
		return 0;

	for (; i != BP_NONE; i = bp->frag.list[i].prev) {
		const bp_fragment_t *rec;

		if (i >= bp->frag.count)
			return SQFS_ERROR_INTERNAL;
		rec = bp->frag.list + i;
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
	uint64_t key = fragment_key(tail->hash, tail->size), prev;
	bp_fragment_t *rec;
	int ret;

	/* records are linked by u32 numbers; past that, stop recording */
	if (bp->frag.count >= BP_NONE - 1)
		return 0;

	if (bp->frag.count == bp->frag.capacity) {
		size_t cap = bp->frag.capacity ? bp->frag.capacity * 2 : 256;

		if (cap > SIZE_MAX / sizeof(*rec))
			return SQFS_ERROR_OVERFLOW;
		rec = realloc(bp->frag.list, cap * sizeof(*rec));
		if (rec == NULL)
			return SQFS_ERROR_ALLOC;
		bp->frag.list = rec;
		bp->frag.capacity = cap;
	}

	rec = bp->frag.list + bp->frag.count;
	rec->hash = tail->hash;
	rec->size = tail->size;
	rec->block = block;
	rec->offset = offset;
	rec->prev = BP_NONE;
	if (hash_table_get(&bp->frag.map, key, &prev))
		rec->prev = (uint32_t)prev;

	ret = hash_table_put(&bp->frag.map, key, bp->frag.count);
	if (ret != 0)
		return ret;
	bp->frag.count += 1;
	return 0;
}

/* Open a new fragment block with the next fragment table index. */
static int open_fragment_block(sqfs_block_processor_t *bp)
{
	bp_frag_entry_t *table;
	bp_block_t *blk;
	int ret;

	/* 0xFFFFFFFF means "no fragment" in an inode */
	if (bp->frag.table_count >= SQFS_NO_FRAGMENT)
		return SQFS_ERROR_LIMIT;

	if (bp->frag.table_count == bp->frag.table_capacity) {
		size_t cap =
		    bp->frag.table_capacity ? bp->frag.table_capacity * 2 : 64;

		if (cap > SIZE_MAX / sizeof(*table))
			return SQFS_ERROR_OVERFLOW;
		table = realloc(bp->frag.table, cap * sizeof(*table));
		if (table == NULL)
			return SQFS_ERROR_ALLOC;
		bp->frag.table = table;
		bp->frag.table_capacity = cap;
	}

	ret = bp->ops->get_block(bp, &blk);
	if (ret != 0)
		return ret;
	blk->kind = BP_BLOCK_FRAGMENTS;
	blk->flags = 0;
	blk->fd = NULL;
	blk->size = 0;
	blk->index = (uint32_t)bp->frag.table_count;

	bp->frag.table[bp->frag.table_count].start = 0;
	bp->frag.table[bp->frag.table_count].size_word = 0;
	bp->frag.table_count += 1;
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
			fd->fragment_index = bp->frag.list[match].block;
			fd->fragment_offset = bp->frag.list[match].offset;
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

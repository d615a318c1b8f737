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
 * blocks decoded are cached: see bp_frag_cache_slot_t). Tails of up
 * to BP_EXACT_TAIL bytes need no comparison: their hash is their bytes.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"

#include <stdlib.h>
#include <string.h>

static bp_fragment_t *frag_at(const bp_packer_t *pk, size_t i)
{
	return (bp_fragment_t *)pk->list.data + i;
}

static bp_pending_t *pending_list(const bp_packer_t *pk)
{
	return pk->pending.data;
}

void bp_packer_init(bp_packer_t *pk, uint32_t block_size, sqfs_file_t *file,
		    sqfs_compressor_t *cmp, bp_frag_table_t *ftable,
		    const bp_block_sink_t *sink)
{
	memset(pk, 0, sizeof(*pk));
	pk->block_size = block_size;
	pk->file = file;
	pk->cmp = cmp;
	pk->ftable = ftable;
	pk->sink = *sink;
	hash_table_init(&pk->map);

	/* as many slots as the byte budget allows, at least 2 */
	pk->cache_slots = BP_FRAG_CACHE_BYTES / block_size;
	if (pk->cache_slots < 2)
		pk->cache_slots = 2;
	if (pk->cache_slots > BP_FRAG_CACHE_SLOTS)
		pk->cache_slots = BP_FRAG_CACHE_SLOTS;
	for (size_t i = 0; i < BP_FRAG_CACHE_SLOTS; ++i)
		pk->cache[i].index = BP_NONE;
}

void bp_packer_cleanup(bp_packer_t *pk)
{
	if (pk->blk != NULL)
		pk->sink.release(pk->sink.ctx, pk->blk);
	pk->blk = NULL;
	array_cleanup(&pk->list);
	for (size_t i = 0; i < BP_FRAG_CACHE_SLOTS; ++i) {
		free(pk->cache[i].data);
		pk->cache[i].data = NULL;
		pk->cache[i].index = BP_NONE;
	}
	free(pk->scratch);
	array_cleanup(&pk->pending);
	hash_table_cleanup(&pk->map);
	pk->scratch = NULL;
}

/* Whether fragment block idx is on disk (its table entry is filled in). */
static bool written(const bp_packer_t *pk, uint32_t idx)
{
	const bp_frag_entry_t *e = bp_frag_table_get(pk->ftable, idx);

	return e != NULL && e->size != 0;
}

/* The slot to decode a block into: an empty one, else the least recently
 * used. */
static bp_frag_cache_slot_t *victim_slot(bp_packer_t *pk)
{
	bp_frag_cache_slot_t *best = &pk->cache[0];

	for (size_t i = 0; i < pk->cache_slots; ++i) {
		bp_frag_cache_slot_t *s = &pk->cache[i];

		if (s->index == BP_NONE)
			return s;
		if (s->last_use < best->last_use)
			best = s;
	}
	return best;
}

/* Written fragment block number idx, decoded: from the cache, or read back
 * and decoded into it. */
static int load_fragment_block(bp_packer_t *pk, uint32_t idx,
			       const bp_frag_cache_slot_t **out)
{
	const size_t bs = pk->block_size;
	sqfs_file_t *file = pk->file;
	const bp_frag_entry_t *e;
	bp_frag_cache_slot_t *slot;
	uint32_t len;
	ptrdiff_t ret;

	for (size_t i = 0; i < pk->cache_slots; ++i) {
		if (pk->cache[i].index == idx) {
			pk->cache[i].last_use = ++pk->clock;
			*out = &pk->cache[i];
			return 0;
		}
	}

	e = bp_frag_table_get(pk->ftable, idx);
	if (e == NULL)
		return SQFS_ERROR_INTERNAL;
	len = e->size & SQFS_SIZE_WORD_LENGTH;
	if (len == 0 || len > bs)
		return SQFS_ERROR_INTERNAL;

	slot = victim_slot(pk);
	if (slot->data == NULL) {
		slot->data = malloc(bs);
		if (slot->data == NULL)
			return SQFS_ERROR_ALLOC;
	}
	slot->index = BP_NONE;

	if (e->size & SQFS_SIZE_WORD_RAW) {
		ret = file->read_at(file, e->start, slot->data, len);
		if (ret != 0)
			return (int)ret;
		ret = len;
	} else {
		if (pk->scratch == NULL) {
			pk->scratch = malloc(bs);
			if (pk->scratch == NULL)
				return SQFS_ERROR_ALLOC;
		}
		ret = file->read_at(file, e->start, pk->scratch, len);
		if (ret != 0)
			return (int)ret;
		ret = sqfs_compressor_uncompress(pk->cmp, pk->scratch, len,
						 slot->data, bs);
		if (ret < 0)
			return (int)ret;
	}

	slot->index = idx;
	slot->size = (uint32_t)ret;
	slot->last_use = ++pk->clock;
	*out = slot;
	return 0;
}

/*
 * Forget pending fragment blocks that have been written. A written block
 * has a non-zero table entry (it always holds data) and may already be
 * reused for other data, so its pointer is never looked at again.
 */
static void prune_pending(bp_packer_t *pk)
{
	bp_pending_t *list = pending_list(pk);
	size_t i, kept = 0;

	for (i = 0; i < pk->pending.count; ++i) {
		if (!written(pk, list[i].index))
			list[kept++] = list[i];
	}
	pk->pending.count = kept;
}

static int add_pending(bp_packer_t *pk, const bp_block_t *blk)
{
	bp_pending_t *p;
	int ret;

	prune_pending(pk);
	ret = array_reserve(&pk->pending, sizeof(bp_pending_t), 1);
	if (ret != 0)
		return ret;
	p = pending_list(pk) + pk->pending.count++;
	p->index = blk->index;
	p->blk = blk;
	return 0;
}

/* A fragment block handed to the back end but not yet written, or NULL.
 * Workers only read its data (they compress into out), so the main thread
 * may read it too. */
static const bp_block_t *pending_block(bp_packer_t *pk, uint32_t idx)
{
	const bp_pending_t *list = pending_list(pk);
	size_t i;

	if (written(pk, idx))
		return NULL;
	for (i = 0; i < pk->pending.count; ++i) {
		if (list[i].index == idx)
			return list[i].blk;
	}
	return NULL;
}

/* The bytes of an earlier fragment. */
static int fragment_bytes(bp_packer_t *pk, const bp_fragment_t *rec,
			  const uint8_t **out)
{
	const bp_block_t *blk = pk->blk;
	const bp_frag_cache_slot_t *slot;
	int ret;

	if (blk == NULL || rec->block != blk->index) {
		if (bp_frag_table_get(pk->ftable, rec->block) == NULL)
			return SQFS_ERROR_INTERNAL;
		blk = pending_block(pk, rec->block);
	}
	if (blk != NULL) {
		if (rec->offset > blk->size ||
		    rec->size > blk->size - rec->offset)
			return SQFS_ERROR_INTERNAL;
		*out = blk->data + rec->offset;
		return 0;
	}

	ret = load_fragment_block(pk, rec->block, &slot);
	if (ret != 0)
		return ret;
	/* what we wrote ourselves decoded shorter: the output changed */
	if (rec->offset > slot->size || rec->size > slot->size - rec->offset)
		return SQFS_ERROR_CORRUPTED;
	*out = slot->data + rec->offset;
	return 0;
}

/* Look for an earlier fragment equal to the tail: *out receives its
 * record, or BP_NONE. */
static int find_fragment(bp_packer_t *pk, const bp_block_t *tail, uint32_t *out)
{
	unsigned int tried = 0;
	const uint8_t *bytes;
	uint64_t i;
	int ret;

	*out = BP_NONE;
	if (!hash_table_get(&pk->map, bp_dedup_key(tail->hash, tail->size), &i))
		return 0;

	for (; i != BP_NONE; i = frag_at(pk, i)->prev) {
		const bp_fragment_t *rec;

		if (i >= pk->list.count)
			return SQFS_ERROR_INTERNAL;
		rec = frag_at(pk, i);
		if (rec->size != tail->size || rec->hash != tail->hash)
			continue;
		/* a tiny tail's hash is its bytes (bp_tail_hash) */
		if (tail->size <= BP_EXACT_TAIL) {
			*out = (uint32_t)i;
			return 0;
		}
		if (tried++ == BP_MAX_CANDIDATES)
			break;

		ret = fragment_bytes(pk, rec, &bytes);
		if (ret != 0)
			return ret;
		if (memcmp(bytes, tail->data, tail->size) == 0) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	return 0;
}

static int record(bp_packer_t *pk, uint64_t hash, uint32_t size, uint32_t block,
		  uint32_t offset)
{
	uint64_t key = bp_dedup_key(hash, size), prev;
	bp_fragment_t *rec;
	int ret;

	/* records are linked by u32 numbers; past that, stop recording */
	if (pk->list.count >= BP_NONE - 1)
		return 0;

	ret = array_reserve(&pk->list, sizeof(*rec), 1);
	if (ret != 0)
		return ret;

	rec = frag_at(pk, pk->list.count);
	rec->hash = hash;
	rec->size = size;
	rec->block = block;
	rec->offset = offset;
	rec->prev = BP_NONE;
	if (hash_table_get(&pk->map, key, &prev))
		rec->prev = (uint32_t)prev;

	ret = hash_table_put(&pk->map, key, pk->list.count);
	if (ret != 0)
		return ret;
	pk->list.count += 1;
	return 0;
}

static int record_fragment(bp_packer_t *pk, const bp_block_t *tail,
			   uint32_t block, uint32_t offset)
{
	return record(pk, tail->hash, tail->size, block, offset);
}

/* Whether a tail at (block, offset) of size and hash is recorded already
 * (old files that shared one tail). */
static bool recorded(const bp_packer_t *pk, uint64_t hash, uint32_t size,
		     uint32_t block, uint32_t offset)
{
	uint64_t i;

	if (!hash_table_get(&pk->map, bp_dedup_key(hash, size), &i))
		return false;
	for (; i != BP_NONE && i < pk->list.count; i = frag_at(pk, i)->prev) {
		const bp_fragment_t *rec = frag_at(pk, i);

		if (rec->size == size && rec->hash == hash &&
		    rec->block == block && rec->offset == offset)
			return true;
	}
	return false;
}

int bp_packer_adopt_tail(bp_packer_t *pk, uint32_t block, uint32_t offset,
			 uint32_t size, bp_hash_fn_t fn)
{
	const bp_frag_entry_t *e = bp_frag_table_get(pk->ftable, block);
	const bp_frag_cache_slot_t *slot;
	uint64_t hash;
	int ret;

	if (pk->blk != NULL || e == NULL || e->size == 0 || size == 0 ||
	    size >= pk->block_size)
		return SQFS_ERROR_INTERNAL;
	ret = load_fragment_block(pk, block, &slot);
	/* the old image's block, not one we wrote */
	if (ret == SQFS_ERROR_INTERNAL)
		ret = SQFS_ERROR_CORRUPTED;
	if (ret != 0)
		return ret;
	if (offset > slot->size || size > slot->size - offset)
		return SQFS_ERROR_CORRUPTED;
	hash = bp_tail_hash(fn, slot->data + offset, size);
	if (recorded(pk, hash, size, block, offset))
		return 0;
	return record(pk, hash, size, block, offset);
}

/* Open a new fragment block with the next fragment table index. */
static int open_fragment_block(bp_packer_t *pk)
{
	bp_block_t *blk;
	uint32_t index;
	int ret;

	ret = bp_frag_table_add(pk->ftable, &index);
	if (ret != 0)
		return ret;
	ret = pk->sink.get_block(pk->sink.ctx, &blk);
	if (ret != 0)
		return ret;
	blk->kind = BP_BLOCK_FRAGMENTS;
	blk->flags = 0;
	blk->fd = NULL;
	blk->size = 0;
	blk->index = index;

	pk->blk = blk;
	pk->fill = 0;
	return 0;
}

int bp_packer_flush(bp_packer_t *pk)
{
	bp_block_t *blk = pk->blk;
	int ret;

	if (blk == NULL)
		return 0;
	pk->blk = NULL;
	blk->size = pk->fill;
	pk->fill = 0;
	ret = add_pending(pk, blk);
	if (ret != 0) {
		pk->sink.release(pk->sink.ctx, blk);
		return ret;
	}
	return pk->sink.submit(pk->sink.ctx, blk);
}

int bp_packer_add(bp_packer_t *pk, const bp_block_t *tail)
{
	bool dedup = !(tail->flags & BP_FILE_DONT_DEDUPLICATE);
	file_data_t *fd = tail->fd;
	uint32_t match, offset;
	int ret;

	if (fd == NULL || tail->size == 0 || tail->size >= pk->block_size)
		return SQFS_ERROR_INTERNAL;

	if (dedup) {
		ret = find_fragment(pk, tail, &match);
		if (ret != 0)
			return ret;
		if (match != BP_NONE) {
			fd->fragment_index = frag_at(pk, match)->block;
			fd->fragment_offset = frag_at(pk, match)->offset;
			pk->stats.duplicate_fragments += 1;
			return 0;
		}
	}

	if (pk->blk != NULL && tail->size > pk->block_size - pk->fill) {
		ret = bp_packer_flush(pk);
		if (ret != 0)
			return ret;
	}
	if (pk->blk == NULL) {
		ret = open_fragment_block(pk);
		if (ret != 0)
			return ret;
	}

	offset = pk->fill;
	memcpy(pk->blk->data + offset, tail->data, tail->size);
	pk->fill += tail->size;
	pk->blk->size = pk->fill;
	/* a file that must stay uncompressed keeps its tail raw too */
	pk->blk->flags |= tail->flags & BP_FILE_DONT_COMPRESS;

	fd->fragment_index = pk->blk->index;
	fd->fragment_offset = offset;

	if (dedup)
		return record_fragment(pk, tail, pk->blk->index, offset);
	return 0;
}

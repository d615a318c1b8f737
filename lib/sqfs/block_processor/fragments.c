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
#include "util/spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bp_pending_t *pending_list(const bp_packer_t *pk)
{
	return pk->pending.data;
}

void bp_packer_init(bp_packer_t *pk, uint32_t block_size, sqfs_file_t *file,
		    sqfs_compressor_t *cmp, bp_frag_table_t *ftable,
		    const bp_block_sink_t *sink, size_t tail_memory)
{
	memset(pk, 0, sizeof(*pk));
	pk->block_size = block_size;
	pk->file = file;
	pk->cmp = cmp;
	pk->ftable = ftable;
	pk->sink = *sink;
	/* an eighth for raw tails, the rest for the index; without a limit,
	 * 16 MiB of raw tails */
	pk->store_memory = tail_memory != 0 ? tail_memory / 8 : (16u << 20);
	bp_tail_index_init(&pk->tails, tail_memory - tail_memory / 8);

	/* as many slots as the byte budget allows, at least 2 */
	pk->cache_slots = BP_FRAG_CACHE_BYTES / block_size;
	if (pk->cache_slots < 2)
		pk->cache_slots = 2;
	if (pk->cache_slots > BP_FRAG_CACHE_SLOTS)
		pk->cache_slots = BP_FRAG_CACHE_SLOTS;
	for (size_t i = 0; i < BP_FRAG_CACHE_SLOTS; ++i)
		pk->cache[i].index = BP_NONE;
}

void bp_packer_set_tail_memory(bp_packer_t *pk, size_t tail_memory)
{
	/* no limit stays no limit; the raw tails' buffer keeps its size */
	if (pk->tails.memory == 0)
		return;
	bp_tail_index_set_memory(&pk->tails,
				 tail_memory > pk->store_memory
				     ? tail_memory - pk->store_memory
				     : 1);
}

void bp_packer_cleanup(bp_packer_t *pk)
{
	if (pk->blk != NULL)
		pk->sink.release(pk->sink.ctx, pk->blk);
	pk->blk = NULL;
	bp_tail_index_cleanup(&pk->tails);
	for (size_t i = 0; i < BP_FRAG_CACHE_SLOTS; ++i) {
		free(pk->cache[i].data);
		pk->cache[i].data = NULL;
		pk->cache[i].index = BP_NONE;
	}
	free(pk->scratch);
	array_cleanup(&pk->pending);
	pk->scratch = NULL;
	spill_file_destroy(pk->store);
	pk->store = NULL;
	free(pk->store_buf);
	pk->store_buf = NULL;
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

/* Keep the words of a failure of the tail store. */
static int store_failed(bp_packer_t *pk, int ret)
{
	if (pk->why[0] == '\0' && pk->store != NULL)
		snprintf(pk->why, sizeof(pk->why), "%s",
			 spill_file_error(pk->store));
	return ret;
}

/* The bytes of an earlier fragment. */
static int fragment_bytes(bp_packer_t *pk, const bp_tail_t *rec,
			  const uint8_t **out)
{
	const bp_block_t *blk = pk->blk;
	const bp_frag_cache_slot_t *slot;
	int ret;

	if (rec->store != 0) {
		if (rec->size > BP_STORED_TAIL_MAX || pk->store == NULL)
			return SQFS_ERROR_INTERNAL;
		ret = spill_file_read_at(pk->store, rec->store - 1,
					 pk->store_buf, rec->size);
		if (ret != 0)
			return store_failed(pk, ret);
		*out = pk->store_buf;
		return 0;
	}

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

typedef struct {
	bp_packer_t *pk;
	const bp_block_t *tail;
	unsigned int tried;
	bp_tail_t found;
} candidate_search_t;

/* One earlier tail of the same size and hash: 1 if its bytes are the
 * tail's, 0 to go on, 2 to give up (too many hash collisions). */
static int try_candidate(void *user, const bp_tail_t *rec)
{
	candidate_search_t *cs = user;
	const uint8_t *bytes;
	int ret;

	/* a tiny tail's hash is its bytes (bp_tail_hash) */
	if (cs->tail->size <= BP_EXACT_TAIL) {
		cs->found = *rec;
		return 1;
	}
	if (cs->tried++ == BP_MAX_CANDIDATES)
		return 2;

	ret = fragment_bytes(cs->pk, rec, &bytes);
	if (ret != 0)
		return ret;
	if (memcmp(bytes, cs->tail->data, cs->tail->size) != 0)
		return 0;
	cs->found = *rec;
	return 1;
}

/* Look for an earlier fragment equal to the tail, newest first: 1 with
 * *out set, or 0. */
static int find_fragment(bp_packer_t *pk, const bp_block_t *tail,
			 bp_tail_t *out)
{
	candidate_search_t cs = {pk, tail, 0, {0, 0, 0, 0, 0}};
	int ret;

	ret = bp_tail_index_find(&pk->tails, tail->hash, tail->size,
				 try_candidate, &cs);
	if (ret < 0)
		return ret;
	if (ret == 1)
		*out = cs.found;
	return ret == 1;
}

static int record(bp_packer_t *pk, uint64_t hash, uint32_t size, uint32_t block,
		  uint32_t offset, const uint8_t *bytes)
{
	bp_tail_t rec = {hash, size, block, offset, 0};
	int ret;

	if (size > BP_EXACT_TAIL && size <= BP_STORED_TAIL_MAX) {
		if (pk->store == NULL) {
			pk->store_buf = malloc(BP_STORED_TAIL_MAX);
			if (pk->store_buf == NULL)
				return SQFS_ERROR_ALLOC;
			/* in memory as long as the tails in memory fit */
			ret = spill_file_create(pk->store_memory, &pk->store,
						pk->why);
			if (ret != 0)
				return ret;
		}
		rec.store = spill_file_size(pk->store) + 1;
		ret = spill_file_append(pk->store, bytes, size);
		if (ret != 0)
			return store_failed(pk, ret);
	}
	return bp_tail_index_add(&pk->tails, &rec);
}

static int record_fragment(bp_packer_t *pk, const bp_block_t *tail,
			   uint32_t block, uint32_t offset)
{
	return record(pk, tail->hash, tail->size, block, offset, tail->data);
}

/* A record at exactly the place asked for: 1, else 0. */
static int same_place(void *user, const bp_tail_t *rec)
{
	const bp_tail_t *want = user;

	return rec->block == want->block && rec->offset == want->offset;
}

int bp_packer_adopt_tail(bp_packer_t *pk, uint32_t block, uint32_t offset,
			 uint32_t size, bp_hash_fn_t fn)
{
	const bp_frag_entry_t *e = bp_frag_table_get(pk->ftable, block);
	const bp_frag_cache_slot_t *slot;
	bp_tail_t want;
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

	/* old files that shared one tail: recorded once */
	want.hash = hash;
	want.size = size;
	want.block = block;
	want.offset = offset;
	ret = bp_tail_index_find(&pk->tails, hash, size, same_place, &want);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	return record(pk, hash, size, block, offset, slot->data + offset);
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
	bp_tail_t match;
	uint32_t offset;
	int ret;

	if (fd == NULL || tail->size == 0 || tail->size >= pk->block_size)
		return SQFS_ERROR_INTERNAL;

	if (dedup) {
		ret = find_fragment(pk, tail, &match);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			fd->fragment_index = match.block;
			fd->fragment_offset = match.offset;
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

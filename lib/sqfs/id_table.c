/* SPDX-License-Identifier: MIT */
/*
 * id_table.c - the uid/gid table: its encoding (one u32 per id, in a
 * lookup table), its decoding, and the table a writer fills.
 *
 * A writer asks for the index of an id once per inode, so lookups go
 * through a small open-addressing hash from id to index. Slots hold
 * index + 1 so that 0 can mark an empty slot; with at most 65535 ids that
 * still fits 16 bits.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/id_table.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"

#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 64u

struct sqfs_id_table {
	uint32_t *ids;
	size_t count;
	size_t capacity;

	uint16_t *slots;
	/* number of slots - 1; the slot count is a power of two */
	size_t mask;
};

static size_t hash_id(uint32_t id, size_t mask)
{
	/* Fibonacci hashing spreads runs of small ids over the table; the
	 * high half of the product is the well mixed part */
	return (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}

/* The slot holding id, or the empty slot where it belongs. */
static size_t find_slot(const uint16_t *slots, size_t mask, const uint32_t *ids,
			uint32_t id)
{
	size_t i = hash_id(id, mask);

	while (slots[i] != 0 && ids[slots[i] - 1] != id)
		i = (i + 1) & mask;
	return i;
}

/* Build a hash over ids[0 .. count) with room for at least min_ids. */
static int build_hash(const uint32_t *ids, size_t count, size_t min_ids,
		      uint16_t **slots_out, size_t *mask_out)
{
	size_t nslots = MIN_SLOTS, i, s;
	uint16_t *slots;

	/* keep the load factor at or below one half */
	while (nslots / 2 < min_ids)
		nslots *= 2;

	slots = calloc(nslots, sizeof(slots[0]));
	if (slots == NULL)
		return SQFS_ERROR_ALLOC;

	for (i = 0; i < count; ++i) {
		s = find_slot(slots, nslots - 1, ids, ids[i]);
		/* duplicates read from an image keep their first index */
		if (slots[s] == 0)
			slots[s] = (uint16_t)(i + 1);
	}

	*slots_out = slots;
	*mask_out = nslots - 1;
	return 0;
}

int sqfs_id_table_create(sqfs_id_table_t **out)
{
	sqfs_id_table_t *tbl;
	int ret;

	if (out == NULL)
		return SQFS_ERROR_ARG_INVALID;

	tbl = calloc(1, sizeof(*tbl));
	if (tbl == NULL)
		return SQFS_ERROR_ALLOC;

	ret = build_hash(NULL, 0, 0, &tbl->slots, &tbl->mask);
	if (ret != 0) {
		free(tbl);
		return ret;
	}

	*out = tbl;
	return 0;
}

void sqfs_id_table_destroy(sqfs_id_table_t *tbl)
{
	if (tbl == NULL)
		return;
	free(tbl->slots);
	free(tbl->ids);
	free(tbl);
}

static int grow(sqfs_id_table_t *tbl)
{
	uint16_t *slots;
	uint32_t *ids;
	size_t capacity, mask;
	int ret;

	if (tbl->count == tbl->capacity) {
		capacity = tbl->capacity == 0 ? 16 : tbl->capacity * 2;
		if (capacity > SQFS_MAX_IDS)
			capacity = SQFS_MAX_IDS;
		ids = realloc(tbl->ids, capacity * sizeof(ids[0]));
		if (ids == NULL)
			return SQFS_ERROR_ALLOC;
		tbl->ids = ids;
		tbl->capacity = capacity;
	}

	if (tbl->count + 1 > (tbl->mask + 1) / 2) {
		ret = build_hash(tbl->ids, tbl->count, tbl->count + 1, &slots,
				 &mask);
		if (ret != 0)
			return ret;
		free(tbl->slots);
		tbl->slots = slots;
		tbl->mask = mask;
	}
	return 0;
}

int sqfs_id_table_id_to_index(sqfs_id_table_t *tbl, uint32_t id,
			      uint16_t *index)
{
	size_t s;
	int ret;

	s = find_slot(tbl->slots, tbl->mask, tbl->ids, id);
	if (tbl->slots[s] != 0) {
		*index = (uint16_t)(tbl->slots[s] - 1);
		return 0;
	}

	if (tbl->count >= SQFS_MAX_IDS)
		return SQFS_ERROR_LIMIT;

	ret = grow(tbl);
	if (ret != 0)
		return ret;

	/* growing may have rehashed */
	s = find_slot(tbl->slots, tbl->mask, tbl->ids, id);
	tbl->ids[tbl->count] = id;
	tbl->slots[s] = (uint16_t)(tbl->count + 1);
	*index = (uint16_t)tbl->count;
	tbl->count += 1;
	return 0;
}

bool sqfs_id_table_contains(const sqfs_id_table_t *tbl, uint32_t id)
{
	return tbl->slots[find_slot(tbl->slots, tbl->mask, tbl->ids, id)] != 0;
}

int sqfs_id_table_index_to_id(const sqfs_id_table_t *tbl, uint16_t index,
			      uint32_t *id)
{
	if (index >= tbl->count)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	*id = tbl->ids[index];
	return 0;
}

size_t sqfs_id_table_count(const sqfs_id_table_t *tbl)
{
	return tbl->count;
}

int sqfs_id_table_write(sqfs_id_table_t *tbl, sqfs_file_t *file,
			sqfs_super_t *super, sqfs_compressor_t *cmp)
{
	uint64_t start;
	uint8_t *raw;
	size_t i;
	int ret;

	if (tbl->count == 0)
		return SQFS_ERROR_SEQUENCE;

	raw = malloc(tbl->count * SQFS_ID_ENTRY_SIZE);
	if (raw == NULL)
		return SQFS_ERROR_ALLOC;
	for (i = 0; i < tbl->count; ++i)
		put_le32(raw + i * SQFS_ID_ENTRY_SIZE, tbl->ids[i]);

	ret = sqfs_table_write(file, cmp, raw, tbl->count * SQFS_ID_ENTRY_SIZE,
			       &start);
	free(raw);
	if (ret != 0)
		return ret;

	super->id_table_start = start;
	super->id_count = (uint16_t)tbl->count;
	return 0;
}

int id_table_load(sqfs_file_t *file, sqfs_compressor_t *cmp,
		  const sqfs_super_t *super, uint64_t lower, uint64_t upper,
		  uint32_t **out, uint64_t *first_block)
{
	void *ids;
	int ret;

	*out = NULL;
	/* every inode refers to an id: an image without one is damaged */
	if (super->id_count == 0)
		return SQFS_ERROR_CORRUPTED;
	ret = table_load_words(file, cmp, super->id_count, SQFS_ID_ENTRY_SIZE,
			       super->id_table_start, lower, upper, &ids,
			       first_block);
	*out = ids;
	return ret;
}

int sqfs_id_table_read(sqfs_id_table_t *tbl, sqfs_file_t *file,
		       const sqfs_super_t *super, sqfs_compressor_t *cmp)
{
	uint64_t lower, upper;
	size_t mask;
	uint16_t *slots;
	uint32_t *ids;
	int ret;

	/* the id table follows the inode and directory tables and ends
	 * before the xattr table, or at the end of the image */
	lower = super->inode_table_start;
	if (super->directory_table_start > lower)
		lower = super->directory_table_start;
	upper = super->xattr_id_table_start != SQFS_TABLE_ABSENT
		    ? super->xattr_id_table_start
		    : super->bytes_used;

	ret = id_table_load(file, cmp, super, lower, upper, &ids, NULL);
	if (ret != 0)
		return ret;

	ret = build_hash(ids, super->id_count, super->id_count, &slots, &mask);
	if (ret != 0) {
		free(ids);
		return ret;
	}

	free(tbl->ids);
	free(tbl->slots);
	tbl->ids = ids;
	tbl->count = super->id_count;
	tbl->capacity = super->id_count;
	tbl->slots = slots;
	tbl->mask = mask;
	return 0;
}

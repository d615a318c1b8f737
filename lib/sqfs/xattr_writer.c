/* SPDX-License-Identifier: MIT */
/*
 * xattr_writer.c - collects xattr sets and writes the xattr table.
 *
 * Keys and values are interned as they arrive, so a set is just a sorted
 * array of (key id, value id) pairs: two sets are equal exactly when the
 * arrays are, which makes set deduplication a hash lookup plus one memcmp.
 * Nothing is laid out until flush, when the sets are written in the order
 * they were first seen; the first copy of a long value goes inline and
 * every later one refers to it, which is only known at that point.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "sqfs/xattr_writer_internal.h"
#include "util/array.h"
#include "util/le.h"
#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"
#include "sqfs/xattr.h"

#include <stdlib.h>
#include <string.h>

/* Below this an out-of-line reference (8 bytes) saves too little. */
#define OOL_MIN_SIZE 16u

/* 0xFFFFFFFF means "no xattrs" in an inode. */
#define MAX_SETS 0xFFFFFFFFu

typedef struct {
	size_t off; /* full key, prefix included, in the key pool */
	uint16_t len;
	uint8_t ns;
} key_rec_t;

typedef struct {
	size_t off;
	uint32_t size;
	bool written;
	/* Where the first, inline copy went, once written. */
	uint64_t ref;
} value_rec_t;

typedef struct {
	uint32_t key;
	uint32_t value;
} pair_t;

typedef struct {
	size_t first; /* in the pair pool */
	uint32_t count;
} set_rec_t;

/* A pair of the open set, with what sorting needs at hand. */
typedef struct {
	uint32_t key;
	uint32_t value;
	uint32_t seq;
	const uint8_t *name;
	uint16_t len;
} open_pair_t;

/* Open addressing; id is the record index + 1, 0 marks an empty slot. */
typedef struct {
	uint32_t id;
	uint32_t hash;
} slot_t;

typedef struct {
	slot_t *slots;
	size_t mask;
	size_t used;
} index_t;

struct xattr_writer {
	bool open;
	bool flushed;

	array_t key_pool;   /* uint8_t */
	array_t keys;	    /* key_rec_t */
	array_t value_pool; /* uint8_t */
	array_t values;	    /* value_rec_t */
	array_t pairs;	    /* pair_t, the sets' canonical arrays */
	array_t sets;	    /* set_rec_t */
	array_t cur;	    /* open_pair_t */
	array_t scratch;    /* pair_t */

	index_t key_index;
	index_t value_index;
	index_t set_index;
};

/* ---- helpers ------------------------------------------------------------ */

static uint32_t hash_bytes(uint32_t h, const void *data, size_t size)
{
	const uint8_t *p = data;
	size_t i;

	/* FNV-1a */
	for (i = 0; i < size; ++i)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#define HASH_SEED 2166136261u

typedef bool (*match_fn)(const xattr_writer_t *xw, uint32_t id,
			 const void *what, size_t size);

/* The slot holding a match for what, or the empty slot where it goes. */
static slot_t *index_find(const xattr_writer_t *xw, const index_t *ix,
			  uint32_t hash, match_fn match, const void *what,
			  size_t size)
{
	size_t i = hash & ix->mask;

	while (ix->slots[i].id != 0) {
		if (ix->slots[i].hash == hash &&
		    match(xw, ix->slots[i].id - 1, what, size))
			break;
		i = (i + 1) & ix->mask;
	}
	return &ix->slots[i];
}

/* Make sure one more id fits below a load factor of one half. */
static int index_grow(index_t *ix)
{
	size_t nslots = ix->slots == NULL ? 64 : (ix->mask + 1), i, j;
	slot_t *slots;

	if (ix->slots != NULL && ix->used + 1 <= nslots / 2)
		return 0;
	if (ix->slots != NULL) {
		if (nslots > SIZE_MAX / sizeof(slot_t) / 2)
			return SQFS_ERROR_OVERFLOW;
		nslots *= 2;
	}
	slots = calloc(nslots, sizeof(slot_t));
	if (slots == NULL)
		return SQFS_ERROR_ALLOC;

	for (i = 0; ix->slots != NULL && i <= ix->mask; ++i) {
		if (ix->slots[i].id == 0)
			continue;
		j = ix->slots[i].hash & (nslots - 1);
		while (slots[j].id != 0)
			j = (j + 1) & (nslots - 1);
		slots[j] = ix->slots[i];
	}
	free(ix->slots);
	ix->slots = slots;
	ix->mask = nslots - 1;
	return 0;
}

/* ---- interning ---------------------------------------------------------- */

static bool key_matches(const xattr_writer_t *xw, uint32_t id, const void *what,
			size_t size)
{
	const key_rec_t *rec = (const key_rec_t *)xw->keys.data + id;

	return rec->len == size &&
	       memcmp((const uint8_t *)xw->key_pool.data + rec->off, what,
		      size) == 0;
}

static bool value_matches(const xattr_writer_t *xw, uint32_t id,
			  const void *what, size_t size)
{
	const value_rec_t *rec = (const value_rec_t *)xw->values.data + id;

	return rec->size == size &&
	       (size == 0 ||
		memcmp((const uint8_t *)xw->value_pool.data + rec->off, what,
		       size) == 0);
}

static bool set_matches(const xattr_writer_t *xw, uint32_t id, const void *what,
			size_t count)
{
	const set_rec_t *rec = (const set_rec_t *)xw->sets.data + id;

	return rec->count == count &&
	       memcmp((const pair_t *)xw->pairs.data + rec->first, what,
		      count * sizeof(pair_t)) == 0;
}

/*
 * Find or add size bytes at data in a pool of records; *id receives its
 * index. The record fields are filled in by the caller for new ones, which
 * *is_new reports.
 */
static int intern(xattr_writer_t *xw, index_t *ix, array_t *recs,
		  size_t rec_size, array_t *pool, match_fn match,
		  const void *data, size_t size, uint32_t *id, size_t *off,
		  bool *is_new)
{
	uint32_t hash = hash_bytes(HASH_SEED, data, size);
	slot_t *slot;
	int ret;

	ret = index_grow(ix);
	if (ret != 0)
		return ret;
	slot = index_find(xw, ix, hash, match, data, size);
	if (slot->id != 0) {
		*id = slot->id - 1;
		*is_new = false;
		return 0;
	}

	if (recs->count >= UINT32_MAX)
		return SQFS_ERROR_LIMIT;
	ret = array_reserve(recs, rec_size, 1);
	if (ret == 0)
		ret = array_reserve(pool, 1, size);
	if (ret != 0)
		return ret;

	*off = pool->count;
	if (size > 0)
		memcpy((uint8_t *)pool->data + pool->count, data, size);
	pool->count += size;

	*id = (uint32_t)recs->count++;
	slot->id = *id + 1;
	slot->hash = hash;
	ix->used++;
	*is_new = true;
	return 0;
}

static int intern_key(xattr_writer_t *xw, const char *key, size_t len,
		      uint8_t ns, uint32_t *id)
{
	key_rec_t *rec;
	bool is_new;
	size_t off;
	int ret;

	ret = intern(xw, &xw->key_index, &xw->keys, sizeof(key_rec_t),
		     &xw->key_pool, key_matches, key, len, id, &off, &is_new);
	if (ret != 0 || !is_new)
		return ret;
	rec = (key_rec_t *)xw->keys.data + *id;
	rec->off = off;
	rec->len = (uint16_t)len;
	rec->ns = ns;
	return 0;
}

static int intern_value(xattr_writer_t *xw, const void *value, size_t size,
			uint32_t *id)
{
	value_rec_t *rec;
	bool is_new;
	size_t off;
	int ret;

	ret = intern(xw, &xw->value_index, &xw->values, sizeof(value_rec_t),
		     &xw->value_pool, value_matches, value, size, id, &off,
		     &is_new);
	if (ret != 0 || !is_new)
		return ret;
	rec = (value_rec_t *)xw->values.data + *id;
	rec->off = off;
	rec->size = (uint32_t)size;
	rec->written = false;
	rec->ref = 0;
	return 0;
}

/* ---- collecting sets ---------------------------------------------------- */

int xattr_writer_create(xattr_writer_t **out)
{
	xattr_writer_t *xw;

	if (out == NULL)
		return SQFS_ERROR_ARG_INVALID;
	xw = calloc(1, sizeof(*xw));
	if (xw == NULL)
		return SQFS_ERROR_ALLOC;
	*out = xw;
	return 0;
}

void xattr_writer_destroy(xattr_writer_t *xw)
{
	if (xw == NULL)
		return;
	array_cleanup(&xw->key_pool);
	array_cleanup(&xw->keys);
	array_cleanup(&xw->value_pool);
	array_cleanup(&xw->values);
	array_cleanup(&xw->pairs);
	array_cleanup(&xw->sets);
	array_cleanup(&xw->cur);
	array_cleanup(&xw->scratch);
	free(xw->key_index.slots);
	free(xw->value_index.slots);
	free(xw->set_index.slots);
	free(xw);
}

int xattr_writer_begin(xattr_writer_t *xw)
{
	if (xw == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (xw->flushed)
		return SQFS_ERROR_SEQUENCE;
	/* a set left open by a failed add is simply dropped */
	xw->cur.count = 0;
	xw->open = true;
	return 0;
}

int xattr_writer_add(xattr_writer_t *xw, const char *key, const void *value,
		     size_t size)
{
	uint32_t key_id, value_id;
	open_pair_t *pair;
	size_t len;
	int ns, ret;

	if (xw == NULL || key == NULL || (value == NULL && size > 0))
		return SQFS_ERROR_ARG_INVALID;
	if (!xw->open)
		return SQFS_ERROR_SEQUENCE;

	{
		const sqfs_xattr_t x = {
		    .key = key, .value = value, .size = size};

		ret = xattr_check_ns(&x, NULL, &ns);
		if (ret != 0)
			return ret;
	}
	len = strlen(key);
	if (xw->cur.count >= UINT32_MAX)
		return SQFS_ERROR_LIMIT;

	ret = array_reserve(&xw->cur, sizeof(open_pair_t), 1);
	if (ret == 0)
		ret = intern_key(xw, key, len, (uint8_t)ns, &key_id);
	if (ret == 0)
		ret = intern_value(xw, value, size, &value_id);
	if (ret != 0)
		return ret;

	pair = (open_pair_t *)xw->cur.data + xw->cur.count;
	pair->key = key_id;
	pair->value = value_id;
	pair->seq = (uint32_t)xw->cur.count++;
	return 0;
}

static int compare_open_pairs(const void *a, const void *b)
{
	const open_pair_t *lhs = a, *rhs = b;
	size_t n = lhs->len < rhs->len ? lhs->len : rhs->len;
	int cmp;

	if (lhs->key != rhs->key) {
		cmp = memcmp(lhs->name, rhs->name, n);
		if (cmp != 0)
			return cmp;
		return lhs->len < rhs->len ? -1 : 1;
	}
	return lhs->seq < rhs->seq ? -1 : (lhs->seq > rhs->seq ? 1 : 0);
}

/* Sort the open set by key into scratch, keeping the last value given
 * for a repeated key; returns the number of pairs. */
static size_t canonical_set(xattr_writer_t *xw)
{
	open_pair_t *cur = xw->cur.data;
	pair_t *out = xw->scratch.data;
	const key_rec_t *rec;
	size_t i, n = 0;

	for (i = 0; i < xw->cur.count; ++i) {
		rec = (const key_rec_t *)xw->keys.data + cur[i].key;
		cur[i].name = (const uint8_t *)xw->key_pool.data + rec->off;
		cur[i].len = rec->len;
	}
	qsort(cur, xw->cur.count, sizeof(*cur), compare_open_pairs);

	for (i = 0; i < xw->cur.count; ++i) {
		if (i + 1 < xw->cur.count && cur[i + 1].key == cur[i].key)
			continue;
		out[n].key = cur[i].key;
		out[n].value = cur[i].value;
		++n;
	}
	return n;
}

int xattr_writer_end(xattr_writer_t *xw, uint32_t *index)
{
	const pair_t *set;
	set_rec_t *rec;
	slot_t *slot;
	uint32_t hash;
	size_t count;
	int ret;

	if (xw == NULL || index == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (!xw->open)
		return SQFS_ERROR_SEQUENCE;
	xw->open = false;

	if (xw->cur.count == 0) {
		*index = SQFS_NO_XATTR;
		return 0;
	}

	xw->scratch.count = 0;
	ret = array_reserve(&xw->scratch, sizeof(pair_t), xw->cur.count);
	if (ret != 0)
		return ret;
	count = canonical_set(xw);
	set = xw->scratch.data;

	ret = index_grow(&xw->set_index);
	if (ret != 0)
		return ret;
	hash = hash_bytes(HASH_SEED, set, count * sizeof(pair_t));
	slot = index_find(xw, &xw->set_index, hash, set_matches, set, count);
	if (slot->id != 0) {
		*index = slot->id - 1;
		return 0;
	}

	if (xw->sets.count >= MAX_SETS)
		return SQFS_ERROR_LIMIT;
	ret = array_reserve(&xw->sets, sizeof(set_rec_t), 1);
	if (ret == 0)
		ret = array_reserve(&xw->pairs, sizeof(pair_t), count);
	if (ret != 0)
		return ret;

	rec = (set_rec_t *)xw->sets.data + xw->sets.count;
	rec->first = xw->pairs.count;
	rec->count = (uint32_t)count;
	memcpy((pair_t *)xw->pairs.data + xw->pairs.count, set,
	       count * sizeof(pair_t));
	xw->pairs.count += count;

	slot->id = (uint32_t)xw->sets.count + 1;
	slot->hash = hash;
	xw->set_index.used++;
	*index = (uint32_t)xw->sets.count++;
	return 0;
}

/* ---- writing the table -------------------------------------------------- */

static uint64_t stream_ref(const sqfs_meta_writer_t *mw)
{
	uint64_t block;
	uint32_t offset;

	sqfs_meta_writer_get_position(mw, &block, &offset);
	return (block << 16) | offset;
}

/* Write one pair; *size grows by the bytes it takes. */
static int write_pair(xattr_writer_t *xw, sqfs_meta_writer_t *mw,
		      const pair_t *pair, uint64_t *size)
{
	const key_rec_t *key = (const key_rec_t *)xw->keys.data + pair->key;
	value_rec_t *value = (value_rec_t *)xw->values.data + pair->value;
	size_t prefix = strlen(xattr_prefix(key->ns));
	bool ool = value->written && value->size >= OOL_MIN_SIZE;
	uint8_t
	    hdr[SQFS_XATTR_KEY_HEADER_SIZE + SQFS_XATTR_VALUE_HEADER_SIZE + 8];
	int ret;

	put_le16(hdr, (uint16_t)(key->ns | (ool ? SQFS_XATTR_TYPE_OOL : 0)));
	put_le16(hdr + 2, (uint16_t)(key->len - prefix));
	ret = sqfs_meta_writer_append(mw, hdr, SQFS_XATTR_KEY_HEADER_SIZE);
	if (ret == 0)
		ret = sqfs_meta_writer_append(
		    mw, (const uint8_t *)xw->key_pool.data + key->off + prefix,
		    key->len - prefix);
	if (ret != 0)
		return ret;
	*size += SQFS_XATTR_KEY_HEADER_SIZE + key->len - prefix;

	if (ool) {
		put_le32(hdr, 8);
		put_le64(hdr + 4, value->ref);
		*size += SQFS_XATTR_VALUE_HEADER_SIZE + 8;
		return sqfs_meta_writer_append(
		    mw, hdr, SQFS_XATTR_VALUE_HEADER_SIZE + 8);
	}

	if (!value->written) {
		value->ref = stream_ref(mw);
		value->written = true;
	}
	put_le32(hdr, value->size);
	ret = sqfs_meta_writer_append(mw, hdr, SQFS_XATTR_VALUE_HEADER_SIZE);
	if (ret == 0 && value->size > 0)
		ret = sqfs_meta_writer_append(
		    mw, (const uint8_t *)xw->value_pool.data + value->off,
		    value->size);
	*size += SQFS_XATTR_VALUE_HEADER_SIZE + value->size;
	return ret;
}

/* Write the kv stream and fill in the id entries. */
static int write_kv(xattr_writer_t *xw, sqfs_meta_writer_t *mw,
		    xattr_id_entry_t *ids)
{
	const set_rec_t *sets = xw->sets.data;
	const pair_t *pairs = xw->pairs.data;
	uint64_t size;
	size_t i, j;
	int ret;

	for (i = 0; i < xw->sets.count; ++i) {
		ids[i].ref = stream_ref(mw);
		size = 0;
		for (j = 0; j < sets[i].count; ++j) {
			ret = write_pair(xw, mw, pairs + sets[i].first + j,
					 &size);
			if (ret != 0)
				return ret;
		}
		if (size > UINT32_MAX)
			return SQFS_ERROR_OVERFLOW;
		ids[i].count = sets[i].count;
		ids[i].size = (uint32_t)size;
	}
	return sqfs_meta_writer_flush(mw);
}

int xattr_writer_flush(xattr_writer_t *xw, sqfs_file_t *file,
		       sqfs_super_t *super, sqfs_compressor_t *cmp)
{
	const unsigned int flags =
	    cmp == NULL ? SQFS_META_WRITER_NO_COMPRESS : 0;
	xattr_id_entry_t *ids;
	sqfs_meta_writer_t *mw = NULL;
	uint64_t kv_start;
	int ret;

	if (xw == NULL || file == NULL || super == NULL)
		return SQFS_ERROR_ARG_INVALID;
	if (xw->open || xw->flushed)
		return SQFS_ERROR_SEQUENCE;

	if (xw->sets.count == 0) {
		super->xattr_id_table_start = SQFS_TABLE_ABSENT;
		super->flags |= SQFS_FLAG_NO_XATTRS;
		xw->flushed = true;
		return 0;
	}

	ids = calloc(xw->sets.count, sizeof(ids[0]));
	if (ids == NULL)
		return SQFS_ERROR_ALLOC;

	/* the key/value stream, then the id table after it */
	kv_start = file->get_size(file);
	ret = sqfs_meta_writer_create(file, cmp, flags, &mw);
	if (ret == 0)
		ret = write_kv(xw, mw, ids);
	sqfs_meta_writer_destroy(mw);
	if (ret == 0)
		ret = xattr_id_table_write(file, cmp, ids, xw->sets.count,
					   kv_start, super);
	if (ret == 0)
		xw->flushed = true;
	free(ids);
	return ret;
}

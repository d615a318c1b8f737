/* SPDX-License-Identifier: MIT */
/*
 * tail_cache.c - small tails kept in a segmented LRU with a doorkeeper
 * (see tail_cache_internal.h for why and how much).
 */
#include "config.h"

#include "sqfs/error.h"

#include "tail_cache_internal.h"

#include <stdlib.h>
#include <string.h>

/* What malloc adds to each block, counted against the limit. */
#define MALLOC_OVERHEAD 16u
/* Expected bytes of an entry, to size the hash table: a header and a
 * tail of about a hundred bytes. */
#define TYPICAL_ENTRY 128u

static uint64_t key_hash(uint32_t frag_index, uint32_t offset, uint32_t size)
{
	uint64_t x = ((uint64_t)frag_index << 32 | offset) ^
		     ((uint64_t)size * 0x9E3779B97F4A7C15ull);

	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x;
}

static size_t entry_bytes(uint32_t size)
{
	return sizeof(tail_entry_t) + size + MALLOC_OVERHEAD;
}

static void list_init(tail_entry_t *s)
{
	s->next = s->prev = s;
}

static void list_remove(tail_entry_t *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

/* Make e the most recently used of segment s (the sentinel's prev). */
static void list_push(tail_entry_t *s, tail_entry_t *e)
{
	e->prev = s->prev;
	e->next = s;
	s->prev->next = e;
	s->prev = e;
}

int tail_cache_init(tail_cache_t *tc, size_t limit)
{
	size_t buckets = 16;

	memset(tc, 0, sizeof(*tc));
	while (buckets < limit / TYPICAL_ENTRY)
		buckets *= 2;
	tc->table = calloc(buckets, sizeof(tc->table[0]));
	tc->door = calloc(TAIL_CACHE_DOOR_SLOTS, sizeof(tc->door[0]));
	if (tc->table == NULL || tc->door == NULL) {
		tail_cache_cleanup(tc);
		return SQFS_ERROR_ALLOC;
	}
	tc->mask = buckets - 1;
	tc->limit = limit;
	tc->protect_limit = limit / 4;
	list_init(&tc->probation);
	list_init(&tc->protect);
	return 0;
}

static void free_list(tail_entry_t *s)
{
	tail_entry_t *e, *next;

	for (e = s->next; e != s; e = next) {
		next = e->next;
		free(e);
	}
}

void tail_cache_cleanup(tail_cache_t *tc)
{
	if (tc->table != NULL) {
		free_list(&tc->probation);
		free_list(&tc->protect);
	}
	free(tc->table);
	free(tc->door);
	memset(tc, 0, sizeof(*tc));
}

static tail_entry_t **bucket(tail_cache_t *tc, uint32_t frag_index,
			     uint32_t offset, uint32_t size)
{
	return &tc->table[key_hash(frag_index, offset, size) & tc->mask];
}

static tail_entry_t *find(tail_entry_t *e, uint32_t frag_index, uint32_t offset,
			  uint32_t size)
{
	for (; e != NULL; e = e->hnext) {
		if (e->frag_index == frag_index && e->offset == offset &&
		    e->size == size)
			break;
	}
	return e;
}

/* Move the least recently used protected entries to probation (as its
 * most recently used) until the protected segment is within its share. */
static void demote(tail_cache_t *tc)
{
	tail_entry_t *e;

	while (tc->protect_bytes > tc->protect_limit) {
		e = tc->protect.next;
		list_remove(e);
		e->protect = false;
		tc->protect_bytes -= entry_bytes(e->size);
		list_push(&tc->probation, e);
	}
}

static void make_protected(tail_cache_t *tc, tail_entry_t *e)
{
	e->protect = true;
	tc->protect_bytes += entry_bytes(e->size);
	list_push(&tc->protect, e);
	demote(tc);
}

tail_entry_t *tail_cache_get(tail_cache_t *tc, uint32_t frag_index,
			     uint32_t offset, uint32_t size)
{
	tail_entry_t *e;

	if (tc->table == NULL)
		return NULL;
	e = find(*bucket(tc, frag_index, offset, size), frag_index, offset,
		 size);
	if (e == NULL)
		return NULL;
	list_remove(e);
	if (e->protect) {
		list_push(&tc->protect, e);
	} else {
		make_protected(tc, e);
	}
	tc->hits += 1;
	return e;
}

/* Whether the doorkeeper knew the key; it knows it from now on. */
static bool door_knows(tail_cache_t *tc, uint64_t h)
{
	/* the slot comes from the low bits, the fingerprint from the high
	 * ones; never 0, which marks an empty slot */
	uint32_t fp = (uint32_t)(h >> 32) | 1u;
	uint32_t *slot = &tc->door[h & (TAIL_CACHE_DOOR_SLOTS - 1)];

	if (*slot == fp)
		return true;
	*slot = fp;
	return false;
}

static void evict(tail_cache_t *tc, tail_entry_t *e)
{
	tail_entry_t **pp = bucket(tc, e->frag_index, e->offset, e->size);

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	list_remove(e);
	tc->bytes -= entry_bytes(e->size);
	if (e->protect)
		tc->protect_bytes -= entry_bytes(e->size);
	free(e);
}

/* Evict from segment s, least recently used first, skipping held
 * entries, until need more bytes fit; false if they do not. */
static bool evict_from(tail_cache_t *tc, tail_entry_t *s, size_t need)
{
	tail_entry_t *e = s->next, *next;

	while (tc->bytes + need > tc->limit && e != s) {
		next = e->next;
		if (e->refs == 0)
			evict(tc, e);
		e = next;
	}
	return tc->bytes + need <= tc->limit;
}

void tail_cache_offer(tail_cache_t *tc, uint32_t frag_index, uint32_t offset,
		      uint32_t size, const uint8_t *data)
{
	size_t need = entry_bytes(size);
	tail_entry_t *e, **b;
	bool known;
	uint64_t h;

	if (tc->table == NULL || !tail_cache_fits(size) || need > tc->limit)
		return;
	h = key_hash(frag_index, offset, size);
	b = &tc->table[h & tc->mask];
	if (find(*b, frag_index, offset, size) != NULL)
		return;
	known = door_knows(tc, h);
	if (!evict_from(tc, &tc->probation, need) &&
	    !evict_from(tc, &tc->protect, need))
		return;
	/* out of memory: no copy, the tail is unpacked again when needed */
	e = malloc(sizeof(*e) + size);
	if (e == NULL)
		return;
	e->frag_index = frag_index;
	e->offset = offset;
	e->size = size;
	e->refs = 0;
	memcpy(e->data, data, size);
	e->hnext = *b;
	*b = e;
	tc->bytes += need;
	tc->kept += 1;
	if (known) {
		make_protected(tc, e);
	} else {
		e->protect = false;
		list_push(&tc->probation, e);
	}
}

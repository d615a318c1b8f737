/* SPDX-License-Identifier: MIT */
/*
 * hash_table.c - open-addressing map from uint64_t to uint64_t.
 */
#include "config.h"

#include "util/hash_table.h"

#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

#define HT_MIN_CAPACITY 16

/* The splitmix64 finalizer: every key bit affects every slot bit, so
 * sequential keys and keys differing only in high bits spread out. */
static uint64_t ht_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

void hash_table_init(hash_table_t *ht)
{
	memset(ht, 0, sizeof(*ht));
}

void hash_table_cleanup(hash_table_t *ht)
{
	free(ht->slots);
	free(ht->used);
	hash_table_init(ht);
}

size_t hash_table_count(const hash_table_t *ht)
{
	return ht->count;
}

/* The capacity that holds count keys at a load of at most 3/4. */
static size_t capacity_for(size_t count)
{
	size_t cap = HT_MIN_CAPACITY;

	while (count > cap - cap / 4 && cap <= SIZE_MAX / 4)
		cap *= 2;
	return cap;
}

size_t hash_table_bytes_for(size_t count)
{
	return capacity_for(count) * (sizeof(hash_table_slot_t) + 1);
}

void hash_table_clear(hash_table_t *ht, size_t count)
{
	if (ht->capacity > capacity_for(count)) {
		hash_table_cleanup(ht);
		return;
	}
	if (ht->capacity > 0)
		memset(ht->used, 0, ht->capacity);
	ht->count = 0;
}

/* The slot holding key, or the empty slot where it would go. The table
 * always has at least one empty slot, so the probe ends. */
static size_t ht_find(const hash_table_slot_t *slots, const uint8_t *used,
		      size_t capacity, uint64_t key)
{
	size_t mask = capacity - 1;
	size_t i = (size_t)ht_mix(key) & mask;

	while (used[i] && slots[i].key != key)
		i = (i + 1) & mask;
	return i;
}

bool hash_table_get(const hash_table_t *ht, uint64_t key, uint64_t *value)
{
	size_t i;

	if (ht->count == 0)
		return false;

	i = ht_find(ht->slots, ht->used, ht->capacity, key);
	if (!ht->used[i])
		return false;
	if (value != NULL)
		*value = ht->slots[i].value;
	return true;
}

static int ht_grow(hash_table_t *ht)
{
	size_t capacity = ht->capacity ? ht->capacity : HT_MIN_CAPACITY / 2;
	hash_table_slot_t *slots;
	uint8_t *used;
	size_t i, j;

	if (capacity > SIZE_MAX / 2 / sizeof(*slots))
		return SQFS_ERROR_OVERFLOW;
	capacity *= 2;

	slots = malloc(capacity * sizeof(*slots));
	used = calloc(capacity, 1);
	if (slots == NULL || used == NULL) {
		free(slots);
		free(used);
		return SQFS_ERROR_ALLOC;
	}

	for (i = 0; i < ht->capacity; ++i) {
		if (!ht->used[i])
			continue;
		j = ht_find(slots, used, capacity, ht->slots[i].key);
		slots[j] = ht->slots[i];
		used[j] = 1;
	}

	free(ht->slots);
	free(ht->used);
	ht->slots = slots;
	ht->used = used;
	ht->capacity = capacity;
	return 0;
}

int hash_table_put(hash_table_t *ht, uint64_t key, uint64_t value)
{
	size_t i;
	int ret;

	/* Keep the load at most 3/4: linear probing slows down sharply
	 * beyond that. */
	if (ht->count + 1 > ht->capacity - ht->capacity / 4) {
		ret = ht_grow(ht);
		if (ret != 0)
			return ret;
	}

	i = ht_find(ht->slots, ht->used, ht->capacity, key);
	if (!ht->used[i]) {
		ht->used[i] = 1;
		ht->slots[i].key = key;
		ht->count += 1;
	}
	ht->slots[i].value = value;
	return 0;
}

bool hash_table_remove(hash_table_t *ht, uint64_t key)
{
	size_t mask, i, j, home;

	if (ht->count == 0)
		return false;
	mask = ht->capacity - 1;
	i = ht_find(ht->slots, ht->used, ht->capacity, key);
	if (!ht->used[i])
		return false;

	/* Close the gap at i: an entry further along the run moves into
	 * it unless its home slot lies cyclically in (i, j], where a probe
	 * still finds it without passing i. */
	for (j = (i + 1) & mask; ht->used[j]; j = (j + 1) & mask) {
		home = (size_t)ht_mix(ht->slots[j].key) & mask;
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		ht->slots[i] = ht->slots[j];
		i = j;
	}
	ht->used[i] = 0;
	ht->count -= 1;
	return true;
}

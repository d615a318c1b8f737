/* SPDX-License-Identifier: MIT */
/*
 * hash_table.h - a map from uint64_t keys to uint64_t values.
 *
 * Open addressing with linear probing in a power-of-two array of slots;
 * the array doubles when it would become more than 3/4 full, so get and
 * put take O(1) time on average. Every key value is allowed, 0 and
 * UINT64_MAX included: whether a slot is used is kept apart from the key.
 * Keys are scrambled before they pick a slot, so keys that are already
 * hashes and keys that are small counters both spread well.
 *
 * Removal shifts the entries after the removed one back into place, so
 * no tombstones are left to slow down later probes. The array never
 * shrinks. Not thread safe.
 */
#ifndef UTIL_HASH_TABLE_H
#define UTIL_HASH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t key;
	uint64_t value;
} hash_table_slot_t;

typedef struct {
	hash_table_slot_t *slots;
	/* One byte per slot, nonzero when the slot holds an entry. */
	uint8_t *used;
	/* 0 (nothing allocated yet) or a power of two. */
	size_t capacity;
	size_t count;
} hash_table_t;

/* Make an empty map; allocates nothing until the first put. */
void hash_table_init(hash_table_t *ht);

/* Free what the map holds and leave it empty (it may be used again). */
void hash_table_cleanup(hash_table_t *ht);

/* If key is present, store its value in *value (may be NULL) and return
 * true; otherwise return false and leave *value alone. */
bool hash_table_get(const hash_table_t *ht, uint64_t key, uint64_t *value);

/*
 * Insert key with value, or replace the value of a key already present.
 * Returns 0, SQFS_ERROR_ALLOC or SQFS_ERROR_OVERFLOW; on failure the map is
 * unchanged.
 */
int hash_table_put(hash_table_t *ht, uint64_t key, uint64_t value);

/* Remove key; returns whether it was present. */
bool hash_table_remove(hash_table_t *ht, uint64_t key);

/* The number of keys in the map. */
size_t hash_table_count(const hash_table_t *ht);

/* Bytes of the array of a map holding count keys (it may take half as
 * much again for a moment while it grows). */
size_t hash_table_bytes_for(size_t count);

/*
 * Empty the map. Its array is kept (so that emptying a map over and over
 * allocates nothing), unless it is larger than count keys need: then it
 * is freed, and the map grows again as keys come.
 */
void hash_table_clear(hash_table_t *ht, size_t count);

#endif /* UTIL_HASH_TABLE_H */

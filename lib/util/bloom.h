/* SPDX-License-Identifier: MIT */
/*
 * bloom.h - the blocked Bloom filters of sorted runs (extsort.c, the tail
 * index), and how a set of them keeps within a memory budget.
 *
 * A filter is made for a known number of keys at BLOOM_BITS_PER_KEY bits
 * each: one 512-bit block (a cache line) per key, BLOOM_PROBES bits set in
 * it, so that asking for a key costs one cache miss. It passes about 1% of
 * the keys it does not hold.
 *
 * A filter can be halved (folded) without its keys: a key's block is its
 * hash modulo the number of blocks, and for an even n, (h mod n) mod n/2 =
 * h mod n/2, so OR-ing block i + n/2 into block i gives the filter that
 * would have been made with n/2 blocks. Filters are made with a multiple
 * of 2^BLOOM_MAX_FOLDS blocks, so they can be halved that many times, and
 * then dropped: a dropped filter passes every key. Measured on this
 * filter: 10 bits per key pass 1.0% of absent keys, 5 bits 12%, 2.5 bits
 * 56% (1.25 bits: 95%, hardly better than none, hence no fourth fold).
 *
 * bloom_fit keeps a set of filters within a budget of bytes by folding,
 * each time the fold that lets the fewest absent keys through per byte it
 * saves: a lookup asks every filter, so what a fold costs is the rise of
 * its filter's false positive rate (each false positive is a read from a
 * run), and what it gains is bytes. Big filters fold first, and a filter
 * at 10 bits folds before one at 5. Folding never loses a key: only
 * lookups of absent keys cost more.
 */
#ifndef UTIL_BLOOM_H
#define UTIL_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BLOOM_BITS_PER_KEY 10u
#define BLOOM_PROBES 6u
#define BLOOM_BLOCK_WORDS 8u
#define BLOOM_BLOCK_BYTES (BLOOM_BLOCK_WORDS * sizeof(uint64_t))
/* Halvings a filter allows; one fold more drops it. */
#define BLOOM_MAX_FOLDS 2u

typedef struct {
	/* nblocks blocks of BLOOM_BLOCK_WORDS words; NULL once dropped */
	uint64_t *words;
	size_t nblocks;
	/* keys it was made for */
	uint64_t keys;
	/* times halved; BLOOM_MAX_FOLDS + 1: dropped (passes every key) */
	unsigned int folds;
} bloom_t;

/* A 64-bit mixer: keys that differ in a few bits land far apart. */
static inline uint64_t bloom_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x;
}

/* Bytes of a filter for keys keys after folds halvings (0: dropped). */
size_t bloom_bytes_for(uint64_t keys, unsigned int folds);

/* Make an empty filter for keys keys, halved folds times from the start
 * (the filter folding a full one that many times would give); folds over
 * BLOOM_MAX_FOLDS makes none. 0 or SQFS_ERROR_ALLOC. */
int bloom_init(bloom_t *f, uint64_t keys, unsigned int folds);

/* Free the filter's words; it then passes every key. */
void bloom_cleanup(bloom_t *f);

/* Bytes the filter holds. */
size_t bloom_bytes(const bloom_t *f);

void bloom_add(bloom_t *f, uint64_t key);

/* false: key was never added; true: it may have been. */
bool bloom_may_hold(const bloom_t *f, uint64_t key);

/* Halve the filter, or drop it after BLOOM_MAX_FOLDS halvings. */
void bloom_fold(bloom_t *f);

/*
 * Fold filters of set (n of them) until their bytes, with those of a
 * filter about to be made for new_keys keys (0: none), are at most budget,
 * the cheapest folds first (see above). *new_folds gets the folds to make
 * the new filter with (bloom_init); it may be over BLOOM_MAX_FOLDS (no
 * filter). Returns the bytes of the set and the new filter. Only a budget
 * smaller than what dropping every filter leaves is not met: it cannot be.
 */
size_t bloom_fit(bloom_t *const *set, size_t n, uint64_t new_keys,
		 unsigned int *new_folds, size_t budget);

#endif /* UTIL_BLOOM_H */

/* SPDX-License-Identifier: MIT */
/*
 * bloom.h - the blocked Bloom filter of the sorted runs (extsort.c, the
 * tail index): one 512-bit block (a cache line) per key, BLOOM_PROBES
 * bits set in it, so that asking for a key costs one cache miss. With 10
 * bits per key it passes about 1% of the keys it does not hold.
 */
#ifndef UTIL_BLOOM_H
#define UTIL_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BLOOM_PROBES 6u
#define BLOOM_BLOCK_WORDS 8u

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

/* Blocks for count keys at bits_per_key bits each (at least one). */
static inline size_t bloom_blocks(uint64_t count, unsigned int bits_per_key)
{
	uint64_t n = (count * bits_per_key + 511) / 512;

	return n == 0 ? 1 : (size_t)n;
}

static inline void bloom_add(uint64_t *bloom, size_t nblocks, uint64_t key)
{
	uint64_t h = bloom_mix(key), *blk;

	blk = bloom + (size_t)(h % nblocks) * BLOOM_BLOCK_WORDS;
	h = bloom_mix(h);
	for (unsigned int i = 0; i < BLOOM_PROBES; ++i, h >>= 9)
		blk[(h >> 6) & 7u] |= 1ull << (h & 63u);
}

static inline bool bloom_may_hold(const uint64_t *bloom, size_t nblocks,
				  uint64_t key)
{
	uint64_t h = bloom_mix(key);
	const uint64_t *blk;

	blk = bloom + (size_t)(h % nblocks) * BLOOM_BLOCK_WORDS;
	h = bloom_mix(h);
	for (unsigned int i = 0; i < BLOOM_PROBES; ++i, h >>= 9) {
		if (!(blk[(h >> 6) & 7u] & (1ull << (h & 63u))))
			return false;
	}
	return true;
}

#endif /* UTIL_BLOOM_H */

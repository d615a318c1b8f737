/* SPDX-License-Identifier: MIT */
/*
 * bloom.c - blocked Bloom filters that fold to fit a budget (bloom.h).
 */
#include "config.h"

#include "util/bloom.h"
#include "sqfs/error.h"

#include <stdlib.h>

/* The rise of the false positive rate (absent keys passed) of a fold from
 * 10 to 5 bits per key, 5 to 2.5, and 2.5 to none (measured, see bloom.h):
 * what a fold costs in reads of runs per lookup. */
static const double fold_cost[BLOOM_MAX_FOLDS + 1] = {0.110, 0.444, 0.436};

size_t bloom_bytes_for(uint64_t keys, unsigned int folds)
{
	const uint64_t unit = 1u << BLOOM_MAX_FOLDS;
	uint64_t blocks = (keys * BLOOM_BITS_PER_KEY + 511) / 512;

	if (folds > BLOOM_MAX_FOLDS)
		return 0;
	/* a multiple of 2^BLOOM_MAX_FOLDS, so that every halving is even */
	blocks = blocks < unit ? unit : (blocks + unit - 1) / unit * unit;
	return (size_t)(blocks >> folds) * BLOOM_BLOCK_BYTES;
}

int bloom_init(bloom_t *f, uint64_t keys, unsigned int folds)
{
	size_t bytes = bloom_bytes_for(keys, folds);

	f->keys = keys;
	f->folds = folds > BLOOM_MAX_FOLDS ? BLOOM_MAX_FOLDS + 1 : folds;
	f->nblocks = bytes / BLOOM_BLOCK_BYTES;
	f->words = NULL;
	if (bytes == 0)
		return 0;
	f->words = calloc(f->nblocks * BLOOM_BLOCK_WORDS, sizeof(uint64_t));
	if (f->words == NULL) {
		f->nblocks = 0;
		return SQFS_ERROR_ALLOC;
	}
	return 0;
}

void bloom_cleanup(bloom_t *f)
{
	free(f->words);
	f->words = NULL;
	f->nblocks = 0;
	f->folds = BLOOM_MAX_FOLDS + 1;
}

size_t bloom_bytes(const bloom_t *f)
{
	return f->words != NULL ? f->nblocks * BLOOM_BLOCK_BYTES : 0;
}

void bloom_add(bloom_t *f, uint64_t key)
{
	uint64_t h = bloom_mix(key), *blk;

	if (f->words == NULL)
		return;
	blk = f->words + (size_t)(h % f->nblocks) * BLOOM_BLOCK_WORDS;
	h = bloom_mix(h);
	for (unsigned int i = 0; i < BLOOM_PROBES; ++i, h >>= 9)
		blk[(h >> 6) & 7u] |= 1ull << (h & 63u);
}

bool bloom_may_hold(const bloom_t *f, uint64_t key)
{
	uint64_t h = bloom_mix(key);
	const uint64_t *blk;

	if (f->words == NULL)
		return true;
	blk = f->words + (size_t)(h % f->nblocks) * BLOOM_BLOCK_WORDS;
	h = bloom_mix(h);
	for (unsigned int i = 0; i < BLOOM_PROBES; ++i, h >>= 9) {
		if (!(blk[(h >> 6) & 7u] & (1ull << (h & 63u))))
			return false;
	}
	return true;
}

void bloom_fold(bloom_t *f)
{
	size_t half = f->nblocks / 2, words = half * BLOOM_BLOCK_WORDS;
	uint64_t *p;

	if (f->words == NULL)
		return;
	if (f->folds >= BLOOM_MAX_FOLDS) {
		bloom_cleanup(f);
		return;
	}
	for (size_t i = 0; i < words; ++i)
		f->words[i] |= f->words[words + i];
	/* giving the upper half back cannot fail in a way that matters:
	 * the lower half is the filter either way */
	p = realloc(f->words, words * sizeof(uint64_t));
	if (p != NULL)
		f->words = p;
	f->nblocks = half;
	f->folds += 1;
}

/* Bytes a fold of a filter of bytes bytes at folds saves. */
static size_t fold_saves(size_t bytes, unsigned int folds)
{
	return folds >= BLOOM_MAX_FOLDS ? bytes : bytes / 2;
}

size_t bloom_fit(bloom_t *const *set, size_t n, uint64_t new_keys,
		 unsigned int *new_folds, size_t budget)
{
	size_t total = 0;

	*new_folds = new_keys > 0 ? 0 : BLOOM_MAX_FOLDS + 1;
	for (size_t i = 0; i < n; ++i)
		total += bloom_bytes(set[i]);
	total += bloom_bytes_for(new_keys, *new_folds);

	while (total > budget) {
		/* the fold saving the most bytes per absent key let through;
		 * index n is the new filter */
		double best_score = 0.0;
		size_t best = n + 1, saved;

		for (size_t i = 0; i <= n; ++i) {
			unsigned int folds = i < n ? set[i]->folds : *new_folds;
			size_t bytes = i < n ? bloom_bytes(set[i])
					     : bloom_bytes_for(new_keys, folds);
			double score;

			if (bytes == 0 || folds > BLOOM_MAX_FOLDS)
				continue;
			score =
			    (double)fold_saves(bytes, folds) / fold_cost[folds];
			if (best > n || score > best_score) {
				best = i;
				best_score = score;
			}
		}
		if (best > n)
			break;
		if (best < n) {
			saved = bloom_bytes(set[best]);
			bloom_fold(set[best]);
			saved -= bloom_bytes(set[best]);
		} else {
			saved = bloom_bytes_for(new_keys, *new_folds);
			*new_folds += 1;
			saved -= bloom_bytes_for(new_keys, *new_folds);
		}
		total -= saved;
	}
	return total;
}

/* SPDX-License-Identifier: MIT */
/*
 * block_cache.c - decoded blocks shared by every thread of a file system,
 * bounded in bytes, each block decoded once.
 *
 * Sharded: a block's key picks one of up to 16 shards, each with its own
 * lock, hash table and byte budget, so threads working on different blocks
 * rarely meet on a lock; a hit holds the lock for a hash lookup and two
 * list moves, never for a copy or a decode.
 *
 * Eviction is a segmented LRU. A block comes in on probation; only a
 * block used again moves to the protected segment (at most 80% of the
 * budget). Eviction takes the least recently used block on probation
 * first. A scan (a big file read once, a walk of every listing) thus
 * cycles through probation and leaves the protected blocks, the ones
 * small files and lookups keep coming back to, alone.
 *
 * Single flight: a miss puts a block in the table in the "loading" state
 * before it is decoded, outside the lock. Whoever asks for it meanwhile
 * takes a reference and waits on the shard's condition variable; so N
 * threads asking for one block cost one decode. A failed load removes
 * the block: each waiter then tries itself, and gets its own words.
 *
 * Lifetime: the table holds one reference to each block in it, and every
 * caller one until block_cache_put. Eviction drops the table's; whoever
 * drops the last frees the block, so a caller may copy from a block the
 * table has already let go.
 *
 * Buffers: a freed block's buffer is kept (a few, MAX_SPARES) for the
 * next block to load, which in a full cache follows every eviction. So
 * the buffers stay the same few allocations instead of a malloc and free
 * of a block each miss, which a multithreaded allocator serves from a
 * different arena in each thread (the loading thread allocates, the
 * evicting one frees): peak RSS far above the budget, and fresh pages to
 * fault in.
 */
#include "fs_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SHARDS 16u
/* Buffers kept for reuse: at most this many, and an eighth of the blocks
 * the budget holds (at least one). */
#define MAX_SPARES 8u

enum { ST_LOADING = 0, ST_READY = 1, ST_FAILED = 2 };

typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	cache_block_t **table;
	size_t mask;
	/* Sentinels of the two segments: next is the most recently used. */
	cache_block_t probation;
	cache_block_t protect;
	uint64_t bytes, prot_bytes, limit, prot_limit;
	uint64_t hits, misses, loads;
} shard_t;

struct block_cache {
	shard_t shards[MAX_SHARDS];
	unsigned int count;
	size_t cap;
	uint64_t limit;
	/* Buffers of evicted blocks, for the next blocks to load. */
	pthread_mutex_t spare_lock;
	uint8_t *spare[MAX_SPARES];
	size_t spares, max_spares;
};

static uint64_t mix(uint64_t pos, uint64_t aux)
{
	uint64_t h =
	    pos * 0x9E3779B97F4A7C15ull ^ (aux + 0x632BE59BD9B4E019ull);

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return h;
}

static void list_init(cache_block_t *s)
{
	s->next = s->prev = s;
}

static void list_remove(cache_block_t *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
	b->next = b->prev = NULL;
}

static void list_push(cache_block_t *s, cache_block_t *b)
{
	b->next = s->next;
	b->prev = s;
	s->next->prev = b;
	s->next = b;
}

int block_cache_create(uint64_t limit, size_t block_cap, size_t min_blocks,
		       block_cache_t **out)
{
	block_cache_t *c;
	uint64_t blocks, per;
	size_t buckets;
	unsigned int i;

	if (limit < (uint64_t)min_blocks * block_cap)
		limit = (uint64_t)min_blocks * block_cap;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return SQFS_ERROR_ALLOC;
	c->cap = block_cap;
	c->limit = limit;
	pthread_mutex_init(&c->spare_lock, NULL);
	c->max_spares = (size_t)(limit / block_cap / 8);
	if (c->max_spares > MAX_SPARES)
		c->max_spares = MAX_SPARES;
	if (c->max_spares == 0)
		c->max_spares = 1;

	/* at least 8 blocks per shard, so one shard's unlucky share of
	 * the keys does not thrash it */
	blocks = limit / block_cap;
	c->count =
	    (unsigned int)(blocks / 8 < MAX_SHARDS ? blocks / 8 : MAX_SHARDS);
	if (c->count == 0)
		c->count = 1;
	per = limit / c->count;

	for (i = 0; i < c->count; ++i) {
		shard_t *s = &c->shards[i];

		buckets = 16;
		while (buckets < 2 * (per / block_cap) && buckets < (1u << 24))
			buckets *= 2;
		s->table = calloc(buckets, sizeof(*s->table));
		if (s->table == NULL) {
			c->count = i;
			block_cache_destroy(c);
			return SQFS_ERROR_ALLOC;
		}
		s->mask = buckets - 1;
		s->limit = per;
		s->prot_limit = per / 5 * 4;
		list_init(&s->probation);
		list_init(&s->protect);
		pthread_mutex_init(&s->lock, NULL);
		pthread_cond_init(&s->cond, NULL);
	}
	*out = c;
	return 0;
}

/* A buffer of cap bytes: a spare one if there is. */
static uint8_t *buf_get(block_cache_t *c)
{
	uint8_t *p = NULL;

	pthread_mutex_lock(&c->spare_lock);
	if (c->spares > 0)
		p = c->spare[--c->spares];
	pthread_mutex_unlock(&c->spare_lock);
	return p != NULL ? p : malloc(c->cap);
}

static void block_free(block_cache_t *c, cache_block_t *b)
{
	uint8_t *p = b->data;

	pthread_mutex_lock(&c->spare_lock);
	if (p != NULL && c->spares < c->max_spares) {
		c->spare[c->spares++] = p;
		p = NULL;
	}
	pthread_mutex_unlock(&c->spare_lock);
	free(p);
	free(b);
}

static void unref(block_cache_t *c, cache_block_t *b)
{
	if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
		block_free(c, b);
}

void block_cache_destroy(block_cache_t *c)
{
	cache_block_t *b, *next;
	unsigned int i;
	size_t j;

	if (c == NULL)
		return;
	for (i = 0; i < c->count; ++i) {
		shard_t *s = &c->shards[i];

		for (j = 0; j <= s->mask; ++j) {
			for (b = s->table[j]; b != NULL; b = next) {
				next = b->hnext;
				unref(c, b);
			}
		}
		free(s->table);
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
	}
	while (c->spares > 0)
		free(c->spare[--c->spares]);
	pthread_mutex_destroy(&c->spare_lock);
	free(c);
}

static shard_t *shard_of(block_cache_t *c, uint64_t h)
{
	return &c->shards[(h >> 40) % c->count];
}

static cache_block_t **bucket_of(shard_t *s, uint64_t h)
{
	return &s->table[h & s->mask];
}

static cache_block_t *find(shard_t *s, uint64_t h, uint64_t pos, uint64_t aux)
{
	cache_block_t *b;

	for (b = *bucket_of(s, h); b != NULL; b = b->hnext) {
		if (b->pos == pos && b->aux == aux)
			return b;
	}
	return NULL;
}

/* Take b out of the table and its segment; the table's reference is the
 * caller's to drop. */
static void detach(shard_t *s, cache_block_t *b, uint64_t cap)
{
	cache_block_t **pp = bucket_of(s, mix(b->pos, b->aux));

	while (*pp != b)
		pp = &(*pp)->hnext;
	*pp = b->hnext;
	b->hnext = NULL;
	list_remove(b);
	s->bytes -= cap;
	if (b->hot)
		s->prot_bytes -= cap;
	b->hot = false;
	b->in_table = false;
}

/* The least recently used block of segment head that is not loading. */
static cache_block_t *victim(cache_block_t *head)
{
	cache_block_t *b;

	for (b = head->prev; b != head; b = b->prev) {
		if (b->state != ST_LOADING)
			return b;
	}
	return NULL;
}

static void shrink(block_cache_t *c, shard_t *s)
{
	cache_block_t *b;

	while (s->prot_bytes > s->prot_limit) {
		b = victim(&s->protect);
		if (b == NULL)
			break;
		list_remove(b);
		b->hot = false;
		s->prot_bytes -= c->cap;
		list_push(&s->probation, b);
	}
	while (s->bytes > s->limit) {
		b = victim(&s->probation);
		if (b == NULL)
			b = victim(&s->protect);
		/* everything is being loaded: over budget for a moment */
		if (b == NULL)
			break;
		detach(s, b, c->cap);
		unref(c, b);
	}
}

/* A hit: a block on probation is used again and becomes protected. */
static void touch(block_cache_t *c, shard_t *s, cache_block_t *b)
{
	list_remove(b);
	if (!b->hot) {
		b->hot = true;
		s->prot_bytes += c->cap;
	}
	list_push(&s->protect, b);
	if (s->prot_bytes > s->prot_limit)
		shrink(c, s);
}

int block_cache_get(block_cache_t *c, uint64_t pos, uint64_t aux,
		    cache_load_fn load, void *user, cache_block_t **out,
		    bool *hit)
{
	uint64_t h = mix(pos, aux);
	shard_t *s = shard_of(c, h);
	cache_block_t *b, *fresh = NULL;
	int ret;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		b = find(s, h, pos, aux);
		if (b == NULL)
			break;
		atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
		while (b->state == ST_LOADING)
			pthread_cond_wait(&s->cond, &s->lock);
		if (b->state == ST_READY) {
			if (b->in_table)
				touch(c, s, b);
			s->hits++;
			pthread_mutex_unlock(&s->lock);
			if (fresh != NULL)
				block_free(c, fresh);
			*out = b;
			if (hit != NULL)
				*hit = true;
			return 0;
		}
		/* the load failed and the block is gone: try it ourselves */
		pthread_mutex_unlock(&s->lock);
		unref(c, b);
		pthread_mutex_lock(&s->lock);
	}

	if (fresh == NULL) {
		/* allocate outside the lock, then look again */
		pthread_mutex_unlock(&s->lock);
		fresh = calloc(1, sizeof(*fresh));
		if (fresh != NULL)
			fresh->data = buf_get(c);
		if (fresh == NULL || fresh->data == NULL) {
			if (fresh != NULL)
				free(fresh);
			return SQFS_ERROR_ALLOC;
		}
		pthread_mutex_lock(&s->lock);
		b = find(s, h, pos, aux);
		if (b != NULL) {
			/* someone else got there first: wait for theirs */
			pthread_mutex_unlock(&s->lock);
			ret =
			    block_cache_get(c, pos, aux, load, user, out, hit);
			block_free(c, fresh);
			return ret;
		}
	}

	b = fresh;
	b->pos = pos;
	b->aux = aux;
	b->cap = c->cap;
	b->state = ST_LOADING;
	b->in_table = true;
	/* the table's reference and ours */
	atomic_init(&b->refs, 2);
	atomic_init(&b->ahead, false);
	b->hnext = *bucket_of(s, h);
	*bucket_of(s, h) = b;
	list_push(&s->probation, b);
	s->bytes += c->cap;
	s->misses++;
	shrink(c, s);
	pthread_mutex_unlock(&s->lock);

	ret = load(user, b);

	pthread_mutex_lock(&s->lock);
	s->loads++;
	if (ret == 0) {
		b->state = ST_READY;
	} else {
		b->state = ST_FAILED;
		b->error = ret;
		if (b->in_table) {
			detach(s, b, c->cap);
			atomic_fetch_sub_explicit(&b->refs, 1,
						  memory_order_relaxed);
		}
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);

	if (ret != 0) {
		unref(c, b);
		return ret;
	}
	*out = b;
	if (hit != NULL)
		*hit = false;
	return 0;
}

bool block_cache_has(block_cache_t *c, uint64_t pos, uint64_t aux)
{
	uint64_t h = mix(pos, aux);
	shard_t *s = shard_of(c, h);
	bool found;

	pthread_mutex_lock(&s->lock);
	found = find(s, h, pos, aux) != NULL;
	pthread_mutex_unlock(&s->lock);
	return found;
}

void block_cache_put(block_cache_t *c, cache_block_t *blk)
{
	(void)c;
	if (blk != NULL)
		unref(c, blk);
}

void block_cache_stats(block_cache_t *c, uint64_t *bytes, uint64_t *limit,
		       uint64_t *hits, uint64_t *misses, uint64_t *loads)
{
	unsigned int i;

	*bytes = *hits = *misses = *loads = 0;
	*limit = 0;
	for (i = 0; i < c->count; ++i) {
		shard_t *s = &c->shards[i];

		pthread_mutex_lock(&s->lock);
		*bytes += s->bytes;
		*limit += s->limit;
		*hits += s->hits;
		*misses += s->misses;
		*loads += s->loads;
		pthread_mutex_unlock(&s->lock);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * tail_cache_internal.h - copies of small file tails, so that reading a
 * duplicate of a small file does not unpack its fragment block again
 * (used by the file stream and the data reader).
 *
 * Why: a packer that deduplicates stores one copy of a repeated tail, and
 * every duplicate points at it, in whatever fragment block the first copy
 * went to, however long ago. A reader that goes through the files in
 * order keeps only the few fragment blocks it used last, so a duplicate of
 * a file seen long ago costs a whole fragment block unpacked (128 KiB of
 * xz for a tail of 100 bytes). Keeping those blocks does not pay: the
 * tails duplicates point at lie in any of the image's fragment blocks.
 * Keeping the tails does: they are small, and the same ones come back.
 *
 * What is kept: tails of 1 to TAIL_CACHE_MAX_TAIL bytes, keyed by
 * (fragment index, offset, size), which is what a tail is in the image.
 * The same key always gives the same bytes (the fragment table does not
 * change while the image is open), so a copy taken once a tail passed
 * every check serves every later file with the same key, with the same
 * result.
 *
 * How (a segmented LRU, as the file system's block cache, fs/block_cache.c):
 * the owner offers every small tail it reads. A tail comes in on
 * probation; one asked for again moves to the protected segment, which
 * holds at most a quarter of the bytes: probation must be long enough for
 * a tail to be asked for again at all. Eviction takes the least recently used
 * tail on probation first, so the stream of tails read once passes
 * through probation and leaves the shared ones alone. A tail that was on
 * probation too briefly to be asked for again is not lost for good: a
 * doorkeeper, a direct-mapped table of TAIL_CACHE_DOOR_SLOTS fingerprints,
 * remembers the keys of the last tails offered, and a key offered again
 * while remembered comes in protected.
 *
 * Bound: entries (header, bytes and the allocator's overhead counted)
 * never exceed the limit given at init; an entry someone holds is never
 * evicted. If no room can be made, the tail is not kept, which costs an
 * unpacking later, never an error. The doorkeeper (4 bytes a slot) and
 * the hash table (a pointer a bucket) are of fixed size.
 *
 * Threads: none. The owner (a stream's calling thread, a data reader's
 * user) is the only one to touch it.
 */
#ifndef SQFS_TAIL_CACHE_INTERNAL_H
#define SQFS_TAIL_CACHE_INTERNAL_H

#include "sqfs/predef.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest tail kept: that of the packer's tail deduplication. */
#define TAIL_CACHE_MAX_TAIL 4096u
/* Keys the doorkeeper remembers (a power of two). */
#define TAIL_CACHE_DOOR_SLOTS (1u << 16)
/*
 * Bytes of entries a file stream keeps at most. A shared tail is only
 * caught on probation if it is asked for again before the tails read
 * since push it out: 4 MiB are some 25,000 tails of 100 bytes, so a tail
 * duplicated every 10,000 files or so (as scripts/gentar's 10% of
 * duplicates of 1,024 earlier files are) is nearly always caught.
 */
#define TAIL_CACHE_STREAM_BYTES (4u << 20)
/* ... and a data reader, which may be one of many (one per thread). */
#define TAIL_CACHE_READER_BYTES (1u << 20)

typedef struct tail_entry {
	struct tail_entry *hnext;
	/* its segment's recency list: next is more recently used */
	struct tail_entry *prev, *next;
	uint32_t frag_index;
	uint32_t offset;
	uint32_t size;
	/* holders; a held entry is never evicted */
	uint32_t refs;
	bool protect;
	uint8_t data[];
} tail_entry_t;

typedef struct {
	tail_entry_t **table;
	size_t mask;
	/* the segments' sentinels: next is the least recently used */
	tail_entry_t probation;
	tail_entry_t protect;
	size_t bytes, limit;
	size_t protect_bytes, protect_limit;
	/* fingerprints of keys offered; 0 is empty */
	uint32_t *door;
	/* counters, for tests and the curious */
	uint64_t hits;
	uint64_t kept;
} tail_cache_t;

/* Whether a tail of size bytes may be kept at all. */
static inline bool tail_cache_fits(size_t size)
{
	return size > 0 && size <= TAIL_CACHE_MAX_TAIL;
}

/* An empty cache of at most limit bytes of entries; SQFS_ERROR_ALLOC if
 * its tables cannot be had. */
int tail_cache_init(tail_cache_t *tc, size_t limit);

/* Free every entry, held or not, and the tables. A zeroed cache (never
 * initialised) is fine, and stays empty whatever is offered. */
void tail_cache_cleanup(tail_cache_t *tc);

/* The entry for the key, or NULL. A hit is a use: an entry on probation
 * becomes protected. */
tail_entry_t *tail_cache_get(tail_cache_t *tc, uint32_t frag_index,
			     uint32_t offset, uint32_t size);

/* Offer size bytes at data (a tail read that passed every check) under
 * the key: kept if room can be made, protected if the doorkeeper knew
 * the key. An existing entry for the key stays as it is. */
void tail_cache_offer(tail_cache_t *tc, uint32_t frag_index, uint32_t offset,
		      uint32_t size, const uint8_t *data);

/* Hold an entry (it is not evicted) until tail_cache_release. */
static inline void tail_cache_hold(tail_entry_t *e)
{
	e->refs += 1;
}

static inline void tail_cache_release(tail_entry_t *e)
{
	e->refs -= 1;
}

#endif /* SQFS_TAIL_CACHE_INTERNAL_H */

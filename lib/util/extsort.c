/* SPDX-License-Identifier: MIT */
/*
 * extsort.c - external merge sort of opaque records (see extsort.h).
 *
 * A run on disk is its records back to back, each a 4-byte little-endian
 * length and the bytes. Runs of one phase share one spill file; a merge
 * pass reads the runs of one file and writes the merged runs to the
 * other, then the first is emptied, so the disk holds at most twice the
 * data. Stability: the buffer is sorted with a merge sort (stable), and
 * the heap breaks ties by run number, runs being numbered in the order
 * their records were added.
 */
#include "config.h"

#include "util/extsort.h"
#include "util/bloom.h"
#include "util/le.h"
#include "util/spill.h"
#include "sqfs/error.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_LIMIT (64u << 10)
/* A cursor's read buffer: large enough that reads are few, small enough
 * that many runs merge in one pass. */
#define MIN_CURSOR (64u << 10)
#define MAX_CURSOR (1u << 20)

/* Lookups: runs keep a copy of their first record in every SAMPLE_SPAN
 * bytes, and a blocked Bloom filter (bloom.h), folded as more runs come
 * so that all of them stay within filter_limit. */
#define SAMPLE_SPAN (64u << 10)

typedef struct {
	uint64_t offset;
	uint64_t bytes;
	/* with lookups (runs written while adding): */
	bool has_filter;
	bloom_t bloom;
	/* sample i: the record (length word and bytes) at
	 * samples + sample_at[i], which is at sample_off[i] in the file */
	uint64_t *sample_off;
	size_t *sample_at;
	uint8_t *samples;
	size_t nsamples;
} run_t;

typedef struct {
	spill_file_t *file;
	/* What is left of the run on disk. */
	uint64_t pos;
	uint64_t end;
	uint8_t *buf;
	size_t cap;
	/* Valid bytes are buf[start .. fill). */
	size_t start;
	size_t fill;
	/* The current record. */
	const uint8_t *rec;
	size_t len;
} cursor_t;

/* A buffered record's index entry (see the buffer below). */
typedef struct {
	size_t offset;
	size_t scratch;
	/* with lookups: the next entry of the same hash bucket, plus 1 */
	size_t next;
} entry_t;

enum { ADDING, READ_MEMORY, READ_MERGE, DONE };

struct extsort {
	extsort_desc_t desc;
	int state;

	/* The buffer (see entry_t): bytes of records at the front, count
	 * entries at the back; mem_pos: the next to read from memory. */
	uint8_t *arena;
	size_t arena_used;
	size_t arena_cap;
	size_t count;
	size_t mem_pos;
	/* with lookups: hash map of the buffer, heads are entry numbers + 1 */
	size_t *buckets;
	size_t nbuckets;
	/* for lookups in runs */
	uint8_t *find_buf;

	/* Runs live in files[cur]; a merge pass writes to the other. */
	spill_file_t *files[2];
	int cur;
	run_t *runs;
	size_t run_count;
	size_t run_cap;
	/* Bytes of the runs' filters and samples (with lookups). */
	size_t lookup_bytes;
	size_t sample_bytes;

	/* The merge: one cursor per run, a heap of cursor numbers. */
	cursor_t *cursors;
	size_t ncursors;
	size_t *heap;
	size_t heap_n;
	/* extsort_next gave the heap's top record out. */
	bool handed_out;

	int failed;
	char why[SPILL_WHY_SIZE];
	extsort_stats_t stats;
};

/* ---- failures ------------------------------------------------------------ */

static int keep_failure(extsort_t *s, int code, const char *words)
{
	if (s->failed == 0) {
		s->failed = code;
		snprintf(s->why, sizeof(s->why), "%s", words);
	}
	return s->failed;
}

static int file_failure(extsort_t *s, spill_file_t *f, int code)
{
	const char *words = f != NULL ? spill_file_error(f) : "";

	if (words[0] == '\0')
		words = code == SQFS_ERROR_ALLOC
			    ? "out of memory sorting records"
			    : "sorting records: a temporary file failed";
	return keep_failure(s, code, words);
}

const char *extsort_error(const extsort_t *s)
{
	return s->why;
}

/* ---- setup --------------------------------------------------------------- */

int extsort_create(const extsort_desc_t *desc, extsort_t **out)
{
	extsort_t *s;

	*out = NULL;
	if (desc == NULL || desc->cmp == NULL)
		return SQFS_ERROR_ARG_INVALID;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return SQFS_ERROR_ALLOC;
	s->desc = *desc;
	if (s->desc.mem_limit < MIN_LIMIT)
		s->desc.mem_limit = MIN_LIMIT;
	s->desc.mem_limit -= s->desc.mem_limit % sizeof(entry_t);
	if (s->desc.filter_limit == 0)
		s->desc.filter_limit = s->desc.mem_limit / 8;
	if (s->desc.merge_limit == 0 || s->desc.merge_limit > s->desc.mem_limit)
		s->desc.merge_limit = s->desc.mem_limit;
	if (s->desc.merge_limit < 2 * MIN_CURSOR)
		s->desc.merge_limit = 2 * MIN_CURSOR;
	*out = s;
	return 0;
}

void extsort_set_limit(extsort_t *s, size_t mem_limit)
{
	if (mem_limit < MIN_LIMIT)
		mem_limit = MIN_LIMIT;
	s->desc.mem_limit = mem_limit - mem_limit % sizeof(entry_t);
}

static void free_cursors(extsort_t *s)
{
	for (size_t i = 0; i < s->ncursors; ++i)
		free(s->cursors[i].buf);
	free(s->cursors);
	free(s->heap);
	s->cursors = NULL;
	s->heap = NULL;
	s->ncursors = 0;
	s->heap_n = 0;
}

static void free_run_lookup(run_t *run)
{
	if (run->has_filter)
		bloom_cleanup(&run->bloom);
	free(run->sample_off);
	free(run->sample_at);
	free(run->samples);
	run->has_filter = false;
	run->sample_off = NULL;
	run->sample_at = NULL;
	run->samples = NULL;
	run->nsamples = 0;
}

static void free_buffer(extsort_t *s)
{
	free(s->buckets);
	s->buckets = NULL;
	s->nbuckets = 0;
	free(s->arena);
	s->arena = NULL;
	s->arena_used = 0;
	s->arena_cap = 0;
	s->count = 0;
}

void extsort_destroy(extsort_t *s)
{
	if (s == NULL)
		return;
	free_cursors(s);
	free_buffer(s);
	spill_file_destroy(s->files[0]);
	spill_file_destroy(s->files[1]);
	for (size_t i = 0; i < s->run_count; ++i)
		free_run_lookup(&s->runs[i]);
	free(s->runs);
	free(s->find_buf);
	free(s);
}

void extsort_get_stats(const extsort_t *s, extsort_stats_t *stats)
{
	*stats = s->stats;
	stats->filter_bytes = s->lookup_bytes - s->sample_bytes;
}

/* ---- the in-memory buffer -------------------------------------------------
 */

/*
 * The buffer is one block: records (length word and bytes) grow from its
 * front, their index entries from its back, so the two together never
 * take more than the block, and the block never grows past mem_limit
 * (but for one record larger than that). An entry is two words: the
 * record's offset, and room for the merge sort.
 */

static entry_t *entry(const extsort_t *s, size_t i)
{
	return (entry_t *)(s->arena + s->arena_cap) - (i + 1);
}

static size_t *slot(const extsort_t *s, size_t i, bool scratch)
{
	entry_t *e = entry(s, i);

	return scratch ? &e->scratch : &e->offset;
}

static const uint8_t *buffered(const extsort_t *s, size_t i, size_t *len)
{
	const uint8_t *p = s->arena + entry(s, i)->offset;

	*len = get_le32(p);
	return p + 4;
}

static int compare_buffered(extsort_t *s, size_t a, size_t b)
{
	const uint8_t *pa = s->arena + a, *pb = s->arena + b;

	return s->desc.cmp(pa + 4, get_le32(pa), pb + 4, get_le32(pb),
			   s->desc.user);
}

/* Stable bottom-up merge sort of the entries' offsets; the sorted order
 * ends in the offset words. */
static void sort_buffer(extsort_t *s)
{
	size_t n = s->count;
	bool from_scratch = false;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				size_t a = *slot(s, i, from_scratch);
				size_t b = *slot(s, j, from_scratch);

				/* take from the left on ties: stable */
				if (compare_buffered(s, b, a) < 0) {
					*slot(s, k++, !from_scratch) = b;
					++j;
				} else {
					*slot(s, k++, !from_scratch) = a;
					++i;
				}
			}
			while (i < mid)
				*slot(s, k++, !from_scratch) =
				    *slot(s, i++, from_scratch);
			while (j < hi)
				*slot(s, k++, !from_scratch) =
				    *slot(s, j++, from_scratch);
		}
		from_scratch = !from_scratch;
	}
	if (from_scratch) {
		for (size_t i = 0; i < n; ++i)
			entry(s, i)->offset = entry(s, i)->scratch;
	}
}

static int add_run(extsort_t *s, uint64_t offset, uint64_t bytes)
{
	if (s->run_count == s->run_cap) {
		size_t cap = s->run_cap ? s->run_cap * 2 : 16;
		run_t *runs = realloc(s->runs, cap * sizeof(runs[0]));

		if (runs == NULL)
			return file_failure(s, NULL, SQFS_ERROR_ALLOC);
		s->runs = runs;
		s->run_cap = cap;
	}
	memset(&s->runs[s->run_count], 0, sizeof(s->runs[0]));
	s->runs[s->run_count].offset = offset;
	s->runs[s->run_count].bytes = bytes;
	s->run_count += 1;
	return 0;
}

static int get_file(extsort_t *s, int which)
{
	char why[SPILL_WHY_SIZE];
	size_t bufsize = s->desc.mem_limit / 16;
	int ret;

	if (s->files[which] != NULL)
		return 0;
	if (bufsize > MAX_CURSOR)
		bufsize = MAX_CURSOR;
	ret = spill_file_create(bufsize, &s->files[which], why);
	if (ret != 0)
		return keep_failure(s, ret, why);
	return 0;
}

/* ---- lookups: filters and samples ---------------------------------------- */

static bool lookups(const extsort_t *s)
{
	return s->desc.key_hash != NULL && s->desc.key_cmp != NULL;
}

/* The most the block may take: all of the limit, or with lookups what
 * the runs' filters and samples leave of it (the filters stay within
 * filter_limit, but the samples grow with the runs: down to a quarter,
 * past which the limit is exceeded rather than a run made per record), and of
 * that room for the hash map (at most 8 bytes per record, records taking
 * at least 28 bytes of the block, and the map up to twice the records).
 * How large the block is changes where runs are cut, never the order. */
static size_t block_limit(const extsort_t *s)
{
	size_t limit = s->desc.mem_limit;

	if (lookups(s)) {
		size_t floor = limit / 4;

		limit = limit > s->lookup_bytes + floor
			    ? limit - s->lookup_bytes
			    : floor;
		limit = limit / 8 * 5;
	}
	return limit - limit % sizeof(entry_t);
}

/* Filter and samples of the run the buffer is about to become (its
 * records are sorted, not yet written; the run starts at start). */
static int build_run_lookup(extsort_t *s, run_t *run, uint64_t start)
{
	uint64_t pos = start, next_sample = start;
	size_t sample_bytes = 0, cap = 0, n = 0;
	unsigned int folds;
	bloom_t **set;

	/* the filters so far and this one within filter_limit */
	set = malloc((s->run_count > 0 ? s->run_count : 1) * sizeof(set[0]));
	if (set == NULL)
		return file_failure(s, NULL, SQFS_ERROR_ALLOC);
	for (size_t i = 0; i < s->run_count; ++i) {
		if (s->runs[i].has_filter)
			set[n++] = &s->runs[i].bloom;
	}
	bloom_fit(set, n, s->count, &folds, s->desc.filter_limit);
	free(set);
	run->has_filter = true;
	if (bloom_init(&run->bloom, s->count, folds) != 0)
		return file_failure(s, NULL, SQFS_ERROR_ALLOC);

	for (size_t i = 0; i < s->count; ++i) {
		const uint8_t *p = s->arena + entry(s, i)->offset;
		size_t len = get_le32(p);

		bloom_add(&run->bloom,
			  s->desc.key_hash(p + 4, len, s->desc.user));

		if (pos >= next_sample) {
			if (run->nsamples == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				uint64_t *off = realloc(run->sample_off,
							ncap * sizeof(*off));
				size_t *at;

				if (off == NULL)
					return file_failure(s, NULL,
							    SQFS_ERROR_ALLOC);
				run->sample_off = off;
				at =
				    realloc(run->sample_at, ncap * sizeof(*at));
				if (at == NULL)
					return file_failure(s, NULL,
							    SQFS_ERROR_ALLOC);
				run->sample_at = at;
				cap = ncap;
			}
			uint8_t *bytes =
			    realloc(run->samples, sample_bytes + 4 + len);
			if (bytes == NULL)
				return file_failure(s, NULL, SQFS_ERROR_ALLOC);
			run->samples = bytes;
			memcpy(bytes + sample_bytes, p, 4 + len);
			run->sample_off[run->nsamples] = pos;
			run->sample_at[run->nsamples] = sample_bytes;
			run->nsamples += 1;
			sample_bytes += 4 + len;
			next_sample =
			    pos - (pos - start) % SAMPLE_SPAN + SAMPLE_SPAN;
		}
		pos += 4 + len;
	}
	return 0;
}

static size_t bucket_of(const extsort_t *s, uint64_t hash)
{
	return (size_t)(bloom_mix(hash) & (s->nbuckets - 1));
}

/* Put buffered entry i into the hash map, growing it to keep at most
 * one entry per bucket on average. */
static int hash_entry(extsort_t *s, size_t i)
{
	const uint8_t *p;
	size_t b;

	if (s->count > s->nbuckets) {
		size_t n = s->nbuckets ? s->nbuckets * 2 : 256;
		size_t *buckets = calloc(n, sizeof(buckets[0]));

		if (buckets == NULL)
			return file_failure(s, NULL, SQFS_ERROR_ALLOC);
		free(s->buckets);
		s->buckets = buckets;
		s->nbuckets = n;
		/* rehash every entry but i, which follows */
		for (size_t j = 0; j < i; ++j) {
			p = s->arena + entry(s, j)->offset;
			b = bucket_of(s, s->desc.key_hash(p + 4, get_le32(p),
							  s->desc.user));
			entry(s, j)->next = s->buckets[b];
			s->buckets[b] = j + 1;
		}
	}
	p = s->arena + entry(s, i)->offset;
	b = bucket_of(s, s->desc.key_hash(p + 4, get_le32(p), s->desc.user));
	entry(s, i)->next = s->buckets[b];
	s->buckets[b] = i + 1;
	return 0;
}

/* Sort the buffer and write it out as a run (with its filter and samples
 * if lookups may follow). */
static int spill_buffer(extsort_t *s, bool for_lookups)
{
	spill_file_t *f;
	uint64_t start;
	run_t lookup;
	int ret;

	if (s->count == 0)
		return 0;
	ret = get_file(s, s->cur);
	if (ret != 0)
		return ret;
	f = s->files[s->cur];
	sort_buffer(s);

	start = spill_file_size(f);
	memset(&lookup, 0, sizeof(lookup));
	if (lookups(s) && for_lookups) {
		ret = build_run_lookup(s, &lookup, start);
		if (ret != 0) {
			free_run_lookup(&lookup);
			return ret;
		}
	}
	for (size_t i = 0; i < s->count; ++i) {
		const uint8_t *p = s->arena + entry(s, i)->offset;

		ret = spill_file_append(f, p, 4 + (size_t)get_le32(p));
		if (ret != 0) {
			free_run_lookup(&lookup);
			return file_failure(s, f, ret);
		}
	}
	ret = add_run(s, start, spill_file_size(f) - start);
	if (ret != 0) {
		free_run_lookup(&lookup);
		return ret;
	}
	lookup.offset = s->runs[s->run_count - 1].offset;
	lookup.bytes = s->runs[s->run_count - 1].bytes;
	s->runs[s->run_count - 1] = lookup;
	s->sample_bytes +=
	    lookup.nsamples * (sizeof(uint64_t) + sizeof(size_t));
	for (size_t i = 0; i < lookup.nsamples; ++i)
		s->sample_bytes +=
		    4 + get_le32(lookup.samples + lookup.sample_at[i]);
	/* the filters, folded to make room for this one */
	s->lookup_bytes = s->sample_bytes;
	for (size_t i = 0; i < s->run_count; ++i) {
		if (s->runs[i].has_filter)
			s->lookup_bytes += bloom_bytes(&s->runs[i].bloom);
	}
	s->stats.runs += 1;
	if (s->buckets != NULL)
		memset(s->buckets, 0, s->nbuckets * sizeof(s->buckets[0]));
	s->stats.spilled_bytes += spill_file_size(f) - start;
	s->arena_used = 0;
	s->count = 0;

	/* a record larger than the limit made the block larger: give the
	 * excess back now that it is empty */
	if (s->arena_cap > block_limit(s)) {
		uint8_t *arena = realloc(s->arena, block_limit(s));

		if (arena != NULL) {
			s->arena = arena;
			s->arena_cap = block_limit(s);
		}
	}
	return 0;
}

/* Make the block at least cap bytes, moving the entries to its new back. */
static int grow_block(extsort_t *s, size_t cap)
{
	size_t entries = s->count * sizeof(entry_t);
	uint8_t *arena;

	/* the entries at the back must be aligned */
	cap = (cap + sizeof(entry_t) - 1) / sizeof(entry_t) * sizeof(entry_t);
	arena = realloc(s->arena, cap);

	if (arena == NULL)
		return file_failure(s, NULL, SQFS_ERROR_ALLOC);
	memmove(arena + cap - entries, arena + s->arena_cap - entries, entries);
	s->arena = arena;
	s->arena_cap = cap;
	return 0;
}

int extsort_add(extsort_t *s, const void *rec, size_t len)
{
	size_t need = len + 4 + sizeof(entry_t);
	size_t held;
	int ret;

	if (s->failed != 0)
		return s->failed;
	if (s->state != ADDING)
		return SQFS_ERROR_SEQUENCE;
	if (len > EXTSORT_MAX_RECORD || (len > 0 && rec == NULL))
		return SQFS_ERROR_ARG_INVALID;

	held = s->arena_used + s->count * sizeof(entry_t);
	if (need > s->arena_cap - held) {
		size_t cap = s->arena_cap ? s->arena_cap * 2 : 4096;

		if (cap > block_limit(s))
			cap = block_limit(s);
		/* never smaller than now (a large record made it larger) */
		if (cap < s->arena_cap)
			cap = s->arena_cap;
		if (need > cap - held && s->count > 0) {
			/* full: out with it, then the record may fit */
			ret = spill_buffer(s, true);
			if (ret != 0)
				return ret;
			held = 0;
		}
		/* one record larger than the limit gets a block of its own */
		if (need > cap - held)
			cap = held + need;
		if (cap > s->arena_cap) {
			ret = grow_block(s, cap);
			if (ret != 0)
				return ret;
		}
	}

	put_le32(s->arena + s->arena_used, (uint32_t)len);
	if (len > 0)
		memcpy(s->arena + s->arena_used + 4, rec, len);
	s->count += 1;
	entry(s, s->count - 1)->offset = s->arena_used;
	s->arena_used += len + 4;
	s->stats.records += 1;
	if (lookups(s))
		return hash_entry(s, s->count - 1);
	return 0;
}

/* ---- merging ------------------------------------------------------------- */

/* Make the cursor's next record whole in its buffer: 1, or 0 at the end
 * of its run. */
static int cursor_advance(extsort_t *s, cursor_t *c)
{
	size_t avail, need;
	int ret;

	if (c->rec != NULL) {
		c->start += 4 + c->len;
		c->rec = NULL;
	}

	for (;;) {
		avail = c->fill - c->start;
		need = 4;
		if (avail >= 4)
			need = 4 + (size_t)get_le32(c->buf + c->start);
		if (avail >= need)
			break;
		if (c->pos == c->end) {
			if (avail != 0)
				return keep_failure(s, SQFS_ERROR_CORRUPTED,
						    "sorting records: a run "
						    "ends inside a record");
			return 0;
		}

		/* move what is left to the front, and make room */
		memmove(c->buf, c->buf + c->start, avail);
		c->start = 0;
		c->fill = avail;
		if (need > c->cap) {
			uint8_t *buf = realloc(c->buf, need);

			if (buf == NULL)
				return file_failure(s, NULL, SQFS_ERROR_ALLOC);
			c->buf = buf;
			c->cap = need;
		}

		size_t n = c->cap - c->fill;
		if ((uint64_t)n > c->end - c->pos)
			n = (size_t)(c->end - c->pos);
		ret = spill_file_read_at(c->file, c->pos, c->buf + c->fill, n);
		if (ret != 0)
			return file_failure(s, c->file, ret);
		c->pos += n;
		c->fill += n;
	}

	c->len = get_le32(c->buf + c->start);
	c->rec = c->buf + c->start + 4;
	return 1;
}

/* Whether cursor a's record goes before b's: ties by cursor number, the
 * cursors being in the order of their runs. */
static bool heap_less(extsort_t *s, size_t a, size_t b)
{
	const cursor_t *ca = &s->cursors[a], *cb = &s->cursors[b];
	int r = s->desc.cmp(ca->rec, ca->len, cb->rec, cb->len, s->desc.user);

	return r < 0 || (r == 0 && a < b);
}

static void heap_down(extsort_t *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->heap_n && heap_less(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < s->heap_n && heap_less(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			return;
		size_t t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* Open cursors on runs [first, first + n) of file f, each with a buffer
 * of cursor_size bytes. */
static int merge_open(extsort_t *s, spill_file_t *f, size_t first, size_t n,
		      size_t cursor_size)
{
	int ret;

	free_cursors(s);
	s->cursors = calloc(n, sizeof(s->cursors[0]));
	s->heap = calloc(n, sizeof(s->heap[0]));
	if (s->cursors == NULL || s->heap == NULL)
		return file_failure(s, NULL, SQFS_ERROR_ALLOC);
	s->ncursors = n;

	for (size_t i = 0; i < n; ++i) {
		cursor_t *c = &s->cursors[i];

		c->file = f;
		c->pos = s->runs[first + i].offset;
		c->end = c->pos + s->runs[first + i].bytes;
		c->cap = cursor_size;
		c->buf = malloc(cursor_size);
		if (c->buf == NULL)
			return file_failure(s, NULL, SQFS_ERROR_ALLOC);
		ret = cursor_advance(s, c);
		if (ret < 0)
			return ret;
		if (ret > 0)
			s->heap[s->heap_n++] = i;
	}
	for (size_t i = s->heap_n / 2; i-- > 0;)
		heap_down(s, i);
	return 0;
}

/*
 * The smallest record of the open cursors, left in place: 1, or 0 when
 * all are done. Its cursor is advanced only by merge_step, so the bytes
 * stay valid until then (advancing may move the cursor's buffer).
 */
static int merge_top(extsort_t *s, const void **rec, size_t *len)
{
	const cursor_t *c;

	if (s->heap_n == 0)
		return 0;
	c = &s->cursors[s->heap[0]];
	*rec = c->rec;
	*len = c->len;
	return 1;
}

/* Advance the cursor whose record merge_top gave last. */
static int merge_step(extsort_t *s)
{
	cursor_t *c = &s->cursors[s->heap[0]];
	int ret = cursor_advance(s, c);

	if (ret < 0)
		return ret;
	if (ret == 0)
		s->heap[0] = s->heap[--s->heap_n];
	if (s->heap_n > 0)
		heap_down(s, 0);
	return 0;
}

static size_t cursor_size_for(const extsort_t *s, size_t n)
{
	size_t size = s->desc.merge_limit / (n > 0 ? n : 1);

	if (size > MAX_CURSOR)
		size = MAX_CURSOR;
	if (size < MIN_CURSOR)
		size = MIN_CURSOR;
	return size;
}

/* Merge passes until the runs left fit one final merge. */
static int reduce_runs(extsort_t *s)
{
	size_t fanin = s->desc.merge_limit / MIN_CURSOR;
	int ret;

	if (fanin < 2)
		fanin = 2;

	while (s->run_count > fanin) {
		spill_file_t *src = s->files[s->cur], *dst;
		run_t *old = s->runs;
		size_t old_count = s->run_count;

		ret = get_file(s, 1 - s->cur);
		if (ret != 0)
			return ret;
		dst = s->files[1 - s->cur];
		s->runs = NULL;
		s->run_count = 0;
		s->run_cap = 0;

		for (size_t g = 0; g < old_count; g += fanin) {
			size_t n =
			    old_count - g < fanin ? old_count - g : fanin;
			uint64_t start = spill_file_size(dst);
			const void *rec;
			size_t len;
			uint8_t word[4];
			run_t *saved = s->runs;

			/* merge_open reads the old list */
			s->runs = old;
			ret = merge_open(s, src, g, n, cursor_size_for(s, n));
			s->runs = saved;
			while (ret == 0 && merge_top(s, &rec, &len) > 0) {
				put_le32(word, (uint32_t)len);
				ret = spill_file_append(dst, word, 4);
				if (ret == 0)
					ret = spill_file_append(dst, rec, len);
				if (ret != 0)
					ret = file_failure(s, dst, ret);
				else
					ret = merge_step(s);
			}
			if (ret == 0)
				ret = add_run(s, start,
					      spill_file_size(dst) - start);
			if (ret != 0) {
				free(old);
				return ret;
			}
			s->stats.spilled_bytes += spill_file_size(dst) - start;
		}
		free(old);
		free_cursors(s);
		ret = spill_file_reset(src);
		if (ret != 0)
			return file_failure(s, src, ret);
		s->cur = 1 - s->cur;
		s->stats.merge_passes += 1;
	}
	return 0;
}

int extsort_finish(extsort_t *s)
{
	int ret;

	if (s->failed != 0)
		return s->failed;
	if (s->state != ADDING)
		return SQFS_ERROR_SEQUENCE;

	if (s->run_count == 0) {
		sort_buffer(s);
		s->mem_pos = 0;
		s->state = READ_MEMORY;
		return 0;
	}

	ret = spill_buffer(s, false);
	if (ret != 0)
		return ret;
	free_buffer(s);
	/* no lookups from here on */
	for (size_t i = 0; i < s->run_count; ++i)
		free_run_lookup(&s->runs[i]);
	s->lookup_bytes = 0;
	s->sample_bytes = 0;
	ret = reduce_runs(s);
	if (ret != 0)
		return ret;
	ret = merge_open(s, s->files[s->cur], 0, s->run_count,
			 cursor_size_for(s, s->run_count));
	if (ret != 0)
		return ret;
	s->state = READ_MERGE;
	return 0;
}

int extsort_next(extsort_t *s, const void **rec, size_t *len)
{
	int ret;

	if (s->failed != 0)
		return s->failed;

	switch (s->state) {
	case READ_MEMORY:
		if (s->mem_pos == s->count) {
			free_buffer(s);
			s->state = DONE;
			return 0;
		}
		*rec = buffered(s, s->mem_pos++, len);
		return 1;
	case READ_MERGE:
		/* the record handed out last time is given up now */
		if (s->handed_out) {
			ret = merge_step(s);
			if (ret != 0)
				return ret;
		}
		if (merge_top(s, rec, len) == 0) {
			/* the cursors' buffers are not needed any more */
			free_cursors(s);
			s->state = DONE;
			return 0;
		}
		s->handed_out = true;
		return 1;
	case DONE:
		return 0;
	default:
		return SQFS_ERROR_SEQUENCE;
	}
}

/* ---- lookups ------------------------------------------------------------- */

static int find_in_run(extsort_t *s, const run_t *run, const void *key,
		       size_t klen, extsort_visit_fn visit, void *user)
{
	spill_file_t *f = s->files[0];
	size_t lo = 0, hi = run->nsamples, fill = 0, at = 0;
	uint64_t pos, end = run->offset + run->bytes;
	int ret;

	/* the last sample whose key is below key: records of key can only
	 * start after it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint8_t *p = run->samples + run->sample_at[mid];

		if (s->desc.key_cmp(key, klen, p + 4, get_le32(p),
				    s->desc.user) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	pos = lo == 0 ? run->offset : run->sample_off[lo - 1];

	if (s->find_buf == NULL) {
		s->find_buf = malloc(SAMPLE_SPAN);
		if (s->find_buf == NULL)
			return file_failure(s, NULL, SQFS_ERROR_ALLOC);
	}

	for (;;) {
		size_t avail = fill - at, len;
		const uint8_t *p;
		int c;

		if (avail < 4 ||
		    avail < 4 + (size_t)get_le32(s->find_buf + at)) {
			size_t need =
			    avail < 4 ? 4 : 4 + get_le32(s->find_buf + at);
			uint8_t *big;

			if (pos == end)
				return 0;
			memmove(s->find_buf, s->find_buf + at, avail);
			at = 0;
			fill = avail;
			if (need > SAMPLE_SPAN) {
				/* a record larger than the buffer: read it
				 * whole into one of its own */
				big = malloc(need);
				if (big == NULL)
					return file_failure(s, NULL,
							    SQFS_ERROR_ALLOC);
				memcpy(big, s->find_buf, avail);
				ret = spill_file_read_at(f, pos, big + avail,
							 need - avail);
				if (ret != 0) {
					free(big);
					return file_failure(s, f, ret);
				}
				pos += need - avail;
				fill = 0;
				c = s->desc.key_cmp(key, klen, big + 4,
						    need - 4, s->desc.user);
				ret =
				    c == 0 ? visit(user, big + 4, need - 4) : 0;
				free(big);
				if (c < 0 || ret != 0)
					return ret;
				continue;
			}
			size_t n = SAMPLE_SPAN - fill;
			if ((uint64_t)n > end - pos)
				n = (size_t)(end - pos);
			ret = spill_file_read_at(f, pos, s->find_buf + fill, n);
			if (ret != 0)
				return file_failure(s, f, ret);
			pos += n;
			fill += n;
			continue;
		}

		p = s->find_buf + at;
		len = get_le32(p);
		at += 4 + len;
		c = s->desc.key_cmp(key, klen, p + 4, len, s->desc.user);
		if (c < 0)
			return 0;
		if (c == 0) {
			ret = visit(user, p + 4, len);
			if (ret != 0)
				return ret;
		}
	}
}

uint64_t extsort_run_count(const extsort_t *s)
{
	return s->run_count;
}

int extsort_find(extsort_t *s, const void *key, size_t klen, uint64_t hash,
		 extsort_visit_fn visit, void *user)
{
	return extsort_find_in(s, 0, UINT64_MAX, key, klen, hash, visit, user);
}

int extsort_find_in(extsort_t *s, uint64_t first, uint64_t last,
		    const void *key, size_t klen, uint64_t hash,
		    extsort_visit_fn visit, void *user)
{
	int ret;

	if (s->failed != 0)
		return s->failed;
	if (!lookups(s))
		return SQFS_ERROR_UNSUPPORTED;
	if (s->state != ADDING)
		return SQFS_ERROR_SEQUENCE;

	if (first > last)
		return 0;
	/* the buffer is the run numbered run_count, once written */
	if (s->nbuckets > 0 && last >= s->run_count) {
		size_t i = s->buckets[bucket_of(s, hash)];

		while (i != 0) {
			const uint8_t *p = s->arena + entry(s, i - 1)->offset;
			size_t len = get_le32(p);

			if (s->desc.key_cmp(key, klen, p + 4, len,
					    s->desc.user) == 0) {
				ret = visit(user, p + 4, len);
				if (ret != 0)
					return ret;
			}
			i = entry(s, i - 1)->next;
		}
	}

	if (first >= s->run_count)
		return 0;
	if (last >= s->run_count)
		last = s->run_count - 1;
	for (size_t r = (size_t)last + 1; r-- > (size_t)first;) {
		if (!bloom_may_hold(&s->runs[r].bloom, hash))
			continue;
		ret = find_in_run(s, &s->runs[r], key, klen, visit, user);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * tail_index.c - the fragment packer's index of distinct tails, in
 * memory and, past a number of records, in sorted runs on disk (see
 * bp_tail_index_t in parts.h).
 *
 * A run is its records sorted by key, records of one key newest first,
 * each packed into RECORD_SIZE little-endian bytes, RECORDS_PER_PAGE to a
 * page. In memory per run: the first key of every page (a lookup reads
 * one or two pages) and a blocked Bloom filter (util/bloom.h): a key not
 * in the run costs one cache line, and the filter passes it 1% of the
 * time at 10 bits per record. The filters of all runs share a budget,
 * three quarters of the index's memory: past it they are folded (5 bits
 * per record: 12% of absent keys pass; 2.5 bits; none), each false
 * positive costing a page read. A merged run gets a filter sized to what
 * the budget leaves then.
 *
 * The records in memory take what the runs leave of the memory (at least
 * a quarter): as many as the array and the map sized for them fit, the
 * map being emptied, not freed, at each spill.
 *
 * Merging: a run's tier is how many times it has been merged. When
 * MERGE_FANIN runs of the same tier are the newest, they are merged into
 * one of the next tier (ties newest run first, which keeps the order of
 * every key newest first), and their disk space given back. So there are
 * at most MERGE_FANIN - 1 runs per tier and about log4(spilled / max)
 * tiers: a lookup of a new key checks a dozen filters at 10^8 records.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/error.h"
#include "util/bloom.h"
#include "util/le.h"
#include "util/spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_SIZE 28u
#define RECORDS_PER_PAGE 146u
#define PAGE_SIZE (RECORD_SIZE * RECORDS_PER_PAGE)
#define MERGE_FANIN 4u
/* Read buffer of a run being merged. */
#define MERGE_BUFFER (64u * PAGE_SIZE)

struct bp_tail_run {
	uint64_t start;
	uint64_t count;
	unsigned int tier;
	/* first key of each page */
	uint64_t *page_key;
	size_t pages;
	bloom_t bloom;
};

static bp_fragment_t *mem_at(const bp_tail_index_t *ti, size_t i)
{
	return (bp_fragment_t *)ti->list.data + i;
}

static uint64_t tail_key(uint64_t hash, uint32_t size)
{
	return bp_dedup_key(hash, size);
}

static void encode(uint8_t *p, const bp_tail_t *r)
{
	put_le64(p, r->hash);
	put_le32(p + 8, r->size);
	put_le32(p + 12, r->block);
	put_le32(p + 16, r->offset);
	put_le64(p + 20, r->store);
}

static void decode(const uint8_t *p, bp_tail_t *r)
{
	r->hash = get_le64(p);
	r->size = get_le32(p + 8);
	r->block = get_le32(p + 12);
	r->offset = get_le32(p + 16);
	r->store = get_le64(p + 20);
}

/* ---- the filter ---------------------------------------------------------- */

/* ---- writing a run ------------------------------------------------------- */

static int fail(bp_tail_index_t *ti, int code)
{
	if (ti->why[0] == '\0' && ti->file != NULL)
		snprintf(ti->why, sizeof(ti->why), "%s",
			 spill_file_error(ti->file));
	return code;
}

/* The filters' share of the memory, less the page keys (which cannot
 * fold). */
static size_t filter_budget(const bp_tail_index_t *ti, size_t page_bytes)
{
	size_t share = ti->memory / 4 * 3;

	return share > page_bytes ? share - page_bytes : 0;
}

/* Start a run of count records after the runs [0, keep): its filter is
 * sized, and theirs folded, so that all fit the budget. */
static int run_begin(bp_tail_index_t *ti, bp_tail_run_t *run, uint64_t count,
		     unsigned int tier, size_t keep)
{
	size_t page_bytes = 0, n = 0;
	unsigned int folds = 0;
	bloom_t **set;

	memset(run, 0, sizeof(*run));
	run->start = spill_file_size(ti->file);
	run->tier = tier;
	run->pages =
	    (size_t)((count + RECORDS_PER_PAGE - 1) / RECORDS_PER_PAGE);
	run->page_key =
	    malloc((run->pages ? run->pages : 1) * sizeof(uint64_t));
	set = malloc((keep > 0 ? keep : 1) * sizeof(set[0]));
	if (run->page_key == NULL || set == NULL) {
		free(set);
		return SQFS_ERROR_ALLOC;
	}
	page_bytes = run->pages * sizeof(uint64_t);
	for (size_t i = 0; i < keep; ++i) {
		page_bytes += ti->runs[i].pages * sizeof(uint64_t);
		set[n++] = &ti->runs[i].bloom;
	}
	if (ti->memory != 0)
		bloom_fit(set, n, count, &folds, filter_budget(ti, page_bytes));
	free(set);
	return bloom_init(&run->bloom, count, folds);
}

static int run_put(bp_tail_index_t *ti, bp_tail_run_t *run, const bp_tail_t *r)
{
	uint8_t buf[RECORD_SIZE];
	uint64_t key = tail_key(r->hash, r->size);
	int ret;

	if (run->count % RECORDS_PER_PAGE == 0)
		run->page_key[run->count / RECORDS_PER_PAGE] = key;
	bloom_add(&run->bloom, key);
	encode(buf, r);
	ret = spill_file_append(ti->file, buf, RECORD_SIZE);
	if (ret != 0)
		return fail(ti, ret);
	run->count += 1;
	return 0;
}

static void run_free(bp_tail_run_t *run)
{
	free(run->page_key);
	run->page_key = NULL;
	bloom_cleanup(&run->bloom);
}

/* ---- setup --------------------------------------------------------------- */

/* Bytes of the array and the map for n records in memory (the map may
 * take half as much again while it grows). */
static size_t memory_for(size_t n)
{
	return n * sizeof(bp_fragment_t) + hash_table_bytes_for(n) / 2 * 3;
}

/* The records that fit in bytes with their map (at least one). */
static size_t records_for(size_t bytes)
{
	size_t lo = 1, hi = bytes / sizeof(bp_fragment_t) + 1;

	/* records in memory are linked by u32 numbers */
	if (hi > BP_NONE - 1)
		hi = BP_NONE - 1;

	/* memory_for grows with n: the largest n that fits */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (memory_for(mid) <= bytes)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The records in memory what the runs hold leaves room for, a quarter
 * of the memory at least. */
static size_t memory_records(const bp_tail_index_t *ti)
{
	return records_for(ti->memory > ti->lookup_bytes + ti->memory / 4
			       ? ti->memory - ti->lookup_bytes
			       : ti->memory / 4);
}

/* Size the array and the map (empty) for memory_records. */
static int size_memory(bp_tail_index_t *ti)
{
	size_t n = memory_records(ti);

	/* the map grows as records come, up to what n of them need */
	hash_table_clear(&ti->map, n);
	if (n != ti->list.capacity) {
		void *data = realloc(ti->list.data, n * sizeof(bp_fragment_t));

		if (data == NULL)
			return SQFS_ERROR_ALLOC;
		ti->list.data = data;
		ti->list.capacity = n;
	}
	ti->max_records = n;
	return 0;
}

void bp_tail_index_init(bp_tail_index_t *ti, size_t memory)
{
	memset(ti, 0, sizeof(*ti));
	ti->memory = memory;
	hash_table_init(&ti->map);
}

void bp_tail_index_set_memory(bp_tail_index_t *ti, size_t memory)
{
	if (ti->memory == 0 || memory == 0)
		return;
	ti->memory = memory;
	/* fewer records in memory: the next spill comes sooner */
	if (ti->max_records != 0 && memory_records(ti) < ti->max_records)
		ti->max_records = memory_records(ti);
}

size_t bp_tail_index_memory(const bp_tail_index_t *ti)
{
	return ti->list.capacity * sizeof(bp_fragment_t) +
	       ti->map.capacity * (sizeof(hash_table_slot_t) + 1) +
	       ti->lookup_bytes;
}

void bp_tail_index_cleanup(bp_tail_index_t *ti)
{
	for (size_t i = 0; i < ti->run_count; ++i)
		run_free(&ti->runs[i]);
	free(ti->runs);
	spill_file_destroy(ti->file);
	array_cleanup(&ti->list);
	hash_table_cleanup(&ti->map);
	memset(ti, 0, sizeof(*ti));
}

/* ---- spilling and merging ------------------------------------------------ */

/* Records in memory in the order of a run: by key, newest first (their
 * prev fields, no longer needed, hold their numbers). */
static int compare_records(const void *a, const void *b)
{
	const bp_fragment_t *fa = a, *fb = b;
	uint64_t ka = tail_key(fa->tail.hash, fa->tail.size);
	uint64_t kb = tail_key(fb->tail.hash, fb->tail.size);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return fa->prev > fb->prev ? -1 : (fa->prev < fb->prev);
}

static int add_run(bp_tail_index_t *ti, const bp_tail_run_t *run)
{
	bp_tail_run_t *runs =
	    realloc(ti->runs, (ti->run_count + 1) * sizeof(runs[0]));

	if (runs == NULL)
		return SQFS_ERROR_ALLOC;
	ti->runs = runs;
	ti->runs[ti->run_count++] = *run;
	return 0;
}

typedef struct {
	uint64_t pos;
	uint64_t end;
	uint8_t *buf;
	size_t fill;
	size_t at;
	bp_tail_t rec;
	bool live;
} merge_src_t;

static int src_next(bp_tail_index_t *ti, merge_src_t *m)
{
	int ret;

	if (m->at == m->fill) {
		size_t n = MERGE_BUFFER;

		if (m->pos == m->end) {
			m->live = false;
			return 0;
		}
		if ((uint64_t)n > m->end - m->pos)
			n = (size_t)(m->end - m->pos);
		ret = spill_file_read_at(ti->file, m->pos, m->buf, n);
		if (ret != 0)
			return fail(ti, ret);
		m->pos += n;
		m->fill = n;
		m->at = 0;
	}
	decode(m->buf + m->at, &m->rec);
	m->at += RECORD_SIZE;
	m->live = true;
	return 0;
}

/* Merge the newest n runs into one of the next tier. */
static int merge_newest(bp_tail_index_t *ti, size_t n)
{
	size_t first = ti->run_count - n;
	merge_src_t src[MERGE_FANIN];
	bp_tail_run_t out;
	uint64_t total = 0;
	int ret = 0;

	memset(src, 0, sizeof(src));
	/* the merge reads the runs, not their filters: the new filter may
	 * have their room (a lookup of a run without one reads it) */
	for (size_t i = 0; i < n; ++i) {
		total += ti->runs[first + i].count;
		bloom_cleanup(&ti->runs[first + i].bloom);
	}
	ret = run_begin(ti, &out, total, ti->runs[first].tier + 1, first);
	for (size_t i = 0; ret == 0 && i < n; ++i) {
		src[i].pos = ti->runs[first + i].start;
		src[i].end =
		    src[i].pos + ti->runs[first + i].count * RECORD_SIZE;
		src[i].buf = malloc(MERGE_BUFFER);
		ret = src[i].buf == NULL ? SQFS_ERROR_ALLOC
					 : src_next(ti, &src[i]);
	}

	while (ret == 0) {
		size_t best = n;

		/* the smallest key; on a tie the newest run (highest i) */
		for (size_t i = 0; i < n; ++i) {
			uint64_t k, kb;

			if (!src[i].live)
				continue;
			if (best == n) {
				best = i;
				continue;
			}
			k = tail_key(src[i].rec.hash, src[i].rec.size);
			kb = tail_key(src[best].rec.hash, src[best].rec.size);
			if (k <= kb)
				best = i;
		}
		if (best == n)
			break;
		ret = run_put(ti, &out, &src[best].rec);
		if (ret == 0)
			ret = src_next(ti, &src[best]);
	}

	for (size_t i = 0; i < n; ++i)
		free(src[i].buf);
	if (ret != 0) {
		run_free(&out);
		return ret;
	}

	for (size_t i = first; i < ti->run_count; ++i) {
		spill_file_discard(ti->file, ti->runs[i].start,
				   ti->runs[i].count * RECORD_SIZE);
		run_free(&ti->runs[i]);
	}
	ti->run_count = first;
	ti->merges += 1;
	return add_run(ti, &out);
}

/* Write the records in memory out as a run, then merge while the newest
 * MERGE_FANIN runs share a tier. */
static int spill(bp_tail_index_t *ti)
{
	size_t count = ti->list.count;
	bp_tail_run_t run;
	int ret;

	if (ti->file == NULL) {
		ret = spill_file_create(PAGE_SIZE * 16, &ti->file, ti->why);
		if (ret != 0)
			return ret;
	}

	/* sorted in place: the records go, and the map with them */
	for (size_t i = 0; i < count; ++i)
		mem_at(ti, i)->prev = (uint32_t)i;
	qsort(ti->list.data, count, sizeof(bp_fragment_t), compare_records);
	ti->list.count = 0;

	ret = run_begin(ti, &run, count, 0, ti->run_count);
	for (size_t i = 0; ret == 0 && i < count; ++i)
		ret = run_put(ti, &run, &mem_at(ti, i)->tail);
	if (ret == 0)
		ret = add_run(ti, &run);
	if (ret != 0) {
		run_free(&run);
		return ret;
	}
	ti->spilled += count;

	while (ti->run_count >= MERGE_FANIN) {
		size_t last = ti->run_count - 1;
		bool same = true;

		for (size_t i = 1; i < MERGE_FANIN; ++i)
			same = same &&
			       ti->runs[last - i].tier == ti->runs[last].tier;
		if (!same)
			break;
		ret = merge_newest(ti, MERGE_FANIN);
		if (ret != 0)
			return ret;
	}

	ti->lookup_bytes = 0;
	for (size_t i = 0; i < ti->run_count; ++i)
		ti->lookup_bytes += ti->runs[i].pages * sizeof(uint64_t) +
				    bloom_bytes(&ti->runs[i].bloom);
	return size_memory(ti);
}

int bp_tail_index_add(bp_tail_index_t *ti, const bp_tail_t *rec)
{
	uint64_t key = tail_key(rec->hash, rec->size), prev;
	bp_fragment_t *f;
	int ret;

	if (ti->memory != 0) {
		if (ti->max_records == 0)
			ret = size_memory(ti);
		else if (ti->list.count >= ti->max_records)
			ret = spill(ti);
		else
			ret = 0;
		if (ret != 0)
			return ret;
	} else if (ti->list.count >= BP_NONE - 1) {
		/* records in memory are linked by u32 numbers */
		return 0;
	}

	ret = array_reserve(&ti->list, sizeof(*f), 1);
	if (ret != 0)
		return ret;
	f = mem_at(ti, ti->list.count);
	f->tail = *rec;
	f->prev = BP_NONE;
	if (hash_table_get(&ti->map, key, &prev))
		f->prev = (uint32_t)prev;
	ret = hash_table_put(&ti->map, key, ti->list.count);
	if (ret != 0)
		return ret;
	ti->list.count += 1;
	return 0;
}

/* ---- lookups ------------------------------------------------------------- */

/* Visit a run's records of key that match hash and size. */
static int find_in_run(bp_tail_index_t *ti, const bp_tail_run_t *run,
		       uint64_t key, uint64_t hash, uint32_t size,
		       bp_tail_visit_fn visit, void *user)
{
	uint8_t page[PAGE_SIZE];
	size_t lo = 0, hi = run->pages;
	int ret;

	if (run->count == 0 || !bloom_may_hold(&run->bloom, key))
		return 0;

	/* the last page whose first key is below key: the key's records
	 * may start at its end */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (run->page_key[mid] < key)
			lo = mid;
		else
			hi = mid;
	}

	for (size_t p = lo; p < run->pages; ++p) {
		uint64_t first = (uint64_t)p * RECORDS_PER_PAGE;
		size_t n = RECORDS_PER_PAGE;

		if (run->page_key[p] > key)
			return 0;
		if ((uint64_t)n > run->count - first)
			n = (size_t)(run->count - first);
		ret = spill_file_read_at(ti->file,
					 run->start + first * RECORD_SIZE, page,
					 n * RECORD_SIZE);
		if (ret != 0)
			return fail(ti, ret);

		for (size_t i = 0; i < n; ++i) {
			bp_tail_t r;
			uint64_t k;

			decode(page + i * RECORD_SIZE, &r);
			k = tail_key(r.hash, r.size);
			if (k < key)
				continue;
			if (k > key)
				return 0;
			if (r.hash != hash || r.size != size)
				continue;
			ret = visit(user, &r);
			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

int bp_tail_index_find(bp_tail_index_t *ti, uint64_t hash, uint32_t size,
		       bp_tail_visit_fn visit, void *user)
{
	uint64_t key = tail_key(hash, size), i;
	int ret;

	if (hash_table_get(&ti->map, key, &i)) {
		for (; i != BP_NONE; i = mem_at(ti, i)->prev) {
			const bp_fragment_t *f;

			if (i >= ti->list.count)
				return SQFS_ERROR_INTERNAL;
			f = mem_at(ti, i);
			if (f->tail.size != size || f->tail.hash != hash)
				continue;
			ret = visit(user, &f->tail);
			if (ret != 0)
				return ret;
		}
	}

	for (size_t n = ti->run_count; n-- > 0;) {
		ret =
		    find_in_run(ti, &ti->runs[n], key, hash, size, visit, user);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * extsort.h - sorting more records than fit in memory.
 *
 * Records are opaque byte strings (up to EXTSORT_MAX_RECORD bytes) and a
 * comparison function orders them. They are added in any number, then
 * read back once, in order. While they fit in mem_limit bytes they never
 * leave memory; past that, the buffer is sorted and written out as a
 * sorted run to a spill file (spill.h), and reading merges the runs (a
 * heap of cursors, one buffer each; with more runs than the limit has
 * room for buffers, runs are first merged in groups, as often as
 * needed).
 *
 * The order is stable: records the comparison finds equal come back in
 * the order they were added, in memory and across runs alike. So the
 * output depends only on the records and their order of addition, never
 * on the limit or where runs were cut: callers rely on this for images
 * that are the same with and without a memory limit.
 *
 * Memory: the record buffer (per record its bytes, a 4-byte length, a
 * 24-byte index entry and with lookups 8 bytes of hash map) and the runs'
 * filters and samples stay within mem_limit, except that one record
 * larger than the limit is always accepted; reading a merge takes at most
 * merge_limit for the cursors' buffers, and reading it to the end gives
 * them back. The spill files' write buffers (a sixteenth of the limit, at
 * most 1 MiB each, two at most) come on top.
 *
 * Errors: 0 or a negative sqfs_error_t; a failure of the spill file
 * (a full $TMPDIR) is kept, with words (extsort_error), and every later
 * call fails the same way. Not thread safe.
 */
#ifndef UTIL_EXTSORT_H
#define UTIL_EXTSORT_H

#include <stddef.h>
#include <stdint.h>

#define EXTSORT_MAX_RECORD (1u << 30)

/* <0, 0, >0 as a comes before, with, after b. */
typedef int (*extsort_cmp_fn)(const void *a, size_t alen, const void *b,
			      size_t blen, void *user);

/* The hash of a record's key: the part extsort_find looks records up by. */
typedef uint64_t (*extsort_key_hash_fn)(const void *rec, size_t len,
					void *user);

/* <0, 0, >0 as a key comes before, with, after a record's key. */
typedef int (*extsort_key_cmp_fn)(const void *key, size_t klen, const void *rec,
				  size_t len, void *user);

/* Visit a record found: 0 goes on, anything else stops the lookup. */
typedef int (*extsort_visit_fn)(void *user, const void *rec, size_t len);

typedef struct {
	/* Bytes the sorter may hold (at least 64 KiB is used). */
	size_t mem_limit;
	extsort_cmp_fn cmp;
	void *user;
	/*
	 * For extsort_find, or NULL: records whose keys compare equal must
	 * be neighbours in the order of cmp (the key is a prefix of the
	 * order). The buffer then keeps a hash map of its keys (8 bytes per
	 * record), and each run a filter (10 bits per record, folded to 5,
	 * 2.5 or none as the runs' filters outgrow filter_limit: see
	 * util/bloom.h) and a copy of its first record in every 64 KiB, in
	 * memory.
	 */
	extsort_key_hash_fn key_hash;
	extsort_key_cmp_fn key_cmp;
	/* Bytes the runs' filters may take, out of mem_limit; 0: an eighth
	 * of mem_limit. A smaller one costs more reads per lookup of a key
	 * that is not there, never a wrong answer. */
	size_t filter_limit;
	/* Bytes of the cursors' buffers when reading a merge (at least 128
	 * KiB, at most mem_limit); 0: mem_limit. By then the buffer is
	 * given back: the caller may want that memory for itself. */
	size_t merge_limit;
} extsort_desc_t;

typedef struct {
	/* Records added. */
	uint64_t records;
	/* Sorted runs written, and bytes written to spill files in all
	 * (runs and merge passes). */
	uint64_t runs;
	uint64_t spilled_bytes;
	/* Merge passes before the final one. */
	uint64_t merge_passes;
	/* Bytes the runs' filters hold now (at most filter_limit). */
	uint64_t filter_bytes;
} extsort_stats_t;

typedef struct extsort extsort_t;

int extsort_create(const extsort_desc_t *desc, extsort_t **out);

/* NULL is allowed. Spill files are closed and vanish. */
void extsort_destroy(extsort_t *s);

/* Add a copy of a record. SQFS_ERROR_SEQUENCE once reading began,
 * SQFS_ERROR_ARG_INVALID for a record over EXTSORT_MAX_RECORD bytes. */
int extsort_add(extsort_t *s, const void *rec, size_t len);

/* While adding: a new mem_limit (as in extsort_desc_t; filter_limit and
 * merge_limit stay). The buffer keeps its size until it is next written
 * out: a smaller limit takes effect within one run. */
void extsort_set_limit(extsort_t *s, size_t mem_limit);

/* Adding is over: sort and get ready to read. */
int extsort_finish(extsort_t *s);

/*
 * The next record in order: 1 with *rec and *len set (valid until the
 * next call), 0 at the end. extsort_finish must have been called.
 */
int extsort_next(extsort_t *s, const void **rec, size_t *len);

/*
 * While adding: visit every record added so far whose key equals key
 * (hash: key_hash of a record with that key), in no particular order,
 * until visit returns non-zero, which is then returned; 0 when all were
 * visited. A record given to visit is valid during the call only. A run
 * whose filter rules the key out costs no read; another costs reads of
 * the pages that can hold the key. SQFS_ERROR_UNSUPPORTED without
 * key_hash and key_cmp.
 */
int extsort_find(extsort_t *s, const void *key, size_t klen, uint64_t hash,
		 extsort_visit_fn visit, void *user);

/*
 * While adding: the runs written so far. A record added when this was r
 * (read after extsort_add returned) is in the buffer while this stays r,
 * and in run r from then on: the records of one key added while it went
 * from a to b are in runs a to b (b: maybe still the buffer).
 */
uint64_t extsort_run_count(const extsort_t *s);

/* extsort_find among the records in runs first to last only (the buffer
 * counts as run extsort_run_count()): a caller that knows where a key's
 * records went saves the filters' false positives of every other run. */
int extsort_find_in(extsort_t *s, uint64_t first, uint64_t last,
		    const void *key, size_t klen, uint64_t hash,
		    extsort_visit_fn visit, void *user);

void extsort_get_stats(const extsort_t *s, extsort_stats_t *stats);

/* The words of a kept failure, or "". */
const char *extsort_error(const extsort_t *s);

#endif /* UTIL_EXTSORT_H */

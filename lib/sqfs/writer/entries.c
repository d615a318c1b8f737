/* SPDX-License-Identifier: MIT */
/*
 * entries.c - the writer's records of entries that are not directories
 * (record.h), from add to finish: an external sort (lib/util/extsort.h)
 * that spills past the memory limit, the regular files whose data is
 * still in flight, and lookups of the newest record of a name.
 *
 * A file's record is final only when the block processor says so
 * (block_processor_files_complete, in the order files began); until then
 * it waits here with its file data record at a fixed address, which the
 * processor fills in. The wait is as long as the blocks in flight.
 *
 * Removing an entry (a hard link dropped as broken) adds a tombstone: a
 * record of kind WR_REC_GONE, newer than what it hides.
 */
#include "config.h"

#include "sqfs/writer/internal.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

static int grow(void **ptr, size_t *cap, size_t count, size_t size)
{
	size_t n;
	void *p;

	if (count < *cap)
		return 0;
	n = *cap ? *cap * 2 : 64;
	p = realloc(*ptr, n * size);
	if (p == NULL)
		return SQFS_ERROR_ALLOC;
	*ptr = p;
	*cap = n;
	return 0;
}

int wr_entries_init(wr_entries_t *e, size_t mem_limit, size_t filter_limit,
		    size_t merge_limit)
{
	extsort_desc_t desc;

	memset(e, 0, sizeof(*e));
	memset(&desc, 0, sizeof(desc));
	desc.mem_limit = mem_limit;
	desc.filter_limit = filter_limit;
	desc.merge_limit = merge_limit;
	desc.cmp = wr_record_cmp;
	desc.key_hash = wr_record_hash;
	desc.key_cmp = wr_record_key_cmp;
	e->next_seq = 1;
	return extsort_create(&desc, &e->sorter);
}

static void free_pending(wr_pending_t *p)
{
	file_data_cleanup(p->fd);
	free(p->fd);
	free(p->name);
}

void wr_entries_cleanup(wr_entries_t *e)
{
	for (size_t i = 0; i < e->npending; ++i)
		free_pending(&e->pending[i]);
	free(e->pending);
	extsort_destroy(e->sorter);
	free(e->scratch);
	free(e->found);
	free(e->bound);
	free(e->dir_runs);
	memset(e, 0, sizeof(*e));
}

const char *wr_entries_error(const wr_entries_t *e)
{
	return extsort_error(e->sorter);
}

static int reserve_scratch(wr_entries_t *e, size_t size)
{
	if (size > e->scratch_cap) {
		uint8_t *p = realloc(e->scratch, size);

		if (p == NULL)
			return SQFS_ERROR_ALLOC;
		e->scratch = p;
		e->scratch_cap = size;
	}
	return 0;
}

/* Note that a record of directory parent went to the sort's run now
 * being filled. */
static int note_run(wr_entries_t *e, uint32_t parent)
{
	uint64_t run = extsort_run_count(e->sorter);
	wr_dir_runs_t *d;

	if (parent >= e->dir_runs_cap) {
		size_t cap = e->dir_runs_cap ? e->dir_runs_cap : 64;
		wr_dir_runs_t *p;

		while (cap <= parent)
			cap *= 2;
		p = realloc(e->dir_runs, cap * sizeof(p[0]));
		if (p == NULL)
			return SQFS_ERROR_ALLOC;
		for (size_t i = e->dir_runs_cap; i < cap; ++i)
			p[i].first = p[i].last = UINT32_MAX;
		e->dir_runs = p;
		e->dir_runs_cap = cap;
	}
	/* beyond 2^32 - 1 runs, the last number stands for all later ones */
	if (run >= UINT32_MAX)
		run = UINT32_MAX - 1;
	d = &e->dir_runs[parent];
	if (d->first == UINT32_MAX)
		d->first = (uint32_t)run;
	d->last = (uint32_t)run;
	return 0;
}

int wr_entries_add(wr_entries_t *e, const wr_record_t *r)
{
	size_t size = wr_record_size(r);
	int ret;

	ret = reserve_scratch(e, size);
	if (ret != 0)
		return ret;
	wr_record_encode(r, e->scratch);
	ret = extsort_add(e->sorter, e->scratch, size);
	if (ret == 0)
		ret = note_run(e, r->parent);
	if (ret != 0)
		return ret;
	if (r->kind == WR_REC_LINK && r->bound != 0) {
		ret = grow((void **)&e->bound, &e->bound_cap, e->nbound,
			   sizeof(e->bound[0]));
		if (ret != 0)
			return ret;
		e->bound[e->nbound++] = r->bound;
	}
	e->count += 1;
	return 0;
}

int wr_entries_add_file(wr_entries_t *e, const wr_record_t *r, uint64_t ordinal,
			file_data_t **fd)
{
	wr_pending_t *p;
	int ret;

	ret = grow((void **)&e->pending, &e->pending_cap, e->npending,
		   sizeof(e->pending[0]));
	if (ret != 0)
		return ret;
	p = &e->pending[e->npending];
	memset(p, 0, sizeof(*p));
	p->rec = *r;
	p->ordinal = ordinal;
	p->name = malloc(r->name_len + 1);
	p->fd = calloc(1, sizeof(*p->fd));
	if (p->name == NULL || p->fd == NULL) {
		free(p->name);
		free(p->fd);
		return SQFS_ERROR_ALLOC;
	}
	memcpy(p->name, r->name, r->name_len);
	p->name[r->name_len] = '\0';
	p->rec.name = p->name;
	p->fd->fragment_index = 0xFFFFFFFFu;
	e->npending += 1;
	e->count += 1;
	*fd = p->fd;
	return 0;
}

int wr_entries_flush(wr_entries_t *e, uint64_t files_complete)
{
	size_t done = 0;
	int ret = 0;

	/* pending files are in the order they began */
	while (done < e->npending &&
	       e->pending[done].ordinal < files_complete) {
		wr_pending_t *p = &e->pending[done];
		wr_record_t r = p->rec;

		r.data = *p->fd;
		ret = wr_entries_add(e, &r);
		if (ret != 0)
			break;
		/* counted once, when it was added */
		e->count -= 1;
		free_pending(p);
		done += 1;
	}
	if (done > 0) {
		memmove(e->pending, e->pending + done,
			(e->npending - done) * sizeof(e->pending[0]));
		e->npending -= done;
	}
	return ret;
}

typedef struct {
	wr_entries_t *e;
	uint64_t best_seq;
	int ret;
} newest_t;

static int keep_newest(void *user, const void *rec, size_t len)
{
	newest_t *n = user;
	wr_entries_t *e = n->e;
	wr_record_t r;
	int ret;

	ret = wr_record_decode(rec, len, &r);
	if (ret != 0)
		return ret;
	if (r.seq <= n->best_seq)
		return 0;
	if (len > e->found_cap) {
		uint8_t *p = realloc(e->found, len);

		if (p == NULL)
			return SQFS_ERROR_ALLOC;
		e->found = p;
		e->found_cap = len;
	}
	memcpy(e->found, rec, len);
	e->found_len = len;
	n->best_seq = r.seq;
	return 0;
}

int wr_entries_newest(wr_entries_t *e, uint32_t parent, const char *name,
		      size_t len, wr_record_t *out)
{
	uint8_t key[4 + 256 + 1];
	const wr_pending_t *pend = NULL;
	newest_t n = {e, 0, 0};
	size_t klen;
	int ret;

	if (len > 256)
		return 0;
	/* only the runs the directory's records went to: with a tree
	 * packed in order, one or two, whatever the filters let through */
	if (parent < e->dir_runs_cap &&
	    e->dir_runs[parent].first != UINT32_MAX) {
		const wr_dir_runs_t *d = &e->dir_runs[parent];
		uint64_t last =
		    d->last == UINT32_MAX - 1 ? UINT64_MAX : d->last;

		klen = wr_record_key(parent, name, len, key);
		ret = extsort_find_in(e->sorter, d->first, last, key, klen,
				      wr_record_key_hash(key, klen),
				      keep_newest, &n);
		if (ret < 0)
			return ret;
	}

	/* files still in flight are newer than anything they follow */
	for (size_t i = 0; i < e->npending; ++i) {
		const wr_pending_t *p = &e->pending[i];

		if (p->rec.parent == parent && p->rec.name_len == len &&
		    memcmp(p->rec.name, name, len) == 0 &&
		    p->rec.seq > n.best_seq) {
			pend = p;
			n.best_seq = p->rec.seq;
		}
	}

	if (pend != NULL) {
		*out = pend->rec;
		out->data = *pend->fd;
	} else if (n.best_seq != 0) {
		ret = wr_record_decode(e->found, e->found_len, out);
		if (ret != 0)
			return ret;
	} else {
		return 0;
	}
	return out->kind == WR_REC_GONE ? 0 : 1;
}

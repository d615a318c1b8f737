/* SPDX-License-Identifier: MIT */
/*
 * meta_pipeline.c - the inode and directory tables, compressed on worker
 * threads (meta_pipeline_internal.h; doc/metadata-pipeline.md).
 *
 * The life of a block:
 *
 *   open      being filled by the calling thread (one per table)
 *   waiting   complete, but a field of it names a block of the other
 *             table whose position is not known yet
 *   ready     patched as soon as its fields are known, waiting for a
 *             worker
 *   in pool   queued on or compressed by a worker
 *   done      compressed, waiting for its turn to go to the sink
 *   free      written, its buffers kept for the next block
 *
 * Waiting, ready and done are lists under the pool's lock: a worker's
 * completion moves blocks along at once (done callback), so a block that
 * others wait for frees them without waiting for the calling thread. The
 * waiting and ready lists are kept in the order blocks were completed
 * (seq), the done lists in block order.
 *
 * Why the oldest waiting block can always go on (no deadlock): a field
 * names a block of the other table that exists when the field is
 * declared (refer checks it: at most that table's current block), and
 * what the field needs is the size of every block in front of the one it
 * names, all complete at that time. So everything a block waits for was
 * completed before the block itself. The oldest block not yet compressed
 * thus waits for nothing that is not compressed already: it is ready.
 * The same holds for the oldest block not yet written, which is also the
 * next of its table to write; so the producer, stopped while too many
 * blocks are complete and unwritten (back pressure), always sees one
 * more written, and the pool is never left with nothing to do while a
 * block waits.
 *
 * Only blocks with fields (directory inodes, directory listings) ever
 * wait. The critical path is the chain listing -> its directory's inode
 * -> the listing of the parent -> ...; the ready list hands the oldest
 * block first to a worker, and holds back the rest rather than queue
 * them all on the pool's FIFO, where a chain's next link would queue
 * behind younger blocks.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/meta_pipeline_internal.h"
#include "sqfs/super.h"
#include "sqfs/format_internal.h"
#include "util/le.h"
#include "util/workers.h"

#include <stdlib.h>
#include <string.h>

/* A reference keeps 48 bits for the block's position. */
#define MAX_TABLE_SIZE ((UINT64_C(1) << 48) - 1)
/* Default back pressure: complete blocks not yet written, per worker
 * (each costs 16 KiB): enough for a worker to go on with younger blocks
 * while an older one waits. */
#define BLOCKS_PER_WORKER 16u

typedef struct {
	/* Byte of the stream where the u32 field starts. */
	uint64_t pos;
	/* The virtual block of the other table it names. */
	uint64_t block;
} site_t;

typedef struct mp_block {
	/* First: the pool's handle is the block. */
	util_job_t job;
	/* On one of the lists (waiting, ready, done, free). */
	struct mp_block *next;
	/* Every block made, for meta_pipe_destroy. */
	struct mp_block *all_next;

	unsigned int table;
	/* Block number in its table. */
	uint64_t index;
	/* Order of completion, over both tables. */
	uint64_t seq;
	/* Fields need the positions of the other table's blocks up to
	 * here, i.e. the sizes of the blocks in front of it. */
	uint64_t need;

	site_t *sites;
	size_t site_count;
	size_t site_capacity;

	/* Uncompressed bytes, and the block on disk with its header. */
	size_t fill;
	size_t size;
	int error;
	uint8_t data[SQFS_META_BLOCK_SIZE];
	uint8_t encoded[SQFS_META_MAX_DISK_SIZE];
} mp_block_t;

typedef struct {
	/* First: the stream is the table. */
	meta_stream_t stream;
	meta_pipe_t *mp;
	unsigned int id;
	meta_sink_t *sink;

	/* Calling thread only. */
	mp_block_t *open;
	/* The open block's number: blocks completed so far. */
	uint64_t next_index;
	/* Fields declared and not yet in a complete block, by position
	 * (from pending_head on). */
	site_t *pending;
	size_t pending_head;
	size_t pending_count;
	size_t pending_capacity;
	/* Blocks taken for the sink. */
	uint64_t written;

	/* Under the lock. offsets[i] is the position of block i relative
	 * to the table's start, for i <= known: the sizes of blocks
	 * 0 .. known - 1 are known. */
	uint64_t *offsets;
	size_t offsets_capacity;
	uint64_t known;
	mp_block_t *done;
} mp_table_t;

struct meta_pipe {
	mp_table_t tables[META_PIPE_TABLES];
	sqfs_compressor_t *cmp;
	/* NULL: compress on the calling thread. */
	util_workers_t *pool;
	size_t workers;
	size_t max_alive;

	/* Calling thread only. */
	size_t alive;
	mp_block_t *free;
	mp_block_t *all;
	uint64_t next_seq;
	bool finished;
	/* The error the calling thread has seen; sticky. */
	int status;

	/* Under the lock. */
	mp_block_t *waiting;
	mp_block_t *ready;
	size_t in_pool;
	int error;
};

static mp_block_t *block_of(util_job_t *job)
{
	return (mp_block_t *)(void *)job;
}

static void lock(meta_pipe_t *mp)
{
	if (mp->pool != NULL)
		util_workers_lock(mp->pool);
}

static void unlock(meta_pipe_t *mp)
{
	if (mp->pool != NULL)
		util_workers_unlock(mp->pool);
}

/* ---- compression: on a worker, or inline ---------------------------- */

/* As sqfs_meta_writer: compressed only when strictly smaller. */
static void encode(sqfs_compressor_t *cmp, mp_block_t *blk)
{
	size_t len = 0;
	ptrdiff_t ret;

	if (cmp != NULL) {
		ret = sqfs_compressor_compress(cmp, blk->data, blk->fill,
					       blk->encoded + 2,
					       SQFS_META_BLOCK_SIZE);
		if (ret < 0) {
			blk->error = (int)ret;
			return;
		}
		len = (size_t)ret;
	}

	if (len > 0 && len < blk->fill) {
		put_le16(blk->encoded, (uint16_t)len);
	} else {
		len = blk->fill;
		memcpy(blk->encoded + 2, blk->data, len);
		put_le16(blk->encoded, (uint16_t)(SQFS_META_RAW | len));
	}
	blk->size = len + 2;
}

static void worker_run(void *state, util_job_t *job)
{
	encode(state, block_of(job));
}

static int make_worker(void *user, void **state)
{
	const meta_pipe_t *mp = user;
	sqfs_compressor_t *copy;
	int ret;

	ret = sqfs_compressor_copy(mp->cmp, &copy);
	if (ret != 0)
		return ret;
	*state = copy;
	return 0;
}

static void free_worker(void *state)
{
	sqfs_compressor_destroy(state);
}

/* ---- scheduling, under the lock -------------------------------------- */

static void set_error_locked(meta_pipe_t *mp, int error)
{
	if (mp->error == 0)
		mp->error = error;
}

/* Insert blk into a list sorted by key (seq or index); blocks mostly
 * come in order, and the lists are no longer than the back pressure. */
static void insert_by_seq(mp_block_t **list, mp_block_t *blk)
{
	while (*list != NULL && (*list)->seq < blk->seq)
		list = &(*list)->next;
	blk->next = *list;
	*list = blk;
}

static void insert_by_index(mp_block_t **list, mp_block_t *blk)
{
	while (*list != NULL && (*list)->index < blk->index)
		list = &(*list)->next;
	blk->next = *list;
	*list = blk;
}

static bool is_ready(const meta_pipe_t *mp, const mp_block_t *blk)
{
	return mp->tables[blk->table ^ 1u].known >= blk->need;
}

/* Move the waiting blocks whose fields are now known to the ready list. */
static void release_locked(meta_pipe_t *mp)
{
	mp_block_t **it = &mp->waiting, *blk;

	while (*it != NULL) {
		blk = *it;
		if (!is_ready(mp, blk)) {
			it = &blk->next;
			continue;
		}
		*it = blk->next;
		insert_by_seq(&mp->ready, blk);
	}
}

/* Write the positions into the block's fields; the block is ready. */
static int patch(const meta_pipe_t *mp, mp_block_t *blk)
{
	const mp_table_t *other = &mp->tables[blk->table ^ 1u];
	uint64_t start = blk->index * SQFS_META_BLOCK_SIZE;
	uint8_t le[4];

	for (size_t i = 0; i < blk->site_count; ++i) {
		const site_t *s = &blk->sites[i];
		uint64_t value = other->offsets[s->block];

		/* the fields are u32 */
		if (value > UINT32_MAX)
			return SQFS_ERROR_OVERFLOW;
		put_le32(le, (uint32_t)value);
		/* a field may straddle two blocks: this one's part */
		for (uint64_t k = 0; k < 4; ++k) {
			uint64_t p = s->pos + k;

			if (p >= start && p < start + blk->fill)
				blk->data[p - start] = le[k];
		}
	}
	return 0;
}

/* A block came back compressed: its size makes the positions of the
 * blocks after it known, which may make waiting blocks ready. */
static void block_done_locked(meta_pipe_t *mp, mp_block_t *blk)
{
	mp_table_t *t = &mp->tables[blk->table];

	if (blk->error != 0)
		set_error_locked(mp, blk->error);
	if (mp->error != 0)
		return;

	insert_by_index(&t->done, blk);
	for (mp_block_t *b = t->done; b != NULL; b = b->next) {
		if (b->index < t->known)
			continue;
		if (b->index > t->known)
			break;
		if (t->offsets[t->known] > MAX_TABLE_SIZE - b->size) {
			set_error_locked(mp, SQFS_ERROR_OVERFLOW);
			return;
		}
		t->offsets[t->known + 1] = t->offsets[t->known] + b->size;
		t->known += 1;
	}
	release_locked(mp);
}

/* Hand ready blocks on, oldest first: to idle workers (at most one each
 * queued or running), or without workers compress them here. */
static void feed_locked(meta_pipe_t *mp)
{
	mp_block_t *blk;
	int ret;

	while (mp->ready != NULL && mp->error == 0 &&
	       (mp->pool == NULL || mp->in_pool < mp->workers)) {
		blk = mp->ready;
		mp->ready = blk->next;
		blk->next = NULL;

		ret = patch(mp, blk);
		if (ret != 0) {
			set_error_locked(mp, ret);
			return;
		}
		if (mp->pool == NULL) {
			encode(mp->cmp, blk);
			block_done_locked(mp, blk);
			continue;
		}
		mp->in_pool += 1;
		util_workers_push_locked(mp->pool, &blk->job);
		util_workers_kick(mp->pool);
	}
}

static bool worker_done(void *user, util_job_t *job)
{
	meta_pipe_t *mp = user;

	mp->in_pool -= 1;
	block_done_locked(mp, block_of(job));
	feed_locked(mp);
	/* the calling thread, if it waits, waits for a block to write or
	 * for an error: either may have come */
	return true;
}

/* ---- the calling thread ---------------------------------------------- */

static int fail(meta_pipe_t *mp, int error)
{
	lock(mp);
	set_error_locked(mp, error);
	mp->status = mp->error;
	unlock(mp);
	return mp->status;
}

/*
 * Give the sinks every block whose turn it is. With wait, return only
 * after at least one was written (or on an error); the caller asks for
 * that only while blocks are complete and unwritten, so one always comes
 * (see the top of the file).
 */
static int drain(meta_pipe_t *mp, bool wait)
{
	mp_block_t *taken, **tail, *blk;
	bool progress = false;
	int ret;

	for (;;) {
		taken = NULL;
		tail = &taken;

		lock(mp);
		for (;;) {
			for (unsigned int i = 0; i < META_PIPE_TABLES; ++i) {
				mp_table_t *t = &mp->tables[i];

				while (t->done != NULL &&
				       t->done->index == t->written) {
					blk = t->done;
					t->done = blk->next;
					blk->next = NULL;
					*tail = blk;
					tail = &blk->next;
					t->written += 1;
				}
			}
			if (mp->error != 0 || taken != NULL || progress ||
			    !wait)
				break;
			if (mp->pool == NULL ||
			    (mp->in_pool == 0 && mp->ready == NULL)) {
				/* nothing in flight could wake us */
				set_error_locked(mp, SQFS_ERROR_INTERNAL);
				break;
			}
			util_workers_wait(mp->pool);
		}
		ret = mp->error;
		unlock(mp);

		if (ret != 0) {
			mp->status = ret;
			return ret;
		}
		if (taken == NULL)
			return 0;

		/* I/O outside the lock: the workers go on meanwhile */
		while (taken != NULL) {
			blk = taken;
			taken = blk->next;
			ret = meta_sink_write(mp->tables[blk->table].sink,
					      blk->encoded, blk->size);
			if (ret != 0)
				return fail(mp, ret);
			blk->next = mp->free;
			mp->free = blk;
			mp->alive -= 1;
		}
		progress = true;
	}
}

static int new_block(meta_pipe_t *mp, mp_block_t **out)
{
	mp_block_t *blk = mp->free;

	if (blk != NULL) {
		mp->free = blk->next;
	} else {
		blk = calloc(1, sizeof(*blk));
		if (blk == NULL)
			return SQFS_ERROR_ALLOC;
		blk->all_next = mp->all;
		mp->all = blk;
	}
	blk->next = NULL;
	blk->fill = 0;
	blk->size = 0;
	blk->error = 0;
	blk->site_count = 0;
	blk->need = 0;
	*out = blk;
	return 0;
}

/* Move the declared fields that lie in blk (whole or in part) into it. */
static int take_sites(mp_table_t *t, mp_block_t *blk)
{
	uint64_t end = blk->index * SQFS_META_BLOCK_SIZE + blk->fill;
	size_t i = t->pending_head;

	for (; i < t->pending_count && t->pending[i].pos < end; ++i) {
		const site_t *s = &t->pending[i];

		if (blk->site_count == blk->site_capacity) {
			size_t cap =
			    blk->site_capacity ? blk->site_capacity * 2 : 16;
			site_t *grown =
			    realloc(blk->sites, cap * sizeof(*grown));

			if (grown == NULL)
				return SQFS_ERROR_ALLOC;
			blk->sites = grown;
			blk->site_capacity = cap;
		}
		blk->sites[blk->site_count++] = *s;
		if (s->block > blk->need)
			blk->need = s->block;
	}
	/* a field straddling into the next block stays for it too: it is
	 * the last one taken, as fields do not overlap */
	if (i > t->pending_head && t->pending[i - 1].pos + 4 > end)
		i -= 1;
	t->pending_head = i;
	if (t->pending_head == t->pending_count)
		t->pending_head = t->pending_count = 0;
	return 0;
}

/* Room for offsets[0 .. count]. */
static int reserve_offsets(mp_table_t *t, uint64_t count)
{
	size_t cap = t->offsets_capacity;
	uint64_t *grown;

	if (count < cap)
		return 0;
	if (count >= SIZE_MAX / 2 / sizeof(uint64_t))
		return SQFS_ERROR_OVERFLOW;
	while (cap <= count)
		cap = cap > 0 ? cap * 2 : 64;
	grown = realloc(t->offsets, cap * sizeof(*grown));
	if (grown == NULL)
		return SQFS_ERROR_ALLOC;
	t->offsets = grown;
	t->offsets_capacity = cap;
	return 0;
}

/* The open block is complete: hand it over, write what can be written,
 * and wait while too many are complete and unwritten. */
static int complete_block(mp_table_t *t)
{
	meta_pipe_t *mp = t->mp;
	mp_block_t *blk = t->open;
	int ret;

	t->open = NULL;
	blk->table = t->id;
	blk->index = t->next_index++;
	blk->seq = mp->next_seq++;
	ret = take_sites(t, blk);
	if (ret != 0) {
		/* back to the free list: it is on no other */
		blk->next = mp->free;
		mp->free = blk;
		return fail(mp, ret);
	}

	lock(mp);
	/* offsets[index + 1] is where its size will go */
	ret = reserve_offsets(t, blk->index + 1);
	if (ret != 0) {
		set_error_locked(mp, ret);
	} else if (mp->error == 0) {
		if (is_ready(mp, blk))
			insert_by_seq(&mp->ready, blk);
		else
			insert_by_seq(&mp->waiting, blk);
		feed_locked(mp);
	}
	ret = mp->error;
	unlock(mp);
	mp->alive += 1;
	if (ret != 0) {
		mp->status = ret;
		return ret;
	}

	ret = drain(mp, false);
	while (ret == 0 && mp->alive >= mp->max_alive)
		ret = drain(mp, true);
	return ret;
}

static int check_usable(const meta_pipe_t *mp)
{
	if (mp->status != 0)
		return mp->status;
	return mp->finished ? SQFS_ERROR_SEQUENCE : 0;
}

static int stream_append(meta_stream_t *ms, const void *data, size_t size)
{
	mp_table_t *t = (mp_table_t *)ms;
	meta_pipe_t *mp = t->mp;
	const uint8_t *src = data;
	size_t n;
	int ret;

	ret = check_usable(mp);
	if (ret != 0)
		return ret;

	while (size > 0) {
		if (t->open == NULL) {
			ret = new_block(mp, &t->open);
			if (ret != 0)
				return fail(mp, ret);
		}
		n = SQFS_META_BLOCK_SIZE - t->open->fill;
		if (n > size)
			n = size;
		memcpy(t->open->data + t->open->fill, src, n);
		t->open->fill += n;
		src += n;
		size -= n;

		if (t->open->fill == SQFS_META_BLOCK_SIZE) {
			ret = complete_block(t);
			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

static void stream_position(const meta_stream_t *ms, uint64_t *block,
			    uint32_t *offset)
{
	const mp_table_t *t = (const mp_table_t *)ms;

	*block = t->next_index;
	*offset = t->open != NULL ? (uint32_t)t->open->fill : 0;
}

static int stream_refer(meta_stream_t *ms, size_t ahead, uint64_t block)
{
	mp_table_t *t = (mp_table_t *)ms;
	meta_pipe_t *mp = t->mp;
	const mp_table_t *other = &mp->tables[t->id ^ 1u];
	uint64_t block_pos;
	uint32_t offset;
	site_t *s;
	int ret;

	ret = check_usable(mp);
	if (ret != 0)
		return ret;
	/* a block that does not exist yet could wait for this one: the
	 * one rule that keeps the pipeline from deadlock */
	if (block > other->next_index)
		return SQFS_ERROR_ARG_INVALID;

	stream_position(ms, &block_pos, &offset);
	block_pos = block_pos * SQFS_META_BLOCK_SIZE + offset;
	if (ahead > MAX_TABLE_SIZE - block_pos)
		return SQFS_ERROR_OVERFLOW;
	if (t->pending_count > t->pending_head &&
	    block_pos + ahead < t->pending[t->pending_count - 1].pos + 4)
		return SQFS_ERROR_SEQUENCE;

	if (t->pending_count == t->pending_capacity) {
		size_t cap = t->pending_capacity ? t->pending_capacity * 2 : 64;
		site_t *grown = realloc(t->pending, cap * sizeof(*grown));

		if (grown == NULL)
			return fail(mp, SQFS_ERROR_ALLOC);
		t->pending = grown;
		t->pending_capacity = cap;
	}
	s = &t->pending[t->pending_count++];
	s->pos = block_pos + ahead;
	s->block = block;
	return 0;
}

/* ---- the interface --------------------------------------------------- */

int meta_pipe_create(const meta_pipe_desc_t *desc, meta_pipe_t **out)
{
	util_workers_desc_t wd;
	meta_pipe_t *mp;
	int ret, error;

	if (desc == NULL || out == NULL || desc->sinks[0] == NULL ||
	    desc->sinks[1] == NULL)
		return SQFS_ERROR_ARG_INVALID;
	*out = NULL;

	mp = calloc(1, sizeof(*mp));
	if (mp == NULL)
		return SQFS_ERROR_ALLOC;
	mp->cmp = desc->cmp;
	for (unsigned int i = 0; i < META_PIPE_TABLES; ++i) {
		mp_table_t *t = &mp->tables[i];

		t->stream.append = stream_append;
		t->stream.position = stream_position;
		t->stream.refer = stream_refer;
		t->mp = mp;
		t->id = i;
		t->sink = desc->sinks[i];
		ret = reserve_offsets(t, 1);
		if (ret != 0) {
			meta_pipe_destroy(mp);
			return ret;
		}
		t->offsets[0] = 0;
	}

	/* A raw table has nothing for workers to do. One worker would
	 * only take turns with the calling thread. */
	if (desc->cmp != NULL && desc->num_workers > 1) {
		memset(&wd, 0, sizeof(wd));
		wd.run = worker_run;
		wd.done = worker_done;
		wd.make_state = make_worker;
		wd.free_state = free_worker;
		wd.user = mp;
		ret = util_workers_create(&wd, desc->num_workers, &mp->pool,
					  &error);
		if (ret != 0) {
			meta_pipe_destroy(mp);
			return ret;
		}
		/* fewer threads give the same bytes: run with those that
		 * started, or on the calling thread if none did */
		mp->workers = util_workers_count(mp->pool);
		if (mp->workers == 0) {
			util_workers_destroy(mp->pool);
			mp->pool = NULL;
		}
	}

	mp->max_alive = desc->max_blocks;
	if (mp->max_alive == 0) {
		mp->max_alive =
		    BLOCKS_PER_WORKER * (mp->workers > 0 ? mp->workers : 1);
	}
	*out = mp;
	return 0;
}

void meta_pipe_destroy(meta_pipe_t *mp)
{
	mp_block_t *blk;

	if (mp == NULL)
		return;
	/* first the threads, which may still hold blocks */
	util_workers_destroy(mp->pool);
	while (mp->all != NULL) {
		blk = mp->all;
		mp->all = blk->all_next;
		free(blk->sites);
		free(blk);
	}
	for (unsigned int i = 0; i < META_PIPE_TABLES; ++i) {
		free(mp->tables[i].pending);
		free(mp->tables[i].offsets);
	}
	free(mp);
}

meta_stream_t *meta_pipe_stream(meta_pipe_t *mp, meta_pipe_table_t table)
{
	return &mp->tables[table].stream;
}

int meta_pipe_finish(meta_pipe_t *mp)
{
	int ret;

	ret = check_usable(mp);
	if (ret != 0)
		return ret;

	for (unsigned int i = 0; i < META_PIPE_TABLES; ++i) {
		mp_table_t *t = &mp->tables[i];

		if (t->open != NULL && t->open->fill > 0) {
			ret = complete_block(t);
			if (ret != 0)
				return ret;
		}
		/* a field declared and never appended */
		if (t->pending_count > t->pending_head)
			return fail(mp, SQFS_ERROR_SEQUENCE);
	}
	mp->finished = true;

	while (mp->alive > 0) {
		ret = drain(mp, true);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int meta_pipe_resolve(const meta_pipe_t *mp, meta_pipe_table_t table,
		      uint64_t vref, uint64_t *ref)
{
	const mp_table_t *t = &mp->tables[table];
	uint64_t block = vref >> 16;

	if (mp->status != 0)
		return mp->status;
	if (!mp->finished)
		return SQFS_ERROR_SEQUENCE;
	if (block > t->known || (vref & 0xFFFF) >= SQFS_META_BLOCK_SIZE)
		return SQFS_ERROR_ARG_INVALID;
	*ref = (t->offsets[block] << 16) | (vref & 0xFFFF);
	return 0;
}

uint64_t meta_pipe_table_size(const meta_pipe_t *mp, meta_pipe_table_t table)
{
	const mp_table_t *t = &mp->tables[table];

	return t->offsets[t->known];
}

uint64_t meta_pipe_block_count(const meta_pipe_t *mp, meta_pipe_table_t table)
{
	return mp->tables[table].next_index;
}

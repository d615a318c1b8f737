/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the thread-pool back end.
 *
 * Two queues (doc/parallelism.md has the whole design):
 *   work queue  FIFO of submitted blocks, each holding its processing
 *               number (proc_seq); workers take from the front. FILE_END
 *               markers have nothing to process and skip it.
 *   done queue  processed blocks and markers, sorted by proc_seq (markers
 *               go straight to its tail). The main thread takes them
 *               strictly in proc_seq order and hands each to the block
 *               writer at once: submission order is the order of writing.
 *               Fragment blocks come from the front end like data blocks
 *               (it packs tails itself), so nothing is fed back into the
 *               pipeline from here.
 * (An earlier design numbered blocks again for I/O and sorted them in a
 * third queue; as nothing ever reorders blocks after the done queue, that
 * queue only ever held the block just taken, and it went.)
 *
 * Workers only compress and hash; every write, every read-back and all
 * state outside the block happen on the main thread, so the output is the
 * serial back end's, byte for byte, for any number of workers.
 *
 * The main thread waits only when it needs a block structure with buffers
 * and the buffers in flight (of blocks submitted, not yet written: one per
 * data block, two per fragment block) would pass the backlog limit, or a
 * FILE_END marker and very many are in flight: it then completes blocks
 * until fewer are. Markers carry
 * no data, so many small files cost the backlog nothing and several fragment
 * blocks can be compressed at once.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"

#include <stdlib.h>

/* FILE_END markers in flight (about 100 bytes each): empty files queued
 * behind one slow block wait here rather than fill memory. */
#define POOL_MAX_MARKERS 65536u

typedef struct pool pool_t;

/* A worker's own: what it compresses with. */
typedef struct {
	const bp_proc_t *proc;
	sqfs_compressor_t *cmp;
	/* block_size bytes for processing. */
	uint8_t *scratch;
} pool_worker_t;

struct pool {
	/* Compress and hash on threads (util/workers.h); its lock guards
	 * the done queue and next_done_seq too. */
	util_workers_t *workers;
	const bp_proc_t *proc;

	/* Sorted by proc_seq; the tail, where markers go. */
	bp_block_t *done;
	bp_block_t *done_tail;
	/* The block the main thread waits for (written under the lock). */
	uint64_t next_done_seq;

	/* Main thread only from here on. */
	/* Buffers of the blocks submitted and not yet written (one per data
	 * block, two per fragment block), and the most there may be (the
	 * backlog). Blocks the front end holds (the one it fills, the open
	 * fragment block, a tail being packed) do not count. */
	size_t in_flight;
	size_t max_in_flight;

	/* for making the workers' state */
	const block_processor_t *bp;
};

/* Insert blk into a list sorted by proc_seq. Workers finish roughly in
 * order, so most blocks go near the end; the list is no longer than the
 * backlog. */
static void insert_sorted(bp_block_t **list, bp_block_t *blk)
{
	while (*list != NULL && (*list)->proc_seq < blk->proc_seq)
		list = &(*list)->next;
	blk->next = *list;
	*list = blk;
}

/* Put blk on the done queue (under the lock). Markers are the newest
 * block and go to the tail at once, however many wait behind a block
 * still being compressed. */
static void done_insert(pool_t *pool, bp_block_t *blk)
{
	if (pool->done_tail != NULL &&
	    pool->done_tail->proc_seq < blk->proc_seq) {
		blk->next = NULL;
		pool->done_tail->next = blk;
		pool->done_tail = blk;
		return;
	}
	insert_sorted(&pool->done, blk);
	if (blk->next == NULL)
		pool->done_tail = blk;
}

static bp_block_t *block_of(util_job_t *job)
{
	return (bp_block_t *)(void *)job;
}

/* On a worker, outside the lock. */
static void worker_run(void *state, util_job_t *job)
{
	pool_worker_t *w = state;
	bp_block_t *blk = block_of(job);

	blk->error = bp_process_block(w->proc, w->cmp, w->scratch, blk);
}

/* On a worker, with the lock held: wake the main thread only for the
 * block it waits for. */
static bool worker_done(void *user, util_job_t *job)
{
	pool_t *pool = user;
	bp_block_t *blk = block_of(job);

	done_insert(pool, blk);
	return blk->proc_seq == pool->next_done_seq;
}

/* Also for a worker make_worker left half made. */
static void free_worker(void *state)
{
	pool_worker_t *w = state;

	sqfs_compressor_destroy(w->cmp);
	free(w->scratch);
	free(w);
}

static int make_worker(void *user, void **state)
{
	const pool_t *pool = user;
	pool_worker_t *w = calloc(1, sizeof(*w));
	int ret;

	*state = NULL;
	if (w == NULL)
		return SQFS_ERROR_ALLOC;
	w->proc = pool->proc;
	w->scratch = malloc(pool->bp->desc.block_size);
	if (w->scratch == NULL) {
		free_worker(w);
		return SQFS_ERROR_ALLOC;
	}
	ret = sqfs_compressor_copy(pool->bp->desc.cmp, &w->cmp);
	if (ret != 0) {
		free_worker(w);
		return ret;
	}
	*state = w;
	return 0;
}

/* Take the next block in processing order off the done queue, waiting for
 * it if wait is set; NULL if it is not there (and wait is not set). */
static bp_block_t *take_done(pool_t *pool, bool wait)
{
	bp_block_t *blk = NULL;

	util_workers_lock(pool->workers);
	for (;;) {
		if (pool->done != NULL &&
		    pool->done->proc_seq == pool->next_done_seq) {
			blk = pool->done;
			pool->done = blk->next;
			if (pool->done == NULL)
				pool->done_tail = NULL;
			blk->next = NULL;
			pool->next_done_seq += 1;
			break;
		}
		if (!wait)
			break;
		util_workers_wait(pool->workers);
	}
	util_workers_unlock(pool->workers);
	return blk;
}

static size_t buffers_of(bool fragment)
{
	return fragment ? 2 : 1;
}

/* A block submitted earlier is done with. */
static void release(block_processor_t *bp, pool_t *pool, bp_block_t *blk)
{
	if (!blk->marker) {
		pool->in_flight -= buffers_of(blk->out != NULL);
	}
	bp_block_release(&bp->blocks, blk);
}

/* Complete one block taken off the done queue, in submission order: it
 * goes to the block writer at once. Takes ownership. */
static int complete(block_processor_t *bp, bp_block_t *blk)
{
	pool_t *pool = bp->backend;
	int ret = blk->error;

	if (ret == 0)
		ret = bp_writer_write(&bp->writer, blk);
	release(bp, pool, blk);
	return ret;
}

/* Blocks submitted and not yet taken off the done queue. */
static bool pipeline_busy(const block_processor_t *bp, const pool_t *pool)
{
	return pool->next_done_seq != bp->next_proc_seq;
}

/* Complete blocks that are ready, without waiting. */
static int complete_ready(block_processor_t *bp, pool_t *pool)
{
	bp_block_t *blk;
	int ret;

	while (pipeline_busy(bp, pool)) {
		blk = take_done(pool, false);
		if (blk == NULL)
			break;
		ret = complete(bp, blk);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Whether n more buffers would go past the backlog. */
static bool backlog_full(const pool_t *pool, size_t n)
{
	return pool->in_flight + n > pool->max_in_flight;
}

static int pool_get_block(block_processor_t *bp, bool fragment,
			  bp_block_t **out)
{
	pool_t *pool = bp->backend;
	int ret;

	/* At the limit, complete blocks (each may free some) until below
	 * it; when the pipeline is empty there is nothing to wait for. */
	while (backlog_full(pool, buffers_of(fragment)) &&
	       pipeline_busy(bp, pool)) {
		ret = complete(bp, take_done(pool, true));
		if (ret != 0)
			return ret;
	}
	return bp_block_alloc(&bp->blocks, fragment, out);
}

static int pool_get_marker(block_processor_t *bp, bp_block_t **out)
{
	pool_t *pool = bp->backend;
	int ret;

	while (bp->blocks.markers_in_use >= POOL_MAX_MARKERS &&
	       pipeline_busy(bp, pool)) {
		ret = complete(bp, take_done(pool, true));
		if (ret != 0)
			return ret;
	}
	return bp_marker_alloc(&bp->blocks, out);
}

static int pool_submit(block_processor_t *bp, bp_block_t *blk)
{
	pool_t *pool = bp->backend;

	blk->proc_seq = bp->next_proc_seq++;
	if (blk->marker) {
		/* Nothing to process: straight to the done queue, in its
		 * place by number, with no worker woken for it (a tree of
		 * a million small files is a million markers). */
		blk->error = bp_process_block(pool->proc, NULL, NULL, blk);
		util_workers_lock(pool->workers);
		done_insert(pool, blk);
		util_workers_unlock(pool->workers);
		return complete_ready(bp, pool);
	}
	pool->in_flight += buffers_of(blk->out != NULL);
	util_workers_push(pool->workers, &blk->job);
	/* Keeps the writer busy and blocks recycled while data comes in. */
	return complete_ready(bp, pool);
}

static int pool_sync(block_processor_t *bp)
{
	pool_t *pool = bp->backend;
	int ret;

	while (pipeline_busy(bp, pool)) {
		ret = complete(bp, take_done(pool, true));
		if (ret != 0)
			return ret;
	}
	return 0;
}

static void pool_destroy(block_processor_t *bp)
{
	pool_t *pool = bp->backend;

	if (pool == NULL)
		return;
	/* Workers drop what is queued; the blocks themselves belong to bp
	 * and are freed by the caller once the threads are gone. */
	util_workers_destroy(pool->workers);
	free(pool);
	bp->backend = NULL;
}

static const bp_backend_t bp_pool_backend = {
    .get_block = pool_get_block,
    .get_marker = pool_get_marker,
    .submit = pool_submit,
    .sync = pool_sync,
    .destroy = pool_destroy,
};

int bp_pool_init(block_processor_t *bp)
{
	util_workers_desc_t desc = {0};
	pool_t *pool;
	int ret, error;

	pool = calloc(1, sizeof(*pool));
	if (pool == NULL)
		return SQFS_ERROR_ALLOC;
	pool->bp = bp;
	pool->proc = &bp->proc;
	pool->max_in_flight = bp_backlog_buffers(&bp->desc);

	desc.run = worker_run;
	desc.done = worker_done;
	desc.make_state = make_worker;
	desc.free_state = free_worker;
	desc.user = pool;
	ret = util_workers_create(&desc, bp->desc.num_workers, &pool->workers,
				  &error);
	if (ret != 0) {
		free(pool);
		return ret;
	}
	bp->backend = pool;
	bp->ops = &bp_pool_backend;
	/* every worker asked for, or none: the caller asked for threads
	 * and gets the error (pool_destroy cleans up) */
	return error;
}

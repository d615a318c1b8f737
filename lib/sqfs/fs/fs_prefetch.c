/* SPDX-License-Identifier: MIT */
/*
 * fs_prefetch.c - read-ahead: background threads that decode the next
 * blocks of a file read in order into the data cache, so that the reader
 * finds them there.
 *
 * A job carries everything it needs (the block's place and size word,
 * checked by the handle that queued it), so closing the handle does not
 * concern the workers. A block already cached or being loaded is
 * skipped; one that a reader asks for while a worker decodes it is
 * waited for, not decoded twice (the cache's single flight). The queue is
 * bounded; jobs that do not fit are dropped, since read-ahead only ever
 * saves time. Each worker decodes with a context of its own.
 */
#include "fs_internal.h"

#include <stdlib.h>
#include <string.h>

#define QUEUE_SIZE 256u
#define MAX_THREADS 64u

struct prefetch {
	sqfs_fs_t *fs;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	prefetch_job_t queue[QUEUE_SIZE];
	size_t head, used;
	bool stop;
	unsigned int count;
	pthread_t threads[MAX_THREADS];
};

typedef struct {
	sqfs_fs_t *fs;
	fs_ctx_t *ctx;
} job_load_t;

static int job_load(void *user, cache_block_t *blk)
{
	job_load_t *jl = user;
	int ret = fs_load_data_block(jl->fs, jl->ctx, blk);

	if (ret == 0) {
		atomic_store(&blk->ahead, true);
		atomic_fetch_add(&jl->fs->ra_done, 1);
	}
	return ret;
}

static void run_job(prefetch_t *pf, const prefetch_job_t *job)
{
	job_load_t jl;
	cache_block_t *blk;

	if (block_cache_has(pf->fs->data, job->pos, job->word))
		return;
	jl.fs = pf->fs;
	jl.ctx = fs_ctx_get(pf->fs);
	if (jl.ctx == NULL)
		return;
	/* a block that fails here fails again for the reader, in its words */
	if (block_cache_get(pf->fs->data, job->pos, job->word, job_load, &jl,
			    &blk, NULL) == 0)
		block_cache_put(pf->fs->data, blk);
	fs_ctx_put(pf->fs, jl.ctx);
}

static void *worker(void *arg)
{
	prefetch_t *pf = arg;
	prefetch_job_t job;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		while (pf->used == 0 && !pf->stop)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->stop)
			break;
		job = pf->queue[pf->head];
		pf->head = (pf->head + 1) % QUEUE_SIZE;
		pf->used--;
		pthread_mutex_unlock(&pf->lock);
		run_job(pf, &job);
		pthread_mutex_lock(&pf->lock);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

int prefetch_create(sqfs_fs_t *fs, unsigned int threads, prefetch_t **out)
{
	prefetch_t *pf;
	unsigned int i;

	*out = NULL;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads == 0)
		threads = 1;
	pf = calloc(1, sizeof(*pf));
	if (pf == NULL)
		return SQFS_ERROR_ALLOC;
	pf->fs = fs;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	for (i = 0; i < threads; ++i) {
		if (pthread_create(&pf->threads[i], NULL, worker, pf) != 0)
			break;
		pf->count++;
	}
	if (pf->count == 0) {
		prefetch_destroy(pf);
		return SQFS_ERROR_INTERNAL;
	}
	*out = pf;
	return 0;
}

void prefetch_destroy(prefetch_t *pf)
{
	unsigned int i;

	if (pf == NULL)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	for (i = 0; i < pf->count; ++i)
		pthread_join(pf->threads[i], NULL);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->cond);
	free(pf);
}

void prefetch_queue(prefetch_t *pf, const prefetch_job_t *jobs, size_t count)
{
	size_t i;

	if (pf == NULL)
		return;
	pthread_mutex_lock(&pf->lock);
	for (i = 0; i < count && pf->used < QUEUE_SIZE; ++i) {
		pf->queue[(pf->head + pf->used) % QUEUE_SIZE] = jobs[i];
		pf->used++;
	}
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
}

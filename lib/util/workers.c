/* SPDX-License-Identifier: MIT */
/*
 * workers.c - the worker pool (workers.h).
 */
#include "config.h"

#include "util/workers.h"
#include "sqfs/error.h"

#include <stdlib.h>

#ifdef WITH_PTHREAD
#include <pthread.h>
#endif

typedef struct {
	util_workers_t *pool;
	void *state;
#ifdef WITH_PTHREAD
	pthread_t thread;
#endif
} worker_t;

struct util_workers {
	util_workers_desc_t desc;
	worker_t *workers;
	size_t count;

	util_job_t *head;
	util_job_t *tail;

#ifdef WITH_PTHREAD
	pthread_mutex_t lock;
	/* workers wait for jobs, the owner for a done callback's wake-up */
	pthread_cond_t work_cond;
	pthread_cond_t done_cond;
	unsigned int idle;
	bool owner_waiting;
	bool shutdown;
#endif
};

util_job_t *util_workers_pop(util_workers_t *w)
{
	util_job_t *job = w->head;

	if (job != NULL) {
		w->head = job->next;
		if (w->head == NULL)
			w->tail = NULL;
		job->next = NULL;
	}
	return job;
}

size_t util_workers_count(const util_workers_t *w)
{
	return w->count;
}

void util_workers_push_locked(util_workers_t *w, util_job_t *job)
{
	job->next = NULL;
	if (w->tail != NULL)
		w->tail->next = job;
	else
		w->head = job;
	w->tail = job;
}

#ifdef WITH_PTHREAD
static void *worker_main(void *arg)
{
	worker_t *self = arg;
	util_workers_t *w = self->pool;
	util_job_t *job;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->head == NULL && !w->shutdown) {
			w->idle += 1;
			pthread_cond_wait(&w->work_cond, &w->lock);
			w->idle -= 1;
		}
		if (w->shutdown)
			break;
		job = util_workers_pop(w);
		pthread_mutex_unlock(&w->lock);

		w->desc.run(self->state, job);

		pthread_mutex_lock(&w->lock);
		if (w->desc.done(w->desc.user, job) && w->owner_waiting)
			pthread_cond_signal(&w->done_cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

void util_workers_lock(util_workers_t *w)
{
	if (w->count > 0)
		pthread_mutex_lock(&w->lock);
}

void util_workers_unlock(util_workers_t *w)
{
	if (w->count > 0)
		pthread_mutex_unlock(&w->lock);
}

void util_workers_wait(util_workers_t *w)
{
	w->owner_waiting = true;
	pthread_cond_wait(&w->done_cond, &w->lock);
	w->owner_waiting = false;
}

void util_workers_kick(util_workers_t *w)
{
	if (w->count > 0 && w->idle > 0 && w->head != NULL)
		pthread_cond_signal(&w->work_cond);
}

void util_workers_push(util_workers_t *w, util_job_t *job)
{
	util_workers_lock(w);
	util_workers_push_locked(w, job);
	util_workers_kick(w);
	util_workers_unlock(w);
}

static int init_sync(util_workers_t *w)
{
	if (pthread_mutex_init(&w->lock, NULL) != 0)
		return SQFS_ERROR_ALLOC;
	if (pthread_cond_init(&w->work_cond, NULL) != 0) {
		pthread_mutex_destroy(&w->lock);
		return SQFS_ERROR_ALLOC;
	}
	if (pthread_cond_init(&w->done_cond, NULL) != 0) {
		pthread_cond_destroy(&w->work_cond);
		pthread_mutex_destroy(&w->lock);
		return SQFS_ERROR_ALLOC;
	}
	return 0;
}

/* Start the threads; w->count is how many run. */
static int start(util_workers_t *w, size_t count)
{
	int ret;

	for (size_t i = 0; i < count; ++i) {
		worker_t *self = &w->workers[i];

		self->pool = w;
		if (w->desc.make_state != NULL) {
			ret = w->desc.make_state(w->desc.user, &self->state);
			if (ret != 0)
				return ret;
		}
		if (pthread_create(&self->thread, NULL, worker_main, self) !=
		    0) {
			if (w->desc.free_state != NULL)
				w->desc.free_state(self->state);
			self->state = NULL;
			return SQFS_ERROR_ALLOC;
		}
		/* lock and unlock lock from here on: the thread may run */
		w->count = i + 1;
	}
	return 0;
}

void util_workers_destroy(util_workers_t *w)
{
	if (w == NULL)
		return;
	util_workers_lock(w);
	w->shutdown = true;
	if (w->count > 0)
		pthread_cond_broadcast(&w->work_cond);
	util_workers_unlock(w);

	for (size_t i = 0; i < w->count; ++i) {
		pthread_join(w->workers[i].thread, NULL);
		if (w->desc.free_state != NULL)
			w->desc.free_state(w->workers[i].state);
	}
	pthread_cond_destroy(&w->done_cond);
	pthread_cond_destroy(&w->work_cond);
	pthread_mutex_destroy(&w->lock);
	free(w->workers);
	free(w);
}
#else
void util_workers_lock(util_workers_t *w)
{
	(void)w;
}

void util_workers_unlock(util_workers_t *w)
{
	(void)w;
}

void util_workers_wait(util_workers_t *w)
{
	/* there is no thread to wait for */
	(void)w;
}

void util_workers_kick(util_workers_t *w)
{
	(void)w;
}

void util_workers_push(util_workers_t *w, util_job_t *job)
{
	util_workers_push_locked(w, job);
}

static int init_sync(util_workers_t *w)
{
	(void)w;
	return 0;
}

static int start(util_workers_t *w, size_t count)
{
	(void)w;
	return count > 0 ? SQFS_ERROR_UNSUPPORTED : 0;
}

void util_workers_destroy(util_workers_t *w)
{
	if (w == NULL)
		return;
	free(w->workers);
	free(w);
}
#endif

int util_workers_create(const util_workers_desc_t *desc, size_t count,
			util_workers_t **out, int *error)
{
	util_workers_t *w;
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return SQFS_ERROR_ALLOC;
	w->desc = *desc;
	if (count > 0) {
		w->workers = calloc(count, sizeof(w->workers[0]));
		if (w->workers == NULL) {
			free(w);
			return SQFS_ERROR_ALLOC;
		}
	}
	if (init_sync(w) != 0) {
		free(w->workers);
		free(w);
		return SQFS_ERROR_ALLOC;
	}
	ret = start(w, count);
	if (error != NULL)
		*error = ret;
	*out = w;
	return 0;
}

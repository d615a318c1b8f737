/* SPDX-License-Identifier: MIT */
/*
 * workers.h - a pool of threads working through a FIFO of jobs.
 *
 * The one worker pool of the library: the block processor compresses on
 * it, the file stream decompresses on it. The pool knows nothing of what
 * a job is. The owner embeds a util_job_t in its own structure, pushes
 * jobs, and says through two callbacks how a worker runs a job and where
 * a finished one goes. Each worker has a state of its own (a compressor
 * copy, scratch space), made when it starts.
 *
 * Locking: one mutex guards the job FIFO and whatever the done callback
 * touches. The owner takes it (util_workers_lock) to look at that state,
 * and may wait with it held (util_workers_wait) until a done callback
 * asks to wake it. A worker is woken only when one is idle, and the owner
 * only when it waits: a wake-up costs a system call, and most jobs find
 * a worker busy and the owner not waiting.
 *
 * A pool of 0 threads is allowed, and is all a build without pthreads
 * gives: the owner then takes the jobs back (util_workers_pop) and runs
 * them itself, and the lock functions do nothing.
 */
#ifndef UTIL_WORKERS_H
#define UTIL_WORKERS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct util_job {
	struct util_job *next;
} util_job_t;

typedef struct {
	/* Run job on a worker, outside the lock; state is the worker's. */
	void (*run)(void *state, util_job_t *job);
	/* With the lock held, right after run: hand the job on (to a done
	 * list, a flag). Returns whether a waiting owner should wake. */
	bool (*done)(void *user, util_job_t *job);
	/* Make a worker's state before its thread starts (0 or a negative
	 * sqfs_error_t), and free it after the thread ended; NULL: none. */
	int (*make_state)(void *user, void **state);
	void (*free_state)(void *state);
	void *user;
} util_workers_desc_t;

typedef struct util_workers util_workers_t;

/*
 * A pool of up to count threads. It starts as many as it can: fewer if
 * a thread or a state cannot be made (util_workers_count says how many;
 * *error, if not NULL, gets the reason, 0 if all started). Fails only
 * with SQFS_ERROR_ALLOC for the pool itself.
 */
int util_workers_create(const util_workers_desc_t *desc, size_t count,
			util_workers_t **out, int *error);

/* Stop and join the threads, free their states; queued jobs are dropped
 * (they belong to the owner). NULL is allowed. */
void util_workers_destroy(util_workers_t *w);

size_t util_workers_count(const util_workers_t *w);

/* Queue a job (takes the lock), waking an idle worker. */
void util_workers_push(util_workers_t *w, util_job_t *job);

/* With the lock held: queue a job without waking anyone, for an owner
 * that hands jobs over in batches (one wake-up for many small jobs). */
void util_workers_push_locked(util_workers_t *w, util_job_t *job);

/* With the lock held: wake an idle worker if jobs are queued. */
void util_workers_kick(util_workers_t *w);

/* With the lock held: the oldest queued job, taken off the FIFO, or
 * NULL. For an owner that runs jobs itself rather than wait. */
util_job_t *util_workers_pop(util_workers_t *w);

void util_workers_lock(util_workers_t *w);
void util_workers_unlock(util_workers_t *w);

/* With the lock held and at least one thread: wait until a done callback
 * asks to wake the owner (or spuriously: check and wait again). */
void util_workers_wait(util_workers_t *w);

#endif /* UTIL_WORKERS_H */

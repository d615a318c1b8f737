/* SPDX-License-Identifier: MIT */
/*
 * The worker pool: every job pushed runs exactly once, on a worker with
 * its own state, and is handed to the done callback under the lock; the
 * owner waiting for a job is woken; a pool of 0 threads leaves the jobs
 * to the owner; states are made and freed once per thread.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/error.h"
#include "util/workers.h"

#include <stdlib.h>
#include <string.h>

#define JOBS 2000

typedef struct {
	util_job_t job;
	unsigned int value;
	unsigned int result;
	/* set by the done callback, under the lock */
	bool done;
	int runs;
} job_t;

typedef struct {
	unsigned int done_count;
	/* the job the owner waits for */
	job_t *waited;
	int states_made;
	int states_freed;
	int fail_state_at;
} owner_t;

static owner_t *the_owner;

static void run(void *state, util_job_t *job)
{
	job_t *j = (job_t *)(void *)job;
	unsigned int x = j->value;

	/* state is the worker's own: a counter no one else touches */
	*(unsigned int *)state += 1;
	for (int i = 0; i < 1000; ++i)
		x = x * 1103515245u + 12345u;
	j->result = x;
	j->runs += 1;
}

static bool done(void *user, util_job_t *job)
{
	owner_t *o = user;
	job_t *j = (job_t *)(void *)job;

	j->done = true;
	o->done_count += 1;
	return j == o->waited;
}

static int make_state(void *user, void **state)
{
	owner_t *o = user;

	if (o->states_made == o->fail_state_at)
		return SQFS_ERROR_ALLOC;
	*state = calloc(1, sizeof(unsigned int));
	if (*state == NULL)
		return SQFS_ERROR_ALLOC;
	o->states_made += 1;
	return 0;
}

static void free_state(void *state)
{
	the_owner->states_freed += 1;
	free(state);
}

static unsigned int expect(unsigned int x)
{
	for (int i = 0; i < 1000; ++i)
		x = x * 1103515245u + 12345u;
	return x;
}

static void run_pool(size_t threads, int fail_at, size_t want_count)
{
	util_workers_desc_t desc = {0};
	job_t *jobs = calloc(JOBS, sizeof(*jobs));
	util_workers_t *w;
	util_job_t *job;
	owner_t o;
	int error;

	assert_non_null(jobs);
	memset(&o, 0, sizeof(o));
	o.fail_state_at = fail_at;
	the_owner = &o;
	desc.run = run;
	desc.done = done;
	desc.make_state = make_state;
	desc.free_state = free_state;
	desc.user = &o;
	assert_int_equal(util_workers_create(&desc, threads, &w, &error), 0);
	assert_int_equal(util_workers_count(w), want_count);
	assert_int_equal(error, want_count == threads ? 0 : SQFS_ERROR_ALLOC);

	for (size_t i = 0; i < JOBS; ++i) {
		jobs[i].value = (unsigned int)i;
		util_workers_push(w, &jobs[i].job);
	}

	/* wait for each job in turn, running queued ones meanwhile, as
	 * the file stream does */
	for (size_t i = 0; i < JOBS; ++i) {
		util_workers_lock(w);
		o.waited = &jobs[i];
		while (!jobs[i].done) {
			job = util_workers_pop(w);
			if (job != NULL) {
				util_workers_unlock(w);
				run(&(unsigned int){0}, job);
				util_workers_lock(w);
				((job_t *)(void *)job)->done = true;
				o.done_count += 1;
				continue;
			}
			assert_true(util_workers_count(w) > 0);
			util_workers_wait(w);
		}
		o.waited = NULL;
		util_workers_unlock(w);
	}

	util_workers_lock(w);
	assert_int_equal(o.done_count, JOBS);
	util_workers_unlock(w);
	for (size_t i = 0; i < JOBS; ++i) {
		assert_int_equal(jobs[i].runs, 1);
		assert_int_equal(jobs[i].result, expect((unsigned int)i));
	}
	util_workers_destroy(w);
	assert_int_equal(o.states_made, (int)want_count);
	assert_int_equal(o.states_freed, (int)want_count);
	free(jobs);
}

static void test_threads(void **state)
{
	(void)state;
#ifdef WITH_PTHREAD
	run_pool(1, -1, 1);
	run_pool(2, -1, 2);
	run_pool(8, -1, 8);
	/* the third state cannot be made: two threads run */
	run_pool(8, 2, 2);
#endif
	run_pool(0, -1, 0);
}

/* Jobs left queued are dropped at destroy, not run. */
static void test_destroy_drops(void **state)
{
	util_workers_desc_t desc = {0};
	job_t jobs[10];
	util_workers_t *w;
	owner_t o;

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(jobs, 0, sizeof(jobs));
	o.fail_state_at = -1;
	the_owner = &o;
	desc.run = run;
	desc.done = done;
	desc.user = &o;
	assert_int_equal(util_workers_create(&desc, 0, &w, NULL), 0);
	for (size_t i = 0; i < 10; ++i)
		util_workers_push(w, &jobs[i].job);
	util_workers_destroy(w);
	for (size_t i = 0; i < 10; ++i)
		assert_int_equal(jobs[i].runs, 0);
	util_workers_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_destroy_drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

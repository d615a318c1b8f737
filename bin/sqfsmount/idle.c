/* SPDX-License-Identifier: MIT */
/*
 * idle.c - -o timeout=N: unmount once the mount has been idle N seconds.
 *
 * Idle means no request being served, no file or directory open, and no
 * request for N seconds. A thread looks once a second; when the time has
 * come it ends the session as SIGTERM would: the main thread, woken by a
 * signal of its own (SIGUSR1, whose handler does nothing but interrupt
 * the wait: SIGTERM may be ignored, and libfuse then leaves it so),
 * leaves the loop and unmounts lazily.
 */
#include "config.h"

#include "sqfsmount.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static pthread_t idle_thread;
static pthread_t main_thread;
static bool running;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static bool stopping;

static long long now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

void mount_busy(mount_ctx_t *ctx)
{
	atomic_fetch_add(&ctx->busy, 1);
	if (ctx->opt->timeout != 0)
		atomic_store(&ctx->last_active, now_seconds());
}

void mount_idle(mount_ctx_t *ctx)
{
	if (ctx->opt->timeout != 0)
		atomic_store(&ctx->last_active, now_seconds());
	atomic_fetch_sub(&ctx->busy, 1);
}

typedef struct {
	mount_ctx_t *ctx;
	struct fuse_session *se;
} idle_arg_t;

static idle_arg_t idle_arg;

static void *idle_main(void *user)
{
	idle_arg_t *arg = user;
	mount_ctx_t *ctx = arg->ctx;
	struct timespec until;

	pthread_mutex_lock(&lock);
	while (!stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&wake, &lock, &until);
		if (stopping)
			break;
		if (atomic_load(&ctx->busy) != 0 ||
		    atomic_load(&ctx->open_handles) != 0)
			continue;
		if (now_seconds() - atomic_load(&ctx->last_active) <
		    (long long)ctx->opt->timeout)
			continue;
		fuse_session_exit(arg->se);
		/* wake the main thread from its wait in the loop */
		pthread_kill(main_thread, SIGUSR1);
		break;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void wake_up(int sig)
{
	(void)sig;
}

int mount_idle_start(mount_ctx_t *ctx, struct fuse_session *se)
{
	struct sigaction sa;
	int ret;

	if (ctx->opt->timeout == 0)
		return 0;
	/* no SA_RESTART: the wait is interrupted, not resumed */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wake_up;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return -1;
	atomic_store(&ctx->last_active, now_seconds());
	main_thread = pthread_self();
	idle_arg.ctx = ctx;
	idle_arg.se = se;
	ret = pthread_create(&idle_thread, NULL, idle_main, &idle_arg);
	if (ret != 0) {
		errno = ret;
		return -1;
	}
	running = true;
	return 0;
}

void mount_idle_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(idle_thread, NULL);
	running = false;
}

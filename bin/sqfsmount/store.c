/* SPDX-License-Identifier: MIT */
/*
 * store.c - a block read at random goes whole into the kernel's page
 * cache.
 *
 * A program reading a big file at random (4 KiB here and there: a
 * database, a VM image, fio) gets requests of its own size: the kernel
 * does not read ahead of random reads. Each request then costs a round
 * trip, and a block of 128 KiB or 1 MiB is decoded for 4 KiB of it, as
 * often as the data cache forgets it. The kernel's squashfs fills every
 * page of a block it decoded; a FUSE daemon can do the same with a store
 * notification (fuse_lowlevel_notify_store) of the block's other pages,
 * so each block is decoded and sent once and later reads never leave the
 * kernel.
 *
 * Deadlock: the kernel stores a page with the page locked, and waits
 * while someone else holds the lock -- a read request in flight for that
 * page, which holds its pages locked until it is answered. So stores are
 * never made by the threads that answer requests (all of them blocked on
 * pages whose reads wait for a thread would never end): one thread of
 * their own does them, from a bounded queue that drops what does not fit
 * (a store only saves time), after the read was answered (its own pages
 * unlocked). While the session runs, the reads it may wait for are
 * answered by the workers. When the loop has ended, no worker answers
 * any more, so mount_store_stop answers requests itself until the store
 * thread is done, and the kernel aborting the connection (unmount)
 * unlocks every page as well.
 *
 * Only random reads are stored around: smaller than the kernel's
 * read-ahead window (a sequential reader's requests grow to it), not at
 * a file's head (a reader starting, or a program sniffing headers) and
 * not where the last read of the file ended (the kernel asks for what
 * follows anyway, and the library's read-ahead has decoded it).
 */
#include "config.h"

#include "sqfsmount.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_SIZE 64u
#define LAST_SLOTS 1024u

/* Where the last read of a node ended, by node (direct-mapped; a wrong
 * guess costs only time): a read that starts there continues a
 * sequential reader, whose next requests the kernel sends anyway. */
static struct {
	atomic_uint_fast64_t node, end;
} last[LAST_SLOTS];

typedef struct {
	fuse_ino_t node;
	/* the library's id of the node */
	uint64_t id;
	/* The blocks around the read, and the read itself (in the page
	 * cache already: not again); [start, hole_from) and [hole_to,
	 * end) are each less than a block. */
	uint64_t start, end;
	uint64_t hole_from, hole_to;
} store_job_t;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	store_job_t queue[QUEUE_SIZE];
	size_t head, used;
	bool stop, running;
	/* The thread is between taking a job and finishing it. */
	atomic_bool busy;
	pthread_t thread;
	mount_ctx_t *ctx;
	struct fuse_session *se;
	uint8_t *buf;
} st = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
};

/* Read [from, to) of the file (at most a block) and store it. */
static void store_range(const store_job_t *job, uint64_t from, uint64_t to)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(0);
	char why[SQFS_ERROR_TEXT_SIZE];
	ptrdiff_t got;

	if (from >= to)
		return;
	got = sqfs_fs_read(st.ctx->fs, job->id, from, st.buf,
			   (size_t)(to - from), why);
	if (got <= 0)
		return;
	bv.buf[0].mem = st.buf;
	bv.buf[0].size = (size_t)got;
	/* a failure (the inode forgotten, the connection gone) only
	 * means the kernel will ask */
	fuse_lowlevel_notify_store(st.se, job->node, (off_t)from, &bv, 0);
}

/* The first block's part before the read, the last one's after it. */
static void run_job(const store_job_t *job)
{
	store_range(job, job->start, job->hole_from);
	store_range(job, job->hole_to, job->end);
}

static void *store_main(void *arg)
{
	store_job_t job;

	(void)arg;
	pthread_mutex_lock(&st.lock);
	for (;;) {
		while (st.used == 0 && !st.stop)
			pthread_cond_wait(&st.cond, &st.lock);
		if (st.stop)
			break;
		job = st.queue[st.head];
		st.head = (st.head + 1) % QUEUE_SIZE;
		st.used--;
		atomic_store(&st.busy, true);
		pthread_mutex_unlock(&st.lock);
		run_job(&job);
		pthread_mutex_lock(&st.lock);
		atomic_store(&st.busy, false);
	}
	pthread_mutex_unlock(&st.lock);
	return NULL;
}

int mount_store_start(mount_ctx_t *ctx, struct fuse_session *se)
{
	size_t bs = sqfs_fs_super(ctx->fs)->block_size;
	int ret;

	/* what is stored at once is less than a block */
	st.buf = malloc(bs);
	if (st.buf == NULL)
		return -1;
	st.ctx = ctx;
	st.se = se;
	st.stop = false;
	st.head = st.used = 0;
	atomic_init(&st.busy, false);
	ret = pthread_create(&st.thread, NULL, store_main, NULL);
	if (ret != 0) {
		free(st.buf);
		st.buf = NULL;
		errno = ret;
		return -1;
	}
	st.running = true;
	return 0;
}

void mount_store_read(mount_ctx_t *ctx, fuse_ino_t node, uint64_t id,
		      uint64_t off, size_t asked, size_t size)
{
	uint64_t bs = sqfs_fs_super(ctx->fs)->block_size;
	store_job_t job;
	size_t i;

	uint32_t slot = (uint32_t)(node * 0x9E3779B97F4A7C15ull >> 54);
	bool goes_on;

	if (!st.running || !ctx->store || size == 0)
		return;
	goes_on =
	    atomic_load_explicit(&last[slot].node, memory_order_relaxed) ==
		node &&
	    atomic_load_explicit(&last[slot].end, memory_order_relaxed) == off;
	atomic_store_explicit(&last[slot].node, node, memory_order_relaxed);
	atomic_store_explicit(&last[slot].end, off + size,
			      memory_order_relaxed);
	/* random: not the kernel's read-ahead window, not a file's head
	 * (a reader starting, or sniffing the head only), not where the
	 * last read ended */
	if (asked >= ctx->read_ahead_bytes || off == 0 || goes_on)
		return;
	job.node = node;
	job.id = id;
	job.hole_from = off;
	job.hole_to = off + size;
	job.start = off / bs * bs;
	job.end = ((off + size - 1) / bs + 1) * bs;
	/* the read is the block(s): nothing else to store */
	if (job.start == job.hole_from && job.end == job.hole_to)
		return;
	pthread_mutex_lock(&st.lock);
	/* a block queued already (several reads in it at once) */
	for (i = 0; i < st.used; ++i) {
		const store_job_t *q = &st.queue[(st.head + i) % QUEUE_SIZE];

		if (q->id == id && q->start == job.start)
			break;
	}
	if (i == st.used && st.used < QUEUE_SIZE && !st.stop) {
		st.queue[(st.head + st.used) % QUEUE_SIZE] = job;
		st.used++;
		pthread_cond_signal(&st.cond);
	}
	pthread_mutex_unlock(&st.lock);
}

/* Answer requests until the store thread is done with its job. */
static void drain(struct fuse_session *se)
{
	struct fuse_buf fbuf;
	struct pollfd p;
	int res;

	memset(&fbuf, 0, sizeof(fbuf));
	/* receive_buf drops what it reads once the session has exited */
	fuse_session_reset(se);
	while (atomic_load(&st.busy)) {
		p.fd = fuse_session_fd(se);
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, 1, 50) <= 0)
			continue;
		res = fuse_session_receive_buf(se, &fbuf);
		if (res == -EINTR || res == -EAGAIN)
			continue;
		/* the connection is gone: so are the page locks */
		if (res <= 0)
			break;
		fuse_session_process_buf(se, &fbuf);
	}
	free(fbuf.mem);
	fuse_session_exit(se);
}

void mount_store_stop(struct fuse_session *se)
{
	if (!st.running)
		return;
	pthread_mutex_lock(&st.lock);
	st.stop = true;
	st.used = 0;
	pthread_cond_signal(&st.cond);
	pthread_mutex_unlock(&st.lock);
	drain(se);
	pthread_join(st.thread, NULL);
	st.running = false;
	free(st.buf);
	st.buf = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * finish.c - finishing unpacked entries (finish.h says why a thread).
 *
 * The thread is one worker of the project's one worker pool
 * (util/workers.h), whose lock guards the counts below. The finisher
 * holds at most FINISH_MAX_FILES descriptors and FINISH_MAX_BYTES bytes of
 * file data; the main thread waits beyond that. The worker is woken only
 * once FINISH_BATCH files are waiting (or at the end), so that a million
 * small files cost thousands of wake-ups, not a million. Jobs are
 * finished in the order they were handed over (one worker takes them
 * from a FIFO); a failure stops the finisher taking more, and the main
 * thread learns of it at its next hand-over. Without threads each job is
 * finished as it is handed over.
 */
#include "config.h"

#include "finish.h"
#include "rdsquashfs.h"
#include "common/print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "util/workers.h"

#define FINISH_MAX_FILES 256
#define FINISH_MAX_BYTES (8u << 20)
#define FINISH_BATCH 32

/* ------------------------------------------------------------ attributes */

/* A copy of count xattrs in one allocation, or NULL. */
static sqfs_xattr_t *copy_xattrs(const sqfs_xattr_t *list, size_t count)
{
	size_t bytes = count * sizeof(list[0]);
	sqfs_xattr_t *out;
	char *p;

	for (size_t i = 0; i < count; ++i)
		bytes += strlen(list[i].key) + 1 + list[i].size;
	out = malloc(bytes);
	if (out == NULL)
		return NULL;
	p = (char *)(out + count);
	for (size_t i = 0; i < count; ++i) {
		size_t klen = strlen(list[i].key) + 1;

		memcpy(p, list[i].key, klen);
		out[i].key = p;
		p += klen;
		if (list[i].size > 0)
			memcpy(p, list[i].value, list[i].size);
		out[i].value = p;
		out[i].size = list[i].size;
		p += list[i].size;
	}
	return out;
}

int rd_attrs_gather(rd_attr_ctx_t *ac, const sqfs_entry_t *e, rd_attrs_t *out)
{
	memset(out, 0, sizeof(*out));
	if ((ac->flags & UNPACK_CHOWN) && !atomic_load(&ac->chown_denied)) {
		out->set_owner = true;
		out->uid = e->uid;
		out->gid = e->gid;
	}
	if ((ac->flags & UNPACK_SET_XATTR) && e->xattr_count > 0) {
		out->xattrs = copy_xattrs(e->xattrs, e->xattr_count);
		if (out->xattrs == NULL) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		out->xattr_count = e->xattr_count;
	}
	/* a symlink has no mode of its own on Linux */
	if ((ac->flags & UNPACK_CHMOD) && (e->mode & S_IFMT) != S_IFLNK) {
		out->set_mode = true;
		out->mode = (mode_t)(e->mode & 07777);
	}
	if (ac->flags & UNPACK_SET_TIMES) {
		out->set_times = true;
		out->mtime = ac->fixed_time ? ac->fixed_mtime : e->mtime;
	}
	return 0;
}

void rd_attrs_drop(rd_attrs_t *a)
{
	free(a->xattrs);
	a->xattrs = NULL;
	a->xattr_count = 0;
}

static void apply_owner(rd_attr_ctx_t *ac, const rd_attrs_t *a, int fd,
			int dirfd, const char *name, const char *path)
{
	int ret;

	if (!a->set_owner || atomic_load(&ac->chown_denied))
		return;
	if (fd >= 0)
		ret = fchown(fd, (uid_t)a->uid, (gid_t)a->gid);
	else
		ret = fchownat(dirfd, name, (uid_t)a->uid, (gid_t)a->gid,
			       AT_SYMLINK_NOFOLLOW);
	if (ret == 0)
		return;
	if (errno == EPERM) {
		/* once: every other entry would say the same */
		if (!atomic_exchange(&ac->chown_denied, true))
			tool_warning(path,
				     "cannot change the owner to %u:%u: %s; "
				     "owners are left as they are",
				     (unsigned int)a->uid, (unsigned int)a->gid,
				     strerror(errno));
	} else {
		tool_warning(path, "cannot change the owner to %u:%u: %s",
			     (unsigned int)a->uid, (unsigned int)a->gid,
			     strerror(errno));
	}
}

static void apply_xattrs(rd_attr_ctx_t *ac, const rd_attrs_t *a, int fd,
			 int dirfd, const char *name, const char *path)
{
	bool moved = false;
	int ret;

	for (size_t i = 0; i < a->xattr_count; ++i) {
		const sqfs_xattr_t *x = &a->xattrs[i];

		if (fd >= 0) {
			ret = fsetxattr(fd, x->key, x->value, x->size, 0);
		} else {
			/* no descriptor for a symlink or a device: the
			 * name alone, in its parent, is the entry itself
			 * (lsetxattr never follows the last component) */
			if (!moved && fchdir(dirfd) != 0) {
				tool_warning(path, "xattrs: %s; not set",
					     strerror(errno));
				break;
			}
			moved = true;
			ret = lsetxattr(name, x->key, x->value, x->size, 0);
		}
		if (ret != 0)
			tool_warning(path, "cannot set xattr %s: %s; skipped",
				     x->key, strerror(errno));
	}
	if (moved && ac->cwd_fd >= 0 && fchdir(ac->cwd_fd) != 0)
		tool_warning(NULL, "cannot return to the working directory: %s",
			     strerror(errno));
}

static void apply_mode(const rd_attrs_t *a, int fd, int dirfd, const char *name,
		       const char *path)
{
	struct stat st;
	int ret;

	if (!a->set_mode)
		return;
	if (fd >= 0) {
		ret = fchmod(fd, a->mode);
	} else {
		ret = fchmodat(dirfd, name, a->mode, AT_SYMLINK_NOFOLLOW);
		/* without the kernel's or /proc's help the C library
		 * cannot chmod without following: check that the name
		 * is no symlink, then follow (there is nothing to) */
		if (ret != 0 && (errno == EOPNOTSUPP || errno == ENOSYS) &&
		    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISLNK(st.st_mode))
			ret = fchmodat(dirfd, name, a->mode, 0);
	}
	if (ret != 0)
		tool_warning(path, "cannot change the mode to 0%o: %s",
			     (unsigned int)a->mode, strerror(errno));
}

static void apply_times(const rd_attrs_t *a, int fd, int dirfd,
			const char *name, const char *path)
{
	struct timespec ts[2];
	int ret;

	if (!a->set_times)
		return;
	ts[0].tv_sec = ts[1].tv_sec = (time_t)a->mtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (fd >= 0)
		ret = futimens(fd, ts);
	else
		ret = utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
	if (ret != 0)
		tool_warning(path, "cannot set the times: %s", strerror(errno));
}

void rd_attrs_apply(rd_attr_ctx_t *ac, rd_attrs_t *a, int fd, int dirfd,
		    const char *name, const char *path)
{
	apply_owner(ac, a, fd, dirfd, name, path);
	apply_xattrs(ac, a, fd, dirfd, name, path);
	apply_mode(a, fd, dirfd, name, path);
	apply_times(a, fd, dirfd, name, path);
	rd_attrs_drop(a);
}

/* ------------------------------------------------------------ one file */

/* Write, truncate, finish and close one file: 0, or -1 after saying why. */
static int finish_file(rd_attr_ctx_t *ac, rd_finish_job_t *job)
{
	const uint8_t *p = job->data;
	size_t left = job->size;
	off_t off = 0;
	int ret = 0;

	while (left > 0) {
		ssize_t n = pwrite(job->fd, p, left, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail_write;
		}
		p += n;
		left -= (size_t)n;
		off += n;
	}
	if (job->truncate && ftruncate(job->fd, (off_t)job->file_size) != 0)
		goto fail_write;
	rd_attrs_apply(ac, &job->attrs, job->fd, -1, NULL, job->path);
	if (close(job->fd) != 0) {
		job->fd = -1;
		goto fail_write;
	}
	goto out;
fail_write:
	tool_error(job->path, "cannot write: %s", strerror(errno));
	if (job->fd >= 0)
		close(job->fd);
	rd_attrs_drop(&job->attrs);
	ret = -1;
out:
	free(job->data);
	free(job->path);
	return ret;
}

/* A job that is not finished: close and free without a word. */
static void release_job(rd_finish_job_t *job)
{
	if (job->fd >= 0)
		close(job->fd);
	rd_attrs_drop(&job->attrs);
	free(job->data);
	free(job->path);
}

/* ------------------------------------------------------------ finisher */

/* A job in the ring: the pool's link first. */
typedef struct {
	util_job_t link;
	rd_finish_job_t job;
	bool failed;
} slot_t;

struct rd_finisher {
	rd_attr_ctx_t *ac;
	util_workers_t *pool;
	/* under the pool's lock (with threads): a job failed; files and
	 * bytes handed over and not finished yet */
	bool failed;
	size_t count;
	size_t bytes;
	/* the ring: jobs are taken and finished in order */
	slot_t ring[FINISH_MAX_FILES];
	size_t next;
	/* handed over since the worker was last woken */
	size_t batch;
};

static void run_job(void *state, util_job_t *job)
{
	rd_finisher_t *f = state;
	slot_t *s = (slot_t *)(void *)job;
	bool failed;

	util_workers_lock(f->pool);
	failed = f->failed;
	util_workers_unlock(f->pool);
	/* after a failure the rest is only released: the main thread stops
	 * at its next hand-over */
	s->failed = false;
	if (failed)
		release_job(&s->job);
	else if (finish_file(f->ac, &s->job) != 0)
		s->failed = true;
}

static bool job_done(void *user, util_job_t *job)
{
	rd_finisher_t *f = user;
	slot_t *s = (slot_t *)(void *)job;

	if (s->failed)
		f->failed = true;
	f->count -= 1;
	f->bytes -= s->job.size;
	return true;
}

static int make_state(void *user, void **state)
{
	*state = user;
	return 0;
}

int rd_finisher_create(rd_attr_ctx_t *ac, bool threaded, rd_finisher_t **out)
{
	util_workers_desc_t desc = {0};
	rd_finisher_t *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (f == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	f->ac = ac;
	desc.run = run_job;
	desc.done = job_done;
	desc.make_state = make_state;
	desc.user = f;
	/* no thread (or none to be had): each job is finished at once */
	if (util_workers_create(&desc, threaded ? 1 : 0, &f->pool, NULL) != 0) {
		free(f);
		tool_error(NULL, "out of memory");
		return -1;
	}
	*out = f;
	return 0;
}

/* Without a thread: the job queued last, finished here. */
static int finish_here(rd_finisher_t *f)
{
	util_job_t *job = util_workers_pop(f->pool);

	if (job == NULL)
		return 0;
	run_job(f, job);
	job_done(f, job);
	return f->failed ? -1 : 0;
}

int rd_finisher_submit(rd_finisher_t *f, rd_finish_job_t *job)
{
	bool threaded = util_workers_count(f->pool) > 0;
	slot_t *s;

	util_workers_lock(f->pool);
	/* a job bigger than the budget on its own still gets in, alone */
	while (threaded && !f->failed &&
	       (f->count == FINISH_MAX_FILES ||
		(f->count > 0 && f->bytes + job->size > FINISH_MAX_BYTES))) {
		util_workers_kick(f->pool);
		f->batch = 0;
		util_workers_wait(f->pool);
	}
	if (f->failed) {
		util_workers_unlock(f->pool);
		release_job(job);
		return -1;
	}
	s = &f->ring[f->next];
	f->next = (f->next + 1) % FINISH_MAX_FILES;
	s->job = *job;
	f->count += 1;
	f->bytes += job->size;
	util_workers_push_locked(f->pool, &s->link);
	if (++f->batch >= FINISH_BATCH || f->bytes >= FINISH_MAX_BYTES / 2) {
		util_workers_kick(f->pool);
		f->batch = 0;
	}
	util_workers_unlock(f->pool);
	return threaded ? 0 : finish_here(f);
}

int rd_finisher_destroy(rd_finisher_t *f)
{
	bool failed;

	if (f == NULL)
		return 0;
	/* every job handed over is finished (or released) before the
	 * pool goes: the pool drops what is still queued */
	util_workers_lock(f->pool);
	while (util_workers_count(f->pool) > 0 && f->count > 0) {
		util_workers_kick(f->pool);
		util_workers_wait(f->pool);
	}
	util_workers_unlock(f->pool);
	util_workers_destroy(f->pool);
	failed = f->failed;
	free(f);
	return failed ? -1 : 0;
}

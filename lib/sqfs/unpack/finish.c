/* SPDX-License-Identifier: MIT */
/*
 * finish.c - finishing unpacked entries (internal.h says why a thread).
 *
 * The thread is one worker of the project's one worker pool
 * (util/workers.h), whose lock guards the counts below and the warnings
 * waiting for the calling thread. The finisher holds at most
 * FINISH_MAX_FILES descriptors and FINISH_MAX_BYTES bytes of file data;
 * the calling thread waits beyond that. The worker is woken only once
 * FINISH_BATCH files are waiting (or at the end), so that a million small
 * files cost thousands of wake-ups, not a million. Jobs are finished in
 * the order they were handed over (one worker takes them from a FIFO); a
 * failure stops the finisher taking more, and the calling thread learns
 * of it at its next hand-over. Without threads each job is finished as it
 * is handed over.
 */
#include "config.h"

#include "internal.h"
#include "sqfs/unpack.h"
#include "util/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define FINISH_MAX_FILES 256
#define FINISH_MAX_BYTES (8u << 20)
#define FINISH_BATCH 32

void unpack_warnf(const unpack_warn_t *w, const char *fmt, ...)
{
	char words[SQFS_ERROR_TEXT_SIZE];
	va_list ap;

	if (w == NULL || w->fn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(words, sizeof(words), fmt, ap);
	va_end(ap);
	w->fn(w->user, words);
}

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

int unpack_attrs_gather(unpack_attr_ctx_t *ac, const sqfs_entry_t *e,
			unpack_attrs_t *out)
{
	memset(out, 0, sizeof(*out));
	if ((ac->flags & SQFS_UNPACK_CHOWN) &&
	    !atomic_load(&ac->chown_denied)) {
		out->set_owner = true;
		out->uid = e->uid;
		out->gid = e->gid;
	}
	if ((ac->flags & SQFS_UNPACK_SET_XATTRS) && e->xattr_count > 0) {
		out->xattrs = copy_xattrs(e->xattrs, e->xattr_count);
		if (out->xattrs == NULL)
			return SQFS_ERROR_ALLOC;
		out->xattr_count = e->xattr_count;
	}
	/* a symlink has no mode of its own on Linux */
	if ((ac->flags & SQFS_UNPACK_CHMOD) && (e->mode & S_IFMT) != S_IFLNK) {
		out->set_mode = true;
		out->mode = (mode_t)(e->mode & 07777);
	}
	if (ac->flags & SQFS_UNPACK_SET_TIMES) {
		out->set_times = true;
		out->mtime = (ac->flags & SQFS_UNPACK_FIXED_TIME)
				 ? ac->fixed_mtime
				 : e->mtime;
	}
	return 0;
}

void unpack_attrs_drop(unpack_attrs_t *a)
{
	free(a->xattrs);
	a->xattrs = NULL;
	a->xattr_count = 0;
}

static void apply_owner(unpack_attr_ctx_t *ac, const unpack_attrs_t *a, int fd,
			int dirfd, const char *name, const char *path,
			const unpack_warn_t *w)
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
			unpack_warnf(w,
				     "%s: cannot change the owner to %u:%u: "
				     "%s; owners are left as they are",
				     path, (unsigned int)a->uid,
				     (unsigned int)a->gid, strerror(errno));
	} else {
		unpack_warnf(w, "%s: cannot change the owner to %u:%u: %s",
			     path, (unsigned int)a->uid, (unsigned int)a->gid,
			     strerror(errno));
	}
}

/*
 * Without a descriptor for I/O (a symlink, a device, a FIFO, a socket),
 * the object itself is opened with O_PATH and O_NOFOLLOW, and its xattrs
 * set through the /proc/self/fd magic link of that descriptor: the kernel
 * resolves it to the very object, and goes no further (a symlink reached
 * so is not followed). Neither a name in another directory nor the
 * process's working directory is ever involved.
 */
static void apply_xattrs(const unpack_attrs_t *a, int fd, int dirfd,
			 const char *name, const char *path,
			 const unpack_warn_t *w)
{
	char where[64];
	int pfd = -1, ret;

	if (a->xattr_count == 0)
		return;
	if (fd < 0) {
		pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0) {
			unpack_warnf(w, "%s: xattrs: %s; not set", path,
				     strerror(errno));
			return;
		}
		snprintf(where, sizeof(where), "/proc/self/fd/%d", pfd);
	}
	for (size_t i = 0; i < a->xattr_count; ++i) {
		const sqfs_xattr_t *x = &a->xattrs[i];

		if (fd >= 0)
			ret = fsetxattr(fd, x->key, x->value, x->size, 0);
		else
			ret = setxattr(where, x->key, x->value, x->size, 0);
		if (ret != 0)
			unpack_warnf(w, "%s: cannot set xattr %s: %s; skipped",
				     path, x->key, strerror(errno));
	}
	if (pfd >= 0)
		close(pfd);
}

static void apply_mode(const unpack_attrs_t *a, int fd, int dirfd,
		       const char *name, const char *path,
		       const unpack_warn_t *w)
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
		unpack_warnf(w, "%s: cannot change the mode to 0%o: %s", path,
			     (unsigned int)a->mode, strerror(errno));
}

static void apply_times(const unpack_attrs_t *a, int fd, int dirfd,
			const char *name, const char *path,
			const unpack_warn_t *w)
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
		unpack_warnf(w, "%s: cannot set the times: %s", path,
			     strerror(errno));
}

void unpack_attrs_apply(unpack_attr_ctx_t *ac, unpack_attrs_t *a, int fd,
			int dirfd, const char *name, const char *path,
			const unpack_warn_t *w)
{
	apply_owner(ac, a, fd, dirfd, name, path, w);
	apply_xattrs(a, fd, dirfd, name, path, w);
	apply_mode(a, fd, dirfd, name, path, w);
	apply_times(a, fd, dirfd, name, path, w);
	unpack_attrs_drop(a);
}

/* ------------------------------------------------------------ finisher */

/* A job in the ring: the pool's link first. */
typedef struct {
	util_job_t link;
	unpack_job_t job;
	bool failed;
} slot_t;

struct unpack_finisher {
	unpack_attr_ctx_t *ac;
	util_workers_t *pool;
	/* the program's warnings, told from the calling thread */
	unpack_warn_t to_program;
	/* the finisher's: into the list below */
	unpack_warn_t to_list;
	/* under the pool's lock (with threads): a job failed (its code and
	 * words); files and bytes handed over and not finished yet;
	 * warnings not told yet */
	int failed;
	char error[SQFS_ERROR_TEXT_SIZE];
	size_t count;
	size_t bytes;
	char **warnings;
	size_t warn_count;
	size_t warn_cap;
	/* the ring: jobs are taken and finished in order */
	slot_t ring[FINISH_MAX_FILES];
	size_t next;
	/* handed over since the worker was last woken */
	size_t batch;
};

/* A warning of the finisher's thread, kept for the calling thread (one
 * that cannot be kept for want of memory is lost: it is a warning). */
static void keep_warning(void *user, const char *words)
{
	unpack_finisher_t *f = user;
	char *copy = strdup(words);

	if (copy == NULL)
		return;
	util_workers_lock(f->pool);
	if (f->warn_count == f->warn_cap) {
		size_t cap = f->warn_cap ? 2 * f->warn_cap : 16;
		char **n = realloc(f->warnings, cap * sizeof(n[0]));

		if (n == NULL) {
			util_workers_unlock(f->pool);
			free(copy);
			return;
		}
		f->warnings = n;
		f->warn_cap = cap;
	}
	f->warnings[f->warn_count++] = copy;
	util_workers_unlock(f->pool);
}

/* Tell the program the warnings kept so far, on the calling thread, in
 * the order they were made. */
static void tell_warnings(unpack_finisher_t *f)
{
	char **list;
	size_t count;

	util_workers_lock(f->pool);
	list = f->warnings;
	count = f->warn_count;
	f->warnings = NULL;
	f->warn_count = f->warn_cap = 0;
	util_workers_unlock(f->pool);
	for (size_t i = 0; i < count; ++i) {
		if (f->to_program.fn != NULL)
			f->to_program.fn(f->to_program.user, list[i]);
		free(list[i]);
	}
	free(list);
}

/* Write, truncate, finish and close one file: 0, or an error with words
 * in why. */
static int finish_file(unpack_finisher_t *f, unpack_job_t *job, char *why)
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
	unpack_attrs_apply(f->ac, &job->attrs, job->fd, -1, NULL, job->path,
			   &f->to_list);
	if (close(job->fd) != 0) {
		job->fd = -1;
		goto fail_write;
	}
	goto out;
fail_write:
	snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s: cannot write: %s", job->path,
		 strerror(errno));
	if (job->fd >= 0)
		close(job->fd);
	unpack_attrs_drop(&job->attrs);
	ret = SQFS_ERROR_IO;
out:
	free(job->data);
	free(job->path);
	return ret;
}

/* A job that is not finished: close and free without a word. */
static void release_job(unpack_job_t *job)
{
	if (job->fd >= 0)
		close(job->fd);
	unpack_attrs_drop(&job->attrs);
	free(job->data);
	free(job->path);
}

static void run_job(void *state, util_job_t *job)
{
	unpack_finisher_t *f = state;
	slot_t *s = (slot_t *)(void *)job;
	char why[SQFS_ERROR_TEXT_SIZE];
	int failed, ret;

	util_workers_lock(f->pool);
	failed = f->failed;
	util_workers_unlock(f->pool);
	/* after a failure the rest is only released: the calling thread
	 * stops at its next hand-over */
	s->failed = false;
	if (failed != 0) {
		release_job(&s->job);
		return;
	}
	ret = finish_file(f, &s->job, why);
	if (ret != 0) {
		s->failed = true;
		util_workers_lock(f->pool);
		if (f->failed == 0) {
			f->failed = ret;
			memcpy(f->error, why, sizeof(f->error));
		}
		util_workers_unlock(f->pool);
	}
}

static bool job_done(void *user, util_job_t *job)
{
	unpack_finisher_t *f = user;
	slot_t *s = (slot_t *)(void *)job;

	f->count -= 1;
	f->bytes -= s->job.size;
	return true;
}

static int make_state(void *user, void **state)
{
	*state = user;
	return 0;
}

int unpack_finisher_create(unpack_attr_ctx_t *ac, bool threaded,
			   const unpack_warn_t *w, unpack_finisher_t **out)
{
	util_workers_desc_t desc = {0};
	unpack_finisher_t *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (f == NULL)
		return SQFS_ERROR_ALLOC;
	f->ac = ac;
	f->to_program = *w;
	f->to_list.fn = keep_warning;
	f->to_list.user = f;
	desc.run = run_job;
	desc.done = job_done;
	desc.make_state = make_state;
	desc.user = f;
	/* no thread (or none to be had): each job is finished at once */
	if (util_workers_create(&desc, threaded ? 1 : 0, &f->pool, NULL) != 0) {
		free(f);
		return SQFS_ERROR_ALLOC;
	}
	*out = f;
	return 0;
}

/* The failure kept, with its words, if there is one. Under the lock. */
static int failure(const unpack_finisher_t *f, char *why)
{
	if (f->failed != 0 && why != NULL)
		memcpy(why, f->error, sizeof(f->error));
	return f->failed;
}

/* Without a thread: the job queued last, finished here. */
static int finish_here(unpack_finisher_t *f, char *why)
{
	util_job_t *job = util_workers_pop(f->pool);

	if (job != NULL) {
		run_job(f, job);
		job_done(f, job);
	}
	tell_warnings(f);
	return failure(f, why);
}

int unpack_finisher_submit(unpack_finisher_t *f, unpack_job_t *job, char *why)
{
	bool threaded = util_workers_count(f->pool) > 0;
	int ret;
	slot_t *s;

	if (threaded)
		tell_warnings(f);
	util_workers_lock(f->pool);
	/* a job bigger than the budget on its own still gets in, alone */
	while (threaded && f->failed == 0 &&
	       (f->count == FINISH_MAX_FILES ||
		(f->count > 0 && f->bytes + job->size > FINISH_MAX_BYTES))) {
		util_workers_kick(f->pool);
		f->batch = 0;
		util_workers_wait(f->pool);
	}
	if (f->failed != 0) {
		ret = failure(f, why);
		util_workers_unlock(f->pool);
		release_job(job);
		return ret;
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
	return threaded ? 0 : finish_here(f, why);
}

int unpack_finisher_destroy(unpack_finisher_t *f, char *why)
{
	int ret;

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
	tell_warnings(f);
	ret = failure(f, why);
	util_workers_destroy(f->pool);
	free(f);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * finish.c - finishing unpacked entries (finish.h says why a thread).
 *
 * The finisher holds at most FINISH_MAX_FILES descriptors and
 * FINISH_MAX_BYTES bytes of file data; the main thread waits beyond
 * that. It is woken only once FINISH_BATCH files are waiting (or at the
 * end), so that a million small files cost thousands of wake-ups, not a
 * million. Jobs are finished in the order they were handed over; a
 * failure stops the finisher taking more, and the main thread learns of
 * it at its next hand-over.
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

#ifdef WITH_PTHREAD
#include <pthread.h>
#endif

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
		out->mtime = e->mtime;
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

struct rd_finisher {
	rd_attr_ctx_t *ac;
	bool failed;
	/* a thread of its own; else each job is finished as it comes */
	bool threaded;
#ifdef WITH_PTHREAD
	pthread_t thread;
	pthread_mutex_t lock;
	/* the finisher waits here for FINISH_BATCH jobs or the end */
	pthread_cond_t have_work;
	/* the main thread waits here for room */
	pthread_cond_t have_room;
	rd_finish_job_t ring[FINISH_MAX_FILES];
	size_t first;
	size_t count;
	size_t bytes;
	bool idle;
	bool main_waits;
	bool done;
#endif
};

#ifdef WITH_PTHREAD
static void *finisher_main(void *arg)
{
	rd_finisher_t *f = arg;
	rd_finish_job_t job;
	bool failed = false;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (f->count == 0 && !f->done) {
			f->idle = true;
			pthread_cond_wait(&f->have_work, &f->lock);
		}
		f->idle = false;
		if (f->count == 0)
			break;
		job = f->ring[f->first];
		pthread_mutex_unlock(&f->lock);

		/* after a failure the rest is only released: the main
		 * thread stops at its next hand-over */
		if (failed)
			release_job(&job);
		else if (finish_file(f->ac, &job) != 0)
			failed = true;

		pthread_mutex_lock(&f->lock);
		f->first = (f->first + 1) % FINISH_MAX_FILES;
		f->count--;
		f->bytes -= job.size;
		f->failed = failed;
		if (f->main_waits)
			pthread_cond_signal(&f->have_room);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}
#endif

int rd_finisher_create(rd_attr_ctx_t *ac, bool threaded, rd_finisher_t **out)
{
	rd_finisher_t *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (f == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	f->ac = ac;
#ifdef WITH_PTHREAD
	if (!threaded)
		goto out;
	if (pthread_mutex_init(&f->lock, NULL) != 0)
		goto fail_free;
	if (pthread_cond_init(&f->have_work, NULL) != 0)
		goto fail_lock;
	if (pthread_cond_init(&f->have_room, NULL) != 0)
		goto fail_work;
	if (pthread_create(&f->thread, NULL, finisher_main, f) != 0)
		goto fail_room;
	f->threaded = true;
out:
#else
	(void)threaded;
#endif
	*out = f;
	return 0;
#ifdef WITH_PTHREAD
fail_room:
	pthread_cond_destroy(&f->have_room);
fail_work:
	pthread_cond_destroy(&f->have_work);
fail_lock:
	pthread_mutex_destroy(&f->lock);
fail_free:
	free(f);
	tool_error(NULL, "cannot start the finisher thread");
	return -1;
#endif
}

int rd_finisher_submit(rd_finisher_t *f, rd_finish_job_t *job)
{
	if (!f->threaded) {
		if (f->failed) {
			release_job(job);
			return -1;
		}
		if (finish_file(f->ac, job) != 0) {
			f->failed = true;
			return -1;
		}
		return 0;
	}
#ifdef WITH_PTHREAD
	pthread_mutex_lock(&f->lock);
	/* a job bigger than the budget on its own still gets in, alone */
	while (!f->failed &&
	       (f->count == FINISH_MAX_FILES ||
		(f->count > 0 && f->bytes + job->size > FINISH_MAX_BYTES))) {
		f->main_waits = true;
		if (f->idle)
			pthread_cond_signal(&f->have_work);
		pthread_cond_wait(&f->have_room, &f->lock);
	}
	f->main_waits = false;
	if (f->failed) {
		pthread_mutex_unlock(&f->lock);
		release_job(job);
		return -1;
	}
	f->ring[(f->first + f->count) % FINISH_MAX_FILES] = *job;
	f->count++;
	f->bytes += job->size;
	if (f->idle &&
	    (f->count >= FINISH_BATCH || f->bytes >= FINISH_MAX_BYTES / 2))
		pthread_cond_signal(&f->have_work);
	pthread_mutex_unlock(&f->lock);
#endif
	return 0;
}

int rd_finisher_destroy(rd_finisher_t *f)
{
	bool failed;

	if (f == NULL)
		return 0;
#ifdef WITH_PTHREAD
	if (!f->threaded)
		goto out;
	pthread_mutex_lock(&f->lock);
	f->done = true;
	pthread_cond_signal(&f->have_work);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_cond_destroy(&f->have_room);
	pthread_cond_destroy(&f->have_work);
	pthread_mutex_destroy(&f->lock);
out:
#endif
	failed = f->failed;
	free(f);
	return failed ? -1 : 0;
}

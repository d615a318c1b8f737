/* SPDX-License-Identifier: MIT */
/*
 * spill.c - anonymous temporary files (see spill.h).
 */
#include "config.h"

#include "util/spill.h"
#include "sqfs/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIN_BUFFER 4096u

struct spill_file {
	int fd;
	/* Bytes on disk, and bytes in the buffer after them. */
	uint64_t flushed;
	size_t fill;
	size_t capacity;
	uint8_t *buffer;
	/* The first failure, kept: code and words. */
	int failed;
	char why[SPILL_WHY_SIZE];
};

const char *spill_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return (dir != NULL && dir[0] != '\0') ? dir : "/tmp";
}

static int fail_words(char *why, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_words(char *why, int code, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL) {
		va_start(ap, fmt);
		vsnprintf(why, SPILL_WHY_SIZE, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Keep the first failure; every later call repeats it. */
static int fail(spill_file_t *f, int err, const char *what)
{
	if (f->failed == 0) {
		f->failed = SQFS_ERROR_IO;
		fail_words(f->why, SQFS_ERROR_IO,
			   "temporary file in %s: %s%s%s", spill_dir(), what,
			   err != 0 ? ": " : "", err != 0 ? strerror(err) : "");
	}
	return f->failed;
}

static int open_anonymous(const char *dir, int *out_errno)
{
	int fd;
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* not every file system has O_TMPFILE: fall back below; any other
	 * error (no such directory, no room, no permission) is final */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		*out_errno = errno;
		return -1;
	}
#endif
	{
		size_t len = strlen(dir) + sizeof("/squashforge-XXXXXX");
		char *name = malloc(len);

		if (name == NULL) {
			*out_errno = ENOMEM;
			return -1;
		}
		snprintf(name, len, "%s/squashforge-XXXXXX", dir);
		fd = mkstemp(name);
		if (fd < 0) {
			*out_errno = errno;
		} else {
			/* no name from here on */
			unlink(name);
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		}
		free(name);
	}
	return fd;
}

int spill_file_create(size_t buffer_size, spill_file_t **out, char *why)
{
	spill_file_t *f;

	*out = NULL;
	if (why != NULL)
		why[0] = '\0';
	if (buffer_size < MIN_BUFFER)
		buffer_size = MIN_BUFFER;

	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return fail_words(why, SQFS_ERROR_ALLOC,
				  "no memory for a temporary file");
	f->buffer = malloc(buffer_size);
	if (f->buffer == NULL) {
		free(f);
		return fail_words(why, SQFS_ERROR_ALLOC,
				  "no memory for a temporary file's buffer");
	}
	f->capacity = buffer_size;
	/* made when the buffer first overflows: what fits in it never
	 * needs $TMPDIR */
	f->fd = -1;
	*out = f;
	return 0;
}

/* The file itself, made on first need. */
static int open_file(spill_file_t *f)
{
	int err = 0;

	if (f->fd >= 0)
		return 0;
	f->fd = open_anonymous(spill_dir(), &err);
	if (f->fd < 0) {
		if (f->failed == 0) {
			f->failed = SQFS_ERROR_IO;
			fail_words(f->why, SQFS_ERROR_IO,
				   "cannot make a temporary file in %s: %s",
				   spill_dir(), strerror(err));
		}
		return f->failed;
	}
	return 0;
}

void spill_file_destroy(spill_file_t *f)
{
	if (f == NULL)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->buffer);
	free(f);
}

static int write_all(spill_file_t *f, const uint8_t *data, size_t size)
{
	int err = open_file(f);

	if (err != 0)
		return err;
	while (size > 0) {
		ssize_t ret = pwrite(f->fd, data, size, (off_t)f->flushed);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return fail(f, errno, "write failed");
		}
		if (ret == 0)
			return fail(f, ENOSPC, "write failed");
		data += ret;
		size -= (size_t)ret;
		f->flushed += (uint64_t)ret;
	}
	return 0;
}

static int flush(spill_file_t *f)
{
	int ret;

	if (f->fill == 0)
		return 0;
	ret = write_all(f, f->buffer, f->fill);
	/* on failure the file is unusable anyway (the failure is kept) */
	f->fill = 0;
	return ret;
}

int spill_file_append(spill_file_t *f, const void *data, size_t size)
{
	const uint8_t *src = data;

	if (f->failed != 0)
		return f->failed;
	if (size >= f->capacity) {
		int ret = flush(f);

		return ret != 0 ? ret : write_all(f, src, size);
	}
	if (size > f->capacity - f->fill) {
		int ret = flush(f);

		if (ret != 0)
			return ret;
	}
	memcpy(f->buffer + f->fill, src, size);
	f->fill += size;
	return 0;
}

uint64_t spill_file_size(const spill_file_t *f)
{
	return f->flushed + f->fill;
}

int spill_file_read_at(spill_file_t *f, uint64_t offset, void *data,
		       size_t size)
{
	uint8_t *dst = data;

	if (f->failed != 0)
		return f->failed;
	if (offset > spill_file_size(f) || size > spill_file_size(f) - offset)
		return SQFS_ERROR_OUT_OF_BOUNDS;

	/* the part on disk */
	while (size > 0 && offset < f->flushed) {
		size_t n = size;
		ssize_t ret;

		if ((uint64_t)n > f->flushed - offset)
			n = (size_t)(f->flushed - offset);
		ret = pread(f->fd, dst, n, (off_t)offset);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return fail(f, errno, "read failed");
		}
		if (ret == 0)
			return fail(f, 0, "read past its end (truncated?)");
		dst += ret;
		offset += (uint64_t)ret;
		size -= (size_t)ret;
	}
	/* the part still in the buffer */
	if (size > 0)
		memcpy(dst, f->buffer + (offset - f->flushed), size);
	return 0;
}

void spill_file_discard(spill_file_t *f, uint64_t offset, uint64_t size)
{
#if defined(FALLOC_FL_PUNCH_HOLE) && defined(FALLOC_FL_KEEP_SIZE)
	/* only what is on disk; the buffer is the file's tail, kept */
	if (f->failed != 0 || f->fd < 0 || offset >= f->flushed)
		return;
	if (size > f->flushed - offset)
		size = f->flushed - offset;
	(void)fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			(off_t)offset, (off_t)size);
#else
	(void)f;
	(void)offset;
	(void)size;
#endif
}

int spill_file_reset(spill_file_t *f)
{
	if (f->failed != 0)
		return f->failed;
	f->fill = 0;
	if (f->fd >= 0 && ftruncate(f->fd, 0) != 0)
		return fail(f, errno, "truncate failed");
	f->flushed = 0;
	return 0;
}

const char *spill_file_error(const spill_file_t *f)
{
	return f->why;
}

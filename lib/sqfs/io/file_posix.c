/* SPDX-License-Identifier: MIT */
/*
 * file_posix.c - an sqfs_file_t on a POSIX file descriptor, using
 * pread/pwrite so that no shared file offset is involved.
 *
 * sync is fsync; close reports what close(2) reports, destroy drops it.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	sqfs_file_t base;
	int fd;
	uint64_t size;
	bool read_only;
} posix_file_t;

static int posix_close(sqfs_file_t *base)
{
	posix_file_t *file = (posix_file_t *)base;
	int ret = 0, saved;

	/*
	 * Not retried on EINTR: Linux releases the descriptor before it can
	 * fail, so a second close could hit one another thread just opened.
	 * Any failure, EINTR included, leaves the contents in doubt (NFS
	 * writes back on close) and is reported.
	 */
	if (close(file->fd) != 0)
		ret = SQFS_ERROR_IO;
	saved = errno;
	free(file);
	errno = saved;
	return ret;
}

static void posix_destroy(sqfs_file_t *base)
{
	int saved = errno;

	/* nothing to tell: errno stays what it was for the caller's report */
	(void)posix_close(base);
	errno = saved;
}

static int posix_sync(sqfs_file_t *base)
{
	posix_file_t *file = (posix_file_t *)base;

	while (fsync(file->fd) != 0) {
		if (errno == EINTR)
			continue;
		return SQFS_ERROR_IO;
	}
	return 0;
}

static int posix_read_at(sqfs_file_t *base, uint64_t offset, void *buffer,
			 size_t size)
{
	posix_file_t *file = (posix_file_t *)base;
	uint8_t *dst = buffer;

	if (offset > file->size || size > file->size - offset)
		return SQFS_ERROR_OUT_OF_BOUNDS;

	while (size > 0) {
		ssize_t ret = pread(file->fd, dst, size, (off_t)offset);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return SQFS_ERROR_IO;
		}
		if (ret == 0) {
			/* the file shrank under us */
			return SQFS_ERROR_TRUNCATED;
		}
		dst += ret;
		size -= (size_t)ret;
		offset += (uint64_t)ret;
	}
	return 0;
}

static int posix_write_at(sqfs_file_t *base, uint64_t offset,
			  const void *buffer, size_t size)
{
	posix_file_t *file = (posix_file_t *)base;
	const uint8_t *src = buffer;

	if (file->read_only)
		return SQFS_ERROR_UNSUPPORTED;
	if (offset > (uint64_t)INT64_MAX - size)
		return SQFS_ERROR_OVERFLOW;

	while (size > 0) {
		ssize_t ret = pwrite(file->fd, src, size, (off_t)offset);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return SQFS_ERROR_IO;
		}
		if (ret == 0) {
			errno = ENOSPC;
			return SQFS_ERROR_IO;
		}
		src += ret;
		size -= (size_t)ret;
		offset += (uint64_t)ret;
		if (offset > file->size)
			file->size = offset;
	}
	return 0;
}

static uint64_t posix_get_size(const sqfs_file_t *base)
{
	return ((const posix_file_t *)base)->size;
}

static int posix_truncate(sqfs_file_t *base, uint64_t size)
{
	posix_file_t *file = (posix_file_t *)base;

	if (file->read_only)
		return SQFS_ERROR_UNSUPPORTED;
	if (size > (uint64_t)INT64_MAX)
		return SQFS_ERROR_OVERFLOW;
	if (ftruncate(file->fd, (off_t)size) != 0)
		return SQFS_ERROR_IO;
	file->size = size;
	return 0;
}

int sqfs_file_open(sqfs_file_t **out, const char *path, unsigned int flags)
{
	posix_file_t *file;
	struct stat sb;
	int fd, oflags, saved;

	if (flags & ~(unsigned int)(SQFS_FILE_OPEN_READ_ONLY |
				    SQFS_FILE_OPEN_OVERWRITE)) {
		errno = EINVAL;
		return SQFS_ERROR_ARG_INVALID;
	}

	if (flags & SQFS_FILE_OPEN_READ_ONLY) {
		oflags = O_RDONLY;
	} else {
		/* read-write: writers read blocks back to verify duplicates */
		oflags = O_RDWR | O_CREAT;
		oflags |= (flags & SQFS_FILE_OPEN_OVERWRITE) ? O_TRUNC : O_EXCL;
	}

	fd = open(path, oflags | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? SQFS_ERROR_EXISTS : SQFS_ERROR_IO;

	if (fstat(fd, &sb) != 0)
		goto fail;

	file = calloc(1, sizeof(*file));
	if (file == NULL) {
		close(fd);
		errno = ENOMEM;
		return SQFS_ERROR_ALLOC;
	}

	file->base.destroy = posix_destroy;
	file->base.read_at = posix_read_at;
	file->base.write_at = posix_write_at;
	file->base.get_size = posix_get_size;
	file->base.truncate = posix_truncate;
	file->base.sync = posix_sync;
	file->base.close = posix_close;
	file->fd = fd;
	file->size = S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode)
			 ? (uint64_t)sb.st_size
			 : 0;
	file->read_only = (flags & SQFS_FILE_OPEN_READ_ONLY) != 0;

	if (S_ISBLK(sb.st_mode)) {
		off_t end = lseek(fd, 0, SEEK_END);

		if (end < 0) {
			free(file);
			goto fail;
		}
		file->size = (uint64_t)end;
	}

	*out = &file->base;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return SQFS_ERROR_IO;
}

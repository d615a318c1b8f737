/* SPDX-License-Identifier: MIT */
/*
 * fs_xattrs.c - reading an entry's extended attributes from disk.
 *
 * There is no llistxattrat: an object that cannot be opened for reading
 * (a symlink, a device, a FIFO, a socket) is opened with O_PATH and
 * O_NOFOLLOW, which gives a descriptor of the object itself (a symlink's
 * own, not its target's) without opening it for I/O, checked to be the
 * one the walk saw, and named as /proc/self/fd/N. The kernel resolves
 * that magic link to the very object open at N, whatever became of its
 * name since, and goes no further (a symlink reached so is not followed),
 * so the calls that follow a path read the object checked. Checking the
 * name before and after reading by it would not do: the name swapped for
 * a hard link to another object and back in between (A-B-A) would pass
 * both checks with the other object's xattrs read.
 *
 * Sizes are asked first and the buffers sized to fit: a list or a value
 * that grows in between is read again (ERANGE).
 */
#include "config.h"

#include "util/fs_xattrs.h"
#include "sqfs/error.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* How to list and get: through a descriptor, or the magic link of one;
 * and where to tell of keys left out and put the words of a failure. */
typedef struct {
	int fd;
	const char *where;
	fs_xattrs_skip_t skip;
	void *user;
	char *why;
} target_t;

/* where is the magic link of an O_PATH descriptor: followed, it is the
 * object open there, never further */
static ssize_t do_list(const target_t *t, char *buf, size_t size)
{
	return t->where != NULL ? listxattr(t->where, buf, size)
				: flistxattr(t->fd, buf, size);
}

static ssize_t do_get(const target_t *t, const char *key, void *buf,
		      size_t size)
{
	return t->where != NULL ? getxattr(t->where, key, buf, size)
				: fgetxattr(t->fd, key, buf, size);
}

void fs_xattrs_free(fs_xattrs_t *x)
{
	free(x->list);
	free(x->names);
	free(x->values);
	memset(x, 0, sizeof(*x));
}

/* Words into t->why (if any); returns code. */
__attribute__((format(printf, 3, 4))) static int
fail(const target_t *t, int code, const char *fmt, ...)
{
	va_list ap;

	if (t->why != NULL) {
		va_start(ap, fmt);
		vsnprintf(t->why, SQFS_ERROR_TEXT_SIZE, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int oom(const target_t *t)
{
	return fail(t, SQFS_ERROR_ALLOC, "out of memory");
}

/* The list of names into x->names; *len its bytes (0: none). */
static int read_names(const target_t *t, fs_xattrs_t *x, size_t *len)
{
	for (;;) {
		ssize_t want = do_list(t, NULL, 0), got;

		if (want < 0) {
			if (errno == ENOTSUP) {
				*len = 0;
				return 0;
			}
			return fail(t, SQFS_ERROR_IO, "listing xattrs: %s",
				    strerror(errno));
		}
		if (want == 0) {
			*len = 0;
			return 0;
		}
		free(x->names);
		x->names = malloc((size_t)want + 1);
		if (x->names == NULL)
			return oom(t);
		got = do_list(t, x->names, (size_t)want);
		if (got < 0 && errno == ERANGE)
			continue;
		if (got < 0)
			return fail(t, SQFS_ERROR_IO, "listing xattrs: %s",
				    strerror(errno));
		/* a list cut short would end inside a name */
		x->names[got] = '\0';
		*len = (size_t)got;
		return 0;
	}
}

/* The value of key, appended to the values; *off its place, *size its
 * bytes. Returns 1 if the key went away since it was listed. */
static int read_value(const target_t *t, const char *key, fs_xattrs_t *x,
		      size_t *used, size_t *cap, size_t *off, size_t *size)
{
	for (;;) {
		ssize_t want = do_get(t, key, NULL, 0), got;

		if (want < 0) {
			if (errno == ENODATA)
				return 1;
			return fail(t, SQFS_ERROR_IO, "xattr '%s': %s", key,
				    strerror(errno));
		}
		if (*cap - *used < (size_t)want) {
			size_t ncap = *cap ? *cap : 256;
			uint8_t *n;

			while (ncap - *used < (size_t)want)
				ncap *= 2;
			n = realloc(x->values, ncap);
			if (n == NULL)
				return oom(t);
			x->values = n;
			*cap = ncap;
		}
		got = do_get(t, key, x->values + *used, (size_t)want);
		if (got < 0 && errno == ERANGE)
			continue;
		if (got < 0) {
			if (errno == ENODATA)
				return 1;
			return fail(t, SQFS_ERROR_IO, "xattr '%s': %s", key,
				    strerror(errno));
		}
		*off = *used;
		*size = (size_t)got;
		*used += (size_t)got;
		return 0;
	}
}

static int read_all(const target_t *t, fs_xattrs_t *x)
{
	size_t len, n = 0, used = 0, cap = 0, *offs;
	const char *why;
	char *name;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = read_names(t, x, &len);
	if (ret != 0)
		return ret;
	for (name = x->names; name < x->names + len; name += strlen(name) + 1)
		++n;
	if (n == 0)
		return 0;
	x->list = calloc(n, sizeof(x->list[0]));
	/* values move as the buffer grows: offsets first, pointers last */
	offs = calloc(n, sizeof(offs[0]));
	if (x->list == NULL || offs == NULL) {
		free(offs);
		return oom(t);
	}
	for (name = x->names; name < x->names + len; name += strlen(name) + 1) {
		sqfs_xattr_t *xa = &x->list[x->count];

		ret = read_value(t, name, x, &used, &cap, &offs[x->count],
				 &xa->size);
		if (ret < 0) {
			free(offs);
			return ret;
		}
		if (ret > 0)
			continue;
		xa->key = name;
		/* what the image cannot hold is left out */
		xa->value = "";
		if (sqfs_xattr_check(xa, &why) != 0) {
			if (t->skip != NULL)
				t->skip(t->user, name, why);
			used = offs[x->count];
			continue;
		}
		x->count += 1;
	}
	for (size_t i = 0; i < x->count; ++i)
		x->list[i].value = x->values + offs[i];
	free(offs);
	return 0;
}

int fs_xattrs_read_fd(int fd, fs_xattrs_skip_t skip, void *user, fs_xattrs_t *x,
		      char *why)
{
	target_t t = {fd, NULL, skip, user, why};

	return read_all(&t, x);
}

int fs_xattrs_read_at(int dirfd, const char *name, const fs_id_t *id,
		      fs_xattrs_skip_t skip, void *user, fs_xattrs_t *x,
		      char *why)
{
	char where[64];
	target_t t = {-1, where, skip, user, why};
	int fd, err, ret;

	memset(x, 0, sizeof(*x));
	if (strchr(name, '/') != NULL || strlen(name) > 256)
		return fail(&t, SQFS_ERROR_ARG_INVALID,
			    "xattrs: not a single name");
	fd = fs_open_checked(dirfd, name, O_PATH, id, NULL, &err);
	if (fd < 0)
		return fail(&t, fs_err_code(err), "%s", fs_err_string(err));
	snprintf(where, sizeof(where), "/proc/self/fd/%d", fd);
	ret = read_all(&t, x);
	close(fd);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * fs_open.c - opening a path below a tree's root one component at a time,
 * without following symlinks, and checking the object is the one a walk
 * saw (fs_open.h says why).
 */
#include "config.h"

#include "util/fs_open.h"
#include "sqfs/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fs_chain_init(fs_chain_t *c, int rootfd)
{
	memset(c, 0, sizeof(*c));
	c->rootfd = rootfd;
	c->deep_fd = -1;
}

/* Close the chain's directories from level depth on. */
static void chain_cut(fs_chain_t *c, size_t depth)
{
	while (c->depth > depth) {
		c->depth -= 1;
		close(c->fds[c->depth]);
		free(c->names[c->depth]);
	}
}

void fs_chain_cleanup(fs_chain_t *c)
{
	chain_cut(c, 0);
	if (c->deep_fd >= 0)
		close(c->deep_fd);
	free(c->names);
	free(c->fds);
	memset(c, 0, sizeof(*c));
	c->rootfd = -1;
	c->deep_fd = -1;
}

/* A directory below dirfd, never through a symlink: O_PATH is enough to
 * look up names in it and costs no read permission. */
static int open_dir(int dirfd, const char *name, size_t len, int *err)
{
	char buf[256 + 1];
	int fd;

	if (len >= sizeof(buf)) {
		*err = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	fd = openat(dirfd, buf, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* a symlink (never followed) or another object where the walk saw
	 * a directory on the way */
	if (fd < 0)
		*err = errno == ENOTDIR || errno == ELOOP ? FS_ERR_REPLACED
							  : errno;
	return fd;
}

/* The next component of *p (canonical: no empty or "." ones). */
static bool next_component(const char **p, const char **comp, size_t *len)
{
	const char *s = *p;

	if (*s == '\0')
		return false;
	*comp = s;
	while (*s != '\0' && *s != '/')
		++s;
	*len = (size_t)(s - *comp);
	*p = *s == '/' ? s + 1 : s;
	return true;
}

static int chain_push(fs_chain_t *c, const char *name, size_t len, int fd)
{
	if (c->depth == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		char **names = realloc(c->names, cap * sizeof(names[0]));
		int *fds;

		if (names == NULL)
			return -1;
		c->names = names;
		fds = realloc(c->fds, cap * sizeof(fds[0]));
		if (fds == NULL)
			return -1;
		c->fds = fds;
		c->cap = cap;
	}
	c->names[c->depth] = strndup(name, len);
	if (c->names[c->depth] == NULL)
		return -1;
	c->fds[c->depth++] = fd;
	return 0;
}

int fs_chain_parent(fs_chain_t *c, const char *path, const char **name,
		    int *err)
{
	const char *p = path, *comp, *next;
	size_t len, nlen, level = 0;
	int dirfd = c->rootfd, fd;

	*name = NULL;
	if (c->deep_fd >= 0)
		close(c->deep_fd);
	c->deep_fd = -1;
	if (!next_component(&p, &comp, &len))
		return c->rootfd;

	/* every component but the last is a directory on the way */
	while (next_component(&p, &next, &nlen)) {
		if (level < c->depth && strlen(c->names[level]) == len &&
		    memcmp(c->names[level], comp, len) == 0) {
			dirfd = c->fds[level];
		} else {
			chain_cut(c, level);
			fd = open_dir(dirfd, comp, len, err);
			if (fd < 0)
				return -1;
			if (level < FS_CHAIN_MAX) {
				if (chain_push(c, comp, len, fd) != 0) {
					close(fd);
					*err = ENOMEM;
					return -1;
				}
			} else {
				/* beyond what is kept: one at a time */
				if (c->deep_fd >= 0)
					close(c->deep_fd);
				c->deep_fd = fd;
			}
			dirfd = fd;
		}
		level += 1;
		comp = next;
		len = nlen;
	}
	if (level < FS_CHAIN_MAX)
		chain_cut(c, level);
	*name = comp;
	return dirfd;
}

bool fs_id_matches(const fs_id_t *id, const struct stat *st)
{
	return id->dev == (uint64_t)st->st_dev &&
	       id->ino == (uint64_t)st->st_ino;
}

fs_id_t fs_id_of(const struct stat *st)
{
	fs_id_t id = {(uint64_t)st->st_dev, (uint64_t)st->st_ino};

	return id;
}

/* Take O_NONBLOCK off the descriptor: 0, or -1 with errno set. */
static int clear_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

int fs_open_checked(int dirfd, const char *name, int flags, const fs_id_t *id,
		    struct stat *st, int *err)
{
	struct stat buf;
	int fd;

	if (st == NULL)
		st = &buf;
	/* O_NONBLOCK for the opening only: a FIFO put in the object's
	 * place would block it until a writer came; it is refused below */
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		/* a symlink, or a non-directory where a directory was
		 * asked for: not what the walk saw */
		bool swapped = errno == ELOOP ||
			       (errno == ENOTDIR && (flags & O_DIRECTORY));

		*err = swapped && id != NULL ? FS_ERR_REPLACED : errno;
		return -1;
	}
	if (fstat(fd, st) != 0) {
		*err = errno;
		close(fd);
		return -1;
	}
	if (id != NULL && !fs_id_matches(id, st)) {
		*err = FS_ERR_REPLACED;
		close(fd);
		return -1;
	}
	if (!(flags & (O_NONBLOCK | O_PATH)) && clear_nonblock(fd) != 0) {
		*err = errno;
		close(fd);
		return -1;
	}
	return fd;
}

int fs_chain_open(fs_chain_t *c, const char *path, int flags, const fs_id_t *id,
		  struct stat *st, int *err)
{
	const char *name;
	int dirfd;

	dirfd = fs_chain_parent(c, path, &name, err);
	if (dirfd < 0)
		return -1;
	return fs_open_checked(dirfd, name != NULL ? name : ".", flags, id, st,
			       err);
}

const char *fs_err_string(int err)
{
	if (err == FS_ERR_REPLACED)
		return "was replaced since it was scanned";
	if (err == ELOOP)
		return "a symlink is in the way (symlinks are never followed)";
	return strerror(err);
}

int fs_err_code(int err)
{
	if (err == FS_ERR_REPLACED || err == ELOOP)
		return SQFS_ERROR_CHANGED;
	return err == ENOMEM ? SQFS_ERROR_ALLOC : SQFS_ERROR_IO;
}

/* SPDX-License-Identifier: MIT */
/*
 * extract.c - -e DIR: the two versions of a differing file, side by side
 * in DIR/old and DIR/new, for a closer look with other tools.
 *
 * Safety rules: DIR/old and DIR/new are made by this run (they must not
 * exist), so nothing found there can redirect a write; below them every
 * call is relative to a directory descriptor (mkdirat, openat), with
 * O_NOFOLLOW, and files are created with O_EXCL. Names come from an image
 * listing or readdir, which never give "", "." or ".." or a '/', and are
 * checked again here all the same.
 *
 * What is left is complete or absent: each file is written under a
 * temporary name beside its own and renamed to it (never replacing
 * anything) only once all its data is written; on an error the
 * temporary file is removed. A run that cannot make both DIR/old and
 * DIR/new leaves neither (nor DIR, if it made DIR).
 */
#include "config.h"

#include "sqfsdiff.h"
#include "common/fs_move.h"
#include "common/print.h"
#include "common/write_all.h"
#include "sqfs/path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Tries at a unique temporary name before giving up. */
#define TEMP_MAX_TRIES 100

struct sd_extract {
	const char *dir;
	/* DIR/old and DIR/new */
	int fd[2];
	/* temporary names made so far, for the next one */
	unsigned long temps;
};

static const char *const label[2] = {"old", "new"};

/* A directory on the way to a file: made, or taken as it is. */
static int make_dir(int at, const char *dir, const char *name)
{
	int fd;

	if (mkdirat(at, name, 0755) != 0 && errno != EEXIST) {
		tool_error(dir, "%s: %s", name, strerror(errno));
		return -1;
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		tool_error(dir, "%s: %s", name, strerror(errno));
	return fd;
}

/* Whether at/name is the object fd is open on (not a replacement). */
static bool is_same(int at, const char *name, int fd)
{
	struct stat a, b;

	return fstatat(at, name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Undo a directory this run made: removed if it is still the one made
 * (fd, when it was opened) and empty; anything else stays. */
static void unmake_dir(int at, const char *name, int fd)
{
	if (fd < 0 || is_same(at, name, fd))
		unlinkat(at, name, AT_REMOVEDIR);
}

sd_extract_t *sd_extract_open(const char *dir)
{
	sd_extract_t *ex = calloc(1, sizeof(*ex));
	bool made_top = false, made[2] = {false, false};
	int top = -1;

	if (ex == NULL) {
		tool_error(NULL, "out of memory");
		return NULL;
	}
	ex->dir = dir;
	ex->fd[0] = ex->fd[1] = -1;
	if (mkdir(dir, 0755) == 0)
		made_top = true;
	else if (errno != EEXIST) {
		tool_error(dir, "%s", strerror(errno));
		goto fail;
	}
	top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0) {
		tool_error(dir, "%s", strerror(errno));
		goto fail;
	}
	/* both refused before either is made */
	for (int i = 0; i < 2; ++i) {
		struct stat st;

		if (fstatat(top, label[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			errno = EEXIST;
		else if (errno == ENOENT)
			continue;
		tool_error(dir, "%s: %s", label[i], strerror(errno));
		goto fail;
	}
	/* made fresh: one that appeared meanwhile is not taken over */
	for (int i = 0; i < 2; ++i) {
		if (mkdirat(top, label[i], 0755) != 0) {
			tool_error(dir, "%s: %s", label[i], strerror(errno));
			goto fail;
		}
		made[i] = true;
		ex->fd[i] =
		    openat(top, label[i],
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (ex->fd[i] < 0) {
			tool_error(dir, "%s: %s", label[i], strerror(errno));
			goto fail;
		}
	}
	close(top);
	return ex;
fail:
	/* a failed run leaves nothing it made: DIR/old goes again when
	 * DIR/new cannot be made */
	for (int i = 1; i >= 0; --i) {
		if (made[i])
			unmake_dir(top, label[i], ex->fd[i]);
		if (ex->fd[i] >= 0)
			close(ex->fd[i]);
	}
	if (made_top && top >= 0) {
		/* DIR goes too if this run made it, it is still the one
		 * made, and nothing else was put in it */
		struct stat a, b;

		if (stat(dir, &a) == 0 && fstat(top, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			rmdir(dir);
	}
	if (top >= 0)
		close(top);
	free(ex);
	return NULL;
}

void sd_extract_close(sd_extract_t *ex)
{
	if (ex == NULL)
		return;
	for (int i = 0; i < 2; ++i) {
		if (ex->fd[i] >= 0)
			close(ex->fd[i]);
	}
	free(ex);
}

/*
 * Create a temporary file in at, its name in name (size bytes): hidden,
 * and named after this process so that two runs never pick one name.
 * Returns the descriptor, or -1 with errno set and name "".
 */
static int open_temp(sd_extract_t *ex, int at, char *name, size_t size)
{
	for (int tries = 0; tries < TEMP_MAX_TRIES; ++tries) {
		int fd;

		snprintf(name, size, ".sqfsdiff-%ld-%lu.tmp", (long)getpid(),
			 ex->temps++);
		fd = openat(
		    at, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	/* errno: EEXIST after the last try, or what stopped them */
	name[0] = '\0';
	return -1;
}

int sd_extract_file(sd_extract_t *ex, sd_side_t *side, int which)
{
	const sqfs_entry_t *e;
	char *path, *name, *slash, temp[64] = "";
	sqfs_data_run_t run;
	int at, fd = -1, ret = -1;

	if (sd_side_head(side, &e) != 0)
		return -1;
	path = strdup(e->path);
	if (path == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	at = dup(ex->fd[which]);
	if (at < 0) {
		tool_error(ex->dir, "%s", strerror(errno));
		goto out;
	}
	/* the directories on the way, then the file */
	for (name = path; (slash = strchr(name, '/')) != NULL;
	     name = slash + 1) {
		int next;

		*slash = '\0';
		if (!sqfs_name_is_valid(name, strlen(name))) {
			tool_error(e->path, "unsafe path; not extracted");
			goto out;
		}
		next = make_dir(at, ex->dir, name);
		close(at);
		at = next;
		if (at < 0)
			goto out;
	}
	if (!sqfs_name_is_valid(name, strlen(name))) {
		tool_error(e->path, "unsafe path; not extracted");
		goto out;
	}
	fd = open_temp(ex, at, temp, sizeof(temp));
	if (fd < 0) {
		tool_error(ex->dir, "%s/%s: %s", label[which], e->path,
			   strerror(errno));
		goto out;
	}
	for (;;) {
		int r = sd_side_read(side, &run);

		if (r < 0)
			goto out;
		if (r > 0)
			break;
		/* zeros become a hole, as they were on the side */
		if (run.data == NULL
			? lseek(fd, (off_t)run.size, SEEK_CUR) < 0
			: write_all(fd, run.data, (size_t)run.size) != 0) {
			tool_error(ex->dir, "%s/%s: %s", label[which], e->path,
				   strerror(errno));
			goto out;
		}
	}
	/* a file that ends in a hole gets its size */
	if (ftruncate(fd, lseek(fd, 0, SEEK_CUR)) != 0) {
		tool_error(ex->dir, "%s/%s: %s", label[which], e->path,
			   strerror(errno));
		goto out;
	}
	ret = close(fd);
	fd = -1;
	/* complete: under its own name, which must not exist */
	if (ret != 0 || fs_move_no_replace(at, temp, name) != 0) {
		ret = -1;
		tool_error(ex->dir, "%s/%s: %s", label[which], e->path,
			   strerror(errno));
	}
out:
	if (fd >= 0)
		close(fd);
	/* nothing half-written stays behind */
	if (ret != 0 && temp[0] != '\0')
		unlinkat(at, temp, 0);
	if (at >= 0)
		close(at);
	free(path);
	return ret;
}

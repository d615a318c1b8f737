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
 */
#include "config.h"

#include "sqfsdiff.h"
#include "common/print.h"
#include "common/write_all.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sd_extract {
	const char *dir;
	/* DIR/old and DIR/new */
	int fd[2];
};

static int make_dir(int at, const char *dir, const char *name, bool fresh)
{
	int fd;

	if (mkdirat(at, name, 0755) != 0 && (fresh || errno != EEXIST)) {
		tool_error(dir, "%s: %s", name, strerror(errno));
		return -1;
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		tool_error(dir, "%s: %s", name, strerror(errno));
	return fd;
}

sd_extract_t *sd_extract_open(const char *dir)
{
	sd_extract_t *ex = calloc(1, sizeof(*ex));
	int top;

	if (ex == NULL) {
		tool_error(NULL, "out of memory");
		return NULL;
	}
	ex->dir = dir;
	ex->fd[0] = ex->fd[1] = -1;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		tool_error(dir, "%s", strerror(errno));
		free(ex);
		return NULL;
	}
	top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0) {
		tool_error(dir, "%s", strerror(errno));
		free(ex);
		return NULL;
	}
	ex->fd[0] = make_dir(top, dir, "old", true);
	if (ex->fd[0] >= 0)
		ex->fd[1] = make_dir(top, dir, "new", true);
	close(top);
	if (ex->fd[1] < 0) {
		sd_extract_close(ex);
		return NULL;
	}
	return ex;
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

static bool name_is_safe(const char *name)
{
	return name[0] != '\0' && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

int sd_extract_file(sd_extract_t *ex, sd_side_t *side, int which)
{
	static const char *const label[2] = {"old", "new"};
	const sqfs_entry_t *e;
	char *path, *name, *slash;
	sd_piece_t piece;
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
		if (!name_is_safe(name)) {
			tool_error(e->path, "unsafe path; not extracted");
			goto out;
		}
		next = make_dir(at, ex->dir, name, false);
		close(at);
		at = next;
		if (at < 0)
			goto out;
	}
	if (!name_is_safe(name)) {
		tool_error(e->path, "unsafe path; not extracted");
		goto out;
	}
	fd = openat(at, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		tool_error(ex->dir, "%s/%s: %s", label[which], e->path,
			   strerror(errno));
		goto out;
	}
	for (;;) {
		int r = sd_side_read(side, &piece);

		if (r < 0)
			goto out;
		if (r > 0)
			break;
		/* zeros become a hole, as they were on the side */
		if (piece.zeros ? lseek(fd, (off_t)piece.size, SEEK_CUR) < 0
				: write_all(fd, piece.data, piece.size) != 0) {
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
	if (close(fd) != 0) {
		fd = -1;
		tool_error(ex->dir, "%s/%s: %s", label[which], e->path,
			   strerror(errno));
		goto out;
	}
	fd = -1;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (at >= 0)
		close(at);
	free(path);
	return ret;
}

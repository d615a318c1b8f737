/* SPDX-License-Identifier: MIT */
/*
 * side_dir.c - a directory tree on disk as a side: the library's walk
 * (sqfs/dir_source.h), which gives the entries in the order an image lists
 * them (each directory's names in byte order) and reads data and xattrs
 * only from objects checked to be the ones it saw, never following a
 * symlink, so that a tree that changes while it is compared cannot lead
 * the comparison outside it. Xattrs are read only for the entries
 * compared, when they are compared.
 */
#include "config.h"

#include "side.h"
#include "common/print.h"
#include "sqfs/dir_source.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct {
	sd_side_t base;
	sqfs_dir_source_t *src;
} dir_side_t;

/* The walk's outcome: a failure said as "sqfsdiff: SIDE: PATH: why". */
static int done(dir_side_t *s, int ret)
{
	if (ret >= 0)
		return ret;
	if (ret == SQFS_ERROR_ALLOC)
		tool_error(NULL, "out of memory");
	else
		tool_error(s->base.name, "%s", sqfs_dir_source_error(s->src));
	return -1;
}

static int dir_next(sd_side_t *side, const sqfs_entry_t **out)
{
	dir_side_t *s = (dir_side_t *)side;

	return done(s, sqfs_dir_source_next(s->src, out));
}

static int dir_xattrs(sd_side_t *side, const sqfs_xattr_t **list, size_t *count)
{
	dir_side_t *s = (dir_side_t *)side;

	return done(s, sqfs_dir_source_xattrs(s->src, list, count));
}

static int dir_read(sd_side_t *side, sqfs_data_run_t *out)
{
	dir_side_t *s = (dir_side_t *)side;

	return done(s, sqfs_dir_source_read(s->src, out));
}

static int dir_rewind(sd_side_t *side)
{
	dir_side_t *s = (dir_side_t *)side;

	return done(s, sqfs_dir_source_rewind(s->src));
}

static const sqfs_super_t *dir_super(const sd_side_t *side)
{
	(void)side;
	return NULL;
}

static void dir_close(sd_side_t *side)
{
	dir_side_t *s = (dir_side_t *)side;

	sqfs_dir_source_destroy(s->src);
	free(s);
}

static const sd_side_ops_t dir_ops = {
    .next = dir_next,
    .xattrs = dir_xattrs,
    .read = dir_read,
    .rewind = dir_rewind,
    .super = dir_super,
    .close = dir_close,
};

sd_side_t *sd_dir_side_open(const char *path, int fd)
{
	dir_side_t *s = calloc(1, sizeof(*s));
	sqfs_dir_source_options_t opt;
	char why[SQFS_ERROR_TEXT_SIZE];
	int ret;

	if (s == NULL) {
		close(fd);
		tool_error(NULL, "out of memory");
		return NULL;
	}
	s->base.ops = &dir_ops;
	s->base.name = path;
	sqfs_dir_source_options_init(&opt);
	opt.flags = SQFS_DIR_SOURCE_NO_XATTRS;
	ret = sqfs_dir_source_create_fd(fd, &opt, &s->src, why);
	close(fd);
	if (ret != 0) {
		if (ret == SQFS_ERROR_ALLOC)
			tool_error(NULL, "out of memory");
		else
			tool_error(path, "%s", why);
		free(s);
		return NULL;
	}
	return &s->base;
}

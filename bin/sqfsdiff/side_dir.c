/* SPDX-License-Identifier: MIT */
/*
 * side_dir.c - a directory tree on disk as a side: the walk of
 * common/fs_source.h, which gives the entries in the order an image lists
 * them (each directory's names in byte order) and reads data and xattrs
 * only from objects checked to be the ones it saw, never following a
 * symlink, so that a tree that changes while it is compared cannot lead
 * the comparison outside it.
 */
#include "config.h"

#include "side.h"
#include "common/fs_source.h"
#include "common/print.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct {
	sd_side_t base;
	fs_source_t *src;
} dir_side_t;

static int dir_next(sd_side_t *side, const sqfs_entry_t **out)
{
	return fs_source_next(((dir_side_t *)side)->src, out);
}

static int dir_xattrs(sd_side_t *side, const sqfs_xattr_t **list, size_t *count)
{
	return fs_source_xattrs(((dir_side_t *)side)->src, false, list, count);
}

static int dir_read(sd_side_t *side, sqfs_data_run_t *out)
{
	return fs_source_read(((dir_side_t *)side)->src, out);
}

static int dir_rewind(sd_side_t *side)
{
	return fs_source_rewind(((dir_side_t *)side)->src);
}

static const sqfs_super_t *dir_super(const sd_side_t *side)
{
	(void)side;
	return NULL;
}

static void dir_close(sd_side_t *side)
{
	dir_side_t *s = (dir_side_t *)side;

	fs_source_close(s->src);
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

	if (s == NULL) {
		close(fd);
		tool_error(NULL, "out of memory");
		return NULL;
	}
	s->base.ops = &dir_ops;
	s->base.name = path;
	if (fs_source_open(fd, path, 0, &s->src) != 0) {
		free(s);
		return NULL;
	}
	return &s->base;
}

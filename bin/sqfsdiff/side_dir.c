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
	/* the head entry, when have_head */
	bool have_head;
	const sqfs_entry_t *head;
	/* the head's xattrs, copied to be sorted (sd_side_xattrs) */
	sqfs_xattr_t *xattrs;
	size_t xattr_cap;
} dir_side_t;

static int dir_head(sd_side_t *side, const sqfs_entry_t **out)
{
	dir_side_t *s = (dir_side_t *)side;
	int ret;

	if (!s->have_head) {
		ret = fs_source_next(s->src, &s->head);
		if (ret != 0)
			return ret;
		s->have_head = true;
	}
	*out = s->head;
	return 0;
}

static int dir_pop(sd_side_t *side)
{
	/* the walk enters a directory at its next */
	((dir_side_t *)side)->have_head = false;
	return 0;
}

static int dir_xattrs(sd_side_t *side, sqfs_xattr_t **list, size_t *count)
{
	dir_side_t *s = (dir_side_t *)side;
	const sqfs_xattr_t *l;
	size_t n;

	if (fs_source_xattrs(s->src, false, &l, &n) != 0)
		return -1;
	if (n > s->xattr_cap) {
		sqfs_xattr_t *nl = realloc(s->xattrs, n * sizeof(nl[0]));

		if (nl == NULL) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		s->xattrs = nl;
		s->xattr_cap = n;
	}
	for (size_t i = 0; i < n; ++i)
		s->xattrs[i] = l[i];
	*list = s->xattrs;
	*count = n;
	return 0;
}

static int dir_read(sd_side_t *side, sd_piece_t *out)
{
	sqfs_data_run_t run;
	int ret = fs_source_read(((dir_side_t *)side)->src, &run);

	if (ret != 0)
		return ret;
	out->data = run.data;
	out->size = (size_t)run.size;
	out->zeros = run.data == NULL;
	return 0;
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
	free(s->xattrs);
	free(s);
}

static const sd_side_ops_t dir_ops = {
    .head = dir_head,
    .pop = dir_pop,
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

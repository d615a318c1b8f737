/* SPDX-License-Identifier: MIT */
/*
 * file_window.c - a file seen from an offset on: an image that starts
 * inside a bigger file (an AppImage's runtime before it, a header that
 * mksquashfs -offset leaves in place) is read and written through it as
 * if it started at byte 0, so that no reader or writer knows offsets.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/io.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct {
	sqfs_file_t base;
	sqfs_file_t *under;
	uint64_t offset;
	/* SQFS_FILE_WINDOW_OWN: the file goes with the view */
	bool own;
} window_file_t;

static void window_destroy(sqfs_file_t *base)
{
	window_file_t *w = (window_file_t *)base;

	if (w->own)
		sqfs_file_destroy(w->under);
	free(w);
}

/* Only a file taken over has anything to report on release. */
static int window_close(sqfs_file_t *base)
{
	window_file_t *w = (window_file_t *)base;
	int ret = w->own ? sqfs_file_close(w->under) : 0;

	free(w);
	return ret;
}

static int window_sync(sqfs_file_t *base)
{
	return sqfs_file_sync(((window_file_t *)base)->under);
}

/* Where a view's offset lands in the file under it, or an error if that
 * is past what 64 bits count. */
static int window_place(const window_file_t *w, uint64_t offset, uint64_t *out)
{
	if (offset > UINT64_MAX - w->offset)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	*out = w->offset + offset;
	return 0;
}

static int window_read_at(sqfs_file_t *base, uint64_t offset, void *buffer,
			  size_t size)
{
	window_file_t *w = (window_file_t *)base;
	uint64_t at;
	int ret = window_place(w, offset, &at);

	return ret != 0 ? ret : w->under->read_at(w->under, at, buffer, size);
}

static int window_write_at(sqfs_file_t *base, uint64_t offset,
			   const void *buffer, size_t size)
{
	window_file_t *w = (window_file_t *)base;
	uint64_t at;
	int ret = window_place(w, offset, &at);

	return ret != 0 ? ret : w->under->write_at(w->under, at, buffer, size);
}

/* A file shorter than the offset is an empty view. */
static uint64_t window_get_size(const sqfs_file_t *base)
{
	const window_file_t *w = (const window_file_t *)base;
	uint64_t size = w->under->get_size(w->under);

	return size > w->offset ? size - w->offset : 0;
}

static int window_truncate(sqfs_file_t *base, uint64_t size)
{
	window_file_t *w = (window_file_t *)base;
	uint64_t at;
	int ret = window_place(w, size, &at);

	return ret != 0 ? ret : w->under->truncate(w->under, at);
}

int sqfs_file_open_window(sqfs_file_t **out, sqfs_file_t *file, uint64_t offset,
			  unsigned int flags)
{
	window_file_t *w;

	if (out == NULL || file == NULL || (flags & ~SQFS_FILE_WINDOW_OWN)) {
		errno = EINVAL;
		return SQFS_ERROR_ARG_INVALID;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		errno = ENOMEM;
		return SQFS_ERROR_ALLOC;
	}
	w->under = file;
	w->offset = offset;
	w->own = (flags & SQFS_FILE_WINDOW_OWN) != 0;
	w->base.destroy = window_destroy;
	w->base.read_at = window_read_at;
	w->base.write_at = window_write_at;
	w->base.get_size = window_get_size;
	w->base.truncate = window_truncate;
	/* durability is the file's: a view must not claim a sync the file
	 * cannot give */
	w->base.sync = file->sync != NULL ? window_sync : NULL;
	w->base.close = window_close;
	*out = &w->base;
	return 0;
}

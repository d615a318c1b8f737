/* SPDX-License-Identifier: MIT */
/*
 * side_image.c - an image as a side: the library's image source
 * (sqfs/image_source.h) hands out the entries in order, and unpacks the
 * blocks of the files after the one being compared on other threads
 * meanwhile. How far it reads ahead does not depend on the number of
 * jobs, so neither does anything printed.
 *
 * The image is untrusted: every failure of the library (a damaged
 * listing, a block that does not unpack) ends the comparison with the
 * library's words, and the verdict is "error", never "equal" or
 * "different".
 */
#include "config.h"

#include "side.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/image_source.h"
#include "sqfs/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	sd_side_t base;
	sqfs_file_t *file;
	sqfs_image_t *img;
	sqfs_image_source_t *src;
} image_side_t;

/* The library's words on the last failure; they name the entry when it
 * is not the head (the source's next says which). */
static int failed(image_side_t *s, const char *path)
{
	if (path != NULL)
		tool_error(s->base.name, "%s: %s", path[0] ? path : "/",
			   sqfs_image_error(s->img));
	else
		tool_error(s->base.name, "%s", sqfs_image_error(s->img));
	return -1;
}

static int image_next(sd_side_t *side, const sqfs_entry_t **out)
{
	image_side_t *s = (image_side_t *)side;
	int ret = sqfs_image_source_next(s->src, out);

	return ret < 0 ? failed(s, NULL) : ret;
}

static int image_xattrs(sd_side_t *side, const sqfs_xattr_t **list,
			size_t *count)
{
	*list = side->head->xattrs;
	*count = side->head->xattr_count;
	return 0;
}

static int image_read(sd_side_t *side, sqfs_data_run_t *out)
{
	image_side_t *s = (image_side_t *)side;
	int ret = sqfs_image_source_read(s->src, out);

	return ret < 0 ? failed(s, side->head->path) : ret;
}

static int image_rewind(sd_side_t *side)
{
	image_side_t *s = (image_side_t *)side;

	if (sqfs_image_source_rewind(s->src) != 0)
		return failed(s, side->head->path);
	return 0;
}

static const sqfs_super_t *image_super(const sd_side_t *side)
{
	return sqfs_image_super(((const image_side_t *)side)->img);
}

static void image_close(sd_side_t *side)
{
	image_side_t *s = (image_side_t *)side;

	sqfs_image_source_destroy(s->src);
	sqfs_image_destroy(s->img);
	sqfs_file_destroy(s->file);
	free(s);
}

static const sd_side_ops_t image_ops = {
    .next = image_next,
    .xattrs = image_xattrs,
    .read = image_read,
    .rewind = image_rewind,
    .super = image_super,
    .close = image_close,
};

sd_side_t *sd_image_side_open(const char *path, const image_offset_t *offset,
			      bool with_data, unsigned int num_jobs)
{
	image_side_t *s = calloc(1, sizeof(*s));
	sqfs_image_source_options_t opt;
	int ret;

	if (s == NULL) {
		tool_error(NULL, "out of memory");
		return NULL;
	}
	s->base.ops = &image_ops;
	s->base.name = path;

	if (image_open_at(path, offset, &s->file, &s->img) != 0)
		goto fail;
	sqfs_image_source_options_init(&opt);
	opt.num_jobs = num_jobs;
	if (!with_data)
		opt.flags |= SQFS_SOURCE_NO_DATA;
	ret = sqfs_image_source_create(s->img, "", &opt, &s->src);
	if (ret != 0) {
		failed(s, NULL);
		goto fail;
	}
	return &s->base;
fail:
	image_close(&s->base);
	return NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * path.c - paths given on the command line, and names from the image.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <stdio.h>
#include <string.h>

void rd_image_error(const rd_ctx_t *ctx, const char *what)
{
	tool_error(what != NULL ? what : ctx->opt->image, "%s",
		   sqfs_image_error(ctx->img));
}

int rd_resolve(rd_ctx_t *ctx, const char *path, sqfs_inode_t **out)
{
	int ret = sqfs_dir_reader_resolve(ctx->dr, path, out);

	if (ret != 0) {
		*out = NULL;
		/* the words name the path, and the part of it that fails */
		rd_image_error(ctx, NULL);
		return -1;
	}
	return 0;
}

int rd_open_source(rd_ctx_t *ctx, const char *path, uint32_t flags,
		   sqfs_image_source_t **out)
{
	sqfs_image_source_options_t opt;

	sqfs_image_source_options_init(&opt);
	opt.flags = flags;
	opt.num_jobs = ctx->opt->num_jobs;
	if (sqfs_image_source_create(ctx->img, path, &opt, out) != 0) {
		*out = NULL;
		/* the words name the path, and the part of it that fails */
		rd_image_error(ctx, NULL);
		return -1;
	}
	return 0;
}

int rd_entry_at(rd_ctx_t *ctx, const char *path, uint32_t flags,
		sqfs_image_source_t **src, const sqfs_entry_t **out)
{
	int ret;

	if (rd_open_source(ctx, path, flags | SQFS_SOURCE_START_ONLY, src) != 0)
		return -1;
	ret = sqfs_image_source_next(*src, out);
	if (ret == 0)
		return 0;
	/* the words of a failure here name the entry */
	if (ret < 0)
		rd_image_error(ctx, NULL);
	else
		tool_error(path, "no such entry");
	return -1;
}

void rd_path_basename(const char *path, char *buf, size_t size)
{
	const char *name = "", *p = path;
	size_t len = 0;

	/* the last component that is neither empty nor "." */
	while (*p != '\0') {
		const char *start = p;
		size_t n;

		while (*p != '\0' && *p != '/')
			++p;
		n = (size_t)(p - start);
		if (n > 0 && !(n == 1 && start[0] == '.')) {
			name = start;
			len = n;
		}
		while (*p == '/')
			++p;
	}
	if (size == 0)
		return;
	if (len >= size)
		len = size - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
}

/* SPDX-License-Identifier: MIT */
/*
 * cat.c - --cat: a regular file's contents on standard output.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "common/write_all.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* size bytes of zeros, a block at a time */
static int put_zeros(const uint8_t *zeros, size_t block, uint64_t size)
{
	while (size > 0) {
		size_t n = size < block ? (size_t)size : block;

		if (write_all(STDOUT_FILENO, zeros, n) != 0)
			return -1;
		size -= n;
	}
	return 0;
}

int rd_cat(rd_ctx_t *ctx)
{
	const char *path = ctx->opt->cmdpath;
	sqfs_image_source_t *src = NULL;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	uint8_t *zeros = NULL;
	int ret = -1;

	if (rd_entry_at(ctx, path, SQFS_SOURCE_NO_XATTRS, &src, &e) != 0)
		goto out;
	if ((e->mode & S_IFMT) != S_IFREG) {
		tool_error(path, "not a regular file");
		goto out;
	}
	zeros = calloc(1, ctx->block_size);
	if (zeros == NULL) {
		tool_error(NULL, "out of memory");
		goto out;
	}

	/* run by run, straight to the descriptor: nothing is held back in
	 * a stdio buffer, and memory does not grow with the file; the
	 * source unpacks the blocks after the one being written */
	while ((ret = sqfs_image_source_read(src, &run)) == 0) {
		if (run.data != NULL)
			ret = write_all(STDOUT_FILENO, run.data,
					(size_t)run.size);
		else
			ret = put_zeros(zeros, ctx->block_size, run.size);
		if (ret != 0) {
			tool_error("standard output", "%s", strerror(errno));
			ret = -1;
			goto out;
		}
	}
	if (ret < 0)
		rd_image_error(ctx, path);
	else
		ret = 0;
out:
	free(zeros);
	sqfs_image_source_destroy(src);
	return ret;
}

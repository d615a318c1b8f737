/* SPDX-License-Identifier: MIT */
/*
 * cat.c - -cat: the regular files the paths name, to standard output.
 *
 * Each path is a pattern (shell wildcards per component) and may name
 * several files, written in the image's order; a path that names nothing,
 * a directory or another kind of entry is said on stderr in 4.7.5's
 * words, and the run goes on (exit status 2).
 */
#include "config.h"

#include "unsquashfs.h"
#include "common/write_all.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The current entry's data to stdout, holes as zeros. */
static int write_data(uq_ctx_t *ctx, sqfs_image_source_t *src)
{
	static const uint8_t zeros[4096];
	sqfs_data_run_t run;
	int ret;

	fflush(stdout);
	while ((ret = sqfs_image_source_read(src, &run)) == 0) {
		uint64_t left = run.size;

		if (run.data != NULL) {
			if (write_all(STDOUT_FILENO, run.data,
				      (size_t)run.size) != 0)
				goto fail_write;
			continue;
		}
		while (left > 0) {
			size_t n =
			    left < sizeof(zeros) ? (size_t)left : sizeof(zeros);

			if (write_all(STDOUT_FILENO, zeros, n) != 0)
				goto fail_write;
			left -= n;
		}
	}
	if (ret < 0) {
		uq_fatal_image(ctx);
		return -1;
	}
	return 0;
fail_write:
	fprintf(stderr, "FATAL ERROR: writing to standard output: %s\n",
		strerror(errno));
	return -1;
}

static int cat_one(uq_ctx_t *ctx, const char *pattern)
{
	const char *shown = pattern[0] == '/' ? "" : "/";
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	bool found = false;
	int ret;

	if (uq_open_source(ctx, SQFS_SOURCE_NO_DATA | SQFS_SOURCE_NO_XATTRS,
			   &src) != 0)
		return -1;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		if (!uq_names_exactly(ctx->opt, pattern, e->path))
			continue;
		found = true;
		if (S_ISDIR(e->mode)) {
			fprintf(stderr, "cat: /%s is a directory\n", e->path);
			ctx->nonfatal++;
		} else if (!S_ISREG(e->mode)) {
			fprintf(stderr, "cat: /%s is not a regular file\n",
				e->path);
			ctx->nonfatal++;
		} else if (write_data(ctx, src) != 0) {
			sqfs_image_source_destroy(src);
			return -1;
		}
	}
	sqfs_image_source_destroy(src);
	if (ret < 0) {
		uq_fatal_image(ctx);
		return -1;
	}
	if (!found) {
		fprintf(stderr, "cat: no matches for %s%s\n", shown, pattern);
		ctx->nonfatal++;
	}
	return 0;
}

int uq_cat(uq_ctx_t *ctx)
{
	for (size_t i = 0; i < ctx->opt->extract.count; ++i) {
		if (cat_one(ctx, ctx->opt->extract.items[i]) != 0)
			return -1;
	}
	return 0;
}

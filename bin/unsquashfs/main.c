/* SPDX-License-Identifier: MIT */
/*
 * main.c - unsquashfs: squashfs-tools 4.7.5's unsquashfs command line on
 * the squashforge library.
 */
#include "config.h"

#include "unsquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void uq_fatal_image(const uq_ctx_t *ctx)
{
	fprintf(stderr, "FATAL ERROR: %s: %s\n", ctx->opt->image,
		sqfs_image_error(ctx->img));
}

int uq_open_source(uq_ctx_t *ctx, uint32_t flags, sqfs_image_source_t **out)
{
	sqfs_image_source_options_t opt;

	sqfs_image_source_options_init(&opt);
	opt.flags = flags;
	opt.num_jobs = ctx->opt->num_jobs;
	if (sqfs_image_source_create(ctx->img, "", &opt, out) != 0) {
		*out = NULL;
		uq_fatal_image(ctx);
		return -1;
	}
	return 0;
}

/*
 * The image, seen from -o's offset on; "-o auto" finds it inside an
 * AppImage, a SIF container or after a prefix (sqfs_image_locate).
 */
static int open_image(uq_ctx_t *ctx)
{
	const uq_options_t *opt = ctx->opt;
	char why[SQFS_ERROR_TEXT_SIZE];
	uint64_t offset = opt->offset;
	int ret;

	ret = sqfs_file_open(&ctx->file, opt->image, SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		/* 4.7.5's words, which scripts may look for */
		fprintf(stderr, "Could not open %s, because %s\n", opt->image,
			ret == SQFS_ERROR_IO ? strerror(errno)
					     : sqfs_error_string(ret));
		return -1;
	}
	if (opt->offset_auto) {
		ret = sqfs_image_locate(ctx->file, SQFS_LOCATE_SCAN_LIMIT,
					&offset, why);
		if (ret != 0) {
			fprintf(stderr,
				"FATAL ERROR: Can't find a SQUASHFS image in "
				"%s: %s\n",
				opt->image, why);
			return -1;
		}
	}
	ret = sqfs_file_open_window(&ctx->view, ctx->file, offset, 0);
	if (ret != 0) {
		fprintf(stderr, "FATAL ERROR: %s: %s\n", opt->image,
			sqfs_error_string(ret));
		return -1;
	}
	/* the view uses the file; both are released at the end, the view
	 * first */
	ret = sqfs_image_open(ctx->view, &ctx->img, why);
	if (ret != 0) {
		if (ret == SQFS_ERROR_SUPER_MAGIC || ret == SQFS_ERROR_IO ||
		    ret == SQFS_ERROR_OUT_OF_BOUNDS)
			fprintf(stderr,
				"FATAL ERROR: Can't find a valid SQUASHFS "
				"superblock on %s\n",
				opt->image);
		else
			fprintf(stderr, "FATAL ERROR: %s: %s\n", opt->image,
				why);
		return -1;
	}
	ctx->block_size = sqfs_image_super(ctx->img)->block_size;
	return 0;
}

int main(int argc, char **argv)
{
	uq_options_t opt;
	uq_ctx_t ctx;
	int ret, status;

	tool_set_name("unsquashfs");
	memset(&ctx, 0, sizeof(ctx));

	ret = uq_parse_options(argc, argv, &opt, &status);
	if (ret != 0) {
		uq_options_free(&opt);
		return status;
	}
	ctx.opt = &opt;

	ret = open_image(&ctx);
	if (ret == 0) {
		switch (opt.op) {
		case UQ_SUPER:
			ret = uq_print_super(&ctx);
			break;
		case UQ_FSTIME:
			ret = uq_print_fstime(&ctx);
			break;
		case UQ_LIST:
			ret = uq_list(&ctx);
			break;
		case UQ_CAT:
			ret = uq_cat(&ctx);
			break;
		case UQ_PSEUDO:
			ret = uq_pseudo(&ctx);
			break;
		default:
			ret = uq_extract(&ctx);
			break;
		}
	}

	/* a listing cut short by a full disk or a closed pipe is a
	 * failure, not a success with less output */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (ret == 0)
			fprintf(stderr, "FATAL ERROR: standard output: %s\n",
				strerror(errno));
		ret = -1;
	}

	sqfs_image_destroy(ctx.img);
	sqfs_file_destroy(ctx.view);
	sqfs_file_destroy(ctx.file);
	uq_options_free(&opt);

	if (ret != 0)
		return UQ_EXIT_FATAL;
	if (ctx.nonfatal > 0 && !opt.no_exit_code)
		return UQ_EXIT_NONFATAL;
	return EXIT_SUCCESS;
}

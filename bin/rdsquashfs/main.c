/* SPDX-License-Identifier: MIT */
/*
 * main.c - rdsquashfs: look into a SquashFS image, or unpack it.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int open_image(rd_ctx_t *ctx, const char *path)
{
	int ret;

	if (image_open_at(path, &ctx->opt->offset, &ctx->file, &ctx->img) != 0)
		return -1;
	ctx->block_size = sqfs_image_super(ctx->img)->block_size;

	ret = sqfs_dir_reader_create(ctx->img, &ctx->dr);
	if (ret != 0) {
		tool_error(path, "%s", sqfs_error_string(ret));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	rd_options_t opt;
	rd_ctx_t ctx;
	int ret;

	tool_set_name("rdsquashfs");
	memset(&ctx, 0, sizeof(ctx));

	ret = rd_parse_options(argc, argv, &opt);
	if (ret != 0)
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	ctx.opt = &opt;

	ret = open_image(&ctx, opt.image);
	if (ret == 0) {
		switch (opt.op) {
		case OP_LIST:
			ret = rd_list(&ctx);
			break;
		case OP_CAT:
			ret = rd_cat(&ctx);
			break;
		case OP_XATTR:
			ret = rd_xattr(&ctx);
			break;
		case OP_STAT:
			ret = rd_stat(&ctx);
			break;
		case OP_UNPACK:
			ret = rd_unpack(&ctx);
			break;
		case OP_DESCRIBE:
			ret = rd_describe(&ctx);
			break;
		default:
			ret = -1;
			break;
		}
	}

	/* a listing cut short by a full disk or a closed pipe is a
	 * failure, not a success with less output */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (ret == 0)
			tool_error("standard output", "%s", strerror(errno));
		ret = -1;
	}

	sqfs_dir_reader_destroy(ctx.dr);
	sqfs_image_destroy(ctx.img);
	sqfs_file_destroy(ctx.file);
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

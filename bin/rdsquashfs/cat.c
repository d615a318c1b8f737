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
#include <unistd.h>

static int to_stdout(void *user, uint64_t offset, const uint8_t *data,
		     size_t size, bool sparse)
{
	(void)user;
	(void)offset;
	(void)sparse;
	if (write_all(STDOUT_FILENO, data, size) != 0) {
		tool_error("standard output", "%s", strerror(errno));
		return 1;
	}
	return 0;
}

int rd_cat(rd_ctx_t *ctx)
{
	const char *path = ctx->opt->cmdpath;
	sqfs_inode_t *inode;
	uint16_t type;
	int ret;

	if (rd_resolve(ctx, path, &inode) != 0)
		return -1;
	type = sqfs_inode_type_basic(inode->type);
	if (type != SQFS_INODE_FILE) {
		tool_error(path, "not a regular file");
		free(inode);
		return -1;
	}

	/* block by block, straight to the descriptor: nothing is held
	 * back in a stdio buffer, and memory does not grow with the file;
	 * the queue unpacks the blocks after the one being written */
	ret = sqfs_read_ahead_push(ctx->ahead, inode, true, NULL, 0);
	if (ret == 0)
		ret = rd_read_file(ctx, inode, true, to_stdout, NULL);
	if (ret < 0)
		rd_image_error(ctx, path);
	free(inode);
	return ret == 0 ? 0 : -1;
}

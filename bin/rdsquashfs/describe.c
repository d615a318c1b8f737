/* SPDX-License-Identifier: MIT */
/*
 * describe.c - --describe: the image as a gensquashfs pack file.
 *
 * One line per entry, depth first in listing order (a directory before
 * its contents, a hard link after the path it links to):
 *
 *   dir / MODE UID GID            the root's attributes
 *   dir PATH MODE UID GID
 *   file PATH MODE UID GID [PREFIX/PATH]
 *   slink PATH MODE UID GID TARGET
 *   link PATH MODE UID GID /FIRST-PATH
 *   nod PATH MODE UID GID c|b MAJOR MINOR
 *   pipe PATH MODE UID GID
 *   sock PATH MODE UID GID
 *
 * PATH is double-quoted (with \" and \\ escapes) when it holds white
 * space, a quote or a backslash. What follows the GID is taken to the end
 * of the line by gensquashfs, so it is written as it is. A name or target
 * with a line break cannot be written at all: such entries are left out
 * with a warning, and the run fails at the end.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "sqfs/walker.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool needs_quotes(const char *s)
{
	for (; *s != '\0'; ++s) {
		if (*s == ' ' || *s == '\t' || *s == '"' || *s == '\\' ||
		    *s == '\v' || *s == '\f')
			return true;
	}
	return false;
}

static bool has_line_break(const char *s, size_t len)
{
	return memchr(s, '\n', len) != NULL || memchr(s, '\r', len) != NULL;
}

static void print_path(const char *path)
{
	if (!needs_quotes(path)) {
		fputs(path, stdout);
		return;
	}
	putchar('"');
	for (; *path != '\0'; ++path) {
		if (*path == '"' || *path == '\\')
			putchar('\\');
		putchar(*path);
	}
	putchar('"');
}

static const char *type_word(uint16_t type)
{
	switch (type) {
	case SQFS_INODE_DIR:
		return "dir";
	case SQFS_INODE_FILE:
		return "file";
	case SQFS_INODE_SLINK:
		return "slink";
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		return "nod";
	case SQFS_INODE_FIFO:
		return "pipe";
	default:
		return "sock";
	}
}

/* 0: written, 1: skipped with a warning, 2: failed (reported) */
static int describe_entry(rd_ctx_t *ctx, const sqfs_walk_entry_t *ent)
{
	const sqfs_inode_t *inode = ent->inode;
	uint16_t type = sqfs_inode_type_basic(inode->type);
	const char *root = ctx->opt->unpack_root;
	uint32_t uid, gid, major, minor;
	int ret;

	if (has_line_break(ent->path, strlen(ent->path)) ||
	    (type == SQFS_INODE_SLINK &&
	     has_line_break((const char *)inode->payload,
			    inode->data.slink.target_size))) {
		tool_warning(ent->path, "a line break cannot be written in a "
					"pack file; skipped");
		return 1;
	}
	ret = sqfs_image_inode_owner(ctx->img, inode, &uid, &gid);
	if (ret != 0) {
		rd_image_error(ctx, ent->path);
		return 2;
	}

	fputs(ent->link_target != NULL ? "link" : type_word(type), stdout);
	putchar(' ');
	print_path(ent->depth == 0 ? "/" : ent->path);
	printf(" 0%o %" PRIu32 " %" PRIu32, (unsigned int)inode->mode, uid,
	       gid);

	if (ent->link_target != NULL) {
		printf(" /%s", ent->link_target);
	} else if (type == SQFS_INODE_FILE && root != NULL) {
		size_t len = strlen(root);

		printf(" %s%s%s", root,
		       len > 0 && root[len - 1] == '/' ? "" : "/", ent->path);
	} else if (type == SQFS_INODE_SLINK) {
		printf(" %.*s", (int)inode->data.slink.target_size,
		       (const char *)inode->payload);
	} else if (type == SQFS_INODE_BDEV || type == SQFS_INODE_CDEV) {
		sqfs_inode_decode_rdev(inode->data.dev.rdev, &major, &minor);
		printf(" %c %" PRIu32 " %" PRIu32,
		       type == SQFS_INODE_CDEV ? 'c' : 'b', major, minor);
	}
	putchar('\n');
	return 0;
}

int rd_describe(rd_ctx_t *ctx)
{
	sqfs_walk_entry_t ent;
	sqfs_walker_t *w;
	bool skipped = false;
	int ret;

	ret = sqfs_walker_create(ctx->img, "", 0, 0, &w);
	if (ret != 0) {
		rd_image_error(ctx, NULL);
		return -1;
	}
	while ((ret = sqfs_walker_next(w, &ent)) == 0) {
		ret = describe_entry(ctx, &ent);
		if (ret == 2)
			break;
		if (ret == 1)
			skipped = true;
	}
	if (ret < 0)
		rd_image_error(ctx, NULL);
	sqfs_walker_destroy(w);
	return ret == 1 && !skipped ? 0 : -1;
}

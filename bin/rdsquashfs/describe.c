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

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static const char *type_word(uint32_t type)
{
	switch (type) {
	case S_IFDIR:
		return "dir";
	case S_IFREG:
		return "file";
	case S_IFLNK:
		return "slink";
	case S_IFBLK:
	case S_IFCHR:
		return "nod";
	case S_IFIFO:
		return "pipe";
	default:
		return "sock";
	}
}

/* 0: written, 1: skipped with a warning */
static int describe_entry(rd_ctx_t *ctx, const sqfs_entry_t *e)
{
	uint32_t type = e->mode & S_IFMT;
	const char *root = ctx->opt->unpack_root;

	if (has_line_break(e->path, strlen(e->path)) ||
	    (type == S_IFLNK &&
	     has_line_break(e->symlink_target, strlen(e->symlink_target)))) {
		tool_warning(e->path, "a line break cannot be written in a "
				      "pack file; skipped");
		return 1;
	}

	fputs(e->hard_link != NULL ? "link" : type_word(type), stdout);
	putchar(' ');
	print_path(e->path[0] == '\0' ? "/" : e->path);
	printf(" 0%o %" PRIu32 " %" PRIu32, (unsigned int)(e->mode & 07777),
	       e->uid, e->gid);

	if (e->hard_link != NULL) {
		printf(" /%s", e->hard_link);
	} else if (type == S_IFREG && root != NULL) {
		size_t len = strlen(root);

		printf(" %s%s%s", root,
		       len > 0 && root[len - 1] == '/' ? "" : "/", e->path);
	} else if (type == S_IFLNK) {
		printf(" %s", e->symlink_target);
	} else if (type == S_IFBLK || type == S_IFCHR) {
		printf(" %c %" PRIu32 " %" PRIu32, type == S_IFCHR ? 'c' : 'b',
		       e->rdev_major, e->rdev_minor);
	}
	putchar('\n');
	return 0;
}

int rd_describe(rd_ctx_t *ctx)
{
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	bool skipped = false;
	int ret;

	if (rd_open_source(ctx, "", SQFS_SOURCE_NO_DATA | SQFS_SOURCE_NO_XATTRS,
			   &src) != 0)
		return -1;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		if (describe_entry(ctx, e) != 0)
			skipped = true;
	}
	if (ret < 0)
		rd_image_error(ctx, NULL);
	sqfs_image_source_destroy(src);
	return ret == 1 && !skipped ? 0 : -1;
}

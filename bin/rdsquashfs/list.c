/* SPDX-License-Identifier: MIT */
/*
 * list.c - --list: a directory listing, ls -l style.
 *
 * The format is Debian's rdsquashfs (squashfs-tools-ng) byte for byte, so
 * that scripts and eyes used to it see the same thing:
 *
 *   MODE UID/GID SIZE NAME[ -> TARGET]
 *
 * UID right-aligned and GID left-aligned each in a column as wide as its
 * widest value, SIZE right-aligned: bytes up to 1024, then k, M, G, ...
 * rounded to nearest; MAJOR:MINOR for devices; the listing size for
 * directories; the target length for symlinks.
 *
 * The columns are as wide as their widest value, which is known only at
 * the end of the listing, and a directory may hold millions of entries:
 * rather than keep them all, the listing is read twice, once for the
 * widths and once to print (a listing is sorted on disk, so both passes
 * see the same entries in the same order). Memory does not grow with the
 * directory; the time doubles, which reading inodes dominates.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/mode_string.h"
#include "common/print.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The column widths. */
typedef struct {
	int uid;
	int gid;
	int size;
} widths_t;

static void human_size(uint64_t size, char *buf, size_t len)
{
	static const char units[] = "kMGTPE";
	size_t unit = 0;

	while (size > 1024 && unit < sizeof(units) - 1) {
		size = size / 1024 + (size % 1024 >= 512);
		++unit;
	}
	if (unit == 0)
		snprintf(buf, len, "%" PRIu64, size);
	else
		snprintf(buf, len, "%" PRIu64 "%c", size, units[unit - 1]);
}

static void size_string(const sqfs_entry_t *e, char *buf, size_t len)
{
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
	case S_IFLNK:
		/* the listing's size, the target's length */
		snprintf(buf, len, "%" PRIu64, e->size);
		break;
	case S_IFREG:
		human_size(e->size, buf, len);
		break;
	case S_IFBLK:
	case S_IFCHR:
		snprintf(buf, len, "%" PRIu32 ":%" PRIu32, e->rdev_major,
			 e->rdev_minor);
		break;
	default:
		snprintf(buf, len, "0");
		break;
	}
}

/*
 * Debian's tool counts the digits of the widest id by dividing while the
 * value is greater than 10, so 10, 100..109, 1000..1099 ... count one
 * digit less (and stick out of the column by one). Kept, so that the
 * listing stays byte-identical.
 */
static int id_width(uint32_t value)
{
	int n = 1;

	while (value > 10) {
		value /= 10;
		++n;
	}
	return n;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static void widen(widths_t *w, const sqfs_entry_t *e)
{
	char size[24];
	int n;

	size_string(e, size, sizeof(size));
	if ((n = id_width(e->uid)) > w->uid)
		w->uid = n;
	if ((n = id_width(e->gid)) > w->gid)
		w->gid = n;
	if ((n = (int)strlen(size)) > w->size)
		w->size = n;
}

static void print_entry(const widths_t *w, const char *name,
			const sqfs_entry_t *e)
{
	char mode[11], size[24];

	mode_string(e->mode, mode);
	size_string(e, size, sizeof(size));
	printf("%s %*" PRIu32 "/%-*" PRIu32 " %*s %s", mode, w->uid, e->uid,
	       w->gid, e->gid, w->size, size, name);
	if ((e->mode & S_IFMT) == S_IFLNK)
		printf(" -> %s", e->symlink_target);
	putchar('\n');
}

/* One pass over the entry at path and, for a directory, its entries:
 * measuring the columns into w, or printing with them. */
static int list_pass(rd_ctx_t *ctx, widths_t *w, bool print)
{
	const char *path = ctx->opt->cmdpath;
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	char name[260];
	int ret;

	if (rd_open_source(ctx, path,
			   SQFS_SOURCE_ONE_LEVEL | SQFS_SOURCE_NO_DATA |
			       SQFS_SOURCE_NO_XATTRS,
			   &src) != 0)
		return -1;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		const char *shown = base_name(e->path);

		if (e->path[0] == '\0') {
			if ((e->mode & S_IFMT) == S_IFDIR)
				continue;
			rd_path_basename(path, name, sizeof(name));
			shown = name;
		}
		if (print)
			print_entry(w, shown, e);
		else
			widen(w, e);
	}
	if (ret < 0)
		rd_image_error(ctx, NULL);
	sqfs_image_source_destroy(src);
	return ret < 0 ? -1 : 0;
}

int rd_list(rd_ctx_t *ctx)
{
	widths_t w = {1, 1, 1};

	/* a damaged listing fails the first pass: nothing is printed */
	if (list_pass(ctx, &w, false) != 0)
		return -1;
	return list_pass(ctx, &w, true);
}

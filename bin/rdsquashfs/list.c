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

typedef struct {
	char *name;
	char *target;
	char mode[11];
	char size[24];
	uint32_t uid;
	uint32_t gid;
} list_entry_t;

typedef struct {
	list_entry_t *ent;
	size_t count;
	size_t max;
} list_t;

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

static int add_entry(list_t *list, const char *name, const sqfs_entry_t *e)
{
	list_entry_t *le;

	if (list->count == list->max) {
		size_t max = list->max ? list->max * 2 : 64;
		list_entry_t *n = realloc(list->ent, max * sizeof(n[0]));

		if (n == NULL)
			goto fail_alloc;
		list->ent = n;
		list->max = max;
	}
	le = &list->ent[list->count];
	memset(le, 0, sizeof(*le));
	le->uid = e->uid;
	le->gid = e->gid;
	mode_string(e->mode, le->mode);
	size_string(e, le->size, sizeof(le->size));
	le->name = strdup(name);
	if (le->name == NULL)
		goto fail_alloc;
	if ((e->mode & S_IFMT) == S_IFLNK) {
		le->target = strdup(e->symlink_target);
		if (le->target == NULL) {
			free(le->name);
			goto fail_alloc;
		}
	}
	list->count++;
	return 0;
fail_alloc:
	tool_error(NULL, "out of memory");
	return -1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static void print_list(const list_t *list)
{
	int uid_w = 1, gid_w = 1, size_w = 1, w;

	for (size_t i = 0; i < list->count; ++i) {
		const list_entry_t *e = &list->ent[i];

		if ((w = id_width(e->uid)) > uid_w)
			uid_w = w;
		if ((w = id_width(e->gid)) > gid_w)
			gid_w = w;
		if ((w = (int)strlen(e->size)) > size_w)
			size_w = w;
	}

	for (size_t i = 0; i < list->count; ++i) {
		const list_entry_t *e = &list->ent[i];

		printf("%s %*" PRIu32 "/%-*" PRIu32 " %*s %s", e->mode, uid_w,
		       e->uid, gid_w, e->gid, size_w, e->size, e->name);
		if (e->target != NULL)
			printf(" -> %s", e->target);
		putchar('\n');
	}
}

int rd_list(rd_ctx_t *ctx)
{
	const char *path = ctx->opt->cmdpath;
	list_t list = {NULL, 0, 0};
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	char name[260];
	bool failed = false;
	int ret;

	/* the entry and, for a directory, the entries in it */
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
		if (add_entry(&list, shown, e) != 0) {
			failed = true;
			break;
		}
	}
	if (!failed && ret < 0) {
		rd_image_error(ctx, NULL);
		failed = true;
	}
	if (!failed)
		print_list(&list);

	for (size_t i = 0; i < list.count; ++i) {
		free(list.ent[i].name);
		free(list.ent[i].target);
	}
	free(list.ent);
	sqfs_image_source_destroy(src);
	return failed ? -1 : 0;
}

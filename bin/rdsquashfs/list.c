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
#include "common/print.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void mode_string(const sqfs_inode_t *inode, char out[11])
{
	/* by basic type: dir file slink bdev cdev fifo socket */
	static const char types[] = "?d-lbcps";
	uint16_t type = sqfs_inode_type_basic(inode->type);
	uint16_t m = inode->mode;

	out[0] = type < sizeof(types) - 1 ? types[type] : '?';
	out[1] = (m & 0400) ? 'r' : '-';
	out[2] = (m & 0200) ? 'w' : '-';
	out[3] =
	    (m & 04000) ? ((m & 0100) ? 's' : 'S') : ((m & 0100) ? 'x' : '-');
	out[4] = (m & 040) ? 'r' : '-';
	out[5] = (m & 020) ? 'w' : '-';
	out[6] =
	    (m & 02000) ? ((m & 010) ? 's' : 'S') : ((m & 010) ? 'x' : '-');
	out[7] = (m & 04) ? 'r' : '-';
	out[8] = (m & 02) ? 'w' : '-';
	out[9] = (m & 01000) ? ((m & 01) ? 't' : 'T') : ((m & 01) ? 'x' : '-');
	out[10] = '\0';
}

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

static void size_string(const sqfs_inode_t *inode, char *buf, size_t len)
{
	uint32_t major, minor;

	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_DIR:
		snprintf(buf, len, "%" PRIu32, inode->data.dir.size);
		break;
	case SQFS_INODE_FILE:
		human_size(inode->data.file.file_size, buf, len);
		break;
	case SQFS_INODE_SLINK:
		snprintf(buf, len, "%" PRIu32, inode->data.slink.target_size);
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(inode->data.dev.rdev, &major, &minor);
		snprintf(buf, len, "%" PRIu32 ":%" PRIu32, major, minor);
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

static int add_entry(rd_ctx_t *ctx, list_t *list, const char *name,
		     const sqfs_inode_t *inode)
{
	list_entry_t *e;
	int ret;

	if (list->count == list->max) {
		size_t max = list->max ? list->max * 2 : 64;
		list_entry_t *n = realloc(list->ent, max * sizeof(n[0]));

		if (n == NULL)
			goto fail_alloc;
		list->ent = n;
		list->max = max;
	}
	e = &list->ent[list->count];
	memset(e, 0, sizeof(*e));

	ret = sqfs_image_inode_owner(ctx->img, inode, &e->uid, &e->gid);
	if (ret != 0) {
		rd_image_error(ctx, name);
		return -1;
	}
	mode_string(inode, e->mode);
	size_string(inode, e->size, sizeof(e->size));
	e->name = strdup(name);
	if (e->name == NULL)
		goto fail_alloc;
	if (sqfs_inode_type_basic(inode->type) == SQFS_INODE_SLINK) {
		e->target = strndup((const char *)inode->payload,
				    inode->data.slink.target_size);
		if (e->target == NULL) {
			free(e->name);
			goto fail_alloc;
		}
	}
	list->count++;
	return 0;
fail_alloc:
	tool_error(NULL, "out of memory");
	return -1;
}

static int read_dir(rd_ctx_t *ctx, list_t *list, const sqfs_inode_t *dir)
{
	sqfs_dir_entry_t ent;
	sqfs_inode_t *inode;
	int ret;

	ret = sqfs_dir_reader_open(ctx->dr, dir);
	while (ret == 0) {
		ret = sqfs_dir_reader_next(ctx->dr, &ent);
		if (ret != 0)
			break;
		ret = sqfs_image_read_inode(ctx->img, ent.inode_ref, &inode);
		if (ret != 0)
			break;
		ret = add_entry(ctx, list, ent.name, inode);
		free(inode);
		if (ret != 0)
			return -1;
	}
	if (ret < 0) {
		rd_image_error(ctx, ctx->opt->cmdpath);
		return -1;
	}
	return 0;
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
	sqfs_inode_t *inode;
	char name[260];
	int ret;

	if (rd_resolve(ctx, path, &inode) != 0)
		return -1;

	if (sqfs_inode_type_basic(inode->type) == SQFS_INODE_DIR) {
		ret = read_dir(ctx, &list, inode);
	} else {
		rd_path_basename(path, name, sizeof(name));
		ret = add_entry(ctx, &list, name, inode);
	}
	if (ret == 0)
		print_list(&list);

	for (size_t i = 0; i < list.count; ++i) {
		free(list.ent[i].name);
		free(list.ent[i].target);
	}
	free(list.ent);
	free(inode);
	return ret;
}

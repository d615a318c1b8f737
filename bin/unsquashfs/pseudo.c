/* SPDX-License-Identifier: MIT */
/*
 * pseudo.c - -pf FILE: the image as a mksquashfs pseudo file, followed by
 * the data of its files, as 4.7.5 writes it (mksquashfs -pd reads it
 * back):
 *
 *   NAME TYPE MTIME MODE UID GID [what the type needs]
 *   NAME x KEY=VALUE           one line per xattr, after its entry
 *   #\n# START OF DATA - DO NOT MODIFY\n#\n
 *   the bytes of every regular file, in order
 *
 * A file line holds its size, where its bytes start after the marker and
 * whether it has holes (they are written as zeros all the same); a hard
 * link is "NAME L TARGET". Names escape backslash, space, tab, newline
 * and double quotes with a backslash; a value that is not all printable
 * is written 0t, its other bytes as \ooo.
 */
#include "config.h"

#include "unsquashfs.h"
#include "common/write_all.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void put_name(FILE *fp, const char *name)
{
	for (; *name != '\0'; ++name) {
		if (strchr("\\ \t\n\"", *name) != NULL)
			fputc('\\', fp);
		fputc(*name, fp);
	}
}

static void put_value(FILE *fp, const uint8_t *v, size_t size)
{
	bool text = true;

	for (size_t i = 0; i < size; ++i)
		text = text && isprint(v[i]);
	if (text) {
		fwrite(v, 1, size, fp);
		return;
	}
	fputs("0t", fp);
	for (size_t i = 0; i < size; ++i) {
		if (isprint(v[i]))
			fputc(v[i], fp);
		else
			fprintf(fp, "\\%03o", v[i]);
	}
}

static char type_letter(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return 'D';
	case S_IFREG:
		return 'R';
	case S_IFLNK:
		return 'S';
	case S_IFBLK:
		return 'B';
	case S_IFCHR:
		return 'C';
	default:
		return 'I';
	}
}

/* Whether the current file has holes: its data ranges do not add up to
 * its size. */
static int has_holes(sqfs_image_source_t *src, const sqfs_entry_t *e, bool *out)
{
	const sqfs_extent_t *list;
	uint64_t data = 0;
	size_t count;
	int ret = sqfs_image_source_extents(src, &list, &count);

	if (ret != 0)
		return ret;
	for (size_t i = 0; i < count; ++i)
		data += list[i].size;
	*out = data != e->size;
	return 0;
}

static int write_header(uq_ctx_t *ctx, FILE *fp)
{
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	uint64_t offset = 0;
	int ret;

	if (uq_open_source(
		ctx,
		SQFS_SOURCE_NO_DATA |
		    (ctx->opt->no_xattrs ? SQFS_SOURCE_NO_XATTRS : 0),
		&src) != 0)
		return -1;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		const char *name = e->path[0] == '\0' ? "/" : e->path;
		bool sparse = false;

		if (e->path[0] == '\0')
			fputs("/", fp);
		else
			put_name(fp, name);
		if (e->hard_link != NULL) {
			fputs(" L ", fp);
			put_name(fp, e->hard_link);
			fputc('\n', fp);
			continue;
		}
		/* 4.7.5 prints owners as signed numbers */
		fprintf(fp, " %c %llu %o %d %d", type_letter(e->mode),
			(unsigned long long)(uint32_t)e->mtime,
			(unsigned int)(e->mode & 07777), (int)(int32_t)e->uid,
			(int)(int32_t)e->gid);
		switch (e->mode & S_IFMT) {
		case S_IFREG:
			ret = has_holes(src, e, &sparse);
			if (ret != 0)
				goto fail;
			fprintf(fp, " %llu %llu %d",
				(unsigned long long)e->size,
				(unsigned long long)offset, sparse ? 1 : 0);
			offset += e->size;
			break;
		case S_IFLNK:
			fprintf(fp, " %s", e->symlink_target);
			break;
		case S_IFBLK:
		case S_IFCHR:
			fprintf(fp, " %d %d", uq_rdev_major(e),
				uq_rdev_minor(e));
			break;
		case S_IFIFO:
			fputs(" f", fp);
			break;
		case S_IFSOCK:
			fputs(" s", fp);
			break;
		default:
			break;
		}
		fputc('\n', fp);
		for (size_t i = 0; i < e->xattr_count; ++i) {
			put_name(fp, name);
			fprintf(fp, " x %s=", e->xattrs[i].key);
			put_value(fp, e->xattrs[i].value, e->xattrs[i].size);
			fputc('\n', fp);
		}
	}
	if (ret < 0)
		goto fail;
	sqfs_image_source_destroy(src);
	return 0;
fail:
	uq_fatal_image(ctx);
	sqfs_image_source_destroy(src);
	return -1;
}

static int write_data(uq_ctx_t *ctx, FILE *fp)
{
	static const uint8_t zeros[4096];
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	int ret;

	if (uq_open_source(ctx, SQFS_SOURCE_NO_XATTRS, &src) != 0)
		return -1;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		if (!S_ISREG(e->mode) || e->hard_link != NULL)
			continue;
		while ((ret = sqfs_image_source_read(src, &run)) == 0) {
			uint64_t left = run.size;

			if (run.data != NULL) {
				fwrite(run.data, 1, (size_t)run.size, fp);
				continue;
			}
			while (left > 0) {
				size_t n = left < sizeof(zeros) ? (size_t)left
								: sizeof(zeros);

				fwrite(zeros, 1, n, fp);
				left -= n;
			}
		}
		if (ret < 0)
			break;
	}
	sqfs_image_source_destroy(src);
	if (ret < 0) {
		uq_fatal_image(ctx);
		return -1;
	}
	return 0;
}

int uq_pseudo(uq_ctx_t *ctx)
{
	const char *path = ctx->opt->pseudo_file;
	bool to_stdout = strcmp(path, "-") == 0;
	FILE *fp = to_stdout ? stdout : fopen(path, "w");
	int ret;

	if (fp == NULL) {
		fprintf(stderr,
			"FATAL ERROR: Failed to open pseudo file \"%s\" "
			"because %s\n",
			path, strerror(errno));
		return -1;
	}
	ret = write_header(ctx, fp);
	if (ret == 0) {
		fputs("#\n# START OF DATA - DO NOT MODIFY\n#\n", fp);
		ret = write_data(ctx, fp);
	}
	if (!to_stdout && fclose(fp) != 0 && ret == 0) {
		fprintf(stderr, "FATAL ERROR: writing \"%s\": %s\n", path,
			strerror(errno));
		ret = -1;
	}
	return ret;
}

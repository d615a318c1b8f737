/* SPDX-License-Identifier: MIT */
/*
 * list.c - -l, -ll, -lln, -lc, -llc (and -i, -li while extracting).
 *
 * snapd parses these lines, so they are 4.7.5's to the byte. Its layout,
 * found by running it: the mode as ls shows it, "user/group" (names from
 * the password and group databases, else numbers), then the size right
 * aligned so that owner and size fill 26 columns after one space (at
 * least one space between them); a device shows "major,minor" with each
 * number at least 3 wide, the owner padded to 20 columns and at least 2
 * spaces after it. Device numbers are those of the 32-bit word the image
 * stores, split as the old kernel did (the word shifted right by 8 as a
 * signed number, and its low 8 bits). Then the time (local, or UTC with
 * -UTC; seconds with -full-precision), and the path under the -d prefix,
 * printed raw, with " -> target" for a symlink.
 */
#include "config.h"

#include "unsquashfs.h"
#include "common/mode_string.h"
#include "common/print.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The last owner looked up: listings come in runs of the same owner. */
typedef struct {
	bool valid;
	uint32_t id;
	char text[32];
} name_cache_t;

static const char *user_name(name_cache_t *c, uint32_t uid, bool numeric)
{
	struct passwd *pw;

	if (c->valid && c->id == uid)
		return c->text;
	pw = numeric ? NULL : getpwuid((uid_t)uid);
	if (pw != NULL && strlen(pw->pw_name) < sizeof(c->text))
		snprintf(c->text, sizeof(c->text), "%s", pw->pw_name);
	else
		snprintf(c->text, sizeof(c->text), "%u", uid);
	c->valid = true;
	c->id = uid;
	return c->text;
}

static const char *group_name(name_cache_t *c, uint32_t gid, bool numeric)
{
	struct group *gr;

	if (c->valid && c->id == gid)
		return c->text;
	gr = numeric ? NULL : getgrgid((gid_t)gid);
	if (gr != NULL && strlen(gr->gr_name) < sizeof(c->text))
		snprintf(c->text, sizeof(c->text), "%s", gr->gr_name);
	else
		snprintf(c->text, sizeof(c->text), "%u", gid);
	c->valid = true;
	c->id = gid;
	return c->text;
}

/* The path as listed: the -d prefix, then the entry's path. */
static void print_path(const uq_options_t *opt, const sqfs_entry_t *e)
{
	if (e->path[0] == '\0')
		printf("%s", opt->dest);
	else
		printf("%s/%s", opt->dest, e->path);
}

static void print_long(const uq_options_t *opt, bool numeric,
		       const sqfs_entry_t *e)
{
	static name_cache_t users, groups;
	char mode[11], owner[80], when[32] = "";
	time_t t = (time_t)(uint32_t)e->mtime;
	int width, len;
	struct tm tm;

	mode_string(e->mode, mode);
	len = snprintf(owner, sizeof(owner), "%s/%s",
		       user_name(&users, e->uid, numeric),
		       group_name(&groups, e->gid, numeric));
	if (S_ISCHR(e->mode) || S_ISBLK(e->mode)) {
		int pad = 20 - len < 2 ? 2 : 20 - len;

		printf("%s %s%*s%3d,%3d", mode, owner, pad, "",
		       uq_rdev_major(e), uq_rdev_minor(e));
	} else {
		/* a negative width would pad on the right, as printf does */
		width = 26 - len;
		printf("%s %s %*llu", mode, owner, width,
		       (unsigned long long)e->size);
	}
	if ((opt->utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)) != NULL)
		strftime(when, sizeof(when),
			 opt->full_precision ? "%Y-%m-%d %H:%M:%S"
					     : "%Y-%m-%d %H:%M",
			 &tm);
	printf(" %s ", when);
	print_path(opt, e);
	if (S_ISLNK(e->mode) && e->symlink_target != NULL)
		printf(" -> %s", e->symlink_target);
	printf("\n");
}

/* The 32-bit word the image stores, from the split the library made. */
static uint32_t rdev_word(const sqfs_entry_t *e)
{
	return (e->rdev_minor & 0xffu) | ((e->rdev_major & 0xfffu) << 8) |
	       ((e->rdev_minor & ~0xffu) << 12);
}

int uq_rdev_major(const sqfs_entry_t *e)
{
	/* an arithmetic shift of the signed word, as 4.7.5 does */
	int32_t word = (int32_t)rdev_word(e);

	return word < 0 ? -(int)((~(uint32_t)word) >> 8) - 1 : word >> 8;
}

int uq_rdev_minor(const sqfs_entry_t *e)
{
	return (int)(rdev_word(e) & 0xffu);
}

void uq_print_entry(const uq_options_t *opt, uq_show_t show,
		    const sqfs_entry_t *e)
{
	switch (show) {
	case UQ_SHOW_NAMES:
		print_path(opt, e);
		printf("\n");
		break;
	case UQ_SHOW_LONG:
	case UQ_SHOW_NUMERIC:
		print_long(opt, show == UQ_SHOW_NUMERIC, e);
		break;
	default:
		break;
	}
}

/* -lc and -llc show files, and directories only when they are empty
 * (a directory's size is its listing's plus 3). */
static bool concise_shows(const sqfs_entry_t *e, uq_verdict_t v)
{
	if (!S_ISDIR(e->mode))
		return true;
	return v == UQ_TAKE && e->size <= 3;
}

int uq_list(uq_ctx_t *ctx)
{
	const uq_options_t *opt = ctx->opt;
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	int ret;

	if (uq_open_source(ctx, SQFS_SOURCE_NO_DATA | SQFS_SOURCE_NO_XATTRS,
			   &src) != 0)
		return -1;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		uq_verdict_t v = uq_select(opt, e);

		if (v == UQ_SKIP)
			continue;
		if (opt->concise && !concise_shows(e, v))
			continue;
		uq_print_entry(opt, opt->show, e);
	}
	sqfs_image_source_destroy(src);
	if (ret < 0) {
		uq_fatal_image(ctx);
		return -1;
	}
	return 0;
}

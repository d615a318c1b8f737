/* SPDX-License-Identifier: MIT */
/*
 * extract.c - extraction into -d DIR, through rdsquashfs's unpacker.
 *
 * The unpacker (bin/rdsquashfs/unpack.c) creates every entry relative to
 * its parent's descriptor and never follows a symlink, so nothing is
 * written outside DIR whatever the image holds; this file only adds what
 * 4.7.5 adds around it: the selection of paths, -i/-li lines, the header
 * ("N inodes (M blocks) to write"), the progress bar's last state and the
 * "created N ..." summary, all on stdout as 4.7.5 prints them.
 */
#include "config.h"

#include "unsquashfs.h"
#include "common/print.h"
#include "../rdsquashfs/rdsquashfs.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	const uq_options_t *opt;
	unsigned long files, dirs, symlinks, devices, fifos, sockets, links;
	/* tool_warning_count() when the unpack began */
	unsigned int warnings;
} counts_t;

static rd_select_t select_entry(void *user, const sqfs_entry_t *e)
{
	counts_t *c = user;

	/* -strict-errors: a non-fatal error (a warning of the unpacker)
	 * ends the run before the next entry */
	if (c->opt->strict_errors && tool_warning_count() > c->warnings) {
		fputs("FATAL ERROR: -strict-errors makes the error above "
		      "fatal\n",
		      stderr);
		return RD_SELECT_STOP;
	}
	if (uq_select(c->opt, e) == UQ_SKIP)
		return RD_SELECT_SKIP;
	if (c->opt->show != UQ_SHOW_NONE)
		uq_print_entry(c->opt, c->opt->show, e);
	if (e->hard_link != NULL) {
		c->links++;
		return RD_SELECT_TAKE;
	}
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		c->dirs++;
		break;
	case S_IFREG:
		c->files++;
		break;
	case S_IFLNK:
		c->symlinks++;
		break;
	case S_IFBLK:
	case S_IFCHR:
		c->devices++;
		break;
	case S_IFIFO:
		c->fifos++;
		break;
	default:
		c->sockets++;
		break;
	}
	return RD_SELECT_TAKE;
}

/*
 * What 4.7.5 announces before it writes: the entries other than
 * directories, and the blocks of the files (a tail in a fragment counts
 * as one).
 */
static int count_work(uq_ctx_t *ctx, unsigned long *inodes,
		      unsigned long *blocks)
{
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	int ret;

	*inodes = *blocks = 0;
	if (uq_open_source(ctx, SQFS_SOURCE_NO_DATA | SQFS_SOURCE_NO_XATTRS,
			   &src) != 0)
		return -1;
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		if (S_ISDIR(e->mode) || uq_select(ctx->opt, e) == UQ_SKIP)
			continue;
		*inodes += 1;
		if (S_ISREG(e->mode) && e->hard_link == NULL)
			*blocks +=
			    (unsigned long)((e->size + ctx->block_size - 1) /
					    ctx->block_size);
	}
	sqfs_image_source_destroy(src);
	if (ret < 0) {
		uq_fatal_image(ctx);
		return -1;
	}
	return 0;
}

/* The bar as 4.7.5 leaves it when done, 80 columns wide. */
static void print_final_bar(unsigned long total)
{
	char nums[64];
	int len = snprintf(nums, sizeof(nums), " %lu/%lu 100%%", total, total);
	int width = 80 - 4 - len;

	putchar('\r');
	putchar('[');
	for (int i = 0; i < width; ++i)
		putchar('=');
	printf("|]%s\n", nums);
}

static void print_count(unsigned long n, const char *one, const char *many)
{
	printf("created %lu %s\n", n, n == 1 ? one : many);
}

int uq_extract(uq_ctx_t *ctx)
{
	const uq_options_t *opt = ctx->opt;
	unsigned long inodes, blocks;
	rd_options_t rd;
	rd_ctx_t rctx;
	counts_t c;
	int ret;

	if (count_work(ctx, &inodes, &blocks) != 0)
		return -1;
	if (!opt->quiet) {
		printf("Parallel unsquashfs: Using %u processor%s\n",
		       opt->num_jobs, opt->num_jobs == 1 ? "" : "s");
		printf("%lu inodes (%lu blocks) to write\n\n", inodes, blocks);
	}

	memset(&c, 0, sizeof(c));
	c.opt = opt;
	c.warnings = tool_warning_count();
	memset(&rd, 0, sizeof(rd));
	rd.op = OP_UNPACK;
	rd.cmdpath = "";
	rd.image = opt->image;
	rd.unpack_root = opt->dest;
	rd.flags = UNPACK_SET_TIMES | UNPACK_CHMOD;
	if (geteuid() == 0)
		rd.flags |= UNPACK_CHOWN;
	if (!opt->no_xattrs)
		rd.flags |= UNPACK_SET_XATTR;
	if (opt->force)
		rd.flags |= UNPACK_FORCE;
	rd.quiet = true;
	rd.num_jobs = opt->num_jobs;
	rd.select = select_entry;
	rd.select_user = &c;
	rd.root_attrs = true;
	rd.fixed_time = opt->all_time_set;
	rd.fixed_mtime = opt->all_time;

	memset(&rctx, 0, sizeof(rctx));
	rctx.opt = &rd;
	rctx.file = ctx->view;
	rctx.img = ctx->img;
	rctx.block_size = ctx->block_size;

	/* -i lines and the unpacker's messages in the order they happen */
	fflush(stdout);
	ret = rd_unpack(&rctx);
	/* what the unpacker warned of is a non-fatal error: exit status 2
	 * (-no-exit-code: 0), or with -strict-errors a fatal one */
	ctx->nonfatal += tool_warning_count() - c.warnings;
	if (ret == 0 && opt->strict_errors && ctx->nonfatal > 0) {
		fputs("FATAL ERROR: -strict-errors makes the error above "
		      "fatal\n",
		      stderr);
		ret = -1;
	}
	if (ret != 0)
		return -1;

	/* -i and -li take the place of the bar */
	if (!opt->no_progress && opt->show == UQ_SHOW_NONE) {
		/* with nothing to write, 4.7.5 draws no bar but ends its
		 * line all the same */
		if (inodes + blocks > 0)
			print_final_bar(inodes + blocks);
		else
			putchar('\n');
	}
	if (!opt->quiet) {
		printf("\n");
		print_count(c.files, "file", "files");
		print_count(c.dirs, "directory", "directories");
		print_count(c.symlinks, "symlink", "symlinks");
		print_count(c.devices, "device", "devices");
		print_count(c.fifos, "fifo", "fifos");
		print_count(c.sockets, "socket", "sockets");
		print_count(c.links, "hardlink", "hardlinks");
	}
	return 0;
}

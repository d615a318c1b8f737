/* SPDX-License-Identifier: MIT */
/*
 * extract.c - extraction into -d DIR, through the library's unpacker.
 *
 * The unpacker (sqfs/unpack.h) makes every entry relative to its
 * parent's descriptor and never follows a symlink, so nothing is written
 * outside DIR whatever the image holds; this file only adds what
 * 4.7.5 adds around it: the selection of paths, -i/-li lines, the header
 * ("N inodes (M blocks) to write"), the progress bar's last state and the
 * "created N ..." summary, all on stdout as 4.7.5 prints them.
 */
#include "config.h"

#include "unsquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/unpack.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	const uq_options_t *opt;
	unsigned long files, dirs, symlinks, devices, fifos, sockets, links;
	/* tool_warning_count() when the unpack began */
	unsigned int warnings;
} counts_t;

/* The unpacker's selection: 1 takes the entry, 0 leaves it out, an
 * error stops the run (said here). */
static int select_entry(void *user, const sqfs_entry_t *e)
{
	counts_t *c = user;

	/* -strict-errors: a non-fatal error (a warning of the unpacker)
	 * ends the run before the next entry */
	if (c->opt->strict_errors && tool_warning_count() > c->warnings) {
		fputs("FATAL ERROR: -strict-errors makes the error above "
		      "fatal\n",
		      stderr);
		return SQFS_ERROR_ABORTED;
	}
	if (uq_select(c->opt, e) == UQ_SKIP)
		return 0;
	if (c->opt->show != UQ_SHOW_NONE)
		uq_print_entry(c->opt, c->opt->show, e);
	if (e->hard_link != NULL) {
		c->links++;
		return 1;
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
	return 1;
}

/* What the unpacker could not do and left out: a non-fatal error. */
static void warn(void *user, const char *words)
{
	(void)user;
	tool_warning(NULL, "%s", words);
}

/* One descriptor per directory level is kept open: allow as many as
 * the hard limit does. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_unpack_options_t uo;
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
	sqfs_unpack_options_init(&uo);
	/* the destination is made as the image's root */
	uo.flags = SQFS_UNPACK_SET_TIMES | SQFS_UNPACK_CHMOD |
		   SQFS_UNPACK_MAKE_DEST | SQFS_UNPACK_ROOT_ATTRS;
	if (geteuid() == 0)
		uo.flags |= SQFS_UNPACK_CHOWN;
	if (!opt->no_xattrs)
		uo.flags |= SQFS_UNPACK_SET_XATTRS;
	if (opt->force)
		uo.flags |= SQFS_UNPACK_OVERWRITE;
	if (opt->all_time_set) {
		uo.flags |= SQFS_UNPACK_FIXED_TIME;
		uo.mtime = opt->all_time;
	}
	uo.num_jobs = opt->num_jobs;
	uo.image_name = opt->image;
	uo.select = select_entry;
	uo.warn = warn;
	uo.user = &c;
	if (opt->dest[0] == '\0') {
		tool_error(NULL, "--unpack-root: empty path");
		return -1;
	}
	raise_fd_limit();

	/* -i lines and the unpacker's messages in the order they happen */
	fflush(stdout);
	ret = sqfs_unpack(ctx->img, "", opt->dest, &uo, why);
	/* a stop of the selection said why already */
	if (ret != 0 && why[0] != '\0')
		tool_error(NULL, "%s", why);
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

/* SPDX-License-Identifier: MIT */
/*
 * unpack.c - --unpack-path: a subtree of the image onto the disk, through
 * the library's unpacker (sqfs/unpack.h).
 *
 * The image is untrusted and so is whatever already lies in the target
 * directory: the library makes every entry relative to its parent's
 * descriptor and never follows a symlink, so nothing is written outside
 * the target. This front end adds rdsquashfs's layout (the directories
 * leading to the path made below the target, with their attributes if
 * asked for), makes the target with its parents, raises the open-file
 * limit (one descriptor per directory level is kept open), and prints:
 * each entry on stdout unless --quiet, warnings and the failure on
 * stderr.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <stdio.h>
#include <sys/resource.h>

static void report(void *user, const char *what, const char *path)
{
	(void)user;
	printf("%s %s\n", what, path);
}

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

int rd_unpack(rd_ctx_t *ctx)
{
	const char *dest =
	    ctx->opt->unpack_root != NULL ? ctx->opt->unpack_root : ".";
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_unpack_options_t opt;

	if (dest[0] == '\0') {
		tool_error(NULL, "--unpack-root: empty path");
		return -1;
	}
	sqfs_unpack_options_init(&opt);
	opt.flags =
	    ctx->opt->flags | SQFS_UNPACK_KEEP_PARENTS | SQFS_UNPACK_MAKE_DEST;
	opt.num_jobs = ctx->opt->num_jobs;
	opt.image_name = ctx->opt->image;
	opt.report = ctx->opt->quiet ? NULL : report;
	opt.warn = warn;
	raise_fd_limit();
	if (sqfs_unpack(ctx->img, ctx->opt->cmdpath, dest, &opt, why) != 0) {
		tool_error(NULL, "%s", why);
		return -1;
	}
	return 0;
}

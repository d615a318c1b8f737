/* SPDX-License-Identifier: MIT */
/*
 * run.c - the life of a mount: options, the background, the image, the
 * session, the mount, the loop, the unmount.
 */
#include "config.h"

#include "common/cli.h"
#include "common/print.h"
#include "sqfsmount.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
	sqfs_file_t *file;
	mount_ctx_t ctx;
} mount_image_t;

/* Open the image and find the directory to serve as the root. Every
 * failure is printed with the image's name and the library's words. */
static int open_image(const mount_options_t *opt, mount_image_t *mi)
{
	char why[SQFS_ERROR_TEXT_SIZE] = "";
	sqfs_fs_stat_t st;
	uint64_t offset;
	int ret;

	if (image_file_open_at(opt->image, &opt->offset, &mi->file, &offset) !=
	    0)
		return -1;
	ret = sqfs_fs_open(mi->file, &opt->fs, &mi->ctx.fs, why);
	if (ret != 0) {
		image_open_error(opt->image, offset,
				 why[0] != '\0' ? why : sqfs_error_string(ret));
		return -1;
	}
	mi->ctx.root = sqfs_fs_root(mi->ctx.fs);
	if (opt->subdir != NULL)
		ret = sqfs_fs_resolve(mi->ctx.fs, opt->subdir, &mi->ctx.root,
				      why);
	if (ret == 0)
		ret = sqfs_fs_stat(mi->ctx.fs, mi->ctx.root, &st, why);
	if (ret == 0 && !S_ISDIR(st.mode)) {
		ret = SQFS_ERROR_NOT_DIR;
		why[0] = '\0';
	}
	if (ret != 0) {
		tool_error(opt->image, "%s%s: %s",
			   opt->subdir != NULL ? "subdir " : "",
			   opt->subdir != NULL ? opt->subdir : "the root",
			   why[0] != '\0' ? why : sqfs_error_string(ret));
		return -1;
	}
	mi->ctx.root_ino = st.ino;
	return 0;
}

static void close_image(mount_image_t *mi)
{
	mount_handles_close_all(&mi->ctx);
	sqfs_fs_destroy(mi->ctx.fs);
	mi->ctx.fs = NULL;
	sqfs_file_destroy(mi->file);
	mi->file = NULL;
}

static int serve(mount_options_t *opt, struct fuse_session *se,
		 mount_ctx_t *ctx)
{
	struct fuse_loop_config *cfg;
	int ret;

	if (mount_idle_start(ctx, se) != 0) {
		tool_error(NULL, "timeout thread: %s", strerror(errno));
		return -1;
	}
	/* without it, random reads are only slower */
	if (mount_store_start(ctx, se) != 0 && ctx->verbose)
		tool_error(NULL, "store thread: %s", strerror(errno));
	if (opt->fuse.singlethread) {
		ret = fuse_session_loop(se);
	} else {
		cfg = fuse_loop_cfg_create();
		if (cfg == NULL) {
			mount_store_stop(se);
			mount_idle_stop();
			tool_error(NULL, "%s", strerror(ENOMEM));
			return -1;
		}
		fuse_loop_cfg_set_clone_fd(cfg,
					   (unsigned int)opt->fuse.clone_fd);
		/* UINT_MAX, libfuse's "no limit", is its config's default
		 * too, and its setter refuses it out loud */
		if (opt->fuse.max_idle_threads != UINT_MAX)
			fuse_loop_cfg_set_idle_threads(
			    cfg, opt->fuse.max_idle_threads);
		fuse_loop_cfg_set_max_threads(cfg, opt->fuse.max_threads);
		ret = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	mount_store_stop(se);
	mount_idle_stop();
	/* a signal, fusermount3 -u or the timeout (the loop's wait
	 * interrupted) end the loop normally */
	if (ret < 0 && ret != -ENODEV &&
	    !(ret == -EINTR && fuse_session_exited(se))) {
		tool_error(opt->fuse.mountpoint, "serving: %s", strerror(-ret));
		return -1;
	}
	return 0;
}

/*
 * The exit statuses of each personality. sqfsmount: 0 done (help,
 * version), 1 failed. The compat commands answer as squashfuse 0.6.2
 * does, for scripts that test them: help, version and a command line
 * without an image give 254 (squashfuse) or 2 (squashfuse_ll), a failed
 * mount 255.
 */
static int status_done(mount_personality_t who)
{
	switch (who) {
	case MOUNT_SQUASHFUSE:
		return 254;
	case MOUNT_SQUASHFUSE_LL:
		return 2;
	default:
		return EXIT_SUCCESS;
	}
}

static int status_failed(mount_personality_t who)
{
	return who == MOUNT_SQFSMOUNT ? EXIT_FAILURE : 255;
}

int mount_run(mount_personality_t who, int argc, char **argv)
{
	mount_options_t opt;
	mount_image_t mi;
	struct fuse_session *se = NULL;
	int ret, status = status_failed(who);
	bool mounted = false, handlers = false, failed = false;

	memset(&mi, 0, sizeof(mi));
	pthread_mutex_init(&mi.ctx.handles_lock, NULL);
	/* a notify pipe's reader that went away is no reason to die (libfuse
	 * ignores SIGPIPE too, but only once the session is there) */
	signal(SIGPIPE, SIG_IGN);
	ret = mount_parse_options(who, argc, argv, &opt);
	if (ret != 0) {
		if (ret < 0 || ret == MOUNT_USAGE)
			mount_notify(&opt, 'f');
		if (ret == MOUNT_USAGE)
			status = who == MOUNT_SQFSMOUNT ? EXIT_FAILURE
							: status_done(who);
		else
			status =
			    ret > 0 ? status_done(who) : status_failed(who);
		goto out_args;
	}
	if (!opt.fuse.foreground &&
	    mount_daemon_start(status_failed(who)) != 0) {
		mount_notify(&opt, 'f');
		goto out_args;
	}

	mi.ctx.opt = &opt;
	mi.ctx.verbose = opt.fuse.foreground;
	if (open_image(&opt, &mi) != 0)
		goto fail;

	se =
	    fuse_session_new(&opt.args, &mount_ops, sizeof(mount_ops), &mi.ctx);
	if (se == NULL) {
		/* libfuse said why (an unknown option, most likely) */
		cli_try_help();
		goto fail;
	}
	if (fuse_set_signal_handlers(se) != 0) {
		tool_error(NULL, "cannot set signal handlers");
		goto fail;
	}
	handlers = true;
	if (fuse_session_mount(se, opt.fuse.mountpoint) != 0) {
		tool_error(opt.fuse.mountpoint, "cannot mount %s there",
			   opt.image);
		goto fail;
	}
	mounted = true;

	mount_daemon_ready();
	mount_notify(&opt, 's');
	status =
	    serve(&opt, se, &mi.ctx) == 0 ? EXIT_SUCCESS : status_failed(who);
	goto out;
fail:
	failed = true;
out:
	if (mounted)
		fuse_session_unmount(se);
	if (handlers)
		fuse_remove_signal_handlers(se);
	if (se != NULL)
		fuse_session_destroy(se);
	close_image(&mi);
	/* after the file system's threads are gone: telling may fork */
	if (failed)
		mount_notify(&opt, 'f');
out_args:
	pthread_mutex_destroy(&mi.ctx.handles_lock);
	fuse_opt_free_args(&opt.args);
	free(opt.fuse.mountpoint);
	free(opt.notify_pipe);
	free((char *)opt.image);
	free((char *)opt.subdir);
	return status;
}

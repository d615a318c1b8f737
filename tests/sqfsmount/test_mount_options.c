/* SPDX-License-Identifier: MIT */
/*
 * test_mount_options.c - sqfsmount's command line (options.c) and its
 * node ids and error codes (inode.c), without mounting anything.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bin/sqfsmount/sqfsmount.h"
#include "common/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parse argv (NULL-terminated, argv[0] included); returns what
 * mount_parse_options returns. */
static int parse(mount_options_t *opt, const char **argv)
{
	int argc = 0;

	while (argv[argc] != NULL)
		++argc;
	return mount_parse_options(MOUNT_SQFSMOUNT, argc, (char **)argv, opt);
}

static void release(mount_options_t *opt)
{
	fuse_opt_free_args(&opt->args);
	free(opt->fuse.mountpoint);
	free(opt->notify_pipe);
	free((char *)opt->image);
	free((char *)opt->subdir);
}

/* whether the arguments left for fuse_session_new hold arg */
static bool kept(const mount_options_t *opt, const char *arg)
{
	for (int i = 0; i < opt->args.argc; ++i) {
		if (strstr(opt->args.argv[i], arg) != NULL)
			return true;
	}
	return false;
}

static void defaults(void **state)
{
	const char *argv[] = {"sqfsmount", "img.sqfs", "/", NULL};
	mount_options_t opt;

	(void)state;
	assert_int_equal(parse(&opt, argv), 0);
	assert_string_equal(opt.image, "img.sqfs");
	assert_string_equal(opt.fuse.mountpoint, "/");
	assert_false(opt.offset.locate);
	assert_int_equal(opt.offset.offset, 0);
	assert_null(opt.subdir);
	assert_false(opt.set_uid);
	assert_false(opt.set_gid);
	assert_int_equal(opt.timeout, 0);
	assert_int_equal(opt.notify_fd, -1);
	assert_null(opt.notify_pipe);
	assert_int_equal(opt.fs.flags, 0);
	assert_int_equal(opt.fs.meta_cache_bytes, 0);
	assert_int_equal(opt.fs.data_cache_bytes, 0);
	assert_false(opt.fuse.foreground);
	assert_false(opt.fuse.singlethread);
	/* read-only, named after the image, permissions left alone */
	assert_true(kept(&opt, "ro"));
	assert_true(kept(&opt, "fsname="));
	assert_true(kept(&opt, "img.sqfs"));
	assert_false(kept(&opt, "default_permissions"));
	release(&opt);
}

static void every_value(void **state)
{
	const char *argv[] = {"sqfsmount",
			      "-o",
			      "offset=auto,subdir=a/b,uid=70000,gid=0",
			      "-o",
			      "timeout=30,meta_cache=64K,data_cache=1G",
			      "-oread_ahead=0",
			      "-f",
			      "-s",
			      "--notify-fd=2",
			      "-o",
			      "allow_other,max_read=65536,fsname=x",
			      "img.sqfs",
			      "/",
			      NULL};
	mount_options_t opt;

	(void)state;
	assert_int_equal(parse(&opt, argv), 0);
	assert_true(opt.offset.locate);
	assert_string_equal(opt.subdir, "a/b");
	assert_true(opt.set_uid);
	assert_int_equal(opt.uid, 70000);
	assert_true(opt.set_gid);
	assert_int_equal(opt.gid, 0);
	assert_int_equal(opt.timeout, 30);
	assert_int_equal(opt.fs.meta_cache_bytes, 64 << 10);
	assert_int_equal(opt.fs.data_cache_bytes, 1ull << 30);
	assert_int_equal(opt.fs.flags, SQFS_FS_NO_READ_AHEAD);
	assert_int_equal(opt.notify_fd, 2);
	assert_true(opt.fuse.foreground);
	assert_true(opt.fuse.singlethread);
	assert_true(opt.others);
	assert_int_equal(opt.max_read, 65536);
	/* kept for the kernel, and the kernel checks permissions */
	assert_true(kept(&opt, "allow_other"));
	assert_true(kept(&opt, "max_read=65536"));
	assert_true(kept(&opt, "default_permissions"));
	/* the user's fsname, not the image's */
	assert_false(kept(&opt, "img.sqfs"));
	release(&opt);
}

static void offsets_and_threads(void **state)
{
	const char *argv[] = {"squashfuse_ll",
			      "-o",
			      "offset=12K",
			      "-o",
			      "read_ahead=9,max_threads=3",
			      "-o",
			      "clone_fd",
			      "--notify-fd",
			      "1",
			      "img.sqfs",
			      "/",
			      NULL};
	mount_options_t opt;

	(void)state;
	assert_int_equal(parse(&opt, argv), 0);
	assert_false(opt.offset.locate);
	assert_int_equal(opt.offset.offset, 12 << 10);
	assert_int_equal(opt.fs.read_ahead_blocks, 9);
	assert_int_equal(opt.fs.flags, 0);
	assert_int_equal(opt.fuse.max_threads, 3);
	assert_true(opt.fuse.clone_fd);
	assert_int_equal(opt.notify_fd, 1);
	release(&opt);
}

static void refused(void **state)
{
	static const char *bad[][3] = {
	    {"-o", "offset=x12", NULL},
	    {"-o", "uid=-1", NULL},
	    {"-o", "gid=4294967296", NULL},
	    {"-o", "timeout=soon", NULL},
	    {"-o", "data_cache=12Q", NULL},
	    {"-o", "read_ahead=100000", NULL},
	    {"--notify-fd", "x", NULL},
	    {"--notify-fd", "999", NULL},
	    {"-o", "notify_pipe=/", NULL},
	    {"-o", "notify_pipe=/nonexistent/pipe", NULL},
	};
	mount_options_t opt;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
		const char *argv[] = {"sqfsmount", bad[i][0], bad[i][1],
				      "img.sqfs",  "/",	      NULL};

		assert_int_equal(parse(&opt, argv), -1);
		release(&opt);
	}
}

static void arguments(void **state)
{
	const char *none[] = {"sqfsmount", NULL};
	const char *one[] = {"sqfsmount", "img.sqfs", NULL};
	const char *three[] = {"sqfsmount", "img.sqfs", "/", "/", NULL};
	const char *file[] = {"sqfsmount", "img.sqfs", "/etc/passwd", NULL};
	const char *missing[] = {"sqfsmount", "img.sqfs", "/nonexistent", NULL};
	const char *help[] = {"sqfsmount", "--help", NULL};
	const char *version[] = {"sqfsmount", "-V", "x", NULL};
	mount_options_t opt;

	(void)state;
	assert_int_equal(parse(&opt, none), MOUNT_USAGE);
	release(&opt);
	assert_int_equal(parse(&opt, one), MOUNT_USAGE);
	release(&opt);
	assert_int_equal(parse(&opt, three), -1);
	release(&opt);
	assert_int_equal(parse(&opt, file), -1);
	release(&opt);
	assert_int_equal(parse(&opt, missing), -1);
	release(&opt);
	assert_int_equal(parse(&opt, help), CLI_DONE);
	release(&opt);
	assert_int_equal(parse(&opt, version), CLI_DONE);
	release(&opt);
}

/* node ids: the mount's root is 1, every other node is the library's
 * node id (never 1); one to one, both ways */
static void node_ids(void **state)
{
	static const uint64_t roots[] = {1ull << 32, (1ull << 32) + 77,
					 (5ull << 48) + 3};
	mount_options_t opt;
	mount_ctx_t ctx;

	(void)state;
	memset(&opt, 0, sizeof(opt));
	memset(&ctx, 0, sizeof(ctx));
	ctx.opt = &opt;
	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); ++r) {
		ctx.root = roots[r];
		assert_int_equal(mount_node_of(&ctx, ctx.root), FUSE_ROOT_ID);
		assert_int_equal(mount_id_of(&ctx, FUSE_ROOT_ID), ctx.root);
		for (uint64_t id = 1ull << 32; id < (1ull << 32) + 1000; ++id) {
			uint64_t node = mount_node_of(&ctx, id);

			assert_int_equal(mount_id_of(&ctx, node), id);
			if (id != ctx.root)
				assert_int_equal(node, id);
		}
	}
}

static void error_codes(void **state)
{
	mount_options_t opt;
	mount_ctx_t ctx;

	(void)state;
	memset(&opt, 0, sizeof(opt));
	memset(&ctx, 0, sizeof(ctx));
	opt.image = "img";
	ctx.opt = &opt;
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_NO_ENTRY, false, "x", 1, NULL),
	    ENOENT);
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_NOT_DIR, false, "x", 1, NULL),
	    ENOTDIR);
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_NOT_FILE, false, "x", 1, NULL),
	    EINVAL);
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_NOT_FILE, true, "x", 1, NULL), EISDIR);
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_OUT_OF_BOUNDS, false, "x", 1, NULL),
	    ESTALE);
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_ALLOC, false, "x", 1, NULL), ENOMEM);
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_CORRUPTED, false, "x", 1, "words"),
	    EIO);
	assert_int_equal(
	    mount_errno(&ctx, SQFS_ERROR_COMPRESSOR, true, "x", 1, NULL), EIO);
	assert_int_equal(mount_errno(&ctx, SQFS_ERROR_IO, true, "x", 1, NULL),
			 EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(every_value),
	    cmocka_unit_test(offsets_and_threads),
	    cmocka_unit_test(refused),
	    cmocka_unit_test(arguments),
	    cmocka_unit_test(node_ids),
	    cmocka_unit_test(error_codes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

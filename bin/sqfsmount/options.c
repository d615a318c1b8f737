/* SPDX-License-Identifier: MIT */
/*
 * options.c - the command line of sqfsmount and of the squashfuse compat
 * commands: FUSE's form (IMAGE MOUNTPOINT, -o a,b=c, -f, -d, -s), with
 * squashfuse's options, the cache options and --notify-fd on top.
 *
 * libfuse's fuse_opt takes the options this file knows out of the command
 * line; fuse_parse_cmdline then takes its own (-f, -d, -s, clone_fd,
 * max_threads, max_idle_threads); what is left are mount options for
 * fuse_session_new, which refuses those it does not know.
 */
#include "config.h"

#include "common/cli.h"
#include "common/parse.h"
#include "common/print.h"
#include "sqfsmount.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The version of squashfuse whose command line the compat commands take. */
#define SQUASHFUSE_VERSION "0.6.2"

static const char *help_sqfsmount =
    "Usage: sqfsmount [OPTIONS...] IMAGE MOUNTPOINT\n"
    "\n"
    "Mount the SquashFS image IMAGE read-only on the directory MOUNTPOINT\n"
    "through FUSE, served from many threads. Unmount with 'fusermount3 -u\n"
    "MOUNTPOINT' (umount as root), or end the daemon with SIGTERM or\n"
    "SIGINT: it unmounts lazily.\n"
    "\n"
    "Image options:\n"
    "  -o offset=N|auto            The image starts N bytes into the file\n"
    "                              (a K, M or G suffix multiplies by\n"
    "                              1024, 1024^2, 1024^3); auto: find it\n"
    "                              in an AppImage, a SIF container or\n"
    "                              after a prefix of any kind.\n"
    "  -o subdir=PATH              Mount the directory PATH of the image.\n"
    "  -o uid=N                    Make N the owner of every file.\n"
    "  -o gid=N                    Make N the group of every file.\n"
    "\n"
    "Cache options (sizes take a K, M or G suffix):\n"
    "  -o meta_cache=SIZE          Decompressed metadata (inodes,\n"
    "                              directories, xattrs) to keep.\n"
    "                              Default: 8M.\n"
    "  -o data_cache=SIZE          Decompressed data and fragment blocks\n"
    "                              to keep. Default: 64M.\n"
    "  -o read_ahead=N             Blocks to decompress ahead of a file\n"
    "                              read in order; 0: none. Default: 4.\n"
    "\n"
    "Daemon options:\n"
    "  -o timeout=N                Unmount after N seconds without a\n"
    "                              request and with nothing open.\n"
    "  -o notify_pipe=PATH         Write 's' to the named pipe PATH once\n"
    "                              mounted, 'f' if the mount failed.\n"
    "      --notify-fd N           The same on the file descriptor N.\n"
    "  -f                          Stay in the foreground.\n"
    "  -d, -o debug                Print every FUSE request (implies -f).\n"
    "  -s                          Serve requests from one thread.\n"
    "  -o max_threads=N            Serve from at most N threads.\n"
    "                              Default: 10.\n"
    "  -o max_idle_threads=N       Keep at most N idle threads.\n"
    "                              Default: no limit.\n"
    "  -o clone_fd                 A FUSE device descriptor per thread.\n"
    "\n"
    "Mount options:\n"
    "  -o allow_other              Let other users in; the kernel then\n"
    "                              checks permissions. A user needs\n"
    "                              user_allow_other in /etc/fuse.conf.\n"
    "  -o allow_root               Let root in, too.\n"
    "  -o OPTION                   Any other option of mount.fuse3(8),\n"
    "                              such as default_permissions, fsname=S\n"
    "                              or max_read=N.\n"
    "\n"
    "  -h, --help                  Print this help and exit.\n"
    "  -V, --version               Print the version and exit.\n"
    "\n"
    "Exit status: 0 once the image is mounted (and, with -f, when it is\n"
    "unmounted), 1 if it could not be.\n";

/* squashfuse's help, in its layout, for scripts that read it. */
static void print_help_compat(mount_personality_t who, const char *argv0)
{
	bool ll = who == MOUNT_SQUASHFUSE_LL;

	/* squashfuse writes its help to stderr: so do we */
	fprintf(
	    stderr,
	    "squashfuse " SQUASHFUSE_VERSION " (%s %s)\n"
	    "\n"
	    "Usage: %s [options] ARCHIVE MOUNTPOINT\n"
	    "\n"
	    "%s options:\n"
	    "    -o offset=N            offset N bytes into ARCHIVE to "
	    "mount\n"
	    "    -o subdir=PATH         mount subdirectory PATH of ARCHIVE\n"
	    "    -o notify_pipe=PATH    named pipe that will receive 's' "
	    "(success)\n"
	    "                           or 'f' (failure) when the "
	    "mountpoint is ready\n"
	    "    -o timeout=N           idle N seconds for automatic "
	    "unmount\n"
	    "    -o uid=N               set file owner to uid N\n"
	    "    -o gid=N               set file group to gid N\n"
	    "\n"
	    "%s:\n"
	    "    -h   --help            print help\n"
	    "    -V   --version         print version\n"
	    "    -d   -o debug          enable debug output (implies -f)\n"
	    "    -f                     foreground operation\n"
	    "    -s                     disable multi-threaded operation\n"
	    "    -o allow_other         allow access by other users\n"
	    "    -o allow_root          allow access by the superuser\n"
	    "    -o clone_fd            use separate fuse device fd for "
	    "each thread\n"
	    "                           (may improve performance)\n"
	    "    -o max_idle_threads    the maximum number of idle worker "
	    "threads\n"
	    "                           allowed (default: -1)\n"
	    "    -o max_threads         the maximum number of worker "
	    "threads\n"
	    "                           allowed (default: 10)\n"
	    "\n"
	    "The options of sqfsmount(1) work too (sqfsmount --help).\n",
	    PACKAGE_NAME, PACKAGE_VERSION, argv0, argv0,
	    ll ? "FUSE options" : "Selection of FUSE options");
}

static void print_version(mount_personality_t who)
{
	if (who == MOUNT_SQFSMOUNT) {
		tool_print_version();
		printf("FUSE library version %s\n", fuse_pkgversion());
	} else {
		/* squashfuse's first line and stream: scripts that read the
		 * version take its second word */
		fprintf(stderr, "squashfuse %s (%s %s)\n", SQUASHFUSE_VERSION,
			PACKAGE_NAME, PACKAGE_VERSION);
		fprintf(stderr, "FUSE library version %s\n", fuse_pkgversion());
	}
}

/* What fuse_opt collects, as given. */
typedef struct {
	char *offset, *subdir, *uid, *gid, *timeout, *notify_pipe;
	char *notify_fd, *meta_cache, *data_cache, *read_ahead;
	char *image, *mountpoint;
	unsigned int max_read;
	int nonopts;
	bool help, version, others, root_only, fsname;
} raw_options_t;

enum {
	KEY_HELP,
	KEY_VERSION,
	KEY_OTHERS,
	KEY_FSNAME,
	KEY_KEEP,
};

#define RAW(name, field)                                \
	{                                               \
		name, offsetof(raw_options_t, field), 0 \
	}

static const struct fuse_opt spec[] = {
    RAW("offset=%s", offset),
    RAW("subdir=%s", subdir),
    RAW("uid=%s", uid),
    RAW("gid=%s", gid),
    RAW("timeout=%s", timeout),
    RAW("notify_pipe=%s", notify_pipe),
    RAW("--notify-fd=%s", notify_fd),
    RAW("--notify-fd %s", notify_fd),
    RAW("meta_cache=%s", meta_cache),
    RAW("data_cache=%s", data_cache),
    RAW("read_ahead=%s", read_ahead),
    FUSE_OPT_KEY("-h", KEY_HELP),
    FUSE_OPT_KEY("--help", KEY_HELP),
    FUSE_OPT_KEY("-V", KEY_VERSION),
    FUSE_OPT_KEY("--version", KEY_VERSION),
    FUSE_OPT_KEY("allow_other", KEY_OTHERS),
    FUSE_OPT_KEY("allow_root", KEY_OTHERS),
    FUSE_OPT_KEY("fsname=", KEY_FSNAME),
    /* libfuse wants the mount option's value from init() too */
    RAW("max_read=%u", max_read),
    FUSE_OPT_KEY("max_read=", KEY_KEEP),
    FUSE_OPT_END,
};

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *out)
{
	raw_options_t *raw = data;

	(void)out;
	switch (key) {
	case KEY_HELP:
		raw->help = true;
		return 0;
	case KEY_VERSION:
		raw->version = true;
		return 0;
	case KEY_OTHERS:
		raw->others = true;
		if (strcmp(arg, "allow_root") == 0)
			raw->root_only = true;
		return 1;
	case KEY_FSNAME:
		raw->fsname = true;
		return 1;
	case KEY_KEEP:
		return 1;
	case FUSE_OPT_KEY_NONOPT:
		raw->nonopts += 1;
		if (raw->nonopts == 1) {
			raw->image = strdup(arg);
			return raw->image == NULL ? -1 : 0;
		}
		if (raw->nonopts == 2) {
			raw->mountpoint = strdup(arg);
			return raw->mountpoint == NULL ? -1 : 1;
		}
		tool_error(arg, "unexpected argument (only IMAGE and "
				"MOUNTPOINT)");
		return -1;
	default:
		return 1;
	}
}

static void raw_free(raw_options_t *raw)
{
	free(raw->offset);
	free(raw->subdir);
	free(raw->uid);
	free(raw->gid);
	free(raw->timeout);
	free(raw->notify_pipe);
	free(raw->notify_fd);
	free(raw->meta_cache);
	free(raw->data_cache);
	free(raw->read_ahead);
	free(raw->mountpoint);
	/* raw->image stays: opt->image points to it */
}

static int bad(const char *option, const char *arg, const char *why)
{
	cli_bad_value(option, arg, why);
	return -1;
}

/* The notify options first: a failure after them is told there too. */
static int take_notify(raw_options_t *raw, mount_options_t *opt)
{
	struct stat sb;
	uint64_t num;
	const char *why;

	if (raw->notify_fd != NULL) {
		const char *v = raw->notify_fd;

		if (v[0] == '=')
			++v;
		why = parse_uint(v, INT_MAX, &num);
		if (why != NULL)
			return bad("--notify-fd", v, why);
		if (fcntl((int)num, F_GETFD) < 0)
			return bad("--notify-fd", v,
				   "not an open file descriptor");
		opt->notify_fd = (int)num;
	}
	if (raw->notify_pipe != NULL) {
		const char *p = raw->notify_pipe;

		if (stat(p, &sb) != 0)
			return bad("notify_pipe", p, strerror(errno));
		if (!S_ISFIFO(sb.st_mode))
			return bad("notify_pipe", p, "not a named pipe");
		/* the daemon leaves its working directory */
		if (p[0] == '/') {
			opt->notify_pipe = strdup(p);
		} else {
			char *cwd = getcwd(NULL, 0);
			size_t n =
			    cwd != NULL ? strlen(cwd) + strlen(p) + 2 : 0;

			opt->notify_pipe = cwd != NULL ? malloc(n) : NULL;
			if (opt->notify_pipe != NULL)
				snprintf(opt->notify_pipe, n, "%s/%s", cwd, p);
			free(cwd);
		}
		if (opt->notify_pipe == NULL)
			return bad("notify_pipe", p, strerror(ENOMEM));
	}
	return 0;
}

static int take_values(raw_options_t *raw, mount_options_t *opt)
{
	const char *why;
	uint64_t num;

	if (raw->offset != NULL) {
		why = image_offset_parse(raw->offset, &opt->offset);
		if (why != NULL)
			return bad("offset", raw->offset, why);
	}
	if (raw->subdir != NULL) {
		opt->subdir = raw->subdir;
		raw->subdir = NULL;
	}
	if (raw->uid != NULL) {
		why = parse_uint(raw->uid, UINT32_MAX, &num);
		if (why != NULL)
			return bad("uid", raw->uid, why);
		opt->set_uid = true;
		opt->uid = (uint32_t)num;
	}
	if (raw->gid != NULL) {
		why = parse_uint(raw->gid, UINT32_MAX, &num);
		if (why != NULL)
			return bad("gid", raw->gid, why);
		opt->set_gid = true;
		opt->gid = (uint32_t)num;
	}
	if (raw->timeout != NULL) {
		why = parse_uint(raw->timeout, UINT_MAX, &num);
		if (why != NULL)
			return bad("timeout", raw->timeout, why);
		opt->timeout = (unsigned int)num;
	}
	if (raw->meta_cache != NULL) {
		why = parse_size(raw->meta_cache, UINT64_MAX, &num);
		if (why != NULL)
			return bad("meta_cache", raw->meta_cache, why);
		opt->fs.meta_cache_bytes = num;
	}
	if (raw->data_cache != NULL) {
		why = parse_size(raw->data_cache, UINT64_MAX, &num);
		if (why != NULL)
			return bad("data_cache", raw->data_cache, why);
		opt->fs.data_cache_bytes = num;
	}
	if (raw->read_ahead != NULL) {
		why = parse_uint(raw->read_ahead, 1024, &num);
		if (why != NULL)
			return bad("read_ahead", raw->read_ahead, why);
		if (num == 0)
			opt->fs.flags |= SQFS_FS_NO_READ_AHEAD;
		else
			opt->fs.read_ahead_blocks = (uint32_t)num;
	}
	return 0;
}

/* "-ofsname=PATH" with the commas and backslashes of PATH escaped, so
 * that `mount` and /proc/mounts name the image. */
static int add_fsname(struct fuse_args *args, const char *image)
{
	char *real = realpath(image, NULL);
	const char *src = real != NULL ? real : image;
	size_t n = strlen(src);
	char *arg = malloc(2 * n + sizeof("-ofsname="));
	char *p;
	int ret = -1;

	if (arg != NULL) {
		p = arg + sprintf(arg, "-ofsname=");
		for (; *src != '\0'; ++src) {
			if (*src == ',' || *src == '\\')
				*p++ = '\\';
			*p++ = *src;
		}
		*p = '\0';
		ret = fuse_opt_add_arg(args, arg);
	}
	free(arg);
	free(real);
	return ret;
}

static int check_mountpoint(const char *path)
{
	struct stat sb;

	if (stat(path, &sb) != 0) {
		tool_error(path, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		tool_error(path, "not a directory");
		return -1;
	}
	return 0;
}

int mount_parse_options(mount_personality_t who, int argc, char **argv,
			mount_options_t *opt)
{
	raw_options_t raw;
	int ret = -1;

	memset(opt, 0, sizeof(*opt));
	memset(&raw, 0, sizeof(raw));
	opt->personality = who;
	opt->notify_fd = -1;
	opt->args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);

	if (fuse_opt_parse(&opt->args, &raw, spec, opt_proc) != 0) {
		take_notify(&raw, opt);
		cli_try_help();
		goto out;
	}
	if (raw.help) {
		if (who == MOUNT_SQFSMOUNT)
			fputs(help_sqfsmount, stdout);
		else
			print_help_compat(who, argv[0]);
		ret = CLI_DONE;
		goto out;
	}
	if (raw.version) {
		print_version(who);
		ret = CLI_DONE;
		goto out;
	}
	if (take_notify(&raw, opt) != 0)
		goto out;
	if (raw.nonopts < 2) {
		tool_error(NULL, "%s",
			   raw.nonopts == 0 ? "no image given"
					    : "no mount point given");
		cli_try_help();
		ret = MOUNT_USAGE;
		goto out;
	}
	opt->image = raw.image;
	raw.image = NULL;
	if (take_values(&raw, opt) != 0)
		goto out;
	opt->others = raw.others;
	opt->root_only = raw.root_only;
	opt->max_read = raw.max_read;
	if (check_mountpoint(raw.mountpoint) != 0)
		goto out;

	if (fuse_parse_cmdline(&opt->args, &opt->fuse) != 0) {
		cli_try_help();
		goto out;
	}
	/* read-only, named after the image; permissions checked by the
	 * kernel when others may enter (the daemon would not) */
	if (fuse_opt_add_arg(&opt->args, "-oro") != 0 ||
	    (!raw.fsname && add_fsname(&opt->args, opt->image) != 0) ||
	    (opt->others &&
	     fuse_opt_add_arg(&opt->args, "-odefault_permissions") != 0)) {
		tool_error(NULL, "%s", strerror(ENOMEM));
		goto out;
	}
	ret = 0;
out:
	free(raw.image);
	raw_free(&raw);
	return ret;
}

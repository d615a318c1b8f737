/* SPDX-License-Identifier: MIT */
/*
 * options.c - tar2sqfs's command line.
 */
#include "config.h"

#include "tar2sqfs.h"
#include "common/cli.h"
#include "common/packer_cli.h"
#include "common/print.h"
#include "tar/path.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option long_opts[] = {
    {"root-becomes", required_argument, NULL, 'r'},
    {"no-symlink-retarget", no_argument, NULL, 'S'},
    {"no-skip", no_argument, NULL, 's'},
    {"no-xattr", no_argument, NULL, 'x'},
    {"no-keep-time", no_argument, NULL, 'k'},
    {"exclude", required_argument, NULL, 'E'},
    {"exclude-dir", required_argument, NULL, 'E'},
    {"input", required_argument, NULL, 'i'},
    PACKER_LONG_OPTS,
    {NULL, 0, NULL, 0},
};

static const char *short_opts = "r:SsxkE:i:" PACKER_SHORT_OPTS;

static const char *help_text =
    "Usage: tar2sqfs [OPTIONS...] SQFSFILE\n"
    "\n"
    "Read a tar archive from standard input (or --input) and turn it into\n"
    "a SquashFS image. ustar, GNU, PAX and v7 archives are read, also\n"
    "compressed with gzip, xz, zstd, bzip2 or lz4 (recognised by their\n"
    "magic bytes).\n"
    "\n"
    "Archive options:\n"
    "  -r, --root-becomes DIR      Only entries below DIR are packed, with\n"
    "                              the DIR/ prefix removed; DIR's own\n"
    "                              attributes go to the root. Symlink\n"
    "                              targets below DIR are rewritten to\n"
    "                              absolute paths in the image (/REST).\n"
    "                              Without it, an entry './' or '/' gives\n"
    "                              the root its attributes.\n"
    "  -S, --no-symlink-retarget   With --root-becomes, leave symlink\n"
    "                              targets alone (hard-link targets are\n"
    "                              still rewritten).\n"
    "  -s, --no-skip               Abort on an entry that cannot be stored,\n"
    "                              instead of warning and skipping it. (A\n"
    "                              damaged archive always ends the run.)\n"
    "  -x, --no-xattr              Drop extended attributes.\n"
    "  -k, --no-keep-time          Use the default mtime (--defaults) for\n"
    "                              every entry instead of the archive's.\n"
    "  -E, --exclude GLOB          Skip entries whose path in the archive\n"
    "                              (without a leading ./ or /) or one of\n"
    "                              whose parent directories matches GLOB\n"
    "                              (fnmatch, '/' not special). Repeatable.\n"
    "      --exclude-dir GLOB      The same as --exclude.\n"
    "  -i, --input FILE            Read the archive from FILE instead of\n"
    "                              standard input.\n";

static void print_help(void)
{
	packer_print_help(help_text);
}

static int add_exclude(tar2sqfs_options_t *opt, const char *glob)
{
	const char **list =
	    realloc(opt->excludes, (opt->exclude_count + 1) * sizeof(list[0]));

	if (list == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	list[opt->exclude_count++] = glob;
	opt->excludes = list;
	return 0;
}

/* The options that are tar2sqfs's own. */
static int own_option(void *user, int c, const char *arg)
{
	tar2sqfs_options_t *opt = user;

	switch (c) {
	case 'r':
		free(opt->root_becomes);
		if (tar_path_canonical(arg, &opt->root_becomes, NULL) != 0) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		return 0;
	case 'S':
		opt->no_symlink_retarget = true;
		return 0;
	case 's':
		opt->no_skip = true;
		return 0;
	case 'x':
		opt->no_xattr = true;
		return 0;
	case 'k':
		opt->no_keep_time = true;
		return 0;
	case 'E':
		return add_exclude(opt, arg);
	case 'i':
		opt->input = arg;
		return 0;
	default:
		return 1;
	}
}

int tar2sqfs_parse_options(int argc, char **argv, tar2sqfs_options_t *opt)
{
	int ret;

	memset(opt, 0, sizeof(*opt));
	ret = packer_parse(&opt->pk, argc, argv, short_opts, long_opts,
			   print_help, own_option, opt);
	if (ret != 0) {
		tar2sqfs_free_options(opt);
		return ret == CLI_DONE ? 1 : -1;
	}
	if (opt->no_xattr)
		opt->pk.wr.flags |= SQFS_WRITER_NO_XATTRS;
	return 0;
}

void tar2sqfs_free_options(tar2sqfs_options_t *opt)
{
	packer_options_free(&opt->pk);
	free(opt->root_becomes);
	free(opt->excludes);
	opt->root_becomes = NULL;
	opt->excludes = NULL;
	opt->exclude_count = 0;
}

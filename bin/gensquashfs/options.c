/* SPDX-License-Identifier: MIT */
/*
 * options.c - gensquashfs's command line.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/cli.h"
#include "common/print.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option long_opts[] = {
    {"pack-file", required_argument, NULL, 'F'},
    {"pack-dir", required_argument, NULL, 'D'},
    {"sort-file", required_argument, NULL, 'S'},
    {"xattr-file", required_argument, NULL, 'A'},
    {"selinux", required_argument, NULL, 's'},
    {"keep-time", no_argument, NULL, 'k'},
    {"keep-xattr", no_argument, NULL, 'x'},
    {"one-file-system", no_argument, NULL, 'o'},
    PACKER_LONG_OPTS,
    {NULL, 0, NULL, 0},
};

static const char *short_opts = "F:D:S:A:s:kxo" PACKER_SHORT_OPTS;

static const char *help_text =
    "Usage: gensquashfs [OPTIONS...] SQFSFILE\n"
    "\n"
    "Pack a directory tree, or the entries a listing describes, into a\n"
    "SquashFS image. Every file type is kept; hard links stay hard links;\n"
    "holes of sparse files become sparse blocks without being read.\n"
    "\n"
    "Input options:\n"
    "  -F, --pack-file FILE        Build the image from the listing FILE:\n"
    "                              one entry a line, 'TYPE PATH MODE UID\n"
    "                              GID [EXTRA]' with TYPE dir, file\n"
    "                              [INPUT], nod c|b MAJOR MINOR, slink\n"
    "                              TARGET, link TARGET, pipe, sock, or\n"
    "                              glob [-type X] [-name P] [-path P]\n"
    "                              [-nonrecursive] [-xdev] [-keeptime]\n"
    "                              [LOCATION] (MODE, UID, GID may be *;\n"
    "                              no LOCATION: the input folder);\n"
    "                              '#' starts a comment; PATH may be\n"
    "                              \"quoted\" with \\\" and \\\\ escapes;\n"
    "                              a file's INPUT is the rest of the\n"
    "                              line, or \"quoted\". Directories\n"
    "                              implied but not given, the root\n"
    "                              included, take the --defaults.\n"
    "  -D, --pack-dir DIR          Alone: pack DIR as the root of the\n"
    "                              image (the root takes the --defaults\n"
    "                              owner, mode and time, not DIR's).\n"
    "                              With --pack-file: where the listing's\n"
    "                              input files are (default: the\n"
    "                              listing's folder).\n"
    "  -S, --sort-file FILE        Order and storage of the files' data:\n"
    "                              lines 'PRIORITY [FLAGS] NAME', lower\n"
    "                              priorities first (default 0), the\n"
    "                              first match wins; FLAGS, comma-\n"
    "                              separated: glob, glob_no_path, align,\n"
    "                              dont_fragment, dont_compress,\n"
    "                              dont_deduplicate, nosparse.\n"
    "  -A, --xattr-file FILE       Extended attributes in the form\n"
    "                              'getfattr --dump' writes: '# file:\n"
    "                              PATH' lines, then 'KEY=VALUE' with\n"
    "                              VALUE \"quoted\", 0x hex or 0s base64.\n"
    "  -s, --selinux FILE          Label every entry, the root and\n"
    "                              implicit directories included, from\n"
    "                              the SELinux file_contexts FILE\n"
    "                              (security.selinux), as libselinux\n"
    "                              matches it.\n"
    "  -k, --keep-time             Keep the files' modification times\n"
    "                              (default: the --defaults mtime; the\n"
    "                              root keeps it).\n"
    "  -x, --keep-xattr            Copy the files' extended attributes\n"
    "                              (user., trusted. and security.).\n"
    "  -o, --one-file-system       Do not enter directories on another\n"
    "                              file system (the mount point is kept,\n"
    "                              empty).\n";

static void print_help(void)
{
	packer_print_help(help_text);
}

/* The options that are gensquashfs's own. */
static int own_option(void *user, int c, const char *arg)
{
	gs_options_t *opt = user;

	switch (c) {
	case 'F':
		opt->pack_file = arg;
		return 0;
	case 'D':
		opt->pack_dir = arg;
		return 0;
	case 'S':
		opt->sort_file = arg;
		return 0;
	case 'A':
		opt->xattr_file = arg;
		return 0;
	case 's':
		opt->selinux = arg;
		return 0;
	case 'k':
		opt->keep_time = true;
		return 0;
	case 'x':
		opt->keep_xattr = true;
		return 0;
	case 'o':
		opt->one_file_system = true;
		return 0;
	default:
		return 1;
	}
}

int gs_parse_options(int argc, char **argv, gs_options_t *opt)
{
	int ret;

	memset(opt, 0, sizeof(*opt));
	ret = packer_parse(&opt->pk, argc, argv, short_opts, long_opts,
			   print_help, own_option, opt);
	if (ret == 0 && opt->pack_dir == NULL && opt->pack_file == NULL) {
		tool_error(NULL, "no input given (--pack-dir or --pack-file)");
		cli_try_help();
		ret = -1;
	}
	if (ret != 0) {
		gs_free_options(opt);
		return ret == CLI_DONE ? 1 : -1;
	}
	if (!opt->keep_xattr && opt->xattr_file == NULL && opt->selinux == NULL)
		opt->pk.wr.flags |= SQFS_WRITER_NO_XATTRS;
	return 0;
}

void gs_free_options(gs_options_t *opt)
{
	packer_options_free(&opt->pk);
}

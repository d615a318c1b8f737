/* SPDX-License-Identifier: MIT */
/*
 * options.c - tar2sqfs's command line.
 */
#include "config.h"

#include "tar2sqfs.h"
#include "common/cli.h"
#include "common/compressor_cli.h"
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

static const char *help_trailer =
    "\n"
    "Sizes take a K, M or G suffix. SOURCE_DATE_EPOCH, if set, must be a\n"
    "decimal number of seconds that fits 32 bits (else: a warning, and 0).\n"
    "The image is written beside SQFSFILE and moved there when complete;\n"
    "a failed run leaves no file behind. Exit status: 0 success, 1 failure.\n"
    "\n"
    "Compressors of this build:\n";

static void print_help(void)
{
	fputs(help_text, stdout);
	fputs(packer_help_owner, stdout);
	fputs("\n", stdout);
	fputs(packer_help_image, stdout);
	fputs(help_trailer, stdout);
	comp_cli_print_list(stdout);
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

int tar2sqfs_parse_options(int argc, char **argv, tar2sqfs_options_t *opt)
{
	int c, ret;

	memset(opt, 0, sizeof(*opt));
	if (packer_options_init(&opt->pk, argc) != 0)
		return -1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) !=
	       -1) {
		ret = packer_option(&opt->pk, c, optarg);
		if (ret < 0)
			goto fail;
		if (ret == 0)
			continue;
		switch (c) {
		case 'r':
			free(opt->root_becomes);
			if (tar_path_canonical(optarg, &opt->root_becomes,
					       NULL) != 0) {
				tool_error(NULL, "out of memory");
				goto fail;
			}
			break;
		case 'S':
			opt->no_symlink_retarget = true;
			break;
		case 's':
			opt->no_skip = true;
			break;
		case 'x':
			opt->no_xattr = true;
			break;
		case 'k':
			opt->no_keep_time = true;
			break;
		case 'E':
			if (add_exclude(opt, optarg) != 0)
				goto fail;
			break;
		case 'i':
			opt->input = optarg;
			break;
		default:
			if (cli_other_option(c, short_opts, argv, print_help) ==
			    CLI_DONE)
				goto done;
			goto fail;
		}
	}

	ret = packer_options_finish(&opt->pk, argc, argv);
	if (ret == CLI_DONE)
		goto done;
	if (ret != 0)
		goto fail;
	if (opt->no_xattr)
		opt->pk.wr.flags |= SQFS_WRITER_NO_XATTRS;
	return 0;
done:
	tar2sqfs_free_options(opt);
	return 1;
fail:
	tar2sqfs_free_options(opt);
	return -1;
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

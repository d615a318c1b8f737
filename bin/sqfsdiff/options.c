/* SPDX-License-Identifier: MIT */
/*
 * options.c - sqfsdiff's command line.
 */
#include "config.h"

#include "sqfsdiff.h"
#include "common/cli.h"
#include "common/cpus.h"
#include "common/print.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* long options without a short one */
enum { OPT_OLD_OFFSET = 0x200, OPT_NEW_OFFSET };

static const struct option long_opts[] = {
    {"old", required_argument, NULL, 'a'},
    {"new", required_argument, NULL, 'b'},
    {"no-contents", no_argument, NULL, 'C'},
    {"no-owner", no_argument, NULL, 'O'},
    {"no-permissions", no_argument, NULL, 'P'},
    {"timestamps", no_argument, NULL, 'T'},
    {"inode-num", no_argument, NULL, 'I'},
    {"super", no_argument, NULL, 'S'},
    {"extract", required_argument, NULL, 'e'},
    {"num-jobs", required_argument, NULL, 'j'},
    {"offset", required_argument, NULL, 'o'},
    {"old-offset", required_argument, NULL, OPT_OLD_OFFSET},
    {"new-offset", required_argument, NULL, OPT_NEW_OFFSET},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char *short_opts = "a:b:COPTISe:j:o:hV";

static const char *help_text =
    "Usage: sqfsdiff [OPTIONS...] --old,-a OLD --new,-b NEW\n"
    "\n"
    "Compare two file system trees, each a SquashFS image or a directory,\n"
    "by what they hold rather than byte by byte: entries, types, link\n"
    "targets, device numbers, sizes, contents, xattrs, hard-link groups,\n"
    "permissions and owners. How an image is packed (compressor, block\n"
    "size, basic or extended inodes, order of data) does not count.\n"
    "\n"
    "Each difference is one line on standard output, 'PATH: what', the\n"
    "old value first, in a fixed order; a summary line ends the report.\n"
    "Exit status: 0 equal, 1 different, 2 error (a damaged image, an\n"
    "unreadable entry: no verdict is given then).\n"
    "\n"
    "Options:\n"
    "  -a, --old OLD               The first tree: an image or a directory.\n"
    "  -b, --new NEW               The second tree: an image or a\n"
    "                              directory.\n"
    "  -C, --no-contents           Do not compare the contents of files.\n"
    "  -O, --no-owner              Do not compare owners (uid and gid).\n"
    "  -P, --no-permissions        Do not compare permission bits.\n"
    "  -T, --timestamps            Compare modification times too.\n"
    "  -I, --inode-num             Compare inode numbers too.\n"
    "  -S, --super                 Compare the superblocks too (both sides\n"
    "                              images): compressor, block size, flags,\n"
    "                              counts, modification time, size.\n"
    "  -e, --extract DIR           Write both versions of each regular file\n"
    "                              whose contents differ to DIR/old/PATH and\n"
    "                              DIR/new/PATH, and each regular file found\n"
    "                              on one side only to that side's folder.\n"
    "                              DIR is made if missing; DIR/old and\n"
    "                              DIR/new must not exist. Each file is\n"
    "                              written under a temporary name and\n"
    "                              renamed when complete: on an error none\n"
    "                              is left half-written.\n"
    "  -o, --offset N|auto         Where the image starts in its file, for\n"
    "                              each side that is an image: N bytes in\n"
    "                              (a K, M or G suffix multiplies by 1024,\n"
    "                              1024^2, 1024^3), or auto: found in an\n"
    "                              AppImage, a SIF container or after a\n"
    "                              prefix of any kind.\n"
    "      --old-offset N|auto     The same for the old side alone (which\n"
    "                              must then be an image); wins over -o.\n"
    "      --new-offset N|auto     The same for the new side alone.\n";

static void print_help(void)
{
	fputs(help_text, stdout);
	cli_print_reader_tail(stdout, "The report", NULL);
}

int sd_parse_options(int argc, char **argv, sd_options_t *opt)
{
	image_offset_t both = {false, 0};
	bool both_given = false;
	int c, ret = 0;

	memset(opt, 0, sizeof(*opt));
	opt->num_jobs = num_cpus();

	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'a':
			opt->old_path = optarg;
			break;
		case 'b':
			opt->new_path = optarg;
			break;
		case 'C':
			opt->flags |= SD_NO_CONTENTS;
			break;
		case 'O':
			opt->flags |= SD_NO_OWNER;
			break;
		case 'P':
			opt->flags |= SD_NO_PERMS;
			break;
		case 'T':
			opt->flags |= SD_TIMESTAMPS;
			break;
		case 'I':
			opt->flags |= SD_INODE_NUMBERS;
			break;
		case 'S':
			opt->flags |= SD_SUPER;
			break;
		case 'e':
			opt->extract_dir = optarg;
			break;
		case 'j':
			ret = cli_num_jobs(optarg, &opt->num_jobs);
			break;
		case 'o':
			ret = cli_image_offset("--offset", optarg, &both);
			both_given = true;
			break;
		case OPT_OLD_OFFSET:
			opt->old_offset_opt = "--old-offset";
			ret = cli_image_offset(opt->old_offset_opt, optarg,
					       &opt->old_offset);
			break;
		case OPT_NEW_OFFSET:
			opt->new_offset_opt = "--new-offset";
			ret = cli_image_offset(opt->new_offset_opt, optarg,
					       &opt->new_offset);
			break;
		default:
			return cli_other_option(c, short_opts, argv,
						print_help) == CLI_DONE
				   ? 1
				   : -1;
		}
		if (ret != 0)
			return -1;
	}

	if (both_given && opt->old_offset_opt == NULL)
		opt->old_offset = both;
	if (both_given && opt->new_offset_opt == NULL)
		opt->new_offset = both;

	if (opt->old_path == NULL || opt->new_path == NULL) {
		tool_error(NULL, "both --old and --new must be given");
		cli_try_help();
		return -1;
	}
	if (optind < argc) {
		tool_error(argv[optind], "unexpected argument");
		cli_try_help();
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * options.c - rdsquashfs's command line.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/cli.h"
#include "common/cpus.h"
#include "common/print.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option long_opts[] = {
    {"list", required_argument, NULL, 'l'},
    {"cat", required_argument, NULL, 'c'},
    {"xattr", required_argument, NULL, 'x'},
    {"unpack-path", required_argument, NULL, 'u'},
    {"stat", required_argument, NULL, 's'},
    {"describe", no_argument, NULL, 'd'},
    {"unpack-root", required_argument, NULL, 'p'},
    {"no-dev", no_argument, NULL, 'D'},
    {"no-sock", no_argument, NULL, 'S'},
    {"no-fifo", no_argument, NULL, 'F'},
    {"no-slink", no_argument, NULL, 'L'},
    {"no-empty-dir", no_argument, NULL, 'E'},
    {"no-sparse", no_argument, NULL, 'Z'},
    {"set-xattr", no_argument, NULL, 'X'},
    {"set-times", no_argument, NULL, 'T'},
    {"chmod", no_argument, NULL, 'C'},
    {"chown", no_argument, NULL, 'O'},
    {"quiet", no_argument, NULL, 'q'},
    {"num-jobs", required_argument, NULL, 'j'},
    {"offset", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char *short_opts = "l:c:x:u:s:dp:DSFLEZXTCOqj:o:hV";

static const char *help_text =
    "Usage: rdsquashfs [OPTIONS...] SQFSFILE\n"
    "\n"
    "View or extract the contents of a SquashFS image.\n"
    "\n"
    "Operations (exactly one):\n"
    "  -l, --list PATH             List the directory PATH (or the entry\n"
    "                              PATH) ls -l style: mode, owner/group,\n"
    "                              size (device numbers for devices), name\n"
    "                              and symlink target.\n"
    "  -c, --cat PATH              Write the contents of the regular file\n"
    "                              PATH to standard output.\n"
    "  -x, --xattr PATH            Print the extended attributes of PATH,\n"
    "                              one KEY=VALUE a line (VALUE as 0x hex if\n"
    "                              it is not text).\n"
    "  -u, --unpack-path PATH      Unpack PATH with everything below it\n"
    "                              into the unpack root, keeping its path\n"
    "                              from the image's root; / unpacks all.\n"
    "  -s, --stat PATH             Print everything the inode of PATH\n"
    "                              holds, SquashFS internals included\n"
    "                              (block sizes, fragment, sparse bytes,\n"
    "                              xattr index).\n"
    "  -d, --describe              Print the image as a gensquashfs pack\n"
    "                              file (hard links as link lines).\n"
    "\n"
    "Modifiers:\n"
    "  -p, --unpack-root DIR       With --unpack-path: where to unpack\n"
    "                              (created if missing; default: the\n"
    "                              current directory). With --describe:\n"
    "                              the prefix of the input location of\n"
    "                              each file.\n"
    "  -D, --no-dev                Do not unpack device special files.\n"
    "  -S, --no-sock               Do not unpack sockets.\n"
    "  -F, --no-fifo               Do not unpack named pipes.\n"
    "  -L, --no-slink              Do not unpack symbolic links.\n"
    "  -E, --no-empty-dir          Do not unpack directories that would\n"
    "                              end up empty after the rules above.\n"
    "  -Z, --no-sparse             Write sparse blocks as zeros instead of\n"
    "                              leaving holes.\n"
    "  -X, --set-xattr             Set the extended attributes stored in\n"
    "                              the image.\n"
    "  -T, --set-times             Set the access and modification times\n"
    "                              to the image's modification time.\n"
    "  -C, --chmod                 Set the permissions stored in the image.\n"
    "  -O, --chown                 Set the owners stored in the image.\n"
    "  -q, --quiet                 Do not print each entry while "
    "unpacking.\n" IMAGE_OFFSET_HELP;

/* After the options: how unpacking keeps to its target. */
static const char *help_rules =
    "\n"
    "Unpacking never writes outside the unpack root: names are checked\n"
    "again (no empty, '.', '..' or '/' names), every entry is created\n"
    "relative to its parent directory, and no symlink is followed, neither\n"
    "one from the image nor one already in the unpack root. An entry that\n"
    "already exists is an error, except a directory (not a symlink to one),\n"
    "which is used as it is. Hard links are unpacked as hard links.\n"
    "Permissions, owners, times and extended attributes are set on the\n"
    "entry itself (never on a symlink's target), a directory's after its\n"
    "contents. What the user may not do (create a device, change an\n"
    "owner, set a trusted. or security. attribute) is a warning: the\n"
    "unpack goes on.\n"
    "\n"
    "Exit status: 0 success (warnings included), 1 failure.\n";

static void print_help(void)
{
	fputs(help_text, stdout);
	cli_print_reader_tail(
	    stdout, "The output",
	    "                              With N > 1, -u also "
	    "writes and\n"
	    "                              closes small files on "
	    "a thread\n"
	    "                              of their own.\n");
	fputs(help_rules, stdout);
}

static int set_op(rd_options_t *opt, rd_op_t op, const char *path)
{
	if (opt->op != OP_NONE) {
		tool_error(NULL, "only one of --list, --cat, --xattr, "
				 "--unpack-path, --stat and --describe may "
				 "be given");
		cli_try_help();
		return -1;
	}
	opt->op = op;
	opt->cmdpath = path;
	return 0;
}

int rd_parse_options(int argc, char **argv, rd_options_t *opt)
{
	int c, ret = 0;

	memset(opt, 0, sizeof(*opt));
	opt->num_jobs = num_cpus();

	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'l':
			ret = set_op(opt, OP_LIST, optarg);
			break;
		case 'c':
			ret = set_op(opt, OP_CAT, optarg);
			break;
		case 'x':
			ret = set_op(opt, OP_XATTR, optarg);
			break;
		case 'u':
			ret = set_op(opt, OP_UNPACK, optarg);
			break;
		case 's':
			ret = set_op(opt, OP_STAT, optarg);
			break;
		case 'd':
			ret = set_op(opt, OP_DESCRIBE, NULL);
			break;
		case 'p':
			opt->unpack_root = optarg;
			break;
		case 'D':
			opt->flags |= SQFS_UNPACK_NO_DEVICES;
			break;
		case 'S':
			opt->flags |= SQFS_UNPACK_NO_SOCKETS;
			break;
		case 'F':
			opt->flags |= SQFS_UNPACK_NO_FIFOS;
			break;
		case 'L':
			opt->flags |= SQFS_UNPACK_NO_SYMLINKS;
			break;
		case 'E':
			opt->flags |= SQFS_UNPACK_NO_EMPTY_DIRS;
			break;
		case 'Z':
			opt->flags |= SQFS_UNPACK_NO_SPARSE;
			break;
		case 'X':
			opt->flags |= SQFS_UNPACK_SET_XATTRS;
			break;
		case 'T':
			opt->flags |= SQFS_UNPACK_SET_TIMES;
			break;
		case 'C':
			opt->flags |= SQFS_UNPACK_CHMOD;
			break;
		case 'O':
			opt->flags |= SQFS_UNPACK_CHOWN;
			break;
		case 'q':
			opt->quiet = true;
			break;
		case 'j':
			ret = cli_num_jobs(optarg, &opt->num_jobs);
			break;
		case 'o':
			ret =
			    cli_image_offset("--offset", optarg, &opt->offset);
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

	if (opt->op == OP_NONE) {
		tool_error(NULL, "no operation given (one of --list, --cat, "
				 "--xattr, --unpack-path, --stat, "
				 "--describe)");
		cli_try_help();
		return -1;
	}
	return cli_one_argument(argc, argv, "image", &opt->image);
}

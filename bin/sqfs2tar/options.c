/* SPDX-License-Identifier: MIT */
/*
 * options.c - sqfs2tar's command line.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/cpus.h"
#include "common/cli.h"
#include "common/print.h"
#include "tar/path.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option long_opts[] = {
    {"compressor", required_argument, NULL, 'c'},
    {"subdir", required_argument, NULL, 'd'},
    {"keep-as-dir", no_argument, NULL, 'k'},
    {"root-becomes", required_argument, NULL, 'r'},
    {"no-xattr", no_argument, NULL, 'X'},
    {"no-hard-links", no_argument, NULL, 'L'},
    {"no-skip", no_argument, NULL, 's'},
    {"num-jobs", required_argument, NULL, 'j'},
    {"offset", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char *short_opts = "c:d:kr:XLsj:o:hV";

static const char *help_text =
    "Usage: sqfs2tar [OPTIONS...] SQFSFILE\n"
    "\n"
    "Write the contents of a SquashFS image to standard output as a tar\n"
    "archive (PAX): directories with a trailing '/', hard links as links,\n"
    "long names and targets, large sizes and extended attributes\n"
    "(SCHILY.xattr.*) in extension records, devices and FIFOs, sparse\n"
    "files with their holes. Owners are numeric.\n"
    "\n"
    "Options:\n"
    "  -c, --compressor NAME       Compress the archive (list below).\n"
    "                              Default: uncompressed.\n"
    "  -d, --subdir DIR            Write only the subtree at DIR. Repeatable;\n"
    "                              given once, DIR becomes the root of the\n"
    "                              archive (its contents are written without\n"
    "                              the DIR/ prefix). Given more than once,\n"
    "                              --keep-as-dir is implied.\n"
    "  -k, --keep-as-dir           Keep the --subdir paths as they are in\n"
    "                              the image, with their parent directories\n"
    "                              (a --subdir that is not a directory is\n"
    "                              then a single entry).\n"
    "  -r, --root-becomes DIR      Write the root (or the single --subdir)\n"
    "                              as the directory DIR/, with its\n"
    "                              attributes, and everything inside it.\n"
    "                              '.' gives an entry './' and paths that\n"
    "                              start with './'. Hard-link targets get\n"
    "                              the prefix, symlink targets are kept.\n"
    "                              Without this option, the root's\n"
    "                              attributes are not written.\n"
    "  -X, --no-xattr              Leave extended attributes out.\n"
    "  -L, --no-hard-links         Write every name of a hard-linked file\n"
    "                              as a file of its own, with its data.\n"
    "  -s, --no-skip               Fail on an entry a tar archive cannot\n"
    "                              hold (a socket) instead of warning and\n"
    "                              leaving it out.\n" IMAGE_OFFSET_HELP;

/* After the options. */
static const char *help_end =
    "\n"
    "A damaged image ends the run with an error; the archive written so\n"
    "far then has no end marker. Exit status: 0 success, 1 failure.\n"
    "\n"
    "Output compressors of this build:\n";

static void print_help(void)
{
	fputs(help_text, stdout);
	cli_print_reader_tail(stdout, "The archive", NULL);
	fputs(help_end, stdout);
	tar_filter_print_list(stdout);
}

/* Path order of the image's listings: byte by byte, but a '/' (the end
 * of a component) before any other byte, so a directory's whole subtree
 * comes before its next sibling. */
static int tree_order(const void *pa, const void *pb)
{
	const unsigned char *a = *(const unsigned char *const *)pa;
	const unsigned char *b = *(const unsigned char *const *)pb;

	while (*a != '\0' && *a == *b) {
		++a;
		++b;
	}
	if (*a == *b)
		return 0;
	if (*a == '\0')
		return -1;
	if (*b == '\0')
		return 1;
	if (*a == '/')
		return -1;
	if (*b == '/')
		return 1;
	return *a < *b ? -1 : 1;
}

/* Canonicalise the --subdir paths, put them in tree order and drop
 * those inside another (each entry is written once). */
static int set_subdirs(sqfs2tar_options_t *opt, char **raw, size_t count)
{
	size_t i, kept = 0;
	bool unsafe;

	opt->subdirs = calloc(count, sizeof(opt->subdirs[0]));
	if (opt->subdirs == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	for (i = 0; i < count; ++i) {
		if (tar_path_canonical(raw[i], &opt->subdirs[i], &unsafe) !=
		    0) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		opt->subdir_count = i + 1;
		if (unsafe) {
			tool_error("--subdir",
				   "'%s': a '..' component is not "
				   "allowed",
				   raw[i]);
			return -1;
		}
	}

	qsort(opt->subdirs, count, sizeof(opt->subdirs[0]), tree_order);
	for (i = 0; i < count; ++i) {
		if (kept > 0 &&
		    tar_path_below(opt->subdirs[i], opt->subdirs[kept - 1]) !=
			NULL) {
			free(opt->subdirs[i]);
			continue;
		}
		opt->subdirs[kept++] = opt->subdirs[i];
	}
	opt->subdir_count = kept;

	/* the root among them: the whole image, as without --subdir */
	if (kept == 1 && opt->subdirs[0][0] == '\0') {
		free(opt->subdirs[0]);
		opt->subdir_count = 0;
	}
	return 0;
}

/* "." (also "./", ".//") is kept as "."; anything else is canonical and
 * must name something below the archive's top. */
static int set_root_becomes(sqfs2tar_options_t *opt, const char *arg)
{
	size_t len = strlen(arg);
	bool unsafe;

	free(opt->root_becomes);
	opt->root_becomes = NULL;

	if (len > 0 && arg[0] == '.' && strspn(arg + 1, "/") == len - 1) {
		opt->root_becomes = strdup(".");
	} else if (tar_path_canonical(arg, &opt->root_becomes, &unsafe) == 0) {
		if (unsafe || opt->root_becomes[0] == '\0') {
			tool_error("--root-becomes",
				   "'%s': not a directory name below the "
				   "archive's top",
				   arg);
			cli_try_help();
			return -1;
		}
	}
	if (opt->root_becomes == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	return 0;
}

int sqfs2tar_parse_options(int argc, char **argv, sqfs2tar_options_t *opt)
{
	char **raw_subdirs = NULL;
	size_t raw_count = 0;
	int c;

	memset(opt, 0, sizeof(*opt));
	opt->num_jobs = num_cpus();

	raw_subdirs = calloc((size_t)argc + 1, sizeof(raw_subdirs[0]));
	if (raw_subdirs == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}

	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			if (!tar_filter_known(optarg)) {
				tool_error("--compressor",
					   "'%s': unknown or not supported "
					   "by this build",
					   optarg);
				cli_try_help();
				goto fail;
			}
			opt->compressor = optarg;
			break;
		case 'd':
			raw_subdirs[raw_count++] = optarg;
			break;
		case 'k':
			opt->keep_as_dir = true;
			break;
		case 'r':
			if (set_root_becomes(opt, optarg) != 0)
				goto fail;
			break;
		case 'X':
			opt->no_xattr = true;
			break;
		case 'L':
			opt->no_hard_links = true;
			break;
		case 's':
			opt->no_skip = true;
			break;
		case 'j':
			if (cli_num_jobs(optarg, &opt->num_jobs) != 0)
				goto fail;
			break;
		case 'o':
			if (cli_image_offset("--offset", optarg,
					     &opt->offset) != 0)
				goto fail;
			break;
		default:
			if (cli_other_option(c, short_opts, argv, print_help) ==
			    CLI_DONE)
				goto done;
			goto fail;
		}
	}

	if (cli_one_argument(argc, argv, "image", &opt->image) != 0)
		goto fail;

	if (raw_count > 1)
		opt->keep_as_dir = true;
	if (raw_count > 0 && set_subdirs(opt, raw_subdirs, raw_count) != 0)
		goto fail;

	free(raw_subdirs);
	return 0;
done:
	free(raw_subdirs);
	sqfs2tar_free_options(opt);
	return 1;
fail:
	free(raw_subdirs);
	sqfs2tar_free_options(opt);
	return -1;
}

void sqfs2tar_free_options(sqfs2tar_options_t *opt)
{
	for (size_t i = 0; i < opt->subdir_count; ++i)
		free(opt->subdirs[i]);
	free(opt->subdirs);
	free(opt->root_becomes);
	opt->subdirs = NULL;
	opt->subdir_count = 0;
	opt->root_becomes = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * options.c - tar2sqfs's command line.
 */
#include "config.h"

#include "tar2sqfs.h"
#include "common/compressor_cli.h"
#include "common/cpus.h"
#include "common/defaults.h"
#include "common/parse.h"
#include "common/print.h"
#include "tar/path.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long options without a short one. */
enum {
	OPT_ALL_ROOT = 256,
};

static const struct option long_opts[] = {
    {"root-becomes", required_argument, NULL, 'r'},
    {"no-symlink-retarget", no_argument, NULL, 'S'},
    {"no-skip", no_argument, NULL, 's'},
    {"no-xattr", no_argument, NULL, 'x'},
    {"no-keep-time", no_argument, NULL, 'k'},
    {"exclude", required_argument, NULL, 'E'},
    {"exclude-dir", required_argument, NULL, 'E'},
    {"input", required_argument, NULL, 'i'},
    {"set-uid", required_argument, NULL, 'u'},
    {"set-gid", required_argument, NULL, 'g'},
    {"all-root", no_argument, NULL, OPT_ALL_ROOT},
    {"compressor", required_argument, NULL, 'c'},
    {"comp-extra", required_argument, NULL, 'X'},
    {"num-jobs", required_argument, NULL, 'j'},
    {"queue-backlog", required_argument, NULL, 'Q'},
    {"block-size", required_argument, NULL, 'b'},
    {"dev-block-size", required_argument, NULL, 'B'},
    {"defaults", required_argument, NULL, 'd'},
    {"exportable", no_argument, NULL, 'e'},
    {"no-tail-packing", no_argument, NULL, 'T'},
    {"no-probe", no_argument, NULL, 'P'},
    {"force", no_argument, NULL, 'f'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char *short_opts = "r:SsxkE:i:u:g:c:X:j:Q:b:B:d:eTPfqhV";

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
    "                              standard input.\n"
    "  -u, --set-uid N             Make N the owner of every entry.\n"
    "  -g, --set-gid N             Make N the group of every entry.\n"
    "      --all-root              Make root (0:0) own every entry.\n"
    "\n"
    "Image options:\n"
    "  -c, --compressor NAME       The compressor (list below).\n"
    "  -X, --comp-extra OPTS       Comma-separated compressor options;\n"
    "                              'help' lists them for the compressor.\n"
    "  -j, --num-jobs N            Compressor threads; the image is the\n"
    "                              same for any N. Default: the number of\n"
    "                              CPUs this process may run on.\n"
    "  -Q, --queue-backlog N       Most block buffers in flight before\n"
    "                              packing waits for the compressors (a\n"
    "                              data block holds one, a fragment block\n"
    "                              two; tails of small files hold none),\n"
    "                              never over 64 MiB. Default: 4 times\n"
    "                              the number of jobs.\n"
    "  -b, --block-size SIZE       Data block size, a power of two from 4K\n"
    "                              to 1M. Default: 131072.\n"
    "  -B, --dev-block-size SIZE   Pad the image to a multiple of SIZE (at\n"
    "                              least 1024). Default: 4096.\n"
    "  -d, --defaults K=V,...      Attributes of the root and of\n"
    "                              directories created implicitly:\n"
    "                                uid=N      default 0\n"
    "                                gid=N      default 0\n"
    "                                mode=OCT   default 0755\n"
    "                                mtime=N    default $SOURCE_DATE_EPOCH\n"
    "                                           or 0\n"
    "                              mtime is also the image's creation time.\n"
    "  -e, --exportable            Write an NFS export table.\n"
    "  -T, --no-tail-packing       Files larger than a block get no\n"
    "                              fragment.\n"
    "  -P, --no-probe              Run the compressor on every block. By\n"
    "                              default a quick test first finds blocks\n"
    "                              that would not shrink (already\n"
    "                              compressed data) and stores them raw.\n"
    "  -f, --force                 Replace SQFSFILE if it exists.\n"
    "  -q, --quiet                 No progress line, no statistics.\n"
    "  -h, --help                  Print this help and exit.\n"
    "  -V, --version               Print the version and exit.\n"
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
	comp_cli_print_list(stdout);
}

static int bad_value(const char *option, const char *arg, const char *why)
{
	tool_error(option, "'%s': %s", arg, why);
	return -1;
}

static int try_help(void)
{
	fprintf(stderr, "Try 'tar2sqfs --help' for more information.\n");
	return -1;
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
	const char *comp_name = NULL, *comp_extra = NULL, *why;
	const char **defaults = NULL;
	size_t defaults_count = 0;
	bool all_root = false;
	tool_defaults_t def;
	uint64_t num;
	int c, id;

	memset(opt, 0, sizeof(*opt));
	sqfs_writer_options_init(&opt->wr);
	opt->wr.num_jobs = num_cpus();

	/* -d may be given more than once: the arguments are applied in order
	 * after SOURCE_DATE_EPOCH, so at most one per argument */
	defaults = calloc((size_t)argc + 1, sizeof(defaults[0]));
	if (defaults == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}

	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) !=
	       -1) {
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
		case 'u':
			why = parse_uint(optarg, UINT32_MAX, &num);
			if (why != NULL) {
				bad_value("--set-uid", optarg, why);
				goto fail;
			}
			opt->set_uid = true;
			opt->uid = (uint32_t)num;
			break;
		case 'g':
			why = parse_uint(optarg, UINT32_MAX, &num);
			if (why != NULL) {
				bad_value("--set-gid", optarg, why);
				goto fail;
			}
			opt->set_gid = true;
			opt->gid = (uint32_t)num;
			break;
		case OPT_ALL_ROOT:
			all_root = true;
			break;
		case 'c':
			comp_name = optarg;
			break;
		case 'X':
			comp_extra = optarg;
			break;
		case 'j':
			why = parse_count(optarg, 4096, &num);
			if (why != NULL) {
				bad_value("--num-jobs", optarg, why);
				goto fail;
			}
			opt->wr.num_jobs = (unsigned int)num;
			break;
		case 'Q':
			why = parse_count(optarg, 1048576, &num);
			if (why != NULL) {
				bad_value("--queue-backlog", optarg, why);
				goto fail;
			}
			opt->wr.max_backlog = (unsigned int)num;
			break;
		case 'b':
			why = parse_block_size(optarg, &opt->wr.block_size);
			if (why != NULL) {
				bad_value("--block-size", optarg, why);
				goto fail;
			}
			break;
		case 'B':
			why =
			    parse_dev_block_size(optarg, &opt->wr.devblk_size);
			if (why != NULL) {
				bad_value("--dev-block-size", optarg, why);
				goto fail;
			}
			break;
		case 'd':
			defaults[defaults_count++] = optarg;
			break;
		case 'e':
			opt->wr.flags |= SQFS_WRITER_EXPORTABLE;
			break;
		case 'P':
			opt->wr.flags |= SQFS_WRITER_NO_PROBE;
			break;
		case 'T':
			opt->wr.flags |= SQFS_WRITER_NO_TAIL_PACKING;
			break;
		case 'f':
			opt->force = true;
			break;
		case 'q':
			opt->quiet = true;
			break;
		case 'h':
			print_help();
			goto done;
		case 'V':
			tool_print_version();
			goto done;
		default:
			tool_bad_option(short_opts, argv);
			try_help();
			goto fail;
		}
	}

	/* the compressor first: -X help needs no output file */
	if (comp_cli_select(comp_name, &id) != 0)
		goto fail;
	if (comp_extra != NULL && strcmp(comp_extra, "help") == 0) {
		comp_cli_print_options(stdout, id);
		goto done;
	}
	if (comp_cli_configure(&opt->wr.compressor, id, opt->wr.block_size,
			       comp_extra) != 0)
		goto fail;

	if (optind >= argc) {
		tool_error(NULL, "no output file given");
		try_help();
		goto fail;
	}
	if (optind + 1 < argc) {
		tool_error(argv[optind + 1], "unexpected argument (only one "
					     "output file)");
		try_help();
		goto fail;
	}
	opt->output = argv[optind];

	/* defaults: 0:0 0755 at SOURCE_DATE_EPOCH, then each -d */
	memset(&def, 0, sizeof(def));
	def.mode = 0755;
	if (source_date_epoch(getenv("SOURCE_DATE_EPOCH"), &def.mtime) != 0)
		tool_warning("SOURCE_DATE_EPOCH",
			     "'%s' is not a decimal number that fits 32 "
			     "bits; using 0",
			     getenv("SOURCE_DATE_EPOCH"));
	for (size_t i = 0; i < defaults_count; ++i) {
		char err[128];

		if (defaults_parse(&def, defaults[i], err, sizeof(err)) != 0) {
			tool_error("--defaults", "%s", err);
			goto fail;
		}
	}

	if (all_root) {
		opt->set_uid = opt->set_gid = true;
		opt->uid = opt->gid = 0;
	}
	if (opt->set_uid)
		def.uid = opt->uid;
	if (opt->set_gid)
		def.gid = opt->gid;

	opt->wr.default_uid = def.uid;
	opt->wr.default_gid = def.gid;
	opt->wr.default_mode = def.mode;
	opt->wr.default_mtime = def.mtime;
	opt->wr.mkfs_time = def.mtime;
	if (opt->no_xattr)
		opt->wr.flags |= SQFS_WRITER_NO_XATTRS;

	free(defaults);
	return 0;
done:
	free(defaults);
	tar2sqfs_free_options(opt);
	return 1;
fail:
	free(defaults);
	tar2sqfs_free_options(opt);
	return -1;
}

void tar2sqfs_free_options(tar2sqfs_options_t *opt)
{
	free(opt->root_becomes);
	free(opt->excludes);
	opt->root_becomes = NULL;
	opt->excludes = NULL;
	opt->exclude_count = 0;
}

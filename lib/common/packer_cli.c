/* SPDX-License-Identifier: MIT */
/*
 * packer_cli.c - the options of the tools that make images.
 */
#include "config.h"

#include "common/cli.h"
#include "common/compressor_cli.h"
#include "common/cpus.h"
#include "common/defaults.h"
#include "common/packer_cli.h"
#include "common/parse.h"
#include "common/print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char packer_help_owner[] =
    "  -u, --set-uid N             Make N the owner of every entry.\n"
    "  -g, --set-gid N             Make N the group of every entry.\n"
    "      --all-root              Make root (0:0) own every entry.\n";

const char packer_help_image[] =
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
    "                              never over 64 MiB nor a sixteenth of\n"
    "                              --mem. Default: 4 times the number of\n"
    "                              jobs.\n"
    "      --mem SIZE              Memory packing works in: what it keeps\n"
    "                              until the end (the entries, the index\n"
    "                              of file tails) goes to temporary files\n"
    "                              in $TMPDIR past it, and its buffers\n"
    "                              take their share. The image is the\n"
    "                              same for any SIZE (at least 1M).\n"
    "                              Default: a sixteenth of the machine's\n"
    "                              memory, 64M to 768M.\n"
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
    "  -V, --version               Print the version and exit.\n";

int packer_options_init(packer_options_t *p, int argc)
{
	memset(p, 0, sizeof(*p));
	sqfs_writer_options_init(&p->wr);
	p->wr.num_jobs = num_cpus();

	/* -d may be given more than once: the arguments are applied in
	 * order after SOURCE_DATE_EPOCH, so at most one per argument */
	p->defaults = calloc((size_t)argc + 1, sizeof(p->defaults[0]));
	if (p->defaults == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	return 0;
}

void packer_options_free(packer_options_t *p)
{
	free(p->defaults);
	p->defaults = NULL;
	p->defaults_count = 0;
}

static int owner_id(const char *option, const char *arg, uint32_t *out)
{
	uint64_t num;
	const char *why = parse_uint(arg, UINT32_MAX, &num);

	if (why != NULL)
		return cli_bad_value(option, arg, why);
	*out = (uint32_t)num;
	return 0;
}

int packer_option(packer_options_t *p, int c, const char *arg)
{
	/* the options that only set a writer flag */
	static const struct {
		int opt;
		uint32_t flag;
	} flag_opts[] = {
	    {'e', SQFS_WRITER_EXPORTABLE},
	    {'P', SQFS_WRITER_NO_PROBE},
	    {'T', SQFS_WRITER_NO_TAIL_PACKING},
	};
	const char *why = NULL, *option = NULL;
	uint64_t num;

	for (size_t i = 0; i < sizeof(flag_opts) / sizeof(flag_opts[0]); ++i) {
		if (c == flag_opts[i].opt) {
			p->wr.flags |= flag_opts[i].flag;
			return 0;
		}
	}

	switch (c) {
	case 'u':
		p->set_uid = true;
		return owner_id("--set-uid", arg, &p->uid);
	case 'g':
		p->set_gid = true;
		return owner_id("--set-gid", arg, &p->gid);
	case PACKER_OPT_ALL_ROOT:
		p->all_root = true;
		return 0;
	case 'c':
		p->comp_name = arg;
		return 0;
	case 'X':
		p->comp_extra = arg;
		return 0;
	case 'j':
		return cli_num_jobs(arg, &p->wr.num_jobs);
	case 'Q':
		why = parse_count(arg, 1048576, &num);
		if (why == NULL)
			p->wr.max_backlog = (unsigned int)num;
		option = "--queue-backlog";
		break;
	case PACKER_OPT_MEM:
		why = parse_size(arg, (uint64_t)UINT32_MAX << 20, &num);
		if (why == NULL && num < (1u << 20))
			why = "less than 1M";
		if (why == NULL)
			p->wr.mem_limit_mib =
			    (uint32_t)((num + (1u << 20) - 1) >> 20);
		option = "--mem";
		break;
	case 'b':
		why = parse_block_size(arg, &p->wr.block_size);
		option = "--block-size";
		break;
	case 'B':
		why = parse_dev_block_size(arg, &p->wr.devblk_size);
		option = "--dev-block-size";
		break;
	case 'd':
		p->defaults[p->defaults_count++] = arg;
		return 0;
	case 'f':
		p->force = true;
		return 0;
	case 'q':
		p->quiet = true;
		return 0;
	default:
		return 1;
	}
	return why != NULL ? cli_bad_value(option, arg, why) : 0;
}

int packer_options_finish(packer_options_t *p, int argc, char **argv)
{
	tool_defaults_t def;
	const char *sde;
	int id;

	/* the compressor first: -X help needs no output file */
	if (comp_cli_select(p->comp_name, &id) != 0)
		return -1;
	if (p->comp_extra != NULL && strcmp(p->comp_extra, "help") == 0) {
		comp_cli_print_options(stdout, id);
		return CLI_DONE;
	}
	if (comp_cli_configure(&p->wr.compressor, id, p->wr.block_size,
			       p->comp_extra) != 0)
		return -1;

	if (cli_one_argument(argc, argv, "output file", &p->output) != 0)
		return -1;

	/* defaults: 0:0 0755 at SOURCE_DATE_EPOCH, then each -d */
	memset(&def, 0, sizeof(def));
	def.mode = 0755;
	sde = getenv("SOURCE_DATE_EPOCH");
	if (source_date_epoch(sde, &def.mtime) != 0)
		tool_warning("SOURCE_DATE_EPOCH",
			     "'%s' is not a decimal number that fits 32 "
			     "bits; using 0",
			     sde);
	for (size_t i = 0; i < p->defaults_count; ++i) {
		char err[128];

		if (defaults_parse(&def, p->defaults[i], err, sizeof(err)) !=
		    0) {
			tool_error("--defaults", "%s", err);
			return -1;
		}
	}

	if (p->all_root) {
		p->set_uid = p->set_gid = true;
		p->uid = p->gid = 0;
	}
	if (p->set_uid)
		def.uid = p->uid;
	if (p->set_gid)
		def.gid = p->gid;

	p->wr.default_uid = def.uid;
	p->wr.default_gid = def.gid;
	p->wr.default_mode = def.mode;
	p->wr.default_mtime = def.mtime;
	p->wr.mkfs_time = def.mtime;
	return 0;
}

int packer_parse(packer_options_t *p, int argc, char **argv,
		 const char *short_opts, const struct option *long_opts,
		 void (*print_help)(void),
		 int (*own)(void *user, int c, const char *arg), void *user)
{
	int c, ret;

	if (packer_options_init(p, argc) != 0)
		return -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) !=
	       -1) {
		ret = packer_option(p, c, optarg);
		if (ret == 1)
			ret = own(user, c, optarg);
		if (ret == 1)
			ret = cli_other_option(c, short_opts, argv, print_help);
		if (ret != 0)
			return ret;
	}
	return packer_options_finish(p, argc, argv);
}

/* What every packer's help ends with, before the compressors. */
static const char packer_help_trailer[] =
    "\n"
    "Sizes take a K, M or G suffix. SOURCE_DATE_EPOCH, if set, must be a\n"
    "decimal number of seconds that fits 32 bits (else: a warning, and 0).\n"
    "The image is written beside SQFSFILE, synced, and moved there when\n"
    "complete; a failed run leaves no file behind, and an existing one\n"
    "untouched. Exit status: 0 success, 1 failure.\n"
    "\n"
    "Compressors of this build:\n";

void packer_print_help(const char *own_text)
{
	fputs(own_text, stdout);
	fputs(packer_help_owner, stdout);
	fputs("\n", stdout);
	fputs(packer_help_image, stdout);
	fputs(packer_help_trailer, stdout);
	comp_cli_print_list(stdout);
}

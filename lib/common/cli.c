/* SPDX-License-Identifier: MIT */
/*
 * cli.c - the command-line parts every tool shares.
 */
#include "config.h"

#include "common/cli.h"
#include "common/parse.h"
#include "common/print.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

void cli_try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n",
		tool_get_name());
}

int cli_bad_value(const char *option, const char *arg, const char *why)
{
	tool_error(option, "'%s': %s", arg, why);
	return -1;
}

int cli_other_option(int c, const char *short_opts, char **argv,
		     void (*print_help)(void))
{
	switch (c) {
	case 'h':
		print_help();
		return CLI_DONE;
	case 'V':
		tool_print_version();
		return CLI_DONE;
	default:
		tool_bad_option(short_opts, argv);
		cli_try_help();
		return -1;
	}
}

int cli_num_jobs(const char *arg, unsigned int *out)
{
	const char *why;
	uint64_t num;

	why = parse_count(arg, 4096, &num);
	if (why != NULL)
		return cli_bad_value("--num-jobs", arg, why);
	*out = (unsigned int)num;
	return 0;
}

int cli_one_argument(int argc, char **argv, const char *what, const char **out)
{
	if (optind >= argc) {
		tool_error(NULL, "no %s given", what);
		cli_try_help();
		return -1;
	}
	if (optind + 1 < argc) {
		tool_error(argv[optind + 1],
			   "unexpected argument (only one %s)", what);
		cli_try_help();
		return -1;
	}
	*out = argv[optind];
	return 0;
}

void cli_print_reader_tail(FILE *fp, const char *output, const char *more)
{
	fprintf(fp,
		"  -j, --num-jobs N            Decompress N data blocks at "
		"once, ahead\n"
		"                              of the entry being worked on\n"
		"                              (default: the CPUs this process "
		"may\n"
		"                              run on; 1: no threads). %s is\n"
		"                              the same for every N.\n",
		output);
	if (more != NULL)
		fputs(more, fp);
	fputs("  -h, --help                  Print this help and exit.\n"
	      "  -V, --version               Print the version and exit.\n",
	      fp);
}

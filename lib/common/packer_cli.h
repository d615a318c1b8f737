/* SPDX-License-Identifier: MIT */
/*
 * packer_cli.h - the options every tool that makes an image takes
 * (tar2sqfs, gensquashfs): the compressor and its settings, jobs and
 * backlog, block sizes, --defaults, the export table, tail packing, the
 * probe, owner overrides, --force, --quiet; and the output file argument.
 *
 * A tool merges PACKER_SHORT_OPTS and PACKER_LONG_OPTS into its getopt
 * tables, hands every option to packer_option first, prints
 * PACKER_HELP_TEXT in its --help, and calls packer_options_finish after
 * the loop. What the options mean is the same in every packer, so the
 * help text and the parsing live here once.
 */
#ifndef COMMON_PACKER_CLI_H
#define COMMON_PACKER_CLI_H

#include "sqfs/writer.h"

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	/* everything the writer takes, --defaults included */
	sqfs_writer_options_t wr;
	const char *output;
	bool force;
	bool quiet;
	/* --set-uid, --set-gid (--all-root sets both to 0) */
	bool set_uid;
	bool set_gid;
	uint32_t uid;
	uint32_t gid;

	/* gathered while parsing, applied by packer_options_finish */
	const char *comp_name;
	const char *comp_extra;
	const char **defaults;
	size_t defaults_count;
	bool all_root;
} packer_options_t;

/* The long options without a short one. */
#define PACKER_OPT_ALL_ROOT 0x200
#define PACKER_OPT_MEM 0x201

#define PACKER_SHORT_OPTS "u:g:c:X:j:Q:b:B:d:eTPfqhV"

#define PACKER_LONG_OPTS                                          \
	{"set-uid", required_argument, NULL, 'u'},                \
	    {"set-gid", required_argument, NULL, 'g'},            \
	    {"all-root", no_argument, NULL, PACKER_OPT_ALL_ROOT}, \
	    {"compressor", required_argument, NULL, 'c'},         \
	    {"comp-extra", required_argument, NULL, 'X'},         \
	    {"num-jobs", required_argument, NULL, 'j'},           \
	    {"queue-backlog", required_argument, NULL, 'Q'},      \
	    {"mem", required_argument, NULL, PACKER_OPT_MEM},     \
	    {"block-size", required_argument, NULL, 'b'},         \
	    {"dev-block-size", required_argument, NULL, 'B'},     \
	    {"defaults", required_argument, NULL, 'd'},           \
	    {"exportable", no_argument, NULL, 'e'},               \
	    {"no-tail-packing", no_argument, NULL, 'T'},          \
	    {"no-probe", no_argument, NULL, 'P'},                 \
	    {"force", no_argument, NULL, 'f'},                    \
	    {"quiet", no_argument, NULL, 'q'},                    \
	    {"help", no_argument, NULL, 'h'},                     \
	{                                                         \
		"version", no_argument, NULL, 'V'                 \
	}

/* The --help lines of the owner options (-u, -g, --all-root). */
extern const char packer_help_owner[];

/* The --help section "Image options:", -c to -V. */
extern const char packer_help_image[];

/* Before the getopt loop: the writer's defaults, num_cpus() jobs. Returns
 * 0 or -1 (printed). */
int packer_options_init(packer_options_t *p, int argc);

/*
 * Take option c (getopt_long's return) with its argument, if it is a
 * packer option. Returns 0 if taken, 1 if it is not a packer option
 * (-h and -V are the tool's), -1 on a bad value (printed).
 */
int packer_option(packer_options_t *p, int c, const char *arg);

/*
 * After the loop: the compressor and -X (CLI_DONE after -X help), the
 * output file argument, SOURCE_DATE_EPOCH and --defaults, the owner
 * overrides. Returns 0, CLI_DONE or -1 (printed).
 */
int packer_options_finish(packer_options_t *p, int argc, char **argv);

void packer_options_free(packer_options_t *p);

/*
 * The whole command line of a packer: packer_options_init, the getopt
 * loop (short_opts and long_opts hold the tool's options and the packer
 * ones), packer_options_finish. Each option that is not a packer option
 * goes to own(user, c, optarg), which returns 0 if it took it, 1 if it is
 * not its own either (then -h, -V and unknown options are handled, with
 * print_help), -1 on an error (printed). Returns 0, CLI_DONE or -1.
 */
int packer_parse(packer_options_t *p, int argc, char **argv,
		 const char *short_opts, const struct option *long_opts,
		 void (*print_help)(void),
		 int (*own)(void *user, int c, const char *arg), void *user);

/* Print a packer's --help: the tool's own text, the owner options, the
 * image options, what every packer says of sizes, SOURCE_DATE_EPOCH, the
 * output file and the exit status, and the compressors of this build. */
void packer_print_help(const char *own_text);

#endif /* COMMON_PACKER_CLI_H */

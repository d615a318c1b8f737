/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the parts of a command line every tool has: --help, --version,
 * an unknown option, a bad value, -j, and the one file argument.
 *
 * Messages follow print.h ("tool: what: why") and end with a pointer to
 * --help, so that every tool answers a mistake in the same words.
 */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <stdio.h>

/* Returned when the run is complete without work (--help, --version). */
#define CLI_DONE 1

/* After a mistake on the command line: "Try 'TOOL --help' ...". */
void cli_try_help(void);

/* "OPTION: 'ARG': WHY". Returns -1. */
int cli_bad_value(const char *option, const char *arg, const char *why);

/*
 * The default case of every tool's getopt_long loop: 'h' prints the help
 * (print_help) and 'V' the version (CLI_DONE); anything else is an
 * unknown option or one that lacks its value (short_opts is the loop's
 * option string), said so, and -1.
 */
int cli_other_option(int c, const char *short_opts, char **argv,
		     void (*print_help)(void));

/* The value of -j / --num-jobs (1 .. 4096) into *out. Returns 0 or -1
 * (printed). */
int cli_num_jobs(const char *arg, unsigned int *out);

/*
 * The one argument left after the options (argv[optind]): *out, or an
 * error "no WHAT given" / "ARG: unexpected argument (only one WHAT)".
 * Returns 0 or -1 (printed).
 */
int cli_one_argument(int argc, char **argv, const char *what, const char **out);

/*
 * The end of the option list of a tool that reads images (sqfs2tar,
 * rdsquashfs, sqfsdiff): -j, what it does and that output (the archive,
 * the output, the report) is the same for every N, then more (a line or
 * two of the tool's own about -j, or NULL), then -h and -V.
 */
void cli_print_reader_tail(FILE *fp, const char *output, const char *more);

#endif /* COMMON_CLI_H */

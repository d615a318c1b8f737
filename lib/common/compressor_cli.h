/* SPDX-License-Identifier: MIT */
/*
 * compressor_cli.h - the packers' -c and -X options.
 */
#ifndef COMMON_COMPRESSOR_CLI_H
#define COMMON_COMPRESSOR_CLI_H

#include "sqfs/compressor.h"

#include <stdint.h>
#include <stdio.h>

/*
 * The compressor id for -c NAME, or the default if name is NULL. Prints
 * "tool: NAME: why" and returns -1 for an unknown name or a compressor
 * this build lacks.
 */
int comp_cli_select(const char *name, int *id);

/*
 * Fill cfg with the defaults of compressor id for block_size, then apply
 * the -X string extra (NULL: none). Prints "tool: -X: why" and returns -1
 * if an option is invalid.
 */
int comp_cli_configure(sqfs_compressor_config_t *cfg, int id,
		       uint32_t block_size, const char *extra);

/* What -X help shows: the options of compressor id. */
void comp_cli_print_options(FILE *fp, int id);

/* The compressors of this build, one a line, the default marked, for
 * --help. */
void comp_cli_print_list(FILE *fp);

#endif /* COMMON_COMPRESSOR_CLI_H */

/* SPDX-License-Identifier: MIT */
/*
 * packer_run.h - the run of a tool that makes an image, around its input.
 *
 * Every packer does the same around what it reads: claim the output file
 * (refusing an existing one without --force before reading anything),
 * open its input, create the writer, hand it the entries with a progress
 * line, finish the image, move it into place, print the statistics. Only
 * the input differs, and it comes in through two callbacks.
 */
#ifndef COMMON_PACKER_RUN_H
#define COMMON_PACKER_RUN_H

#include "common/packer_cli.h"
#include "common/progress.h"
#include "sqfs/writer.h"

typedef struct {
	/* Open the input once the output is claimed; NULL if nothing to
	 * open. Returns 0, or -1 after printing why. */
	int (*open)(void *user);
	/* Hand every entry to wr, updating progress. Returns 0, or -1
	 * after printing why. */
	int (*pack)(void *user, sqfs_writer_t *wr, progress_t *progress);
	void *user;
} packer_input_t;

/* The whole run. Returns EXIT_SUCCESS or EXIT_FAILURE (printed why); a
 * failed run leaves no output file, and an existing one untouched. */
int packer_run(const packer_options_t *p, const packer_input_t *in);

#endif /* COMMON_PACKER_RUN_H */

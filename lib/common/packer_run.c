/* SPDX-License-Identifier: MIT */
/*
 * packer_run.c - the run of a tool that makes an image.
 */
#include "config.h"

#include "common/malloc_tune.h"
#include "common/out_file.h"
#include "common/packer_run.h"
#include "common/print.h"
#include "common/stats.h"
#include "sqfs/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int packer_run(const packer_options_t *p, const packer_input_t *in)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_writer_t *wr = NULL;
	int ret, status = EXIT_FAILURE;
	sqfs_writer_stats_t st;
	out_file_t *of = NULL;
	progress_t progress;

	/* refuse an existing output before reading anything */
	if (out_file_open(&of, p->output, p->force) != 0)
		goto out;
	if (in->open != NULL && in->open(in->user) != 0)
		goto out;

	tool_malloc_tune();
	ret = sqfs_writer_create(out_file_get(of), &p->wr, &wr, why);
	if (ret != 0) {
		tool_error(p->output, "%s", why);
		goto out;
	}

	progress_init(&progress, !p->quiet && isatty(STDERR_FILENO));
	ret = in->pack(in->user, wr, &progress);
	if (ret == 0) {
		ret = sqfs_writer_finish(wr);
		if (ret != 0)
			tool_image_error(p->output, NULL, ret, errno,
					 sqfs_writer_error(wr));
	}
	progress_end(&progress);
	if (ret != 0)
		goto out;

	sqfs_writer_get_stats(wr, &st);
	sqfs_writer_destroy(wr);
	wr = NULL;

	if (out_file_commit(of) != 0)
		goto out;

	/* the image is complete: a failure to print about it does not
	 * make the run fail */
	if (!p->quiet)
		stats_print(stdout, &st);
	status = EXIT_SUCCESS;
out:
	sqfs_writer_destroy(wr);
	out_file_destroy(of);
	return status;
}

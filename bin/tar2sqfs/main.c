/* SPDX-License-Identifier: MIT */
/*
 * main.c - tar2sqfs: a tar archive in, a SquashFS image out.
 */
#include "config.h"

#include "tar2sqfs.h"
#include "common/out_file.h"
#include "common/print.h"
#include "common/stats.h"
#include "sqfs/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_input(tar2sqfs_packer_t *pk)
{
	const char *input = pk->opt->input;
	int ret;

	if (tar_reader_create(&pk->rd) != 0) {
		tool_error(NULL, "cannot set up the archive reader");
		return -1;
	}

	if (input != NULL) {
		pk->input_name = input;
		ret = tar_reader_open_path(pk->rd, input);
	} else {
		pk->input_name = "standard input";
		if (isatty(STDIN_FILENO)) {
			tool_error(pk->input_name,
				   "is a terminal; pipe an archive in or "
				   "use --input");
			return -1;
		}
		ret = tar_reader_open_fd(pk->rd, STDIN_FILENO);
	}
	if (ret != 0) {
		tool_error(pk->input_name, "%s", tar_reader_error(pk->rd));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	tar2sqfs_packer_t pk;
	tar2sqfs_options_t opt;
	sqfs_writer_stats_t st;
	out_file_t *of = NULL;
	char why[SQFS_ERROR_TEXT_SIZE];
	int ret, status = EXIT_FAILURE;

	tool_set_name("tar2sqfs");
	memset(&pk, 0, sizeof(pk));

	ret = tar2sqfs_parse_options(argc, argv, &opt);
	if (ret != 0)
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	pk.opt = &opt;

	/* refuse an existing output before reading anything */
	if (out_file_open(&of, opt.pk.output, opt.pk.force) != 0)
		goto out;
	if (open_input(&pk) != 0)
		goto out;

	ret = sqfs_writer_create(out_file_get(of), &opt.pk.wr, &pk.wr, why);
	if (ret != 0) {
		tool_error(opt.pk.output, "%s", why);
		goto out;
	}

	progress_init(&pk.progress, !opt.pk.quiet && isatty(STDERR_FILENO));
	ret = tar2sqfs_pack(&pk);
	if (ret == 0) {
		ret = sqfs_writer_finish(pk.wr);
		if (ret != 0)
			tool_image_error(opt.pk.output, NULL, ret, errno,
					 sqfs_writer_error(pk.wr));
	}
	progress_end(&pk.progress);
	if (ret != 0)
		goto out;

	sqfs_writer_get_stats(pk.wr, &st);
	sqfs_writer_destroy(pk.wr);
	pk.wr = NULL;

	if (out_file_commit(of) != 0)
		goto out;

	/* the image is complete: a failure to print about it does not
	 * make the run fail */
	if (!opt.pk.quiet)
		stats_print(stdout, &st);
	status = EXIT_SUCCESS;
out:
	sqfs_writer_destroy(pk.wr);
	out_file_destroy(of);
	tar_reader_destroy(pk.rd);
	tar2sqfs_free_options(&opt);
	return status;
}

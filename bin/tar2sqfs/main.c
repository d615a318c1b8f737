/* SPDX-License-Identifier: MIT */
/*
 * main.c - tar2sqfs: a tar archive in, a SquashFS image out.
 */
#include "config.h"

#include "tar2sqfs.h"
#include "common/packer_run.h"
#include "common/print.h"

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

static int open_cb(void *user)
{
	return open_input(user);
}

static int pack_cb(void *user, sqfs_writer_t *wr, progress_t *progress)
{
	tar2sqfs_packer_t *pk = user;

	pk->wr = wr;
	pk->progress = progress;
	return tar2sqfs_pack(pk);
}

int main(int argc, char **argv)
{
	packer_input_t in = {open_cb, pack_cb, NULL};
	tar2sqfs_options_t opt;
	tar2sqfs_packer_t pk;
	int ret, status;

	tool_set_name("tar2sqfs");
	memset(&pk, 0, sizeof(pk));

	ret = tar2sqfs_parse_options(argc, argv, &opt);
	if (ret != 0)
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	pk.opt = &opt;
	in.user = &pk;

	status = packer_run(&opt.pk, &in);
	tar_reader_destroy(pk.rd);
	tar2sqfs_free_options(&opt);
	return status;
}

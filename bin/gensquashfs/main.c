/* SPDX-License-Identifier: MIT */
/*
 * main.c - gensquashfs: a directory tree in, a SquashFS image out.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/packer_run.h"
#include "common/print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input: the directory opened and scanned whole, so that the total is
 * known before any data is read. */
static int open_cb(void *user)
{
	gs_packer_t *pk = user;
	const char *dir = pk->opt->pack_dir;

	pk->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pk->dirfd < 0) {
		tool_error(dir, "%s", strerror(errno));
		return -1;
	}
	return gs_scan(pk->dirfd, dir, pk->opt->one_file_system, &pk->entries);
}

static int pack_cb(void *user, sqfs_writer_t *wr, progress_t *progress)
{
	gs_packer_t *pk = user;

	pk->wr = wr;
	pk->progress = progress;
	return gs_pack_entries(pk, &pk->entries);
}

int main(int argc, char **argv)
{
	packer_input_t in = {open_cb, pack_cb, NULL};
	gs_options_t opt;
	gs_packer_t pk;
	int ret, status;

	tool_set_name("gensquashfs");
	memset(&pk, 0, sizeof(pk));
	pk.dirfd = -1;

	ret = gs_parse_options(argc, argv, &opt);
	if (ret != 0)
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	pk.opt = &opt;
	in.user = &pk;

	status = packer_run(&opt.pk, &in);
	gs_entries_free(&pk.entries);
	if (pk.dirfd >= 0)
		close(pk.dirfd);
	gs_free_options(&opt);
	return status;
}

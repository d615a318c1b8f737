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

/* The folder a listing's inputs are in: --pack-dir, else the listing's. */
static char *input_folder(const gs_options_t *opt)
{
	const char *slash;

	if (opt->pack_dir != NULL)
		return strdup(opt->pack_dir);
	slash = strrchr(opt->pack_file, '/');
	if (slash == NULL)
		return strdup(".");
	if (slash == opt->pack_file)
		return strdup("/");
	return strndup(opt->pack_file, (size_t)(slash - opt->pack_file));
}

/* The input: the directory scanned, or the listing read, whole, so that
 * the total is known before any data is read. */
static int open_cb(void *user)
{
	gs_packer_t *pk = user;
	char *dir = input_folder(pk->opt);
	int ret;

	if (dir == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	pk->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pk->dirfd < 0) {
		tool_error(dir, "%s", strerror(errno));
		free(dir);
		return -1;
	}
	if (pk->opt->pack_file != NULL)
		ret = gs_read_listing(pk->opt->pack_file, pk->dirfd,
				      &pk->entries);
	else if ((ret = dup(pk->dirfd)) < 0)
		tool_error(dir, "%s", strerror(errno));
	else
		ret = gs_scan(ret, ".", pk->opt->one_file_system, &pk->entries);
	/* the root of --pack-dir takes the --defaults attributes, as
	 * squashfs-tools-ng gives them (--keep-time included); DIR's xattrs
	 * stay its own */
	if (ret == 0 && pk->opt->pack_file == NULL && pk->entries.count > 0)
		pk->entries.list[0].default_attrs = true;
	free(dir);
	if (ret == 0 && pk->opt->sort_file != NULL)
		ret = gs_apply_sort_file(pk->opt->sort_file, &pk->entries);
	if (ret == 0 && pk->opt->selinux != NULL)
		ret = gs_apply_selinux(pk->opt->selinux, &pk->entries);
	if (ret == 0 && pk->opt->xattr_file != NULL)
		ret = gs_apply_xattr_file(pk->opt->xattr_file, &pk->entries);
	return ret;
}

static int pack_cb(void *user, sqfs_writer_t *wr, progress_t *progress)
{
	gs_packer_t *pk = user;

	int ret;

	pk->wr = wr;
	pk->progress = progress;
	gs_opener_init(&pk->opener, pk->dirfd, &pk->entries);
	ret = gs_pack_entries(pk, &pk->entries);
	gs_opener_cleanup(&pk->opener);
	/* the writer holds the tree now: the list goes before it builds
	 * the directory tables, which is when memory peaks */
	gs_entries_free(&pk->entries);
	return ret;
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

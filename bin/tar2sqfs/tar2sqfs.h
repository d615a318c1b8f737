/* SPDX-License-Identifier: MIT */
/*
 * tar2sqfs.h - what the parts of tar2sqfs share.
 */
#ifndef TAR2SQFS_H
#define TAR2SQFS_H

#include "sqfs/writer.h"
#include "common/packer_cli.h"
#include "common/progress.h"
#include "tar/tar_reader.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	/* what every packer takes (common/packer_cli.h) */
	packer_options_t pk;
	/* the archive; NULL for stdin */
	const char *input;
	/* canonical --root-becomes prefix, or NULL */
	char *root_becomes;
	bool no_symlink_retarget;
	bool no_skip;
	bool no_xattr;
	bool no_keep_time;
	/* --exclude patterns */
	const char **excludes;
	size_t exclude_count;
} tar2sqfs_options_t;

/*
 * Parse the command line into opt. Returns 0 to go on, 1 when done
 * (--help, --version, -X help), -1 on an error (already printed).
 */
int tar2sqfs_parse_options(int argc, char **argv, tar2sqfs_options_t *opt);

void tar2sqfs_free_options(tar2sqfs_options_t *opt);

typedef struct {
	const tar2sqfs_options_t *opt;
	tar_reader_t *rd;
	sqfs_writer_t *wr;
	progress_t *progress;
	/* name of the input, for messages */
	const char *input_name;
	uint64_t entries;
} tar2sqfs_packer_t;

/*
 * Add every entry of the archive to the writer, skipping (or failing on,
 * with --no-skip) entries that cannot be stored, then deal with broken
 * hard links. Returns 0, or -1 after printing why.
 */
int tar2sqfs_pack(tar2sqfs_packer_t *pk);

#endif /* TAR2SQFS_H */

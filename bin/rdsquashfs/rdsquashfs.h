/* SPDX-License-Identifier: MIT */
/*
 * rdsquashfs.h - what the parts of rdsquashfs share.
 */
#ifndef RDSQUASHFS_H
#define RDSQUASHFS_H

#include "common/image_open.h"
#include "sqfs/dir_reader.h"
#include "sqfs/image.h"
#include "sqfs/image_source.h"
#include "sqfs/inode.h"
#include "sqfs/unpack.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	OP_NONE = 0,
	OP_LIST,
	OP_CAT,
	OP_XATTR,
	OP_UNPACK,
	OP_STAT,
	OP_DESCRIBE,
} rd_op_t;

typedef struct {
	rd_op_t op;
	/* the operation's PATH in the image */
	const char *cmdpath;
	const char *image;
	/* -o: where the image starts in its file */
	image_offset_t offset;
	/* -p: the target of -u, the input prefix of -d; NULL if not given */
	const char *unpack_root;
	/* sqfs_unpack_flags_t (sqfs/unpack.h) */
	unsigned int flags;
	bool quiet;
	unsigned int num_jobs;
} rd_options_t;

/*
 * Parse the command line into opt. Returns 0 to go on, 1 when done
 * (--help, --version), -1 on an error (already printed).
 */
int rd_parse_options(int argc, char **argv, rd_options_t *opt);

/* The open image. */
typedef struct {
	const rd_options_t *opt;
	sqfs_file_t *file;
	sqfs_image_t *img;
	/* for --stat, which shows the inode itself */
	sqfs_dir_reader_t *dr;
	uint32_t block_size;
} rd_ctx_t;

/*
 * Each operation returns 0 on success, or -1 after printing why (the
 * exit status is then 1).
 */
int rd_list(rd_ctx_t *ctx);
int rd_cat(rd_ctx_t *ctx);
int rd_xattr(rd_ctx_t *ctx);
int rd_stat(rd_ctx_t *ctx);
int rd_unpack(rd_ctx_t *ctx);
int rd_describe(rd_ctx_t *ctx);

/*
 * Resolve the user's path and read its inode into *out (to free()),
 * printing "rdsquashfs: PATH: why" on failure.
 */
int rd_resolve(rd_ctx_t *ctx, const char *path, sqfs_inode_t **out);

/*
 * An image source (sqfs/image_source.h) over path with flags
 * (sqfs_image_source_flags_t) and the -j jobs, into *out. Prints why and
 * returns -1 on failure.
 */
int rd_open_source(rd_ctx_t *ctx, const char *path, uint32_t flags,
		   sqfs_image_source_t **out);

/*
 * The entry at path alone, from a source over it (*src, to destroy, owns
 * it; flags as for rd_open_source, START_ONLY added). Prints why and
 * returns -1 on failure.
 */
int rd_entry_at(rd_ctx_t *ctx, const char *path, uint32_t flags,
		sqfs_image_source_t **src, const sqfs_entry_t **out);

/* Print the image's words for its last failure, as what's error (the
 * image's name if what is NULL). */
void rd_image_error(const rd_ctx_t *ctx, const char *what);

/*
 * The last component of a user path ("" for the root), ignoring empty
 * and "." components, copied into buf of size bytes (truncated).
 */
void rd_path_basename(const char *path, char *buf, size_t size);

#endif /* RDSQUASHFS_H */

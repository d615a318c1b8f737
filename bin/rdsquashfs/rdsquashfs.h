/* SPDX-License-Identifier: MIT */
/*
 * rdsquashfs.h - what the parts of rdsquashfs share.
 */
#ifndef RDSQUASHFS_H
#define RDSQUASHFS_H

#include "sqfs/data_reader.h"
#include "sqfs/dir_reader.h"
#include "sqfs/read_ahead.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/walker.h"

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

/* Entry types left out when unpacking, and how entries are finished. */
typedef enum {
	UNPACK_NO_DEV = 0x001,
	UNPACK_NO_SOCK = 0x002,
	UNPACK_NO_FIFO = 0x004,
	UNPACK_NO_SLINK = 0x008,
	UNPACK_NO_EMPTY_DIR = 0x010,
	UNPACK_NO_SPARSE = 0x020,
	UNPACK_SET_XATTR = 0x040,
	UNPACK_SET_TIMES = 0x080,
	UNPACK_CHMOD = 0x100,
	UNPACK_CHOWN = 0x200,
} rd_unpack_flags_t;

typedef struct {
	rd_op_t op;
	/* the operation's PATH in the image */
	const char *cmdpath;
	const char *image;
	/* -p: the target of -u, the input prefix of -d; NULL if not given */
	const char *unpack_root;
	unsigned int flags;
	bool quiet;
	unsigned int num_jobs;
} rd_options_t;

/*
 * Parse the command line into opt. Returns 0 to go on, 1 when done
 * (--help, --version), -1 on an error (already printed).
 */
int rd_parse_options(int argc, char **argv, rd_options_t *opt);

/* The open image and the readers every operation uses. */
typedef struct {
	const rd_options_t *opt;
	sqfs_file_t *file;
	sqfs_image_t *img;
	sqfs_dir_reader_t *dr;
	sqfs_data_reader_t *data;
	/* for --cat and --unpack-path: file data unpacked ahead */
	sqfs_read_ahead_t *ahead;
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

/* Print the image's words for its last failure, as what's error (the
 * image's name if what is NULL). */
void rd_image_error(const rd_ctx_t *ctx, const char *what);

/*
 * The last component of a user path ("" for the root), ignoring empty
 * and "." components, copied into buf of size bytes (truncated).
 */
void rd_path_basename(const char *path, char *buf, size_t size);

/* Whether name stays inside the directory it is created in: not empty,
 * no '/', not "." or "..". */
bool rd_name_is_safe(const char *name);

/* The block size words of a file inode, read from its payload (which
 * need not be aligned for uint32_t access through a const pointer). */
uint32_t rd_block_word(const sqfs_inode_t *inode, size_t index);

/* How many block size words a file inode's payload holds. */
size_t rd_block_words(const sqfs_inode_t *inode);

/*
 * Write the contents of the regular file inode: each piece of data
 * (offset, bytes, size, whether it is a sparse block) is handed to sink in
 * file order. The data comes from the read-ahead queue if ahead (the file
 * is its oldest entry), else from the data reader. The sink returns 0 to
 * go on, or a positive value after
 * reporting a failure of its own. Returns 0, a negative library error, or
 * the sink's positive return.
 */
typedef int (*rd_data_sink_t)(void *user, uint64_t offset, const uint8_t *data,
			      size_t size, bool sparse);

int rd_read_file(rd_ctx_t *ctx, const sqfs_inode_t *inode, bool ahead,
		 rd_data_sink_t sink, void *user);

/* A walker entry held back in the read-ahead queue, with copies of what
 * it points at; ent.inode is the queue's copy once taken out. */
typedef struct {
	sqfs_walk_entry_t ent;
	char *path;
	char *link_target;
} rd_queued_t;

/* Free a queued entry (the queue's drop callback); NULL is allowed. */
void rd_queued_free(void *user);

/* Queue a copy of ent, its data read ahead if with_data. Returns 0, or
 * -1 after printing why. */
int rd_ahead_push(rd_ctx_t *ctx, const sqfs_walk_entry_t *ent, bool with_data);

/* The oldest entry, or NULL; *with_data says whether its data is read
 * ahead (rd_read_file with ahead). Valid until rd_ahead_pop. */
rd_queued_t *rd_ahead_oldest(rd_ctx_t *ctx, bool *with_data);

/* Take the oldest entry out, skipping data of it not read. Returns 0, or
 * -1 after a failure there (printed if report). */
int rd_ahead_pop(rd_ctx_t *ctx, bool report);

#endif /* RDSQUASHFS_H */

/* SPDX-License-Identifier: MIT */
/*
 * sqfsdiff.h - what the parts of sqfsdiff share.
 *
 * sqfsdiff compares two trees, each an image or a directory (a "side").
 * Both sides hand out their entries in one order: depth first, a
 * directory before its contents, each directory's names in byte order.
 * The image reader guarantees that order (it refuses listings out of
 * order), and the directory side sorts what readdir gives. compare.c
 * walks the two streams side by side, like merging two sorted lists, and
 * never holds more than the entry at the head of each.
 */
#ifndef SQFSDIFF_H
#define SQFSDIFF_H

#include "common/image_open.h"
#include "sqfs/entry.h"
#include "sqfs/super.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit status, as diff(1) has it. */
enum {
	SD_EXIT_EQUAL = 0,
	SD_EXIT_DIFFERENT = 1,
	SD_EXIT_ERROR = 2,
};

/* What is compared besides the tree's shape, types, sizes, link
 * targets, device numbers and xattrs. */
typedef enum {
	SD_NO_CONTENTS = 0x01,
	SD_NO_OWNER = 0x02,
	SD_NO_PERMS = 0x04,
	SD_TIMESTAMPS = 0x08,
	SD_INODE_NUMBERS = 0x10,
	SD_SUPER = 0x20,
} sd_flags_t;

typedef struct {
	const char *old_path;
	const char *new_path;
	/* -e: where differing files are written (DIR/old, DIR/new) */
	const char *extract_dir;
	unsigned int flags;
	unsigned int num_jobs;
	/* where each side's image starts in its file: --old-offset and
	 * --new-offset, else -o for both; old_offset_opt / new_offset_opt
	 * name the per-side option when it was given (NULL otherwise) */
	image_offset_t old_offset;
	image_offset_t new_offset;
	const char *old_offset_opt;
	const char *new_offset_opt;
} sd_options_t;

/*
 * Parse the command line into opt. Returns 0 to go on, 1 when done
 * (--help, --version), -1 on an error (already printed).
 */
int sd_parse_options(int argc, char **argv, sd_options_t *opt);

/* A side's entries are neutral entries (sqfs/entry.h), valid until the
 * side's next sd_side_pop; hard_link names the first member met of a
 * hard-link group, as the image source names it. */

typedef struct sd_side sd_side_t;

/*
 * Open path as a side: an image if it is a file, a directory tree if it
 * is a directory. label ("old", "new") names it in messages along with
 * the path. An image starts at offset in its file (image_open.h);
 * offset_opt, if not NULL, names the option that gave it for this side
 * alone, which a directory side refuses. With_data says whether file contents
 * will be read (so that an image side reads them ahead on num_jobs threads).
 * Returns NULL after printing why.
 */
sd_side_t *sd_side_open(const char *path, const char *label,
			const image_offset_t *offset, const char *offset_opt,
			bool with_data, unsigned int num_jobs);
void sd_side_close(sd_side_t *side);

/* The superblock, for an image side; NULL for a directory. */
const sqfs_super_t *sd_side_super(const sd_side_t *side);

/*
 * The entry at the head of the side's stream: 0 with *out set, 1 when
 * the stream has ended, -1 after printing an error (the comparison
 * cannot go on). Calling it again without sd_side_pop gives the same
 * entry.
 */
int sd_side_head(sd_side_t *side, const sqfs_entry_t **out);

/* Done with the head entry. Returns 0 or -1 (printed). */
int sd_side_pop(sd_side_t *side);

/*
 * The head entry's xattrs, sorted by key, in *list (owned by the side,
 * valid until sd_side_pop); only the namespaces an image can hold
 * (xattr.h). Returns 0 or -1 (printed).
 */
int sd_side_xattrs(sd_side_t *side, const sqfs_xattr_t **list, size_t *count);

/*
 * The next run of the head entry's data (a regular file), in file order,
 * from the start: 0 with *out set (valid until the next call; a hole or
 * a sparse block has no data, so that no one reads its zeros one by
 * one), 1 after the end, -1 after printing an error. Reading it a second
 * time (sd_side_rewind) starts from the start again.
 */
int sd_side_read(sd_side_t *side, sqfs_data_run_t *out);

/* Read the head entry's data again from the start. Returns 0 or -1. */
int sd_side_rewind(sd_side_t *side);

/*
 * The comparison, printing one line per difference on stdout and a
 * summary at the end. Returns an SD_EXIT_* value.
 */
int sd_compare(const sd_options_t *opt, sd_side_t *old_side,
	       sd_side_t *new_side);

/*
 * -e: the files written for differences go below DIR/old and DIR/new,
 * which must not exist yet (DIR is made if it is missing); when they
 * cannot both be made, sd_extract_open leaves nothing it made.
 */
typedef struct sd_extract sd_extract_t;

sd_extract_t *sd_extract_open(const char *dir);
void sd_extract_close(sd_extract_t *ex);

/* Write the head entry of side (a regular file) to DIR/old/PATH (which
 * 0) or DIR/new/PATH (which 1), whole or not at all. Returns 0 or -1
 * (printed). */
int sd_extract_file(sd_extract_t *ex, sd_side_t *side, int which);

#endif /* SQFSDIFF_H */

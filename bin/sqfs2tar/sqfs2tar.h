/* SPDX-License-Identifier: MIT */
/*
 * sqfs2tar.h - what the parts of sqfs2tar share.
 */
#ifndef SQFS2TAR_H
#define SQFS2TAR_H

#include "common/image_open.h"
#include "sqfs/image.h"
#include "sqfs/image_source.h"
#include "util/hash_table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct archive;
struct archive_entry;

typedef struct {
	const char *image;
	/* -o: where the image starts in its file */
	image_offset_t offset;
	/* canonical --subdir paths in the image's tree order, none inside
	 * another; none at all if the whole image is wanted */
	char **subdirs;
	size_t subdir_count;
	/* --keep-as-dir, or implied by several --subdir */
	bool keep_as_dir;
	/* canonical --root-becomes name ("." allowed), or NULL */
	char *root_becomes;
	bool no_xattr;
	bool no_hard_links;
	bool no_skip;
	unsigned int num_jobs;
	/* --compressor: an output filter name, or NULL */
	const char *compressor;
} sqfs2tar_options_t;

/*
 * Parse the command line into opt. Returns 0 to go on, 1 when done
 * (--help, --version), -1 on an error (already printed).
 */
int sqfs2tar_parse_options(int argc, char **argv, sqfs2tar_options_t *opt);

void sqfs2tar_free_options(sqfs2tar_options_t *opt);

/* Whether libarchive knows the output filter name (for -c). */
bool tar_filter_known(const char *name);

/* The output filters this libarchive can apply, for --help. */
void tar_filter_print_list(FILE *fp);

/*
 * A PAX tar writer on standard output, compressed with the filter name
 * (NULL: none). Prints why and returns NULL on failure.
 */
struct archive *tar_out_open(const char *filter);

/* libarchive's reason for the last failure, never NULL. */
const char *tar_out_error(struct archive *ar);

/*
 * Finish the archive (ok) or abandon it without an end marker, so that a
 * failed run does not leave what looks like a complete archive; then free
 * it. Returns 0, or -1 after printing why the end could not be written.
 */
int tar_out_close(struct archive *ar, bool ok);

typedef struct {
	const sqfs2tar_options_t *opt;
	sqfs_image_t *img;
	/* the part of the image being written */
	sqfs_image_source_t *src;
	struct archive *ar;
	struct archive_entry *ent;
	uint32_t block_size;
	/* one block of zeros, fed to libarchive for holes it skips */
	uint8_t *zeros;
	/* hard links across several --subdir walks: inode number -> the
	 * s2t_link_t of a group with names to come (tree.c) */
	bool track_links;
	hash_table_t links;
} sqfs2tar_t;

/* The archive name an inode was first written as, and how many of its
 * names are still to come. */
typedef struct {
	char *name;
	uint32_t left;
} s2t_link_t;

/* Free the kept link groups (tree.c). */
void s2t_forget_links(sqfs2tar_t *s);

/*
 * Write the current entry of s->src, e, as name (the archive path without
 * a trailing '/'), a hard link to link (an archive path) if link is not
 * NULL; what names it in messages. A socket is skipped with a warning.
 * Returns 0 or -1 after printing why.
 */
int s2t_write_entry(sqfs2tar_t *s, const sqfs_entry_t *e, const char *name,
		    const char *link, const char *what);

/* Write everything the options select. Returns 0 or -1 (printed). */
int s2t_write_tree(sqfs2tar_t *s);

/* "a" + "/" + "b", or the one that is not empty; NULL if out of memory. */
char *s2t_join(const char *a, const char *b);

#endif /* SQFS2TAR_H */

/* SPDX-License-Identifier: MIT */
/*
 * unsquashfs.h - what the parts of the unsquashfs personality share.
 *
 * This command takes the command line of squashfs-tools 4.7.5's
 * unsquashfs and prints what it prints where scripts parse it (the
 * listings, -s, -fstime, -pf), so that it can stand in for it in PATH. It
 * runs on the same library and engine as rdsquashfs: the image source for
 * every walk, and the library's unpacker (sqfs/unpack.h, which rdsquashfs
 * -u uses too) for extraction, which never writes outside the target.
 */
#ifndef UNSQUASHFS_H
#define UNSQUASHFS_H

#include "sqfs/entry.h"
#include "sqfs/image.h"
#include "sqfs/image_source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The exit statuses of 4.7.5: fatal errors, and errors it went on after. */
#define UQ_EXIT_FATAL 1
#define UQ_EXIT_NONFATAL 2

typedef enum {
	UQ_EXTRACT = 0,
	UQ_LIST,
	UQ_SUPER,
	UQ_FSTIME,
	UQ_CAT,
	UQ_PSEUDO,
} uq_op_t;

/* How each entry is shown: by -l/-ls/-lc, or by -i/-li while extracting. */
typedef enum {
	UQ_SHOW_NONE = 0,
	/* the path alone */
	UQ_SHOW_NAMES,
	/* ls -l style with owner names */
	UQ_SHOW_LONG,
	/* ls -l style with numeric owners */
	UQ_SHOW_NUMERIC,
} uq_show_t;

/* A list of paths (patterns): extract, exclude or cat. */
typedef struct {
	char **items;
	size_t count;
} uq_list_t;

typedef struct {
	uq_op_t op;
	const char *image;
	/* -d: where to extract, also the prefix of every listed path */
	const char *dest;
	bool force;
	/* -l/-ll/-lln/-lc/-llc, or -i/-li while extracting */
	uq_show_t show;
	/* -lc/-llc: only files and empty directories */
	bool concise;
	/* -pf FILE, "-" for standard output */
	const char *pseudo_file;
	/* -o: bytes before the image; offset_auto for "-o auto" (found
	 * by sqfs_image_locate: an AppImage, a SIF container, a prefix) */
	uint64_t offset;
	bool offset_auto;
	bool no_xattrs;
	unsigned int num_jobs;
	bool no_progress;
	bool quiet;
	/* -max-depth: 0 is the root only; max_depth_set says if given */
	unsigned int max_depth;
	bool max_depth_set;
	bool utc;
	bool full_precision;
	/* -all-time */
	bool all_time_set;
	uint32_t all_time;
	/* the positional paths, and what -excludes / -ex / -excf add */
	uq_list_t extract;
	uq_list_t exclude;
	bool no_wildcards;
	bool ignore_errors;
	bool strict_errors;
	bool no_exit_code;
} uq_options_t;

/*
 * Parse argv as 4.7.5 does: options up to the image, paths after it.
 * Returns 0 to go on, 1 when done (-help, -version: *status holds the
 * exit status), or -1 after printing why (exit status 1).
 */
int uq_parse_options(int argc, char **argv, uq_options_t *opt, int *status);
void uq_options_free(uq_options_t *opt);

/* The open image. */
typedef struct {
	const uq_options_t *opt;
	/* the file, and the window of it that is the image (-o) */
	sqfs_file_t *file;
	sqfs_file_t *view;
	sqfs_image_t *img;
	uint32_t block_size;
	/* errors it went on after: the exit status is then 2 */
	unsigned int nonfatal;
} uq_ctx_t;

/* -s / -stat and -fstime: 0, or -1 after printing why. */
int uq_print_super(uq_ctx_t *ctx);
int uq_print_fstime(uq_ctx_t *ctx);

/*
 * The selection of entries: the extract and exclude paths (shell
 * wildcards per component, as 4.7.5 matches them) and -max-depth.
 */
typedef enum {
	/* not wanted, nor anything below it */
	UQ_SKIP = 0,
	/* wanted */
	UQ_TAKE,
	/* a directory on the way to a wanted path: shown and created, but
	 * only what the paths name is taken below it */
	UQ_PASS,
} uq_verdict_t;

uq_verdict_t uq_select(const uq_options_t *opt, const sqfs_entry_t *e);

/* Whether pattern names path itself (not a directory above it). */
bool uq_names_exactly(const uq_options_t *opt, const char *pattern,
		      const char *path);

/*
 * A source over the whole image with flags (sqfs_image_source_flags_t)
 * and the -p jobs. Prints why and returns -1 on failure.
 */
int uq_open_source(uq_ctx_t *ctx, uint32_t flags, sqfs_image_source_t **out);

/* The listing options: every selected entry, one line each. */
int uq_list(uq_ctx_t *ctx);

/*
 * One entry as a listing line (path = the -d prefix joined with the
 * entry's path) on stdout, in the form show asks for.
 */
void uq_print_entry(const uq_options_t *opt, uq_show_t show,
		    const sqfs_entry_t *e);

/*
 * A device's numbers as 4.7.5 shows them: the 32-bit word the image
 * stores, split the old way (shifted right by 8 as a signed number, and
 * its low 8 bits), whatever the numbers were.
 */
int uq_rdev_major(const sqfs_entry_t *e);
int uq_rdev_minor(const sqfs_entry_t *e);

/* -cat: the files named, to stdout. */
int uq_cat(uq_ctx_t *ctx);

/* -pf: the image as a pseudo file, with the data after it. */
int uq_pseudo(uq_ctx_t *ctx);

/* Extraction. */
int uq_extract(uq_ctx_t *ctx);

/* Say the image's last error, as 4.7.5 puts a fatal one. */
void uq_fatal_image(const uq_ctx_t *ctx);

#endif /* UNSQUASHFS_H */

/* SPDX-License-Identifier: MIT */
/*
 * image_open.h - opening the image a reader tool is given, from the offset
 * its --offset option names: a byte count, or "auto" to find the image
 * inside an AppImage, a SIF container or after a prefix
 * (sqfs_image_locate). Shared by rdsquashfs, sqfs2tar, sqfsdiff and the
 * unsquashfs personality, so that they take the same words and say the
 * same things.
 */
#ifndef COMMON_IMAGE_OPEN_H
#define COMMON_IMAGE_OPEN_H

#include "sqfs/squashfs.h"

#include <stdbool.h>
#include <stdint.h>

/* Where an image starts in its file. */
typedef struct {
	/* Find it (sqfs_image_locate, scanning the first
	 * SQFS_LOCATE_SCAN_LIMIT bytes last); offset is then unused. */
	bool locate;
	/* The byte the image starts at. */
	uint64_t offset;
} image_offset_t;

/* The --help line of --offset, for tools to print. */
#define IMAGE_OFFSET_HELP                                                      \
	"  -o, --offset N|auto         The image starts N bytes into the\n"    \
	"                              file (a K, M or G suffix multiplies\n"  \
	"                              by 1024, 1024^2, 1024^3); auto: find\n" \
	"                              it in an AppImage, a SIF container "    \
	"or\n"                                                                 \
	"                              after a prefix of any kind.\n"

/*
 * Parse an --offset argument: "auto", or a byte count with an optional
 * K, M or G suffix (parse_size). Returns NULL, or words saying what is
 * wrong with it.
 */
const char *image_offset_parse(const char *str, image_offset_t *out);

/* The same for an option named option ("--offset"), printing what is
 * wrong as the other options do. Returns 0 or -1 (printed). */
int cli_image_offset(const char *option, const char *arg, image_offset_t *out);

/*
 * Open the file at path, read-only, and give the view of it that starts
 * where at says (NULL: 0): the file itself at 0, else a window that owns
 * it. *found receives the offset used (the one located for auto). For a
 * reader that opens the image in its own way (sqfsmount's sqfs_fs_open);
 * failures are printed as image_open_at prints them. Returns 0 or -1,
 * with nothing left to release.
 */
int image_file_open_at(const char *path, const image_offset_t *at,
		       sqfs_file_t **file, uint64_t *found);

/* Print why the image at offset of the file at path could not be opened
 * ("IMG: at offset 5000: not a SquashFS image (bad magic)"), the
 * library's words being why. */
void image_open_error(const char *path, uint64_t offset, const char *why);

/*
 * Open the image in the file at path, read-only, from the offset at gives
 * (NULL: 0). *file receives the file to release (sqfs_file_destroy) after
 * the image: a window on the file when the offset is not 0. Every failure
 * is printed with the path ("IMG: offset 5000 is past the end of the file
 * (4096 bytes)", "IMG: no SquashFS image found: ..."); returns 0 or -1,
 * with nothing left to release.
 */
int image_open_at(const char *path, const image_offset_t *at,
		  sqfs_file_t **file, sqfs_image_t **img);

#endif /* COMMON_IMAGE_OPEN_H */

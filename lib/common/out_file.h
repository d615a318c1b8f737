/* SPDX-License-Identifier: MIT */
/*
 * out_file.h - an output image that appears complete or not at all.
 *
 * The image is written to a new temporary file beside the target (same
 * directory, so the final rename stays on one file system) and moved over
 * the target only once it is complete. A failed or interrupted run leaves
 * no file behind, and an existing target is never replaced without force:
 * it is refused before any work starts, and the final move itself refuses
 * to replace a file that appeared meanwhile.
 *
 * "Complete" holds after a crash as well: the commit syncs the temporary
 * file and closes it, checking both (a write-back error shows there), only
 * then renames it, and syncs the directory after, so that the new name is
 * on storage too. A crash at any point leaves the old target or the new
 * image, never a name for a partial one.
 */
#ifndef COMMON_OUT_FILE_H
#define COMMON_OUT_FILE_H

#include "sqfs/io.h"

#include <stdbool.h>

typedef struct out_file out_file_t;

/*
 * Check the target path, open its directory (read access is needed to
 * sync it) and create the temporary file. Without force an existing
 * target is an error; with it, only a regular file may be replaced.
 * Prints "tool: PATH: why" and returns -1 on failure.
 */
int out_file_open(out_file_t **out, const char *path, bool force);

/* The temporary file, to write the image to; owned by of. */
sqfs_file_t *out_file_get(out_file_t *of);

/* The temporary file's path, for tests. */
const char *out_file_temp_path(const out_file_t *of);

/*
 * Make the image durable and put it in place, in this order: sync the
 * temporary file, close it, rename it to the target (refusing a target
 * that appeared, without force), sync the directory. Prints
 * "tool: PATH: why" and returns -1 on failure. A failure before the
 * rename leaves the target as it was, and out_file_destroy removes the
 * temporary file. A failure to sync the directory comes after the rename:
 * the complete image stays in place, and -1 says that a crash may still
 * lose it (a file system that cannot sync directories at all is not a
 * failure).
 */
int out_file_commit(out_file_t *of);

/* Remove the temporary file unless committed, and free of; NULL is
 * allowed. */
void out_file_destroy(out_file_t *of);

#endif /* COMMON_OUT_FILE_H */

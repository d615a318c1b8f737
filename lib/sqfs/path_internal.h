/* SPDX-License-Identifier: MIT */
/*
 * path_internal.h - stepping through the components of a path of any
 * form, as sqfs/path.h defines the canonical one: what the writer and
 * the directory reader use to walk a path without copying it.
 */
#ifndef SQFS_PATH_INTERNAL_H
#define SQFS_PATH_INTERNAL_H

#include "sqfs/path.h"
#include "sqfs/error_internal.h"

#include <stddef.h>

/*
 * The next component of *path (any form: empty and "." components are
 * skipped): its length, with *comp at its start and *path moved past it;
 * 0 at the end. ".." is handed out like any other name.
 */
size_t path_next(const char **path, const char **comp);

/*
 * A walk of path failed with code at the component comp (len bytes, as
 * path_next gave it): for SQFS_ERROR_NO_ENTRY and SQFS_ERROR_NOT_DIR,
 * words naming the part of the path that fails ("'a/b': no such file or
 * directory" up to the missing name, "'a/f': not a directory" up to the
 * file that is not one). Returns code, which may be 0 or any other code
 * (left as it is), for `ret = path_walk_failed(...)`.
 */
int path_walk_failed(errtext_t *e, int code, const char *path, const char *comp,
		     size_t len);

#endif /* SQFS_PATH_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * path_internal.h - stepping through the components of a path of any
 * form, as sqfs/path.h defines the canonical one: what the writer and
 * the directory reader use to walk a path without copying it.
 */
#ifndef SQFS_PATH_INTERNAL_H
#define SQFS_PATH_INTERNAL_H

#include "sqfs/path.h"

#include <stddef.h>

/*
 * The next component of *path (any form: empty and "." components are
 * skipped): its length, with *comp at its start and *path moved past it;
 * 0 at the end. ".." is handed out like any other name.
 */
size_t path_next(const char **path, const char **comp);

#endif /* SQFS_PATH_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * path.h - paths and names of an image, in one form everywhere.
 *
 * Archives, listings and users name the same entry "./a//b/", "/a/b" or
 * "a/b". The library and every tool compare paths in one canonical form:
 * names separated by single '/', no empty or "." components, no leading
 * or trailing '/'; the root is "". The writer takes any form, the readers
 * resolve any form, and hand out the canonical one.
 *
 * A ".." component is never resolved: the writer refuses it and the
 * readers refuse to look it up, so the answer never depends on what
 * happens to exist. The canonical form keeps it, so that a message can
 * show it, and says it was there.
 *
 * A name (one component) an image can hold is 1 to 256 bytes without '/'
 * or NUL and is not "." or "..": the writer stores no other, the readers
 * refuse a listing holding another, and a program creating files from an
 * image's names (an unpacker) relies on that, and may check it again.
 */
#ifndef SQFS_PATH_H
#define SQFS_PATH_H

#include "sqfs/predef.h"

/* The longest name one directory entry can have. */
#define SQFS_NAME_MAX 256u

SQFS_BEGIN_DECLS

/*
 * Rewrite path, in place, in its canonical form. Returns 0, or
 * SQFS_ERROR_ARG_INVALID if it holds a ".." component (kept in the
 * result).
 */
SQFS_API int sqfs_path_canonical(char *path);

/* Whether the len bytes at name make a name an image can hold (above). */
SQFS_API bool sqfs_name_is_valid(const char *name, size_t len);

SQFS_END_DECLS

#endif /* SQFS_PATH_H */

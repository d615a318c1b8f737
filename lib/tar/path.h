/* SPDX-License-Identifier: MIT */
/*
 * path.h - canonical names of archive entries.
 *
 * Archives name the same file "./a//b/", "/a/b" or "a/b". Everything the
 * tools compare (exclusion patterns, the --root-becomes prefix, hard-link
 * targets) works on the library's one canonical form (sqfs/path.h): no
 * leading "/" or "./", no "." components, no empty components, no
 * trailing "/". The root is "". A ".." component is kept, so messages
 * show it, and flagged as unsafe: such a name could climb out of the
 * image root.
 */
#ifndef TAR_PATH_H
#define TAR_PATH_H

#include <stdbool.h>

/*
 * Write the canonical form of path into a new string at *out. *unsafe
 * (if not NULL) tells whether a component is "..". Returns 0 or
 * SQFS_ERROR_ALLOC.
 */
int tar_path_canonical(const char *path, char **out, bool *unsafe);

/*
 * If the canonical path lies below the canonical prefix, the part after
 * "prefix/"; "" if path equals prefix; NULL if it is elsewhere. An empty
 * prefix (the root) contains every path.
 */
const char *tar_path_below(const char *path, const char *prefix);

/*
 * Where a symlink target points once the directory prefix has become the
 * image root (tar2sqfs --root-becomes). A target that, once canonical,
 * lies strictly below prefix becomes "/" followed by the rest; any other
 * target (elsewhere, the prefix itself, one with a ".." component) is
 * kept as it is, as Debian's tar2sqfs does. *out receives a new string, or
 * NULL when the target is kept. Returns 0 or SQFS_ERROR_ALLOC.
 */
int tar_path_retarget(const char *target, const char *prefix, char **out);

#endif /* TAR_PATH_H */

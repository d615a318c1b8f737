/* SPDX-License-Identifier: MIT */
/*
 * fs_dir.h - a directory's names and a symlink's target, read from disk
 * relative to a directory descriptor.
 *
 * gensquashfs packs a tree and sqfsdiff compares one; both must see a
 * directory's entries in the order an image lists them (byte order of
 * the names), whatever order readdir gives, and read a symlink whose
 * target may change between lstat and readlink. Neither function prints:
 * each caller names the entry in its own words.
 */
#ifndef UTIL_FS_DIR_H
#define UTIL_FS_DIR_H

#include <stddef.h>

/*
 * The names in the directory at fd (which is taken over and closed),
 * without "." and "..", sorted by strcmp, in *names (*count of them, each
 * malloc'd; free with fs_dir_names_free). Returns 0, or -1 with errno set
 * (ENOMEM when out of memory); nothing is returned then.
 */
int fs_dir_names(int fd, char ***names, size_t *count);

void fs_dir_names_free(char **names, size_t count);

/*
 * The target of the symlink name in the directory at dfd, NUL-terminated,
 * into *target (realloc'd; NULL or an earlier buffer on entry). size_hint
 * is the size lstat gave; a target that grew since is read again in a
 * larger buffer, never cut. Returns 0, or -1 with errno set.
 */
int fs_read_link(int dfd, const char *name, size_t size_hint, char **target);

#endif /* UTIL_FS_DIR_H */

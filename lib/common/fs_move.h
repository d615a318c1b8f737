/* SPDX-License-Identifier: MIT */
/*
 * fs_move.h - putting a finished file under its name without replacing
 * anything.
 *
 * The tools write a file under a temporary name and give it its own name
 * only once it is complete (a packer's image, sqfsdiff -e's copies), so
 * that a failed run never leaves half a file under the name. Whatever
 * appeared at that name meanwhile (a file, a symlink) must stay as it
 * is, so the move refuses an existing target in the same step as the
 * move itself, never by a check before it.
 */
#ifndef COMMON_FS_MOVE_H
#define COMMON_FS_MOVE_H

/*
 * Rename from to to, both relative to the directory at (or AT_FDCWD); to
 * must not exist. renameat2 with RENAME_NOREPLACE, or, where the file
 * system cannot do that, a hard link (which refuses an existing target
 * just as well) and from unlinked. Returns 0, or -1 with errno set:
 * EEXIST when to exists; the errno of link (EPERM, ENOTSUP, ENOSYS) when
 * the file system has neither, for a caller that has a fallback of its
 * own.
 */
int fs_move_no_replace(int at, const char *from, const char *to);

#endif /* COMMON_FS_MOVE_H */

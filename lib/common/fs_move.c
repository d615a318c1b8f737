/* SPDX-License-Identifier: MIT */
/*
 * fs_move.c - moving a finished file to its name, never replacing one
 * (fs_move.h says why).
 */
#include "config.h"

#include "common/fs_move.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int fs_move_no_replace(int at, const char *from, const char *to)
{
	if (renameat2(at, from, at, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	/* the file system cannot do it: a hard link refuses an existing
	 * target just as well */
	if (linkat(at, from, at, to, 0) != 0)
		return -1;
	unlinkat(at, from, 0);
	return 0;
}

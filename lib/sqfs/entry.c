/* SPDX-License-Identifier: MIT */
/*
 * entry.c - the neutral entry (sqfs/entry.h).
 */
#include "config.h"

#include "sqfs/entry.h"

#include <string.h>

void sqfs_entry_init(sqfs_entry_t *entry, const char *path, uint32_t mode,
		     uint32_t uid, uint32_t gid, int64_t mtime)
{
	memset(entry, 0, sizeof(*entry));
	entry->path = path;
	entry->mode = mode;
	entry->uid = uid;
	entry->gid = gid;
	entry->mtime = mtime;
}

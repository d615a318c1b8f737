/* SPDX-License-Identifier: MIT */
/*
 * fs_links.h - the hard-link groups of a tree on disk: where each
 * multiply-linked inode was first met.
 *
 * gensquashfs packs the later members of a group as hard links to the
 * first, and sqfsdiff compares groups by their first member; both must
 * find the first member the same way. An inode is known by its device
 * and inode number: two devices may have the same inode number.
 */
#ifndef UTIL_FS_LINKS_H
#define UTIL_FS_LINKS_H

#include "util/hash_table.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

typedef struct fs_link_rec fs_link_rec_t;

typedef struct {
	/* inode number -> the newest record with it */
	hash_table_t by_ino;
	fs_link_rec_t *recs;
	size_t count;
	size_t capacity;
} fs_links_t;

void fs_links_init(fs_links_t *l);
void fs_links_cleanup(fs_links_t *l);

/*
 * If st's device and inode were met before, set *first to the value
 * given then and return 1; else remember value for them and return 0.
 * Returns -1 when out of memory (nothing remembered).
 */
int fs_links_find(fs_links_t *l, const struct stat *st, uint64_t value,
		  uint64_t *first);

#endif /* UTIL_FS_LINKS_H */

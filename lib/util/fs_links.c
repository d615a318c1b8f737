/* SPDX-License-Identifier: MIT */
/*
 * fs_links.c - the first member of each hard-link group of a tree.
 *
 * The records of one inode number are chained, newest first, from the
 * hash map's entry for it; a chain is longer than one only when several
 * devices (a tree crossing mount points) share the number.
 */
#include "config.h"

#include "util/fs_links.h"

#include <stdlib.h>
#include <string.h>

struct fs_link_rec {
	dev_t dev;
	uint64_t value;
	/* the previous record with the same inode number, or SIZE_MAX */
	size_t prev;
};

void fs_links_init(fs_links_t *l)
{
	memset(l, 0, sizeof(*l));
	hash_table_init(&l->by_ino);
}

void fs_links_cleanup(fs_links_t *l)
{
	hash_table_cleanup(&l->by_ino);
	free(l->recs);
	memset(l, 0, sizeof(*l));
}

int fs_links_find(fs_links_t *l, const struct stat *st, uint64_t value,
		  uint64_t *first)
{
	uint64_t head;
	size_t newest = SIZE_MAX;

	if (hash_table_get(&l->by_ino, (uint64_t)st->st_ino, &head))
		newest = (size_t)head;
	for (size_t i = newest; i != SIZE_MAX; i = l->recs[i].prev) {
		if (l->recs[i].dev == st->st_dev) {
			*first = l->recs[i].value;
			return 1;
		}
	}

	if (l->count == l->capacity) {
		size_t cap = l->capacity ? 2 * l->capacity : 256;
		fs_link_rec_t *n = realloc(l->recs, cap * sizeof(n[0]));

		if (n == NULL)
			return -1;
		l->recs = n;
		l->capacity = cap;
	}
	l->recs[l->count].dev = st->st_dev;
	l->recs[l->count].value = value;
	l->recs[l->count].prev = newest;
	if (hash_table_put(&l->by_ino, (uint64_t)st->st_ino, l->count) != 0)
		return -1;
	l->count += 1;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * entries.c - the list of entries the scan or the listing fills and the
 * packer empties.
 */
#include "config.h"

#include "gensquashfs.h"

#include <stdlib.h>
#include <string.h>

gs_entry_t *gs_entries_push(gs_entries_t *e, char *path)
{
	if (e->count == e->capacity) {
		size_t cap = e->capacity ? 2 * e->capacity : 1024;
		gs_entry_t *n = realloc(e->list, cap * sizeof(n[0]));

		if (n == NULL) {
			free(path);
			return NULL;
		}
		e->list = n;
		e->capacity = cap;
	}
	memset(&e->list[e->count], 0, sizeof(e->list[0]));
	e->list[e->count].path = path;
	return &e->list[e->count++];
}

void gs_entries_free(gs_entries_t *e)
{
	for (size_t i = 0; i < e->count; ++i) {
		free(e->list[i].path);
		free(e->list[i].target);
		free(e->list[i].source);
		for (size_t j = 0; j < e->list[i].xattr_count; ++j) {
			free((void *)e->list[i].xattrs[j].key);
			free((void *)e->list[i].xattrs[j].value);
		}
		free(e->list[i].xattrs);
	}
	free(e->list);
	memset(e, 0, sizeof(*e));
}

int gs_entry_set_xattr(gs_entry_t *e, char *key, uint8_t *value, size_t size)
{
	sqfs_xattr_t *list;
	size_t i;

	for (i = 0; i < e->xattr_count; ++i) {
		if (strcmp(e->xattrs[i].key, key) == 0)
			break;
	}
	if (i == e->xattr_count) {
		list = realloc(e->xattrs, (i + 1) * sizeof(list[0]));
		if (list == NULL) {
			free(key);
			free(value);
			return -1;
		}
		e->xattrs = list;
		e->xattr_count += 1;
	} else {
		free((void *)e->xattrs[i].key);
		free((void *)e->xattrs[i].value);
	}
	e->xattrs[i].key = key;
	e->xattrs[i].value = value;
	e->xattrs[i].size = size;
	return 0;
}

char *gs_path_join(const char *dir, const char *rel)
{
	size_t dl = strlen(dir), rl = strlen(rel);
	char *p = malloc(dl + rl + 2);

	if (p == NULL)
		return NULL;
	memcpy(p, dir, dl);
	if (dl > 0 && rl > 0)
		p[dl++] = '/';
	memcpy(p + dl, rel, rl + 1);
	return p;
}

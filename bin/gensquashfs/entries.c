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

void gs_stat_set(gs_stat_t *out, const struct stat *st)
{
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		out->rdev = (uint64_t)st->st_rdev;
	else
		out->size = (uint64_t)st->st_size;
	out->mtime = (int64_t)st->st_mtime;
	out->dev = (uint64_t)st->st_dev;
	out->ino = (uint64_t)st->st_ino;
	out->mode = (uint32_t)st->st_mode;
	out->uid = (uint32_t)st->st_uid;
	out->gid = (uint32_t)st->st_gid;
}

void gs_entry_release(gs_entry_t *e)
{
	free(e->path);
	/* target and source share their room */
	free(e->target);
	for (size_t j = 0; j < e->xattr_count; ++j) {
		free((void *)e->xattrs[j].key);
		free((void *)e->xattrs[j].value);
	}
	free(e->xattrs);
	e->path = e->target = NULL;
	e->xattrs = NULL;
	e->xattr_count = 0;
}

void gs_entries_trim(gs_entries_t *e)
{
	gs_entry_t *list;

	if (e->count == 0 || e->count == e->capacity)
		return;
	list = realloc(e->list, e->count * sizeof(list[0]));
	if (list != NULL) {
		e->list = list;
		e->capacity = e->count;
	}
}

void gs_entries_free(gs_entries_t *e)
{
	for (size_t i = 0; i < e->count; ++i)
		gs_entry_release(&e->list[i]);
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
		if (i == UINT32_MAX) {
			free(key);
			free(value);
			return -1;
		}
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

/* SPDX-License-Identifier: MIT */
/*
 * entries.c - the list of entries the scan or the listing fills and the
 * packer empties.
 */
#include "config.h"

#include "gensquashfs.h"
#include "sqfs/path.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The list lives in pages of its own (mmap), not in the malloc heap, so
 * that a packer done with its first entries can give their pages back
 * (gs_entries_drop_before): the list then shrinks while the writer's
 * tree grows, and memory peaks at about the larger of the two rather
 * than their sum. Growing moves the pages (mremap), it never copies.
 */
static size_t list_bytes(size_t count)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = count * sizeof(gs_entry_t);

	return (bytes + page - 1) / page * page;
}

gs_entry_t *gs_entries_push(gs_entries_t *e, char *path)
{
	if (e->count == e->capacity) {
		size_t cap = e->capacity ? 2 * e->capacity : 1024;
		size_t bytes = list_bytes(cap);
		void *n;

		if (cap > SIZE_MAX / 2 / sizeof(gs_entry_t))
			n = MAP_FAILED;
		else if (e->list == NULL)
			n = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		else
			n = mremap(e->list, list_bytes(e->capacity), bytes,
				   MREMAP_MAYMOVE);
		if (n == MAP_FAILED) {
			free(path);
			return NULL;
		}
		e->list = n;
		e->capacity = bytes / sizeof(gs_entry_t);
	}
	memset(&e->list[e->count], 0, sizeof(e->list[0]));
	e->list[e->count].path = path;
	e->list[e->count].root = GS_ROOT_NONE;
	return &e->list[e->count++];
}

void gs_entries_drop_before(gs_entries_t *e, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = n * sizeof(gs_entry_t) / page * page;

	if (bytes <= e->dropped)
		return;
	/* the pages read back as zeros: empty entries, nothing owned */
	if (madvise((char *)e->list + e->dropped, bytes - e->dropped,
		    MADV_DONTNEED) == 0)
		e->dropped = bytes;
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
	size_t bytes = list_bytes(e->count);
	void *n;

	if (e->list == NULL || bytes >= list_bytes(e->capacity))
		return;
	if (bytes == 0) {
		munmap(e->list, list_bytes(e->capacity));
		e->list = NULL;
		e->capacity = 0;
		return;
	}
	/* shrinking never moves the pages */
	n = mremap(e->list, list_bytes(e->capacity), bytes, 0);
	if (n != MAP_FAILED)
		e->capacity = bytes / sizeof(gs_entry_t);
}

void gs_entries_free(gs_entries_t *e)
{
	for (size_t i = 0; i < e->count; ++i)
		gs_entry_release(&e->list[i]);
	if (e->list != NULL)
		munmap(e->list, list_bytes(e->capacity));
	for (size_t i = 0; i < e->root_count; ++i) {
		free(e->roots[i].location);
		free(e->roots[i].image_name);
		free(e->roots[i].real_name);
	}
	free(e->roots);
	for (size_t i = 0; i < e->store_count; ++i)
		close(e->stores[i]);
	free(e->stores);
	memset(e, 0, sizeof(*e));
}

int gs_entries_add_store(gs_entries_t *e, int fd, uint32_t *index)
{
	int *stores;

	if (e->store_count >= UINT32_MAX)
		goto fail;
	stores = realloc(e->stores, (e->store_count + 1) * sizeof(stores[0]));
	if (stores == NULL)
		goto fail;
	e->stores = stores;
	stores[e->store_count] = fd;
	*index = (uint32_t)e->store_count++;
	return 0;
fail:
	close(fd);
	return -1;
}

int gs_entries_add_root(gs_entries_t *e, char *location, fs_id_t id,
			uint32_t *index)
{
	gs_root_t *roots;

	/* GS_ROOT_NONE stays free to mean "no root" */
	if (e->root_count >= GS_ROOT_NONE - 1)
		goto fail;
	roots = realloc(e->roots, (e->root_count + 1) * sizeof(roots[0]));
	if (roots == NULL)
		goto fail;
	e->roots = roots;
	memset(&roots[e->root_count], 0, sizeof(roots[0]));
	roots[e->root_count].location = location;
	roots[e->root_count].id = id;
	*index = (uint32_t)e->root_count++;
	return 0;
fail:
	free(location);
	return -1;
}

int gs_entries_name_root(gs_entries_t *e, uint32_t index, char *image_name,
			 char *real_name)
{
	gs_root_t *r = &e->roots[index];

	if (image_name == NULL || real_name == NULL) {
		free(image_name);
		free(real_name);
		return -1;
	}
	free(r->image_name);
	free(r->real_name);
	r->image_name = image_name;
	r->real_name = real_name;
	return 0;
}

int gs_entry_set_xattr(gs_entry_t *e, char *key, uint8_t *value, size_t size)
{
	uint32_t n = e->xattr_count;

	/* appended, never searched: the writer keeps the last value of a
	 * key. The list doubles when its count reaches a power of two, so
	 * that a file of many keys for one entry costs no more than linear
	 * time, and an entry keeps no capacity field. */
	if (n == UINT32_MAX)
		goto fail;
	if ((n & (n - 1)) == 0) {
		size_t cap = n == 0 ? 1 : 2 * (size_t)n;
		sqfs_xattr_t *list = realloc(e->xattrs, cap * sizeof(list[0]));

		if (list == NULL)
			goto fail;
		e->xattrs = list;
	}
	e->xattrs[n].key = key;
	e->xattrs[n].value = value;
	e->xattrs[n].size = size;
	e->xattr_count = n + 1;
	return 0;
fail:
	free(key);
	free(value);
	return -1;
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

/* ---- paths --------------------------------------------------------------- */

const char *gs_path_canonical(char *path)
{
	/* the library's one canonical form; a ".." is refused here */
	return sqfs_path_canonical(path) == 0 ? path : NULL;
}

uint64_t gs_path_hash(const char *p)
{
	uint64_t h = 14695981039346656037ull;

	while (*p != '\0')
		h = (h ^ (uint8_t)*p++) * 1099511628211ull;
	return h;
}

size_t *gs_path_index_slot(gs_path_index_t *idx, const gs_entries_t *e,
			   const char *path)
{
	size_t i = (size_t)gs_path_hash(path) & idx->mask;

	while (idx->slots[i] != SIZE_MAX &&
	       strcmp(e->list[idx->slots[i]].path, path) != 0)
		i = (i + 1) & idx->mask;
	return &idx->slots[i];
}

int gs_path_index_reserve(gs_path_index_t *idx, const gs_entries_t *e)
{
	size_t old_size = idx->slots != NULL ? idx->mask + 1 : 0;
	size_t size = old_size ? 2 * old_size : 1024, *old = idx->slots;

	/* at most half full, so that probes stay short */
	if (idx->slots != NULL && (e->count + 1) * 2 <= old_size)
		return 0;
	while ((e->count + 1) * 2 > size)
		size *= 2;
	idx->slots = malloc(size * sizeof(idx->slots[0]));
	if (idx->slots == NULL) {
		idx->slots = old;
		return -1;
	}
	for (size_t i = 0; i < size; ++i)
		idx->slots[i] = SIZE_MAX;
	idx->mask = size - 1;
	for (size_t i = 0; i < old_size; ++i) {
		if (old[i] != SIZE_MAX)
			*gs_path_index_slot(idx, e, e->list[old[i]].path) =
			    old[i];
	}
	free(old);
	return 0;
}

void gs_path_index_free(gs_path_index_t *idx)
{
	free(idx->slots);
	idx->slots = NULL;
	idx->mask = 0;
}

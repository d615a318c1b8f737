/* SPDX-License-Identifier: MIT */
/*
 * inode_map.c - where each inode number is: the export table if the image
 * has one, else what directory entries said, else a walk of the tree.
 *
 * FUSE names inodes by number and may ask for any number it was given
 * before, in any order, after the kernel forgot the path to it. The image
 * finds inodes by reference (block and offset), which only a directory
 * entry or the export table gives. So every entry the file system reads
 * (lookup, readdir, the walk) records its number's reference here.
 *
 * The map is two levels of pages allocated on first use and published with
 * a compare-and-swap, so readers never lock and a hostile inode count
 * costs nothing until numbers are actually seen.
 */
#include "fs_internal.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_SIZE_ENTRIES (1u << MAP_PAGE_BITS)
#define MID_SIZE (1u << MAP_MID_BITS)

void inode_map_init(inode_map_t *map)
{
	size_t i;

	for (i = 0; i < MAP_TOP_SIZE; ++i)
		atomic_init(&map->top[i], NULL);
}

void inode_map_cleanup(inode_map_t *map)
{
	_Atomic(uint64_t *) *mid;
	size_t i, j;

	for (i = 0; i < MAP_TOP_SIZE; ++i) {
		mid = atomic_load(&map->top[i]);
		if (mid == NULL)
			continue;
		for (j = 0; j < MID_SIZE; ++j)
			free(atomic_load(&mid[j]));
		free((void *)mid);
	}
}

/* The word of ino, allocating its pages if create; NULL if absent. */
static _Atomic uint64_t *slot(inode_map_t *map, uint32_t ino, bool create)
{
	uint32_t t = ino >> (MAP_PAGE_BITS + MAP_MID_BITS);
	uint32_t m = (ino >> MAP_PAGE_BITS) & (MID_SIZE - 1);
	_Atomic(uint64_t *) *mid, *fresh_mid, *expect_mid;
	uint64_t *page, *fresh, *expect;
	size_t i;

	mid = atomic_load_explicit(&map->top[t], memory_order_acquire);
	if (mid == NULL) {
		if (!create)
			return NULL;
		fresh_mid = malloc(MID_SIZE * sizeof(*fresh_mid));
		if (fresh_mid == NULL)
			return NULL;
		for (i = 0; i < MID_SIZE; ++i)
			atomic_init(&fresh_mid[i], NULL);
		expect_mid = NULL;
		if (atomic_compare_exchange_strong_explicit(
			&map->top[t], &expect_mid, fresh_mid,
			memory_order_acq_rel, memory_order_acquire)) {
			mid = fresh_mid;
		} else {
			free((void *)fresh_mid);
			mid = expect_mid;
		}
	}

	page = atomic_load_explicit(&mid[m], memory_order_acquire);
	if (page == NULL) {
		if (!create)
			return NULL;
		/* zero is "unknown", so calloc makes a valid page */
		fresh = calloc(PAGE_SIZE_ENTRIES, sizeof(_Atomic uint64_t));
		if (fresh == NULL)
			return NULL;
		expect = NULL;
		if (atomic_compare_exchange_strong_explicit(
			&mid[m], &expect, fresh, memory_order_acq_rel,
			memory_order_acquire)) {
			page = fresh;
		} else {
			free(fresh);
			page = expect;
		}
	}
	return (_Atomic uint64_t *)page + (ino & (PAGE_SIZE_ENTRIES - 1));
}

void inode_map_record(inode_map_t *map, uint32_t ino, uint64_t ref)
{
	_Atomic uint64_t *w = slot(map, ino, true);
	uint64_t old;

	/* out of memory only loses a shortcut: the walk finds it again */
	if (w == NULL)
		return;
	old = atomic_load_explicit(w, memory_order_relaxed);
	while (!(old & MAP_KNOWN)) {
		if (atomic_compare_exchange_weak_explicit(
			w, &old, old | MAP_KNOWN | (ref & MAP_REF_MASK),
			memory_order_relaxed, memory_order_relaxed))
			break;
	}
}

bool inode_map_find(inode_map_t *map, uint32_t ino, uint64_t *ref)
{
	_Atomic uint64_t *w = slot(map, ino, false);
	uint64_t v;

	if (w == NULL)
		return false;
	v = atomic_load_explicit(w, memory_order_relaxed);
	if (!(v & MAP_KNOWN))
		return false;
	*ref = v & MAP_REF_MASK;
	return true;
}

int inode_map_list_once(inode_map_t *map, uint32_t ino, bool *first)
{
	_Atomic uint64_t *w = slot(map, ino, true);
	uint64_t old;

	if (w == NULL)
		return SQFS_ERROR_ALLOC;
	old = atomic_fetch_or_explicit(w, MAP_LISTED, memory_order_relaxed);
	*first = !(old & MAP_LISTED);
	return 0;
}

/* ---- finding a number ---------------------------------------------------- */

typedef struct {
	uint64_t ref;
	uint32_t ino;
} walk_item_t;

/*
 * List every directory reachable from the root once (MAP_LISTED keeps a
 * directory named twice, or a loop in a hostile image, from being listed
 * again), recording every entry. A damaged listing is left where it
 * breaks and the walk goes on with the rest of the tree. The stack holds
 * each directory at most once, so it is bounded by the directories that
 * the listings actually name.
 */
static int walk_tree(sqfs_fs_t *fs, fs_ctx_t *ctx)
{
	walk_item_t *stack = NULL, *grown, cur;
	size_t used = 0, cap = 0;
	sqfs_dir_entry_t ent;
	sqfs_inode_t *dir;
	bool first;
	int ret;

	ret = inode_map_list_once(&fs->map, fs->root_ino, &first);
	if (ret != 0)
		return ret;
	stack = malloc(16 * sizeof(*stack));
	if (stack == NULL)
		return SQFS_ERROR_ALLOC;
	cap = 16;
	stack[used].ref = fs->root_ref;
	stack[used].ino = fs->root_ino;
	used++;

	while (used > 0) {
		cur = stack[--used];
		if (sqfs_image_read_inode(ctx->img, cur.ref, &dir) != 0)
			continue;
		if (dir->inode_number != cur.ino ||
		    sqfs_dir_reader_open(ctx->dr, dir) != 0) {
			free(dir);
			continue;
		}
		while (sqfs_dir_reader_next(ctx->dr, &ent) == 0) {
			inode_map_record(&fs->map, ent.inode_number,
					 ent.inode_ref);
			if (ent.type != SQFS_INODE_DIR)
				continue;
			ret = inode_map_list_once(&fs->map, ent.inode_number,
						  &first);
			if (ret != 0)
				break;
			if (!first)
				continue;
			if (used == cap) {
				grown =
				    realloc(stack, 2 * cap * sizeof(*stack));
				if (grown == NULL) {
					ret = SQFS_ERROR_ALLOC;
					break;
				}
				stack = grown;
				cap *= 2;
			}
			stack[used].ref = ent.inode_ref;
			stack[used].ino = ent.inode_number;
			used++;
		}
		free(dir);
		if (ret != 0)
			break;
	}
	free(stack);
	return ret;
}

int fs_locate(sqfs_fs_t *fs, fs_ctx_t *ctx, uint32_t ino, uint64_t *ref)
{
	int ret = 0;

	if (ino == 0 || ino > fs->super.inode_count)
		return errtext_set(fs_err(ctx), SQFS_ERROR_OUT_OF_BOUNDS,
				   "inode number %u is outside 1..%u", ino,
				   fs->super.inode_count);
	if (fs->export_refs != NULL) {
		*ref = fs->export_refs[ino - 1];
		return 0;
	}
	if (inode_map_find(&fs->map, ino, ref))
		return 0;

	if (!atomic_load(&fs->walked)) {
		pthread_mutex_lock(&fs->walk_lock);
		if (!atomic_load(&fs->walked)) {
			ret = walk_tree(fs, ctx);
			/* a walk cut short by memory may be tried again */
			if (ret == 0)
				atomic_store(&fs->walked, true);
		}
		pthread_mutex_unlock(&fs->walk_lock);
		if (ret != 0)
			return errtext_set(fs_err(ctx), ret,
					   "inode %u: walking the tree to "
					   "find it: %s",
					   ino, sqfs_error_string(ret));
		if (inode_map_find(&fs->map, ino, ref))
			return 0;
	}
	return errtext_set(fs_err(ctx), SQFS_ERROR_OUT_OF_BOUNDS,
			   "inode %u: no directory entry names it", ino);
}

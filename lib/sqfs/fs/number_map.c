/* SPDX-License-Identifier: MIT */
/*
 * number_map.c - where an inode asked for by number is: its node id says
 * so itself; a number is looked up in the export table if the image has
 * one, else in the table of numbers seen lately, else found by a walk.
 *
 * The file system names inodes by node ids (their reference), which need
 * nothing to find. Numbers are the slow path (a caller asking by number,
 * a FUSE lookup of ".." on an NFS export): what is kept for them is of
 * fixed size, and what is not kept is found again by walking the tree,
 * which costs time in proportion to the image but memory only in
 * proportion to its depth (one listing state a level) and one bit per
 * inode number while it runs (fs.md says why that and not a map of every
 * number).
 */
#include "fs_internal.h"
#include "dir_reader_internal.h"
#include "util/array.h"
#include "util/sparse_bits.h"

#include <stdlib.h>
#include <string.h>

#define REF_BITS 48
#define REF_MASK ((UINT64_C(1) << REF_BITS) - 1)
/* ref + 1 all ones: the walk found no entry naming the number */
#define NOT_NAMED REF_MASK
#define TAG(n) ((uint64_t)(n) >> NUMBER_SLOT_BITS)

/* The deepest the walk goes (the walker's default limit, walker.h). */
#define WALK_MAX_DEPTH 1024u

void number_map_init(number_map_t *map)
{
	for (size_t i = 0; i < NUMBER_CHUNKS; ++i)
		atomic_init(&map->chunks[i], NULL);
	pthread_mutex_init(&map->walk_lock, NULL);
	atomic_init(&map->walked, false);
}

void number_map_cleanup(number_map_t *map)
{
	for (size_t i = 0; i < NUMBER_CHUNKS; ++i)
		free((void *)atomic_load(&map->chunks[i]));
	pthread_mutex_destroy(&map->walk_lock);
}

/* The word of number's slot; its chunk is made if create (NULL if it
 * is not there, or out of memory: a record is only a shortcut). */
static _Atomic uint64_t *slot(number_map_t *map, uint32_t number, bool create)
{
	uint32_t i = number & (NUMBER_SLOTS - 1);
	_Atomic(_Atomic uint64_t *) *c = &map->chunks[i >> NUMBER_CHUNK_BITS];
	_Atomic uint64_t *chunk, *fresh, *expect = NULL;

	chunk = atomic_load_explicit(c, memory_order_acquire);
	if (chunk == NULL) {
		if (!create)
			return NULL;
		/* zero is "empty", so calloc makes a valid chunk */
		fresh = calloc((size_t)1 << NUMBER_CHUNK_BITS, sizeof(*fresh));
		if (fresh == NULL)
			return NULL;
		if (atomic_compare_exchange_strong_explicit(
			c, &expect, fresh, memory_order_acq_rel,
			memory_order_acquire)) {
			chunk = fresh;
		} else {
			free((void *)fresh);
			chunk = expect;
		}
	}
	return chunk + (i & ((1u << NUMBER_CHUNK_BITS) - 1));
}

static void store(number_map_t *map, uint32_t number, uint64_t field)
{
	_Atomic uint64_t *w = slot(map, number, true);

	if (w != NULL)
		atomic_store_explicit(w, (TAG(number) << REF_BITS) | field,
				      memory_order_relaxed);
}

void number_map_record(number_map_t *map, uint32_t number, uint64_t ref)
{
	/* a reference too large to be one (an offset past the block) is
	 * not worth keeping: reading there fails anyway */
	if (ref < NOT_NAMED - 1)
		store(map, number, ref + 1);
}

/* 1 and *ref if the table knows number, 0 if it does not, -1 if a walk
 * found no entry naming it. */
static int find(number_map_t *map, uint32_t number, uint64_t *ref)
{
	_Atomic uint64_t *w = slot(map, number, false);
	uint64_t v;

	if (w == NULL)
		return 0;
	v = atomic_load_explicit(w, memory_order_relaxed);
	if (v == 0 || (v >> REF_BITS) != TAG(number))
		return 0;
	if ((v & REF_MASK) == NOT_NAMED)
		return -1;
	*ref = (v & REF_MASK) - 1;
	return 1;
}

/* ---- the walk ------------------------------------------------------------ */

typedef struct {
	sqfs_fs_t *fs;
	fs_ctx_t *ctx;
	/* one listing state per directory being listed */
	array_t levels; /* dir_state_t */
	/* directories already listed (a loop or a directory named twice in
	 * a hostile image is listed once) */
	sparse_bits_t listed;
} walk_t;

/* Open the listing of the directory at ref named number, if it is one
 * not listed yet; 1 if it was opened, 0 if skipped. */
static int enter(walk_t *w, uint64_t ref, uint32_t number)
{
	sqfs_inode_t *dir;
	int ret;

	if (sparse_bits_get(&w->listed, number) ||
	    w->levels.count >= WALK_MAX_DEPTH)
		return 0;
	ret = sparse_bits_set(&w->listed, number);
	if (ret != 0)
		return ret;
	/* a damaged directory is left out: the rest of the tree is read */
	if (sqfs_image_read_inode(w->ctx->img, ref, &dir) != 0)
		return 0;
	if (dir->inode_number != number ||
	    sqfs_inode_type_basic(dir->type) != SQFS_INODE_DIR ||
	    sqfs_dir_reader_open(w->ctx->dr, dir) != 0) {
		free(dir);
		return 0;
	}
	free(dir);
	ret = array_reserve(&w->levels, sizeof(dir_state_t), 1);
	if (ret != 0)
		return ret;
	w->levels.count += 1;
	return 1;
}

/*
 * List directories depth first from the root, recording every entry,
 * until one names want (*ref, 1) or the tree is done (0). With all (a
 * table that holds every number), the walk goes on to the end so that no
 * other number ever needs one. A damaged listing ends where it breaks.
 */
static int walk_for(sqfs_fs_t *fs, fs_ctx_t *ctx, uint32_t want, bool all,
		    uint64_t *ref)
{
	sqfs_dir_entry_t ent;
	dir_state_t *top;
	walk_t w;
	int ret, found = 0;

	memset(&w, 0, sizeof(w));
	w.fs = fs;
	w.ctx = ctx;
	ret = sparse_bits_init(&w.listed, (uint64_t)fs->super.inode_count + 1);
	if (ret == 0)
		ret = enter(&w, fs->root_ref, fs->root_ino);
	if (ret < 0)
		goto out;
	ret = 0;

	while (w.levels.count > 0) {
		int next = sqfs_dir_reader_next(ctx->dr, &ent);

		if (next != 0) {
			/* the end of the listing, or damage: back up */
			w.levels.count -= 1;
			if (w.levels.count == 0)
				break;
			top =
			    (dir_state_t *)w.levels.data + (w.levels.count - 1);
			if (dir_reader_restore(ctx->dr, top) != 0)
				w.levels.count -= 1;
			continue;
		}
		number_map_record(&fs->numbers, ent.inode_number,
				  ent.inode_ref);
		if (ent.inode_number == want && !found) {
			*ref = ent.inode_ref;
			found = 1;
			if (!all)
				break;
		}
		if (ent.type != SQFS_INODE_DIR)
			continue;
		top = (dir_state_t *)w.levels.data + (w.levels.count - 1);
		dir_reader_save(ctx->dr, top);
		ret = enter(&w, ent.inode_ref, ent.inode_number);
		if (ret < 0)
			break;
		if (ret == 0 && dir_reader_restore(ctx->dr, top) != 0)
			w.levels.count -= 1;
		ret = 0;
	}
out:
	array_cleanup(&w.levels);
	sparse_bits_cleanup(&w.listed);
	return ret < 0 ? ret : found;
}

/* ---- finding a number ---------------------------------------------------- */

static int by_number(sqfs_fs_t *fs, fs_ctx_t *ctx, uint32_t ino, uint64_t *ref)
{
	number_map_t *map = &fs->numbers;
	/* small enough for every number to have a slot of its own */
	bool exact = fs->super.inode_count <= NUMBER_SLOTS;
	int ret;

	if (fs->has_export)
		return sqfs_image_inode_ref(ctx->img, ino, ref);
	/* no entry names the root */
	if (ino == fs->root_ino) {
		*ref = fs->root_ref;
		return 0;
	}
	ret = find(map, ino, ref);
	if (ret != 0 || (exact && atomic_load(&map->walked)))
		goto done;

	pthread_mutex_lock(&map->walk_lock);
	/* another walk may have found it meanwhile */
	ret = find(map, ino, ref);
	if (ret == 0 && !(exact && atomic_load(&map->walked))) {
		ret = walk_for(fs, ctx, ino, exact, ref);
		if (ret >= 0 && exact)
			atomic_store(&map->walked, true);
		else if (ret == 0)
			store(map, ino, NOT_NAMED);
		if (ret < 0) {
			pthread_mutex_unlock(&map->walk_lock);
			return errtext_set(fs_err(ctx), ret,
					   "inode %u: walking the tree to "
					   "find it: %s",
					   ino, sqfs_error_string(ret));
		}
	}
	pthread_mutex_unlock(&map->walk_lock);
done:
	if (ret > 0)
		return 0;
	return errtext_set(fs_err(ctx), SQFS_ERROR_OUT_OF_BOUNDS,
			   "inode %u: no directory entry names it", ino);
}

int fs_locate(sqfs_fs_t *fs, fs_ctx_t *ctx, uint64_t id, uint64_t *ref)
{
	if (fs_id_is_node(id)) {
		/* whatever lies there is read and checked as an inode */
		*ref = id - FS_NODE_BASE;
		return 0;
	}
	if (id == 0 || id > fs->super.inode_count)
		return errtext_set(fs_err(ctx), SQFS_ERROR_OUT_OF_BOUNDS,
				   "inode number %llu is outside 1..%u",
				   (unsigned long long)id,
				   fs->super.inode_count);
	return by_number(fs, ctx, (uint32_t)id, ref);
}

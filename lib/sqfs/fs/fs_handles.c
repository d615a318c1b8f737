/* SPDX-License-Identifier: MIT */
/*
 * fs_handles.c - the handles of recently opened files, shared.
 *
 * Opening a file decodes its inode and block list; a FUSE daemon whose
 * kernel opens files without telling it reads by inode number, so every
 * read would open the file again. The last handles opened stay in a
 * direct-mapped table of HANDLE_SLOTS slots (by node id), each
 * holding a reference: opening a file that is there is a hash and a
 * reference count. A handle holds nothing that changes but its read-ahead
 * position, which is then the file's rather than one open's (as the
 * kernel's page cache read-ahead is). The table is bounded by its slot
 * count; a newer file takes the slot of an older one.
 */
#include "fs_internal.h"

_Static_assert(HANDLE_SLOTS == 256u, "slot_of gives 8 bits");

/* Fibonacci hashing: nearby node ids (a directory's files, whose inodes
 * lie side by side) spread. */
static uint32_t slot_of(uint64_t node)
{
	return (uint32_t)((node * 0x9E3779B97F4A7C15ull) >> 56);
}

static pthread_mutex_t *lock_of(sqfs_fs_t *fs, uint32_t slot)
{
	return &fs->handle_lock[slot % HANDLE_LOCKS];
}

sqfs_fs_file_t *fs_handle_find(sqfs_fs_t *fs, uint64_t node)
{
	uint32_t slot = slot_of(node);
	sqfs_fs_file_t *f;

	pthread_mutex_lock(lock_of(fs, slot));
	f = fs->handles[slot];
	if (f != NULL && f->node == node)
		atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
	else
		f = NULL;
	pthread_mutex_unlock(lock_of(fs, slot));
	return f;
}

sqfs_fs_file_t *fs_handle_keep(sqfs_fs_t *fs, sqfs_fs_file_t *f)
{
	uint32_t slot = slot_of(f->node);
	sqfs_fs_file_t *old;

	pthread_mutex_lock(lock_of(fs, slot));
	old = fs->handles[slot];
	if (old != NULL && old->node == f->node) {
		/* opened twice at once: everyone shares the first */
		atomic_fetch_add_explicit(&old->refs, 1, memory_order_relaxed);
		pthread_mutex_unlock(lock_of(fs, slot));
		return old;
	}
	atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
	fs->handles[slot] = f;
	pthread_mutex_unlock(lock_of(fs, slot));
	/* the slot's reference to the older file */
	sqfs_fs_file_close(old);
	return f;
}

void fs_handles_release(sqfs_fs_t *fs)
{
	uint32_t i;

	for (i = 0; i < HANDLE_SLOTS; ++i) {
		sqfs_fs_file_close(fs->handles[i]);
		fs->handles[i] = NULL;
	}
}

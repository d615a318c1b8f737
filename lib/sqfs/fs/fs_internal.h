/* SPDX-License-Identifier: MIT */
/*
 * fs_internal.h - the parts of the file system object (sqfs/fs.h) and how
 * they meet.
 *
 * The on-disk structures are parsed by the library's checked, single-
 * threaded readers (image, directory, data, xattr readers). The file
 * system runs them in contexts: a context is a light clone of the image
 * (own compressor, metadata readers and error text, sharing the parent's
 * validated tables) with a directory reader. A call takes a context from
 * a pool, works with it alone, and gives it back; so calls never share
 * reader state, and the words of a failure are the context's, copied into
 * the caller's `why`.
 *
 * What the contexts share is in the fs object and is thread safe: the
 * table of inode numbers seen lately (number -> inode reference), the
 * caches of decoded metadata and data blocks, and the read-ahead workers.
 */
#ifndef SQFS_FS_INTERNAL_H
#define SQFS_FS_INTERNAL_H

#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/data_reader.h"
#include "sqfs/dir_reader.h"
#include "sqfs/error.h"
#include "sqfs/fs.h"
#include "sqfs/image.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include "sqfs/error_internal.h"
#include "image_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- contexts ------------------------------------------------------------ */

typedef struct fs_ctx {
	struct fs_ctx *next_free;
	struct fs_ctx *next_all;
	sqfs_image_t *img;
	sqfs_dir_reader_t *dr;
	/* block_size bytes: a stored data block before it is unpacked. */
	uint8_t *packed;
} fs_ctx_t;

/* ---- ids and numbers ----------------------------------------------------- */

/*
 * An id (fs.h) is an inode number (up to UINT32_MAX) or a node id: the
 * inode's reference (block << 16 | offset, 48 bits) plus FS_NODE_BASE.
 */
#define FS_NODE_BASE (UINT64_C(1) << 32)

static inline bool fs_id_is_node(uint64_t id)
{
	return id >= FS_NODE_BASE;
}

static inline uint64_t fs_node_of(uint64_t ref)
{
	return ref + FS_NODE_BASE;
}

/*
 * Inode number -> reference, for images without an export table: a
 * direct-mapped table of NUMBER_SLOTS words learnt from the directory
 * entries the file system reads, each (number >> NUMBER_SLOT_BITS) << 48
 * | (ref + 1) (0: empty; ref + 1 all ones: "no entry names it", after a
 * walk). A number has one slot, so a newer number takes an older one's
 * place; with at most NUMBER_SLOTS inodes no two numbers share a slot and
 * the table is exact. Readers never lock: a word is written and read
 * whole. The table is made of NUMBER_CHUNKS chunks, each allocated when a
 * number of its slots is first recorded (published with a
 * compare-and-swap), so that a small image costs a chunk, not 512 KiB.
 */
#define NUMBER_SLOT_BITS 16
#define NUMBER_SLOTS (1u << NUMBER_SLOT_BITS)
#define NUMBER_CHUNK_BITS 10
#define NUMBER_CHUNKS (NUMBER_SLOTS >> NUMBER_CHUNK_BITS)

typedef struct {
	_Atomic(_Atomic uint64_t *) chunks[NUMBER_CHUNKS];
	/* A walk runs at a time (it holds a context's reader), and once
	 * for good when the table is exact. */
	pthread_mutex_t walk_lock;
	atomic_bool walked;
} number_map_t;

void number_map_init(number_map_t *map);
void number_map_cleanup(number_map_t *map);

/* Record that a directory entry names number at ref. */
void number_map_record(number_map_t *map, uint32_t number, uint64_t ref);

/* ---- the block cache ----------------------------------------------------- */
/* ---- the block cache ----------------------------------------------------- */

typedef struct block_cache block_cache_t;

/* A cached block, pinned by whoever got it until block_cache_put. */
typedef struct cache_block {
	struct cache_block *hnext;
	struct cache_block *prev, *next;
	uint64_t pos;
	uint64_t aux;
	/* For metadata blocks, where the following block starts. */
	uint64_t next_pos;
	size_t len;
	size_t cap;
	atomic_uint refs;
	/* 0 loading, 1 ready, 2 failed */
	int state;
	int error;
	/* In the protected segment (used again since it came in). */
	bool hot;
	bool in_table;
	/* Loaded by read-ahead and not yet used by a reader. */
	atomic_bool ahead;
	uint8_t *data;
} cache_block_t;

/*
 * Fill blk->data (blk->cap bytes) with the block at (pos, aux) and set
 * blk->len (and blk->next_pos); 0 or a negative error, with words in the
 * loader's own error text.
 */
typedef int (*cache_load_fn)(void *user, cache_block_t *blk);

int block_cache_create(uint64_t limit, size_t block_cap, size_t min_blocks,
		       block_cache_t **out);
void block_cache_destroy(block_cache_t *c);

/*
 * The block keyed (pos, aux), loaded by load(user, blk) if it is not
 * cached. Several callers asking for one block at once: the first loads
 * it, the others wait for it (single flight). A load that fails is
 * forgotten: each waiter then loads it itself, so that every caller gets
 * its own words. *hit tells whether it was cached (for read-ahead
 * accounting; may be NULL).
 */
int block_cache_get(block_cache_t *c, uint64_t pos, uint64_t aux,
		    cache_load_fn load, void *user, cache_block_t **out,
		    bool *hit);

/* Whether (pos, aux) is cached or being loaded: read-ahead skips it. */
bool block_cache_has(block_cache_t *c, uint64_t pos, uint64_t aux);

void block_cache_put(block_cache_t *c, cache_block_t *blk);

void block_cache_stats(block_cache_t *c, uint64_t *bytes, uint64_t *limit,
		       uint64_t *hits, uint64_t *misses, uint64_t *loads);

/* ---- read-ahead ---------------------------------------------------------- */

typedef struct prefetch prefetch_t;

/* A data block to decode ahead: everything, copied, that reading it
 * needs, so that the job does not depend on the handle that queued it. */
typedef struct {
	uint64_t pos;
	uint32_t word;
	uint32_t expect;
} prefetch_job_t;

int prefetch_create(sqfs_fs_t *fs, unsigned int threads, prefetch_t **out);
/* Stop the workers and wait for them; queued jobs are dropped. */
void prefetch_destroy(prefetch_t *pf);
/* Queue jobs (dropped, not waited for, when the queue is full). */
void prefetch_queue(prefetch_t *pf, const prefetch_job_t *jobs, size_t count);

/* ---- recently opened files ---------------------------------------------- */

/*
 * Handles of recently opened files, direct-mapped by node id, so that
 * opening a file again (or reading it without an open, as a FUSE daemon
 * does when the kernel opens files without asking) finds its decoded
 * block list. Each slot holds a reference; a handle is freed
 * when its last reference goes.
 */
#define HANDLE_SLOTS 256u
#define HANDLE_LOCKS 16u

/* The handle of node in the cache with a reference taken, or NULL. */
sqfs_fs_file_t *fs_handle_find(sqfs_fs_t *fs, uint64_t node);
/* Put f in its slot (taking a reference), unless another handle of the
 * same inode got there first: then that one is returned, referenced,
 * and f is the caller's to close. */
sqfs_fs_file_t *fs_handle_keep(sqfs_fs_t *fs, sqfs_fs_file_t *f);
/* Drop the cache's references (sqfs_fs_destroy). */
void fs_handles_release(sqfs_fs_t *fs);

/* ---- the file system ----------------------------------------------------- */

struct sqfs_fs {
	/* What the image is read through: the caller's file, or a
	 * wrapper that serializes its read_at (SQFS_FS_SERIALIZE_IO). */
	sqfs_file_t *file;
	sqfs_file_t *serial;
	/* The validated image; after open only its immutable tables are
	 * used, through the contexts' clones. */
	sqfs_image_t *img;
	sqfs_super_t super;
	uint32_t block_size;
	uint64_t data_start, data_end;
	uint32_t flags;
	uint32_t read_ahead;

	uint32_t root_ino;
	uint64_t root_ref;
	bool has_export;
	number_map_t numbers;

	pthread_mutex_t pool_lock;
	fs_ctx_t *free_ctx;
	fs_ctx_t *all_ctx;

	block_cache_t *meta;
	block_cache_t *data;
	prefetch_t *prefetch;
	atomic_uint_fast64_t ra_done, ra_used;

	pthread_mutex_t handle_lock[HANDLE_LOCKS];
	sqfs_fs_file_t *handles[HANDLE_SLOTS];
};

struct sqfs_fs_file {
	sqfs_fs_t *fs;
	/* The opens holding it, and the handle cache's slot. */
	atomic_uint refs;
	sqfs_inode_t *inode;
	uint32_t ino;
	uint64_t node;
	uint64_t size;
	uint32_t count;
	/* Bytes of the tail in the fragment block (0: none). */
	uint32_t tail;
	/* Where listed block i starts, relative to blocks_start; blocks
	 * from bad_from on come after an invalid size word and fail. */
	uint64_t *offsets;
	uint32_t bad_from;
	/* The fragment block (checked at open when the file has one). */
	sqfs_fragment_t frag;
	const char *frag_why;
	int frag_code;
	/* Read-ahead: the block after the last one read (UINT32_MAX before
	 * the first read), and the first block not yet queued. */
	atomic_uint_fast32_t next_block;
	atomic_uint_fast32_t ra_until;
};

/* Take a context (a new one if none is free); NULL: out of memory. */
fs_ctx_t *fs_ctx_get(sqfs_fs_t *fs);
void fs_ctx_put(sqfs_fs_t *fs, fs_ctx_t *ctx);
void fs_ctx_free_all(sqfs_fs_t *fs);

/* The context's error text. */
static inline errtext_t *fs_err(fs_ctx_t *ctx)
{
	return image_errtext(ctx->img);
}

/* Copy the context's words into why (if not NULL), give the context
 * back, return code. */
int fs_ctx_done(sqfs_fs_t *fs, fs_ctx_t *ctx, int code, char *why);

/* Read the inode id names (a number is checked to be the inode's);
 * *out to free(), *node (may be NULL) its node id. */
int fs_read_inode(sqfs_fs_t *fs, fs_ctx_t *ctx, uint64_t id, sqfs_inode_t **out,
		  uint64_t *node);

/* Read the inode at ref that a directory entry numbered ino names. */
int fs_read_inode_ref(fs_ctx_t *ctx, uint64_t ref, uint32_t ino,
		      sqfs_inode_t **out);

/* Fill st from inode, whose node id is node. */
int fs_fill_stat(sqfs_fs_t *fs, fs_ctx_t *ctx, const sqfs_inode_t *inode,
		 uint64_t node, sqfs_fs_stat_t *st);

/* The reference of id: a node's own, a number's through the export
 * table, the table of numbers, else a walk (inode_map.c). */
int fs_locate(sqfs_fs_t *fs, fs_ctx_t *ctx, uint64_t id, uint64_t *ref);

/* The metadata block fetcher every context's readers use. */
int fs_meta_fetch(void *user, sqfs_meta_reader_t *mr, uint64_t pos,
		  uint8_t *data, size_t *len, uint64_t *next);

/* Decode data block (pos, word) into blk with ctx's compressor. */
int fs_load_data_block(sqfs_fs_t *fs, fs_ctx_t *ctx, cache_block_t *blk);

#endif /* SQFS_FS_INTERNAL_H */

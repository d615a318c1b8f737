/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the high-level writer's in-memory tree and its state
 * (internal to lib/sqfs/writer).
 *
 * Entries live in a pool of fixed-size nodes addressed by 32-bit ids, so an
 * entry costs one small record and no pointers to siblings or children. A
 * hash map keyed by (parent id, name) finds a child in O(1) however large
 * its directory. Parents are always created before their children, so a
 * child's id is larger than its parent's: liveness and child lists are
 * derived in one forward pass at finish instead of being maintained on
 * every add. Removal is lazy: a replaced node leaves the hash map and is
 * marked removed; its descendants become unreachable and are discarded at
 * finish.
 */
#ifndef SQFS_WRITER_INTERNAL_H
#define SQFS_WRITER_INTERNAL_H

#include "sqfs/error_internal.h"
#include "sqfs/predef.h"
#include "sqfs/error.h"
#include "sqfs/super.h"
#include "sqfs/writer.h"
#include "sqfs/block_processor/block_processor.h"
#include "sqfs/writer/record.h"
#include "util/extsort.h"

#include <sys/stat.h>

#define NODE_NIL UINT32_MAX
#define NODE_ROOT 0u
/* Room is kept above the largest id for the root's parent_inode (N + 1)
 * and for the link resolution markers. */
#define NODE_MAX_COUNT (UINT32_MAX - 16u)

enum {
	/* Taken out of the tree (replaced or dropped); not in the hash map. */
	NODE_REMOVED = 0x01,
	/* Removed, or below a removed directory (computed at finish). */
	NODE_DEAD = 0x02,
	/* A directory made as a parent, never added explicitly. */
	NODE_IMPLICIT = 0x04,
	/* uid_idx/gid_idx still to be taken from the defaults (the root). */
	NODE_DEFAULT_IDS = 0x08,
	/* A hard link; data.target is the canonical target path. */
	NODE_HARDLINK = 0x10,
	/* A hard link whose target existed when it was added: num holds the
	 * object it refers to from then on, even if the target path is
	 * replaced later (as extracting an archive keeps the old inode). */
	NODE_LINK_BOUND = 0x20,
};

/* Link resolution states kept in node.num of a hard link at finish;
 * anything else is the id of the node the link resolves to. */
#define LINK_UNRESOLVED 0u
#define LINK_BROKEN UINT32_MAX
#define LINK_VISITING (UINT32_MAX - 1u)

typedef struct {
	const char *name;
	union {
		/* Regular file: its data record, at a fixed address. */
		file_data_t *file;
		/* Symlink target, or hard link target path. */
		const char *target;
		/* Device number, encoded. */
		uint32_t rdev;
	} data;
	/* Finish: the inode's reference in the inode table, virtual (in
	 * the metadata pipeline's block numbers, serialize.c). */
	uint64_t ref;
	uint32_t parent;
	uint32_t hash_next;
	/* Finish: inode number (0: not numbered), or for a hard link its
	 * resolution state. */
	uint32_t num;
	/* Finish: link count. */
	uint32_t nlink;
	uint32_t mtime;
	uint32_t xattr;
	/* File type and permission bits; 0 for hard links. */
	uint16_t mode;
	uint16_t uid_idx;
	uint16_t gid_idx;
	/* Finish: the sqfs_inode_type_t written. */
	uint8_t itype;
	uint8_t flags;
} wr_node_t;

/* Bump allocator for names and targets; blocks are never moved. */
typedef struct wr_arena_block {
	struct wr_arena_block *next;
	size_t used;
	size_t size;
	char data[];
} wr_arena_block_t;

typedef struct {
	wr_arena_block_t *head;
	/* Bytes malloc'd, for the memory figures. */
	size_t allocated;
} wr_arena_t;

typedef struct {
	/* Node pool: chunks of NODE_CHUNK nodes. */
	wr_node_t **chunks;
	size_t chunk_count;
	uint32_t node_count;

	/* File data records: chunks of FILE_CHUNK, at fixed addresses until
	 * the tree is destroyed (the block processor fills them in late). */
	file_data_t **file_chunks;
	size_t file_chunk_count;
	size_t file_count;

	/* Hash map (parent, name) -> node, chained through hash_next. */
	uint32_t *buckets;
	uint32_t bucket_mask;
	uint32_t hashed;

	wr_arena_t arena;
} wr_tree_t;

#define NODE_CHUNK_SHIFT 10u
#define NODE_CHUNK (1u << NODE_CHUNK_SHIFT)
#define FILE_CHUNK 256u

static inline wr_node_t *wr_node(const wr_tree_t *t, uint32_t id)
{
	return &t->chunks[id >> NODE_CHUNK_SHIFT][id & (NODE_CHUNK - 1u)];
}

static inline bool wr_node_is_dir(const wr_node_t *n)
{
	return (n->mode & S_IFMT) == S_IFDIR;
}

/* ---- tree.c ---- */

/* An empty tree holding only the root (name "", flags given). */
int wr_tree_init(wr_tree_t *t);
void wr_tree_cleanup(wr_tree_t *t);

/* Copy size bytes plus a terminating NUL into the arena. */
char *wr_arena_strndup(wr_arena_t *a, const char *s, size_t size);

/* A new node (zeroed except parent and name, hash_next NIL), not yet in
 * the hash map. */
int wr_tree_new_node(wr_tree_t *t, uint32_t parent, const char *name,
		     size_t len, uint32_t *id);

/* A new file data record at a fixed address. */
int wr_tree_new_file_data(wr_tree_t *t, file_data_t **out);

/* The child of parent named by len bytes at name, or NODE_NIL. */
uint32_t wr_tree_lookup(const wr_tree_t *t, uint32_t parent, const char *name,
			size_t len);

/* Put a node into the hash map (no child of the same name may exist). */
int wr_tree_insert(wr_tree_t *t, uint32_t id);

/* Take a node out of the tree: unhash it and mark it removed. */
void wr_tree_remove(wr_tree_t *t, uint32_t id);

/* Mark every node below a removed one dead (and the removed ones). */
void wr_tree_mark_dead(wr_tree_t *t);

/*
 * Split the next component off *path (path_next of path_internal.h: the
 * library's one reading of a path). Returns 1 with the component in *comp
 * and *len, 0 at the end, or SQFS_ERROR_ARG_INVALID with *comp and *len
 * on the component if it is not a valid name (sqfs_name_is_valid: "..",
 * more than 256 bytes).
 */
int wr_path_next(const char **path, const char **comp, size_t *len);

/* Check a path; *depth receives its number of components. */
int wr_path_check(const char *path, size_t *depth);

/* The canonical form "a/b/c" of a valid path, malloc'd: the records keep
 * it, so that nothing per hard link stays in memory. */
int wr_path_canonical(const char *path, char **out);

/* The node a canonical path names, or NODE_NIL (also when a component
 * before the last is not a directory). */
uint32_t wr_tree_find(const wr_tree_t *t, const char *path);

/* The path of a node, "a/b/c", malloc'd; NULL if out of memory. */
char *wr_tree_node_path(const wr_tree_t *t, uint32_t id);

/* The path "a/b/name" of an entry named name in directory parent,
 * malloc'd; NULL if out of memory. */
char *wr_entry_path(const wr_tree_t *t, uint32_t parent, const char *name);

/* Bytes malloc'd by the tree, without the arena (names and targets). */
size_t wr_tree_memory(const wr_tree_t *t);

/* ---- entries.c ---- */

/* A regular file whose data is in flight: its record waits for the block
 * processor to fill in fd. */
typedef struct {
	wr_record_t rec;
	/* the block processor's number of the file (in begin order) */
	uint64_t ordinal;
	char *name;
	file_data_t *fd;
} wr_pending_t;

/* The runs of the sort a directory's records went to (extsort_run_count
 * at the first and the last): its records are there and nowhere else.
 * UINT32_MAX: none yet. */
typedef struct {
	uint32_t first;
	uint32_t last;
} wr_dir_runs_t;

typedef struct {
	extsort_t *sorter;
	/* by directory id */
	wr_dir_runs_t *dir_runs;
	size_t dir_runs_cap;
	wr_pending_t *pending;
	size_t npending;
	size_t pending_cap;
	uint64_t next_seq;
	/* records added (pending files included) */
	uint64_t count;
	/* sequence numbers bound links hold (objects that may be linked) */
	uint64_t *bound;
	size_t nbound;
	size_t bound_cap;
	uint8_t *scratch;
	size_t scratch_cap;
	/* the last record wr_entries_newest found */
	uint8_t *found;
	size_t found_len;
	size_t found_cap;
} wr_entries_t;

/* Bytes of the sort (extsort_desc_t): mem_limit while adding, of which
 * filter_limit for its runs' filters, and merge_limit for its merge. */
int wr_entries_init(wr_entries_t *e, size_t mem_limit, size_t filter_limit,
		    size_t merge_limit);
void wr_entries_cleanup(wr_entries_t *e);
const char *wr_entries_error(const wr_entries_t *e);

/* Add a complete record (its sequence number set by the caller). */
int wr_entries_add(wr_entries_t *e, const wr_record_t *r);

/* Add a regular file's record whose data the block processor, as file
 * number ordinal, is about to fill into *fd (zeroed, at a fixed address
 * until the record is handed off). */
int wr_entries_add_file(wr_entries_t *e, const wr_record_t *r, uint64_t ordinal,
			file_data_t **fd);

/* Hand off the records of files numbered below files_complete. */
int wr_entries_flush(wr_entries_t *e, uint64_t files_complete);

/*
 * The newest record of (parent, name): 1 with *out set (valid until the
 * next call), 0 if there is none or it is a tombstone, or an error.
 */
int wr_entries_newest(wr_entries_t *e, uint32_t parent, const char *name,
		      size_t len, wr_record_t *out);

/* ---- links.c ---- */

/* What a link resolves to when its target is missing, a directory, or a
 * loop. */
#define WR_LINK_BROKEN UINT64_MAX

typedef struct {
	uint64_t seq;
	uint32_t parent;
	char *name;
	/* canonical target path */
	char *target;
	/* wr_links_resolve: still in the image, and the sequence number of
	 * the object it reaches or WR_LINK_BROKEN */
	bool live;
	uint64_t result;
} wr_unbound_t;

typedef struct {
	/* in the order added, which is sequence number order */
	wr_unbound_t *list;
	size_t count;
	size_t cap;
} wr_links_t;

void wr_links_cleanup(wr_links_t *l);

int wr_links_add_unbound(wr_links_t *l, uint64_t seq, uint32_t parent,
			 const char *name, size_t len, const char *target);

struct sqfs_writer;

/* Resolve every unbound link still in the image (wr_tree_mark_dead must
 * have run); *broken gets the number of broken ones. */
int wr_links_resolve(struct sqfs_writer *wr, size_t *broken);

/* After wr_links_resolve: hide every broken link, reporting each; returns
 * how many. */
int wr_links_drop_broken(struct sqfs_writer *wr,
			 void (*report)(void *user, const char *path,
					const char *target),
			 void *user);

/* The first broken link's path (malloc'd) and target. */
void wr_links_first_broken(struct sqfs_writer *wr, char **path,
			   const char **target);

/*
 * The newest record a canonical path names now, through the directory
 * index: 1 with *out set, 0 if it names a directory (or the root),
 * nothing, or a tombstone.
 */
int wr_newest_at_path(struct sqfs_writer *wr, const char *path,
		      wr_record_t *out);

/* After wr_links_resolve: the object an unbound link in the image
 * reaches, or WR_LINK_BROKEN. */
uint64_t wr_links_result(const wr_links_t *l, uint64_t seq);

/* ---- the writer ---- */

struct sqfs_writer {
	sqfs_file_t *file;
	sqfs_writer_options_t opt;
	sqfs_compressor_t *cmp;
	sqfs_id_table_t *idtbl;
	struct xattr_writer *xw;
	block_processor_t *bp;
	sqfs_super_t super;

	wr_tree_t tree;

	/* Entries that are not directories, and the hard links not bound
	 * when they were added. */
	wr_entries_t entries;
	wr_links_t links;
	/* Files begun, the block processor's numbers for them. */
	uint64_t files_begun;
	/* What does not spill, when the shares of what does were last set
	 * (wr_fit_shares). */
	size_t held_seen;
	/* The bytes the memory limit shares out (wr_mem_shared). */
	size_t mem_shared;

	/* A regular file is being written: its place, for words. */
	bool file_open;
	uint32_t open_parent;
	char *open_name;
	bool finished;

	/* Words of the last failure (sqfs_writer_error). */
	errtext_t err;
	/* A failure that was not a refusal: the writer cannot go on, and
	 * says why at every call (sqfs_writer_usable). */
	bool broken;
	char broken_why[SQFS_ERROR_TEXT_SIZE];

	sqfs_writer_stats_t stats;
};

/* ---- writer.c, for append.c ---- */

/* The memory limit in bytes (mem_limit_mib, or the default). */
uint64_t wr_mem_limit(const sqfs_writer_options_t *opt);

/*
 * What the writer holds whatever the limit, and takes off it before
 * sharing the rest out: the program and its libraries (tar2sqfs with
 * nothing to pack has a peak RSS of 6 MiB) and malloc's own, and the
 * spill files' write buffers of the records' sort (two of 1 MiB at
 * most). The block processor's part (block_processor_fixed_memory) comes
 * on top.
 */
#define WR_FIXED_MEMORY (10u << 20)

/*
 * The bytes shared out of a limit of limit bytes when fixed of them are
 * held whatever the limit: the rest, but at least half the limit (a limit
 * that small is exceeded by what is fixed).
 */
size_t wr_mem_shared(uint64_t limit, size_t fixed);

/*
 * num/den of what the memory limit shares out (mem_shared: the limit less
 * what is held whatever it, see wr_mem_shared). How it is shared
 * (doc/scale.md, "The memory limit"), while adding:
 *   1/4   the records' sort: its buffer, its runs' samples and filters
 *         (1/32)
 *   1/2   finding duplicate tails (block_processor_desc_t.tail_memory)
 *   1/4   the rest: the directory index, the sequence numbers hard
 *         links hold (1/8, past which wr_fit_shares takes the excess
 *         from the two above), blocks in flight (at most 1/16 of the
 *         limit, counted in what is fixed), files in flight
 * and at finish, once the block processor has given its indexes back:
 *   1/8   the buffers of the records' merge
 *   1/16  the sort of the occurrences of linked objects
 *   3/32  the spill files' buffers (groups, linked objects' records,
 *         the directory table), and 1/64 for the export table's
 *   the rest: the directory index and walk, per linked object its
 *         record's place and its count, number and reference.
 */
size_t wr_mem_share(const struct sqfs_writer *wr, unsigned int num,
		    unsigned int den);

/*
 * What does not spill (the directory index, the runs of each directory,
 * the sequence numbers bound links hold, the unbound links) may take an
 * eighth of the limit; past that its excess comes out of the shares of
 * what does: a third from the records' sort, two thirds from the dedup
 * of tails, each down to a quarter of its share. Called after each add;
 * it looks again only when that grew by a 256th of the limit.
 */
void wr_fit_shares(struct sqfs_writer *wr);

/* Write what follows the superblock's place at the start of the output
 * (a new image's compressor options; an old image's data area); *stage
 * names the step for the words of a failure. */
typedef int (*wr_head_fn_t)(sqfs_writer_t *wr, void *user, const char **stage);

/* sqfs_writer_create, with head writing the start of the image. */
int wr_create(sqfs_file_t *file, const sqfs_writer_options_t *opt,
	      wr_head_fn_t head, void *user, sqfs_writer_t **out, char *why);

/* sqfs_writer_add of an entry whose data is already in the output: a
 * regular file's record (copied) is complete, no data follows. */
int wr_add_existing(sqfs_writer_t *wr, const sqfs_entry_t *entry,
		    const file_data_t *data);

/* ---- serialize.c ---- */

/*
 * What the export table is made from, when the image is exportable: the
 * inode table's reference of each inode in number order, kept virtual
 * (in the metadata pipeline's block numbers) in a spill file, 8 bytes
 * each, and the position of each of the inode table's blocks, which makes
 * them real. The table is written after the fragment table, when the
 * pipeline is gone.
 */
typedef struct {
	struct spill_file *refs;
	uint64_t *block_pos;
	uint64_t block_count;
	uint32_t count;
} wr_export_t;

/* Give back what exp holds. */
void wr_export_cleanup(wr_export_t *exp);

/* export_table_write's source: count real references from first on. */
int wr_export_fill(void *exp, uint64_t first, uint64_t *refs, size_t count);

/* Number the inodes and write the inode and directory tables, recording
 * their positions, the inode count and the root reference in super;
 * exportable, fill *exp (zeroed otherwise). */
int wr_write_tables(sqfs_writer_t *wr, wr_export_t *exp);

#endif /* SQFS_WRITER_INTERNAL_H */

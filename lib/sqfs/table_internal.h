/* SPDX-License-Identifier: MIT */
/*
 * table_internal.h - the tables behind the directory table, one file each.
 *
 * Every table has one home that holds its encoding, its decoding and the
 * checks its entries get on the way in:
 *   table.c           lookup tables in general: the u64 index, its checks,
 *                     the metadata blocks it names;
 *   fragment_table.c  fragment blocks: position and size word;
 *   export_table.c    inode number -> inode reference (NFS export);
 *   id_table.c        the 32-bit uids and gids inodes refer to by index;
 *   xattr_id_table.c  xattr set -> key/value reference, behind a header.
 * image.c only knows the order of the chain and hands each loader the
 * region its table must lie in; the writers call the encoders.
 *
 * Loaders trust nothing they read: a failure is SQFS_ERROR_CORRUPTED,
 * _OUT_OF_BOUNDS, _TRUNCATED (the file ends early), _OVERFLOW, _ALLOC or
 * an I/O or decompression error, and nothing is returned.
 */
#ifndef SQFS_TABLE_INTERNAL_H
#define SQFS_TABLE_INTERNAL_H

#include "sqfs/compressor.h"
#include "sqfs/image.h"
#include "sqfs/io.h"
#include "sqfs/super.h"

#include <stddef.h>
#include <stdint.h>

/* ---- table.c --------------------------------------------------------------
 */

/* Read size bytes at pos; SQFS_ERROR_TRUNCATED if the file ends first
 * (the callers only read inside bytes_used). */
int file_read_exact(sqfs_file_t *file, uint64_t pos, void *buf, size_t size);

/*
 * Append size bytes of data to file as metadata blocks (uncompressed if cmp
 * is NULL), putting each block's position, little-endian, into index (8
 * bytes per 8 KiB of data, rounded up). The index itself is not written:
 * sqfs_table_write puts it right after the blocks, the xattr-id table
 * after its header.
 */
int table_write_blocks(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       const void *data, size_t size, uint8_t *index);

/* Read the count positions of an index at pos into a malloc'ed array in
 * host order. Nothing is checked yet (table_check_index). */
int table_read_index(sqfs_file_t *file, uint64_t pos, size_t count,
		     uint64_t **out);

/* Bytes of the u64 index of a table of count entries of entry_size bytes. */
uint64_t table_index_size(uint64_t count, uint64_t entry_size);

/*
 * Check the block positions of an index alone, before any block is read:
 * each in [lower, end) (else SQFS_ERROR_OUT_OF_BOUNDS), increasing, and no
 * block (the last one ends at end) longer than a metadata block can be
 * (else SQFS_ERROR_CORRUPTED).
 */
int table_check_index(const uint64_t *index, size_t count, uint64_t end,
		      uint64_t lower);

/*
 * Decode size bytes from the count metadata blocks of a checked index, the
 * last one ending exactly at end; each block must fill exactly its share
 * (a full block, or the rest). *out receives a malloc'ed buffer, grown as
 * blocks decode rather than sized from size up front.
 */
int table_decode(sqfs_file_t *file, sqfs_compressor_t *cmp,
		 const uint64_t *index, size_t count, uint64_t end, size_t size,
		 void **out);

/*
 * The checks of sqfs_table_read up to the blocks themselves, for a table
 * of size bytes whose index is at index_start: *index (count block
 * positions, to free) is checked and lies in [lower, upper). For tables
 * decoded a block at a time (table_decode_block) rather than whole.
 */
int table_open_index(sqfs_file_t *file, size_t size, uint64_t index_start,
		     uint64_t lower, uint64_t upper, uint64_t **index,
		     size_t *count);

/*
 * Decode block i of a table of size bytes with a checked index of count
 * blocks, the last one ending at end, into out (SQFS_META_BLOCK_SIZE
 * bytes); it must fill exactly its share, *len bytes.
 */
int table_decode_block(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       const uint64_t *index, size_t count, uint64_t end,
		       size_t size, size_t i, uint8_t *out, size_t *len);

/*
 * A table read a block at a time (export, xattr ids: entries per inode or
 * per xattr set, which could take gigabytes, and which a reader needs a
 * few at a time, in order mostly): its checked index, where its last
 * block ends, its size, and the block decoded last. The block is a
 * reader's own (an image's clone has its own); the rest may be shared.
 */
typedef struct {
	uint64_t *index;
	size_t count;
	uint64_t end;
	size_t size;
	/* Which block data holds, plus one (0: none yet). */
	size_t which;
	uint8_t *data;
} table_lazy_t;

/* Entry i of entry_size bytes (a divisor of SQFS_META_BLOCK_SIZE): its
 * block is decoded unless t holds it, *entry points into t->data. */
int table_lazy_entry(sqfs_file_t *file, sqfs_compressor_t *cmp, table_lazy_t *t,
		     size_t entry_size, uint64_t i, const uint8_t **entry);

/*
 * sqfs_table_read for count entries of entry_size bytes, also giving the
 * position of the table's first block: where the region before the table
 * must end.
 */
int table_load(sqfs_file_t *file, sqfs_compressor_t *cmp, uint64_t count,
	       uint64_t entry_size, uint64_t index_start, uint64_t lower,
	       uint64_t upper, void **data, uint64_t *first_block);

/* table_load for a table of little-endian words of word_size (4 or
 * 8) bytes, turned into host order: *out is a uint32_t or uint64_t array
 * (free it). */
int table_load_words(sqfs_file_t *file, sqfs_compressor_t *cmp, uint64_t count,
		     size_t word_size, uint64_t index_start, uint64_t lower,
		     uint64_t upper, void **out, uint64_t *first_block);

/* ---- fragment_table.c -----------------------------------------------------
 */

/*
 * Write count entries as the fragment table and record it in super (no
 * table, and SQFS_TABLE_ABSENT, for none).
 */
int fragment_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
			 const sqfs_fragment_t *list, size_t count,
			 sqfs_super_t *super);

/*
 * Load the fragment table super names, from below upper: every entry a
 * size word without reserved bits and a non-empty block of at most the
 * block size inside the data region [data_start, inode_table_start).
 */
int fragment_table_load(sqfs_file_t *file, sqfs_compressor_t *cmp,
			const sqfs_super_t *super, uint64_t data_start,
			uint64_t upper, sqfs_fragment_t **out,
			uint64_t *first_block);

/* ---- export_table.c -------------------------------------------------------
 */

/* Where the export table's references come from: fill refs[0 .. count)
 * with those of inodes first + 1 .. first + count; 0 or an error. */
typedef int (*export_source_t)(void *user, uint64_t first, uint64_t *refs,
			       size_t count);

/* Write the references of inodes 1 .. count as the export table, a
 * block's worth at a time from source (no more than a block is held),
 * record it in super and mark the image exportable. */
int export_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       uint32_t count, export_source_t source, void *user,
		       sqfs_super_t *super);

/*
 * The export table is not loaded whole (8 bytes per inode: 800 MB for 10^8
 * inodes, which no reader but a lookup by number needs): its index is
 * checked at open, its last block decoded there to check the table's
 * length, and any other block decoded when a lookup needs it.
 */

/* Open the export table of super's inode_count entries in [lower, upper)
 * into *t (index checked, last block decoded); *first_block receives
 * where its first block starts. */
int export_table_open(sqfs_file_t *file, sqfs_compressor_t *cmp,
		      const sqfs_super_t *super, uint64_t lower, uint64_t upper,
		      table_lazy_t *t, uint64_t *first_block);

/* The reference of inode number (1 .. inode_count) through the table.
 * The reference is checked where it is used. */
int export_table_ref(sqfs_file_t *file, sqfs_compressor_t *cmp, table_lazy_t *t,
		     uint32_t number, uint64_t *ref);

/* ---- id_table.c -----------------------------------------------------------
 */

/* Load the id_count ids of super from [lower, upper). */
int id_table_load(sqfs_file_t *file, sqfs_compressor_t *cmp,
		  const sqfs_super_t *super, uint64_t lower, uint64_t upper,
		  uint32_t **out, uint64_t *first_block);

/* ---- xattr_id_table.c -----------------------------------------------------
 */

/* One xattr-id entry: where a set's key/value pairs start in the stream
 * (block relative to the stream's start << 16 | offset), how many. */
typedef struct {
	uint64_t ref;
	uint32_t count;
	/* Advisory only: writers disagree on what it counts. */
	uint32_t size;
} xattr_id_entry_t;

/*
 * Write the xattr-id table after a key/value stream that starts at
 * kv_start: the entries in metadata blocks, then the header and the index
 * (super->xattr_id_table_start points at the header).
 */
int xattr_id_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
			 const xattr_id_entry_t *ids, size_t count,
			 uint64_t kv_start, sqfs_super_t *super);

/*
 * Read the header super's xattr_id_table_start points at: where the
 * key/value stream starts, and how many entries there are (at least one,
 * with an index that ends exactly at bytes_used).
 */
int xattr_id_table_header(sqfs_file_t *file, const sqfs_super_t *super,
			  uint64_t *kv_start, uint32_t *count);

/*
 * Open the table of the count entries after the header into *t, not
 * loading it (16 bytes per xattr set, one set per inode in an image
 * whose every file carries its own signature): the blocks lie in
 * [kv_end, header), where kv_end (the first block, returned) is past
 * kv_start so that the stream is not empty. Every block is decoded in
 * turn into one buffer, and every entry checked (xattr_id_table_get's
 * checks), so a bad table fails here; lookups decode their block again.
 */
int xattr_id_table_open(sqfs_file_t *file, sqfs_compressor_t *cmp,
			const sqfs_super_t *super, uint64_t kv_start,
			uint32_t count, table_lazy_t *t, uint64_t *kv_end);

/* Entry index of a table opened in t: its reference's offset below 8192
 * and its block inside the key/value stream of kv_size bytes (else
 * SQFS_ERROR_CORRUPTED). */
int xattr_id_table_get(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       table_lazy_t *t, uint64_t kv_size, uint32_t index,
		       xattr_id_entry_t *out);

#endif /* SQFS_TABLE_INTERNAL_H */

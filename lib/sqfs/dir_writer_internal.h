/* SPDX-License-Identifier: MIT */
/*
 * dir_writer_internal.h - writing directory listings into the directory
 * table (internal to the library).
 *
 * A listing is a sequence of runs, each a 12-byte header (entry count - 1,
 * the inode-table block holding all the run's inodes, a base inode number)
 * followed by 8-byte entries plus names. A new run starts at 256 entries,
 * when the next inode lives in another inode-table block, when the inode
 * number delta would leave the s16 range, and when the listing crosses into
 * a new 8 KiB metadata block (so that every header can be indexed).
 * Directories of 256 entries or more get a directory index: one entry per
 * header, which the kernel uses to skip ahead on lookups.
 */
#ifndef SQFS_DIR_WRITER_INTERNAL_H
#define SQFS_DIR_WRITER_INTERNAL_H

#include "sqfs/predef.h"
#include "sqfs/meta_stream_internal.h"

typedef struct dir_writer dir_writer_t;

/*
 * Create a writer emitting into ms, the directory table's stream. The
 * inode references given to it are in the terms of the inode table's
 * stream of the same kind (block numbers of a metadata pipeline, or
 * positions on disk); the headers' start_block fields are declared to ms
 * as inode-table block numbers (meta_stream_refer).
 */
int dir_writer_create(meta_stream_t *ms, dir_writer_t **out);

void dir_writer_destroy(dir_writer_t *dw);

/* Start a new listing at ms's position. It is appended to ms as entries
 * come (a run at a time, so that a listing of any size takes a few
 * dozen bytes per 256 entries): nothing else may be appended to ms until
 * dir_writer_end. */
int dir_writer_begin(dir_writer_t *dw);

/*
 * Add an entry. Names must come in strictly increasing byte order (checked:
 * SQFS_ERROR_SEQUENCE), be 1..256 bytes, and contain no '/'; "." and ".."
 * are refused (SQFS_ERROR_ARG_INVALID). inode_ref is the inode's reference
 * in the inode table, inode_type its type (basic or extended: the entry
 * stores the basic one).
 */
int dir_writer_add_entry(dir_writer_t *dw, const char *name,
			 uint32_t inode_number, uint64_t inode_ref,
			 uint16_t inode_type);

/* Write the listing out; afterwards the getters below describe it. */
int dir_writer_end(dir_writer_t *dw);

/* Bytes of the listing on disk (the inode stores this + 3). */
uint64_t dir_writer_get_size(const dir_writer_t *dw);

/* The listing's position: (block relative to the table << 16) | offset. */
uint64_t dir_writer_get_dir_reference(const dir_writer_t *dw);

/* Entries in the listing. */
size_t dir_writer_get_entry_count(const dir_writer_t *dw);

/*
 * The directory index of the listing in its on-disk form, ready to be the
 * payload of an extended directory inode; *count receives the number of
 * index entries (0 for directories of fewer than 256 entries).
 */
const uint8_t *dir_writer_get_index(const dir_writer_t *dw, size_t *size,
				    size_t *count);

#endif /* SQFS_DIR_WRITER_INTERNAL_H */

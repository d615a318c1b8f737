/* SPDX-License-Identifier: MIT */
/*
 * record.h - an entry that is not a directory, as the writer keeps it
 * from sqfs_writer_add to finish: a byte string for the external sort
 * (lib/util/extsort.h), see doc/scale.md
 * (internal to lib/sqfs/writer).
 *
 * Layout, all integers big-endian so that memcmp orders them:
 *
 *   key:    parent directory id (4) | name | 0 | sequence number (8)
 *   fixed:  kind (1) | mode (2) | uid index (2) | gid index (2) |
 *           mtime (4) | xattr index (4)
 *   payload by kind:
 *     WR_REC_FILE:  size (8) | blocks_start (8) | sparse (8) |
 *                   fragment index (4) | fragment offset (4) |
 *                   block count (4) | block size words (4 each)
 *     WR_REC_SLINK: the target's bytes
 *     WR_REC_DEV:   the encoded device number (4)
 *     WR_REC_IPC:   nothing (FIFO, socket)
 *     WR_REC_GONE:  nothing (a tombstone)
 *     WR_REC_LINK:  bound sequence number (8, 0: not bound) |
 *                   the canonical target path's bytes
 *
 * Names never hold a NUL byte, so the terminator makes the key order
 * (parent, name as strcmp, sequence): records of one directory are
 * neighbours, in the order of its listing, and the versions of one name
 * follow each other oldest first. The key prefix up to and with the
 * terminator is what lookups ask for.
 */
#ifndef SQFS_WRITER_RECORD_H
#define SQFS_WRITER_RECORD_H

#include "sqfs/predef.h"
#include "sqfs/block_processor/block_processor.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	WR_REC_FILE = 1,
	WR_REC_SLINK = 2,
	WR_REC_DEV = 3,
	WR_REC_IPC = 4,
	WR_REC_LINK = 5,
	/* a tombstone: nothing is at this name from this record on */
	WR_REC_GONE = 6,
} wr_rec_kind_t;

typedef struct {
	uint32_t parent;
	const char *name;
	size_t name_len;
	uint64_t seq;

	uint8_t kind;
	/* file type and permission bits (the type of a link: 0) */
	uint16_t mode;
	uint16_t uid_idx;
	uint16_t gid_idx;
	uint32_t mtime;
	uint32_t xattr;

	/* WR_REC_FILE: encoding reads data.block_sizes; decoding leaves it
	 * NULL and points blocks_raw at the words in the record */
	file_data_t data;
	const uint8_t *blocks_raw;
	/* WR_REC_DEV */
	uint32_t rdev;
	/* WR_REC_LINK */
	uint64_t bound;
	/* WR_REC_SLINK target, WR_REC_LINK target path (no terminator) */
	const char *text;
	size_t text_len;
} wr_record_t;

/* Bytes wr_record_encode needs for r. */
size_t wr_record_size(const wr_record_t *r);

/* Encode r into out (wr_record_size bytes). */
void wr_record_encode(const wr_record_t *r, uint8_t *out);

/* Decode len bytes; pointers in *r point into rec. SQFS_ERROR_CORRUPTED
 * if the bytes are not a record (a damaged spill file). Block size words
 * are not in host order in rec: wr_record_block_size reads them. */
int wr_record_decode(const void *rec, size_t len, wr_record_t *r);

/* Block size word i of a decoded file record. */
uint32_t wr_record_block_size(const wr_record_t *r, uint32_t i);

/* The lookup key of (parent, name): parent | name | 0, in out
 * (4 + len + 1 bytes, at most 262). Returns its length. */
size_t wr_record_key(uint32_t parent, const char *name, size_t len,
		     uint8_t *out);

/* Hash of a key (wr_record_key) or of a record's key prefix. */
uint64_t wr_record_key_hash(const uint8_t *key, size_t klen);

/* extsort callbacks: the order above, lookups by key prefix. */
int wr_record_cmp(const void *a, size_t alen, const void *b, size_t blen,
		  void *user);
uint64_t wr_record_hash(const void *rec, size_t len, void *user);
int wr_record_key_cmp(const void *key, size_t klen, const void *rec, size_t len,
		      void *user);

#endif /* SQFS_WRITER_RECORD_H */

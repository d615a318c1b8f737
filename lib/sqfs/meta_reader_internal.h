/* SPDX-License-Identifier: MIT */
/*
 * meta_reader_internal.h - letting a metadata reader take its blocks from
 * a cache shared between readers (internal to the library).
 *
 * A reader keeps a few decoded blocks of its own; the file system object
 * (sqfs/fs.h) runs one reader per thread context and wants them all to
 * share one big cache of decoded blocks, each decoded once. So a reader
 * may be given a fetch function that it calls instead of decoding a block
 * itself; the fetch function decodes through meta_reader_decode on a miss.
 */
#ifndef SQFS_META_READER_INTERNAL_H
#define SQFS_META_READER_INTERNAL_H

#include "sqfs/meta_reader.h"

/*
 * Fill data (SQFS_META_BLOCK_SIZE bytes) with the decoded block whose
 * header is at pos in mr's region, *len with its length and *next with
 * where the block after it starts. Returns 0 or a negative error.
 */
typedef int (*meta_fetch_fn)(void *user, sqfs_meta_reader_t *mr, uint64_t pos,
			     uint8_t *data, size_t *len, uint64_t *next);

void meta_reader_set_fetch(sqfs_meta_reader_t *mr, meta_fetch_fn fn,
			   void *user);

/* Read and decode the block at pos from mr's file, checked against mr's
 * region, as a reader without a fetch function does. */
int meta_reader_decode(sqfs_meta_reader_t *mr, uint64_t pos, uint8_t *data,
		       size_t *len, uint64_t *next);

/* The end of mr's region (part of a cached block's key: a block is only
 * valid for the region it was checked against). */
uint64_t meta_reader_limit(const sqfs_meta_reader_t *mr);

#endif /* SQFS_META_READER_INTERNAL_H */

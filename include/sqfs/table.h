/* SPDX-License-Identifier: MIT */
/*
 * table.h - lookup tables: arrays of fixed-size entries.
 *
 * The fragment, id, export and xattr-id tables are stored the same way: the
 * array is cut into 8 KiB metadata blocks written back to back, followed by
 * an uncompressed array of u64 (little endian) absolute positions, one per
 * block. The superblock points at that index array, not at the blocks.
 * Entry sizes (4, 8, 16) divide 8192, so no entry straddles two blocks.
 *
 * A low-level building block. Most programs want the image writer
 * (sqfs/writer.h) or the image reader (sqfs/image.h), which use it; it is
 * public for programs that lay out or inspect tables themselves, and may
 * change between minor versions until the soname reaches 1.
 */
#ifndef SQFS_TABLE_H
#define SQFS_TABLE_H

#include "sqfs/predef.h"

SQFS_BEGIN_DECLS

/*
 * Append a table of size bytes (entries already in on-disk byte order) at
 * the end of file: its metadata blocks, compressed with cmp where that is
 * smaller, then the index. *index_start receives the position of the index,
 * the value the superblock records. size must be positive.
 */
SQFS_API int sqfs_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
			      const void *data, size_t size,
			      uint64_t *index_start);

/*
 * Read a table of exactly size bytes whose index is at index_start. Every
 * block must lie in [lower_limit, index_start) and the index itself must
 * end at or before upper_limit. The index entries must strictly increase
 * by at most 8194 (a full block and its header), and the blocks must lie
 * back to back, the last one ending where the index begins; every block but
 * the last must unpack to exactly 8192 bytes and the total to size. On
 * success *out receives a malloc'd buffer of size bytes the caller frees.
 * size is not trusted with an allocation: besides the index (which must be
 * in the file), memory grows with the blocks as they decode, to at most
 * twice what they hold, so a bad image fails before it costs more than it
 * contains.
 */
SQFS_API int sqfs_table_read(sqfs_file_t *file, sqfs_compressor_t *cmp,
			     size_t size, uint64_t index_start,
			     uint64_t lower_limit, uint64_t upper_limit,
			     void **out);

SQFS_END_DECLS

#endif /* SQFS_TABLE_H */

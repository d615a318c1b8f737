/* SPDX-License-Identifier: MIT */
/*
 * data_reader.h - reading the contents of regular files.
 *
 * Random access: any range of a file can be read. Blocks are located by
 * summing the size words before them (sparse blocks take no space and read
 * as zeros), decompressed into a bounded buffer, and must unpack to exactly
 * the size the inode implies: a full block, the short last block, or a
 * fragment block holding the tail at its offset. The most recent data
 * block and fragment block are cached, so reading a file front to back
 * decompresses each block once. Tails of up to 4 KiB are copied as they
 * are read, up to 1 MiB of them (those asked for again kept longest), so
 * that reading duplicates of small files, which share their tails, does
 * not unpack a fragment block for each.
 *
 * A data reader is not thread safe; create one per thread.
 */
#ifndef SQFS_DATA_READER_H
#define SQFS_DATA_READER_H

#include "sqfs/predef.h"
#include "sqfs/image.h"

/* Flags of sqfs_file_block_t.flags. */
typedef enum {
	/* A sparse block: data points at size zeros. */
	SQFS_FILE_BLOCK_SPARSE = 0x01,
	/* The last block of its file (an empty file has one, of size 0, in
	 * a file stream). */
	SQFS_FILE_BLOCK_LAST = 0x02,
} sqfs_file_block_flags_t;

/* One piece of a regular file's data, as the data reader and the file
 * stream (file_stream.h) hand it out. */
typedef struct {
	/* The pointer the file was queued with (file stream only). */
	void *user;
	/* size bytes of the file at offset; valid until the next call on
	 * the reader or stream. */
	const uint8_t *data;
	size_t size;
	uint64_t offset;
	/* The listed blocks, then the tail from the fragment block. */
	size_t index;
	/* sqfs_file_block_flags_t bits. */
	uint32_t flags;
} sqfs_file_block_t;

typedef struct sqfs_data_reader sqfs_data_reader_t;

SQFS_BEGIN_DECLS

/* Create a data reader for img (used, not owned). */
SQFS_API int sqfs_data_reader_create(sqfs_image_t *img,
				     sqfs_data_reader_t **out);

/* Destroy a reader; NULL is allowed. */
SQFS_API void sqfs_data_reader_destroy(sqfs_data_reader_t *dr);

/*
 * Read up to size bytes at offset of the regular file inode into buffer.
 * Returns the number of bytes read (fewer only at the end of the file, 0
 * at or past it), or a negative error: SQFS_ERROR_NOT_FILE for other
 * inodes, SQFS_ERROR_CORRUPTED for a block that is out of place or does
 * not unpack to its expected size.
 */
SQFS_API ptrdiff_t sqfs_data_reader_read(sqfs_data_reader_t *dr,
					 const sqfs_inode_t *file,
					 uint64_t offset, void *buffer,
					 size_t size);

/*
 * Block index of file, unpacked, into *out: index 0 .. (block count - 1)
 * are the listed blocks; index == block count is the tail from the
 * fragment block (if the file has one). out->data points at out->size
 * bytes, valid until the next call on the reader; out->offset is where
 * they lie in the file; out->flags has SQFS_FILE_BLOCK_SPARSE for a sparse
 * block (out->data then points at zeros) and SQFS_FILE_BLOCK_LAST for the
 * file's last piece; out->index is index and out->user NULL. An index
 * past the last piece gives SQFS_ERROR_OUT_OF_BOUNDS.
 */
SQFS_API int sqfs_data_reader_get_block(sqfs_data_reader_t *dr,
					const sqfs_inode_t *file, size_t index,
					sqfs_file_block_t *out);

SQFS_END_DECLS

#endif /* SQFS_DATA_READER_H */

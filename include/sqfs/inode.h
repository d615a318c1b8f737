/* SPDX-License-Identifier: MIT */
/*
 * inode.h - inodes as they are stored in the inode table.
 *
 * Each object in an image has one inode; hard links share it. The on-disk
 * form comes in a basic and an extended variant per type (the extended one
 * adds a link count, an xattr index, and room for large sizes). This header
 * gives one host-order structure for all fourteen variants, with the
 * variable part (a file's block sizes, a symlink's target, a directory's
 * index) in a trailing payload, and functions that encode and decode it
 * through the metadata writer and reader.
 */
#ifndef SQFS_INODE_H
#define SQFS_INODE_H

#include "sqfs/predef.h"

typedef enum {
	SQFS_INODE_DIR = 1,
	SQFS_INODE_FILE = 2,
	SQFS_INODE_SLINK = 3,
	SQFS_INODE_BDEV = 4,
	SQFS_INODE_CDEV = 5,
	SQFS_INODE_FIFO = 6,
	SQFS_INODE_SOCKET = 7,
	SQFS_INODE_EXT_DIR = 8,
	SQFS_INODE_EXT_FILE = 9,
	SQFS_INODE_EXT_SLINK = 10,
	SQFS_INODE_EXT_BDEV = 11,
	SQFS_INODE_EXT_CDEV = 12,
	SQFS_INODE_EXT_FIFO = 13,
	SQFS_INODE_EXT_SOCKET = 14,
} sqfs_inode_type_t;

/* Value of fragment_index and xattr_index meaning "none". */
#define SQFS_NO_FRAGMENT 0xFFFFFFFFu
#define SQFS_NO_XATTR 0xFFFFFFFFu

/* Longest symlink target the library writes or reads. */
#define SQFS_MAX_SYMLINK_SIZE 4096u

typedef struct sqfs_inode {
	/* A sqfs_inode_type_t. */
	uint16_t type;
	/* Permission bits only (07777); the type gives the file type. */
	uint16_t mode;
	/* Indexes into the id table. */
	uint16_t uid_idx;
	uint16_t gid_idx;
	uint32_t mtime;
	uint32_t inode_number;
	/* Link count; basic files have none on disk and read back as 1. */
	uint32_t nlink;
	/* Xattr-id index or SQFS_NO_XATTR; only extended types store it. */
	uint32_t xattr_index;

	union {
		struct {
			/* Directory-table position of the listing's block,
			 * and the offset inside it. */
			uint32_t start_block;
			uint16_t offset;
			/* Listing size + 3, as stored. */
			uint32_t size;
			uint32_t parent_inode;
			/* Directory-index entries in the payload. */
			uint16_t index_count;
		} dir;
		struct {
			uint64_t blocks_start;
			uint64_t file_size;
			/* Bytes in sparse blocks (extended only). */
			uint64_t sparse;
			uint32_t fragment_index;
			uint32_t fragment_offset;
		} file;
		struct {
			/* Target length in bytes, without a terminator. */
			uint32_t target_size;
		} slink;
		struct {
			/* Encoded as Linux's new_encode_dev: 12-bit major,
			 * 20-bit minor. */
			uint32_t rdev;
		} dev;
	} data;

	/*
	 * Bytes used in payload: files, one uint32_t size word (host order)
	 * per block; symlinks, the target plus a terminating NUL; extended
	 * directories, the index entries in their on-disk form.
	 */
	size_t payload_size;
	uint8_t payload[];
} sqfs_inode_t;

SQFS_BEGIN_DECLS

/*
 * Allocate an inode with room for payload_size bytes of payload, all fields
 * zero; free it with free(). Returns NULL if out of memory.
 */
SQFS_API sqfs_inode_t *sqfs_inode_alloc(size_t payload_size);

/*
 * The block size words of a file inode (the payload viewed as uint32_t,
 * host order; payload_size / 4 of them): bits 0..23 the size on disk, bit
 * 24 set for a block stored uncompressed, 0 for a sparse block. Like
 * strchr, it takes a const inode and gives words a writer may fill in.
 */
SQFS_API uint32_t *sqfs_inode_block_sizes(const sqfs_inode_t *inode);

/*
 * The number of blocks a file inode lists: file_size / block_size, rounded
 * up when the file has no fragment and down when its tail is in one.
 */
SQFS_API uint64_t sqfs_inode_block_count(const sqfs_inode_t *inode,
					 uint32_t block_size);

/* Whether type is one of the extended variants. */
SQFS_API bool sqfs_inode_type_is_extended(uint16_t type);

/* The basic variant of any type (directory entries store these). */
SQFS_API uint16_t sqfs_inode_type_basic(uint16_t type);

/* The inode's permission bits with the S_IF* type bits of its type. */
SQFS_API uint32_t sqfs_inode_mode(const sqfs_inode_t *inode);

/* Encode a device number; returns false if major > 4095 or
 * minor > 0xFFFFF. */
SQFS_API bool sqfs_inode_encode_rdev(uint32_t major, uint32_t minor,
				     uint32_t *rdev);

/* Split an encoded device number into major and minor. */
SQFS_API void sqfs_inode_decode_rdev(uint32_t rdev, uint32_t *major,
				     uint32_t *minor);

/*
 * Append the on-disk form of inode to the inode table stream. The caller
 * picks the type (basic or extended) and guarantees the fields fit it
 * (SQFS_ERROR_OVERFLOW otherwise, e.g. a basic file over 4 GiB).
 */
SQFS_API int sqfs_inode_write(sqfs_meta_writer_t *mw,
			      const sqfs_inode_t *inode);

/*
 * Read the inode at the reader's current position, checking every field
 * against super (id indexes, inode number, fragment index, block size,
 * sizes) before allocating. The block count of a file is checked against
 * what can remain in the inode table, so a hostile size cannot cause a
 * huge allocation. On success *out is a new inode to free().
 */
SQFS_API int sqfs_inode_read(sqfs_meta_reader_t *mr, const sqfs_super_t *super,
			     sqfs_inode_t **out);

SQFS_END_DECLS

#endif /* SQFS_INODE_H */

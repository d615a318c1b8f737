/* SPDX-License-Identifier: MIT */
/*
 * super.h - the 96-byte superblock at the start of every image.
 *
 * The structure below holds the fields in host byte order; reading and
 * writing convert from and to the little-endian on-disk layout. A writer
 * fills in a fresh superblock with sqfs_super_init, updates the table
 * offsets and counts while it writes, and stores it last with
 * sqfs_super_write. A reader gets a validated copy from sqfs_super_read.
 */
#ifndef SQFS_SUPER_H
#define SQFS_SUPER_H

#include "sqfs/predef.h"

#define SQFS_MAGIC 0x73717368u
#define SQFS_VERSION_MAJOR 4
#define SQFS_VERSION_MINOR 0

/* On-disk size of the superblock. */
#define SQFS_SUPER_SIZE 96

/* Data block sizes an image may use, and the default. */
#define SQFS_MIN_BLOCK_SIZE 4096u
#define SQFS_MAX_BLOCK_SIZE 1048576u
#define SQFS_DEFAULT_BLOCK_SIZE 131072u

/* Images are padded to a multiple of this by default; the kernel reads the
 * device in 1 KiB or 4 KiB units. */
#define SQFS_DEFAULT_DEVBLK_SIZE 4096u

/* Uncompressed size of a full metadata block. */
#define SQFS_META_BLOCK_SIZE 8192u

/* Value of an optional table offset when the table is absent. */
#define SQFS_TABLE_ABSENT UINT64_MAX

/* Superblock flags. Only SQFS_FLAG_COMPRESSOR_OPTIONS changes how an image
 * is parsed; the others record how it was written. */
typedef enum {
	SQFS_FLAG_UNCOMPRESSED_INODES = 0x0001,
	SQFS_FLAG_UNCOMPRESSED_DATA = 0x0002,
	SQFS_FLAG_CHECK = 0x0004,
	SQFS_FLAG_UNCOMPRESSED_FRAGMENTS = 0x0008,
	SQFS_FLAG_NO_FRAGMENTS = 0x0010,
	SQFS_FLAG_ALWAYS_FRAGMENTS = 0x0020,
	SQFS_FLAG_DEDUPLICATED = 0x0040,
	SQFS_FLAG_EXPORTABLE = 0x0080,
	SQFS_FLAG_UNCOMPRESSED_XATTRS = 0x0100,
	SQFS_FLAG_NO_XATTRS = 0x0200,
	SQFS_FLAG_COMPRESSOR_OPTIONS = 0x0400,
	SQFS_FLAG_UNCOMPRESSED_IDS = 0x0800,
} sqfs_super_flag_t;

struct sqfs_super {
	uint32_t magic;
	/* Number of distinct inodes; hard links count once. */
	uint32_t inode_count;
	/* Creation time, unsigned seconds since the Unix epoch. */
	uint32_t modification_time;
	uint32_t block_size;
	uint32_t fragment_entry_count;
	/* A sqfs_compressor_id_t. */
	uint16_t compression_id;
	/* log2(block_size). */
	uint16_t block_log;
	/* sqfs_super_flag_t bits. */
	uint16_t flags;
	uint16_t id_count;
	uint16_t version_major;
	uint16_t version_minor;
	/* Reference (block << 16 | offset) of the root directory inode. */
	uint64_t root_inode_ref;
	/* Exact end of the last table; the padding is not counted. */
	uint64_t bytes_used;
	uint64_t id_table_start;
	uint64_t xattr_id_table_start;
	uint64_t inode_table_start;
	uint64_t directory_table_start;
	uint64_t fragment_table_start;
	uint64_t export_table_start;
};

SQFS_BEGIN_DECLS

/*
 * Fill in a superblock for a new image: magic, version, block size and log,
 * compressor, time, and every optional table marked absent. Fails with
 * SQFS_ERROR_SUPER_BLOCK_SIZE for a block size that is not a power of two
 * in 4 KiB .. 1 MiB and SQFS_ERROR_UNSUPPORTED for an unknown compressor id.
 */
SQFS_API int sqfs_super_init(sqfs_super_t *super, uint32_t block_size,
			     uint32_t mtime, uint16_t compression_id);

/*
 * Check a superblock read from an image of image_size bytes: magic,
 * version, compressor id, block size against block log, id count, and that
 * every table start lies inside bytes_used in the order the format
 * requires. Returns 0 or the first problem found.
 */
SQFS_API int sqfs_super_validate(const sqfs_super_t *super,
				 uint64_t image_size);

/* Convert a superblock to its 96-byte little-endian on-disk form. */
SQFS_API void sqfs_super_encode(const sqfs_super_t *super,
				uint8_t out[SQFS_SUPER_SIZE]);

/* Convert 96 on-disk bytes to a superblock, without validating it. */
SQFS_API void sqfs_super_decode(sqfs_super_t *super,
				const uint8_t in[SQFS_SUPER_SIZE]);

/*
 * Read the superblock at offset 0 of file and validate it against the file
 * size. On failure *super is left in an unspecified state.
 */
SQFS_API int sqfs_super_read(sqfs_super_t *super, sqfs_file_t *file);

/* Write the superblock to offset 0 of file. */
SQFS_API int sqfs_super_write(const sqfs_super_t *super, sqfs_file_t *file);

/*
 * The name of one superblock flag bit, e.g. "COMPRESSOR_OPTIONS"; NULL if
 * flag is not exactly one known bit.
 */
SQFS_API const char *sqfs_super_flag_name(uint16_t flag);

SQFS_END_DECLS

#endif /* SQFS_SUPER_H */

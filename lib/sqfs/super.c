/* SPDX-License-Identifier: MIT */
/*
 * super.c - the superblock: defaults for a new image, the on-disk
 * encoding, and the checks a reader needs before trusting any offset.
 */
#include "config.h"

#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "util/le.h"

#include "sqfs/table_internal.h"

#include <string.h>

static bool block_size_valid(uint32_t size, uint16_t log)
{
	return size >= SQFS_MIN_BLOCK_SIZE && size <= SQFS_MAX_BLOCK_SIZE &&
	       log < 32 && size == (1u << log);
}

int sqfs_super_init(sqfs_super_t *super, uint32_t block_size, uint32_t mtime,
		    uint16_t compression_id)
{
	uint16_t log = 0;

	while (log < 31 && (1u << log) < block_size)
		++log;
	if (!block_size_valid(block_size, log))
		return SQFS_ERROR_SUPER_BLOCK_SIZE;
	if (compression_id < SQFS_COMP_MIN || compression_id > SQFS_COMP_MAX)
		return SQFS_ERROR_UNSUPPORTED;

	memset(super, 0, sizeof(*super));
	super->magic = SQFS_MAGIC;
	super->modification_time = mtime;
	super->block_size = block_size;
	super->compression_id = compression_id;
	super->block_log = log;
	super->version_major = SQFS_VERSION_MAJOR;
	super->version_minor = SQFS_VERSION_MINOR;
	super->bytes_used = SQFS_SUPER_SIZE;
	super->xattr_id_table_start = SQFS_TABLE_ABSENT;
	super->fragment_table_start = SQFS_TABLE_ABSENT;
	super->export_table_start = SQFS_TABLE_ABSENT;
	return 0;
}

/*
 * A lookup table's index must end inside the image; the index itself is
 * checked entry by entry when the table is read.
 */
static bool index_fits(uint64_t start, uint64_t count, uint64_t entry_size,
		       uint64_t lower, uint64_t end)
{
	uint64_t size = table_index_size(count, entry_size);

	return start >= lower && start <= end && size <= end - start;
}

int sqfs_super_validate(const sqfs_super_t *super, uint64_t image_size)
{
	uint64_t end = super->bytes_used;
	uint64_t lower;

	if (super->magic != SQFS_MAGIC)
		return SQFS_ERROR_SUPER_MAGIC;
	if (super->version_major != SQFS_VERSION_MAJOR ||
	    super->version_minor != SQFS_VERSION_MINOR)
		return SQFS_ERROR_SUPER_VERSION;
	if (!block_size_valid(super->block_size, super->block_log))
		return SQFS_ERROR_SUPER_BLOCK_SIZE;
	if (super->compression_id < SQFS_COMP_MIN ||
	    super->compression_id > SQFS_COMP_MAX)
		return SQFS_ERROR_UNSUPPORTED;

	if (end > image_size)
		return SQFS_ERROR_TRUNCATED;
	if (super->id_count == 0 || super->inode_count == 0)
		return SQFS_ERROR_CORRUPTED;

	/* inode table < directory table <= the lookup tables, in order */
	if (super->inode_table_start < SQFS_SUPER_SIZE ||
	    super->inode_table_start >= super->directory_table_start ||
	    super->directory_table_start > end)
		return SQFS_ERROR_CORRUPTED;
	lower = super->directory_table_start;

	if (super->fragment_entry_count > 0) {
		if (!index_fits(super->fragment_table_start,
				super->fragment_entry_count, 16, lower, end))
			return SQFS_ERROR_CORRUPTED;
		lower = super->fragment_table_start;
	}

	if (super->export_table_start != SQFS_TABLE_ABSENT) {
		if (!index_fits(super->export_table_start, super->inode_count,
				8, lower, end))
			return SQFS_ERROR_CORRUPTED;
		lower = super->export_table_start;
	}

	if (!index_fits(super->id_table_start, super->id_count, 4, lower, end))
		return SQFS_ERROR_CORRUPTED;
	lower = super->id_table_start;

	if (super->xattr_id_table_start != SQFS_TABLE_ABSENT) {
		/* a 16-byte header precedes the xattr-id index */
		if (super->xattr_id_table_start <= lower ||
		    super->xattr_id_table_start > end ||
		    end - super->xattr_id_table_start < 16)
			return SQFS_ERROR_CORRUPTED;
	}

	/* the root inode must sit inside the inode table */
	if ((super->root_inode_ref >> 48) != 0 ||
	    (super->root_inode_ref & 0xFFFF) >= SQFS_META_BLOCK_SIZE ||
	    (super->root_inode_ref >> 16) >=
		super->directory_table_start - super->inode_table_start)
		return SQFS_ERROR_CORRUPTED;

	return 0;
}

void sqfs_super_encode(const sqfs_super_t *super, uint8_t out[SQFS_SUPER_SIZE])
{
	put_le32(out + 0, super->magic);
	put_le32(out + 4, super->inode_count);
	put_le32(out + 8, super->modification_time);
	put_le32(out + 12, super->block_size);
	put_le32(out + 16, super->fragment_entry_count);
	put_le16(out + 20, super->compression_id);
	put_le16(out + 22, super->block_log);
	put_le16(out + 24, super->flags);
	put_le16(out + 26, super->id_count);
	put_le16(out + 28, super->version_major);
	put_le16(out + 30, super->version_minor);
	put_le64(out + 32, super->root_inode_ref);
	put_le64(out + 40, super->bytes_used);
	put_le64(out + 48, super->id_table_start);
	put_le64(out + 56, super->xattr_id_table_start);
	put_le64(out + 64, super->inode_table_start);
	put_le64(out + 72, super->directory_table_start);
	put_le64(out + 80, super->fragment_table_start);
	put_le64(out + 88, super->export_table_start);
}

void sqfs_super_decode(sqfs_super_t *super, const uint8_t in[SQFS_SUPER_SIZE])
{
	super->magic = get_le32(in + 0);
	super->inode_count = get_le32(in + 4);
	super->modification_time = get_le32(in + 8);
	super->block_size = get_le32(in + 12);
	super->fragment_entry_count = get_le32(in + 16);
	super->compression_id = get_le16(in + 20);
	super->block_log = get_le16(in + 22);
	super->flags = get_le16(in + 24);
	super->id_count = get_le16(in + 26);
	super->version_major = get_le16(in + 28);
	super->version_minor = get_le16(in + 30);
	super->root_inode_ref = get_le64(in + 32);
	super->bytes_used = get_le64(in + 40);
	super->id_table_start = get_le64(in + 48);
	super->xattr_id_table_start = get_le64(in + 56);
	super->inode_table_start = get_le64(in + 64);
	super->directory_table_start = get_le64(in + 72);
	super->fragment_table_start = get_le64(in + 80);
	super->export_table_start = get_le64(in + 88);
}

int sqfs_super_read(sqfs_super_t *super, sqfs_file_t *file)
{
	uint8_t raw[SQFS_SUPER_SIZE];
	int ret;

	ret = file->read_at(file, 0, raw, sizeof(raw));
	if (ret == SQFS_ERROR_OUT_OF_BOUNDS)
		return SQFS_ERROR_TRUNCATED;
	if (ret != 0)
		return ret;

	sqfs_super_decode(super, raw);
	return sqfs_super_validate(super, file->get_size(file));
}

int sqfs_super_write(const sqfs_super_t *super, sqfs_file_t *file)
{
	uint8_t raw[SQFS_SUPER_SIZE];

	sqfs_super_encode(super, raw);
	return file->write_at(file, 0, raw, sizeof(raw));
}

const char *sqfs_super_flag_name(uint16_t flag)
{
	switch (flag) {
	case SQFS_FLAG_UNCOMPRESSED_INODES:
		return "UNCOMPRESSED_INODES";
	case SQFS_FLAG_UNCOMPRESSED_DATA:
		return "UNCOMPRESSED_DATA";
	case SQFS_FLAG_CHECK:
		return "CHECK";
	case SQFS_FLAG_UNCOMPRESSED_FRAGMENTS:
		return "UNCOMPRESSED_FRAGMENTS";
	case SQFS_FLAG_NO_FRAGMENTS:
		return "NO_FRAGMENTS";
	case SQFS_FLAG_ALWAYS_FRAGMENTS:
		return "ALWAYS_FRAGMENTS";
	case SQFS_FLAG_DEDUPLICATED:
		return "DEDUPLICATED";
	case SQFS_FLAG_EXPORTABLE:
		return "EXPORTABLE";
	case SQFS_FLAG_UNCOMPRESSED_XATTRS:
		return "UNCOMPRESSED_XATTRS";
	case SQFS_FLAG_NO_XATTRS:
		return "NO_XATTRS";
	case SQFS_FLAG_COMPRESSOR_OPTIONS:
		return "COMPRESSOR_OPTIONS";
	case SQFS_FLAG_UNCOMPRESSED_IDS:
		return "UNCOMPRESSED_IDS";
	default:
		return NULL;
	}
}

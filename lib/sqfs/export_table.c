/* SPDX-License-Identifier: MIT */
/*
 * export_table.c - the export table, which lets an NFS server find an
 * inode by its number: entry n - 1 is the inode reference (block << 16 |
 * offset) of inode n, one u64 each.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/super.h"
#include "sqfs/table.h"
#include "util/le.h"

#include "sqfs/format_internal.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>

int export_table_write(sqfs_file_t *file, sqfs_compressor_t *cmp,
		       uint32_t count, export_source_t source, void *user,
		       sqfs_super_t *super)
{
	enum { PER_BLOCK = SQFS_META_BLOCK_SIZE / SQFS_EXPORT_ENTRY_SIZE };
	uint64_t refs[PER_BLOCK];
	uint8_t raw[SQFS_META_BLOCK_SIZE];
	uint64_t blocks, pos;
	uint8_t *index;
	int ret = 0;

	if (count == 0)
		return SQFS_ERROR_OVERFLOW;
	blocks = ((uint64_t)count + PER_BLOCK - 1) / PER_BLOCK;
	index = malloc((size_t)blocks * sizeof(uint64_t));
	if (index == NULL)
		return SQFS_ERROR_ALLOC;

	/* one metadata block per call: the same blocks as the whole
	 * table written at once */
	for (uint64_t b = 0; ret == 0 && b < blocks; ++b) {
		uint64_t first = b * PER_BLOCK;
		size_t n = count - first < PER_BLOCK ? (size_t)(count - first)
						     : PER_BLOCK;

		ret = source(user, first, refs, n);
		for (size_t i = 0; ret == 0 && i < n; ++i)
			put_le64(raw + i * SQFS_EXPORT_ENTRY_SIZE, refs[i]);
		if (ret == 0)
			ret = table_write_blocks(
			    file, cmp, raw, n * SQFS_EXPORT_ENTRY_SIZE,
			    index + b * sizeof(uint64_t));
	}
	if (ret == 0) {
		pos = file->get_size(file);
		ret = file->write_at(file, pos, index,
				     (size_t)blocks * sizeof(uint64_t));
		if (ret == 0) {
			super->export_table_start = pos;
			super->flags |= SQFS_FLAG_EXPORTABLE;
		}
	}
	free(index);
	return ret;
}

int export_table_load(sqfs_file_t *file, sqfs_compressor_t *cmp,
		      const sqfs_super_t *super, uint64_t lower, uint64_t upper,
		      uint64_t **out, uint64_t *first_block)
{
	void *refs;
	int ret = table_load_words(
	    file, cmp, super->inode_count, SQFS_EXPORT_ENTRY_SIZE,
	    super->export_table_start, lower, upper, &refs, first_block);

	*out = refs;
	return ret;
}

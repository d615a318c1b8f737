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
		       const uint64_t *refs, uint32_t count,
		       sqfs_super_t *super)
{
	uint8_t *raw;
	uint32_t i;
	int ret;

	/* 32-bit hosts: a size_t must hold the table */
	if (count == 0 ||
	    (uint64_t)count * SQFS_EXPORT_ENTRY_SIZE > (uint64_t)SIZE_MAX)
		return SQFS_ERROR_OVERFLOW;
	raw = malloc((size_t)count * SQFS_EXPORT_ENTRY_SIZE);
	if (raw == NULL)
		return SQFS_ERROR_ALLOC;
	for (i = 0; i < count; ++i)
		put_le64(raw + (size_t)i * SQFS_EXPORT_ENTRY_SIZE, refs[i]);
	ret = sqfs_table_write(file, cmp, raw,
			       (size_t)count * SQFS_EXPORT_ENTRY_SIZE,
			       &super->export_table_start);
	free(raw);
	if (ret == 0)
		super->flags |= SQFS_FLAG_EXPORTABLE;
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

/* SPDX-License-Identifier: MIT */
/*
 * frag_table.c - the fragment table while an image is written: one entry
 * per fragment block, added when the packer opens the block and filled in
 * when the writer has written it. Its encoding on disk is
 * fragment_table.c's, beside the decoding.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/table_internal.h"

#include <stdlib.h>
#include <string.h>

static bp_frag_entry_t *entries(const bp_frag_table_t *tbl)
{
	return tbl->entries.data;
}

void bp_frag_table_init(bp_frag_table_t *tbl)
{
	tbl->entries = (array_t){0};
}

void bp_frag_table_cleanup(bp_frag_table_t *tbl)
{
	array_cleanup(&tbl->entries);
}

int bp_frag_table_add(bp_frag_table_t *tbl, uint32_t *index)
{
	bp_frag_entry_t *e;
	int ret;

	/* 0xFFFFFFFF means "no fragment" in an inode */
	if (tbl->entries.count >= SQFS_NO_FRAGMENT)
		return SQFS_ERROR_LIMIT;
	ret = array_reserve(&tbl->entries, sizeof(*e), 1);
	if (ret != 0)
		return ret;

	*index = (uint32_t)tbl->entries.count;
	e = entries(tbl) + tbl->entries.count++;
	e->start = 0;
	e->size = 0;
	return 0;
}

const bp_frag_entry_t *bp_frag_table_get(const bp_frag_table_t *tbl,
					 uint32_t idx)
{
	if (idx >= tbl->entries.count)
		return NULL;
	return entries(tbl) + idx;
}

int bp_frag_table_set(bp_frag_table_t *tbl, uint32_t idx, uint64_t start,
		      uint32_t size_word)
{
	/* a written block always holds data: 0 means "not written" */
	if (idx >= tbl->entries.count || size_word == 0)
		return SQFS_ERROR_INTERNAL;
	entries(tbl)[idx].start = start;
	entries(tbl)[idx].size = size_word;
	return 0;
}

int bp_frag_table_adopt(bp_frag_table_t *tbl, const sqfs_fragment_t *list,
			size_t count)
{
	int ret;

	if (tbl->entries.count != 0)
		return SQFS_ERROR_INTERNAL;
	if (count >= SQFS_NO_FRAGMENT)
		return SQFS_ERROR_LIMIT;
	for (size_t i = 0; i < count; ++i) {
		/* 0 means "not written yet" to the packer */
		if (list[i].size == 0)
			return SQFS_ERROR_CORRUPTED;
	}
	if (count == 0)
		return 0;
	ret = array_reserve(&tbl->entries, sizeof(bp_frag_entry_t), count);
	if (ret != 0)
		return ret;
	memcpy(entries(tbl), list, count * sizeof(bp_frag_entry_t));
	tbl->entries.count = count;
	return 0;
}

int bp_frag_table_write(const bp_frag_table_t *tbl, sqfs_file_t *file,
			sqfs_compressor_t *cmp, sqfs_super_t *super)
{
	return fragment_table_write(file, cmp, entries(tbl), tbl->entries.count,
				    super);
}

/* SPDX-License-Identifier: MIT */
/*
 * adopt.c - appending to an existing image: its fragment table and its
 * files' data taken over by the processor, so that new fragment blocks
 * follow the old ones and new files are deduplicated against old data.
 *
 * Nothing here writes: the old data area has been copied into the output
 * by the caller, byte for byte at the same positions, and the processor
 * only learns what lies there, as if it had written it itself. That is
 * why it must happen before any new file: the index of stored blocks and
 * the list of fragments are in the order of writing.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"

/* Adoption comes first: no file begun, no block submitted. */
static bool fresh(const block_processor_t *bp)
{
	return bp->state == BP_STATE_IDLE && bp->next_proc_seq == 0 &&
	       bp->packer.blk == NULL;
}

int block_processor_adopt_fragments(block_processor_t *bp,
				    const sqfs_fragment_t *list, size_t count)
{
	int ret;

	if (bp == NULL || (list == NULL && count > 0))
		return SQFS_ERROR_ARG_INVALID;
	if (!fresh(bp))
		return SQFS_ERROR_SEQUENCE;
	ret = bp_frag_table_adopt(&bp->ftable, list, count);
	if (ret != 0)
		bp->state = BP_STATE_BROKEN;
	return ret;
}

int block_processor_adopt_file(block_processor_t *bp, const file_data_t *fd)
{
	uint32_t tail;
	int ret = 0;

	if (bp == NULL || fd == NULL ||
	    (fd->block_count > 0 && fd->block_sizes == NULL))
		return SQFS_ERROR_ARG_INVALID;
	if (!fresh(bp))
		return SQFS_ERROR_SEQUENCE;

	if (fd->block_count > 0 && fd->blocks_start != 0)
		ret = bp_writer_adopt_run(&bp->writer, fd, bp->proc.hash_fn);
	if (ret == 0 && fd->fragment_index != SQFS_NO_FRAGMENT) {
		tail = (uint32_t)(fd->size % bp->desc.block_size);
		ret = bp_packer_adopt_tail(&bp->packer, fd->fragment_index,
					   fd->fragment_offset, tail,
					   bp->proc.hash_fn);
	}
	if (ret != 0)
		bp->state = BP_STATE_BROKEN;
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * serial.c - the reference back end: every block is processed and written
 * before submit returns, with the processor's own compressor.
 * Processing order and the order of writing are the order of the calls.
 */
#include "config.h"

#include "sqfs/block_processor/parts.h"
#include "sqfs/error.h"

#include <stdlib.h>

/* The back end's state (bp->backend): scratch space for processing. */
static uint8_t *scratch(const block_processor_t *bp)
{
	return bp->backend;
}

static int serial_get_block(block_processor_t *bp, bool fragment,
			    bp_block_t **out)
{
	return bp_block_alloc(&bp->blocks, fragment, out);
}

static int serial_get_marker(block_processor_t *bp, bp_block_t **out)
{
	return bp_marker_alloc(&bp->blocks, out);
}

static int serial_submit(block_processor_t *bp, bp_block_t *blk)
{
	int ret;

	blk->proc_seq = bp->next_proc_seq++;
	ret = bp_process_block(&bp->proc, bp->desc.cmp, scratch(bp), blk);
	if (ret == 0)
		ret = bp_writer_write(&bp->writer, blk);
	bp_block_release(&bp->blocks, blk);
	return ret;
}

static int serial_sync(block_processor_t *bp)
{
	(void)bp;
	return 0;
}

static void serial_destroy(block_processor_t *bp)
{
	free(bp->backend);
	bp->backend = NULL;
}

static const bp_backend_t serial_backend = {
    .get_block = serial_get_block,
    .get_marker = serial_get_marker,
    .submit = serial_submit,
    .sync = serial_sync,
    .destroy = serial_destroy,
};

int bp_serial_init(block_processor_t *bp)
{
	bp->backend = malloc(bp->desc.block_size);
	if (bp->backend == NULL)
		return SQFS_ERROR_ALLOC;
	bp->ops = &serial_backend;
	return 0;
}

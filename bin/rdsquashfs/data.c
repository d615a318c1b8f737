/* SPDX-License-Identifier: MIT */
/*
 * data.c - the contents of regular files, block by block: from the
 * read-ahead queue for files queued in it (unpacked ahead by -j threads),
 * else from the data reader.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "sqfs/error.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

uint32_t rd_block_word(const sqfs_inode_t *inode, size_t index)
{
	uint32_t word;

	memcpy(&word, inode->payload + index * sizeof(word), sizeof(word));
	return word;
}

size_t rd_block_words(const sqfs_inode_t *inode)
{
	return inode->payload_size / sizeof(uint32_t);
}

/* The oldest file of the read-ahead queue, which checks that the pieces
 * add up to the file size. */
static int ahead_file(rd_ctx_t *ctx, rd_data_sink_t sink, void *user)
{
	sqfs_file_block_t blk;
	int ret;

	while ((ret = sqfs_read_ahead_read(ctx->ahead, &blk)) == 0) {
		if (blk.size == 0)
			continue;
		ret = sink(user, blk.offset, blk.data, blk.size,
			   (blk.flags & SQFS_FILE_BLOCK_SPARSE) != 0);
		if (ret != 0)
			return ret;
	}
	return ret == 1 ? 0 : ret;
}

int rd_read_file(rd_ctx_t *ctx, const sqfs_inode_t *inode, bool ahead,
		 rd_data_sink_t sink, void *user)
{
	uint64_t size = inode->data.file.file_size, offset = 0;
	size_t count = rd_block_words(inode);
	const uint8_t *data;
	size_t len;
	int ret;

	if (ahead)
		return ahead_file(ctx, sink, user);

	/* the listed blocks, then the tail from the fragment block; the
	 * data reader checks each block against the size the inode gives
	 * it, so the pieces add up to the file size or fail */
	for (size_t i = 0; i <= count && offset < size; ++i) {
		ret = sqfs_data_reader_get_block(ctx->data, inode, i, &data,
						 &len);
		if (ret != 0)
			return ret;
		if (len == 0 || len > size - offset)
			return SQFS_ERROR_CORRUPTED;
		ret = sink(user, offset, data, len,
			   i < count && rd_block_word(inode, i) == 0);
		if (ret != 0)
			return ret;
		offset += len;
	}
	return offset == size ? 0 : SQFS_ERROR_CORRUPTED;
}

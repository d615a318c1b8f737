/* SPDX-License-Identifier: MIT */
/*
 * inode_internal.h - encoding inodes into a metadata stream (internal to
 * the library).
 */
#ifndef SQFS_INODE_INTERNAL_H
#define SQFS_INODE_INTERNAL_H

#include "sqfs/inode.h"
#include "sqfs/meta_stream_internal.h"

/*
 * sqfs_inode_write into any metadata stream. A directory inode's
 * start_block and its index entries' start_block are directory-table
 * block numbers in the stream's terms: they are declared to the stream
 * (meta_stream_refer) before they are appended.
 */
int inode_write_stream(meta_stream_t *ms, const sqfs_inode_t *inode);

#endif /* SQFS_INODE_INTERNAL_H */

/* SPDX-License-Identifier: MIT */
/*
 * ahead.c - walker entries held back while the ones before them are
 * unpacked, so that the file stream can unpack the data of the next files
 * meanwhile.
 *
 * How far the queue reaches never depends on the number of jobs, and the
 * entries are taken out in walk order: what is created, and every
 * message, is the same for every -j.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

static size_t entry_bytes(const rd_queued_t *q)
{
	size_t n = sizeof(*q->inode) + q->inode->payload_size;

	n += strlen(q->ent.path);
	if (q->ent.link_target != NULL)
		n += strlen(q->ent.link_target);
	return n;
}

static void free_entry(rd_queued_t *q)
{
	free(q->path);
	free(q->link_target);
	free(q->inode);
	memset(q, 0, sizeof(*q));
}

bool rd_ahead_full(const rd_ahead_t *a)
{
	return a->count == RD_AHEAD_MAX ||
	       (a->count > 0 && a->bytes > RD_AHEAD_BYTES);
}

rd_queued_t *rd_ahead_oldest(rd_ahead_t *a)
{
	return a->count > 0 ? &a->items[a->head] : NULL;
}

void rd_ahead_pop(rd_ahead_t *a)
{
	rd_queued_t *q = &a->items[a->head];

	a->bytes -= entry_bytes(q);
	free_entry(q);
	a->head = (a->head + 1) % RD_AHEAD_MAX;
	a->count -= 1;
}

void rd_ahead_free(rd_ahead_t *a)
{
	while (a->count > 0)
		rd_ahead_pop(a);
	free(a->items);
	a->items = NULL;
}

int rd_ahead_push(rd_ctx_t *ctx, rd_ahead_t *a, const sqfs_walk_entry_t *ent,
		  bool with_data)
{
	size_t inode_size = sizeof(*ent->inode) + ent->inode->payload_size;
	rd_queued_t *q;
	int ret;

	if (a->items == NULL) {
		a->items = calloc(RD_AHEAD_MAX, sizeof(a->items[0]));
		if (a->items == NULL)
			goto oom;
	}
	if (a->count == RD_AHEAD_MAX)
		return SQFS_ERROR_INTERNAL;

	q = &a->items[(a->head + a->count) % RD_AHEAD_MAX];
	q->path = strdup(ent->path);
	q->inode = malloc(inode_size);
	if (ent->link_target != NULL)
		q->link_target = strdup(ent->link_target);
	if (q->path == NULL || q->inode == NULL ||
	    (ent->link_target != NULL && q->link_target == NULL)) {
		free_entry(q);
		goto oom;
	}
	memcpy(q->inode, ent->inode, inode_size);
	q->ent = *ent;
	q->ent.path = q->path;
	q->ent.inode = q->inode;
	q->ent.link_target = q->link_target;
	q->with_data = with_data;
	if (with_data) {
		ret = sqfs_file_stream_enqueue(ctx->stream, q->inode, q);
		if (ret != 0) {
			free_entry(q);
			rd_image_error(ctx, ent->path);
			return -1;
		}
	}
	a->count += 1;
	a->bytes += entry_bytes(q);
	return 0;
oom:
	tool_error(NULL, "out of memory");
	return -1;
}

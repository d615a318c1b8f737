/* SPDX-License-Identifier: MIT */
/*
 * ahead.c - walker entries held back in the library's read-ahead queue
 * (sqfs/read_ahead.h) while the ones before them are unpacked, so that
 * the data of the next files is unpacked meanwhile.
 *
 * The queue keeps the inode; what the walker entry points at besides (its
 * path and link target) is copied here. How far the queue reaches never
 * depends on the number of jobs, and the entries are taken out in walk
 * order: what is created, and every message, is the same for every -j.
 */
#include "config.h"

#include "rdsquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

void rd_queued_free(void *user)
{
	rd_queued_t *q = user;

	if (q == NULL)
		return;
	free(q->path);
	free(q->link_target);
	free(q);
}

int rd_ahead_push(rd_ctx_t *ctx, const sqfs_walk_entry_t *ent, bool with_data)
{
	rd_queued_t *q = calloc(1, sizeof(*q));
	size_t bytes = sizeof(*q);
	int ret;

	if (q == NULL)
		goto oom;
	q->path = strdup(ent->path);
	if (ent->link_target != NULL)
		q->link_target = strdup(ent->link_target);
	if (q->path == NULL ||
	    (ent->link_target != NULL && q->link_target == NULL))
		goto oom;
	q->ent = *ent;
	q->ent.path = q->path;
	q->ent.link_target = q->link_target;
	/* the queue's copy, filled in when the entry is taken out */
	q->ent.inode = NULL;
	bytes += strlen(q->path);
	if (q->link_target != NULL)
		bytes += strlen(q->link_target);

	ret = sqfs_read_ahead_push(ctx->ahead, ent->inode, with_data, q, bytes);
	if (ret != 0) {
		rd_queued_free(q);
		rd_image_error(ctx, ent->path);
		return -1;
	}
	return 0;
oom:
	rd_queued_free(q);
	tool_error(NULL, "out of memory");
	return -1;
}

rd_queued_t *rd_ahead_oldest(rd_ctx_t *ctx, bool *with_data)
{
	const sqfs_ahead_entry_t *e = sqfs_read_ahead_oldest(ctx->ahead);
	rd_queued_t *q;

	if (e == NULL)
		return NULL;
	q = e->user;
	q->ent.inode = e->inode;
	*with_data = e->with_data;
	return q;
}

int rd_ahead_pop(rd_ctx_t *ctx, bool report)
{
	const sqfs_ahead_entry_t *e = sqfs_read_ahead_oldest(ctx->ahead);
	rd_queued_t *q = e != NULL ? e->user : NULL;
	int ret;

	/* data left unread is skipped: a failure there is still one */
	ret = sqfs_read_ahead_pop(ctx->ahead);
	if (ret != 0 && report && q != NULL)
		rd_image_error(ctx, q->path);
	rd_queued_free(q);
	return ret == 0 ? 0 : -1;
}

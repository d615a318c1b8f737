/* SPDX-License-Identifier: MIT */
/*
 * handles.c - the files the kernel has open, so that none is left behind.
 *
 * A lazy unmount (SIGTERM, SIGINT, the idle timeout) lets the daemon end
 * while processes still hold files of the mount: their release never
 * comes. The open handles are kept on a list, and what is still on it
 * when the session ends is closed then.
 */
#include "config.h"

#include "sqfsmount.h"

#include <stdlib.h>

struct mount_handle {
	sqfs_fs_file_t *file;
	mount_handle_t *prev, *next;
};

mount_handle_t *mount_handle_add(mount_ctx_t *ctx, sqfs_fs_file_t *file)
{
	mount_handle_t *h = calloc(1, sizeof(*h));

	if (h == NULL)
		return NULL;
	h->file = file;
	pthread_mutex_lock(&ctx->handles_lock);
	h->next = ctx->handles;
	if (h->next != NULL)
		h->next->prev = h;
	ctx->handles = h;
	pthread_mutex_unlock(&ctx->handles_lock);
	atomic_fetch_add(&ctx->open_handles, 1);
	return h;
}

sqfs_fs_file_t *mount_handle_file(const mount_handle_t *h)
{
	return h->file;
}

void mount_handle_close(mount_ctx_t *ctx, mount_handle_t *h)
{
	pthread_mutex_lock(&ctx->handles_lock);
	if (h->prev != NULL)
		h->prev->next = h->next;
	else
		ctx->handles = h->next;
	if (h->next != NULL)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&ctx->handles_lock);
	sqfs_fs_file_close(h->file);
	free(h);
	atomic_fetch_sub(&ctx->open_handles, 1);
}

void mount_handles_close_all(mount_ctx_t *ctx)
{
	while (ctx->handles != NULL)
		mount_handle_close(ctx, ctx->handles);
}

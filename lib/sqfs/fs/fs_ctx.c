/* SPDX-License-Identifier: MIT */
/*
 * fs_ctx.c - the pool of per-call contexts: a light clone of the image
 * (own compressor, metadata readers and error text), a directory reader
 * and a scratch buffer.
 *
 * A call takes a context, uses it alone and gives it back, so the single-
 * threaded readers never see two threads. Contexts are made on demand
 * (as many as calls ever ran at once) and kept until the file system is
 * destroyed; taking one is a pop from a list under a lock held for two
 * pointer moves. Their metadata readers fetch blocks through the shared
 * cache (fs_meta_fetch), so a context made late starts warm.
 */
#include "fs_internal.h"

#include <stdlib.h>
#include <string.h>

static void ctx_free(fs_ctx_t *ctx)
{
	sqfs_dir_reader_destroy(ctx->dr);
	sqfs_image_destroy(ctx->img);
	free(ctx->packed);
	free(ctx);
}

static fs_ctx_t *ctx_new(sqfs_fs_t *fs)
{
	fs_ctx_t *ctx = calloc(1, sizeof(*ctx));

	if (ctx == NULL)
		return NULL;
	ctx->packed = malloc(fs->block_size);
	if (ctx->packed == NULL || image_clone(fs->img, &ctx->img) != 0 ||
	    sqfs_dir_reader_create(ctx->img, &ctx->dr) != 0) {
		ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

fs_ctx_t *fs_ctx_get(sqfs_fs_t *fs)
{
	fs_ctx_t *ctx;

	pthread_mutex_lock(&fs->pool_lock);
	ctx = fs->free_ctx;
	if (ctx != NULL)
		fs->free_ctx = ctx->next_free;
	pthread_mutex_unlock(&fs->pool_lock);
	if (ctx != NULL)
		goto out;

	ctx = ctx_new(fs);
	if (ctx == NULL)
		return NULL;
	pthread_mutex_lock(&fs->pool_lock);
	ctx->next_all = fs->all_ctx;
	fs->all_ctx = ctx;
	pthread_mutex_unlock(&fs->pool_lock);
out:
	errtext_begin(fs_err(ctx));
	return ctx;
}

void fs_ctx_put(sqfs_fs_t *fs, fs_ctx_t *ctx)
{
	if (ctx == NULL)
		return;
	pthread_mutex_lock(&fs->pool_lock);
	ctx->next_free = fs->free_ctx;
	fs->free_ctx = ctx;
	pthread_mutex_unlock(&fs->pool_lock);
}

void fs_ctx_free_all(sqfs_fs_t *fs)
{
	fs_ctx_t *ctx, *next;

	for (ctx = fs->all_ctx; ctx != NULL; ctx = next) {
		next = ctx->next_all;
		ctx_free(ctx);
	}
	fs->all_ctx = NULL;
	fs->free_ctx = NULL;
}

int fs_ctx_done(sqfs_fs_t *fs, fs_ctx_t *ctx, int code, char *why)
{
	if (code < 0) {
		errtext_end(fs_err(ctx), code, NULL);
		if (why != NULL)
			errtext_copy(fs_err(ctx), why);
	}
	fs_ctx_put(fs, ctx);
	return code;
}

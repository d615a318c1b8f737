/* SPDX-License-Identifier: MIT */
/*
 * tree.c - Writer.add_tree: a directory tree on disk copied into the
 * image, on two threads.
 *
 * Why two: on one thread, every small file costs an open, a read and a
 * close on the thread that feeds the compressors, which then wait for it.
 * So a walker thread runs the library's directory source (the walk, the
 * opens, the checks and the reads, sqfs/dir_source.h) and puts each entry,
 * copied with its strings, and its data in chunks into a queue; the
 * calling thread takes them out and feeds the writer, as gensquashfs's
 * readers feed its packer.
 *
 * Rules:
 * - one order: the queue is first in, first out, and the writer sees the
 *   walk's order whatever the timing, so the image does not depend on it;
 * - bounded: the walker waits while QUEUE_BYTES are queued (a chunk is at
 *   most what one read of the source gives, and one chunk always fits);
 * - the walker owns the source (and so the warnings callback, which it
 *   runs); the caller reads the warnings after joining it;
 * - either side stops the other: a failed walk ends the queue with its
 *   error, a failed add sets stop, which the walker sees at its next push;
 * - neither thread holds the GIL or touches a Python object.
 */
#include "_squashforge.h"

#include <sqfs/dir_source.h>
#include <sqfs/entry.h>
#include <sqfs/writer.h>
#include <sqfs/xattr.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the walker may have queued at once. */
#define QUEUE_BYTES (16u << 20)

typedef enum {
	ITEM_ENTRY,
	ITEM_DATA,
	ITEM_HOLE,
	ITEM_END_FILE,
} item_kind_t;

typedef struct item {
	struct item *next;
	item_kind_t kind;
	/* ITEM_ENTRY: its pointers point into payload */
	sqfs_entry_t entry;
	/* ITEM_DATA: bytes in payload; ITEM_HOLE: the hole's size */
	uint64_t size;
	/* what the item counts against QUEUE_BYTES */
	size_t bytes;
	/* ITEM_ENTRY: the xattr list (aligned), then the strings */
	_Alignas(max_align_t) uint8_t payload[];
} item_t;

typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	item_t *head, *tail;
	size_t bytes;
	/* the walker ended: no more items come */
	bool walked;
	/* its result (0 or an error), its words in why */
	int walk_ret;
	char why[SQFS_ERROR_TEXT_SIZE];
	/* the caller failed: the walker stops at its next push */
	bool stop;

	/* the walker's own */
	sqfs_dir_source_t *src;
	const char *prefix;
} tree_queue_t;

static char *join_prefix(const char *prefix, const char *path, char *out)
{
	size_t a = strlen(prefix), b = strlen(path);

	memcpy(out, prefix, a);
	if (a != 0 && b != 0)
		out[a++] = '/';
	memcpy(out + a, path, b + 1);
	return out + a + b + 1;
}

static size_t prefixed_size(const char *prefix, const char *path)
{
	return strlen(prefix) + 1 + strlen(path) + 1;
}

/* A copy of ent with the prefix, in one allocation. */
static item_t *copy_entry(const char *prefix, const sqfs_entry_t *ent)
{
	size_t size = ent->xattr_count * sizeof(sqfs_xattr_t), i;
	sqfs_xattr_t *xattrs;
	item_t *it;
	char *p;

	size += prefixed_size(prefix, ent->path);
	if (ent->hard_link != NULL)
		size += prefixed_size(prefix, ent->hard_link);
	if (ent->symlink_target != NULL)
		size += strlen(ent->symlink_target) + 1;
	for (i = 0; i < ent->xattr_count; ++i)
		size += strlen(ent->xattrs[i].key) + 1 + ent->xattrs[i].size;

	it = malloc(sizeof(*it) + size);
	if (it == NULL)
		return NULL;
	it->next = NULL;
	it->kind = ITEM_ENTRY;
	it->entry = *ent;
	it->size = 0;
	it->bytes = sizeof(*it) + size;
	xattrs = (sqfs_xattr_t *)it->payload;
	p = (char *)(xattrs + ent->xattr_count);

	it->entry.path = p;
	p = join_prefix(prefix, ent->path, p);
	if (ent->hard_link != NULL) {
		it->entry.hard_link = p;
		p = join_prefix(prefix, ent->hard_link, p);
	}
	if (ent->symlink_target != NULL) {
		size_t n = strlen(ent->symlink_target) + 1;

		memcpy(p, ent->symlink_target, n);
		it->entry.symlink_target = p;
		p += n;
	}
	for (i = 0; i < ent->xattr_count; ++i) {
		size_t n = strlen(ent->xattrs[i].key) + 1;

		memcpy(p, ent->xattrs[i].key, n);
		xattrs[i].key = p;
		p += n;
		if (ent->xattrs[i].size > 0)
			memcpy(p, ent->xattrs[i].value, ent->xattrs[i].size);
		xattrs[i].value = p;
		xattrs[i].size = ent->xattrs[i].size;
		p += ent->xattrs[i].size;
	}
	it->entry.xattrs = ent->xattr_count > 0 ? xattrs : NULL;
	return it;
}

static item_t *make_item(item_kind_t kind, const sqfs_data_run_t *run)
{
	size_t n = kind == ITEM_DATA ? (size_t)run->size : 0;
	item_t *it = malloc(sizeof(*it) + n);

	if (it == NULL)
		return NULL;
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->bytes = sizeof(*it) + n;
	if (kind == ITEM_DATA) {
		memcpy(it->payload, run->data, n);
		it->size = n;
	} else if (kind == ITEM_HOLE) {
		it->size = run->size;
	}
	return it;
}

/* Queue it (taking it), waiting for room. False if the caller stopped
 * (it is freed). */
static bool push(tree_queue_t *q, item_t *it)
{
	bool ok;

	pthread_mutex_lock(&q->lock);
	while (!q->stop && q->head != NULL &&
	       q->bytes + it->bytes > QUEUE_BYTES)
		pthread_cond_wait(&q->cond, &q->lock);
	ok = !q->stop;
	if (ok) {
		if (q->tail != NULL)
			q->tail->next = it;
		else
			q->head = it;
		q->tail = it;
		q->bytes += it->bytes;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	if (!ok)
		free(it);
	return ok;
}

/* The next item in order, or NULL once the walker ended and all are
 * taken. */
static item_t *pop(tree_queue_t *q)
{
	item_t *it;

	pthread_mutex_lock(&q->lock);
	while (q->head == NULL && !q->walked)
		pthread_cond_wait(&q->cond, &q->lock);
	it = q->head;
	if (it != NULL) {
		q->head = it->next;
		if (q->head == NULL)
			q->tail = NULL;
		q->bytes -= it->bytes;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	return it;
}

static void *walker(void *arg)
{
	tree_queue_t *q = arg;
	const sqfs_entry_t *ent;
	sqfs_data_run_t run;
	item_t *it;
	int ret;

	while ((ret = sqfs_dir_source_next(q->src, &ent)) == 0) {
		bool data = S_ISREG(ent->mode) && ent->hard_link == NULL;

		it = copy_entry(q->prefix, ent);
		if (it == NULL)
			goto oom;
		if (!push(q, it))
			goto out;
		if (!data)
			continue;
		while ((ret = sqfs_dir_source_read(q->src, &run)) == 0) {
			it = make_item(run.data == NULL ? ITEM_HOLE : ITEM_DATA,
				       &run);
			if (it == NULL)
				goto oom;
			if (!push(q, it))
				goto out;
		}
		if (ret < 0)
			break;
		it = make_item(ITEM_END_FILE, NULL);
		if (it == NULL)
			goto oom;
		if (!push(q, it))
			goto out;
	}
	pthread_mutex_lock(&q->lock);
	if (ret < 0) {
		q->walk_ret = ret;
		snprintf(q->why, sizeof(q->why), "%s",
			 sqfs_dir_source_error(q->src));
	}
	goto done;
oom:
	pthread_mutex_lock(&q->lock);
	q->walk_ret = SQFS_ERROR_ALLOC;
	snprintf(q->why, sizeof(q->why), "out of memory");
	goto done;
out:
	pthread_mutex_lock(&q->lock);
done:
	q->walked = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* The words of a writer failure on path. */
static void writer_words(char *why, const char *path, sqfs_writer_t *wr)
{
	snprintf(why, SQFS_ERROR_TEXT_SIZE, "'%s': %s", path,
		 sqfs_writer_error(wr));
}

/* Feed the writer what the walker queues, in order. */
static int feed(sqfs_writer_t *wr, tree_queue_t *q, char *why)
{
	/* the entry of the regular file being appended to, kept to name it
	 * in errors */
	item_t *file = NULL;
	item_t *it;
	int ret = 0;

	while (ret == 0 && (it = pop(q)) != NULL) {
		switch (it->kind) {
		case ITEM_ENTRY:
			ret = sqfs_writer_add(wr, &it->entry, 0);
			if (ret != 0) {
				writer_words(why, it->entry.path, wr);
			} else if (S_ISREG(it->entry.mode) &&
				   it->entry.hard_link == NULL) {
				free(file);
				file = it;
				continue;
			}
			break;
		case ITEM_DATA:
			ret = sqfs_writer_append(wr, it->payload,
						 (size_t)it->size);
			break;
		case ITEM_HOLE:
			ret = sqfs_writer_append_hole(wr, it->size);
			break;
		case ITEM_END_FILE:
			ret = sqfs_writer_end_file(wr);
			break;
		}
		if (ret != 0 && it->kind != ITEM_ENTRY)
			writer_words(why, file != NULL ? file->entry.path : "",
				     wr);
		free(it);
	}
	free(file);
	return ret;
}

int sqfs_py_copy_tree(sqfs_writer_t *wr, const char *dir, const char *prefix,
		      uint32_t flags, void (*warn)(void *, const char *),
		      void *user, char *why)
{
	sqfs_dir_source_options_t opt;
	tree_queue_t q;
	pthread_t thread;
	item_t *it;
	int ret;

	memset(&q, 0, sizeof(q));
	sqfs_dir_source_options_init(&opt);
	opt.flags = flags;
	opt.warn = warn;
	opt.user = user;
	ret = sqfs_dir_source_create(dir, &opt, &q.src, why);
	if (ret != 0)
		return ret;
	q.prefix = prefix;
	pthread_mutex_init(&q.lock, NULL);
	pthread_cond_init(&q.cond, NULL);

	if (pthread_create(&thread, NULL, walker, &q) != 0) {
		ret = SQFS_ERROR_ALLOC;
		snprintf(why, SQFS_ERROR_TEXT_SIZE,
			 "no thread for the walk of the tree");
		goto out;
	}
	ret = feed(wr, &q, why);
	if (ret != 0) {
		pthread_mutex_lock(&q.lock);
		q.stop = true;
		pthread_cond_broadcast(&q.cond);
		pthread_mutex_unlock(&q.lock);
	}
	pthread_join(thread, NULL);
	if (ret == 0 && q.walk_ret != 0) {
		ret = q.walk_ret;
		snprintf(why, SQFS_ERROR_TEXT_SIZE, "%s", q.why);
	}
out:
	while ((it = q.head) != NULL) {
		q.head = it->next;
		free(it);
	}
	pthread_mutex_destroy(&q.lock);
	pthread_cond_destroy(&q.cond);
	sqfs_dir_source_destroy(q.src);
	return ret;
}

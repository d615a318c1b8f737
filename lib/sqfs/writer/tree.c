/* SPDX-License-Identifier: MIT */
/*
 * tree.c - the writer's entry tree: node pool, name arena, the
 * (parent, name) hash map, and path handling (see internal.h).
 */
#include "config.h"

#include "sqfs/writer/internal.h"
#include "path_internal.h"

#include <stdlib.h>
#include <string.h>

/* Names are short: blocks of this size waste little and cost one malloc
 * per few thousand entries. Larger strings get a block of their own. */
#define ARENA_BLOCK 65536u

char *wr_arena_strndup(wr_arena_t *a, const char *s, size_t size)
{
	wr_arena_block_t *blk = a->head;
	size_t need = size + 1;
	char *out;

	if (need == 0)
		return NULL;

	if (blk == NULL || blk->size - blk->used < need) {
		size_t bsize = need > ARENA_BLOCK / 4 ? need : ARENA_BLOCK;

		if (bsize > SIZE_MAX - sizeof(*blk))
			return NULL;
		blk = malloc(sizeof(*blk) + bsize);
		if (blk == NULL)
			return NULL;
		blk->size = bsize;
		blk->used = 0;
		a->allocated += sizeof(*blk) + bsize;

		if (bsize != ARENA_BLOCK && a->head != NULL) {
			/* A big string must not retire the current block. */
			blk->next = a->head->next;
			a->head->next = blk;
		} else {
			blk->next = a->head;
			a->head = blk;
		}
	}

	out = blk->data + blk->used;
	blk->used += need;
	memcpy(out, s, size);
	out[size] = '\0';
	return out;
}

static void arena_cleanup(wr_arena_t *a)
{
	while (a->head != NULL) {
		wr_arena_block_t *next = a->head->next;

		free(a->head);
		a->head = next;
	}
	a->allocated = 0;
}

static uint32_t hash_name(uint32_t parent, const char *name, size_t len)
{
	/* FNV-1a, then a murmur3 finaliser so that the low bits used as the
	 * bucket index depend on every byte. */
	uint64_t h = 0xcbf29ce484222325ull ^ parent;

	for (size_t i = 0; i < len; ++i) {
		h ^= (uint8_t)name[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static bool name_equal(const char *stored, const char *name, size_t len)
{
	/* strncmp stops at the stored name's terminator, so a shorter stored
	 * name at the end of an arena block is never read past */
	return strncmp(stored, name, len) == 0 && stored[len] == '\0';
}

int wr_tree_new_node(wr_tree_t *t, uint32_t parent, const char *name,
		     size_t len, uint32_t *id)
{
	wr_node_t *n;
	char *copy;

	if (t->node_count >= NODE_MAX_COUNT)
		return SQFS_ERROR_LIMIT;

	if ((t->node_count >> NODE_CHUNK_SHIFT) >= t->chunk_count) {
		size_t count = t->chunk_count ? t->chunk_count * 2 : 16;
		wr_node_t **chunks;

		chunks = realloc(t->chunks, count * sizeof(chunks[0]));
		if (chunks == NULL)
			return SQFS_ERROR_ALLOC;
		memset(chunks + t->chunk_count, 0,
		       (count - t->chunk_count) * sizeof(chunks[0]));
		t->chunks = chunks;
		t->chunk_count = count;
	}

	if (t->chunks[t->node_count >> NODE_CHUNK_SHIFT] == NULL) {
		wr_node_t *chunk = malloc(NODE_CHUNK * sizeof(chunk[0]));

		if (chunk == NULL)
			return SQFS_ERROR_ALLOC;
		t->chunks[t->node_count >> NODE_CHUNK_SHIFT] = chunk;
	}

	copy = wr_arena_strndup(&t->arena, name, len);
	if (copy == NULL)
		return SQFS_ERROR_ALLOC;

	n = wr_node(t, t->node_count);
	memset(n, 0, sizeof(*n));
	n->name = copy;
	n->parent = parent;
	n->hash_next = NODE_NIL;
	n->xattr = 0xFFFFFFFFu;
	*id = t->node_count++;
	return 0;
}

int wr_tree_new_file_data(wr_tree_t *t, file_data_t **out)
{
	size_t chunk = t->file_count / FILE_CHUNK;
	file_data_t *fd;

	if (chunk >= t->file_chunk_count) {
		size_t count =
		    t->file_chunk_count ? t->file_chunk_count * 2 : 16;
		file_data_t **chunks;

		if (count > SIZE_MAX / sizeof(chunks[0]))
			return SQFS_ERROR_ALLOC;
		chunks = realloc(t->file_chunks, count * sizeof(chunks[0]));
		if (chunks == NULL)
			return SQFS_ERROR_ALLOC;
		memset(chunks + t->file_chunk_count, 0,
		       (count - t->file_chunk_count) * sizeof(chunks[0]));
		t->file_chunks = chunks;
		t->file_chunk_count = count;
	}

	if (t->file_chunks[chunk] == NULL) {
		t->file_chunks[chunk] = calloc(FILE_CHUNK, sizeof(*fd));
		if (t->file_chunks[chunk] == NULL)
			return SQFS_ERROR_ALLOC;
	}

	fd = &t->file_chunks[chunk][t->file_count % FILE_CHUNK];
	memset(fd, 0, sizeof(*fd));
	fd->fragment_index = 0xFFFFFFFFu;
	t->file_count += 1;
	*out = fd;
	return 0;
}

uint32_t wr_tree_lookup(const wr_tree_t *t, uint32_t parent, const char *name,
			size_t len)
{
	uint32_t id = t->buckets[hash_name(parent, name, len) & t->bucket_mask];

	while (id != NODE_NIL) {
		const wr_node_t *n = wr_node(t, id);

		if (n->parent == parent && name_equal(n->name, name, len))
			return id;
		id = n->hash_next;
	}
	return NODE_NIL;
}

static int grow_buckets(wr_tree_t *t)
{
	uint32_t count = (t->bucket_mask + 1u) * 2u;
	uint32_t *buckets;

	if (count == 0)
		return 0; /* keep the chains longer rather than fail */

	buckets = malloc(count * sizeof(buckets[0]));
	if (buckets == NULL)
		return SQFS_ERROR_ALLOC;
	memset(buckets, 0xFF, count * sizeof(buckets[0]));

	/* Rehash by walking the old chains: only hashed nodes are on them. */
	for (uint32_t b = 0; b <= t->bucket_mask; ++b) {
		uint32_t id = t->buckets[b];

		while (id != NODE_NIL) {
			wr_node_t *n = wr_node(t, id);
			uint32_t next = n->hash_next;
			uint32_t h =
			    hash_name(n->parent, n->name, strlen(n->name)) &
			    (count - 1u);

			n->hash_next = buckets[h];
			buckets[h] = id;
			id = next;
		}
	}

	free(t->buckets);
	t->buckets = buckets;
	t->bucket_mask = count - 1u;
	return 0;
}

int wr_tree_insert(wr_tree_t *t, uint32_t id)
{
	wr_node_t *n = wr_node(t, id);
	uint32_t h;

	if (t->hashed > t->bucket_mask) {
		int ret = grow_buckets(t);

		if (ret != 0)
			return ret;
	}

	h = hash_name(n->parent, n->name, strlen(n->name)) & t->bucket_mask;
	n->hash_next = t->buckets[h];
	t->buckets[h] = id;
	t->hashed += 1;
	return 0;
}

void wr_tree_remove(wr_tree_t *t, uint32_t id)
{
	wr_node_t *n = wr_node(t, id);
	uint32_t h =
	    hash_name(n->parent, n->name, strlen(n->name)) & t->bucket_mask;
	uint32_t *link = &t->buckets[h];

	while (*link != NODE_NIL) {
		if (*link == id) {
			*link = n->hash_next;
			t->hashed -= 1;
			break;
		}
		link = &wr_node(t, *link)->hash_next;
	}

	n->hash_next = NODE_NIL;
	n->flags |= NODE_REMOVED;
}

void wr_tree_mark_dead(wr_tree_t *t)
{
	/* Parents precede their children in the pool. */
	for (uint32_t id = 0; id < t->node_count; ++id) {
		wr_node_t *n = wr_node(t, id);

		if ((n->flags & NODE_REMOVED) ||
		    (id != NODE_ROOT &&
		     (wr_node(t, n->parent)->flags & NODE_DEAD))) {
			n->flags |= NODE_DEAD;
		}
	}
}

int wr_path_next(const char **path, const char **comp, size_t *len)
{
	*len = path_next(path, comp);
	if (*len == 0)
		return 0;
	/* ".." and names longer than the format's are refused */
	return sqfs_name_is_valid(*comp, *len) ? 1 : SQFS_ERROR_ARG_INVALID;
}

int wr_path_check(const char *path, size_t *depth)
{
	const char *comp;
	size_t len;
	int ret;

	if (path == NULL)
		return SQFS_ERROR_ARG_INVALID;

	*depth = 0;
	while ((ret = wr_path_next(&path, &comp, &len)) > 0)
		*depth += 1;
	return ret;
}

int wr_path_canonical(const char *path, char **out)
{
	const char *p = path, *comp;
	size_t total = 0, len, pos = 0;
	char *buf;
	int ret;

	while ((ret = wr_path_next(&p, &comp, &len)) > 0)
		total += len + 1;
	if (ret < 0)
		return ret;

	buf = malloc(total + 1);
	if (buf == NULL)
		return SQFS_ERROR_ALLOC;

	p = path;
	while (wr_path_next(&p, &comp, &len) > 0) {
		if (pos > 0)
			buf[pos++] = '/';
		memcpy(buf + pos, comp, len);
		pos += len;
	}

	buf[pos] = '\0';
	*out = buf;
	return 0;
}

uint32_t wr_tree_find(const wr_tree_t *t, const char *path)
{
	uint32_t id = NODE_ROOT;
	const char *comp;
	size_t len;

	while (wr_path_next(&path, &comp, &len) > 0) {
		if (!wr_node_is_dir(wr_node(t, id)))
			return NODE_NIL;
		id = wr_tree_lookup(t, id, comp, len);
		if (id == NODE_NIL)
			return NODE_NIL;
	}
	return id;
}

char *wr_tree_node_path(const wr_tree_t *t, uint32_t id)
{
	size_t total = 0, pos;
	char *buf;

	for (uint32_t i = id; i != NODE_ROOT; i = wr_node(t, i)->parent)
		total += strlen(wr_node(t, i)->name) + 1;

	buf = malloc(total + 1);
	if (buf == NULL)
		return NULL;

	/* Fill from the end: the walk goes from the node up. */
	pos = total > 0 ? total - 1 : 0;
	buf[pos] = '\0';
	for (uint32_t i = id; i != NODE_ROOT; i = wr_node(t, i)->parent) {
		const char *name = wr_node(t, i)->name;
		size_t len = strlen(name);

		pos -= len;
		memcpy(buf + pos, name, len);
		if (pos > 0)
			buf[--pos] = '/';
	}
	return buf;
}

char *wr_entry_path(const wr_tree_t *t, uint32_t parent, const char *name)
{
	char *dir = wr_tree_node_path(t, parent), *out;
	size_t dlen, nlen = strlen(name);

	if (dir == NULL)
		return NULL;
	dlen = strlen(dir);
	out = malloc(dlen + 1 + nlen + 1);
	if (out != NULL) {
		memcpy(out, dir, dlen);
		if (dlen > 0)
			out[dlen++] = '/';
		memcpy(out + dlen, name, nlen + 1);
	}
	free(dir);
	return out;
}

size_t wr_tree_memory(const wr_tree_t *t)
{
	size_t bytes = t->chunk_count * sizeof(t->chunks[0]);

	for (size_t i = 0; i < t->chunk_count; ++i) {
		if (t->chunks[i] != NULL)
			bytes += NODE_CHUNK * sizeof(wr_node_t);
	}

	bytes += t->file_chunk_count * sizeof(t->file_chunks[0]);
	for (size_t i = 0; i < t->file_chunk_count; ++i) {
		if (t->file_chunks[i] != NULL)
			bytes += FILE_CHUNK * sizeof(file_data_t);
	}

	bytes += ((size_t)t->bucket_mask + 1u) * sizeof(t->buckets[0]);
	return bytes;
}

int wr_tree_init(wr_tree_t *t)
{
	uint32_t root;
	int ret;

	memset(t, 0, sizeof(*t));

	t->bucket_mask = 255;
	t->buckets = malloc((t->bucket_mask + 1u) * sizeof(t->buckets[0]));
	if (t->buckets == NULL)
		return SQFS_ERROR_ALLOC;
	memset(t->buckets, 0xFF, (t->bucket_mask + 1u) * sizeof(t->buckets[0]));

	ret = wr_tree_new_node(t, NODE_ROOT, "", 0, &root);
	if (ret != 0) {
		wr_tree_cleanup(t);
		return ret;
	}
	wr_node(t, root)->mode = S_IFDIR;
	return 0;
}

void wr_tree_cleanup(wr_tree_t *t)
{
	for (size_t i = 0; i < t->file_count; ++i)
		file_data_cleanup(
		    &t->file_chunks[i / FILE_CHUNK][i % FILE_CHUNK]);
	for (size_t i = 0; i < t->file_chunk_count; ++i)
		free(t->file_chunks[i]);
	free(t->file_chunks);

	for (size_t i = 0; i < t->chunk_count; ++i)
		free(t->chunks[i]);
	free(t->chunks);

	free(t->buckets);
	arena_cleanup(&t->arena);
	memset(t, 0, sizeof(*t));
}

/* SPDX-License-Identifier: MIT */
/*
 * walker.c - depth-first walk over a directory tree, safe against loops,
 * directory hard links and unbounded nesting.
 *
 * All levels share one directory reader: a level keeps only the saved
 * state of its listing (a few hundred bytes), not its entries, so memory
 * does not grow with the size of a listing.
 *
 * To report a second sighting of an inode as a link to where it was first
 * seen, without keeping every path, each inode seen gets a fixed-size node:
 * where its entry lies in the directory table and the node of the directory
 * that holds it. A first path is spelled out only when a second sighting
 * asks for it, by reading the names on its chain of parents again, and is
 * then kept for the next sighting. Nodes are kept for every inode, not only
 * for those whose link count says they are shared, because the link count
 * is advisory: a basic file inode stores none. So memory is one node and one
 * hash slot per inode (about 60 bytes), plus the paths of shared inodes.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/walker.h"

#include "dir_reader_internal.h"
#include "image_internal.h"
#include "util/array.h"
#include "util/hash_table.h"

#include <stdlib.h>
#include <string.h>

/* The image's error text, where the walker words its failures. */
#define ERR(w) image_errtext((w)->img)

typedef struct {
	/* Position of the entry that named the inode first (unused for the
	 * start of the walk, node 0). */
	uint64_t ent_block;
	uint64_t inode_ref;
	/* The node of the directory holding that entry. */
	uint32_t parent;
	uint16_t ent_offset;
	bool is_dir;
} node_t;

typedef struct {
	dir_state_t st;
	sqfs_inode_t *inode;
	/* Length of the directory's path in the path buffer. */
	size_t path_len;
	uint32_t node;
} level_t;

struct sqfs_walker {
	sqfs_image_t *img;
	sqfs_dir_reader_t *dr;
	unsigned int max_depth;
	unsigned int flags;

	array_t levels; /* level_t */
	/* The reader holds another listing than the top level's. */
	bool restore;
	bool started;
	bool done;
	/* A failure of the walk, handed out again with its words. */
	errtext_kept_t failure;

	/* The start until it is reported; the inode reported last (if not
	 * owned by a level); a directory reported for the last time. */
	sqfs_inode_t *start;
	sqfs_inode_t *cur;
	sqfs_inode_t *post;

	array_t path;  /* char, NUL terminated */
	array_t nodes; /* node_t */
	/* inode number -> node */
	hash_table_t seen;
	/* node -> offset in pool of the node's path, once spelled out */
	hash_table_t link_paths;
	array_t pool; /* char */
	char name[SQFS_NAME_MAX + 1];
};

static bool is_dir(const sqfs_inode_t *inode)
{
	return inode->type == SQFS_INODE_DIR ||
	       inode->type == SQFS_INODE_EXT_DIR;
}

static level_t *top_level(sqfs_walker_t *w)
{
	return (level_t *)w->levels.data + (w->levels.count - 1);
}

static node_t *get_node(sqfs_walker_t *w, uint64_t id)
{
	return (node_t *)w->nodes.data + id;
}

/* Cut the path to len bytes. */
static void path_cut(sqfs_walker_t *w, size_t len)
{
	w->path.count = len;
	((char *)w->path.data)[len] = '\0';
}

/* Cut the path to len bytes and append "/name" (or "name" to ""). */
static int path_push(sqfs_walker_t *w, size_t len, const char *name,
		     size_t name_len)
{
	char *p;
	int ret;

	w->path.count = len;
	ret = array_reserve(&w->path, 1, name_len + 2);
	if (ret != 0)
		return ret;
	p = (char *)w->path.data + len;
	if (len > 0)
		*(p++) = '/';
	memcpy(p, name, name_len);
	p[name_len] = '\0';
	w->path.count = (size_t)(p - (char *)w->path.data) + name_len;
	return 0;
}

static int add_node(sqfs_walker_t *w, uint32_t number, const node_t *node,
		    uint32_t *id)
{
	int ret;

	if (w->nodes.count >= UINT32_MAX)
		return SQFS_ERROR_OVERFLOW;
	ret = array_reserve(&w->nodes, sizeof(*node), 1);
	if (ret != 0)
		return ret;
	ret = hash_table_put(&w->seen, number, w->nodes.count);
	if (ret != 0)
		return ret;
	*id = (uint32_t)w->nodes.count;
	*get_node(w, w->nodes.count++) = *node;
	return 0;
}

/* Enter the directory inode, which the new level owns from now on. */
static int push_level(sqfs_walker_t *w, sqfs_inode_t *inode, uint32_t node)
{
	level_t *lvl;
	int ret;

	ret = array_reserve(&w->levels, sizeof(level_t), 1);
	if (ret != 0) {
		free(inode);
		return ret;
	}
	lvl = (level_t *)w->levels.data + w->levels.count++;
	memset(lvl, 0, sizeof(*lvl));
	lvl->inode = inode;
	lvl->path_len = w->path.count;
	lvl->node = node;
	w->restore = false;
	return sqfs_dir_reader_open(w->dr, inode);
}

/*
 * The path of node id: the names of its chain of parents read again from
 * their entries, joined. Kept in the pool for the next time.
 */
static int node_path(sqfs_walker_t *w, uint32_t id, const char **out)
{
	array_t chain = {0};
	uint64_t off;
	uint32_t n;
	size_t i, len, start = w->pool.count;
	int ret;

	if (hash_table_get(&w->link_paths, id, &off)) {
		*out = (const char *)w->pool.data + off;
		return 0;
	}

	/* parents are directories on a path of at most max_depth levels */
	for (n = id; n != 0; n = get_node(w, n)->parent) {
		ret = array_reserve(&chain, sizeof(uint32_t), 1);
		if (ret != 0)
			goto out;
		((uint32_t *)chain.data)[chain.count++] = n;
	}

	w->restore = true;
	for (i = chain.count; i-- > 0;) {
		const node_t *nd = get_node(w, ((uint32_t *)chain.data)[i]);

		ret = dir_reader_name_at(w->dr, nd->ent_block, nd->ent_offset,
					 w->name, &len);
		if (ret == 0 && w->pool.count > start)
			ret = array_append_bytes(&w->pool, "/", 1);
		if (ret == 0)
			ret = array_append_bytes(&w->pool, w->name, len);
		if (ret != 0)
			goto fail;
	}
	ret = array_append_bytes(&w->pool, "", 1);
	if (ret == 0)
		ret = hash_table_put(&w->link_paths, id, start);
	if (ret != 0)
		goto fail;
	*out = (const char *)w->pool.data + start;
	goto out;
fail:
	w->pool.count = start;
out:
	array_cleanup(&chain);
	return ret;
}

static int report_start(sqfs_walker_t *w, sqfs_walk_entry_t *ent)
{
	sqfs_inode_t *inode = w->start;
	node_t node = {0};
	uint32_t id;
	int ret;

	w->start = NULL;
	ent->path = w->path.data;
	ent->inode = inode;
	if (!is_dir(inode) || (w->flags & SQFS_WALK_START_ONLY)) {
		w->cur = inode;
		w->done = true;
		return 0;
	}
	node.inode_ref = UINT64_MAX;
	node.is_dir = true;
	ret = add_node(w, inode->inode_number, &node, &id);
	if (ret != 0) {
		free(inode);
		return ret;
	}
	return push_level(w, inode, id);
}

static int visit(sqfs_walker_t *w, const sqfs_dir_entry_t *dent,
		 sqfs_walk_entry_t *ent)
{
	level_t *top = top_level(w);
	uint32_t depth = (uint32_t)w->levels.count;
	sqfs_inode_t *inode;
	node_t node = {0};
	const node_t *first;
	uint64_t prev;
	size_t offset;
	uint32_t id;
	int ret;

	ret = path_push(w, top->path_len, dent->name, dent->name_len);
	if (ret != 0)
		return ret;
	if (depth > w->max_depth)
		return errtext_set(ERR(w), SQFS_ERROR_LIMIT,
				   "'%s': nested deeper than %u levels",
				   (const char *)w->path.data, w->max_depth);

	ret = sqfs_image_read_inode(w->img, dent->inode_ref, &inode);
	if (ret != 0)
		return errtext_wrap(ERR(w), ret, "'%s'",
				    (const char *)w->path.data);
	if (inode->inode_number != dent->inode_number) {
		ret = errtext_set(ERR(w), SQFS_ERROR_CORRUPTED,
				  "'%s': the listing says inode %u, the "
				  "inode says %u",
				  (const char *)w->path.data,
				  dent->inode_number, inode->inode_number);
		goto fail;
	}
	ent->path = w->path.data;
	ent->inode = inode;
	ent->depth = depth;

	if (hash_table_get(&w->seen, inode->inode_number, &prev)) {
		first = get_node(w, prev);
		/* a directory met twice is a loop or a directory hard link;
		 * two objects of one number are simply broken */
		if (is_dir(inode) && first->is_dir) {
			ret = errtext_set(ERR(w), SQFS_ERROR_LOOP,
					  "'%s': directory inode %u is "
					  "reached a second time (a loop "
					  "or a directory hard link)",
					  (const char *)w->path.data,
					  inode->inode_number);
			goto fail;
		}
		if (is_dir(inode) || first->is_dir ||
		    first->inode_ref != dent->inode_ref) {
			ret = errtext_set(ERR(w), SQFS_ERROR_CORRUPTED,
					  "'%s': inode number %u belongs "
					  "to two different inodes",
					  (const char *)w->path.data,
					  inode->inode_number);
			goto fail;
		}
		/* the reader moves while the first path is spelled out */
		dir_reader_save(w->dr, &top->st);
		ret = node_path(w, (uint32_t)prev, &ent->link_target);
		if (ret != 0)
			goto fail;
		w->cur = inode;
		return 0;
	}

	dir_reader_entry_pos(w->dr, &node.ent_block, &offset);
	node.ent_offset = (uint16_t)offset;
	node.inode_ref = dent->inode_ref;
	node.parent = top->node;
	node.is_dir = is_dir(inode);
	ret = add_node(w, inode->inode_number, &node, &id);
	if (ret != 0)
		goto fail;

	if (!node.is_dir || (w->flags & SQFS_WALK_ONE_LEVEL)) {
		w->cur = inode;
		return 0;
	}
	dir_reader_save(w->dr, &top->st);
	return push_level(w, inode, id);
fail:
	free(inode);
	return ret;
}

/* Words for a failure in the listing of the directory at the path. */
static int listing_failed(sqfs_walker_t *w, int ret)
{
	const char *path = w->path.data;

	if (path[0] == '\0')
		return errtext_wrap(ERR(w), ret, "the start directory");
	return errtext_wrap(ERR(w), ret, "'%s'", path);
}

/* The next step of the walk; 1 at the end. */
static int step(sqfs_walker_t *w, sqfs_walk_entry_t *ent)
{
	sqfs_dir_entry_t dent;
	level_t *top;
	int ret;

	if (!w->started) {
		w->started = true;
		return report_start(w, ent);
	}

	while (w->levels.count > 0) {
		top = top_level(w);
		if (w->restore) {
			ret = dir_reader_restore(w->dr, &top->st);
			if (ret != 0)
				return listing_failed(w, ret);
			w->restore = false;
		}
		ret = sqfs_dir_reader_next(w->dr, &dent);
		if (ret < 0)
			return listing_failed(w, ret);
		if (ret == 0)
			return visit(w, &dent, ent);

		/* the listing is done: leave the directory */
		w->levels.count -= 1;
		w->restore = true;
		path_cut(w, top->path_len);
		if (w->flags & SQFS_WALK_POST_DIRS) {
			w->post = top->inode;
			ent->path = w->path.data;
			ent->inode = top->inode;
			ent->depth = (uint32_t)w->levels.count;
			ent->post = true;
			return 0;
		}
		free(top->inode);
	}
	return 1;
}

int sqfs_walker_next(sqfs_walker_t *w, sqfs_walk_entry_t *ent)
{
	int ret;

	if (w == NULL || ent == NULL)
		return SQFS_ERROR_ARG_INVALID;
	errtext_begin(ERR(w));
	ret = errtext_repeat(ERR(w), &w->failure);
	if (ret != 0)
		return ret;
	if (w->done)
		return 1;

	free(w->cur);
	w->cur = NULL;
	free(w->post);
	w->post = NULL;
	if (w->levels.count > 0)
		path_cut(w, top_level(w)->path_len);

	memset(ent, 0, sizeof(*ent));
	ret = step(w, ent);
	if (ret < 0) {
		memset(ent, 0, sizeof(*ent));
		errtext_end(ERR(w), ret, NULL);
		errtext_keep(ERR(w), &w->failure, ret);
	} else if (ret > 0) {
		w->done = true;
	}
	return ret;
}

int sqfs_walker_create(sqfs_image_t *img, const char *path,
		       unsigned int max_depth, unsigned int flags,
		       sqfs_walker_t **out)
{
	const unsigned int known =
	    SQFS_WALK_POST_DIRS | SQFS_WALK_START_ONLY | SQFS_WALK_ONE_LEVEL;
	sqfs_walker_t *w;
	int ret;

	if (img == NULL || path == NULL || out == NULL || (flags & ~known) != 0)
		return SQFS_ERROR_ARG_INVALID;

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return SQFS_ERROR_ALLOC;
	w->img = img;
	w->max_depth = max_depth == 0 ? SQFS_WALK_DEFAULT_MAX_DEPTH : max_depth;
	w->flags = flags;
	hash_table_init(&w->seen);
	hash_table_init(&w->link_paths);

	ret = array_reserve(&w->path, 1, 1);
	if (ret != 0)
		goto fail;
	path_cut(w, 0);
	ret = sqfs_dir_reader_create(img, &w->dr);
	if (ret != 0)
		goto fail;
	ret = sqfs_dir_reader_resolve(w->dr, path, &w->start);
	if (ret != 0)
		goto fail;
	*out = w;
	return 0;
fail:
	sqfs_walker_destroy(w);
	return ret;
}

void sqfs_walker_destroy(sqfs_walker_t *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->levels.count; ++i)
		free(((level_t *)w->levels.data)[i].inode);
	array_cleanup(&w->levels);
	free(w->start);
	free(w->cur);
	free(w->post);
	array_cleanup(&w->path);
	array_cleanup(&w->nodes);
	array_cleanup(&w->pool);
	hash_table_cleanup(&w->seen);
	hash_table_cleanup(&w->link_paths);
	sqfs_dir_reader_destroy(w->dr);
	free(w);
}

/* SPDX-License-Identifier: MIT */
/*
 * walker.c - depth-first walk over a directory tree, safe against loops,
 * directory hard links and unbounded nesting.
 *
 * All levels share one directory reader: a level keeps only the saved
 * state of its listing (a few hundred bytes), not its entries, so memory
 * does not grow with the size of a listing.
 *
 * An inode met again must be recognised: a directory (a loop, or a
 * directory hard link) ends the walk, anything else is a hard link to
 * where it was first seen. Two bits per inode number, in a bit array
 * whose pages are allocated on first use, say "seen" and "seen as a
 * directory": a quarter of a byte per inode, 24 MiB for 10^8 inodes, and
 * the only memory that grows with the image rather than with its depth.
 *
 * A hard link's report needs the first path of its inode, which cannot be
 * kept for every inode. The link count says which inodes have more names
 * to come: their first paths are kept until the last name was met (link
 * groups, exact). But writers get the count wrong for what is not a
 * regular file (squashfs-tools-ng 1.2 gives a hard-linked FIFO a count of
 * 1), so the first paths of inodes met with a count of 1 (and of groups
 * just closed) go into a table of the RECENT_SLOTS inodes met last, by
 * number, where the second name of such an inode, usually close to the
 * first, finds it. An inode met again that is in neither is reported as
 * an entry of its own, without a link: what a copy of a kernel mount
 * (which trusts the count) makes of it too. Two inodes with one number
 * are refused wherever the walker can tell.
 */
#include "config.h"

#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/walker.h"

#include "dir_reader_internal.h"
#include "image_internal.h"
#include "util/array.h"
#include "util/hash_table.h"
#include "util/sparse_bits.h"

#include <stdlib.h>
#include <string.h>

/* The image's error text, where the walker words its failures. */
#define ERR(w) image_errtext((w)->img)

/* An inode with more names than met so far: its first path, where it is,
 * and how many names are still to come. */
typedef struct {
	char *path;
	uint64_t inode_ref;
	uint32_t left;
	/* The next free record (while this one is free). */
	uint32_t next_free;
} link_t;

/* The two bits of inode number n in the seen array. */
#define SEEN_BIT(n) (2 * (uint64_t)(n))
#define DIR_BIT(n) (2 * (uint64_t)(n) + 1)
#define NO_LINK UINT32_MAX

/* The recent table: slots by number, and the longest path kept there (so
 * that it holds 2 MiB of paths at most). */
#define RECENT_SLOTS 4096u
#define RECENT_MAX_PATH 512u

typedef struct {
	/* NULL: an empty slot */
	char *path;
	uint64_t inode_ref;
	uint32_t number;
} recent_t;

typedef struct {
	dir_state_t st;
	sqfs_inode_t *inode;
	/* Length of the directory's path in the path buffer. */
	size_t path_len;
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

	array_t path; /* char, NUL terminated */
	/* SEEN_BIT and DIR_BIT of every inode number met */
	sparse_bits_t seen;
	/* inode number -> index in links, for inodes with names to come */
	hash_table_t open_links;
	array_t links; /* link_t */
	uint32_t free_link;
	/* first paths of inodes met lately with no names announced to
	 * come (RECENT_SLOTS, allocated when first needed) */
	recent_t *recent;
	/* a path too long for the recent table, reported as a link target
	 * last: freed by the next call */
	char *spent_path;
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

static link_t *get_link(sqfs_walker_t *w, uint64_t index)
{
	return (link_t *)w->links.data + index;
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

/* Note that inode number (a directory or not) has been met. */
static int mark_seen(sqfs_walker_t *w, uint32_t number, bool dir)
{
	int ret = sparse_bits_set(&w->seen, SEEN_BIT(number));

	if (ret == 0 && dir)
		ret = sparse_bits_set(&w->seen, DIR_BIT(number));
	return ret;
}

/* Keep the current path as the first name of an inode with left more
 * names to come. */
static int open_link(sqfs_walker_t *w, uint32_t number, uint64_t ref,
		     uint32_t left)
{
	char *path = strdup(w->path.data);
	uint64_t index;
	link_t *l;
	int ret;

	if (path == NULL)
		return SQFS_ERROR_ALLOC;
	if (w->free_link != NO_LINK) {
		index = w->free_link;
		w->free_link = get_link(w, index)->next_free;
	} else {
		ret = w->links.count >= NO_LINK
			  ? SQFS_ERROR_OVERFLOW
			  : array_reserve(&w->links, sizeof(link_t), 1);
		if (ret != 0) {
			free(path);
			return ret;
		}
		index = w->links.count++;
	}
	ret = hash_table_put(&w->open_links, number, index);
	l = get_link(w, index);
	if (ret != 0) {
		free(path);
		l->next_free = w->free_link;
		w->free_link = (uint32_t)index;
		return ret;
	}
	l->path = path;
	l->inode_ref = ref;
	l->left = left;
	return 0;
}

/* Put path (taken over) into the recent table as the first path of
 * number at ref; a path too long for it is freed by the next call. */
static int remember(sqfs_walker_t *w, uint32_t number, uint64_t ref, char *path)
{
	recent_t *r;

	if (strlen(path) > RECENT_MAX_PATH) {
		free(w->spent_path);
		w->spent_path = path;
		return 0;
	}
	if (w->recent == NULL) {
		w->recent = calloc(RECENT_SLOTS, sizeof(w->recent[0]));
		if (w->recent == NULL) {
			free(path);
			return SQFS_ERROR_ALLOC;
		}
	}
	r = &w->recent[number % RECENT_SLOTS];
	free(r->path);
	r->path = path;
	r->inode_ref = ref;
	r->number = number;
	return 0;
}

/* The recent table's slot of number, if it holds number. */
static recent_t *recent_of(sqfs_walker_t *w, uint32_t number)
{
	recent_t *r;

	if (w->recent == NULL)
		return NULL;
	r = &w->recent[number % RECENT_SLOTS];
	return r->path != NULL && r->number == number ? r : NULL;
}

/* One more name of the link group at index met: its first path, for the
 * entry (valid until the next call). After its last name, the group is
 * closed and its path goes to the recent table, for a name more than the
 * count announced. */
static int use_link(sqfs_walker_t *w, uint32_t number, uint64_t index,
		    const char **target)
{
	link_t *l = get_link(w, index);
	char *path = l->path;

	*target = path;
	if (--l->left > 0)
		return 0;
	hash_table_remove(&w->open_links, number);
	l->path = NULL;
	l->next_free = w->free_link;
	w->free_link = (uint32_t)index;
	return remember(w, number, l->inode_ref, path);
}

/* Enter the directory inode, which the new level owns from now on. */
static int push_level(sqfs_walker_t *w, sqfs_inode_t *inode)
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
	w->restore = false;
	return sqfs_dir_reader_open(w->dr, inode);
}

static int report_start(sqfs_walker_t *w, sqfs_walk_entry_t *ent)
{
	sqfs_inode_t *inode = w->start;
	int ret;

	w->start = NULL;
	ent->path = w->path.data;
	ent->inode = inode;
	if (!is_dir(inode) || (w->flags & SQFS_WALK_START_ONLY)) {
		w->cur = inode;
		w->done = true;
		return 0;
	}
	ret = mark_seen(w, inode->inode_number, true);
	if (ret != 0) {
		free(inode);
		return ret;
	}
	return push_level(w, inode);
}

/* An inode met again: a directory is a loop or a directory hard link;
 * two inodes claiming one number are refused where that shows; else the
 * first path, if it is known, goes to *link_target. */
static int met_again(sqfs_walker_t *w, const sqfs_dir_entry_t *dent,
		     const sqfs_inode_t *inode, const char **link_target)
{
	const char *path = w->path.data;
	uint32_t number = inode->inode_number;
	bool first_dir = sparse_bits_get(&w->seen, DIR_BIT(number));
	uint64_t index, ref = dent->inode_ref;
	recent_t *r = recent_of(w, number);
	bool open = hash_table_get(&w->open_links, number, &index);

	if (is_dir(inode) && first_dir)
		return errtext_set(ERR(w), SQFS_ERROR_LOOP,
				   "'%s': directory inode %u is reached a "
				   "second time (a loop or a directory hard "
				   "link)",
				   path, number);
	if (is_dir(inode) || first_dir ||
	    (open && get_link(w, index)->inode_ref != ref) ||
	    (r != NULL && r->inode_ref != ref))
		return errtext_set(ERR(w), SQFS_ERROR_CORRUPTED,
				   "'%s': inode number %u belongs to two "
				   "different inodes",
				   path, number);
	if (open)
		return use_link(w, number, index, link_target);
	if (r != NULL)
		*link_target = r->path;
	return 0;
}

static int visit(sqfs_walker_t *w, const sqfs_dir_entry_t *dent,
		 sqfs_walk_entry_t *ent)
{
	level_t *top = top_level(w);
	uint32_t depth = (uint32_t)w->levels.count;
	sqfs_inode_t *inode;
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

	if (sparse_bits_get(&w->seen, SEEN_BIT(inode->inode_number))) {
		ret = met_again(w, dent, inode, &ent->link_target);
		if (ret != 0)
			goto fail;
		w->cur = inode;
		return 0;
	}

	ret = mark_seen(w, inode->inode_number, is_dir(inode));
	if (ret == 0 && !is_dir(inode) && inode->nlink > 1) {
		ret = open_link(w, inode->inode_number, dent->inode_ref,
				inode->nlink - 1);
	} else if (ret == 0 && !is_dir(inode)) {
		char *copy = strdup(w->path.data);

		ret = copy == NULL ? SQFS_ERROR_ALLOC
				   : remember(w, inode->inode_number,
					      dent->inode_ref, copy);
	}
	if (ret != 0)
		goto fail;

	if (!is_dir(inode) || (w->flags & SQFS_WALK_ONE_LEVEL)) {
		w->cur = inode;
		return 0;
	}
	dir_reader_save(w->dr, &top->st);
	return push_level(w, inode);
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
	free(w->spent_path);
	w->spent_path = NULL;
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
	w->free_link = NO_LINK;
	hash_table_init(&w->open_links);

	ret = sparse_bits_init(
	    &w->seen, 2 * ((uint64_t)sqfs_image_super(img)->inode_count + 1));
	if (ret == 0)
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
	for (i = 0; i < w->links.count; ++i)
		free(get_link(w, i)->path);
	array_cleanup(&w->links);
	for (i = 0; w->recent != NULL && i < RECENT_SLOTS; ++i)
		free(w->recent[i].path);
	free(w->recent);
	free(w->spent_path);
	sparse_bits_cleanup(&w->seen);
	hash_table_cleanup(&w->open_links);
	sqfs_dir_reader_destroy(w->dr);
	free(w);
}

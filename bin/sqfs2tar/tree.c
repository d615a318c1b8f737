/* SPDX-License-Identifier: MIT */
/*
 * tree.c - which parts of the image go into the archive, under which
 * names (--subdir, --keep-as-dir, --root-becomes).
 *
 * Entries are queued (queue.c) and written a little later; before a
 * failure to walk the image is reported, everything queued before it is
 * written, so the archive ends where it would without the queue.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/walker.h"
#include "tar/path.h"

#include <stdlib.h>
#include <string.h>

char *s2t_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *out;

	if (la == 0)
		return strdup(b);
	if (lb == 0)
		return strdup(a);
	out = malloc(la + lb + 2);
	if (out == NULL)
		return NULL;
	memcpy(out, a, la);
	out[la] = '/';
	memcpy(out + la + 1, b, lb + 1);
	return out;
}

/* How messages name an entry: its absolute path in the image. */
static char *image_name(const char *sub, const char *rel)
{
	char *path = s2t_join(sub, rel), *out;

	if (path == NULL)
		return NULL;
	out = malloc(strlen(path) + 2);
	if (out != NULL) {
		out[0] = '/';
		strcpy(out + 1, path);
	}
	free(path);
	return out;
}

static int out_of_memory(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* One walker entry under prefix (the archive name of the walk's start). */
static int write_walked(sqfs2tar_t *s, const char *sub, const char *prefix,
			const sqfs_walk_entry_t *ent)
{
	char *name = NULL, *link = NULL, *what = NULL;

	name = s2t_join(prefix, ent->path);
	what = image_name(sub, ent->path);
	if (ent->link_target != NULL)
		link = s2t_join(prefix, ent->link_target);
	if (name == NULL || what == NULL ||
	    (ent->link_target != NULL && link == NULL)) {
		out_of_memory();
		free(name);
		free(link);
		free(what);
		return -1;
	}
	return s2t_queue_entry(s, name, ent->inode, link, what);
}

/*
 * Everything below the image directory sub, its names starting with
 * prefix; the directory sub itself too (as prefix) if emit_start.
 */
static int write_subtree(sqfs2tar_t *s, const char *sub, const char *prefix,
			 bool emit_start)
{
	sqfs_walker_t *w = NULL;
	sqfs_walk_entry_t ent;
	int ret, status = -1;

	ret = sqfs_walker_create(s->img, sub, 0, 0, &w);
	if (ret != 0) {
		if (s2t_flush(s) != 0)
			return -1;
		tool_error(s->opt->image, "%s", sqfs_image_error(s->img));
		return -1;
	}
	for (;;) {
		ret = sqfs_walker_next(w, &ent);
		if (ret == 1)
			break;
		if (ret != 0) {
			if (s2t_flush(s) != 0)
				goto out;
			tool_error(s->opt->image, "%s",
				   sqfs_image_error(s->img));
			goto out;
		}
		if (ent.path[0] == '\0' && !emit_start)
			continue;
		if (write_walked(s, sub, prefix, &ent) != 0)
			goto out;
	}
	status = 0;
out:
	sqfs_walker_destroy(w);
	return status;
}

static int resolve(sqfs2tar_t *s, const char *path, sqfs_inode_t **out)
{
	int ret = sqfs_dir_reader_resolve(s->dr, path, out);

	if (ret != 0) {
		if (s2t_flush(s) != 0)
			return -1;
		tool_error(s->opt->image, "%s", sqfs_image_error(s->img));
		return -1;
	}
	return 0;
}

/* The image entry at path (or the root, for ""), written as name. */
static int write_one(sqfs2tar_t *s, const char *path, const char *name)
{
	sqfs_inode_t *inode = NULL;
	char *what = image_name(path, ""), *copy = strdup(name);
	int ret = -1;

	if (what == NULL || copy == NULL) {
		free(what);
		free(copy);
		return out_of_memory();
	}
	if (path[0] == '\0') {
		ret = sqfs_image_read_root(s->img, &inode);
		if (ret != 0) {
			if (s2t_flush(s) == 0)
				tool_error(s->opt->image, "%s",
					   sqfs_image_error(s->img));
			ret = -1;
		}
	} else {
		ret = resolve(s, path, &inode);
	}
	if (ret == 0) {
		ret = s2t_queue_entry(s, copy, inode, NULL, what);
	} else {
		free(what);
		free(copy);
	}
	free(inode);
	return ret;
}

/* The parents of sub that the previous --subdir (in tree order) did not
 * already bring, outermost first. */
static int write_parents(sqfs2tar_t *s, const char *sub, const char *prev,
			 const char *root)
{
	size_t len = strlen(sub);
	char *path = strdup(sub), *name;
	int ret = 0;

	if (path == NULL)
		return out_of_memory();
	for (size_t i = 0; i < len && ret == 0; ++i) {
		if (sub[i] != '/')
			continue;
		path[i] = '\0';
		if (prev == NULL || tar_path_below(prev, path) == NULL) {
			name = s2t_join(root, path);
			if (name == NULL)
				ret = out_of_memory();
			else
				ret = write_one(s, path, name);
			free(name);
		}
		path[i] = '/';
	}
	free(path);
	return ret;
}

static bool is_dir(const sqfs_inode_t *inode)
{
	return sqfs_inode_type_basic(inode->type) == SQFS_INODE_DIR;
}

/* Each --subdir under its own path (with its parents), after the root
 * if --root-becomes names it. */
static int write_kept(sqfs2tar_t *s, const char *root)
{
	const sqfs2tar_options_t *opt = s->opt;
	sqfs_inode_t *inode = NULL;
	const char *prev = NULL;
	char *prefix;
	int ret;

	if (root[0] != '\0' && write_one(s, "", root) != 0)
		return -1;

	for (size_t i = 0; i < opt->subdir_count; ++i) {
		const char *sub = opt->subdirs[i];

		if (resolve(s, sub, &inode) != 0)
			return -1;
		if (write_parents(s, sub, prev, root) != 0)
			goto fail;
		prefix = s2t_join(root, sub);
		if (prefix == NULL) {
			out_of_memory();
			goto fail;
		}
		if (is_dir(inode))
			ret = write_subtree(s, sub, prefix, true);
		else
			ret = write_one(s, sub, prefix);
		free(prefix);
		if (ret != 0)
			goto fail;
		free(inode);
		inode = NULL;
		prev = sub;
	}
	return 0;
fail:
	free(inode);
	return -1;
}

static int queue_tree(sqfs2tar_t *s)
{
	const sqfs2tar_options_t *opt = s->opt;
	const char *root = opt->root_becomes != NULL ? opt->root_becomes : "";
	sqfs_inode_t *inode = NULL;
	bool dir;

	if (opt->subdir_count == 0)
		return write_subtree(s, "", root, root[0] != '\0');
	if (opt->keep_as_dir)
		return write_kept(s, root);

	/* a single --subdir becomes the root: it must be a directory */
	if (resolve(s, opt->subdirs[0], &inode) != 0)
		return -1;
	dir = is_dir(inode);
	free(inode);
	if (!dir) {
		tool_error(opt->subdirs[0], "not a directory, so it cannot "
					    "become the archive's root (see "
					    "--keep-as-dir)");
		return -1;
	}
	return write_subtree(s, opt->subdirs[0], root, root[0] != '\0');
}

int s2t_write_tree(sqfs2tar_t *s)
{
	if (queue_tree(s) != 0)
		return -1;
	return s2t_flush(s);
}

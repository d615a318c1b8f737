/* SPDX-License-Identifier: MIT */
/*
 * tree.c - which parts of the image go into the archive, under which
 * names (--subdir, --keep-as-dir, --root-becomes).
 *
 * Each part is an image source (sqfs/image_source.h) over a path of the
 * image, which unpacks the data of the next files while one is written,
 * and hands out the entries walked before a failure before the failure
 * itself, so the archive ends where it would without reading ahead.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "tar/path.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* ---- hard links across several --subdir parts -----------------------------
 *
 * The walker links the names of an inode within one part; across parts,
 * the name an inode was first written as is kept here, with the count of
 * its names still to come (its link count less those met, in any part),
 * and dropped after the last: what is kept is the link groups the
 * archive is in the middle of, not every multiply-linked inode.
 */

static s2t_link_t *known_link(sqfs2tar_t *s, const sqfs_entry_t *e)
{
	uint64_t value;

	if (!hash_table_get(&s->links, e->inode_number, &value))
		return NULL;
	return (s2t_link_t *)(uintptr_t)value;
}

static int remember_link(sqfs2tar_t *s, const sqfs_entry_t *e, const char *name)
{
	s2t_link_t *l = malloc(sizeof(*l));

	if (l == NULL || (l->name = strdup(name)) == NULL) {
		free(l);
		return out_of_memory();
	}
	l->left = e->nlink - 1;
	if (hash_table_put(&s->links, e->inode_number, (uintptr_t)l) != 0) {
		free(l->name);
		free(l);
		return out_of_memory();
	}
	return 0;
}

/* One more name of a kept group met; the group goes after its last. */
static void count_link(sqfs2tar_t *s, const sqfs_entry_t *e, s2t_link_t *l)
{
	if (--l->left > 0)
		return;
	hash_table_remove(&s->links, e->inode_number);
	free(l->name);
	free(l);
}

void s2t_forget_links(sqfs2tar_t *s)
{
	for (size_t i = 0; i < s->links.capacity; ++i) {
		if (s->links.used[i]) {
			s2t_link_t *l =
			    (s2t_link_t *)(uintptr_t)s->links.slots[i].value;

			free(l->name);
			free(l);
		}
	}
	hash_table_cleanup(&s->links);
}

/*
 * The archive path e is written as a hard link to, or NULL: never for
 * directories or with --no-hard-links; within a part, where the image
 * source says; across several --subdir parts, a multiply-linked inode met
 * again links to the name it was first written as. *link is malloc'd.
 */
static int choose_link(sqfs2tar_t *s, const sqfs_entry_t *e, const char *prefix,
		       const char *name, char **link)
{
	s2t_link_t *known = NULL;

	*link = NULL;
	if (s->opt->no_hard_links || (e->mode & S_IFMT) == S_IFDIR)
		return 0;
	if (s->track_links && e->nlink > 1)
		known = known_link(s, e);
	if (e->hard_link != NULL) {
		*link = s2t_join(prefix, e->hard_link);
		if (known != NULL)
			count_link(s, e, known);
		return *link == NULL ? out_of_memory() : 0;
	}
	if (!s->track_links || e->nlink <= 1)
		return 0;
	if (known == NULL)
		return remember_link(s, e, name);
	*link = strdup(known->name);
	count_link(s, e, known);
	return *link == NULL ? out_of_memory() : 0;
}

/* ---- parts ----------------------------------------------------------------
 */

static int image_failed(sqfs2tar_t *s)
{
	tool_error(s->opt->image, "%s", sqfs_image_error(s->img));
	return -1;
}

static int open_part(sqfs2tar_t *s, const char *sub, bool start_only)
{
	sqfs_image_source_options_t opt;

	sqfs_image_source_options_init(&opt);
	opt.num_jobs = s->opt->num_jobs;
	if (s->opt->no_xattr)
		opt.flags |= SQFS_SOURCE_NO_XATTRS;
	if (start_only)
		opt.flags |= SQFS_SOURCE_START_ONLY;
	if (sqfs_image_source_create(s->img, sub, &opt, &s->src) != 0)
		return image_failed(s);
	return 0;
}

static void close_part(sqfs2tar_t *s)
{
	sqfs_image_source_destroy(s->src);
	s->src = NULL;
}

/* One entry of the current part under prefix (the archive name of the
 * part's start). */
static int write_walked(sqfs2tar_t *s, const char *sub, const char *prefix,
			const sqfs_entry_t *e)
{
	char *name = s2t_join(prefix, e->path),
	     *what = image_name(sub, e->path);
	char *link = NULL;
	int ret = -1;

	if (name == NULL || what == NULL)
		out_of_memory();
	else if (choose_link(s, e, prefix, name, &link) == 0)
		ret = s2t_write_entry(s, e, name, link, what);
	free(name);
	free(what);
	free(link);
	return ret;
}

/*
 * The entries of the open part, their names starting with prefix; the
 * start itself (as prefix) if emit_start.
 */
static int write_entries(sqfs2tar_t *s, const char *sub, const char *prefix,
			 bool emit_start)
{
	const sqfs_entry_t *e;
	int ret;

	while ((ret = sqfs_image_source_next(s->src, &e)) == 0) {
		if (e->path[0] == '\0' && !emit_start)
			continue;
		if (write_walked(s, sub, prefix, e) != 0)
			return -1;
	}
	return ret < 0 ? image_failed(s) : 0;
}

/* Everything at sub (a directory with what is below it, or one entry),
 * named prefix and below; sub itself too if emit_start. */
static int write_part(sqfs2tar_t *s, const char *sub, const char *prefix,
		      bool emit_start)
{
	int ret = open_part(s, sub, false);

	if (ret == 0)
		ret = write_entries(s, sub, prefix, emit_start);
	close_part(s);
	return ret;
}

/* The image entry at path alone, written as name. */
static int write_one(sqfs2tar_t *s, const char *path, const char *name)
{
	int ret = open_part(s, path, true);

	if (ret == 0)
		ret = write_entries(s, path, name, true);
	close_part(s);
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

/* Each --subdir under its own path (with its parents), after the root
 * if --root-becomes names it. */
static int write_kept(sqfs2tar_t *s, const char *root)
{
	const sqfs2tar_options_t *opt = s->opt;
	const char *prev = NULL;
	char *prefix;
	int ret;

	if (root[0] != '\0' && write_one(s, "", root) != 0)
		return -1;

	for (size_t i = 0; i < opt->subdir_count; ++i) {
		const char *sub = opt->subdirs[i];

		/* a missing path fails before its parents are written */
		if (open_part(s, sub, false) != 0)
			return -1;
		close_part(s);
		if (write_parents(s, sub, prev, root) != 0)
			return -1;
		prefix = s2t_join(root, sub);
		if (prefix == NULL)
			return out_of_memory();
		ret = write_part(s, sub, prefix, true);
		free(prefix);
		if (ret != 0)
			return -1;
		prev = sub;
	}
	return 0;
}

/* A single --subdir becomes the root: it must be a directory. */
static int write_subdir_as_root(sqfs2tar_t *s, const char *sub,
				const char *root)
{
	const sqfs_entry_t *e;
	int ret = open_part(s, sub, false);

	if (ret != 0)
		return -1;
	ret = sqfs_image_source_next(s->src, &e);
	if (ret < 0) {
		ret = image_failed(s);
	} else if (ret == 0 && (e->mode & S_IFMT) != S_IFDIR) {
		tool_error(sub, "not a directory, so it cannot become the "
				"archive's root (see --keep-as-dir)");
		ret = -1;
	} else if (ret == 0) {
		ret = root[0] != '\0' ? write_walked(s, sub, root, e) : 0;
		if (ret == 0)
			ret = write_entries(s, sub, root, true);
	}
	close_part(s);
	return ret;
}

int s2t_write_tree(sqfs2tar_t *s)
{
	const sqfs2tar_options_t *opt = s->opt;
	const char *root = opt->root_becomes != NULL ? opt->root_becomes : "";

	if (opt->subdir_count == 0)
		return write_part(s, "", root, root[0] != '\0');
	if (opt->keep_as_dir)
		return write_kept(s, root);
	return write_subdir_as_root(s, opt->subdirs[0], root);
}

/* SPDX-License-Identifier: MIT */
/*
 * append.c - appending to the image DEST holds, as mksquashfs does when
 * -noappend is not given (found by running mksquashfs 4.7.5):
 *
 * - The old entries stay where they are, in the root, or with
 *   -root-becomes NAME below a directory NAME that takes the old root's
 *   attributes; the new sources go into the root as they would into a new
 *   image, and the root takes the attributes the new sources give it.
 * - A new entry of the root whose name the old image uses already (or
 *   NAME) gets _1, _2 ... ("Source directory entry f1 already used! -
 *   trying f1_1"); a directory is not merged into the old one.
 * - The old image's block size, compressor and choices (exportable,
 *   fragments, what is stored uncompressed ...) are kept: -b, -comp and
 *   the like are ignored, as mksquashfs ignores them.
 * - The old data is not rewritten (it keeps its place in the new image),
 *   and new files are deduplicated against it (sqfs_writer_create_append).
 *
 * The image is opened here through the library's checks, which refuse a
 * damaged DEST before anything is written; DEST itself is only read: the
 * new image goes to a temporary file that replaces DEST when complete
 * (run.c).
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/print.h"
#include "sqfs/dir_reader.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct mk_append {
	sqfs_file_t *file;
	sqfs_file_t *view;
	sqfs_image_t *img;
	/* names of the root that new entries may not take */
	char **taken;
	size_t taken_count;
};

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

void mk_append_close(mk_append_t *ap)
{
	if (ap == NULL)
		return;
	for (size_t i = 0; i < ap->taken_count; ++i)
		free(ap->taken[i]);
	free(ap->taken);
	sqfs_image_destroy(ap->img);
	sqfs_file_destroy(ap->view);
	sqfs_file_destroy(ap->file);
	free(ap);
}

static int take_name(mk_append_t *ap, const char *name, size_t len)
{
	char **list = realloc(ap->taken, (ap->taken_count + 1) * sizeof(*list));

	if (list == NULL)
		return oom();
	ap->taken = list;
	list[ap->taken_count] = strndup(name, len);
	if (list[ap->taken_count] == NULL)
		return oom();
	ap->taken_count += 1;
	return 0;
}

/* The names of the old root's entries. */
static int list_old_root(mk_append_t *ap, const char *dest)
{
	sqfs_dir_reader_t *dr = NULL;
	sqfs_inode_t *root = NULL;
	sqfs_dir_entry_t ent;
	int ret;

	ret = sqfs_dir_reader_create(ap->img, &dr);
	if (ret == 0)
		ret = sqfs_image_read_root(ap->img, &root);
	if (ret == 0)
		ret = sqfs_dir_reader_open(dr, root);
	while (ret == 0 && (ret = sqfs_dir_reader_next(dr, &ent)) == 0) {
		if (take_name(ap, ent.name, ent.name_len) != 0) {
			ret = SQFS_ERROR_ALLOC;
			break;
		}
	}
	free(root);
	sqfs_dir_reader_destroy(dr);
	if (ret < 0 && ret != SQFS_ERROR_ALLOC)
		fprintf(stderr, "mksquashfs: %s: the image is damaged: %s\n",
			dest, sqfs_image_error(ap->img));
	return ret < 0 ? -1 : 0;
}

int mk_append_open(const mk_options_t *opt, mk_append_t **out)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	mk_append_t *ap;
	int ret;

	*out = NULL;
	ap = calloc(1, sizeof(*ap));
	if (ap == NULL)
		return oom();
	ret = sqfs_file_open(&ap->file, opt->dest, SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		fprintf(stderr, "mksquashfs: cannot open \"%s\": %s\n",
			opt->dest, strerror(errno));
		goto fail;
	}
	if (sqfs_file_open_window(&ap->view, ap->file, opt->offset, 0) != 0) {
		oom();
		goto fail;
	}
	ret = sqfs_image_open(ap->view, &ap->img, why);
	if (ret != 0) {
		fprintf(stderr,
			"mksquashfs: \"%s\" is not an image that can be "
			"appended to: %s (give -noappend to replace it; it "
			"is left as it is)\n",
			opt->dest, why);
		goto fail;
	}
	if (opt->root_becomes != NULL)
		ret =
		    take_name(ap, opt->root_becomes, strlen(opt->root_becomes));
	else
		ret = list_old_root(ap, opt->dest);
	if (ret != 0)
		goto fail;
	*out = ap;
	return 0;
fail:
	mk_append_close(ap);
	return -1;
}

void mk_append_options(const mk_append_t *ap, sqfs_writer_options_t *wr)
{
	(void)sqfs_writer_options_from_image(wr, ap->img);
}

static bool is_taken(const mk_append_t *ap, const char *name)
{
	for (size_t i = 0; i < ap->taken_count; ++i) {
		if (strcmp(ap->taken[i], name) == 0)
			return true;
	}
	return false;
}

/* Whether path is name or below it. */
static bool under(const char *path, const char *name, size_t len)
{
	return strncmp(path, name, len) == 0 &&
	       (path[len] == '\0' || path[len] == '/');
}

/* path with its first len bytes replaced by name, malloc'd. */
static char *renamed(const char *path, size_t len, const char *name)
{
	char *out;

	return asprintf(&out, "%s%s", name, path + len) < 0 ? NULL : out;
}

/* Whether a new entry of the root has the name. */
static bool new_has(const gs_entries_t *entries, const char *name)
{
	for (size_t i = 0; i < entries->count; ++i) {
		if (strcmp(entries->list[i].path, name) == 0)
			return true;
	}
	return false;
}

/* Move the entries at old (and below) to name: their paths, the hard
 * links to them, and where their input is read from (gs_root_t). */
static int move_entries(gs_entries_t *entries, const char *old,
			const char *name)
{
	size_t len = strlen(old);
	uint32_t *new_root;
	int ret = 0;

	/* a root may hold the renamed entries alone (a source of several,
	 * named as a whole) or more (the one source that is the root):
	 * the first gets the new name, the second a new root for them */
	new_root = malloc((entries->root_count + 1) * sizeof(*new_root));
	if (new_root == NULL)
		return oom();
	for (size_t r = 0; r < entries->root_count; ++r)
		new_root[r] = GS_ROOT_NONE;

	for (size_t i = 0; ret == 0 && i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];
		char *p;

		if (e->hard_link && e->target != NULL &&
		    under(e->target, old, len)) {
			p = renamed(e->target, len, name);
			if (p == NULL) {
				ret = oom();
				break;
			}
			free(e->target);
			e->target = p;
		}
		if (!under(e->path, old, len))
			continue;
		if (e->root != GS_ROOT_NONE && e->root < entries->root_count &&
		    !e->from_listing) {
			uint32_t r = e->root;
			gs_root_t *gr = &entries->roots[r];

			if (gr->image_name != NULL &&
			    strcmp(gr->image_name, old) == 0) {
				p = strdup(name);
				if (p == NULL) {
					ret = oom();
					break;
				}
				free(gr->image_name);
				gr->image_name = p;
			} else if (gr->image_name == NULL) {
				if (new_root[r] == GS_ROOT_NONE) {
					char *loc = strdup(gr->location);
					fs_id_t id = gr->id;
					uint32_t nr;

					if (loc == NULL ||
					    gs_entries_add_root(entries, loc,
								id, &nr) != 0 ||
					    gs_entries_name_root(
						entries, nr, strdup(name),
						strdup(old)) != 0) {
						ret = oom();
						break;
					}
					new_root[r] = nr;
				}
				e->root = new_root[r];
			}
		}
		p = renamed(e->path, len, name);
		if (p == NULL) {
			ret = oom();
			break;
		}
		free(e->path);
		e->path = p;
	}
	free(new_root);
	return ret;
}

int mk_append_rename(const mk_append_t *ap, gs_entries_t *entries)
{
	for (size_t i = 0; i < entries->count; ++i) {
		const char *path = entries->list[i].path;
		char *name = NULL, *old;

		if (path[0] == '\0' || strchr(path, '/') != NULL ||
		    !is_taken(ap, path))
			continue;
		for (unsigned long n = 1; name == NULL; ++n) {
			if (asprintf(&name, "%s_%lu", path, n) < 0)
				return oom();
			fprintf(stderr,
				"Source directory entry %s already used! - "
				"trying %s\n",
				path, name);
			if (is_taken(ap, name) || new_has(entries, name)) {
				free(name);
				name = NULL;
			}
		}
		old = strdup(path);
		if (old == NULL || move_entries(entries, old, name) != 0) {
			free(old);
			free(name);
			return old == NULL ? oom() : -1;
		}
		free(old);
		free(name);
	}
	return 0;
}

int mk_append_writer(mk_append_t *ap, const mk_options_t *opt,
		     sqfs_file_t *file, sqfs_writer_t **wr)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	int ret;

	ret = sqfs_writer_create_append(
	    file, ap->img, opt->root_becomes != NULL ? opt->root_becomes : "",
	    &opt->gs.pk.wr, wr, why);
	if (ret != 0) {
		fprintf(stderr, "mksquashfs: %s: %s\n", opt->dest, why);
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * scan.c - listing a directory tree for packing (--pack-dir, and the
 * location of a glob line).
 *
 * The walk is the library's (sqfs/dir_source.h), which sqfsdiff uses too:
 * every call relative to a checked directory descriptor, symlinks listed
 * and never followed, each directory's names in byte order so that the
 * same tree gives the same list and the same image, hard-link groups
 * kept. The scan keeps what lstat said of each entry (gs_stat_t, the
 * device and inode included), so that its input, opened again when it is
 * packed (input.c), is packed only if it is still the object the scan
 * saw. Xattrs are read then, not here.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/print.h"
#include "sqfs/dir_source.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* A new root for location, whose directory the walk saw as st. */
static int add_root(gs_entries_t *out, const char *location,
		    const struct stat *st, uint32_t *index)
{
	char *copy = strdup(location);

	if (copy == NULL ||
	    gs_entries_add_root(out, copy, fs_id_of(st), index) != 0)
		return oom();
	return 0;
}

/* One entry of the walk into out, at prefix/path in the image. */
static int add_entry(gs_entries_t *out, const char *prefix,
		     const sqfs_entry_t *e, const struct stat *st,
		     uint32_t root)
{
	char *path = gs_path_join(prefix, e->path);
	gs_entry_t *ent;

	if (path == NULL)
		return oom();
	ent = gs_entries_push(out, path);
	if (ent == NULL)
		return oom();
	gs_stat_set(&ent->st, st);
	ent->root = root;
	if (e->hard_link != NULL) {
		ent->hard_link = true;
		ent->target = gs_path_join(prefix, e->hard_link);
		return ent->target != NULL ? 0 : oom();
	}
	if (S_ISLNK(st->st_mode)) {
		ent->target = strdup(e->symlink_target);
		return ent->target != NULL ? 0 : oom();
	}
	if (S_ISREG(st->st_mode))
		out->total_bytes += (uint64_t)st->st_size;
	return 0;
}

/* What lstat said of the walk's current entry e, on device dev: the
 * fields the scan keeps (gs_stat_set) and the filter looks at. */
static void entry_stat(const sqfs_entry_t *e, uint64_t dev, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = (mode_t)e->mode;
	st->st_uid = (uid_t)e->uid;
	st->st_gid = (gid_t)e->gid;
	st->st_mtime = (time_t)e->mtime;
	st->st_size = (off_t)e->size;
	st->st_ino = (ino_t)e->inode_number;
	st->st_nlink = (nlink_t)e->nlink;
	st->st_dev = (dev_t)dev;
	if (S_ISCHR(e->mode) || S_ISBLK(e->mode))
		st->st_rdev = makedev(e->rdev_major, e->rdev_minor);
}

/* mksquashfs's warning of a directory it cannot list, left out. */
static void walk_warning(void *user, const char *words)
{
	(void)user;
	tool_warning(NULL, "%s", words);
}

/* The walk's failure, in its words (which name the path). */
static int walk_error(int ret, const char *words)
{
	if (ret == SQFS_ERROR_ALLOC)
		tool_error(NULL, "out of memory");
	else
		tool_error(NULL, "%s", words);
	return -1;
}

int gs_scan_opts(int fd, const char *location, const gs_scan_opts_t *opts,
		 gs_entries_t *out)
{
	const char *prefix = opts->image_name != NULL ? opts->image_name : "";
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_dir_source_options_t so;
	const sqfs_entry_t *e;
	sqfs_dir_source_t *src;
	uint32_t root = 0;
	struct stat st;
	int ret;

	sqfs_dir_source_options_init(&so);
	/* xattrs are read when the entry is packed */
	so.flags = SQFS_DIR_SOURCE_NO_XATTRS;
	if (opts->one_file_system)
		so.flags |= SQFS_DIR_SOURCE_ONE_FILESYSTEM;
	if (opts->no_hard_links)
		so.flags |= SQFS_DIR_SOURCE_NO_HARD_LINKS;
	if (opts->skip_unreadable_dirs)
		so.flags |= SQFS_DIR_SOURCE_SKIP_UNREADABLE;
	so.warn = walk_warning;
	ret = sqfs_dir_source_create_fd(fd, &so, &src, why);
	close(fd);
	if (ret != 0)
		return walk_error(ret, why);
	while ((ret = sqfs_dir_source_next(src, &e)) == 0) {
		entry_stat(e, sqfs_dir_source_device(src), &st);
		if (e->path[0] == '\0') {
			if (add_root(out, location, &st, &root))
				break;
			if (prefix[0] != '\0' &&
			    gs_entries_name_root(out, root, strdup(prefix),
						 strdup("")) != 0) {
				oom();
				break;
			}
		} else if (opts->filter != NULL) {
			int skip = opts->filter(opts->user, e->path, &st);

			if (skip < 0)
				break;
			if (skip > 0) {
				sqfs_dir_source_skip(src);
				continue;
			}
		}
		if (add_entry(out, prefix, e, &st, root) != 0)
			break;
	}
	if (ret < 0)
		walk_error(ret, sqfs_dir_source_error(src));
	sqfs_dir_source_destroy(src);
	return ret == 1 ? 0 : -1;
}

int gs_scan(int fd, const char *location, bool one_file_system,
	    gs_entries_t *out)
{
	gs_scan_opts_t opts;

	memset(&opts, 0, sizeof(opts));
	opts.one_file_system = one_file_system;
	return gs_scan_opts(fd, location, &opts, out);
}

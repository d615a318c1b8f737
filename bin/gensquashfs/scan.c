/* SPDX-License-Identifier: MIT */
/*
 * scan.c - listing a directory tree for packing (--pack-dir, and the
 * location of a glob line).
 *
 * The walk is common/fs_source.h's, which sqfsdiff uses too: every call
 * relative to a checked directory descriptor, symlinks listed and never
 * followed, each directory's names in byte order so that the same tree
 * gives the same list and the same image, hard-link groups kept. The scan
 * keeps what lstat said of each entry (gs_stat_t, the device and inode
 * included), so that its input, opened again when it is packed (input.c),
 * is packed only if it is still the object the scan saw.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/fs_source.h"
#include "common/print.h"

#include <stdlib.h>
#include <string.h>
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

int gs_scan_opts(int fd, const char *location, const gs_scan_opts_t *opts,
		 gs_entries_t *out)
{
	const char *prefix = opts->image_name != NULL ? opts->image_name : "";
	unsigned int flags = 0;
	const sqfs_entry_t *e;
	fs_source_t *src;
	uint32_t root = 0;
	int ret;

	if (opts->one_file_system)
		flags |= FS_SOURCE_ONE_FILE_SYSTEM;
	if (opts->no_hard_links)
		flags |= FS_SOURCE_NO_HARD_LINKS;
	if (opts->skip_unreadable_dirs)
		flags |= FS_SOURCE_SKIP_UNREADABLE_DIRS;
	if (fs_source_open(fd, NULL, flags, &src) != 0)
		return -1;
	while ((ret = fs_source_next(src, &e)) == 0) {
		const struct stat *st = fs_source_stat(src);

		if (e->path[0] == '\0') {
			if (add_root(out, location, st, &root))
				break;
			if (prefix[0] != '\0' &&
			    gs_entries_name_root(out, root, strdup(prefix),
						 strdup("")) != 0) {
				oom();
				break;
			}
		} else if (opts->filter != NULL) {
			int skip = opts->filter(opts->user, e->path, st);

			if (skip < 0)
				break;
			if (skip > 0) {
				fs_source_skip(src);
				continue;
			}
		}
		if (add_entry(out, prefix, e, st, root) != 0)
			break;
	}
	fs_source_close(src);
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

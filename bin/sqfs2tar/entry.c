/* SPDX-License-Identifier: MIT */
/*
 * entry.c - one image entry as a tar entry: the header, with a sparse map
 * where the file has holes, then the data as the image source hands it
 * out, holes skipped.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Give the entry the data ranges of a file with holes, so that libarchive
 * writes a sparse map and only the data. A file without holes gets no map
 * (a plain entry); one that is all holes gets an empty range at its end,
 * which keeps it sparse.
 */
static int add_sparse_map(sqfs2tar_t *s, const sqfs_entry_t *e,
			  const char *what)
{
	const sqfs_extent_t *ext;
	size_t count;

	if (sqfs_image_source_extents(s->src, &ext, &count) != 0) {
		tool_error(what, "%s", sqfs_image_error(s->img));
		return -1;
	}
	if (count == 1 && ext[0].offset == 0 && ext[0].size == e->size)
		return 0;
	if (count == 0 && e->size == 0)
		return 0;
	for (size_t i = 0; i < count; ++i)
		archive_entry_sparse_add_entry(s->ent, (int64_t)ext[i].offset,
					       (int64_t)ext[i].size);
	if (count == 0)
		archive_entry_sparse_add_entry(s->ent, (int64_t)e->size, 0);
	return 0;
}

static int put_data(sqfs2tar_t *s, const void *data, size_t size,
		    const char *what)
{
	la_ssize_t ret = archive_write_data(s->ar, data, size);

	if (ret < 0 || (size_t)ret != size) {
		tool_error(what, "writing the archive: %s",
			   tar_out_error(s->ar));
		return -1;
	}
	return 0;
}

/* A hole: libarchive skips the bytes of a range its sparse map leaves
 * out (and may take fewer at the end of the file); only a failure
 * counts. */
static int put_hole(sqfs2tar_t *s, uint64_t size, const char *what)
{
	while (size > 0) {
		size_t n = size < s->block_size ? (size_t)size : s->block_size;

		if (archive_write_data(s->ar, s->zeros, n) < 0) {
			tool_error(what, "writing the archive: %s",
				   tar_out_error(s->ar));
			return -1;
		}
		size -= n;
	}
	return 0;
}

/* The file's bytes, run by run. */
static int put_file_data(sqfs2tar_t *s, const char *what)
{
	sqfs_data_run_t run;
	int ret;

	while ((ret = sqfs_image_source_read(s->src, &run)) == 0) {
		if (run.data == NULL)
			ret = put_hole(s, run.size, what);
		else
			ret = put_data(s, run.data, (size_t)run.size, what);
		if (ret != 0)
			return -1;
	}
	if (ret < 0) {
		tool_error(what, "%s", sqfs_image_error(s->img));
		return -1;
	}
	return 0;
}

static void set_attributes(sqfs2tar_t *s, const char *name,
			   const sqfs_entry_t *e)
{
	struct archive_entry *ae = s->ent;

	archive_entry_clear(ae);
	archive_entry_copy_pathname(ae, name);
	archive_entry_set_mode(ae, (mode_t)e->mode);
	archive_entry_set_mtime(ae, (time_t)e->mtime, 0);
	/* numeric only: names of this machine's users would not be the
	 * image's */
	archive_entry_set_uid(ae, e->uid);
	archive_entry_set_gid(ae, e->gid);
}

static int set_type_data(sqfs2tar_t *s, const sqfs_entry_t *e, const char *what)
{
	struct archive_entry *ae = s->ent;

	switch (e->mode & S_IFMT) {
	case S_IFREG:
		archive_entry_set_size(ae, (int64_t)e->size);
		return add_sparse_map(s, e, what);
	case S_IFLNK:
		archive_entry_copy_symlink(ae, e->symlink_target);
		break;
	case S_IFBLK:
	case S_IFCHR:
		archive_entry_set_rdevmajor(ae, e->rdev_major);
		archive_entry_set_rdevminor(ae, e->rdev_minor);
		break;
	default:
		break;
	}
	return 0;
}

int s2t_write_entry(sqfs2tar_t *s, const sqfs_entry_t *e, const char *name,
		    const char *link, const char *what)
{
	uint32_t type = e->mode & S_IFMT;
	char *dir_name = NULL;
	int ret, status = -1;

	if (type == S_IFSOCK) {
		if (s->opt->no_skip) {
			tool_error(what, "a tar archive cannot hold a socket");
			return -1;
		}
		tool_warning(what,
			     "a tar archive cannot hold a socket; skipped");
		return 0;
	}

	if (type == S_IFDIR) {
		/* a trailing '/' marks a directory for every tar reader */
		dir_name = malloc(strlen(name) + 2);
		if (dir_name == NULL) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		strcpy(dir_name, name);
		strcat(dir_name, "/");
		name = dir_name;
	}
	set_attributes(s, name, e);

	if (link != NULL) {
		archive_entry_copy_hardlink(s->ent, link);
		archive_entry_set_size(s->ent, 0);
	} else {
		if (set_type_data(s, e, what) != 0)
			goto out;
		for (size_t i = 0; i < e->xattr_count; ++i)
			archive_entry_xattr_add_entry(s->ent, e->xattrs[i].key,
						      e->xattrs[i].value,
						      e->xattrs[i].size);
	}

	ret = archive_write_header(s->ar, s->ent);
	if (ret == ARCHIVE_WARN) {
		/* e.g. a name that is not UTF-8: written as raw bytes */
		tool_warning(what, "%s; written anyway", tar_out_error(s->ar));
	} else if (ret != ARCHIVE_OK) {
		tool_error(what, "writing the archive: %s",
			   tar_out_error(s->ar));
		goto out;
	}

	if (link == NULL && type == S_IFREG && put_file_data(s, what) != 0)
		goto out;
	status = 0;
out:
	free(dir_name);
	return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * process.c - turning tar entries into image entries.
 *
 * The writer enforces the format and says in words what it refuses; this
 * file holds tar2sqfs's policy: which entries to leave out (--exclude,
 * outside --root-becomes), and that an entry the image cannot hold is
 * reported by its archive name and skipped, or ends the run under
 * --no-skip, while the image stays consistent: the writer refuses such an
 * entry before changing anything, and says whether it could go on
 * (sqfs_writer_usable). The only checks made here are the ones the writer
 * cannot make: values that do not fit its fields, and tar's own rules for
 * link targets.
 */
#include "config.h"

#include "tar2sqfs.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "tar/path.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* An entry that cannot be stored: a warning and a skip, or the end. */
static int bad_entry(tar2sqfs_packer_t *pk, const char *name, const char *fmt,
		     ...) TOOL_PRINTF(3, 4);

static int bad_entry(tar2sqfs_packer_t *pk, const char *name, const char *fmt,
		     ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);

	if (pk->opt->no_skip) {
		tool_error(name, "%s", why);
		return -1;
	}
	tool_warning(name, "%s; skipped", why);
	return 0;
}

/* The writer refused the entry (and is unchanged: skip it) or failed
 * (the image cannot be finished). */
static int writer_failed(tar2sqfs_packer_t *pk, const char *name, int ret)
{
	int os_errno = errno;

	if (sqfs_writer_usable(pk->wr))
		return bad_entry(pk, name, "%s", sqfs_writer_error(pk->wr));
	tool_image_error(pk->opt->pk.output, name, ret, os_errno,
			 sqfs_writer_error(pk->wr));
	return -1;
}

/* Whether --exclude drops path: a pattern matches it or a parent. Returns
 * -1 if out of memory. */
static int excluded(const tar2sqfs_options_t *opt, const char *path)
{
	size_t i, len;
	char *buf;

	if (opt->exclude_count == 0)
		return 0;

	buf = strdup(path);
	if (buf == NULL)
		return -1;

	for (len = strlen(buf);;) {
		for (i = 0; i < opt->exclude_count; ++i) {
			if (fnmatch(opt->excludes[i], buf, 0) == 0) {
				free(buf);
				return 1;
			}
		}
		/* on to the parent directory */
		while (len > 0 && buf[len - 1] != '/')
			--len;
		if (len == 0)
			break;
		buf[--len] = '\0';
	}
	free(buf);
	return 0;
}

/* Keep the xattrs the image can hold (the library's rules); warn about the
 * others. */
static int filter_xattrs(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
			 sqfs_xattr_t *out, size_t *count)
{
	size_t i, n = 0;
	const char *why;

	*count = 0;
	if (pk->opt->no_xattr)
		return 0;

	for (i = 0; i < ent->xattr_count; ++i) {
		const tar_xattr_t *x = ent->xattrs + i;

		out[n].key = x->key;
		out[n].value = x->value;
		out[n].size = x->size;
		if (sqfs_xattr_check(&out[n], &why) != 0) {
			tool_warning(ent->raw_path, "xattr '%s': %s; skipped",
				     x->key, why);
			continue;
		}
		++n;
	}
	*count = n;
	return 0;
}

/* The owners and time of an entry, or a reason it has none we can
 * store. */
static const char *set_attributes(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
				  sqfs_entry_t *e)
{
	const tar2sqfs_options_t *opt = pk->opt;

	if (opt->pk.set_uid)
		e->uid = opt->pk.uid;
	else if (ent->uid < 0 || ent->uid > (int64_t)UINT32_MAX)
		return "owner id out of range";
	else
		e->uid = (uint32_t)ent->uid;

	if (opt->pk.set_gid)
		e->gid = opt->pk.gid;
	else if (ent->gid < 0 || ent->gid > (int64_t)UINT32_MAX)
		return "group id out of range";
	else
		e->gid = (uint32_t)ent->gid;

	if (opt->no_keep_time || !ent->mtime_set)
		e->mtime = opt->pk.wr.default_mtime;
	else
		e->mtime = ent->mtime;
	return NULL;
}

/* The data of the file the writer has open, chunk by chunk. */
static int add_data(tar2sqfs_packer_t *pk, const tar_entry_t *ent)
{
	tar_chunk_t chunk;
	int ret;

	while ((ret = tar_reader_read_chunk(pk->rd, &chunk)) == 0) {
		if (chunk.data == NULL) {
			ret = sqfs_writer_append_hole(pk->wr, chunk.size);
		} else {
			ret = sqfs_writer_append(pk->wr, chunk.data,
						 (size_t)chunk.size);
		}
		if (ret != 0) {
			tool_image_error(pk->opt->pk.output, ent->raw_path, ret,
					 errno, sqfs_writer_error(pk->wr));
			return -1;
		}
		progress_update(pk->progress, tar_reader_position(pk->rd),
				pk->entries);
	}
	if (ret < 0) {
		/* the file is half in the image: there is no skipping
		 * this one */
		tool_error(ent->raw_path, "%s", tar_reader_error(pk->rd));
		return -1;
	}

	ret = sqfs_writer_end_file(pk->wr);
	if (ret != 0) {
		tool_image_error(pk->opt->pk.output, ent->raw_path, ret, errno,
				 sqfs_writer_error(pk->wr));
		return -1;
	}
	return 0;
}

/* The target of a hard link in the image, or NULL after saying why the
 * entry is skipped (*status: what to return). */
static const char *link_target(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
			       const char *path, int *status)
{
	const char *prefix = pk->opt->root_becomes;
	const char *target = ent->hardlink;

	if (ent->hardlink_unsafe) {
		*status = bad_entry(pk, ent->raw_path,
				    "hard link target '%s' climbs out of the "
				    "root",
				    target);
		return NULL;
	}
	if (prefix != NULL) {
		target = tar_path_below(target, prefix);
		if (target == NULL || target[0] == '\0') {
			*status = bad_entry(pk, ent->raw_path,
					    "hard link target '%s' is not "
					    "below '%s'",
					    ent->hardlink, prefix);
			return NULL;
		}
	}
	if (target[0] == '\0') {
		*status = bad_entry(pk, ent->raw_path,
				    "hard link to the root directory");
		return NULL;
	}
	if (strcmp(target, path) == 0) {
		*status = bad_entry(pk, ent->raw_path, "hard link to itself");
		return NULL;
	}
	return target;
}

static const char *type_name(tar_type_t type)
{
	switch (type) {
	case TAR_TYPE_SOCKET:
		return "socket";
	default:
		return "unknown";
	}
}

/* The file type of a tar entry, or 0 for one tar2sqfs does not store:
 * a socket or an unknown type (skipped with a warning: tar2sqfs(1)). */
static uint32_t file_type(tar_type_t type)
{
	return type == TAR_TYPE_SOCKET ? 0 : tar_type_mode(type);
}

/* The entry in the writer's terms; *status is what to return if it is
 * not (-1: out of memory, else a skip or --no-skip's end). */
static int make_entry(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
		      const char *path, sqfs_entry_t *e, char **retarget,
		      int *status)
{
	const char *prefix = pk->opt->root_becomes, *why;
	uint32_t type = file_type(ent->type);

	sqfs_entry_init(e, path, 0, 0, 0, 0);
	if (ent->type == TAR_TYPE_HARDLINK) {
		e->hard_link = link_target(pk, ent, path, status);
		return e->hard_link != NULL ? 0 : -1;
	}
	if (type == 0) {
		*status = bad_entry(pk, ent->raw_path,
				    "cannot store an entry of %s type",
				    type_name(ent->type));
		return -1;
	}
	e->mode = type | (ent->mode & 07777);
	why = set_attributes(pk, ent, e);
	if (why != NULL) {
		*status = bad_entry(pk, ent->raw_path, "%s", why);
		return -1;
	}

	switch (type) {
	case S_IFREG:
		e->size = ent->size;
		break;
	case S_IFLNK:
		e->symlink_target = ent->symlink;
		if (prefix != NULL && !pk->opt->no_symlink_retarget) {
			if (tar_path_retarget(ent->symlink, prefix, retarget) !=
			    0) {
				tool_error(NULL, "out of memory");
				*status = -1;
				return -1;
			}
			if (*retarget != NULL)
				e->symlink_target = *retarget;
		}
		break;
	case S_IFCHR:
	case S_IFBLK:
		/* the writer judges what fits the image; this is only
		 * what fits its fields */
		if (ent->rdev_major > UINT32_MAX ||
		    ent->rdev_minor > UINT32_MAX) {
			*status =
			    bad_entry(pk, ent->raw_path,
				      "device number %llu:%llu out of "
				      "range",
				      (unsigned long long)ent->rdev_major,
				      (unsigned long long)ent->rdev_minor);
			return -1;
		}
		e->rdev_major = (uint32_t)ent->rdev_major;
		e->rdev_minor = (uint32_t)ent->rdev_minor;
		break;
	default:
		break;
	}
	return 0;
}

static int add_entry(tar2sqfs_packer_t *pk, const tar_entry_t *ent)
{
	const tar2sqfs_options_t *opt = pk->opt;
	const char *path = ent->path;
	sqfs_xattr_t *xattrs = NULL;
	char *retarget = NULL;
	sqfs_entry_t e;
	int ret, status = 0;

	ret = excluded(opt, ent->path);
	if (ret != 0) {
		if (ret < 0)
			tool_error(NULL, "out of memory");
		return ret < 0 ? -1 : 0;
	}

	if (ent->unsafe)
		return bad_entry(pk, ent->raw_path,
				 "name climbs out of the root ('..')");

	if (opt->root_becomes != NULL) {
		path = tar_path_below(ent->path, opt->root_becomes);
		/* not below DIR: not part of the image */
		if (path == NULL)
			return 0;
	}

	if (make_entry(pk, ent, path, &e, &retarget, &status) != 0)
		return status;

	if (e.hard_link == NULL && ent->xattr_count > 0 && !opt->no_xattr) {
		xattrs = calloc(ent->xattr_count, sizeof(xattrs[0]));
		if (xattrs == NULL) {
			free(retarget);
			tool_error(NULL, "out of memory");
			return -1;
		}
		filter_xattrs(pk, ent, xattrs, &e.xattr_count);
		e.xattrs = xattrs;
	}

	ret = sqfs_writer_add(pk->wr, &e, 0);
	free(xattrs);
	free(retarget);
	if (ret != 0)
		return writer_failed(pk, ent->raw_path, ret);
	if ((e.mode & S_IFMT) == S_IFREG && e.hard_link == NULL)
		return add_data(pk, ent);
	return 0;
}

static void report_broken(void *user, const char *path, const char *target)
{
	tar2sqfs_packer_t *pk = user;

	if (pk->opt->no_skip)
		tool_error(path,
			   "hard link target '%s' does not exist (or is "
			   "a directory)",
			   target);
	else
		tool_warning(path,
			     "hard link target '%s' does not exist (or is "
			     "a directory); skipped",
			     target);
}

int tar2sqfs_pack(tar2sqfs_packer_t *pk)
{
	const tar_entry_t *ent;
	int ret;

	for (;;) {
		ret = tar_reader_next(pk->rd, &ent);
		if (ret == 1)
			break;
		if (ret < 0) {
			const char *name = tar_reader_error_entry(pk->rd);

			if (name == NULL)
				name = pk->input_name;
			/* damage loses what the archive holds: never an
			 * image without it, whatever --no-skip says */
			if (ret != SQFS_ERROR_UNSUPPORTED ||
			    tar_reader_is_fatal(pk->rd)) {
				tool_error(name, "%s",
					   tar_reader_error(pk->rd));
				return -1;
			}
			if (bad_entry(pk, name, "%s",
				      tar_reader_error(pk->rd)) != 0)
				return -1;
			continue;
		}

		++pk->entries;
		if (add_entry(pk, ent) != 0)
			return -1;
		progress_update(pk->progress, tar_reader_position(pk->rd),
				pk->entries);
	}

	ret = sqfs_writer_drop_broken_links(pk->wr, report_broken, pk);
	if (ret < 0) {
		tool_error(pk->opt->pk.output, "%s", sqfs_writer_error(pk->wr));
		return -1;
	}
	if (ret > 0 && pk->opt->no_skip)
		return -1;
	return 0;
}

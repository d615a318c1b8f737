/* SPDX-License-Identifier: MIT */
/*
 * process.c - turning tar entries into image entries.
 *
 * The writer enforces the format and says in words what it refuses; this
 * file holds tar2sqfs's policy: which entries to leave out (--exclude,
 * outside --root-becomes), and that an entry the image cannot hold is
 * reported by its archive name and skipped, or ends the run under
 * --no-skip, while the image stays consistent. The only checks made here
 * are the ones the writer cannot make: values that do not fit the
 * writer's types, and a size known before the data arrives.
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

/* A file's block list lives in the inode table; beyond this many blocks
 * it could not be addressed, and the list alone would take gigabytes. The
 * writer would find out only once the data is half in the image, which
 * ends the run: refused up front, the entry can be skipped. */
#define MAX_FILE_BLOCKS (1ull << 30)

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

/* Writer errors an entry causes before anything is changed; any other
 * error leaves the image unusable. */
static bool writer_error_is_entry(int ret)
{
	return ret == SQFS_ERROR_ARG_INVALID || ret == SQFS_ERROR_NOT_DIR ||
	       ret == SQFS_ERROR_OVERFLOW || ret == SQFS_ERROR_UNSUPPORTED ||
	       ret == SQFS_ERROR_EXISTS;
}

static int writer_failed(tar2sqfs_packer_t *pk, const char *name, int ret)
{
	int os_errno = errno;

	if (writer_error_is_entry(ret))
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

/* The attributes of an entry, or a reason it has none we can store. */
static const char *make_attr(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
			     uint32_t type, sqfs_entry_attr_t *attr)
{
	const tar2sqfs_options_t *opt = pk->opt;

	memset(attr, 0, sizeof(*attr));
	attr->mode = type | (ent->mode & 07777);

	if (opt->pk.set_uid)
		attr->uid = opt->pk.uid;
	else if (ent->uid < 0 || ent->uid > (int64_t)UINT32_MAX)
		return "owner id out of range";
	else
		attr->uid = (uint32_t)ent->uid;

	if (opt->pk.set_gid)
		attr->gid = opt->pk.gid;
	else if (ent->gid < 0 || ent->gid > (int64_t)UINT32_MAX)
		return "group id out of range";
	else
		attr->gid = (uint32_t)ent->gid;

	if (opt->no_keep_time || !ent->mtime_set)
		attr->mtime = opt->pk.wr.default_mtime;
	else
		attr->mtime = ent->mtime;
	return NULL;
}

static int add_file(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
		    const char *path, const sqfs_entry_attr_t *attr)
{
	uint64_t blocks = ent->size / pk->opt->pk.wr.block_size;
	tar_chunk_t chunk;
	int ret;

	if (blocks > MAX_FILE_BLOCKS)
		return bad_entry(pk, ent->raw_path,
				 "size %llu is too large for the image",
				 (unsigned long long)ent->size);

	ret = sqfs_writer_begin_file(pk->wr, path, attr);
	if (ret != 0)
		return writer_failed(pk, ent->raw_path, ret);

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

static int add_hard_link(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
			 const char *path)
{
	const char *prefix = pk->opt->root_becomes;
	const char *target = ent->hardlink;
	int ret;

	if (ent->hardlink_unsafe)
		return bad_entry(pk, ent->raw_path,
				 "hard link target '%s' climbs out of the "
				 "root",
				 target);
	if (prefix != NULL) {
		target = tar_path_below(target, prefix);
		if (target == NULL || target[0] == '\0')
			return bad_entry(pk, ent->raw_path,
					 "hard link target '%s' is not below "
					 "'%s'",
					 ent->hardlink, prefix);
	}
	if (target[0] == '\0')
		return bad_entry(pk, ent->raw_path,
				 "hard link to the root directory");
	if (strcmp(target, path) == 0)
		return bad_entry(pk, ent->raw_path, "hard link to itself");

	ret = sqfs_writer_add_hard_link(pk->wr, path, target);
	return ret == 0 ? 0 : writer_failed(pk, ent->raw_path, ret);
}

static int add_symlink(tar2sqfs_packer_t *pk, const tar_entry_t *ent,
		       const char *path, const sqfs_entry_attr_t *attr)
{
	const char *prefix = pk->opt->root_becomes;
	char *retarget = NULL;
	int ret;

	if (prefix != NULL && !pk->opt->no_symlink_retarget) {
		if (tar_path_retarget(ent->symlink, prefix, &retarget) != 0) {
			tool_error(NULL, "out of memory");
			return -1;
		}
	}

	ret = sqfs_writer_add_symlink(
	    pk->wr, path, attr, retarget != NULL ? retarget : ent->symlink);
	free(retarget);
	return ret == 0 ? 0 : writer_failed(pk, ent->raw_path, ret);
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

static int add_entry(tar2sqfs_packer_t *pk, const tar_entry_t *ent)
{
	const tar2sqfs_options_t *opt = pk->opt;
	const char *path = ent->path, *why;
	sqfs_xattr_t *xattrs = NULL;
	sqfs_entry_attr_t attr;
	uint32_t type = 0;
	int ret;

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

	switch (ent->type) {
	case TAR_TYPE_DIR:
		type = S_IFDIR;
		break;
	case TAR_TYPE_FILE:
		type = S_IFREG;
		break;
	case TAR_TYPE_SYMLINK:
		type = S_IFLNK;
		break;
	case TAR_TYPE_HARDLINK:
		break;
	case TAR_TYPE_CHR:
	case TAR_TYPE_BLK:
		type = ent->type == TAR_TYPE_CHR ? S_IFCHR : S_IFBLK;
		/* the writer judges what fits the image; this is only
		 * what fits its arguments */
		if (ent->rdev_major > UINT32_MAX ||
		    ent->rdev_minor > UINT32_MAX)
			return bad_entry(pk, ent->raw_path,
					 "device number %llu:%llu out of range",
					 (unsigned long long)ent->rdev_major,
					 (unsigned long long)ent->rdev_minor);
		break;
	case TAR_TYPE_FIFO:
		type = S_IFIFO;
		break;
	default:
		return bad_entry(pk, ent->raw_path,
				 "cannot store an entry of %s type",
				 type_name(ent->type));
	}

	if (ent->type == TAR_TYPE_HARDLINK)
		return add_hard_link(pk, ent, path);

	why = make_attr(pk, ent, type, &attr);
	if (why != NULL)
		return bad_entry(pk, ent->raw_path, "%s", why);

	if (ent->type == TAR_TYPE_CHR || ent->type == TAR_TYPE_BLK) {
		attr.rdev_major = (uint32_t)ent->rdev_major;
		attr.rdev_minor = (uint32_t)ent->rdev_minor;
	}

	if (ent->xattr_count > 0 && !opt->no_xattr) {
		xattrs = calloc(ent->xattr_count, sizeof(xattrs[0]));
		if (xattrs == NULL) {
			tool_error(NULL, "out of memory");
			return -1;
		}
		filter_xattrs(pk, ent, xattrs, &attr.xattr_count);
		attr.xattrs = xattrs;
	}

	switch (type) {
	case S_IFDIR:
		ret = sqfs_writer_add_dir(pk->wr, path, &attr);
		ret = ret == 0 ? 0 : writer_failed(pk, ent->raw_path, ret);
		break;
	case S_IFREG:
		ret = add_file(pk, ent, path, &attr);
		break;
	case S_IFLNK:
		ret = add_symlink(pk, ent, path, &attr);
		break;
	default:
		ret = sqfs_writer_add_special(pk->wr, path, &attr);
		ret = ret == 0 ? 0 : writer_failed(pk, ent->raw_path, ret);
		break;
	}
	free(xattrs);
	return ret;
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

/* SPDX-License-Identifier: MIT */
/*
 * input.c - opening the input of an entry again when it is packed.
 *
 * Between the scan and the packing, the tree may change: a file swapped
 * for a symlink to a secret, a directory on the way swapped for one, or a
 * glob line's location replaced. So what a walk saw is opened again below
 * the root it was found under, one component at a time without following
 * a symlink (util/fs_open.h), and is packed only if it is the object
 * the walk saw (device and inode); its xattrs come from that object too.
 * The root itself is a location the user gave (--pack-dir, a glob line's)
 * and is opened as given, but must be the directory the walk started in.
 *
 * What a listing names itself (a file line's location) is trusted as a
 * build script is: it may lie anywhere, and symlinks on the way to it are
 * followed.
 *
 * A file whose data lies in a store (mksquashfs's pseudo files with data:
 * a pseudo file's data section, or a command's output spooled to a
 * temporary file) is a range of a descriptor opened once: each open
 * gives a descriptor of its own for it, and gs_input_extent says where
 * the range is.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void gs_opener_init(gs_opener_t *o, int input_dir, const gs_entries_t *entries)
{
	memset(o, 0, sizeof(*o));
	o->input_dir = input_dir;
	o->entries = entries;
	o->root = GS_ROOT_NONE;
	o->root_fd = -1;
	fs_chain_init(&o->chain, -1);
}

static void close_root(gs_opener_t *o)
{
	fs_chain_cleanup(&o->chain);
	if (o->root_fd >= 0)
		close(o->root_fd);
	o->root_fd = -1;
	o->root = GS_ROOT_NONE;
	fs_chain_init(&o->chain, -1);
}

void gs_opener_cleanup(gs_opener_t *o)
{
	close_root(o);
}

/* The root of e open, checked to be the directory the walk saw. */
static int open_root(gs_opener_t *o, uint32_t root, int *err)
{
	const gs_root_t *r;
	struct stat st;
	int fd;

	if (o->root == root)
		return 0;
	close_root(o);
	if (root >= o->entries->root_count) {
		*err = EINVAL;
		return -1;
	}
	r = &o->entries->roots[root];
	fd = openat(o->input_dir, r->location,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !fs_id_matches(&r->id, &st)) {
		*err = FS_ERR_REPLACED;
		close(fd);
		return -1;
	}
	o->root = root;
	o->root_fd = fd;
	fs_chain_init(&o->chain, fd);
	return 0;
}

/* Where e's input is below its root: the scanned path itself for
 * --pack-dir, the path below the location for a glob line, and for a
 * root that names its entries otherwise in the image (gs_root_t), the
 * image path with the root's image name turned back into its real name
 * (in a buffer of the calling thread, valid until the next call). */
static const char *below_root(const gs_entries_t *entries, const gs_entry_t *e)
{
	static _Thread_local char buf[8192];
	const gs_root_t *r;
	const char *rest;
	size_t len;

	if (e->from_listing)
		return e->source;
	if (e->root == GS_ROOT_NONE || e->root >= entries->root_count)
		return e->path;
	r = &entries->roots[e->root];
	if (r->image_name == NULL)
		return e->path;
	len = strlen(r->image_name);
	/* the scan put every entry of the root at image_name or below */
	rest = strncmp(e->path, r->image_name, len) == 0 ? e->path + len : "";
	if (*rest == '/' && r->real_name[0] == '\0')
		++rest;
	snprintf(buf, sizeof(buf), "%s%s", r->real_name, rest);
	return buf;
}

const char *gs_input_name(const gs_entries_t *entries, const gs_entry_t *e)
{
	static _Thread_local char buf[8192];
	const char *loc, *below;

	if (e->in_store)
		return e->path;
	if (e->root == GS_ROOT_NONE || e->root >= entries->root_count)
		return e->from_listing ? e->source : e->path;
	loc = entries->roots[e->root].location;
	below = below_root(entries, e);
	if (strcmp(loc, ".") == 0)
		return below[0] != '\0' ? below : ".";
	snprintf(buf, sizeof(buf), "%s%s%s", loc, below[0] ? "/" : "", below);
	return buf;
}

/* A descriptor of its own for the store e's data is in: the store's is
 * shared, and the callers close what they are given. */
static int open_store(gs_opener_t *o, const gs_entry_t *e, struct stat *st,
		      int *err)
{
	int fd;

	if (e->st.data.store >= o->entries->store_count) {
		*err = EINVAL;
		return -1;
	}
	fd = fcntl(o->entries->stores[e->st.data.store], F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (fstat(fd, st) != 0) {
		*err = errno;
		close(fd);
		return -1;
	}
	return fd;
}

uint64_t gs_input_extent(const gs_entry_t *e, const struct stat *st,
			 uint64_t *base)
{
	uint64_t end = st->st_size > 0 ? (uint64_t)st->st_size : 0;

	if (!e->in_store) {
		*base = 0;
		return end;
	}
	*base = e->st.data.offset;
	if (end <= *base)
		return 0;
	return end - *base < e->st.size ? end - *base : e->st.size;
}

int gs_input_open(gs_opener_t *o, const gs_entry_t *e, int flags,
		  struct stat *st, int *err)
{
	fs_id_t id = {e->st.dev, e->st.ino};
	int fd;

	if (e->in_store)
		return open_store(o, e, st, err);
	if (e->root == GS_ROOT_NONE) {
		fd = openat(o->input_dir, e->source, flags | O_CLOEXEC);
		if (fd < 0) {
			*err = errno;
			return -1;
		}
		if (fstat(fd, st) != 0) {
			*err = errno;
			close(fd);
			return -1;
		}
		return fd;
	}
	if (open_root(o, e->root, err) != 0)
		return -1;
	return fs_chain_open(&o->chain, below_root(o->entries, e), flags, &id,
			     st, err);
}

int gs_input_error(const gs_entries_t *entries, const gs_entry_t *e, int err)
{
	tool_error(gs_input_name(entries, e), "%s", fs_err_string(err));
	return -1;
}

/* A key the image cannot hold, left out: said, as it is the user's. */
static void warn_skipped(void *user, const char *key, const char *why)
{
	tool_warning((const char *)user, "xattr '%s': %s; skipped", key, why);
}

/* The outcome of reading xattrs (fs_xattrs.h): said, naming the entry. */
static int xattrs_done(int ret, const char *shown, const char *why)
{
	if (ret == 0)
		return 0;
	if (ret == SQFS_ERROR_ALLOC)
		tool_error(NULL, "out of memory");
	else
		tool_error(shown, "%s", why);
	return -1;
}

int gs_input_xattrs(gs_opener_t *o, const gs_entry_t *e, int fd, fs_xattrs_t *x)
{
	fs_id_t id = {e->st.dev, e->st.ino};
	const char *name, *shown = gs_input_name(o->entries, e);
	char why[SQFS_ERROR_TEXT_SIZE];
	struct stat st;
	int dirfd, err, ret;

	memset(x, 0, sizeof(*x));
	if (shown[0] == '\0')
		shown = ".";
	if (fd >= 0)
		return xattrs_done(
		    fs_xattrs_read_fd(fd, warn_skipped, (void *)shown, x, why),
		    shown, why);
	if (S_ISREG(e->st.mode) || S_ISDIR(e->st.mode)) {
		fd = gs_input_open(o, e,
				   O_RDONLY | O_NONBLOCK |
				       (S_ISDIR(e->st.mode) ? O_DIRECTORY : 0),
				   &st, &err);
		if (fd < 0)
			return gs_input_error(o->entries, e, err);
		ret =
		    fs_xattrs_read_fd(fd, warn_skipped, (void *)shown, x, why);
		close(fd);
		return xattrs_done(ret, shown, why);
	}
	/* a symlink, a device, a FIFO or a socket: by its name in its
	 * checked directory */
	if (e->root == GS_ROOT_NONE || open_root(o, e->root, &err) != 0)
		return gs_input_error(o->entries, e,
				      e->root == GS_ROOT_NONE ? EINVAL : err);
	dirfd =
	    fs_chain_parent(&o->chain, below_root(o->entries, e), &name, &err);
	if (dirfd < 0)
		return gs_input_error(o->entries, e, err);
	ret = fs_xattrs_read_at(dirfd, name, &id, warn_skipped, (void *)shown,
				x, why);
	return xattrs_done(ret, shown, why);
}

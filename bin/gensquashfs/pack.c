/* SPDX-License-Identifier: MIT */
/*
 * pack.c - handing the scanned entries to the writer, reading each
 * regular file as it comes.
 *
 * Inputs are opened again by input.c: below the root they were scanned
 * under, without following a symlink, and only if the object opened is
 * the one the scan saw (device and inode), so that a tree changed in
 * between cannot slip a symlink's target into the image. A file's xattrs
 * (--keep-xattr) are read from the descriptor its data is read from.
 *
 * Sparse files are read with SEEK_DATA/SEEK_HOLE: holes become sparse
 * blocks without reading a byte of them. A file that changes size while
 * it is read is packed with the bytes read (the image's size is theirs),
 * and a warning names it.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/fs_xattrs.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/xattr.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Entries packed between giving their memory back. */
#define DROP_EVERY 1024u

/* Bytes read at a time. */
#define READ_CHUNK (128u * 1024u)

static int writer_failed(gs_packer_t *pk, const char *path, int ret)
{
	int os_errno = errno;

	tool_image_error(pk->opt->pk.output, path[0] ? path : "/", ret,
			 os_errno, sqfs_writer_error(pk->wr));
	return -1;
}

/* The same for an entry: a listing's names its line. */
static int entry_failed(gs_packer_t *pk, const gs_entry_t *e, int ret)
{
	char where[4096 + 32];

	if (!e->from_listing)
		return writer_failed(pk, e->path, ret);
	snprintf(where, sizeof(where), "%s:%zu", pk->opt->pack_file,
		 (size_t)e->line);
	return writer_failed(pk, where, ret);
}

/* ---- xattrs -------------------------------------------------------------- */

/* What an entry carries: the xattrs read from its input (--keep-xattr),
 * then those given by the xattr file and --selinux, which replace read
 * ones of the same key (the writer keeps the last value of a key). */
typedef struct {
	fs_xattrs_t read;
	sqfs_xattr_t *list;
	size_t count;
} entry_xattrs_t;

static void entry_xattrs_free(entry_xattrs_t *x)
{
	fs_xattrs_free(&x->read);
	free(x->list);
	memset(x, 0, sizeof(*x));
}

/* x->list: the read xattrs and then e's given ones. */
static int merge_xattrs(entry_xattrs_t *x, const gs_entry_t *e)
{
	size_t n = x->read.count + e->xattr_count;

	x->list = NULL;
	x->count = 0;
	if (n == 0)
		return 0;
	x->list = malloc(n * sizeof(x->list[0]));
	if (x->list == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	if (x->read.count > 0)
		memcpy(x->list, x->read.list,
		       x->read.count * sizeof(x->list[0]));
	if (e->xattr_count > 0)
		memcpy(x->list + x->read.count, e->xattrs,
		       e->xattr_count * sizeof(x->list[0]));
	x->count = n;
	return 0;
}

/* The xattrs of e (fd: its input, open, or -1). */
static int gather_xattrs(gs_packer_t *pk, const gs_entry_t *e, int fd,
			 entry_xattrs_t *x)
{
	memset(x, 0, sizeof(*x));
	if (pk->opt->keep_xattr && !e->from_listing &&
	    gs_input_xattrs(&pk->opener, e, fd, &x->read) != 0)
		return -1;
	return merge_xattrs(x, e);
}

/* ---- attributes ---------------------------------------------------------- */

/* e's path and attributes in the writer's terms (xattrs and what depends
 * on the type are the caller's). */
static void make_entry(const gs_packer_t *pk, const gs_entry_t *e,
		       sqfs_entry_t *out)
{
	const packer_options_t *po = &pk->opt->pk;

	sqfs_entry_init(out, e->path, (uint32_t)(e->st.mode & (S_IFMT | 07777)),
			po->set_uid ? po->uid : (uint32_t)e->st.uid,
			po->set_gid ? po->gid : (uint32_t)e->st.gid,
			(e->from_listing ? e->keep_time : pk->opt->keep_time)
			    ? (int64_t)e->st.mtime
			    : (int64_t)po->wr.default_mtime);
	if (S_ISCHR(e->st.mode) || S_ISBLK(e->st.mode)) {
		out->rdev_major = major(e->st.rdev);
		out->rdev_minor = minor(e->st.rdev);
	} else if (S_ISREG(e->st.mode)) {
		out->size = e->st.size;
	} else if (S_ISLNK(e->st.mode)) {
		out->symlink_target = e->target;
	}
}

/* ---- file data ----------------------------------------------------------- */

/* Read [pos, end) of fd into the writer; *got is how far it got (less
 * than end if the file shrank). */
static int read_range(gs_packer_t *pk, int fd, const char *path, uint8_t *buf,
		      uint64_t pos, uint64_t end, uint64_t *got)
{
	int ret;

	while (pos < end) {
		size_t want =
		    end - pos < READ_CHUNK ? (size_t)(end - pos) : READ_CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)pos);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			tool_error(path, "%s", strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		ret = sqfs_writer_append(pk->wr, buf, (size_t)n);
		if (ret != 0)
			return writer_failed(pk, path, ret);
		pos += (uint64_t)n;
		pk->bytes_done += (uint64_t)n;
		progress_update(pk->progress, pk->bytes_done, pk->entries_done);
	}
	*got = pos;
	return 0;
}

/* The data of fd, size bytes as it was opened: data ranges read, holes
 * (SEEK_DATA/SEEK_HOLE) appended as holes. */
static int pack_data(gs_packer_t *pk, int fd, const char *path, uint64_t size,
		     uint64_t *packed)
{
	uint8_t *buf = malloc(READ_CHUNK);
	uint64_t pos = 0, got;
	int ret = 0;

	if (buf == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	while (pos < size && ret == 0) {
		off_t data = lseek(fd, (off_t)pos, SEEK_DATA), hole;

		if (data < 0) {
			/* ENXIO: only a hole from here on; EINVAL: no
			 * SEEK_DATA on this file system, read it all */
			if (errno == ENXIO) {
				data = (off_t)size;
			} else {
				data = (off_t)pos;
			}
		}
		if ((uint64_t)data > size)
			data = (off_t)size;
		if ((uint64_t)data > pos) {
			ret = sqfs_writer_append_hole(pk->wr,
						      (uint64_t)data - pos);
			if (ret != 0) {
				ret = writer_failed(pk, path, ret);
				break;
			}
			pk->bytes_done += (uint64_t)data - pos;
			pos = (uint64_t)data;
			if (pos == size)
				break;
		}
		hole = lseek(fd, (off_t)pos, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		if ((uint64_t)hole <= pos)
			hole = (off_t)size;
		ret = read_range(pk, fd, path, buf, pos, (uint64_t)hole, &got);
		if (ret == 0 && got < (uint64_t)hole) {
			/* it shrank: what was read is the file */
			pos = got;
			break;
		}
		pos = got;
	}
	free(buf);
	*packed = pos;
	return ret;
}

/* The warnings for a file whose size changed while it was read. */
static void size_warnings(const char *name, uint64_t size, uint64_t packed,
			  uint64_t size_after)
{
	if (packed < size)
		tool_warning(name,
			     "shrank while it was read; %llu of %llu bytes "
			     "packed",
			     (unsigned long long)packed,
			     (unsigned long long)size);
	if (size_after > packed)
		tool_warning(name,
			     "grew while it was read; the first %llu bytes "
			     "packed",
			     (unsigned long long)packed);
}

/*
 * A file: read whole by a reader (ahead.c), or read here, in chunks with
 * its holes skipped (ahead is NULL, or left it to the packer). Either
 * way the bytes packed, the size when opened and the size after reading
 * make the same warnings. Its xattrs are read from its input, opened and
 * checked here, before the entry is added.
 */
static int pack_file(gs_packer_t *pk, const gs_entry_t *e,
		     sqfs_entry_t *entry, const gs_ahead_file_t *ahead)
{
	const char *name = gs_input_name(&pk->entries, e);
	uint64_t size, packed = 0, size_after;
	entry_xattrs_t x;
	struct stat st;
	int fd = -1, ret, err;

	if (ahead != NULL && ahead->state == GS_AHEAD_FAILED)
		return gs_input_error(&pk->entries, e, ahead->err);
	if (ahead == NULL || ahead->state == GS_AHEAD_SELF ||
	    (pk->opt->keep_xattr && !e->from_listing)) {
		fd = gs_input_open(&pk->opener, e, O_RDONLY, &st, &err);
		if (fd < 0)
			return gs_input_error(&pk->entries, e, err);
	}
	if (gather_xattrs(pk, e, fd, &x) != 0) {
		if (fd >= 0)
			close(fd);
		entry_xattrs_free(&x);
		return -1;
	}
	entry->xattrs = x.list;
	entry->xattr_count = x.count;
	ret = sqfs_writer_add(pk->wr, entry, e->file_flags);
	entry_xattrs_free(&x);
	if (ret != 0) {
		if (fd >= 0)
			close(fd);
		return entry_failed(pk, e, ret);
	}
	if (ahead != NULL && ahead->state == GS_AHEAD_READ) {
		if (fd >= 0)
			close(fd);
		size = ahead->size;
		packed = ahead->got;
		size_after = ahead->size_after;
		if (packed > 0) {
			ret = sqfs_writer_append(pk->wr, ahead->data,
						 (size_t)packed);
			if (ret != 0)
				return writer_failed(pk, name, ret);
			pk->bytes_done += packed;
		}
	} else {
		size = (uint64_t)st.st_size;
		ret = pack_data(pk, fd, name, size, &packed);
		size_after =
		    fstat(fd, &st) == 0 ? (uint64_t)st.st_size : packed;
		close(fd);
		if (ret != 0)
			return -1;
	}
	size_warnings(name, size, packed, size_after);
	ret = sqfs_writer_end_file(pk->wr);
	return ret == 0 ? 0 : entry_failed(pk, e, ret);
}

/* ---- entries ------------------------------------------------------------- */

static int pack_entry(gs_packer_t *pk, const gs_entry_t *e,
		      const gs_ahead_file_t *ahead)
{
	sqfs_entry_t entry;
	entry_xattrs_t x;
	int ret;

	if (e->hard_link) {
		sqfs_entry_init(&entry, e->path, 0, 0, 0, 0);
		entry.hard_link = e->target;
		ret = sqfs_writer_add(pk->wr, &entry, 0);
		return ret == 0 ? 0 : entry_failed(pk, e, ret);
	}

	make_entry(pk, e, &entry);
	if (S_ISREG(e->st.mode))
		return pack_file(pk, e, &entry, ahead);

	if (gather_xattrs(pk, e, -1, &x) != 0) {
		entry_xattrs_free(&x);
		return -1;
	}
	entry.xattrs = x.list;
	entry.xattr_count = x.count;
	ret = sqfs_writer_add(pk->wr, &entry, 0);
	entry_xattrs_free(&x);
	return ret == 0 ? 0 : entry_failed(pk, e, ret);
}

static bool is_file(const gs_entry_t *e)
{
	return S_ISREG(e->st.mode) && !e->hard_link;
}

/* Files by priority, then by their place in the list. */
static int by_priority(const void *a, const void *b)
{
	const gs_entry_t *x = *(const gs_entry_t *const *)a;
	const gs_entry_t *y = *(const gs_entry_t *const *)b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/* The entry's strings go once it is packed: the writer keeps its own
 * copy of what it needs, and a big tree must not be held twice. */
static int pack_one(gs_packer_t *pk, gs_entry_t *e,
		    const gs_ahead_file_t *ahead)
{
	int ret = pack_entry(pk, e, ahead);

	gs_entry_release(e);
	if (ret != 0)
		return -1;
	pk->entries_done += 1;
	progress_update(pk->progress, pk->bytes_done, pk->entries_done);
	return 0;
}

/*
 * Everything but the files' data first, in order; then the files, by
 * priority (which only decides where their data lands: the writer sorts
 * every listing). A hard link added before its target is resolved when
 * the image is finished.
 */
int gs_pack_entries(gs_packer_t *pk, gs_entries_t *entries)
{
	gs_ahead_t *ahead = NULL;
	gs_entry_t **files;
	size_t count = 0;
	bool in_order = true;
	int ret = 0;

	progress_set_total(pk->progress, entries->total_bytes);
	/* the non-files first; then only the files are kept, moved to the
	 * front in their order (a moved entry's old place is emptied, so
	 * that nothing is owned twice), and the room of the rest is given
	 * back */
	for (size_t i = 0; i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];

		if (!is_file(e)) {
			if (pack_one(pk, e, NULL) != 0)
				return -1;
			continue;
		}
		if (count != i) {
			entries->list[count] = *e;
			memset(e, 0, sizeof(*e));
		}
		count += 1;
	}
	entries->count = count;
	gs_entries_trim(entries);

	files = calloc(count + 1, sizeof(files[0]));
	if (files == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < count; ++i)
		files[i] = &entries->list[i];
	if (count > 1)
		qsort(files, count, sizeof(files[0]), by_priority);
	for (size_t i = 0; in_order && i < count; ++i)
		in_order = files[i] == &entries->list[i];
	if (gs_ahead_create(pk->dirfd, entries, files, count, &ahead) != 0) {
		tool_error(NULL, "out of memory");
		ret = -1;
	}
	for (size_t i = 0; ret == 0 && i < count; ++i) {
		ret = pack_one(pk, files[i], gs_ahead_next(ahead));
		/* packed in list order (no sort file, or one that keeps
		 * it): what is behind goes, while the writer's tree grows */
		if (in_order && (i + 1) % DROP_EVERY == 0)
			gs_entries_drop_before(entries, i + 1);
	}
	gs_ahead_destroy(ahead);
	free(files);
	return ret;
}

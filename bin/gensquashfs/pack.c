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
#include "util/fs_xattrs.h"
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

/* Whether an added xattr goes on e: a user. one only on a regular file
 * or a directory (xattr(7)), the others on every entry. */
static bool add_applies(const gs_entry_t *e, const sqfs_xattr_t *x)
{
	return strncmp(x->key, "user.", 5) != 0 || S_ISREG(e->st.mode) ||
	       S_ISDIR(e->st.mode);
}

/* x->list: the read xattrs the options keep, then e's given ones, then
 * those added to every entry. */
static int merge_xattrs(const gs_options_t *opt, entry_xattrs_t *x,
			const gs_entry_t *e)
{
	size_t n = x->read.count + e->xattr_count + opt->add_xattr_count;

	x->list = NULL;
	x->count = 0;
	if (n == 0)
		return 0;
	x->list = malloc(n * sizeof(x->list[0]));
	if (x->list == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < x->read.count; ++i) {
		if (opt->keep_xattr_key == NULL ||
		    opt->keep_xattr_key(opt->xattr_user, x->read.list[i].key))
			x->list[x->count++] = x->read.list[i];
	}
	if (e->xattr_count > 0)
		memcpy(x->list + x->count, e->xattrs,
		       e->xattr_count * sizeof(x->list[0]));
	x->count += e->xattr_count;
	for (size_t i = 0; i < opt->add_xattr_count; ++i) {
		if (add_applies(e, &opt->add_xattrs[i]))
			x->list[x->count++] = opt->add_xattrs[i];
	}
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
	return merge_xattrs(pk->opt, x, e);
}

/* ---- attributes ---------------------------------------------------------- */

/* e's path and attributes in the writer's terms (xattrs and what depends
 * on the type are the caller's). */
static void make_entry(const gs_packer_t *pk, const gs_entry_t *e,
		       sqfs_entry_t *out)
{
	const packer_options_t *po = &pk->opt->pk;

	if (e->default_attrs) {
		/* --set-uid and --set-gid are in the defaults already */
		sqfs_entry_init(out, e->path,
				S_IFDIR |
				    (uint32_t)(po->wr.default_mode & 07777),
				po->wr.default_uid, po->wr.default_gid,
				(int64_t)po->wr.default_mtime);
		return;
	}
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

/* Read [pos, end) of fd, from base on, into the writer; *got is how far
 * it got (less than end if the file shrank). */
static int read_range(gs_packer_t *pk, int fd, const char *path, uint8_t *buf,
		      uint64_t base, uint64_t pos, uint64_t end, uint64_t *got)
{
	int ret;

	while (pos < end) {
		size_t want =
		    end - pos < READ_CHUNK ? (size_t)(end - pos) : READ_CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)(base + pos));

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

/* The data of fd, size bytes from base as it was opened: data ranges
 * read, holes (SEEK_DATA/SEEK_HOLE) appended as holes. Positions are
 * relative to base (0 but for a file in a store). */
static int pack_data(gs_packer_t *pk, int fd, const char *path, uint64_t base,
		     uint64_t size, uint64_t *packed)
{
	uint8_t *buf = malloc(READ_CHUNK);
	uint64_t pos = 0, got;
	int ret = 0;

	if (buf == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	while (pos < size && ret == 0) {
		off_t data = lseek(fd, (off_t)(base + pos), SEEK_DATA), hole;

		if (data < 0) {
			/* ENXIO: only a hole from here on; EINVAL: no
			 * SEEK_DATA on this file system, read it all */
			if (errno == ENXIO) {
				data = (off_t)size;
			} else {
				data = (off_t)pos;
			}
		} else {
			data = (uint64_t)data >= base ? data - (off_t)base : 0;
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
		hole = lseek(fd, (off_t)(base + pos), SEEK_HOLE);
		if (hole >= 0)
			hole -= (off_t)base;
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		if ((uint64_t)hole <= pos)
			hole = (off_t)size;
		ret = read_range(pk, fd, path, buf, base, pos, (uint64_t)hole,
				 &got);
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

/* A file that cannot be opened, packed empty with its attributes and a
 * warning, as mksquashfs does (gs_options_t.empty_unreadable_files). */
static int pack_unreadable(gs_packer_t *pk, const gs_entry_t *e,
			   sqfs_entry_t *entry)
{
	int ret;

	tool_warning(gs_input_name(&pk->entries, e),
		     "cannot open: %s; packed as an empty file",
		     strerror(EACCES));
	entry->size = 0;
	ret = sqfs_writer_add(pk->wr, entry, e->file_flags);
	if (ret == 0)
		ret = sqfs_writer_end_file(pk->wr);
	return ret == 0 ? 0 : entry_failed(pk, e, ret);
}

/*
 * A file: read whole by a reader (ahead.c), or read here, in chunks with
 * its holes skipped (ahead is NULL, or left it to the packer). Either
 * way the bytes packed, the size when opened and the size after reading
 * make the same warnings. Its xattrs are read from its input, opened and
 * checked here, before the entry is added.
 */
static int pack_file(gs_packer_t *pk, const gs_entry_t *e, sqfs_entry_t *entry,
		     const gs_ahead_file_t *ahead)
{
	const char *name = gs_input_name(&pk->entries, e);
	uint64_t size, packed = 0, size_after, base;
	entry_xattrs_t x;
	struct stat st;
	int fd = -1, ret, err;

	if (ahead != NULL && ahead->state == GS_AHEAD_FAILED)
		return ahead->err == EACCES && pk->opt->empty_unreadable_files
			   ? pack_unreadable(pk, e, entry)
			   : gs_input_error(&pk->entries, e, ahead->err);
	if (ahead == NULL || ahead->state == GS_AHEAD_SELF ||
	    (pk->opt->keep_xattr && !e->from_listing)) {
		fd = gs_input_open(&pk->opener, e, O_RDONLY, &st, &err);
		if (fd < 0 && err == EACCES && pk->opt->empty_unreadable_files)
			return pack_unreadable(pk, e, entry);
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
		size = gs_input_extent(e, &st, &base);
		ret = pack_data(pk, fd, name, base, size, &packed);
		size_after = fstat(fd, &st) == 0
				 ? gs_input_extent(e, &st, &base)
				 : packed;
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

/* ---- implicit directories ----------------------------------------------- */

/*
 * A listing's implicit directories (gs_entry_t.implicit), taken out of
 * the list: each is added just before the first entry below it, which is
 * when the writer would have made it, so that the ids land in the same
 * order and the image is the same as without them; those with nothing
 * below, and the root, after everything else (the writer gives an
 * implicit root its ids when it finishes). They are released at the end
 * (the index needs their paths).
 */
typedef struct {
	gs_entries_t list;
	gs_path_index_t index;
	bool *packed;
	/* how many are not the root */
	size_t dirs;
	/* the parent of the last entry whose ancestors were added */
	char *last_parent;
	size_t last_len;
	/* room for a prefix of a path, to look it up */
	char *buf;
	size_t buf_size;
} implied_t;

static void implied_free(implied_t *im)
{
	gs_path_index_free(&im->index);
	gs_entries_free(&im->list);
	free(im->packed);
	free(im->last_parent);
	free(im->buf);
	memset(im, 0, sizeof(*im));
}

/* Move the implicit entries at the end of entries into im. */
static int implied_take(implied_t *im, gs_entries_t *entries)
{
	size_t n = entries->count;

	memset(im, 0, sizeof(*im));
	while (n > 0 && entries->list[n - 1].implicit)
		--n;
	for (size_t i = n; i < entries->count; ++i) {
		gs_entry_t *src = &entries->list[i], *dst;
		size_t *slot;

		dst = gs_entries_push(&im->list, src->path);
		if (dst == NULL) {
			/* the path went with it */
			src->path = NULL;
			goto oom;
		}
		*dst = *src;
		memset(src, 0, sizeof(*src));
		if (gs_path_index_reserve(&im->index, &im->list) != 0)
			goto oom;
		slot = gs_path_index_slot(&im->index, &im->list, dst->path);
		*slot = im->list.count - 1;
	}
	entries->count = n;
	im->packed = calloc(im->list.count + 1, sizeof(im->packed[0]));
	if (im->packed == NULL)
		goto oom;
	for (size_t i = 0; i < im->list.count; ++i)
		im->dirs += im->list.list[i].path[0] != '\0' ? 1 : 0;
	return 0;
oom:
	/* what was not moved is freed with the list */
	tool_error(NULL, "out of memory");
	return -1;
}

static int pack_implied(gs_packer_t *pk, implied_t *im, size_t i)
{
	int ret;

	im->packed[i] = true;
	ret = pack_entry(pk, &im->list.list[i], NULL);
	if (ret != 0)
		return -1;
	if (pk->on_packed != NULL)
		pk->on_packed(pk->on_packed_user, &im->list.list[i]);
	pk->entries_done += 1;
	progress_update(pk->progress, pk->bytes_done, pk->entries_done);
	return 0;
}

/* Add the implicit directories above path not added yet, from the top. */
static int pack_implied_above(gs_packer_t *pk, implied_t *im, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len;

	/* only the root is above it, or nothing is implicit but the root */
	if (slash == NULL || im->dirs == 0)
		return 0;
	len = (size_t)(slash - path);
	if (im->last_parent != NULL && im->last_len == len &&
	    memcmp(im->last_parent, path, len) == 0)
		return 0;
	if (len + 1 > im->buf_size) {
		char *buf = realloc(im->buf, len + 1);

		if (buf == NULL)
			goto oom;
		im->buf = buf;
		im->buf_size = len + 1;
	}
	memcpy(im->buf, path, len);
	im->buf[len] = '\0';
	for (size_t i = 1; i <= len; ++i) {
		size_t *slot;

		if (i < len && im->buf[i] != '/')
			continue;
		im->buf[i] = '\0';
		slot = gs_path_index_slot(&im->index, &im->list, im->buf);
		if (*slot != SIZE_MAX && !im->packed[*slot] &&
		    pack_implied(pk, im, *slot) != 0)
			return -1;
		if (i < len)
			im->buf[i] = '/';
	}
	/* the next entry is likely in the same directory */
	free(im->last_parent);
	im->last_parent = strndup(path, len);
	if (im->last_parent == NULL)
		goto oom;
	im->last_len = len;
	return 0;
oom:
	tool_error(NULL, "out of memory");
	return -1;
}

/* The implicit directories nothing below them brought in, in their
 * order, which puts the root last. */
static int pack_implied_rest(gs_packer_t *pk, implied_t *im)
{
	for (size_t i = 0; i < im->list.count; ++i) {
		if (!im->packed[i] && pack_implied(pk, im, i) != 0)
			return -1;
	}
	return 0;
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

	if (ret == 0 && pk->on_packed != NULL)
		pk->on_packed(pk->on_packed_user, e);
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
	implied_t im;
	size_t count = 0;
	bool in_order = true;
	int ret = 0;

	progress_set_total(pk->progress, entries->total_bytes);
	if (implied_take(&im, entries) != 0) {
		implied_free(&im);
		return -1;
	}
	/* the non-files first; then only the files are kept, moved to the
	 * front in their order (a moved entry's old place is emptied, so
	 * that nothing is owned twice), and the room of the rest is given
	 * back */
	for (size_t i = 0; i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];

		if (!is_file(e)) {
			if (pack_implied_above(pk, &im, e->path) != 0 ||
			    pack_one(pk, e, NULL) != 0) {
				implied_free(&im);
				return -1;
			}
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
		implied_free(&im);
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
		const gs_ahead_file_t *next = gs_ahead_next(ahead);

		ret = pack_implied_above(pk, &im, files[i]->path);
		if (ret == 0)
			ret = pack_one(pk, files[i], next);
		/* packed in list order (no sort file, or one that keeps
		 * it): what is behind goes, while the writer's tree grows */
		if (in_order && (i + 1) % DROP_EVERY == 0)
			gs_entries_drop_before(entries, i + 1);
	}
	gs_ahead_destroy(ahead);
	free(files);
	if (ret == 0)
		ret = pack_implied_rest(pk, &im);
	implied_free(&im);
	return ret;
}

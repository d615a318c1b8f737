/* SPDX-License-Identifier: MIT */
/*
 * tar_reader.c - entries of a tar archive, read through libarchive.
 *
 * Names reach the caller as the bytes the archive holds. libarchive copies
 * names of ustar, GNU and v7 headers (and of PAX headers marked
 * hdrcharset=BINARY) unchanged, but converts the UTF-8 of PAX records to
 * the charset of the calling thread's locale, and on the way normalizes
 * them to Unicode NFC: under a UTF-8 locale "e" + U+0301 would come back as
 * U+00E9, a different name. Where the conversion fails it keeps the
 * original bytes and warns. So every call into libarchive runs under a C
 * (ASCII) locale of the reader's own (uselocale, per thread, the caller's
 * locale untouched): ASCII names convert to themselves, every other PAX
 * name fails to convert and is kept as stored, and the warning that says
 * so is recognised and dropped (is_conversion_warning).
 */
#include "config.h"

#include "tar/tar_reader.h"
#include "tar/path.h"
#include "tar/raw_header.h"
#include "sqfs/error.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes libarchive reads from a file descriptor or file at once. */
#define TAR_READ_BLOCK 65536

/* libarchive never returns empty data blocks in a row; if it ever did,
 * give up rather than spin. */
#define TAR_MAX_EMPTY_BLOCKS 1024

typedef enum {
	STATE_NEW,
	STATE_HEADER,
	STATE_DATA,
	STATE_DATA_DONE,
	STATE_EOF,
	STATE_FATAL,
} reader_state_t;

/* A copy of a block of the uncompressed stream passed on to the tar
 * parser, and where it lies in the stream. */
typedef struct {
	uint8_t *data;
	size_t size;
	size_t cap;
	uint64_t offset;
} history_t;

/*
 * Two libarchive readers in a row: raw undoes the compression, ar parses
 * the tar stream it is fed by tee_read. In between, the last two blocks
 * are kept, so that the raw header behind an entry (or a damaged one) can
 * be looked at (tar/raw_header.h).
 *
 * Only headers are ever looked at, right after ar has read them, so a
 * block needs copying only when ar moves past it while reading headers:
 * a block it leaves while reading file data holds no header it will
 * still ask about (the next one starts after the data). The newest block
 * is used in place, as long as raw has not been read again.
 */
struct tar_reader {
	struct archive *raw;
	struct archive *ar;
	reader_state_t state;
	bool raw_started;
	bool raw_eof;
	/* ar is inside archive_read_next_header */
	bool in_header;
	history_t hist[2];
	/* the block raw returned last (cur_size 0: none) */
	const uint8_t *cur;
	size_t cur_size;
	uint64_t cur_offset;

	tar_entry_t ent;
	char *path;
	char *hardlink;
	tar_xattr_t *xattrs;
	size_t xattr_count;

	/* data of the current entry */
	uint64_t pos;
	const void *pending;
	size_t pending_size;

	/* a good header found after damaged ones, returned next time */
	bool have_pending_entry;

	/* a report due before the next entry (see check_entry_header),
	 * and the error it is returned with */
	bool have_report;
	int report_code;
	char *report_entry;
	char report[512];

	/* a file opened by tar_reader_open_path, or -1 */
	int own_fd;

	/* the locale libarchive runs under (see the top) */
	locale_t c_locale;

	/* the last entry read well, and where the headers of the entry after
	 * it start (-1: unknown), to say where damage is */
	char *last_path;
	int64_t next_at;

	/* the data the current entry's sparse map holds, in all */
	uint64_t sparse_total;

	char *err_entry;
	char err[512];
};

static void clear_entry(tar_reader_t *rd)
{
	size_t i;

	for (i = 0; i < rd->xattr_count; ++i) {
		free(rd->xattrs[i].key);
		free(rd->xattrs[i].value);
	}
	free(rd->xattrs);
	free(rd->path);
	free(rd->hardlink);
	rd->xattrs = NULL;
	rd->xattr_count = 0;
	rd->path = NULL;
	rd->hardlink = NULL;
	memset(&rd->ent, 0, sizeof(rd->ent));
}

static void set_error(tar_reader_t *rd, const char *entry, const char *why)
{
	free(rd->err_entry);
	rd->err_entry = entry == NULL ? NULL : strdup(entry);
	snprintf(rd->err, sizeof(rd->err), "%s", why);
}

/* Append src to the string in dst, cutting it to fit. Messages are
 * better cut than lost. */
static void append_text(char *dst, size_t size, const char *src)
{
	size_t len = strlen(dst), n = strlen(src);

	if (len + 1 >= size)
		return;
	if (n > size - len - 1)
		n = size - len - 1;
	memcpy(dst + len, src, n);
	dst[len + n] = '\0';
}

static int archive_failure(tar_reader_t *rd, int ret, const char *entry)
{
	const char *why = archive_error_string(rd->ar);
	int err = archive_errno(rd->ar);
	char buf[sizeof(rd->err)];

	if (why == NULL)
		why = "unknown archive error";
	/* a system error: say which ("Error reading fd 4" alone does not);
	 * libarchive's codes for bad data (EILSEQ here) and misuse (EINVAL)
	 * add nothing */
	if (err > 0 && err != EILSEQ && err != EINVAL) {
		snprintf(buf, sizeof(buf), "%s: %s", why, strerror(err));
		why = buf;
	}
	set_error(rd, entry, why);
	if (ret == ARCHIVE_FATAL) {
		rd->state = STATE_FATAL;
		return SQFS_ERROR_IO;
	}
	return SQFS_ERROR_CORRUPTED;
}

int tar_reader_create(tar_reader_t **out)
{
	tar_reader_t *rd = calloc(1, sizeof(*rd));

	if (rd == NULL)
		return SQFS_ERROR_ALLOC;

	rd->own_fd = -1;
	/* the first header is at the start */
	rd->next_at = 0;
	rd->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (rd->c_locale == (locale_t)0) {
		free(rd);
		return SQFS_ERROR_ALLOC;
	}
	rd->raw = archive_read_new();
	rd->ar = archive_read_new();
	if (rd->raw == NULL || rd->ar == NULL) {
		tar_reader_destroy(rd);
		return SQFS_ERROR_ALLOC;
	}

	/*
	 * Only the filters the tools document, and only tar, not "all":
	 * format_all includes mtree, which reads local files an archive
	 * names, and filter_all runs external programs (lrzip, grzip).
	 * Where libarchive was built without one of these libraries it runs
	 * the decompressor program instead (ARCHIVE_WARN): fine. "empty"
	 * makes an empty input an archive without entries.
	 */
	archive_read_support_filter_gzip(rd->raw);
	archive_read_support_filter_xz(rd->raw);
	archive_read_support_filter_zstd(rd->raw);
	archive_read_support_filter_bzip2(rd->raw);
	archive_read_support_filter_lz4(rd->raw);
	if (archive_read_support_format_raw(rd->raw) != ARCHIVE_OK ||
	    archive_read_support_format_empty(rd->raw) != ARCHIVE_OK ||
	    archive_read_support_format_tar(rd->ar) != ARCHIVE_OK ||
	    archive_read_support_format_empty(rd->ar) != ARCHIVE_OK) {
		tar_reader_destroy(rd);
		return SQFS_ERROR_UNSUPPORTED;
	}

	*out = rd;
	return 0;
}

int tar_reader_set_ignore_zeros(tar_reader_t *rd, bool ignore)
{
	/* libarchive's tar reader stops at the end-of-archive blocks
	 * unless told to look for another archive after them */
	if (archive_read_set_format_option(rd->ar, "tar",
					   "read_concatenated_archives",
					   ignore ? "1" : NULL) != ARCHIVE_OK)
		return SQFS_ERROR_UNSUPPORTED;
	return 0;
}

void tar_reader_destroy(tar_reader_t *rd)
{
	if (rd == NULL)
		return;
	if (rd->ar != NULL)
		archive_read_free(rd->ar);
	if (rd->raw != NULL)
		archive_read_free(rd->raw);
	if (rd->own_fd >= 0)
		close(rd->own_fd);
	if (rd->c_locale != (locale_t)0)
		freelocale(rd->c_locale);
	clear_entry(rd);
	free(rd->hist[0].data);
	free(rd->hist[1].data);
	free(rd->last_path);
	free(rd->report_entry);
	free(rd->err_entry);
	free(rd);
}

static int remember(tar_reader_t *rd, const void *data, size_t size,
		    uint64_t offset)
{
	history_t tmp = rd->hist[0];

	rd->hist[0] = rd->hist[1];
	rd->hist[1] = tmp;

	if (rd->hist[1].cap < size) {
		uint8_t *p = realloc(rd->hist[1].data, size);

		if (p == NULL)
			return -1;
		rd->hist[1].data = p;
		rd->hist[1].cap = size;
	}
	memcpy(rd->hist[1].data, data, size);
	rd->hist[1].size = size;
	rd->hist[1].offset = offset;
	return 0;
}

/* The TAR_HEADER_SIZE bytes at offset of the stream, if still kept. */
static bool peek_header(const tar_reader_t *rd, int64_t offset, uint8_t *out)
{
	size_t done = 0, i;

	if (offset < 0)
		return false;

	/* oldest first */
	for (i = 0; i < 3 && done < TAR_HEADER_SIZE; ++i) {
		const uint8_t *data = i < 2 ? rd->hist[i].data : rd->cur;
		size_t size = i < 2 ? rd->hist[i].size : rd->cur_size;
		uint64_t at = i < 2 ? rd->hist[i].offset : rd->cur_offset;
		uint64_t want = (uint64_t)offset + done;
		size_t n;

		if (size == 0 || want < at || want - at >= size)
			continue;
		n = size - (size_t)(want - at);
		if (n > TAR_HEADER_SIZE - done)
			n = TAR_HEADER_SIZE - done;
		memcpy(out + done, data + (want - at), n);
		done += n;
	}
	return done == TAR_HEADER_SIZE;
}

/* Feed the tar parser the next block of the uncompressed stream. */
static la_ssize_t tee_read(struct archive *a, void *user, const void **buf)
{
	tar_reader_t *rd = user;
	struct archive_entry *e;
	unsigned int empty = 0;
	const void *data;
	la_int64_t offset;
	size_t size;
	int ret;

	if (rd->raw_eof)
		return 0;

	/* raw is about to reuse the buffer of cur */
	if (rd->cur_size > 0 && rd->in_header &&
	    remember(rd, rd->cur, rd->cur_size, rd->cur_offset)) {
		archive_set_error(a, ENOMEM, "out of memory");
		return -1;
	}
	rd->cur_size = 0;

	if (!rd->raw_started) {
		ret = archive_read_next_header(rd->raw, &e);
		if (ret == ARCHIVE_EOF) {
			rd->raw_eof = true;
			return 0;
		}
		if (ret != ARCHIVE_OK && ret != ARCHIVE_WARN)
			goto fail;
		rd->raw_started = true;
	}

	do {
		ret = archive_read_data_block(rd->raw, &data, &size, &offset);
		if (ret == ARCHIVE_EOF) {
			rd->raw_eof = true;
			return 0;
		}
		if (ret != ARCHIVE_OK && ret != ARCHIVE_WARN)
			goto fail;
	} while (size == 0 && ++empty < TAR_MAX_EMPTY_BLOCKS);

	if (size == 0 || size > (size_t)INT32_MAX) {
		archive_set_error(a, EIO, "no progress reading the input");
		return -1;
	}
	/* raw hands out its own buffer and keeps it until the next call */
	rd->cur = data;
	rd->cur_size = size;
	rd->cur_offset = offset < 0 ? 0 : (uint64_t)offset;
	*buf = data;
	return (la_ssize_t)size;
fail:
	archive_set_error(a, archive_errno(rd->raw), "%s",
			  archive_error_string(rd->raw) != NULL
			      ? archive_error_string(rd->raw)
			      : "cannot read the input");
	return -1;
}

/* Run libarchive under the reader's locale (see the top); leave()
 * gives the caller's back. */
static locale_t enter(tar_reader_t *rd)
{
	return uselocale(rd->c_locale);
}

static void leave(locale_t prev)
{
	uselocale(prev);
}

/* The raw reader has been opened (ret): open the tar parser on it. */
static int open_result(tar_reader_t *rd, int ret)
{
	locale_t prev;

	if (ret != ARCHIVE_OK) {
		const char *why = archive_error_string(rd->raw);

		set_error(rd, NULL, why != NULL ? why : "cannot open");
		append_text(rd->err, sizeof(rd->err),
			    " at offset 0, before any entry");
		rd->state = STATE_FATAL;
		return SQFS_ERROR_IO;
	}
	prev = enter(rd);
	ret = archive_read_open(rd->ar, rd, NULL, tee_read, NULL);
	leave(prev);
	if (ret != ARCHIVE_OK) {
		/* opening reads the first header, to tell the format */
		archive_failure(rd, ARCHIVE_FATAL, NULL);
		append_text(rd->err, sizeof(rd->err),
			    " at offset 0, before any entry");
		return SQFS_ERROR_IO;
	}
	rd->state = STATE_HEADER;
	return 0;
}

int tar_reader_open_fd(tar_reader_t *rd, int fd)
{
	if (rd->state != STATE_NEW)
		return SQFS_ERROR_SEQUENCE;
	return open_result(rd,
			   archive_read_open_fd(rd->raw, fd, TAR_READ_BLOCK));
}

int tar_reader_open_path(tar_reader_t *rd, const char *path)
{
	if (rd->state != STATE_NEW)
		return SQFS_ERROR_SEQUENCE;

	/* opened here rather than by libarchive, for errno's reason */
	rd->own_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (rd->own_fd < 0) {
		set_error(rd, NULL, strerror(errno));
		rd->state = STATE_FATAL;
		return SQFS_ERROR_IO;
	}
	return open_result(
	    rd, archive_read_open_fd(rd->raw, rd->own_fd, TAR_READ_BLOCK));
}

int tar_reader_open_memory(tar_reader_t *rd, const void *data, size_t size)
{
	if (rd->state != STATE_NEW)
		return SQFS_ERROR_SEQUENCE;
	/* libarchive takes a non-const pointer but only reads */
	return open_result(
	    rd, archive_read_open_memory(rd->raw, (void *)data, size));
}

static tar_type_t entry_type(struct archive_entry *e)
{
	if (archive_entry_hardlink(e) != NULL)
		return TAR_TYPE_HARDLINK;

	switch (archive_entry_filetype(e)) {
	case AE_IFDIR:
		return TAR_TYPE_DIR;
	case AE_IFREG:
		return TAR_TYPE_FILE;
	case AE_IFLNK:
		return TAR_TYPE_SYMLINK;
	case AE_IFCHR:
		return TAR_TYPE_CHR;
	case AE_IFBLK:
		return TAR_TYPE_BLK;
	case AE_IFIFO:
		return TAR_TYPE_FIFO;
	case AE_IFSOCK:
		return TAR_TYPE_SOCKET;
	default:
		return TAR_TYPE_OTHER;
	}
}

static int cmp_xattr(const void *a, const void *b)
{
	const tar_xattr_t *x = a, *y = b;
	int ret = strcmp(x->key, y->key);

	if (ret != 0)
		return ret;
	/* same key: the one read later first */
	return x->order < y->order ? 1 : (x->order > y->order ? -1 : 0);
}

static void free_xattr(tar_xattr_t *x)
{
	free(x->key);
	free(x->value);
	x->key = NULL;
	x->value = NULL;
}

/*
 * GNU tar writes '=' and '%' in the key of a SCHILY.xattr record as "%3D"
 * and "%25" (a raw '=' would end the key), and reads them back so;
 * libarchive passes the key on as written. Decode both in place, and
 * nothing else, as GNU tar does. Keys libarchive took from its own
 * LIBARCHIVE.xattr records are already decoded, but it writes every
 * xattr in both records, so reading the SCHILY form as GNU tar would
 * keeps the two in step.
 */
static void decode_schily_key(char *key)
{
	char *in = key, *out = key;

	while (*in != '\0') {
		if (in[0] == '%' && in[1] == '3' && in[2] == 'D') {
			*out++ = '=';
			in += 3;
		} else if (in[0] == '%' && in[1] == '2' && in[2] == '5') {
			*out++ = '%';
			in += 3;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
}

/*
 * libarchive writes every xattr twice: a LIBARCHIVE.xattr record with the
 * key URL-encoded (every byte outside '!'..'~', and '%' and '=', as %XX),
 * which its reader decodes, and a SCHILY.xattr record with the same
 * encoded key, which no reader decodes. The second is a copy under a
 * mangled key: for each key, find a key that is its encoding (after the
 * SCHILY decoding above) with the same value, and mark it for dropping.
 */
static char *libarchive_schily_twin(const char *key)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(key), i, o = 0;
	bool changed = false;
	char *out;

	if (len > SIZE_MAX / 3 - 1)
		return NULL;
	out = malloc(3 * len + 1);
	if (out == NULL)
		return NULL;
	for (i = 0; i < len; ++i) {
		unsigned char c = (unsigned char)key[i];

		/* %25 and %3D read back as '%' and '=' */
		if (c < 33 || c > 126) {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
			changed = true;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	if (!changed) {
		free(out);
		return NULL;
	}
	return out;
}

/* Xattrs marked by an order of SIZE_MAX go; the others keep their order. */
static void drop_marked_xattrs(tar_reader_t *rd)
{
	size_t i, out;

	for (i = 0, out = 0; i < rd->xattr_count; ++i) {
		if (rd->xattrs[i].order == SIZE_MAX) {
			free_xattr(rd->xattrs + i);
			continue;
		}
		rd->xattrs[out++] = rd->xattrs[i];
	}
	rd->xattr_count = out;
}

static int cmp_xattr_key(const void *key, const void *elem)
{
	return strcmp(key, ((const tar_xattr_t *)elem)->key);
}

static void drop_libarchive_twins(tar_reader_t *rd)
{
	size_t i;

	for (i = 0; i < rd->xattr_count; ++i) {
		tar_xattr_t *x = rd->xattrs + i, *twin;
		char *enc = libarchive_schily_twin(x->key);

		if (enc == NULL)
			continue;
		twin = bsearch(enc, rd->xattrs, rd->xattr_count,
			       sizeof(rd->xattrs[0]), cmp_xattr_key);
		if (twin != NULL && twin != x && twin->size == x->size &&
		    memcmp(twin->value, x->value, x->size) == 0)
			twin->order = SIZE_MAX;
		free(enc);
	}
	drop_marked_xattrs(rd);
}

/*
 * Copy the xattrs of e. An archive may carry the same key twice (libarchive
 * writes both a LIBARCHIVE.xattr and a SCHILY.xattr record); as with other
 * pax records the later one wins. Sorting keeps this O(n log n) for
 * archives with very many records.
 */
static int copy_xattrs(tar_reader_t *rd, struct archive_entry *e)
{
	const char *name;
	const void *value;
	size_t size, count, i;
	int n;

	n = archive_entry_xattr_reset(e);
	if (n <= 0)
		return 0;

	rd->xattrs = calloc((size_t)n, sizeof(rd->xattrs[0]));
	if (rd->xattrs == NULL)
		return SQFS_ERROR_ALLOC;

	for (count = 0; count < (size_t)n; ++count) {
		tar_xattr_t *x = rd->xattrs + count;

		if (archive_entry_xattr_next(e, &name, &value, &size) !=
		    ARCHIVE_OK)
			break;

		x->key = strdup(name != NULL ? name : "");
		/* one byte more, so an empty value is not a NULL pointer */
		x->value = malloc(size + 1);
		x->order = count;
		rd->xattr_count = count + 1;
		if (x->key == NULL || x->value == NULL)
			return SQFS_ERROR_ALLOC;
		decode_schily_key(x->key);
		if (size > 0)
			memcpy(x->value, value, size);
		x->size = size;
	}

	/* same keys are next to each other, the one to keep first */
	qsort(rd->xattrs, rd->xattr_count, sizeof(rd->xattrs[0]), cmp_xattr);
	for (i = 1; i < rd->xattr_count; ++i) {
		if (strcmp(rd->xattrs[i - 1].key, rd->xattrs[i].key) == 0)
			rd->xattrs[i].order = SIZE_MAX;
	}
	drop_marked_xattrs(rd);
	drop_libarchive_twins(rd);
	return 0;
}

/* Whether every data run of a sparse file lies within its size; caught
 * here, the entry can be skipped before any of it is stored. The runs'
 * total goes to *total (see check_entry_header). */
static bool sparse_map_ok(struct archive_entry *e, uint64_t size,
			  uint64_t *total)
{
	la_int64_t offset, length;
	int count = archive_entry_sparse_reset(e);

	*total = 0;
	while (count-- > 0 &&
	       archive_entry_sparse_next(e, &offset, &length) == ARCHIVE_OK) {
		if (offset < 0 || length < 0 || (uint64_t)offset > size ||
		    (uint64_t)length > size - (uint64_t)offset)
			return false;
		*total += (uint64_t)length;
	}
	return true;
}

static int fill_entry(tar_reader_t *rd, struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e);
	tar_entry_t *ent = &rd->ent;
	int ret;

	if (name == NULL) {
		set_error(rd, NULL, "entry without a name");
		return SQFS_ERROR_CORRUPTED;
	}

	ent->raw_path = name;
	ret = tar_path_canonical(name, &rd->path, &ent->unsafe);
	if (ret != 0)
		return ret;
	ent->path = rd->path;

	ent->type = entry_type(e);
	ent->mode = (uint32_t)archive_entry_perm(e) & 07777;
	ent->uid = archive_entry_uid(e);
	ent->gid = archive_entry_gid(e);
	ent->uname = archive_entry_uname(e);
	ent->gname = archive_entry_gname(e);
	if (ent->uname != NULL && ent->uname[0] == '\0')
		ent->uname = NULL;
	if (ent->gname != NULL && ent->gname[0] == '\0')
		ent->gname = NULL;
	ent->mtime_set = archive_entry_mtime_is_set(e) != 0;
	ent->mtime = ent->mtime_set ? (int64_t)archive_entry_mtime(e) : 0;

	if (ent->type == TAR_TYPE_FILE) {
		int64_t size = archive_entry_size(e);

		if (archive_entry_size_is_set(e) && size < 0) {
			set_error(rd, name, "negative file size");
			return SQFS_ERROR_CORRUPTED;
		}
		ent->size = size > 0 ? (uint64_t)size : 0;

		if (!sparse_map_ok(e, ent->size, &rd->sparse_total)) {
			set_error(
			    rd, name,
			    "the sparse map reaches beyond the file size");
			return SQFS_ERROR_CORRUPTED;
		}
	}

	if (ent->type == TAR_TYPE_SYMLINK) {
		ent->symlink = archive_entry_symlink(e);
		if (ent->symlink == NULL)
			ent->symlink = "";
	}

	if (ent->type == TAR_TYPE_HARDLINK) {
		ret = tar_path_canonical(archive_entry_hardlink(e),
					 &rd->hardlink, &ent->hardlink_unsafe);
		if (ret != 0)
			return ret;
		ent->hardlink = rd->hardlink;
	}

	if (ent->type == TAR_TYPE_CHR || ent->type == TAR_TYPE_BLK) {
		ent->rdev_major = (uint64_t)archive_entry_rdevmajor(e);
		ent->rdev_minor = (uint64_t)archive_entry_rdevminor(e);
	}

	ret = copy_xattrs(rd, e);
	if (ret != 0)
		return ret;
	ent->xattrs = rd->xattrs;
	ent->xattr_count = rd->xattr_count;
	return 0;
}

/* " at offset N, after 'PREV'": where in the archive a header lies. After
 * a fatal error libarchive knows no header position: then N is where the
 * headers after the last good entry start, or, if that is unknown, how
 * far the tar parser got. */
static void describe_place(const tar_reader_t *rd, int64_t at, char *buf,
			   size_t size)
{
	if (at < 0)
		at = rd->next_at >= 0 ? rd->next_at
				      : (int64_t)tar_reader_position(rd);
	if (rd->last_path != NULL)
		snprintf(buf, size, " at offset %lld, after '%s'",
			 (long long)at, rd->last_path);
	else
		snprintf(buf, size, " at offset %lld, before any entry",
			 (long long)at);
}

/* The name in the raw header at offset, if it is still at hand. */
static bool header_name_at(const tar_reader_t *rd, int64_t at, char *buf,
			   size_t size)
{
	uint8_t h[TAR_HEADER_SIZE];

	if (!peek_header(rd, at, h))
		return false;
	tar_header_name(h, buf, size);
	return buf[0] != '\0';
}

static bool has_byte_above_ascii(const char *s)
{
	for (; s != NULL && *s != '\0'; ++s) {
		if ((unsigned char)*s >= 0x80)
			return true;
	}
	return false;
}

/*
 * Whether the warning libarchive gave for entry e says only that a name
 * could not be converted to the (C) locale, in which case it kept the
 * name as stored (see the top): the text says so, and one of the names
 * has a byte outside ASCII, without which the conversion cannot fail.
 */
static bool is_conversion_warning(struct archive *ar, struct archive_entry *e)
{
	static const char *const fields[] = {"Pathname ", "Linkname ", "Uname ",
					     "Gname "};
	const char *w = archive_error_string(ar);
	bool known = false;
	size_t i;

	if (w == NULL || strstr(w, " can't be converted from ") == NULL)
		return false;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
		if (strncmp(w, fields[i], strlen(fields[i])) == 0)
			known = true;
	}
	return known && (has_byte_above_ascii(archive_entry_pathname(e)) ||
			 has_byte_above_ascii(archive_entry_symlink(e)) ||
			 has_byte_above_ascii(archive_entry_hardlink(e)) ||
			 has_byte_above_ascii(archive_entry_uname(e)) ||
			 has_byte_above_ascii(archive_entry_gname(e)));
}

/* Turn what archive_read_next_header returned into the reader's state. */
static int header_result(tar_reader_t *rd, int ret, struct archive_entry *e,
			 int64_t at)
{
	char name[256], place[384];
	const char *ename;
	int fret;

	switch (ret) {
	case ARCHIVE_EOF:
		rd->state = STATE_EOF;
		return 1;
	case ARCHIVE_OK:
	case ARCHIVE_WARN:
		fret = fill_entry(rd, e);
		if (fret == 0 && ret == ARCHIVE_WARN &&
		    !is_conversion_warning(rd->ar, e)) {
			/* libarchive read the entry but passed over
			 * something it could not make sense of: what the
			 * entry is meant to be is unknown */
			const char *w = archive_error_string(rd->ar);

			set_error(rd, rd->ent.raw_path,
				  w != NULL ? w : "unknown warning");
			fret = SQFS_ERROR_CORRUPTED;
		}
		if (fret == SQFS_ERROR_CORRUPTED) {
			/* the data, if any, is skipped with the entry */
			rd->state = STATE_HEADER;
			describe_place(rd, at, place, sizeof(place));
			append_text(rd->err, sizeof(rd->err), place);
			return fret;
		}
		if (fret != 0) {
			set_error(rd, NULL, sqfs_error_string(fret));
			rd->state = STATE_FATAL;
			return fret;
		}
		rd->state = STATE_DATA;
		return 0;
	default:
		/* ARCHIVE_FATAL, or ARCHIVE_FAILED: an entry libarchive
		 * cannot represent, where reading may go on. Name the entry
		 * as well as possible and say where it is. */
		ename = e != NULL ? archive_entry_pathname(e) : NULL;
		if (ename == NULL && header_name_at(rd, at, name, sizeof(name)))
			ename = name;
		ret = archive_failure(rd, ret, ename);
		if (ret == SQFS_ERROR_CORRUPTED)
			rd->state = STATE_HEADER;
		describe_place(rd, at, place, sizeof(place));
		append_text(rd->err, sizeof(rd->err), place);
		return ret;
	}
}

/* Queue a report due before the next entry. */
static void queue_report(tar_reader_t *rd, int code, const char *entry,
			 const char *why)
{
	rd->report_code = code;
	free(rd->report_entry);
	rd->report_entry = entry != NULL ? strdup(entry) : NULL;
	snprintf(rd->report, sizeof(rd->report), "%s", why);
	rd->have_report = true;
}

typedef enum {
	HEADER_KEEP,
	HEADER_DROP,
	HEADER_FATAL,
} header_verdict_t;

/*
 * Look at the raw header behind an entry libarchive accepted: a volume
 * label it passed over silently (reported; the entry stays), or garbage
 * in a numeric field it read as 0 (reported; the entry goes). Garbage in
 * the size field ends the reading: where the next header starts is then
 * unknown, and guessing could take file contents for entries.
 */
static header_verdict_t check_entry_header(tar_reader_t *rd, int64_t at)
{
	uint8_t h[TAR_HEADER_SIZE];
	char name[256], why[512], place[384];
	const char *bad;
	uint64_t size;
	int hops;

	rd->next_at = -1;
	if (!peek_header(rd, at, h))
		return HEADER_KEEP;

	if (tar_header_type(h) == 'V') {
		tar_header_name(h, name, sizeof(name));
		queue_report(rd, SQFS_ERROR_UNSUPPORTED,
			     name[0] != '\0' ? name : NULL,
			     "a volume label cannot be stored");
	}

	/* the entry's own header comes after its extension headers (pax,
	 * GNU long names, volume label, ...): follow the chain while it is
	 * still at hand */
	for (hops = 0; hops < 32 && strchr("xXgLKAV", tar_header_type(h)) &&
		       tar_header_type(h) != '\0';
	     ++hops) {
		if (!tar_header_next(h, at, &at) || !peek_header(rd, at, h))
			return HEADER_KEEP;
	}
	if (!tar_header_next(h, at, &rd->next_at))
		rd->next_at = -1;
	size = tar_header_size(h);

	bad = tar_header_bad_field(h);
	if (bad == NULL && tar_header_type(h) == 'S' &&
	    rd->sparse_total != size) {
		/* an old GNU sparse header stores exactly the data its map
		 * holds; libarchive drops runs beyond the file's size from
		 * the map it reports, and the data they held would be lost */
		describe_place(rd, at, place, sizeof(place));
		snprintf(why, sizeof(why),
			 "the sparse map does not add up (%llu bytes of data "
			 "stored, %llu mapped)%s",
			 (unsigned long long)size,
			 (unsigned long long)rd->sparse_total, place);
		queue_report(rd, SQFS_ERROR_CORRUPTED, rd->ent.raw_path, why);
		rd->state = STATE_HEADER;
		return HEADER_DROP;
	}
	if (bad == NULL)
		return HEADER_KEEP;

	describe_place(rd, at, place, sizeof(place));
	if (strcmp(bad, "size") == 0) {
		snprintf(why, sizeof(why),
			 "the size field is not a valid number, so the rest "
			 "of the archive cannot be found (header%s)",
			 place);
		set_error(rd, rd->ent.raw_path, why);
		rd->state = STATE_FATAL;
		return HEADER_FATAL;
	}
	snprintf(why, sizeof(why), "the %s field is not a valid number%s", bad,
		 place);
	queue_report(rd, SQFS_ERROR_CORRUPTED, rd->ent.raw_path, why);
	rd->state = STATE_HEADER;
	return HEADER_DROP;
}

static int next_entry(tar_reader_t *rd, const tar_entry_t **out)
{
	char why[256] = "", name[256] = "", place[384];
	char msg[sizeof(rd->err)];
	struct archive_entry *e = NULL;
	int64_t at, damaged_at = -1;
	uint64_t damaged = 0;
	bool keep;
	int ret;

	switch (rd->state) {
	case STATE_HEADER:
	case STATE_DATA:
	case STATE_DATA_DONE:
		break;
	case STATE_EOF:
		if (!rd->have_report)
			return 1;
		break;
	case STATE_FATAL:
		return SQFS_ERROR_IO;
	default:
		return SQFS_ERROR_SEQUENCE;
	}

	if (rd->have_report) {
		rd->have_report = false;
		set_error(rd, rd->report_entry, rd->report);
		return rd->report_code;
	}
	if (rd->have_pending_entry) {
		rd->have_pending_entry = false;
		*out = &rd->ent;
		return 0;
	}

	clear_entry(rd);
	rd->sparse_total = 0;
	rd->pos = 0;
	rd->pending = NULL;
	rd->pending_size = 0;

	/*
	 * A damaged header makes libarchive return ARCHIVE_RETRY; each call
	 * then tries the next 512-byte block, so a damaged header followed
	 * by its data gives a run of them. Report the run once, naming the
	 * entry from the raw header if it is legible. The loop ends: every
	 * try consumes input.
	 */
	for (;;) {
		rd->in_header = true;
		ret = archive_read_next_header(rd->ar, &e);
		rd->in_header = false;
		/* where the header (chain) just read started */
		at = archive_read_header_position(rd->ar);
		if (ret != ARCHIVE_RETRY)
			break;
		if (damaged++ == 0) {
			const char *w = archive_error_string(rd->ar);
			uint8_t h[TAR_HEADER_SIZE];

			damaged_at = at;
			snprintf(why, sizeof(why), "%s",
				 w != NULL ? w : "damaged header");
			if (peek_header(rd, at, h)) {
				tar_header_name(h, name, sizeof(name));
				if (!tar_header_checksum_ok(h))
					snprintf(why, sizeof(why),
						 "damaged header (checksum "
						 "mismatch)");
			}
		}
	}

	if (damaged > 0) {
		char count[64];

		describe_place(rd, damaged_at, place, sizeof(place));
		snprintf(count, sizeof(count), " (%llu block%s passed over)",
			 (unsigned long long)damaged, damaged == 1 ? "" : "s");
		msg[0] = '\0';
		append_text(msg, sizeof(msg), why);
		append_text(msg, sizeof(msg), place);
		append_text(msg, sizeof(msg), count);
	}

	ret = header_result(rd, ret, e, at);
	keep = ret == 0;
	if (ret == 0) {
		header_verdict_t verdict = check_entry_header(rd, at);

		if (verdict == HEADER_FATAL)
			return SQFS_ERROR_CORRUPTED;
		keep = verdict == HEADER_KEEP;
		if (keep) {
			free(rd->last_path);
			rd->last_path = strdup(rd->ent.raw_path);
		}
	}

	if (damaged > 0 && rd->state != STATE_FATAL) {
		/* the entry after the damage, and a report about it, come
		 * with the next calls; an entry that failed is lost with
		 * the damage */
		rd->have_pending_entry = keep;
		set_error(rd, name[0] != '\0' ? name : NULL, msg);
		return SQFS_ERROR_CORRUPTED;
	}
	if (rd->have_report) {
		rd->have_report = false;
		rd->have_pending_entry = keep;
		set_error(rd, rd->report_entry, rd->report);
		return rd->report_code;
	}
	if (ret == 0)
		*out = &rd->ent;
	return ret;
}

int tar_reader_next(tar_reader_t *rd, const tar_entry_t **out)
{
	locale_t prev = enter(rd);
	int ret = next_entry(rd, out);

	leave(prev);
	return ret;
}

static int next_chunk(tar_reader_t *rd, tar_chunk_t *chunk)
{
	unsigned int empty = 0;
	const void *buf;
	size_t size;
	la_int64_t off;
	int ret;

	if (rd->state == STATE_DATA_DONE)
		return 1;
	if (rd->state == STATE_FATAL)
		return SQFS_ERROR_IO;
	if (rd->state != STATE_DATA || rd->have_pending_entry)
		return SQFS_ERROR_SEQUENCE;

	if (rd->pending != NULL) {
		chunk->offset = rd->pos;
		chunk->data = rd->pending;
		chunk->size = rd->pending_size;
		rd->pos += rd->pending_size;
		rd->pending = NULL;
		return 0;
	}

	for (;;) {
		ret = archive_read_data_block(rd->ar, &buf, &size, &off);

		if (ret == ARCHIVE_EOF) {
			/* a hole up to the size, if the data stops short */
			uint64_t end = rd->ent.size;

			rd->state = STATE_DATA_DONE;
			if (end <= rd->pos)
				return 1;
			chunk->offset = rd->pos;
			chunk->data = NULL;
			chunk->size = end - rd->pos;
			rd->pos = end;
			return 0;
		}
		if (ret != ARCHIVE_OK && ret != ARCHIVE_WARN) {
			char place[64];

			ret = archive_failure(rd, ret, rd->ent.raw_path);
			snprintf(place, sizeof(place),
				 " (in its data, archive offset %llu)",
				 (unsigned long long)tar_reader_position(rd));
			append_text(rd->err, sizeof(rd->err), place);
			return ret;
		}

		if (off < 0 || (uint64_t)off < rd->pos) {
			set_error(rd, rd->ent.raw_path,
				  "data blocks overlap or go backwards");
			return SQFS_ERROR_CORRUPTED;
		}
		if ((uint64_t)off > rd->ent.size ||
		    size > rd->ent.size - (uint64_t)off) {
			set_error(rd, rd->ent.raw_path,
				  "data beyond the file size (a bad sparse "
				  "map?)");
			return SQFS_ERROR_CORRUPTED;
		}
		if (size > 0)
			break;
		if (++empty > TAR_MAX_EMPTY_BLOCKS) {
			set_error(rd, rd->ent.raw_path,
				  "no progress reading data");
			return SQFS_ERROR_CORRUPTED;
		}
	}

	if ((uint64_t)off > rd->pos) {
		chunk->offset = rd->pos;
		chunk->data = NULL;
		chunk->size = (uint64_t)off - rd->pos;
		rd->pos = (uint64_t)off;
		rd->pending = buf;
		rd->pending_size = size;
		return 0;
	}

	chunk->offset = rd->pos;
	chunk->data = buf;
	chunk->size = size;
	rd->pos += size;
	return 0;
}

int tar_reader_read_chunk(tar_reader_t *rd, tar_chunk_t *chunk)
{
	locale_t prev = enter(rd);
	int ret = next_chunk(rd, chunk);

	leave(prev);
	return ret;
}

const char *tar_reader_error(const tar_reader_t *rd)
{
	return rd->err[0] != '\0' ? rd->err : "no error";
}

const char *tar_reader_error_entry(const tar_reader_t *rd)
{
	return rd->err_entry;
}

bool tar_reader_is_fatal(const tar_reader_t *rd)
{
	return rd->state == STATE_FATAL;
}

uint64_t tar_reader_position(const tar_reader_t *rd)
{
	la_int64_t n = archive_filter_bytes(rd->ar, 0);

	return n > 0 ? (uint64_t)n : 0;
}

uint32_t tar_type_mode(tar_type_t t)
{
	switch (t) {
	case TAR_TYPE_DIR:
		return S_IFDIR;
	case TAR_TYPE_FILE:
		return S_IFREG;
	case TAR_TYPE_SYMLINK:
		return S_IFLNK;
	case TAR_TYPE_CHR:
		return S_IFCHR;
	case TAR_TYPE_BLK:
		return S_IFBLK;
	case TAR_TYPE_FIFO:
		return S_IFIFO;
	case TAR_TYPE_SOCKET:
		return S_IFSOCK;
	default:
		return 0;
	}
}

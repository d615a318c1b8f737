/* SPDX-License-Identifier: MIT */
/*
 * test_tar_reader.c - archives written in memory by libarchive (pax,
 * GNU, ustar, v7; compressed or not) read back through lib/tar, checking
 * every field, the data chunks and the holes; and damaged archives.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tar/tar_reader.h"
#include "sqfs/error.h"

#include <archive.h>
#include <archive_entry.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARCHIVE_CAP (4u << 20)

typedef struct {
	struct archive *ar;
	uint8_t *buf;
	size_t used;
} builder_t;

static void builder_start(builder_t *b, int (*set_format)(struct archive *),
			  int (*add_filter)(struct archive *))
{
	b->buf = calloc(1, ARCHIVE_CAP);
	assert_non_null(b->buf);
	b->used = 0;
	b->ar = archive_write_new();
	assert_non_null(b->ar);
	assert_int_equal(set_format(b->ar), ARCHIVE_OK);
	if (add_filter != NULL)
		assert_int_equal(add_filter(b->ar), ARCHIVE_OK);
	/* no padding of the last block to 10 KiB */
	archive_write_set_bytes_in_last_block(b->ar, 1);
	assert_int_equal(
	    archive_write_open_memory(b->ar, b->buf, ARCHIVE_CAP, &b->used),
	    ARCHIVE_OK);
}

static void builder_finish(builder_t *b)
{
	assert_int_equal(archive_write_close(b->ar), ARCHIVE_OK);
	archive_write_free(b->ar);
	b->ar = NULL;
}

static struct archive_entry *new_entry(const char *path, unsigned int type,
				       unsigned int perm)
{
	struct archive_entry *e = archive_entry_new();

	assert_non_null(e);
	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_uid(e, 1000);
	archive_entry_set_gid(e, 100);
	archive_entry_set_mtime(e, 1600000000, 0);
	return e;
}

static void add(builder_t *b, struct archive_entry *e, const void *data,
		size_t size)
{
	int ret = archive_write_header(b->ar, e);

	assert_true(ret == ARCHIVE_OK || ret == ARCHIVE_WARN);
	if (size > 0)
		assert_int_equal(archive_write_data(b->ar, data, size),
				 (ssize_t)size);
	archive_entry_free(e);
}

static void add_file(builder_t *b, const char *path, const void *data,
		     size_t size)
{
	struct archive_entry *e = new_entry(path, AE_IFREG, 0644);

	archive_entry_set_size(e, (la_int64_t)size);
	add(b, e, data, size);
}

static tar_reader_t *open_builder(const builder_t *b)
{
	tar_reader_t *rd;

	assert_int_equal(tar_reader_create(&rd), 0);
	assert_int_equal(tar_reader_open_memory(rd, b->buf, b->used), 0);
	return rd;
}

/* Read a file's data, checking the chunk sequence: contiguous, in order,
 * no empty chunk; returns a malloc'd copy with holes as zeros and the
 * number of hole bytes. */
static uint8_t *read_all(tar_reader_t *rd, uint64_t size, uint64_t *holes)
{
	uint8_t *out = calloc(1, size + 1);
	uint64_t pos = 0;
	tar_chunk_t c;
	int ret;

	assert_non_null(out);
	*holes = 0;
	while ((ret = tar_reader_read_chunk(rd, &c)) == 0) {
		assert_int_equal(c.offset, pos);
		assert_true(c.size > 0);
		assert_true(c.size <= size - pos);
		if (c.data == NULL)
			*holes += c.size;
		else
			memcpy(out + pos, c.data, c.size);
		pos += c.size;
	}
	assert_int_equal(ret, 1);
	assert_int_equal(pos, size);
	/* the end stays the end */
	assert_int_equal(tar_reader_read_chunk(rd, &c), 1);
	return out;
}

static const tar_entry_t *next_ok(tar_reader_t *rd)
{
	const tar_entry_t *ent = NULL;
	int ret = tar_reader_next(rd, &ent);

	if (ret != 0)
		fail_msg("tar_reader_next: %d, %s", ret, tar_reader_error(rd));
	assert_non_null(ent);
	return ent;
}

static void check_common(const tar_entry_t *ent, const char *path,
			 tar_type_t type, uint32_t mode)
{
	assert_string_equal(ent->path, path);
	assert_int_equal(ent->type, type);
	assert_int_equal(ent->mode, mode);
	assert_int_equal(ent->uid, 1000);
	assert_int_equal(ent->gid, 100);
	assert_true(ent->mtime_set);
	assert_int_equal(ent->mtime, 1600000000);
	assert_false(ent->unsafe);
}

static const char *find_xattr(const tar_entry_t *ent, const char *key,
			      size_t *size)
{
	size_t i;

	for (i = 0; i < ent->xattr_count; ++i) {
		if (strcmp(ent->xattrs[i].key, key) == 0) {
			*size = ent->xattrs[i].size;
			return ent->xattrs[i].value;
		}
	}
	return NULL;
}

/* Every entry type the tools store, in the given format. */
static void check_all_types(int (*set_format)(struct archive *),
			    bool has_xattrs)
{
	static const char text[] = "hello, world\n";
	struct archive_entry *e;
	const tar_entry_t *ent;
	tar_reader_t *rd;
	uint64_t holes;
	uint8_t *data;
	builder_t b;

	builder_start(&b, set_format, NULL);

	add(&b, new_entry("./dir/", AE_IFDIR, 0750), NULL, 0);
	add_file(&b, "./dir/file.txt", text, sizeof(text) - 1);

	e = new_entry("dir/link", AE_IFLNK, 0777);
	archive_entry_set_symlink(e, "../some//target/");
	add(&b, e, NULL, 0);

	e = new_entry("dir/hard", AE_IFREG, 0644);
	archive_entry_set_hardlink(e, "./dir//file.txt");
	add(&b, e, NULL, 0);

	e = new_entry("dev/tty0", AE_IFCHR, 0620);
	archive_entry_set_rdevmajor(e, 4);
	archive_entry_set_rdevminor(e, 1);
	add(&b, e, NULL, 0);

	e = new_entry("dev/sda1", AE_IFBLK, 0660);
	archive_entry_set_rdevmajor(e, 8);
	archive_entry_set_rdevminor(e, 1);
	add(&b, e, NULL, 0);

	add(&b, new_entry("fifo", AE_IFIFO, 0600), NULL, 0);

	if (has_xattrs) {
		static const char bin[] = {'a', '\0', 'b'};

		e = new_entry("x", AE_IFREG, 0600);
		archive_entry_set_size(e, 0);
		archive_entry_xattr_add_entry(e, "user.mime", "text/plain", 10);
		archive_entry_xattr_add_entry(e, "security.bin", bin, 3);
		archive_entry_xattr_add_entry(e, "trusted.empty", "", 0);
		/* a key given twice: the later value wins */
		archive_entry_xattr_add_entry(e, "user.dup", "first", 5);
		archive_entry_xattr_add_entry(e, "user.dup", "second", 6);
		add(&b, e, NULL, 0);
	}
	builder_finish(&b);

	rd = open_builder(&b);

	ent = next_ok(rd);
	check_common(ent, "dir", TAR_TYPE_DIR, 0750);
	assert_string_equal(ent->raw_path, "./dir/");

	ent = next_ok(rd);
	check_common(ent, "dir/file.txt", TAR_TYPE_FILE, 0644);
	assert_int_equal(ent->size, sizeof(text) - 1);
	data = read_all(rd, ent->size, &holes);
	assert_memory_equal(data, text, sizeof(text) - 1);
	assert_int_equal(holes, 0);
	free(data);

	ent = next_ok(rd);
	check_common(ent, "dir/link", TAR_TYPE_SYMLINK, 0777);
	/* symlink targets are stored as given */
	assert_string_equal(ent->symlink, "../some//target/");

	ent = next_ok(rd);
	assert_string_equal(ent->path, "dir/hard");
	assert_int_equal(ent->type, TAR_TYPE_HARDLINK);
	assert_string_equal(ent->hardlink, "dir/file.txt");
	assert_false(ent->hardlink_unsafe);

	ent = next_ok(rd);
	check_common(ent, "dev/tty0", TAR_TYPE_CHR, 0620);
	assert_int_equal(ent->rdev_major, 4);
	assert_int_equal(ent->rdev_minor, 1);

	ent = next_ok(rd);
	check_common(ent, "dev/sda1", TAR_TYPE_BLK, 0660);
	assert_int_equal(ent->rdev_major, 8);
	assert_int_equal(ent->rdev_minor, 1);

	ent = next_ok(rd);
	check_common(ent, "fifo", TAR_TYPE_FIFO, 0600);

	if (has_xattrs) {
		const char *v;
		size_t size;

		ent = next_ok(rd);
		check_common(ent, "x", TAR_TYPE_FILE, 0600);
		assert_int_equal(ent->xattr_count, 4);
		/* sorted by key */
		assert_string_equal(ent->xattrs[0].key, "security.bin");
		assert_string_equal(ent->xattrs[3].key, "user.mime");
		v = find_xattr(ent, "user.dup", &size);
		assert_non_null(v);
		assert_int_equal(size, 6);
		assert_memory_equal(v, "second", 6);
		v = find_xattr(ent, "user.mime", &size);
		assert_non_null(v);
		assert_int_equal(size, 10);
		assert_memory_equal(v, "text/plain", 10);
		v = find_xattr(ent, "security.bin", &size);
		assert_non_null(v);
		assert_int_equal(size, 3);
		assert_memory_equal(v, "a\0b", 3);
		v = find_xattr(ent, "trusted.empty", &size);
		assert_non_null(v);
		assert_int_equal(size, 0);
	}

	assert_int_equal(tar_reader_next(rd, &ent), 1);
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
	free(b.buf);
}

static void test_pax(void **state)
{
	(void)state;
	check_all_types(archive_write_set_format_pax, true);
}

static void test_gnutar(void **state)
{
	(void)state;
	check_all_types(archive_write_set_format_gnutar, false);
}

static void test_ustar(void **state)
{
	(void)state;
	check_all_types(archive_write_set_format_ustar, false);
}

/* Long names and link targets: pax records, GNU ././@LongLink, and the
 * ustar prefix field. */
static void check_long_names(int (*set_format)(struct archive *),
			     size_t name_len, size_t target_len,
			     bool long_hardlink)
{
	char name[4096], target[4096], canon[4100];
	const tar_entry_t *ent;
	struct archive_entry *e;
	tar_reader_t *rd;
	builder_t b;
	size_t i;

	/* components of 9 characters and a slash */
	for (i = 0; i < name_len; ++i)
		name[i] = (i % 10 == 9) ? '/' : (char)('a' + i % 26);
	name[name_len] = '\0';
	if (name[name_len - 1] == '/')
		name[name_len - 1] = 'z';
	for (i = 0; i < target_len; ++i)
		target[i] = (char)('A' + i % 26);
	target[target_len] = '\0';

	builder_start(&b, set_format, NULL);
	add_file(&b, name, "x", 1);
	e = new_entry("l", AE_IFLNK, 0777);
	archive_entry_set_symlink(e, target);
	add(&b, e, NULL, 0);
	e = new_entry("h", AE_IFREG, 0644);
	if (long_hardlink)
		snprintf(canon, sizeof(canon), "/%s", name);
	else
		snprintf(canon, sizeof(canon), "/%.*s", (int)target_len - 2,
			 target);
	archive_entry_set_hardlink(e, canon);
	add(&b, e, NULL, 0);
	builder_finish(&b);

	rd = open_builder(&b);
	ent = next_ok(rd);
	assert_string_equal(ent->path, name);
	assert_int_equal(ent->size, 1);
	ent = next_ok(rd);
	assert_string_equal(ent->symlink, target);
	ent = next_ok(rd);
	assert_int_equal(ent->type, TAR_TYPE_HARDLINK);
	assert_string_equal(ent->hardlink, canon + 1);
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
	free(b.buf);
}

static void test_long_names(void **state)
{
	(void)state;
	check_long_names(archive_write_set_format_pax, 3000, 3000, true);
	check_long_names(archive_write_set_format_gnutar, 1000, 1000, true);
	/* 155 bytes of prefix + 100 of name; link targets of 100 */
	check_long_names(archive_write_set_format_ustar, 200, 100, false);
}

/* A sparse file: data and holes come back as such. */
static void test_sparse(void **state)
{
	const size_t size = 5 * 65536 + 1000;
	const tar_entry_t *ent;
	struct archive_entry *e;
	uint8_t *content, *data;
	tar_reader_t *rd;
	uint64_t holes;
	builder_t b;
	size_t i;
	(void)state;

	content = calloc(1, size);
	assert_non_null(content);
	for (i = 4096; i < 8192; ++i)
		content[i] = (uint8_t)(i * 7 + 1);
	for (i = 3 * 65536; i < 3 * 65536 + 10000; ++i)
		content[i] = (uint8_t)(i * 13 + 5);

	builder_start(&b, archive_write_set_format_pax, NULL);
	e = new_entry("sparse", AE_IFREG, 0644);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_sparse_add_entry(e, 4096, 4096);
	archive_entry_sparse_add_entry(e, 3 * 65536, 10000);
	add(&b, e, content, size);
	add_file(&b, "after", "tail", 4);
	builder_finish(&b);
	/* the holes were not stored */
	assert_true(b.used < 64 * 1024);

	rd = open_builder(&b);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "sparse");
	assert_int_equal(ent->type, TAR_TYPE_FILE);
	assert_int_equal(ent->size, size);
	data = read_all(rd, size, &holes);
	assert_memory_equal(data, content, size);
	assert_int_equal(holes, size - 4096 - 10000);
	free(data);

	ent = next_ok(rd);
	assert_string_equal(ent->path, "after");
	data = read_all(rd, 4, &holes);
	assert_memory_equal(data, "tail", 4);
	free(data);
	tar_reader_destroy(rd);
	free(content);
	free(b.buf);
}

/* Data not read is skipped by the next header. */
static void test_skip_data(void **state)
{
	static uint8_t big[300000];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	tar_chunk_t c;
	builder_t b;
	(void)state;

	memset(big, 0x5a, sizeof(big));
	builder_start(&b, archive_write_set_format_gnutar, NULL);
	add_file(&b, "a", big, sizeof(big));
	add_file(&b, "b", big, sizeof(big));
	add_file(&b, "c", "c", 1);
	builder_finish(&b);

	rd = open_builder(&b);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "a");
	ent = next_ok(rd);
	assert_string_equal(ent->path, "b");
	assert_int_equal(tar_reader_read_chunk(rd, &c), 0);
	assert_non_null(c.data);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "c");
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
	free(b.buf);
}

static void check_filter(int (*add_filter)(struct archive *))
{
	const tar_entry_t *ent;
	tar_reader_t *rd;
	uint64_t holes;
	uint8_t *data;
	builder_t b;

	builder_start(&b, archive_write_set_format_pax, add_filter);
	add_file(&b, "compressed", "squash", 6);
	builder_finish(&b);

	rd = open_builder(&b);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "compressed");
	data = read_all(rd, 6, &holes);
	assert_memory_equal(data, "squash", 6);
	free(data);
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
	free(b.buf);
}

static void test_compressed(void **state)
{
	(void)state;
	check_filter(archive_write_add_filter_gzip);
	check_filter(archive_write_add_filter_xz);
	check_filter(archive_write_add_filter_zstd);
	check_filter(archive_write_add_filter_bzip2);
	check_filter(archive_write_add_filter_lz4);
}

/* Names that climb out are flagged, values out of any range are passed
 * on for the caller to judge. */
static void test_unsafe_and_odd(void **state)
{
	const tar_entry_t *ent;
	struct archive_entry *e;
	tar_reader_t *rd;
	builder_t b;
	(void)state;

	builder_start(&b, archive_write_set_format_pax, NULL);
	add_file(&b, "../evil", "x", 1);
	e = new_entry("ok", AE_IFREG, 0644);
	archive_entry_set_hardlink(e, "a/../../etc/passwd");
	add(&b, e, NULL, 0);
	e = new_entry("big-ids", AE_IFDIR, 07777);
	archive_entry_set_uid(e, 99999999999LL);
	archive_entry_set_gid(e, 5000000000LL);
	archive_entry_set_mtime(e, -5, 0);
	add(&b, e, NULL, 0);
	add(&b, new_entry("./", AE_IFDIR, 0700), NULL, 0);
	builder_finish(&b);

	rd = open_builder(&b);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "../evil");
	assert_true(ent->unsafe);
	ent = next_ok(rd);
	assert_false(ent->unsafe);
	assert_true(ent->hardlink_unsafe);
	ent = next_ok(rd);
	assert_int_equal(ent->mode, 07777);
	assert_int_equal(ent->uid, 99999999999LL);
	assert_int_equal(ent->gid, 5000000000LL);
	assert_int_equal(ent->mtime, -5);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "");
	assert_int_equal(ent->type, TAR_TYPE_DIR);
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
	free(b.buf);
}

static void test_empty_input(void **state)
{
	const tar_entry_t *ent;
	tar_reader_t *rd;
	(void)state;

	assert_int_equal(tar_reader_create(&rd), 0);
	assert_int_equal(tar_reader_open_memory(rd, "", 0), 0);
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	assert_false(tar_reader_is_fatal(rd));
	tar_reader_destroy(rd);
}

static void test_garbage(void **state)
{
	static uint8_t junk[4096];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(junk); ++i)
		junk[i] = (uint8_t)(i * 31 + 7);
	/* libarchive recognises the format when opening */
	assert_int_equal(tar_reader_create(&rd), 0);
	assert_true(tar_reader_open_memory(rd, junk, sizeof(junk)) < 0);
	assert_true(tar_reader_is_fatal(rd));
	assert_non_null(strstr(tar_reader_error(rd), "format"));
	assert_string_not_equal(tar_reader_error(rd), "no error");
	/* stays failed */
	assert_true(tar_reader_next(rd, &ent) < 0);
	tar_reader_destroy(rd);
}

/* Cut in the middle of a file's data: a fatal error naming the entry. */
static void test_truncated(void **state)
{
	static uint8_t big[20000];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	tar_chunk_t c;
	builder_t b;
	int ret;
	(void)state;

	memset(big, 'q', sizeof(big));
	builder_start(&b, archive_write_set_format_gnutar, NULL);
	add_file(&b, "first", "1", 1);
	add_file(&b, "cut", big, sizeof(big));
	builder_finish(&b);

	rd = open_builder(&b);
	/* re-open on a shorter piece */
	tar_reader_destroy(rd);
	assert_int_equal(tar_reader_create(&rd), 0);
	assert_int_equal(tar_reader_open_memory(rd, b.buf, 1024 + 512 + 5000),
			 0);

	ent = next_ok(rd);
	assert_string_equal(ent->path, "first");
	ent = next_ok(rd);
	assert_string_equal(ent->path, "cut");
	while ((ret = tar_reader_read_chunk(rd, &c)) == 0)
		assert_non_null(c.data);
	assert_true(ret < 0);
	assert_true(tar_reader_is_fatal(rd));
	assert_non_null(tar_reader_error_entry(rd));
	assert_string_equal(tar_reader_error_entry(rd), "cut");
	assert_true(tar_reader_next(rd, &ent) < 0);
	tar_reader_destroy(rd);

	/* cut inside a header */
	assert_int_equal(tar_reader_create(&rd), 0);
	assert_int_equal(tar_reader_open_memory(rd, b.buf, 1024 + 100), 0);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "first");
	assert_true(tar_reader_next(rd, &ent) < 0);
	assert_true(tar_reader_is_fatal(rd));
	tar_reader_destroy(rd);
	free(b.buf);
}

/* A header with a bad checksum is reported once, with its data, and the
 * entries after it are still read. */
static void test_bad_checksum(void **state)
{
	static uint8_t big[5000];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	builder_t b;
	int ret;
	(void)state;

	memset(big, 'z', sizeof(big));
	builder_start(&b, archive_write_set_format_ustar, NULL);
	add_file(&b, "one", "1", 1);
	add_file(&b, "two", big, sizeof(big));
	add_file(&b, "three", "3", 1);
	builder_finish(&b);

	/* "two"'s header is the third block; spoil its checksum */
	assert_memory_equal(b.buf + 1024, "two", 3);
	b.buf[1024 + 148] ^= 0x01;

	rd = open_builder(&b);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "one");
	ret = tar_reader_next(rd, &ent);
	assert_int_equal(ret, SQFS_ERROR_CORRUPTED);
	assert_false(tar_reader_is_fatal(rd));
	assert_non_null(strstr(tar_reader_error(rd), "offset 1024"));
	assert_non_null(strstr(tar_reader_error(rd), "after 'one'"));
	assert_non_null(strstr(tar_reader_error(rd), "checksum"));
	assert_non_null(tar_reader_error_entry(rd));
	assert_string_equal(tar_reader_error_entry(rd), "two");
	ent = next_ok(rd);
	assert_string_equal(ent->path, "three");
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
	free(b.buf);
}

static void test_sequence(void **state)
{
	const tar_entry_t *ent;
	tar_reader_t *rd;
	tar_chunk_t c;
	(void)state;

	assert_int_equal(tar_reader_create(&rd), 0);
	assert_int_equal(tar_reader_next(rd, &ent), SQFS_ERROR_SEQUENCE);
	assert_int_equal(tar_reader_read_chunk(rd, &c), SQFS_ERROR_SEQUENCE);
	assert_int_equal(tar_reader_open_memory(rd, "", 0), 0);
	assert_int_equal(tar_reader_open_memory(rd, "", 0),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	assert_int_equal(tar_reader_read_chunk(rd, &c), SQFS_ERROR_SEQUENCE);
	tar_reader_destroy(rd);
	tar_reader_destroy(NULL);
}

/* Raw archives, for what libarchive's writer will not produce. */
static void set_checksum(uint8_t *h)
{
	unsigned long sum = 0;
	size_t i;

	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; ++i)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06lo", sum);
}

static size_t raw_header(uint8_t *out, const char *name, char type,
			 const char *size_field)
{
	memset(out, 0, 512);
	memcpy(out, name, strlen(name));
	memcpy(out + 100, "0000644", 8);
	memcpy(out + 108, "0000000", 8);
	memcpy(out + 116, "0000000", 8);
	memcpy(out + 124, size_field, strlen(size_field));
	memcpy(out + 136, "00000000000", 12);
	out[156] = (uint8_t)type;
	/* ustar magic and version */
	memcpy(out + 257, "ustar", 6);
	memcpy(out + 263, "00", 2);
	set_checksum(out);
	return 512;
}

static size_t raw_data(uint8_t *out, const char *text)
{
	memset(out, 0, 512);
	memcpy(out, text, strlen(text));
	return 512;
}

/* A pax record "LEN key=value\n". */
static size_t pax_record(char *out, const char *key, const char *value)
{
	size_t body = strlen(key) + strlen(value) + 3, len = body + 1;

	while ((size_t)snprintf(NULL, 0, "%zu", len) + body != len)
		++len;
	return (size_t)sprintf(out, "%zu %s=%s\n", len, key, value);
}

static tar_reader_t *open_raw(const uint8_t *data, size_t size)
{
	tar_reader_t *rd;

	assert_int_equal(tar_reader_create(&rd), 0);
	assert_int_equal(tar_reader_open_memory(rd, data, size), 0);
	return rd;
}

/* A GNU volume label, which libarchive passes over silently, is
 * reported by name; the entry after it is read as usual. */
static void test_volume_label(void **state)
{
	static uint8_t buf[8 * 512];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	uint64_t holes;
	uint8_t *data;
	size_t n = 0;
	(void)state;

	n += raw_header(buf + n, "MYVOLUME", 'V', "00000000000");
	n += raw_header(buf + n, "ok1", '0', "00000000004");
	n += raw_data(buf + n, "one\n");
	n += 1024;

	rd = open_raw(buf, n);
	assert_int_equal(tar_reader_next(rd, &ent), SQFS_ERROR_UNSUPPORTED);
	assert_false(tar_reader_is_fatal(rd));
	assert_string_equal(tar_reader_error_entry(rd), "MYVOLUME");
	assert_non_null(strstr(tar_reader_error(rd), "volume label"));
	ent = next_ok(rd);
	assert_string_equal(ent->path, "ok1");
	data = read_all(rd, 4, &holes);
	assert_memory_equal(data, "one\n", 4);
	free(data);
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
}

/* Garbage in a numeric field, which libarchive reads as 0, is refused:
 * the entry is skipped, or, in the size field, which says where the next
 * header is, the archive ends with an error. */
static void test_garbage_field(void **state)
{
	static uint8_t buf[8 * 512];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	tar_chunk_t c;
	size_t n = 0;
	(void)state;

	n += raw_header(buf + n, "good1", '0', "00000000000");
	n += raw_header(buf + n, "garbage_uid", '0', "00000000000");
	memcpy(buf + n - 512 + 108, "zz9zz9z", 7);
	set_checksum(buf + n - 512);
	n += raw_header(buf + n, "good2", '0', "00000000000");
	n += raw_header(buf + n, "garbage_size", '0', "zz9zz9zz9zz");
	n += raw_header(buf + n, "good3", '0', "00000000000");
	n += 1024;

	rd = open_raw(buf, n);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "good1");
	assert_int_equal(tar_reader_next(rd, &ent), SQFS_ERROR_CORRUPTED);
	assert_false(tar_reader_is_fatal(rd));
	assert_string_equal(tar_reader_error_entry(rd), "garbage_uid");
	assert_non_null(strstr(tar_reader_error(rd), "uid"));
	/* its data cannot be read */
	assert_int_equal(tar_reader_read_chunk(rd, &c), SQFS_ERROR_SEQUENCE);
	ent = next_ok(rd);
	assert_string_equal(ent->path, "good2");

	assert_true(tar_reader_next(rd, &ent) < 0);
	assert_true(tar_reader_is_fatal(rd));
	assert_string_equal(tar_reader_error_entry(rd), "garbage_size");
	assert_non_null(strstr(tar_reader_error(rd), "size"));
	assert_true(tar_reader_next(rd, &ent) < 0);
	tar_reader_destroy(rd);
}

/* A sparse map (PAX 0.1) whose run lies beyond the file's size: an error
 * naming the entry, before or while its data is read. */
static void test_sparse_beyond_size(void **state)
{
	static uint8_t buf[16 * 512];
	const tar_entry_t *ent;
	char pax[512];
	tar_reader_t *rd;
	tar_chunk_t c;
	size_t n = 0, len = 0;
	char size[16];
	int ret;
	(void)state;

	len += pax_record(pax + len, "GNU.sparse.size", "1000");
	len += pax_record(pax + len, "GNU.sparse.numblocks", "1");
	len += pax_record(pax + len, "GNU.sparse.map", "5000,512");
	len += pax_record(pax + len, "GNU.sparse.name", "bad_sparse");
	snprintf(size, sizeof(size), "%011zo", len);
	n += raw_header(buf + n, "PaxHeaders/bad_sparse", 'x', size);
	memcpy(buf + n, pax, len);
	n += 512;
	n += raw_header(buf + n, "bad_sparse", '0', "00000001000");
	n += 512;
	n += raw_header(buf + n, "good2", '0', "00000000000");
	n += 1024;

	rd = open_raw(buf, n);
	ret = tar_reader_next(rd, &ent);
	if (ret == 0) {
		assert_string_equal(ent->path, "bad_sparse");
		while ((ret = tar_reader_read_chunk(rd, &c)) == 0)
			assert_true(c.offset + c.size <= 1000);
		assert_true(ret < 0);
	} else {
		assert_int_equal(ret, SQFS_ERROR_CORRUPTED);
	}
	assert_string_equal(tar_reader_error_entry(rd), "bad_sparse");
	tar_reader_destroy(rd);
}

/* An empty input is an archive without entries, compressed or not. */
static void test_empty_compressed(void **state)
{
	static const uint8_t empty_gz[] = {
	    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
	    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	const tar_entry_t *ent;
	tar_reader_t *rd;
	(void)state;

	rd = open_raw(empty_gz, sizeof(empty_gz));
	assert_int_equal(tar_reader_next(rd, &ent), 1);
	tar_reader_destroy(rd);
}

/* Names that are not ASCII: UTF-8 in PAX records and raw bytes in ustar
 * headers both come back as the bytes stored, without a warning. */
static void test_names_not_ascii(void **state)
{
	static uint8_t buf[8 * 512];
	const char *utf8 = "caf\xc3\xa9 \xe5\x90\x8d\xe5\x89\x8d/\xc3\xbc";
	const tar_entry_t *ent;
	tar_reader_t *rd;
	builder_t b;
	size_t n = 0;
	char name[64];
	(void)state;

	builder_start(&b, archive_write_set_format_pax, NULL);
	add_file(&b, utf8, "x", 1);
	builder_finish(&b);
	rd = open_builder(&b);
	ent = next_ok(rd);
	assert_string_equal(ent->path, utf8);
	tar_reader_destroy(rd);
	free(b.buf);

	snprintf(name, sizeof(name), "bin\xff\xfe\x80");
	n += raw_header(buf + n, name, '0', "00000000000");
	n += 1024;
	rd = open_raw(buf, n);
	ent = next_ok(rd);
	assert_string_equal(ent->path, name);
	tar_reader_destroy(rd);
}

/* A pax 'x' header holding the records in pax, then an entry header;
 * link (if not NULL) goes to its link name field, as tar writes a link's
 * target there too, cut to 100 bytes. */
static size_t pax_entry(uint8_t *out, const char *pax, size_t len,
			const char *name, char type, const char *link)
{
	char size[16];
	size_t n = 0;

	snprintf(size, sizeof(size), "%011zo", len);
	n += raw_header(out + n, "PaxHeaders/x", 'x', size);
	memset(out + n, 0, (len + 511) / 512 * 512);
	memcpy(out + n, pax, len);
	n += (len + 511) / 512 * 512;
	n += raw_header(out + n, name, type, "00000000000");
	if (link != NULL) {
		memcpy(out + n - 512 + 157, link, strnlen(link, 100));
		set_checksum(out + n - 512);
	}
	return n;
}

/*
 * PAX records are UTF-8 by default, and libarchive would normalize them
 * to NFC under a UTF-8 locale, or warn under another. Names come back as
 * stored, without a report, whatever the caller's locale: decomposed and
 * composed forms, bytes that are not UTF-8, control characters; for
 * paths, symlink and hard-link targets, owners' names and xattr keys.
 */
static void test_pax_names_byte_exact(void **state)
{
	static const char *const names[] = {
	    "e\xcc\x81",	     /* e + COMBINING ACUTE (NFD) */
	    "\xc3\xa9",		     /* LATIN SMALL E WITH ACUTE (NFC) */
	    "A\xcc\x8a\xe2\x84\xab", /* A + ring, ANGSTROM SIGN */
	    "lat\xe9in1",	     /* Latin-1, not UTF-8 */
	    "bad\xff\xfe\xc3",	     /* not UTF-8, cut sequence at the end */
	    "ctl\x01\x1b\x7f",	     /* control characters */
	    "\xed\xa0\x80surrogate", /* UTF-16 surrogate as UTF-8 */
	    "plain",
	};
	static const char *const locales[] = {"C", "C.UTF-8", "POSIX"};
	static uint8_t buf[64 * 512];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	char pax[1024];
	size_t i, l, n, len;
	(void)state;

	for (l = 0; l < sizeof(locales) / sizeof(locales[0]); ++l) {
		/* the caller's locale must make no difference */
		if (setlocale(LC_ALL, locales[l]) == NULL)
			continue;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
			char key[64];

			n = 0;
			len = pax_record(pax, "path", names[i]);
			len += pax_record(pax + len, "uname", names[i]);
			snprintf(key, sizeof(key), "SCHILY.xattr.user.%s",
				 names[i]);
			len += pax_record(pax + len, key, "v");
			n += pax_entry(buf + n, pax, len, "f", '0', NULL);
			len = pax_record(pax, "path", "sym");
			len += pax_record(pax + len, "linkpath", names[i]);
			n += pax_entry(buf + n, pax, len, "sym", '2', names[i]);
			len = pax_record(pax, "path", "hard");
			len += pax_record(pax + len, "linkpath", names[i]);
			n +=
			    pax_entry(buf + n, pax, len, "hard", '1', names[i]);
			memset(buf + n, 0, 1024);
			n += 1024;

			rd = open_raw(buf, n);
			if (tar_reader_next(rd, &ent) != 0)
				fail_msg("%s, name %zu: %s", locales[l], i,
					 tar_reader_error(rd));
			assert_string_equal(ent->path, names[i]);
			assert_string_equal(ent->raw_path, names[i]);
			assert_int_equal(ent->xattr_count, 1);
			assert_string_equal(ent->xattrs[0].key + 5, names[i]);
			ent = next_ok(rd);
			assert_int_equal(ent->type, TAR_TYPE_SYMLINK);
			assert_string_equal(ent->symlink, names[i]);
			ent = next_ok(rd);
			assert_int_equal(ent->type, TAR_TYPE_HARDLINK);
			assert_string_equal(ent->hardlink, names[i]);
			assert_int_equal(tar_reader_next(rd, &ent), 1);
			tar_reader_destroy(rd);
		}
	}
	setlocale(LC_ALL, "C");
}

/* A reader on an archive of one empty file "f" with the pax records
 * given (the buffer is reused by the next call). */
static tar_reader_t *open_pax_file(const char *pax, size_t len)
{
	static uint8_t buf[16 * 512];
	size_t n;

	memset(buf, 0, sizeof(buf));
	n = pax_entry(buf, pax, len, "f", '0', NULL);
	return open_raw(buf, n + 1024);
}

/* SCHILY.xattr keys: "%3D" and "%25" are '=' and '%' (GNU tar's way),
 * any other '%' stays. */
static void test_schily_xattr_key_escapes(void **state)
{
	const tar_entry_t *ent;
	tar_reader_t *rd;
	char pax[512];
	size_t len;
	(void)state;

	len = pax_record(pax, "SCHILY.xattr.user.a%3Db%25c%41%3d%2", "1");
	rd = open_pax_file(pax, len);
	ent = next_ok(rd);
	assert_int_equal(ent->xattr_count, 1);
	assert_string_equal(ent->xattrs[0].key, "user.a=b%c%41%3d%2");
	assert_int_equal(ent->xattrs[0].size, 1);
	tar_reader_destroy(rd);
}

/* libarchive's writer puts each xattr in a LIBARCHIVE.xattr record and
 * in a SCHILY.xattr record whose key stays URL-encoded: one xattr, with
 * the decoded key. A SCHILY key that only looks encoded stays. */
static void test_libarchive_xattr_twins(void **state)
{
	const tar_entry_t *ent;
	tar_reader_t *rd;
	char pax[512];
	size_t len;
	(void)state;

	/* "dg" is base64 for "v", "dw" for "w" */
	len = pax_record(pax, "LIBARCHIVE.xattr.user.e%CC%81%3D", "dg");
	len += pax_record(pax + len, "SCHILY.xattr.user.e%CC%81%3D", "v");
	len += pax_record(pax + len, "LIBARCHIVE.xattr.user.x%FF", "dg");
	len += pax_record(pax + len, "SCHILY.xattr.user.x%FF", "w");
	rd = open_pax_file(pax, len);
	ent = next_ok(rd);
	assert_int_equal(ent->xattr_count, 3);
	assert_string_equal(ent->xattrs[0].key, "user.e\xcc\x81=");
	/* a different value: not a copy */
	assert_string_equal(ent->xattrs[1].key, "user.x%FF");
	assert_string_equal(ent->xattrs[2].key, "user.x\xff");
	tar_reader_destroy(rd);
}

/* Extension records libarchive cannot make sense of (it warns and goes
 * on) are damage: the entry is reported, not passed on, and the place is
 * named. */
static void test_malformed_pax(void **state)
{
	static const char *const bad[] = {
	    "99 path=abc\n", /* length past the records */
	    "11 path=abc\n", /* length one short */
	    "x path=abc\n",  /* not a length */
	    "12 pathabc\nX", /* no '=' */
	};
	static uint8_t buf[16 * 512];
	const tar_entry_t *ent;
	tar_reader_t *rd;
	size_t i, n;
	int ret;
	(void)state;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
		n = raw_header(buf, "first", '0', "00000000000");
		n += pax_entry(buf + n, bad[i], strlen(bad[i]), "victim", '0',
			       NULL);
		n += raw_header(buf + n, "last", '0', "00000000000");
		memset(buf + n, 0, 1024);
		n += 1024;

		rd = open_raw(buf, n);
		ent = next_ok(rd);
		assert_string_equal(ent->path, "first");
		ret = tar_reader_next(rd, &ent);
		assert_int_equal(ret, SQFS_ERROR_CORRUPTED);
		assert_non_null(strstr(tar_reader_error(rd), "offset 512"));
		assert_non_null(strstr(tar_reader_error(rd), "after 'first'"));
		if (!tar_reader_is_fatal(rd)) {
			ent = next_ok(rd);
			assert_string_equal(ent->path, "last");
		}
		tar_reader_destroy(rd);
	}
}

/*
 * Read from a file, the reader gets 64 KiB blocks and keeps copies only
 * of blocks it left while reading headers. A volume label in the last 512
 * bytes of the second block, after file data that runs from the first
 * block into the second, is looked at only once the entry after it (in
 * the third block) has been read: it must still be found and reported,
 * whether the file data was read or skipped.
 */
static void test_headers_across_blocks(void **state)
{
	const size_t block = 65536, big = 2 * block - 1024;
	uint8_t *buf = calloc(1, 3 * block);
	const tar_entry_t *ent;
	uint64_t holes;
	tar_reader_t *rd;
	size_t n = 0;
	char size[16];
	uint8_t *data;
	FILE *fp;
	(void)state;

	assert_non_null(buf);
	snprintf(size, sizeof(size), "%011zo", big);
	n += raw_header(buf + n, "big", '0', size);
	memset(buf + n, 'b', big);
	n += big;
	assert_int_equal(n, 2 * block - 512);

	n += raw_header(buf + n, "MYVOLUME", 'V', "00000000000");
	n += raw_header(buf + n, "after", '0', "00000000004");
	n += raw_data(buf + n, "one\n");
	n += 1024;

	fp = tmpfile();
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	assert_int_equal(fflush(fp), 0);

	for (int read_data = 0; read_data < 2; ++read_data) {
		rewind(fp);
		assert_int_equal(tar_reader_create(&rd), 0);
		assert_int_equal(tar_reader_open_fd(rd, fileno(fp)), 0);
		ent = next_ok(rd);
		assert_string_equal(ent->path, "big");
		if (read_data) {
			data = read_all(rd, big, &holes);
			assert_int_equal(holes, 0);
			assert_int_equal(data[0], 'b');
			assert_int_equal(data[big - 1], 'b');
			free(data);
		}
		assert_int_equal(tar_reader_next(rd, &ent),
				 SQFS_ERROR_UNSUPPORTED);
		assert_false(tar_reader_is_fatal(rd));
		assert_string_equal(tar_reader_error_entry(rd), "MYVOLUME");
		assert_non_null(strstr(tar_reader_error(rd), "volume label"));
		ent = next_ok(rd);
		assert_string_equal(ent->path, "after");
		data = read_all(rd, 4, &holes);
		assert_memory_equal(data, "one\n", 4);
		free(data);
		assert_int_equal(tar_reader_next(rd, &ent), 1);
		tar_reader_destroy(rd);
	}
	fclose(fp);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pax),
	    cmocka_unit_test(test_gnutar),
	    cmocka_unit_test(test_ustar),
	    cmocka_unit_test(test_long_names),
	    cmocka_unit_test(test_sparse),
	    cmocka_unit_test(test_skip_data),
	    cmocka_unit_test(test_compressed),
	    cmocka_unit_test(test_unsafe_and_odd),
	    cmocka_unit_test(test_empty_input),
	    cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_bad_checksum),
	    cmocka_unit_test(test_sequence),
	    cmocka_unit_test(test_volume_label),
	    cmocka_unit_test(test_garbage_field),
	    cmocka_unit_test(test_sparse_beyond_size),
	    cmocka_unit_test(test_empty_compressed),
	    cmocka_unit_test(test_names_not_ascii),
	    cmocka_unit_test(test_headers_across_blocks),
	    cmocka_unit_test(test_pax_names_byte_exact),
	    cmocka_unit_test(test_schily_xattr_key_escapes),
	    cmocka_unit_test(test_libarchive_xattr_twins),
	    cmocka_unit_test(test_malformed_pax),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

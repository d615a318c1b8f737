/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/error.h"
#include "sqfs/inode.h"
#include "sqfs/io.h"
#include "sqfs/meta_reader.h"
#include "sqfs/super.h"
#include "sqfs/xattr.h"
#include "sqfs/xattr_writer_internal.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MD SQFS_META_BLOCK_SIZE
#define PREFIX_SIZE 100

static const char *const prefixes[] = {"user.", "trusted.", "security."};

/* The xattr table of an image, checked for layout as it is opened. */
typedef struct {
	sqfs_file_t *file;
	uint64_t kv_start;
	uint64_t hdr;
	uint32_t ids;
	uint64_t *index;
	size_t nblocks;
	sqfs_meta_reader_t *kv;
	sqfs_meta_reader_t *id;
} decoder_t;

typedef struct {
	char key[300];
	uint8_t *value;
	uint32_t size;
	bool ool;
} pair_info_t;

static uint64_t file_u64(sqfs_file_t *file, uint64_t pos)
{
	uint8_t buf[8];

	assert_int_equal(file->read_at(file, pos, buf, 8), 0);
	return get_le64(buf);
}

/* Walk the md-block headers from start; they must end exactly at end. */
static size_t walk_blocks(sqfs_file_t *file, uint64_t start, uint64_t end)
{
	uint8_t hdr[2];
	size_t count = 0, len;

	while (start < end) {
		assert_int_equal(file->read_at(file, start, hdr, 2), 0);
		len = get_le16(hdr) & 0x7FFF;
		assert_true(len >= 1 && len <= MD);
		start += 2 + len;
		++count;
	}
	assert_true(start == end);
	return count;
}

static void decoder_open(decoder_t *d, sqfs_file_t *file,
			 sqfs_compressor_t *cmp, const sqfs_super_t *super)
{
	uint8_t hdr[16];
	size_t i;

	memset(d, 0, sizeof(*d));
	d->file = file;
	d->hdr = super->xattr_id_table_start;
	assert_true(d->hdr != SQFS_TABLE_ABSENT);
	assert_false(super->flags & SQFS_FLAG_NO_XATTRS);
	assert_int_equal(file->read_at(file, d->hdr, hdr, 16), 0);
	d->kv_start = get_le64(hdr);
	d->ids = get_le32(hdr + 8);
	assert_int_equal(get_le32(hdr + 12), 0);
	assert_true(d->ids >= 1);

	/* the index ends the file */
	d->nblocks = ((size_t)d->ids * 16 + MD - 1) / MD;
	assert_int_equal(d->hdr + 16 + 8 * d->nblocks, file->get_size(file));
	d->index = calloc(d->nblocks, sizeof(uint64_t));
	assert_non_null(d->index);
	for (i = 0; i < d->nblocks; ++i)
		d->index[i] = file_u64(file, d->hdr + 16 + 8 * i);

	/* kv stream, then the id blocks, then the header: no gaps */
	assert_true(d->kv_start < d->index[0]);
	walk_blocks(file, d->kv_start, d->index[0]);
	assert_int_equal(walk_blocks(file, d->index[0], d->hdr), d->nblocks);
	for (i = 1; i < d->nblocks; ++i)
		assert_true(d->index[i] > d->index[i - 1]);

	assert_int_equal(sqfs_meta_reader_create(file, cmp, d->kv_start,
						 d->index[0], &d->kv),
			 0);
	assert_int_equal(
	    sqfs_meta_reader_create(file, cmp, d->index[0], d->hdr, &d->id), 0);
}

static void decoder_close(decoder_t *d)
{
	sqfs_meta_reader_destroy(d->kv);
	sqfs_meta_reader_destroy(d->id);
	free(d->index);
}

static void read_entry(decoder_t *d, uint32_t i, uint64_t *ref, uint32_t *count,
		       uint32_t *size)
{
	uint8_t buf[16];

	assert_true(i < d->ids);
	assert_int_equal(
	    sqfs_meta_reader_seek(d->id, d->index[i / 512], (i * 16) % MD), 0);
	assert_int_equal(sqfs_meta_reader_read(d->id, buf, 16), 0);
	*ref = get_le64(buf);
	*count = get_le32(buf + 8);
	*size = get_le32(buf + 12);
}

static void kv_seek(decoder_t *d, uint64_t ref)
{
	assert_true((ref & 0xFFFF) < MD);
	assert_int_equal(sqfs_meta_reader_seek(d->kv, d->kv_start + (ref >> 16),
					       ref & 0xFFFF),
			 0);
}

static uint8_t *read_value(decoder_t *d, uint32_t *size)
{
	uint8_t buf[4], *value;

	assert_int_equal(sqfs_meta_reader_read(d->kv, buf, 4), 0);
	*size = get_le32(buf);
	assert_true(*size <= 65536);
	value = malloc(*size + 1);
	assert_non_null(value);
	assert_int_equal(sqfs_meta_reader_read(d->kv, value, *size), 0);
	value[*size] = 0;
	return value;
}

/* Decode set i into a malloc'd array; *count receives its size. Checks
 * that the entry's size field is the exact byte count. */
static pair_info_t *read_set(decoder_t *d, uint32_t i, uint32_t *count)
{
	uint32_t size, used = 0, j, type, name_size, vsize;
	uint8_t buf[12];
	pair_info_t *pairs;
	uint64_t ref, block;
	size_t offset;

	read_entry(d, i, &ref, count, &size);
	assert_true(*count >= 1);
	pairs = calloc(*count, sizeof(*pairs));
	assert_non_null(pairs);
	kv_seek(d, ref);

	for (j = 0; j < *count; ++j) {
		assert_int_equal(sqfs_meta_reader_read(d->kv, buf, 4), 0);
		type = get_le16(buf);
		name_size = get_le16(buf + 2);
		assert_true((type & ~0x1FFu) == 0 && (type & 0xFF) <= 2);
		assert_true(name_size >= 1);
		strcpy(pairs[j].key, prefixes[type & 0xFF]);
		assert_true(strlen(pairs[j].key) + name_size <= 255);
		assert_int_equal(
		    sqfs_meta_reader_read(
			d->kv, pairs[j].key + strlen(pairs[j].key), name_size),
		    0);
		used += 4 + name_size;

		if (type & 0x100) {
			pairs[j].ool = true;
			assert_int_equal(sqfs_meta_reader_read(d->kv, buf, 12),
					 0);
			assert_int_equal(get_le32(buf), 8);
			sqfs_meta_reader_get_position(d->kv, &block, &offset);
			kv_seek(d, get_le64(buf + 4));
			pairs[j].value = read_value(d, &pairs[j].size);
			/* the position may be the end of the stream */
			if (j + 1 < *count) {
				assert_int_equal(
				    sqfs_meta_reader_seek(d->kv, block, offset),
				    0);
			}
			used += 12;
		} else {
			pairs[j].value = read_value(d, &vsize);
			pairs[j].size = vsize;
			used += 4 + vsize;
		}
	}
	assert_int_equal(size, used);
	return pairs;
}

static void free_set(pair_info_t *pairs, uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count; ++i)
		free(pairs[i].value);
	free(pairs);
}

static void add(xattr_writer_t *xw, const char *key, const void *value,
		size_t size)
{
	assert_int_equal(xattr_writer_add(xw, key, value, size), 0);
}

static void adds(xattr_writer_t *xw, const char *key, const char *value)
{
	add(xw, key, value, strlen(value));
}

static uint32_t end(xattr_writer_t *xw)
{
	uint32_t index = 0x12345;

	assert_int_equal(xattr_writer_end(xw, &index), 0);
	return index;
}

static xattr_writer_t *new_writer(void)
{
	xattr_writer_t *xw = NULL;

	assert_int_equal(xattr_writer_create(&xw), 0);
	assert_non_null(xw);
	return xw;
}

static sqfs_super_t new_super(void)
{
	sqfs_super_t super;

	assert_int_equal(
	    sqfs_super_init(&super, SQFS_DEFAULT_BLOCK_SIZE, 0, SQFS_COMP_GZIP),
	    0);
	return super;
}

static void test_exact_bytes(void **state)
{
	static const uint8_t expect[] = {
	    /* kv stream at 100: one raw block of 10 bytes */
	    0x0a, 0x80, 0x00, 0x00, 0x01, 0x00, 'a', 0x01, 0x00, 0x00, 0x00,
	    'b',
	    /* id entries at 112: ref 0, count 1, size 10 */
	    0x10, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x00, 0x0a,
	    0x00, 0x00, 0x00,
	    /* header at 130: kv_start 100, 1 id, 0 */
	    100, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0,
	    /* index: the id block at 112 */
	    112, 0, 0, 0, 0, 0, 0, 0};
	xattr_writer_t *xw = new_writer();
	sqfs_file_t *file = test_memory_file_filled(PREFIX_SIZE, 0xEE);
	sqfs_super_t super = new_super();
	const uint8_t *data;
	size_t size;

	(void)state;
	super.flags |= SQFS_FLAG_NO_XATTRS;
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.a", "b");
	assert_int_equal(end(xw), 0);
	assert_int_equal(xattr_writer_flush(xw, file, &super, NULL), 0);

	data = test_memory_file_data(file, &size);
	assert_int_equal(size, PREFIX_SIZE + sizeof(expect));
	assert_memory_equal(data + PREFIX_SIZE, expect, sizeof(expect));
	assert_int_equal(super.xattr_id_table_start, 130);
	assert_false(super.flags & SQFS_FLAG_NO_XATTRS);
	assert_true(super.flags & SQFS_FLAG_UNCOMPRESSED_XATTRS);

	assert_int_equal(xattr_writer_flush(xw, file, &super, NULL),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(xattr_writer_begin(xw), SQFS_ERROR_SEQUENCE);
	xattr_writer_destroy(xw);
	sqfs_file_destroy(file);
}

static void check_pair(const pair_info_t *p, const char *key, const void *value,
		       size_t size, bool ool)
{
	assert_string_equal(p->key, key);
	assert_int_equal(p->size, size);
	assert_memory_equal(p->value, value, size);
	assert_int_equal(p->ool, ool);
}

#define SELINUX "system_u:object_r:etc_t:s0"
#define SHORT15 "0123456789abcde"
#define NUM_SMALL 600

static void layout(sqfs_compressor_t *cmp)
{
	xattr_writer_t *xw = new_writer();
	sqfs_file_t *file = test_memory_file_filled(PREFIX_SIZE, 0xEE);
	sqfs_super_t super = new_super();
	uint8_t *big = test_make_data(200, TEST_DATA_RANDOM, 1);
	uint8_t *huge = test_make_data(65536, TEST_DATA_RANDOM, 2);
	uint32_t idx[8], count, i, small[NUM_SMALL];
	pair_info_t *p;
	char buf[32];
	decoder_t d;

	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.mime", "text/plain");
	adds(xw, "security.selinux", SELINUX);
	add(xw, "trusted.big", big, 200);
	idx[0] = end(xw);

	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.other", SELINUX);
	idx[1] = end(xw);

	/* the first set again, in another order */
	assert_int_equal(xattr_writer_begin(xw), 0);
	add(xw, "trusted.big", big, 200);
	adds(xw, "user.mime", "text/plain");
	adds(xw, "security.selinux", SELINUX);
	idx[2] = end(xw);

	/* two keys with a value already written */
	assert_int_equal(xattr_writer_begin(xw), 0);
	add(xw, "user.dup2", big, 200);
	add(xw, "user.dup1", big, 200);
	idx[3] = end(xw);

	/* 15 bytes: too short to share */
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.s1", SHORT15);
	idx[4] = end(xw);
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.s2", SHORT15);
	idx[5] = end(xw);

	/* the largest value: several md-blocks; then an empty one */
	assert_int_equal(xattr_writer_begin(xw), 0);
	add(xw, "user.huge", huge, 65536);
	add(xw, "user.empty", NULL, 0);
	idx[6] = end(xw);

	/* enough sets for two md-blocks of id entries */
	for (i = 0; i < NUM_SMALL; ++i) {
		assert_int_equal(xattr_writer_begin(xw), 0);
		snprintf(buf, sizeof(buf), "%u", (unsigned int)i);
		adds(xw, "user.n", buf);
		small[i] = end(xw);
		assert_int_equal(small[i], 6 + i);
	}
	/* and one more copy of the huge value, from a new set */
	assert_int_equal(xattr_writer_begin(xw), 0);
	add(xw, "trusted.copy", huge, 65536);
	idx[7] = end(xw);

	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 1);
	assert_int_equal(idx[2], 0);
	assert_int_equal(idx[3], 2);
	assert_int_equal(idx[4], 3);
	assert_int_equal(idx[5], 4);
	assert_int_equal(idx[6], 5);
	assert_int_equal(idx[7], 6 + NUM_SMALL);

	assert_int_equal(xattr_writer_flush(xw, file, &super, cmp), 0);
	assert_int_equal(super.flags & SQFS_FLAG_UNCOMPRESSED_XATTRS,
			 cmp == NULL ? SQFS_FLAG_UNCOMPRESSED_XATTRS : 0);
	decoder_open(&d, file, cmp, &super);
	assert_int_equal(d.ids, 7 + NUM_SMALL);
	assert_int_equal(d.nblocks, 2);
	assert_int_equal(d.kv_start, PREFIX_SIZE);

	/* sorted by the full key */
	p = read_set(&d, 0, &count);
	assert_int_equal(count, 3);
	check_pair(p + 0, "security.selinux", SELINUX, 26, false);
	check_pair(p + 1, "trusted.big", big, 200, false);
	check_pair(p + 2, "user.mime", "text/plain", 10, false);
	free_set(p, count);

	p = read_set(&d, 1, &count);
	assert_int_equal(count, 1);
	check_pair(p, "user.other", SELINUX, 26, true);
	free_set(p, count);

	p = read_set(&d, 2, &count);
	assert_int_equal(count, 2);
	check_pair(p + 0, "user.dup1", big, 200, true);
	check_pair(p + 1, "user.dup2", big, 200, true);
	free_set(p, count);

	for (i = 3; i <= 4; ++i) {
		p = read_set(&d, i, &count);
		assert_int_equal(count, 1);
		check_pair(p, i == 3 ? "user.s1" : "user.s2", SHORT15, 15,
			   false);
		free_set(p, count);
	}

	p = read_set(&d, 5, &count);
	assert_int_equal(count, 2);
	check_pair(p + 0, "user.empty", "", 0, false);
	check_pair(p + 1, "user.huge", huge, 65536, false);
	free_set(p, count);

	for (i = 0; i < NUM_SMALL; ++i) {
		p = read_set(&d, small[i], &count);
		assert_int_equal(count, 1);
		snprintf(buf, sizeof(buf), "%u", (unsigned int)i);
		check_pair(p, "user.n", buf, strlen(buf), false);
		free_set(p, count);
	}

	p = read_set(&d, idx[7], &count);
	check_pair(p, "trusted.copy", huge, 65536, true);
	free_set(p, count);

	decoder_close(&d);
	free(big);
	free(huge);
	xattr_writer_destroy(xw);
	sqfs_file_destroy(file);
}

static void test_layout_raw(void **state)
{
	(void)state;
	layout(NULL);
}

static void test_layout_compressed(void **state)
{
	sqfs_compressor_t *cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);

	(void)state;
	if (cmp == NULL)
		skip();
	layout(cmp);
	sqfs_compressor_destroy(cmp);
}

static void test_dedup(void **state)
{
	xattr_writer_t *xw = new_writer();
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_super_t super = new_super();
	pair_info_t *p;
	uint32_t count;
	decoder_t d;

	(void)state;
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.a", "1");
	adds(xw, "user.b", "2");
	assert_int_equal(end(xw), 0);

	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.b", "2");
	adds(xw, "user.a", "1");
	assert_int_equal(end(xw), 0);

	/* a repeated key keeps its last value */
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.a", "0");
	adds(xw, "user.b", "2");
	adds(xw, "user.a", "1");
	assert_int_equal(end(xw), 0);

	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.a", "1");
	assert_int_equal(end(xw), 1);

	/* same pairs, other namespace; same value, other key */
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "trusted.a", "1");
	adds(xw, "user.b", "2");
	assert_int_equal(end(xw), 2);
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.a", "2");
	adds(xw, "user.b", "2");
	assert_int_equal(end(xw), 3);
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.a", "1");
	adds(xw, "user.b", "2");
	adds(xw, "user.c", "");
	assert_int_equal(end(xw), 4);

	/* a set given up halfway is dropped by the next begin */
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.zzz", "lost");
	assert_int_equal(xattr_writer_begin(xw), 0);
	adds(xw, "user.a", "1");
	assert_int_equal(end(xw), 1);

	assert_int_equal(xattr_writer_flush(xw, file, &super, NULL), 0);
	decoder_open(&d, file, NULL, &super);
	assert_int_equal(d.ids, 5);
	p = read_set(&d, 0, &count);
	assert_int_equal(count, 2);
	check_pair(p + 0, "user.a", "1", 1, false);
	check_pair(p + 1, "user.b", "2", 1, false);
	free_set(p, count);
	decoder_close(&d);
	xattr_writer_destroy(xw);
	sqfs_file_destroy(file);
}

static void test_refused(void **state)
{
	xattr_writer_t *xw = new_writer();
	char key[300];
	uint8_t *value = calloc(1, 65537);
	uint32_t index;

	(void)state;
	assert_non_null(value);
	assert_int_equal(xattr_writer_add(xw, "user.a", "1", 1),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(xattr_writer_end(xw, &index), SQFS_ERROR_SEQUENCE);
	assert_int_equal(xattr_writer_begin(xw), 0);

	assert_int_equal(
	    xattr_writer_add(xw, "system.posix_acl_access", "1", 1),
	    SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(xattr_writer_add(xw, "usr.a", "1", 1),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(xattr_writer_add(xw, "user", "1", 1),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(xattr_writer_add(xw, "", "1", 1),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(xattr_writer_add(xw, "user.", "1", 1),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(xattr_writer_add(xw, "security.", "1", 1),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(xattr_writer_add(xw, "user.a", NULL, 1),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(xattr_writer_add(xw, NULL, "1", 1),
			 SQFS_ERROR_ARG_INVALID);

	/* keys up to 255 bytes with the prefix, values up to 64 KiB */
	memset(key, 'k', sizeof(key));
	memcpy(key, "trusted.", 8);
	key[256] = '\0';
	assert_int_equal(xattr_writer_add(xw, key, "1", 1),
			 SQFS_ERROR_ARG_INVALID);
	key[255] = '\0';
	add(xw, key, "1", 1);
	assert_int_equal(xattr_writer_add(xw, "user.v", value, 65537),
			 SQFS_ERROR_OVERFLOW);
	add(xw, "user.v", value, 65536);
	/* the refused pairs are not part of the set */
	assert_int_equal(end(xw), 0);

	assert_int_equal(xattr_writer_end(xw, &index), SQFS_ERROR_SEQUENCE);
	assert_int_equal(xattr_writer_begin(NULL), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(xattr_writer_create(NULL), SQFS_ERROR_ARG_INVALID);
	free(value);
	xattr_writer_destroy(xw);
}

/* The rules, as sqfs_xattr_check states them, one case per rule and both
 * sides of each limit. */
static void test_check(void **state)
{
	static const struct {
		const char *key;
		size_t size;
		int ret;
		const char *why;
	} cases[] = {
	    {"user.a", 0, 0, NULL},
	    {"trusted.a", 65536, 0, NULL},
	    {"security.selinux", 10, 0, NULL},
	    {"user.", 1, SQFS_ERROR_ARG_INVALID, "empty name"},
	    {"system.posix_acl_access", 1, SQFS_ERROR_UNSUPPORTED,
	     "namespace not supported (only user., trusted. and security.)"},
	    {"user", 1, SQFS_ERROR_UNSUPPORTED,
	     "namespace not supported (only user., trusted. and security.)"},
	    {"user.a", 65537, SQFS_ERROR_OVERFLOW, "value larger than 64 KiB"},
	};
	static char value[65537];
	char key[300];
	const char *why;
	sqfs_xattr_t x;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		x.key = cases[i].key;
		x.value = value;
		x.size = cases[i].size;
		why = "unset";
		assert_int_equal(sqfs_xattr_check(&x, &why), cases[i].ret);
		if (cases[i].why == NULL)
			assert_null(why);
		else
			assert_string_equal(why, cases[i].why);
		assert_int_equal(sqfs_xattr_check(&x, NULL), cases[i].ret);
	}

	/* keys of 255 bytes are the longest */
	memset(key, 'k', sizeof(key));
	memcpy(key, "user.", 5);
	key[255] = '\0';
	x.key = key;
	x.size = 0;
	assert_int_equal(sqfs_xattr_check(&x, &why), 0);
	key[255] = 'k';
	key[256] = '\0';
	assert_int_equal(sqfs_xattr_check(&x, &why), SQFS_ERROR_ARG_INVALID);
	assert_string_equal(why, "name longer than 255 bytes");

	x.key = NULL;
	assert_int_equal(sqfs_xattr_check(&x, &why), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_xattr_check(NULL, &why), SQFS_ERROR_ARG_INVALID);
	x.key = "user.a";
	x.value = NULL;
	x.size = 1;
	assert_int_equal(sqfs_xattr_check(&x, &why), SQFS_ERROR_ARG_INVALID);
}

static void test_empty(void **state)
{
	xattr_writer_t *xw = new_writer();
	sqfs_file_t *file = test_memory_file_filled(PREFIX_SIZE, 0xEE);
	sqfs_super_t super = new_super();
	uint32_t index = 0;

	(void)state;
	assert_int_equal(xattr_writer_begin(xw), 0);
	assert_int_equal(xattr_writer_end(xw, &index), 0);
	assert_int_equal(index, SQFS_NO_XATTR);

	/* flushing with a set open is a caller bug */
	assert_int_equal(xattr_writer_begin(xw), 0);
	assert_int_equal(xattr_writer_flush(xw, file, &super, NULL),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(xattr_writer_end(xw, &index), 0);
	assert_int_equal(index, SQFS_NO_XATTR);

	super.xattr_id_table_start = 1234;
	assert_int_equal(xattr_writer_flush(xw, file, &super, NULL), 0);
	assert_int_equal(file->get_size(file), PREFIX_SIZE);
	assert_int_equal(super.xattr_id_table_start, SQFS_TABLE_ABSENT);
	assert_true(super.flags & SQFS_FLAG_NO_XATTRS);
	xattr_writer_destroy(xw);

	/* no sets at all */
	xw = new_writer();
	super = new_super();
	assert_int_equal(xattr_writer_flush(xw, file, &super, NULL), 0);
	assert_int_equal(file->get_size(file), PREFIX_SIZE);
	assert_int_equal(super.xattr_id_table_start, SQFS_TABLE_ABSENT);
	assert_true(super.flags & SQFS_FLAG_NO_XATTRS);
	xattr_writer_destroy(xw);
	sqfs_file_destroy(file);
}

/* Many sets sharing a few values: fast, and every set reads back. */
static void test_many_sets(void **state)
{
	const uint32_t n = 20000;
	xattr_writer_t *xw = new_writer();
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_super_t super = new_super();
	char value[64], key[32];
	pair_info_t *p;
	uint32_t i, count;
	decoder_t d;

	(void)state;
	for (i = 0; i < n; ++i) {
		assert_int_equal(xattr_writer_begin(xw), 0);
		snprintf(key, sizeof(key), "user.k%u", (unsigned int)i);
		snprintf(value, sizeof(value), "a shared value number %u",
			 (unsigned int)(i % 7));
		adds(xw, key, value);
		adds(xw, "security.selinux", SELINUX);
		assert_int_equal(end(xw), i);
	}
	assert_int_equal(xattr_writer_flush(xw, file, &super, NULL), 0);
	decoder_open(&d, file, NULL, &super);
	assert_int_equal(d.ids, n);
	for (i = 0; i < n; i += 997) {
		p = read_set(&d, i, &count);
		assert_int_equal(count, 2);
		snprintf(key, sizeof(key), "user.k%u", (unsigned int)i);
		snprintf(value, sizeof(value), "a shared value number %u",
			 (unsigned int)(i % 7));
		check_pair(p + 0, "security.selinux", SELINUX, 26, i > 0);
		check_pair(p + 1, key, value, strlen(value), i >= 7);
		free_set(p, count);
	}
	decoder_close(&d);
	xattr_writer_destroy(xw);
	sqfs_file_destroy(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact_bytes),
	    cmocka_unit_test(test_layout_raw),
	    cmocka_unit_test(test_layout_compressed),
	    cmocka_unit_test(test_dedup),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_many_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_xattr_reader.c - extended attributes: as our writer, mksquashfs and
 * gensquashfs store them (inline, out of line, shared), and key/value
 * streams written by hand into an otherwise valid image, both well formed
 * (every prefix, unknown prefixes, values across blocks, limits) and
 * hostile (bad types, sizes, references, counts).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "reader/reader_util.h"
#include "sqfs/image_internal.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FILES 24

/* An image without xattrs; the hand-made tables are added to it. */
static uint8_t *base_img;
static size_t base_size;

static int group_setup(void **state)
{
	const ru_tree_t t = {
	    .files = FILES, .xattrs = false, .privileged = false};
	sqfs_compressor_id_t id = SQFS_COMP_GZIP;

	(void)state;
	if (!sqfs_compressor_is_available(id))
		id = sqfs_compressor_default();
	base_img = ru_build_writer(&t, id, SQFS_WRITER_EXPORTABLE, &base_size);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(base_img);
	return 0;
}

/* ---- images from the writers --------------------------------------------- */

static void test_writer(void **state)
{
	const ru_tree_t t = {
	    .files = FILES, .xattrs = true, .privileged = true};
	sqfs_file_t *file;
	sqfs_image_t *img;
	uint8_t *data;
	size_t size;

	(void)state;
	data = ru_build_writer(&t, SQFS_COMP_GZIP, 0, &size);
	img = ru_open(data, size, &file);
	ru_check_tree(img, &t, true);
	ru_close(img, file);
	free(data);
}

/* Whether the image's raw key/value stream holds the key name stored out
 * of line (type 0x100 | prefix). */
static bool stores_ool(const uint8_t *data, size_t size, uint16_t prefix,
		       const char *name)
{
	uint64_t xattr = ru_get64(data, 56);
	uint64_t kv = ru_get64(data, xattr), end = xattr, i;
	size_t len = strlen(name);
	uint8_t pattern[64];

	put_le16(pattern, (uint16_t)(0x100 | prefix));
	put_le16(pattern + 2, (uint16_t)len);
	memcpy(pattern + 4, name, len);
	assert_true(end <= size);
	for (i = kv; i + len + 4 <= end; ++i) {
		if (memcmp(data + i, pattern, len + 4) == 0)
			return true;
	}
	return false;
}

static void test_mksquashfs(void **state)
{
	ru_tree_t t = {.files = FILES, .xattrs = true, .privileged = true};
	char dir[PATH_MAX], src[PATH_MAX + 8], image[PATH_MAX + 16];
	sqfs_file_t *file;
	sqfs_image_t *img;
	uint8_t *data;
	size_t size;

	(void)state;
	if (!ru_have(RU_MKSQUASHFS) ||
	    !sqfs_compressor_is_available(SQFS_COMP_GZIP))
		skip();
	ru_tmpdir(dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(image, sizeof(image), "%s/img.sqfs", dir);
	assert_int_equal(mkdir(src, 0755), 0);
	if (!ru_build_dir(&t, src)) {
		ru_rmrf(dir);
		skip();
	}

	/* uncompressed xattrs, to see how values were stored */
	assert_int_equal(ru_run("%s %s %s -noX -b 4096 -noappend -quiet "
				"-no-progress >/dev/null 2>&1",
				RU_MKSQUASHFS, src, image),
			 0);
	data = ru_load(image, &size);
	/* the 200-byte values are out of line; so is the shared one */
	assert_true(stores_ool(data, size, 0, "big"));
	assert_true(stores_ool(data, size, 0, "shared"));
	assert_false(stores_ool(data, size, 0, "idx"));

	img = ru_open(data, size, &file);
	ru_check_tree(img, &t, true);
	ru_close(img, file);
	free(data);
	ru_rmrf(dir);
}

static void test_gensquashfs(void **state)
{
	ru_tree_t t = {.files = FILES,
		       .xattrs = true,
		       .privileged = true,
		       .no_hard_link = true};
	char dir[PATH_MAX], src[PATH_MAX + 8], image[PATH_MAX + 16];
	sqfs_file_t *file;
	sqfs_image_t *img;
	uint8_t *data;
	size_t size;

	(void)state;
	if (!ru_have(RU_GENSQUASHFS) ||
	    !sqfs_compressor_is_available(SQFS_COMP_GZIP))
		skip();
	ru_tmpdir(dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(image, sizeof(image), "%s/img.sqfs", dir);
	assert_int_equal(mkdir(src, 0755), 0);
	if (!ru_build_dir(&t, src)) {
		ru_rmrf(dir);
		skip();
	}

	/* gensquashfs stores repeated values out of line */
	assert_int_equal(ru_run("%s -D %s -x -k -c gzip -b 4096 -q -f %s "
				">/dev/null 2>&1",
				RU_GENSQUASHFS, src, image),
			 0);
	data = ru_load(image, &size);
	img = ru_open(data, size, &file);
	ru_check_tree(img, &t, true);
	ru_close(img, file);
	free(data);
	ru_rmrf(dir);
}

/* ---- hand-made key/value streams ----------------------------------------- */

typedef struct {
	uint8_t *data;
	size_t size;
	size_t capacity;
} stream_t;

static void put_bytes(stream_t *s, const void *data, size_t size)
{
	if (s->size + size > s->capacity) {
		s->capacity = (s->size + size) * 2 + 64;
		s->data = realloc(s->data, s->capacity);
		assert_non_null(s->data);
	}
	memcpy(s->data + s->size, data, size);
	s->size += size;
}

static void put_u16(stream_t *s, uint16_t v)
{
	uint8_t raw[2];

	put_le16(raw, v);
	put_bytes(s, raw, sizeof(raw));
}

static void put_u32(stream_t *s, uint32_t v)
{
	uint8_t raw[4];

	put_le32(raw, v);
	put_bytes(s, raw, sizeof(raw));
}

static void put_u64(stream_t *s, uint64_t v)
{
	uint8_t raw[8];

	put_le64(raw, v);
	put_bytes(s, raw, sizeof(raw));
}

static void put_key(stream_t *s, uint16_t type, const char *name,
		    size_t name_size)
{
	put_u16(s, type);
	put_u16(s, (uint16_t)name_size);
	put_bytes(s, name, name_size);
}

static void put_value(stream_t *s, const void *value, uint32_t size)
{
	put_u32(s, size);
	put_bytes(s, value, size);
}

static void put_ool(stream_t *s, uint64_t ref)
{
	put_u32(s, 8);
	put_u64(s, ref);
}

/* An xattr-id entry in on-disk form. */
static void put_entry(stream_t *s, uint64_t ref, uint32_t count)
{
	put_u64(s, ref);
	put_u32(s, count);
	put_u32(s, 0);
}

static uint8_t *make_image(const stream_t *kv, const stream_t *ids,
			   size_t *size)
{
	ru_tables_t t;
	uint8_t *data;

	ru_tables_extract(base_img, base_size, &t);
	ru_tables_set_xattrs(&t, kv->data, kv->size, ids->data,
			     (uint32_t)(ids->size / 16));
	data = ru_tables_emit(&t, size);
	ru_tables_free(&t);
	return data;
}

/* Read the xattrs of entry index of an image (which must open). */
static int read_entry(const uint8_t *data, size_t size, uint32_t index,
		      sqfs_xattr_t **list, size_t *count)
{
	sqfs_inode_t *inode = sqfs_inode_alloc(0);
	sqfs_file_t *file;
	sqfs_image_t *img;
	int ret;

	assert_non_null(inode);
	inode->type = SQFS_INODE_EXT_FILE;
	inode->xattr_index = index;
	img = ru_open(data, size, &file);
	ret = sqfs_image_read_xattrs(img, inode, list, count);
	if (ret != 0) {
		assert_null(*list);
		assert_int_equal(*count, 0);
	}
	ru_close(img, file);
	free(inode);
	return ret;
}

static void check_pair(const sqfs_xattr_t *x, const char *key,
		       const void *value, size_t size)
{
	assert_string_equal(x->key, key);
	assert_int_equal(x->size, size);
	assert_non_null(x->value);
	assert_memory_equal(x->value, value, size);
	/* a spare terminator after the value */
	assert_int_equal(((const uint8_t *)x->value)[size], 0);
}

static void test_handmade(void **state)
{
	stream_t kv = {0}, ids = {0};
	char name[256];
	uint8_t *big, *data;
	sqfs_xattr_t *list;
	size_t size, count, rec, list0, list1, list2;

	(void)state;
	big = malloc(65536);
	assert_non_null(big);
	test_fill_data(big, 65536, TEST_DATA_RANDOM, 7);
	memset(name, 'n', sizeof(name));

	/* a value record first, as mksquashfs writes them */
	rec = kv.size;
	put_value(&kv, "hello", 5);

	list0 = kv.size;
	put_key(&kv, 0, "a", 1);
	put_value(&kv, "x", 1);
	put_key(&kv, 1, "tt", 2);
	put_value(&kv, "", 0);
	put_key(&kv, 0x102, "selinux", 7);
	put_ool(&kv, ru_kv_ref(rec));
	put_key(&kv, 3, "unknown", 7);
	put_value(&kv, "zzz", 3);
	put_key(&kv, 0x1FF, "unk", 3);
	put_ool(&kv, UINT64_MAX);
	/* the longest name, and the largest value, across blocks */
	put_key(&kv, 0, name, 250);
	put_value(&kv, big, 65536);

	/* only unknown prefixes: nothing to list */
	list2 = kv.size;
	put_key(&kv, 0xFF, "x", 1);
	put_value(&kv, "1", 1);

	/* last in the stream: after the last value there is no block to
	 * go back to */
	list1 = kv.size;
	put_key(&kv, 0x102, "s", 1);
	put_ool(&kv, ru_kv_ref(rec));
	put_key(&kv, 0x100, "shared", 6);
	put_ool(&kv, ru_kv_ref(rec));

	put_entry(&ids, ru_kv_ref(list0), 6);
	put_entry(&ids, ru_kv_ref(list1), 2);
	put_entry(&ids, ru_kv_ref(list1), 0);
	put_entry(&ids, ru_kv_ref(list2), 1);
	put_entry(&ids, ru_kv_ref(list1 + 17), 1);
	data = make_image(&kv, &ids, &size);

	assert_int_equal(read_entry(data, size, 0, &list, &count), 0);
	assert_int_equal(count, 4);
	check_pair(&list[0], "user.a", "x", 1);
	check_pair(&list[1], "trusted.tt", "", 0);
	check_pair(&list[2], "security.selinux", "hello", 5);
	name[250] = '\0';
	{
		char key[300];

		snprintf(key, sizeof(key), "user.%s", name);
		check_pair(&list[3], key, big, 65536);
	}
	sqfs_xattr_list_free(list, count);

	assert_int_equal(read_entry(data, size, 1, &list, &count), 0);
	assert_int_equal(count, 2);
	check_pair(&list[0], "security.s", "hello", 5);
	check_pair(&list[1], "user.shared", "hello", 5);
	sqfs_xattr_list_free(list, count);

	assert_int_equal(read_entry(data, size, 2, &list, &count), 0);
	assert_int_equal(count, 0);
	assert_null(list);
	assert_int_equal(read_entry(data, size, 3, &list, &count), 0);
	assert_int_equal(count, 0);
	assert_null(list);

	/* an entry starting at the second key of a list */
	assert_int_equal(read_entry(data, size, 4, &list, &count), 0);
	assert_int_equal(count, 1);
	check_pair(&list[0], "user.shared", "hello", 5);
	sqfs_xattr_list_free(list, count);

	/* past the table */
	assert_int_equal(read_entry(data, size, 5, &list, &count),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_entry(data, size, 0xFFFFFFFE, &list, &count),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(read_entry(data, size, SQFS_NO_XATTR, &list, &count),
			 0);
	assert_null(list);
	assert_int_equal(ru_probe(data, size), 0);

	free(data);
	free(big);
	free(kv.data);
	free(ids.data);
}

static void test_no_table(void **state)
{
	sqfs_inode_t *inode = sqfs_inode_alloc(0);
	sqfs_xattr_t *list = (sqfs_xattr_t *)(uintptr_t)1;
	sqfs_file_t *file;
	sqfs_image_t *img;
	size_t count = 5;

	(void)state;
	assert_non_null(inode);
	img = ru_open(base_img, base_size, &file);
	inode->type = SQFS_INODE_EXT_DIR;
	inode->xattr_index = 0;
	assert_int_equal(sqfs_image_read_xattrs(img, inode, &list, &count),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_null(list);
	assert_int_equal(count, 0);

	inode->xattr_index = SQFS_NO_XATTR;
	assert_int_equal(sqfs_image_read_xattrs(img, inode, &list, &count), 0);
	assert_null(list);
	assert_int_equal(count, 0);

	assert_int_equal(sqfs_image_read_xattrs(img, NULL, &list, &count),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_read_xattrs(img, inode, NULL, &count),
			 SQFS_ERROR_ARG_INVALID);
	ru_close(img, file);
	free(inode);
	sqfs_xattr_list_free(NULL, 3);
}

/* One hostile list as entry 0: reading it must fail with expect (or any
 * error if expect is 0). */
static void expect_list(const stream_t *kv, uint32_t count, int expect)
{
	stream_t ids = {0};
	sqfs_xattr_t *list = NULL;
	uint8_t *data;
	size_t size, n = 0;
	int ret;

	put_entry(&ids, 0, count);
	data = make_image(kv, &ids, &size);
	ret = read_entry(data, size, 0, &list, &n);
	if (expect != 0)
		assert_int_equal(ret, expect);
	else
		assert_true(ret < 0);
	free(data);
	free(ids.data);
}

static void reset(stream_t *s)
{
	s->size = 0;
}

static void test_hostile_pairs(void **state)
{
	stream_t kv = {0};
	char name[300];
	uint8_t *big;
	size_t i;

	(void)state;
	memset(name, 'n', sizeof(name));
	big = calloc(1, 65537);
	assert_non_null(big);

	/* type bits beyond prefix and out-of-line */
	put_key(&kv, 0x200, "a", 1);
	put_value(&kv, "x", 1);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 0x8000, "a", 1);
	put_value(&kv, "x", 1);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);

	/* name sizes */
	reset(&kv);
	put_key(&kv, 0, "", 0);
	put_value(&kv, "x", 1);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 0, name, 251);
	put_value(&kv, "x", 1);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 2, name, 247);
	put_value(&kv, "x", 1);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 0, "a\0b", 3);
	put_value(&kv, "x", 1);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);

	/* value sizes, inline and for skipped keys */
	reset(&kv);
	put_key(&kv, 0, "a", 1);
	put_value(&kv, big, 65537);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 7, "a", 1);
	put_value(&kv, big, 65537);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 0, "a", 1);
	put_u32(&kv, 0xFFFFFFFF);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	/* a value running past the end of the stream */
	reset(&kv);
	put_key(&kv, 0, "a", 1);
	put_u32(&kv, 100);
	put_bytes(&kv, "abc", 3);
	expect_list(&kv, 1, SQFS_ERROR_OUT_OF_BOUNDS);

	/* out-of-line values */
	reset(&kv);
	put_key(&kv, 0x100, "a", 1);
	put_u32(&kv, 4);
	put_u32(&kv, 0);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 0x101, "a", 1);
	put_u32(&kv, 16);
	put_u64(&kv, 0);
	put_u64(&kv, 0);
	expect_list(&kv, 1, SQFS_ERROR_CORRUPTED);
	reset(&kv);
	put_key(&kv, 0x100, "a", 1);
	put_ool(&kv, 8192);
	expect_list(&kv, 1, SQFS_ERROR_OUT_OF_BOUNDS);
	reset(&kv);
	put_key(&kv, 0x100, "a", 1);
	put_ool(&kv, UINT64_C(100) << 16);
	expect_list(&kv, 1, SQFS_ERROR_OUT_OF_BOUNDS);
	/* inside the stream, but not at a block header */
	reset(&kv);
	put_key(&kv, 0x100, "a", 1);
	put_ool(&kv, UINT64_C(1) << 16);
	expect_list(&kv, 1, 0);
	reset(&kv);
	put_key(&kv, 0x100, "a", 1);
	put_ool(&kv, UINT64_MAX);
	expect_list(&kv, 1, SQFS_ERROR_OUT_OF_BOUNDS);
	reset(&kv);
	put_key(&kv, 0x100, "a", 1);
	put_ool(&kv, 1000);
	expect_list(&kv, 1, SQFS_ERROR_OUT_OF_BOUNDS);
	/* ... to a record that is too large, or cut short */
	reset(&kv);
	put_u32(&kv, 65537);
	put_key(&kv, 0x100, "a", 1);
	put_ool(&kv, 0);
	{
		stream_t ids = {0};
		uint8_t *data;
		sqfs_xattr_t *list = NULL;
		size_t size, n;

		put_entry(&ids, ru_kv_ref(4), 1);
		data = make_image(&kv, &ids, &size);
		assert_int_equal(read_entry(data, size, 0, &list, &n),
				 SQFS_ERROR_CORRUPTED);
		free(data);

		reset(&kv);
		put_u32(&kv, 50);
		put_key(&kv, 0x100, "a", 1);
		put_ool(&kv, 0);
		data = make_image(&kv, &ids, &size);
		/* the record's 50 bytes run over the key into the end */
		assert_int_equal(read_entry(data, size, 0, &list, &n),
				 SQFS_ERROR_OUT_OF_BOUNDS);
		free(data);
		free(ids.data);
	}

	/* counts: more pairs than the stream holds, and absurd ones */
	reset(&kv);
	put_key(&kv, 0, "a", 1);
	put_value(&kv, "x", 1);
	expect_list(&kv, 2, SQFS_ERROR_OUT_OF_BOUNDS);
	expect_list(&kv, 0xFFFFFFFF, SQFS_ERROR_LIMIT);
	expect_list(&kv, 65537, SQFS_ERROR_LIMIT);
	expect_list(&kv, 65536, SQFS_ERROR_OUT_OF_BOUNDS);

	/* an out-of-line reference to its own key: no loop, just a value
	 * made of whatever bytes are there */
	reset(&kv);
	put_key(&kv, 0x100, "a", 1);
	put_ool(&kv, 0);
	{
		stream_t ids = {0};
		sqfs_xattr_t *list = NULL;
		uint8_t *data;
		size_t size, n = 0;
		int ret;

		put_entry(&ids, 0, 1);
		data = make_image(&kv, &ids, &size);
		ret = read_entry(data, size, 0, &list, &n);
		/* the key header read as a size: 0x00010100 is too big */
		assert_int_equal(ret, SQFS_ERROR_CORRUPTED);
		free(data);
		free(ids.data);
	}

	/* one 64 KiB record shared by many keys: the sum is bounded */
	reset(&kv);
	put_value(&kv, big, 65536);
	for (i = 0; i < 300; ++i) {
		char key[16];

		snprintf(key, sizeof(key), "k%zu", i);
		put_key(&kv, 0x100, key, strlen(key));
		put_ool(&kv, 0);
	}
	{
		stream_t ids = {0};
		sqfs_xattr_t *list = NULL;
		uint8_t *data;
		size_t size, n;

		put_entry(&ids, ru_kv_ref(65540), 300);
		put_entry(&ids, ru_kv_ref(65540), 200);
		data = make_image(&kv, &ids, &size);
		assert_int_equal(read_entry(data, size, 0, &list, &n),
				 SQFS_ERROR_LIMIT);
		/* 200 of them still fit */
		assert_int_equal(read_entry(data, size, 1, &list, &n), 0);
		assert_int_equal(n, 200);
		assert_int_equal(list[199].size, 65536);
		sqfs_xattr_list_free(list, n);
		free(data);
		free(ids.data);
	}

	/* more key text than Linux can list */
	reset(&kv);
	for (i = 0; i < 300; ++i) {
		snprintf(name, sizeof(name), "%03zu", i);
		name[3] = 'n';
		put_key(&kv, 0, name, 250);
		put_value(&kv, "", 0);
	}
	expect_list(&kv, 300, SQFS_ERROR_LIMIT);

	free(big);
	free(kv.data);
}

/* Entries whose reference leaves the stream: refused at open. */
static void test_hostile_entries(void **state)
{
	static const uint64_t refs[] = {
	    8192, 0xFFFF, UINT64_C(12) << 16, UINT64_C(100) << 16, UINT64_MAX,
	};
	stream_t kv = {0}, ids = {0};
	sqfs_xattr_t *list = NULL;
	uint8_t *data;
	size_t size, i, n;

	(void)state;
	put_key(&kv, 0, "a", 1);
	put_value(&kv, "x", 1);
	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); ++i) {
		ids.size = 0;
		put_entry(&ids, 0, 1);
		put_entry(&ids, refs[i], 1);
		data = make_image(&kv, &ids, &size);
		assert_int_equal(ru_probe(data, size), SQFS_ERROR_CORRUPTED);
		free(data);
	}

	/* references into the middle of the stream are fine for open;
	 * reading them gives an error, never a crash */
	ids.size = 0;
	put_entry(&ids, 3, 1);
	put_entry(&ids, UINT64_C(1) << 16, 1);
	data = make_image(&kv, &ids, &size);
	assert_int_equal(ru_probe(data, size), 0);
	assert_true(read_entry(data, size, 0, &list, &n) < 0);
	assert_true(read_entry(data, size, 1, &list, &n) < 0);
	free(data);

	free(kv.data);
	free(ids.data);
}

/* Damaged block headers in the key/value stream. */
static void test_hostile_kv_blocks(void **state)
{
	static const uint16_t headers[] = {0x0000, 0x8000, 0xA001,
					   0x2001, 0xFFFF, 0x0005};
	stream_t kv = {0}, ids = {0};
	sqfs_xattr_t *list = NULL;
	uint8_t *data;
	uint64_t xattr, kv_start;
	size_t size, n, i;

	(void)state;
	put_key(&kv, 0, "a", 1);
	put_value(&kv, "x", 1);
	put_entry(&ids, 0, 1);

	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); ++i) {
		data = make_image(&kv, &ids, &size);
		xattr = ru_get64(data, RU_SB_XATTR_START);
		kv_start = ru_get64(data, xattr);
		ru_put16(data, kv_start, headers[i]);
		assert_true(read_entry(data, size, 0, &list, &n) < 0);
		free(data);
	}

	free(kv.data);
	free(ids.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer),
	    cmocka_unit_test(test_mksquashfs),
	    cmocka_unit_test(test_gensquashfs),
	    cmocka_unit_test(test_handmade),
	    cmocka_unit_test(test_no_table),
	    cmocka_unit_test(test_hostile_pairs),
	    cmocka_unit_test(test_hostile_entries),
	    cmocka_unit_test(test_hostile_kv_blocks),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

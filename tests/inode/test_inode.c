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
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK_SIZE 131072u
#define ID_COUNT 4
#define INODE_COUNT 1000
#define FRAG_COUNT 10

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static sqfs_super_t make_super(uint32_t block_size)
{
	sqfs_super_t super;

	assert_int_equal(sqfs_super_init(&super, block_size, 0, SQFS_COMP_GZIP),
			 0);
	super.id_count = ID_COUNT;
	super.inode_count = INODE_COUNT;
	super.fragment_entry_count = FRAG_COUNT;
	return super;
}

static sqfs_inode_t *new_inode(uint16_t type, size_t payload)
{
	sqfs_inode_t *inode = sqfs_inode_alloc(payload);

	assert_non_null(inode);
	assert_int_equal(inode->payload_size, payload);
	inode->type = type;
	inode->mode = 0755;
	inode->uid_idx = 1;
	inode->gid_idx = 3;
	inode->mtime = 0x5f5e1000;
	inode->inode_number = 42;
	inode->nlink = 1;
	inode->xattr_index = SQFS_NO_XATTR;
	if (sqfs_inode_type_is_extended(type)) {
		inode->nlink = 7;
		inode->xattr_index = 5;
	}
	return inode;
}

static void put_index_entry(uint8_t *p, uint32_t index, uint32_t start,
			    const char *name)
{
	put_le32(p, index);
	put_le32(p + 4, start);
	put_le32(p + 8, (uint32_t)strlen(name) - 1);
	memcpy(p + 12, name, strlen(name));
}

/* One inode of every type with every field set to something distinct. */
static sqfs_inode_t *make_inode(uint16_t type)
{
	sqfs_inode_t *inode;
	uint32_t *words;
	size_t i;

	switch (type) {
	case SQFS_INODE_DIR:
		inode = new_inode(type, 0);
		inode->nlink = 3;
		inode->data.dir.start_block = 0x12345;
		inode->data.dir.offset = 8191;
		inode->data.dir.size = 0xFFFF;
		inode->data.dir.parent_inode = 77;
		return inode;
	case SQFS_INODE_EXT_DIR:
		inode = new_inode(type, 2 * 12 + 5 + 3);
		inode->data.dir.start_block = 0xFFFFFFF0u;
		inode->data.dir.offset = 17;
		inode->data.dir.size = 0x123456;
		inode->data.dir.parent_inode = 999;
		inode->data.dir.index_count = 2;
		put_index_entry(inode->payload, 0, 0, "alpha");
		put_index_entry(inode->payload + 17, 8000, 3000, "zed");
		return inode;
	case SQFS_INODE_FILE:
		/* 300000 bytes, no fragment: three blocks, the last short */
		inode = new_inode(type, 3 * 4);
		inode->data.file.blocks_start = 0x60;
		inode->data.file.file_size = 300000;
		inode->data.file.fragment_index = SQFS_NO_FRAGMENT;
		inode->data.file.fragment_offset = 0xFFFFFFFF;
		words = sqfs_inode_block_sizes(inode);
		words[0] = 0x01020000;
		words[1] = 0x01020000;
		words[2] = 0x010093e0;
		return inode;
	case SQFS_INODE_EXT_FILE:
		/* 5 blocks + a tail in fragment 9; one sparse block */
		inode = new_inode(type, 5 * 4);
		inode->data.file.blocks_start = UINT64_C(0x123456789A);
		inode->data.file.file_size = 5 * (uint64_t)BLOCK_SIZE + 1000;
		inode->data.file.sparse = BLOCK_SIZE;
		inode->data.file.fragment_index = FRAG_COUNT - 1;
		inode->data.file.fragment_offset = BLOCK_SIZE - 1000;
		words = sqfs_inode_block_sizes(inode);
		for (i = 0; i < 5; ++i)
			words[i] = 1000 + (uint32_t)i;
		words[2] = 0;
		words[4] = 0x01000000 | BLOCK_SIZE;
		return inode;
	case SQFS_INODE_SLINK:
	case SQFS_INODE_EXT_SLINK:
		inode = new_inode(type, 13);
		memcpy(inode->payload, "../some/link", 13);
		inode->data.slink.target_size = 12;
		return inode;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
	case SQFS_INODE_EXT_BDEV:
	case SQFS_INODE_EXT_CDEV:
		inode = new_inode(type, 0);
		assert_true(
		    sqfs_inode_encode_rdev(259, 300000, &inode->data.dev.rdev));
		return inode;
	default:
		inode = new_inode(type, 0);
		inode->nlink = 4;
		if (sqfs_inode_type_is_extended(type))
			inode->xattr_index = 0;
		return inode;
	}
}

static void assert_inode_equal(const sqfs_inode_t *a, const sqfs_inode_t *b)
{
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->uid_idx, b->uid_idx);
	assert_int_equal(a->gid_idx, b->gid_idx);
	assert_int_equal(a->mtime, b->mtime);
	assert_int_equal(a->inode_number, b->inode_number);
	assert_int_equal(a->nlink, b->nlink);
	assert_int_equal(a->xattr_index, b->xattr_index);

	switch (sqfs_inode_type_basic(a->type)) {
	case SQFS_INODE_DIR:
		assert_int_equal(a->data.dir.start_block,
				 b->data.dir.start_block);
		assert_int_equal(a->data.dir.offset, b->data.dir.offset);
		assert_int_equal(a->data.dir.size, b->data.dir.size);
		assert_int_equal(a->data.dir.parent_inode,
				 b->data.dir.parent_inode);
		assert_int_equal(a->data.dir.index_count,
				 b->data.dir.index_count);
		break;
	case SQFS_INODE_FILE:
		assert_int_equal(a->data.file.blocks_start,
				 b->data.file.blocks_start);
		assert_int_equal(a->data.file.file_size,
				 b->data.file.file_size);
		assert_int_equal(a->data.file.sparse, b->data.file.sparse);
		assert_int_equal(a->data.file.fragment_index,
				 b->data.file.fragment_index);
		assert_int_equal(a->data.file.fragment_offset,
				 b->data.file.fragment_offset);
		break;
	case SQFS_INODE_SLINK:
		assert_int_equal(a->data.slink.target_size,
				 b->data.slink.target_size);
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		assert_int_equal(a->data.dev.rdev, b->data.dev.rdev);
		break;
	default:
		break;
	}
	assert_int_equal(a->payload_size, b->payload_size);
	if (a->payload_size > 0)
		assert_memory_equal(a->payload, b->payload, a->payload_size);
}

static sqfs_meta_writer_t *new_writer(sqfs_file_t *file, sqfs_compressor_t *cmp)
{
	sqfs_meta_writer_t *mw = NULL;

	assert_int_equal(
	    sqfs_meta_writer_create(
		file, cmp, cmp == NULL ? SQFS_META_WRITER_NO_COMPRESS : 0, &mw),
	    0);
	return mw;
}

static sqfs_meta_reader_t *new_reader(sqfs_file_t *file, sqfs_compressor_t *cmp)
{
	sqfs_meta_reader_t *mr = NULL;

	assert_int_equal(
	    sqfs_meta_reader_create(file, cmp, 0, file->get_size(file), &mr),
	    0);
	return mr;
}

/* Write every type twice around a filler that moves the second round
 * across a block boundary, read them all back in order. */
static void roundtrip_all(sqfs_compressor_t *cmp)
{
	const sqfs_super_t super = make_super(BLOCK_SIZE);
	sqfs_inode_t *in[2 * 14 + 1], *out;
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_writer_t *mw = new_writer(file, cmp);
	sqfs_meta_reader_t *mr;
	uint32_t *words;
	size_t i, n = 0;
	uint16_t t;

	for (t = 1; t <= 14; ++t)
		in[n++] = make_inode(t);

	/* a 20000-block file: its list straddles several md-blocks */
	in[n] = new_inode(SQFS_INODE_EXT_FILE, 20000 * 4);
	in[n]->data.file.file_size = 20000 * (uint64_t)BLOCK_SIZE;
	in[n]->data.file.fragment_index = SQFS_NO_FRAGMENT;
	in[n]->xattr_index = SQFS_NO_XATTR;
	words = sqfs_inode_block_sizes(in[n]);
	for (i = 0; i < 20000; ++i)
		words[i] = (uint32_t)(i * 7 % BLOCK_SIZE);
	++n;

	for (t = 1; t <= 14; ++t) {
		in[n] = make_inode(t);
		in[n]->inode_number = INODE_COUNT;
		in[n]->uid_idx = ID_COUNT - 1;
		in[n]->mode = 07777;
		++n;
	}

	for (i = 0; i < n; ++i)
		assert_int_equal(sqfs_inode_write(mw, in[i]), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);

	mr = new_reader(file, cmp);
	for (i = 0; i < n; ++i) {
		out = NULL;
		assert_int_equal(sqfs_inode_read(mr, &super, &out), 0);
		assert_non_null(out);
		assert_inode_equal(in[i], out);
		free(out);
		free(in[i]);
	}
	/* nothing more in the stream */
	assert_int_equal(sqfs_inode_read(mr, &super, &out),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	sqfs_meta_reader_destroy(mr);
	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
}

static void test_roundtrip_raw(void **state)
{
	(void)state;
	roundtrip_all(NULL);
}

static void test_roundtrip_compressed(void **state)
{
	sqfs_compressor_t *cmp = test_first_compressor(BLOCK_SIZE);

	(void)state;
	if (cmp == NULL)
		skip();
	roundtrip_all(cmp);
	sqfs_compressor_destroy(cmp);
}

/* The encoded bytes of inode (without the md-block header). */
static uint8_t *encode(const sqfs_inode_t *inode, size_t *size)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_writer_t *mw = new_writer(file, NULL);
	const uint8_t *data;
	uint8_t *copy;
	size_t len;

	assert_int_equal(sqfs_inode_write(mw, inode), 0);
	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	data = test_memory_file_data(file, &len);
	assert_true(len >= 2 && len <= 2 + SQFS_META_BLOCK_SIZE);
	assert_int_equal(get_le16(data), 0x8000 | (len - 2));
	copy = malloc(len - 2);
	assert_non_null(copy);
	memcpy(copy, data + 2, len - 2);
	*size = len - 2;
	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
	return copy;
}

/* Read an inode from size raw bytes stored as one md-block. */
static int read_raw(const uint8_t *bytes, size_t size,
		    const sqfs_super_t *super)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_inode_t *inode = NULL;
	sqfs_meta_reader_t *mr;
	int ret;

	if (size > 0) {
		test_file_append_block(file, (uint16_t)(0x8000 | size), bytes,
				       size);
	}
	mr = new_reader(file, NULL);
	ret = sqfs_inode_read(mr, super, &inode);
	if (ret == 0) {
		assert_non_null(inode);
		free(inode);
	}
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
	return ret;
}

static void test_file_hexdump(void **state)
{
	static const uint8_t expect[] = {
	    0x02, 0x00, 0xa4, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x5e,
	    0x5f, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00,
	};
	sqfs_inode_t *inode = sqfs_inode_alloc(0);
	sqfs_super_t super = make_super(BLOCK_SIZE);
	uint8_t *bytes;
	size_t size;

	(void)state;
	assert_non_null(inode);
	inode->type = SQFS_INODE_FILE;
	inode->mode = 0644;
	inode->mtime = 0x5f5e1000;
	inode->inode_number = 1;
	inode->nlink = 1;
	inode->xattr_index = SQFS_NO_XATTR;
	inode->data.file.file_size = 11;
	inode->data.file.fragment_index = 0;
	assert_int_equal(sqfs_inode_block_count(inode, BLOCK_SIZE), 0);

	bytes = encode(inode, &size);
	assert_int_equal(size, sizeof(expect));
	assert_memory_equal(bytes, expect, sizeof(expect));
	super.id_count = 1;
	super.inode_count = 1;
	super.fragment_entry_count = 1;
	assert_int_equal(read_raw(expect, sizeof(expect), &super), 0);
	free(bytes);
	free(inode);
}

static void test_rdev(void **state)
{
	uint32_t rdev = 0, major = 0, minor = 0;

	(void)state;
	assert_true(sqfs_inode_encode_rdev(259, 300000, &rdev));
	assert_int_equal(rdev, 0x493103e0);
	sqfs_inode_decode_rdev(rdev, &major, &minor);
	assert_int_equal(major, 259);
	assert_int_equal(minor, 300000);

	assert_true(sqfs_inode_encode_rdev(4095, 0xFFFFF, &rdev));
	assert_int_equal(rdev, 0xFFFFFFFF);
	sqfs_inode_decode_rdev(rdev, &major, &minor);
	assert_int_equal(major, 4095);
	assert_int_equal(minor, 0xFFFFF);

	assert_true(sqfs_inode_encode_rdev(8, 1, &rdev));
	assert_int_equal(rdev, 0x801);

	assert_false(sqfs_inode_encode_rdev(4096, 0, &rdev));
	assert_false(sqfs_inode_encode_rdev(0, 0x100000, &rdev));
}

static void test_helpers(void **state)
{
	sqfs_inode_t *inode = sqfs_inode_alloc(8);
	uint16_t t;

	(void)state;
	assert_non_null(inode);
	assert_int_equal(inode->payload_size, 8);
	assert_int_equal(inode->type, 0);
	assert_int_equal(inode->payload[7], 0);
	assert_null(sqfs_inode_alloc(SIZE_MAX - 4));

	for (t = 1; t <= 7; ++t) {
		assert_false(sqfs_inode_type_is_extended(t));
		assert_true(sqfs_inode_type_is_extended(t + 7));
		assert_int_equal(sqfs_inode_type_basic(t), t);
		assert_int_equal(sqfs_inode_type_basic(t + 7), t);
	}
	assert_false(sqfs_inode_type_is_extended(0));
	assert_false(sqfs_inode_type_is_extended(15));

	inode->type = SQFS_INODE_FILE;
	inode->data.file.fragment_index = SQFS_NO_FRAGMENT;
	inode->data.file.file_size = 300000;
	assert_int_equal(sqfs_inode_block_count(inode, BLOCK_SIZE), 3);
	inode->data.file.file_size = 2 * BLOCK_SIZE;
	assert_int_equal(sqfs_inode_block_count(inode, BLOCK_SIZE), 2);
	inode->data.file.fragment_index = 0;
	inode->data.file.file_size = 300000;
	assert_int_equal(sqfs_inode_block_count(inode, BLOCK_SIZE), 2);
	inode->data.file.file_size = 1000;
	assert_int_equal(sqfs_inode_block_count(inode, BLOCK_SIZE), 0);
	free(inode);
}

static int write_one(const sqfs_inode_t *inode)
{
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_writer_t *mw = new_writer(file, NULL);
	int ret = sqfs_inode_write(mw, inode);

	assert_int_equal(sqfs_meta_writer_flush(mw), 0);
	/* a refused inode leaves nothing behind */
	if (ret != 0)
		assert_int_equal(file->get_size(file), 0);
	sqfs_meta_writer_destroy(mw);
	sqfs_file_destroy(file);
	return ret;
}

static void test_write_refused(void **state)
{
	sqfs_inode_t *inode;

	(void)state;
	/* basic file: every field that does not fit */
	inode = make_inode(SQFS_INODE_FILE);
	assert_int_equal(write_one(inode), 0);
	inode->data.file.file_size = UINT64_C(1) << 32;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->data.file.file_size = 300000;
	inode->data.file.blocks_start = UINT64_C(1) << 32;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->data.file.blocks_start = 0x60;
	inode->data.file.sparse = 1;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->data.file.sparse = 0;
	inode->nlink = 2;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->nlink = 1;
	inode->xattr_index = 0;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->xattr_index = SQFS_NO_XATTR;
	inode->payload_size = 5;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->payload_size = 12;
	inode->mode = 0100644;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->mode = 0644;
	inode->inode_number = 0;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->inode_number = 1;
	inode->type = 0;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->type = 15;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	free(inode);

	inode = make_inode(SQFS_INODE_EXT_FILE);
	inode->data.file.file_size = UINT64_C(1) << 63;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	free(inode);

	/* basic directory */
	inode = make_inode(SQFS_INODE_DIR);
	inode->data.dir.size = 0x10000;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->data.dir.size = 100;
	inode->data.dir.index_count = 1;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->data.dir.index_count = 0;
	inode->xattr_index = 1;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->xattr_index = SQFS_NO_XATTR;
	inode->data.dir.offset = 8192;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->data.dir.offset = 0;
	inode->data.dir.size = 10;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->data.dir.size = 3;
	assert_int_equal(write_one(inode), 0);
	free(inode);

	/* extended directory: the payload must hold index_count entries */
	inode = make_inode(SQFS_INODE_EXT_DIR);
	inode->data.dir.index_count = 3;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->data.dir.index_count = 2;
	inode->payload_size -= 1;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->payload_size += 1;
	assert_int_equal(write_one(inode), 0);
	/* entries the reader would refuse: out of order, past the end */
	put_le32(inode->payload + 17, 0);
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	put_le32(inode->payload + 17, inode->data.dir.size - 3);
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	put_le32(inode->payload + 17, 8000);
	put_le32(inode->payload + 4, 3001);
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	free(inode);

	/* symlinks */
	inode = make_inode(SQFS_INODE_SLINK);
	inode->data.slink.target_size = 0;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->data.slink.target_size = 14;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	inode->data.slink.target_size = SQFS_MAX_SYMLINK_SIZE + 1;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	inode->data.slink.target_size = 12;
	inode->payload[3] = 0;
	assert_int_equal(write_one(inode), SQFS_ERROR_ARG_INVALID);
	free(inode);

	/* basic device with an xattr */
	inode = make_inode(SQFS_INODE_CDEV);
	inode->xattr_index = 0;
	assert_int_equal(write_one(inode), SQFS_ERROR_OVERFLOW);
	free(inode);

	assert_int_equal(sqfs_inode_write(NULL, NULL), SQFS_ERROR_ARG_INVALID);
}

/* Encode type, let patch change it, and expect reading to give expect. */
static void check_patched(uint16_t type, size_t off, uint32_t value,
			  size_t width, int expect)
{
	sqfs_super_t super = make_super(BLOCK_SIZE);
	sqfs_inode_t *inode = make_inode(type);
	size_t size;
	uint8_t *bytes = encode(inode, &size);

	assert_int_equal(read_raw(bytes, size, &super), 0);
	assert_true(off + width <= size);
	if (width == 2)
		put_le16(bytes + off, (uint16_t)value);
	else
		put_le32(bytes + off, value);
	assert_int_equal(read_raw(bytes, size, &super), expect);
	free(bytes);
	free(inode);
}

static void test_read_hostile_header(void **state)
{
	uint16_t t;

	(void)state;
	for (t = 1; t <= 14; ++t) {
		check_patched(t, 0, 0, 2, SQFS_ERROR_CORRUPTED);
		check_patched(t, 0, 15, 2, SQFS_ERROR_CORRUPTED);
		check_patched(t, 2, 0x4000 | 0755, 2, SQFS_ERROR_CORRUPTED);
		check_patched(t, 2, 0x1000, 2, SQFS_ERROR_CORRUPTED);
		check_patched(t, 4, ID_COUNT, 2, SQFS_ERROR_CORRUPTED);
		check_patched(t, 6, ID_COUNT, 2, SQFS_ERROR_CORRUPTED);
		check_patched(t, 12, 0, 4, SQFS_ERROR_CORRUPTED);
		check_patched(t, 12, INODE_COUNT + 1, 4, SQFS_ERROR_CORRUPTED);
		check_patched(t, 12, INODE_COUNT, 4, 0);
	}
}

/* Raw basic or extended file inode with the given fields. */
static size_t file_bytes(uint8_t *p, bool ext, uint64_t size, uint32_t frag,
			 uint32_t frag_off, const uint32_t *words,
			 size_t nwords)
{
	size_t len, i;

	memset(p, 0, 56);
	put_le16(p, ext ? SQFS_INODE_EXT_FILE : SQFS_INODE_FILE);
	put_le32(p + 12, 1);
	if (ext) {
		put_le64(p + 16, 96);
		put_le64(p + 24, size);
		put_le32(p + 40, 1);
		put_le32(p + 44, frag);
		put_le32(p + 48, frag_off);
		put_le32(p + 52, SQFS_NO_XATTR);
		len = 56;
	} else {
		put_le32(p + 16, 96);
		put_le32(p + 20, frag);
		put_le32(p + 24, frag_off);
		put_le32(p + 28, (uint32_t)size);
		len = 32;
	}
	for (i = 0; i < nwords; ++i)
		put_le32(p + len + 4 * i, words[i]);
	return len + 4 * nwords;
}

static int read_file_inode(bool ext, uint64_t size, uint32_t frag,
			   uint32_t frag_off, uint32_t word, size_t nwords)
{
	const sqfs_super_t super = make_super(BLOCK_SIZE);
	uint32_t words[4] = {word, word, word, word};
	uint8_t buf[56 + sizeof(words)];
	size_t len;

	len = file_bytes(buf, ext, size, frag, frag_off, words, nwords);
	return read_raw(buf, len, &super);
}

static void test_read_hostile_file(void **state)
{
	const uint64_t bs = BLOCK_SIZE;
	int e;

	(void)state;
	for (e = 0; e < 2; ++e) {
		assert_int_equal(
		    read_file_inode(e, 4 * bs, SQFS_NO_FRAGMENT, 0, 1000, 4),
		    0);
		/* fragment index out of range, or for a whole-block file */
		assert_int_equal(read_file_inode(e, 100, FRAG_COUNT, 0, 0, 0),
				 SQFS_ERROR_CORRUPTED);
		assert_int_equal(
		    read_file_inode(e, 100, FRAG_COUNT - 1, 0, 0, 0), 0);
		assert_int_equal(read_file_inode(e, 2 * bs, 0, 0, 1000, 2),
				 SQFS_ERROR_CORRUPTED);
		assert_int_equal(read_file_inode(e, 0, 0, 0, 0, 0),
				 SQFS_ERROR_CORRUPTED);
		/* a tail that cannot fit the fragment block */
		assert_int_equal(read_file_inode(e, 100, 0, bs - 100, 0, 0), 0);
		assert_int_equal(read_file_inode(e, 100, 0, bs - 99, 0, 0),
				 SQFS_ERROR_CORRUPTED);
		/* size words */
		assert_int_equal(read_file_inode(e, 4 * bs, SQFS_NO_FRAGMENT, 0,
						 0x02000010, 4),
				 SQFS_ERROR_CORRUPTED);
		assert_int_equal(read_file_inode(e, 4 * bs, SQFS_NO_FRAGMENT, 0,
						 0x80000010, 4),
				 SQFS_ERROR_CORRUPTED);
		assert_int_equal(read_file_inode(e, 4 * bs, SQFS_NO_FRAGMENT, 0,
						 BLOCK_SIZE + 1, 4),
				 SQFS_ERROR_CORRUPTED);
		assert_int_equal(read_file_inode(e, 4 * bs, SQFS_NO_FRAGMENT, 0,
						 0x01000000, 4),
				 SQFS_ERROR_CORRUPTED);
		assert_int_equal(read_file_inode(e, 4 * bs, SQFS_NO_FRAGMENT, 0,
						 0x01000000 | BLOCK_SIZE, 4),
				 0);
		assert_int_equal(
		    read_file_inode(e, 4 * bs, SQFS_NO_FRAGMENT, 0, 0, 4), 0);
		/* the list is one word short */
		assert_int_equal(read_file_inode(e, 4 * bs + 1,
						 SQFS_NO_FRAGMENT, 0, 1000, 4),
				 SQFS_ERROR_OUT_OF_BOUNDS);
	}
	assert_int_equal(
	    read_file_inode(true, UINT64_C(1) << 63, SQFS_NO_FRAGMENT, 0, 0, 0),
	    SQFS_ERROR_CORRUPTED);
	assert_int_equal(
	    read_file_inode(true, UINT64_MAX, SQFS_NO_FRAGMENT, 0, 0, 0),
	    SQFS_ERROR_CORRUPTED);
	/* 2^32 + 1 words: more than any table can hold */
	assert_int_equal(read_file_inode(true, (UINT64_C(1) << 49) + 1,
					 SQFS_NO_FRAGMENT, 0, 0, 0),
			 SQFS_ERROR_CORRUPTED);
}

/*
 * A file claiming 2^31 blocks (an 8 GiB list) in a tiny table must fail
 * with OUT_OF_BOUNDS, not allocate: run it in a child whose data segment
 * is capped, where a large allocation would give SQFS_ERROR_ALLOC.
 */
static int huge_list_read(void)
{
	sqfs_super_t super;
	uint32_t words[4] = {100, 100, 100, 100};
	uint8_t buf[2 + 56 + sizeof(words)];
	sqfs_inode_t *inode = NULL;
	sqfs_meta_reader_t *mr = NULL;
	sqfs_file_t *file = NULL;
	size_t len;
	int ret;

	/* no cmocka asserts: this also runs in a forked child */
	if (sqfs_super_init(&super, SQFS_MIN_BLOCK_SIZE, 0, SQFS_COMP_GZIP))
		return 1;
	super.id_count = 1;
	super.inode_count = 1;
	len = file_bytes(buf + 2, true, (UINT64_C(1) << 43), SQFS_NO_FRAGMENT,
			 0, words, 4);
	put_le16(buf, (uint16_t)(0x8000 | len));
	if (sqfs_file_open_memory(&file, buf, len + 2, 0) != 0)
		return 1;
	ret = sqfs_meta_reader_create(file, NULL, 0, len + 2, &mr);
	if (ret == 0)
		ret = sqfs_inode_read(mr, &super, &inode);
	free(inode);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
	return ret;
}

static void test_read_huge_block_count(void **state)
{
	int status = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(huge_list_read(), SQFS_ERROR_OUT_OF_BOUNDS);
#ifndef UNDER_ASAN
	/* ASan reserves its shadow in the data limit; the child would die */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = {64u << 20, 64u << 20};
		long pages = 0, data = 0;
		FILE *fp = fopen("/proc/self/statm", "r");

		if (fp != NULL) {
			if (fscanf(fp, "%*d %*d %*d %*d %*d %ld", &data) != 1)
				data = 0;
			fclose(fp);
		}
		pages = sysconf(_SC_PAGESIZE);
		lim.rlim_cur = lim.rlim_max += (rlim_t)data * (rlim_t)pages;
		if (setrlimit(RLIMIT_DATA, &lim) != 0)
			_exit(2);
		_exit(huge_list_read() == SQFS_ERROR_OUT_OF_BOUNDS ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
#else
	(void)status;
	(void)pid;
#endif
}

static void test_read_hostile_slink(void **state)
{
	const sqfs_super_t super = make_super(BLOCK_SIZE);
	uint8_t buf[24 + 5000];
	int e;

	(void)state;
	for (e = 0; e < 2; ++e) {
		memset(buf, 'x', sizeof(buf));
		memset(buf, 0, 24);
		put_le16(buf, e ? SQFS_INODE_EXT_SLINK : SQFS_INODE_SLINK);
		put_le32(buf + 12, 1);
		put_le32(buf + 16, 1);

		put_le32(buf + 20, 0);
		assert_int_equal(read_raw(buf, 24 + 4, &super),
				 SQFS_ERROR_CORRUPTED);
		put_le32(buf + 20, SQFS_MAX_SYMLINK_SIZE + 1);
		assert_int_equal(read_raw(buf, 24 + 4097, &super),
				 SQFS_ERROR_CORRUPTED);
		put_le32(buf + 20, SQFS_MAX_SYMLINK_SIZE);
		assert_int_equal(read_raw(buf, 24 + 4096 + 4 * e, &super), 0);
		put_le32(buf + 20, 5);
		assert_int_equal(read_raw(buf, 24 + 5 + 4 * e, &super), 0);
		buf[26] = 0;
		assert_int_equal(read_raw(buf, 24 + 5 + 4 * e, &super),
				 SQFS_ERROR_CORRUPTED);
	}
}

static void test_read_hostile_dir(void **state)
{
	static const uint32_t bad_sizes[] = {0, 1, 2, 4, 20, 23};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); ++i) {
		/* basic: file_size at 24; extended: at 20 */
		check_patched(SQFS_INODE_DIR, 24, bad_sizes[i], 2,
			      SQFS_ERROR_CORRUPTED);
		check_patched(SQFS_INODE_EXT_DIR, 20, bad_sizes[i], 4,
			      SQFS_ERROR_CORRUPTED);
	}
	check_patched(SQFS_INODE_DIR, 24, 3, 2, 0);
	check_patched(SQFS_INODE_DIR, 24, 24, 2, 0);
	check_patched(SQFS_INODE_DIR, 26, 8192, 2, SQFS_ERROR_CORRUPTED);
	check_patched(SQFS_INODE_EXT_DIR, 34, 8192, 2, SQFS_ERROR_CORRUPTED);
	check_patched(SQFS_INODE_EXT_DIR, 34, 8191, 2, 0);
	/* an empty listing has nothing to index */
	check_patched(SQFS_INODE_EXT_DIR, 20, 3, 4, SQFS_ERROR_CORRUPTED);

	/* index entries: 0 ("alpha") at 40, 1 ("zed") at 57 */
	check_patched(SQFS_INODE_EXT_DIR, 40 + 8, 255, 4,
		      SQFS_ERROR_OUT_OF_BOUNDS);
	check_patched(SQFS_INODE_EXT_DIR, 40 + 8, 256, 4, SQFS_ERROR_CORRUPTED);
	check_patched(SQFS_INODE_EXT_DIR, 40 + 8, UINT32_MAX, 4,
		      SQFS_ERROR_CORRUPTED);
	check_patched(SQFS_INODE_EXT_DIR, 57, 0, 4, SQFS_ERROR_CORRUPTED);
	check_patched(SQFS_INODE_EXT_DIR, 57, 0x123456 - 3, 4,
		      SQFS_ERROR_CORRUPTED);
	check_patched(SQFS_INODE_EXT_DIR, 57, 0x123456 - 4, 4, 0);
	check_patched(SQFS_INODE_EXT_DIR, 61, 0, 4, 0);
	check_patched(SQFS_INODE_EXT_DIR, 44, 3001, 4, SQFS_ERROR_CORRUPTED);
	/* more entries claimed than the stream holds */
	check_patched(SQFS_INODE_EXT_DIR, 32, 0xFFFF, 2,
		      SQFS_ERROR_OUT_OF_BOUNDS);
}

/* Every proper prefix of a valid inode fails cleanly. */
static void test_read_truncated(void **state)
{
	const sqfs_super_t super = make_super(BLOCK_SIZE);
	sqfs_inode_t *inode;
	uint8_t *bytes;
	size_t size, cut;
	uint16_t t;

	(void)state;
	for (t = 1; t <= 14; ++t) {
		inode = make_inode(t);
		bytes = encode(inode, &size);
		assert_int_equal(read_raw(bytes, size, &super), 0);
		for (cut = 0; cut < size; ++cut) {
			assert_int_equal(read_raw(bytes, cut, &super),
					 SQFS_ERROR_OUT_OF_BOUNDS);
		}
		free(bytes);
		free(inode);
	}
}

static void test_read_args(void **state)
{
	const sqfs_super_t super = make_super(BLOCK_SIZE);
	sqfs_file_t *file = test_memory_file(NULL, 0);
	sqfs_meta_reader_t *mr = new_reader(file, NULL);
	sqfs_inode_t *inode = NULL;

	(void)state;
	assert_int_equal(sqfs_inode_read(NULL, &super, &inode),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_inode_read(mr, NULL, &inode),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_inode_read(mr, &super, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(inode);
	sqfs_meta_reader_destroy(mr);
	sqfs_file_destroy(file);
}

/* The inodes of an image written by mksquashfs read back as expected. */
static void test_read_fixture(void **state)
{
	sqfs_compressor_config_t cfg;
	sqfs_compressor_t *cmp = NULL;
	sqfs_inode_t *inode[3] = {NULL, NULL, NULL}, *extra = NULL;
	sqfs_meta_reader_t *mr = NULL;
	sqfs_file_t *file = NULL;
	sqfs_super_t super;
	uint8_t *image;
	uint64_t block;
	size_t size, offset, i;

	(void)state;
	if (!sqfs_compressor_is_available(SQFS_COMP_GZIP))
		skip();
	image = test_load_fixture("gzip.sqfs", &size);
	file = test_memory_file(image, size);
	free(image);
	assert_int_equal(sqfs_super_read(&super, file), 0);
	assert_int_equal(super.inode_count, 3);
	assert_int_equal(sqfs_compressor_config_init(&cfg, super.compression_id,
						     super.block_size,
						     SQFS_COMP_FLAG_UNCOMPRESS),
			 0);
	if (super.flags & SQFS_FLAG_COMPRESSOR_OPTIONS)
		assert_int_equal(
		    sqfs_compressor_config_read_options(&cfg, file), 0);
	assert_int_equal(sqfs_compressor_create(&cfg, &cmp), 0);
	assert_int_equal(
	    sqfs_meta_reader_create(file, cmp, super.inode_table_start,
				    super.directory_table_start, &mr),
	    0);

	/* post-order: seq.txt, small.txt, then the root */
	for (i = 0; i < 3; ++i)
		assert_int_equal(sqfs_inode_read(mr, &super, &inode[i]), 0);
	sqfs_meta_reader_get_position(mr, &block, &offset);
	assert_int_equal(block, super.directory_table_start);
	assert_int_equal(sqfs_inode_read(mr, &super, &extra),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	assert_int_equal(inode[0]->type, SQFS_INODE_FILE);
	assert_int_equal(inode[0]->data.file.file_size, 13893);
	/* after the 8-byte gzip options block */
	assert_int_equal(inode[0]->data.file.blocks_start, 96 + 2 + 8);
	assert_int_not_equal(inode[0]->data.file.fragment_index,
			     SQFS_NO_FRAGMENT);
	assert_int_equal(inode[0]->payload_size, 3 * 4);
	assert_int_equal(inode[0]->nlink, 1);
	assert_int_equal(inode[0]->mode, 0644);
	assert_int_equal(inode[0]->mtime, 1700000000);
	assert_int_equal(inode[1]->type, SQFS_INODE_FILE);
	assert_int_equal(inode[1]->data.file.file_size, 15);
	assert_int_equal(inode[1]->payload_size, 0);
	assert_int_equal(sqfs_inode_type_basic(inode[2]->type), SQFS_INODE_DIR);
	assert_int_equal(inode[2]->inode_number, 3);
	assert_int_equal(inode[2]->data.dir.size, 3 + 12 + 2 * 8 + 7 + 9);

	/* the root reference leads to the same inode */
	assert_int_equal(sqfs_meta_reader_seek(mr,
					       super.inode_table_start +
						   (super.root_inode_ref >> 16),
					       super.root_inode_ref & 0xFFFF),
			 0);
	assert_int_equal(sqfs_inode_read(mr, &super, &extra), 0);
	assert_int_equal(extra->inode_number, 3);
	assert_int_equal(extra->data.dir.size, inode[2]->data.dir.size);
	free(extra);

	for (i = 0; i < 3; ++i)
		free(inode[i]);
	sqfs_meta_reader_destroy(mr);
	sqfs_compressor_destroy(cmp);
	sqfs_file_destroy(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_raw),
	    cmocka_unit_test(test_roundtrip_compressed),
	    cmocka_unit_test(test_file_hexdump),
	    cmocka_unit_test(test_rdev),
	    cmocka_unit_test(test_helpers),
	    cmocka_unit_test(test_write_refused),
	    cmocka_unit_test(test_read_hostile_header),
	    cmocka_unit_test(test_read_hostile_file),
	    cmocka_unit_test(test_read_huge_block_count),
	    cmocka_unit_test(test_read_hostile_slink),
	    cmocka_unit_test(test_read_hostile_dir),
	    cmocka_unit_test(test_read_truncated),
	    cmocka_unit_test(test_read_args),
	    cmocka_unit_test(test_read_fixture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * test_record.c - the writer's records (lib/sqfs/writer/record.c): every
 * kind survives encoding, the byte order is (parent, name as strcmp,
 * sequence), and lookup keys compare and hash like the records' keys.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/writer/record.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *encode(const wr_record_t *r, size_t *len)
{
	uint8_t *buf;

	*len = wr_record_size(r);
	buf = malloc(*len);
	assert_non_null(buf);
	wr_record_encode(r, buf);
	return buf;
}

static void check_common(const wr_record_t *a, const wr_record_t *b)
{
	assert_int_equal(a->parent, b->parent);
	assert_int_equal(a->name_len, b->name_len);
	assert_memory_equal(a->name, b->name, a->name_len);
	assert_true(a->seq == b->seq);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->uid_idx, b->uid_idx);
	assert_int_equal(a->gid_idx, b->gid_idx);
	assert_int_equal(a->mtime, b->mtime);
	assert_int_equal(a->xattr, b->xattr);
}

static void test_round_trip(void **state)
{
	uint32_t blocks[3] = {0x1000123u, 0, 77};
	wr_record_t r, d;
	uint8_t *buf;
	size_t len;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.parent = 0x01020304u;
	r.name = "f\xc3\xa9";
	r.name_len = 3;
	r.seq = 0x1122334455667788ull;
	r.mode = 0100644;
	r.uid_idx = 3;
	r.gid_idx = 65535;
	r.mtime = 0xFFFFFFFFu;
	r.xattr = 0xFFFFFFFFu;

	r.kind = WR_REC_FILE;
	r.data.size = 0x123456789ull;
	r.data.blocks_start = 96;
	r.data.sparse_bytes = 4096;
	r.data.fragment_index = 7;
	r.data.fragment_offset = 100;
	r.data.block_count = 3;
	r.data.block_sizes = blocks;
	buf = encode(&r, &len);
	assert_int_equal(wr_record_decode(buf, len, &d), 0);
	check_common(&r, &d);
	assert_true(d.data.size == r.data.size);
	assert_true(d.data.blocks_start == 96 && d.data.sparse_bytes == 4096);
	assert_int_equal(d.data.fragment_index, 7);
	assert_int_equal(d.data.fragment_offset, 100);
	assert_int_equal(d.data.block_count, 3);
	for (uint32_t i = 0; i < 3; ++i)
		assert_int_equal(wr_record_block_size(&d, i), blocks[i]);
	/* cut short anywhere: refused, never read past */
	for (size_t cut = 0; cut < len; ++cut)
		assert_int_equal(wr_record_decode(buf, cut, &d),
				 SQFS_ERROR_CORRUPTED);
	free(buf);

	memset(&r.data, 0, sizeof(r.data));
	r.kind = WR_REC_SLINK;
	r.text = "../target";
	r.text_len = 9;
	buf = encode(&r, &len);
	assert_int_equal(wr_record_decode(buf, len, &d), 0);
	check_common(&r, &d);
	assert_int_equal(d.text_len, 9);
	assert_memory_equal(d.text, "../target", 9);
	free(buf);

	r.kind = WR_REC_LINK;
	r.bound = 42;
	r.text = "a/b";
	r.text_len = 3;
	buf = encode(&r, &len);
	assert_int_equal(wr_record_decode(buf, len, &d), 0);
	check_common(&r, &d);
	assert_true(d.bound == 42);
	assert_memory_equal(d.text, "a/b", 3);
	free(buf);

	r.kind = WR_REC_DEV;
	r.rdev = 0xABCDEF01u;
	buf = encode(&r, &len);
	assert_int_equal(wr_record_decode(buf, len, &d), 0);
	check_common(&r, &d);
	assert_int_equal(d.rdev, 0xABCDEF01u);
	free(buf);

	r.kind = WR_REC_IPC;
	buf = encode(&r, &len);
	assert_int_equal(wr_record_decode(buf, len, &d), 0);
	check_common(&r, &d);
	buf[len - 1 - 14] = 99; /* an unknown kind */
	assert_int_equal(wr_record_decode(buf, len, &d), SQFS_ERROR_CORRUPTED);
	free(buf);
}

typedef struct {
	uint32_t parent;
	char name[8];
	uint64_t seq;
	uint8_t *bytes;
	size_t len;
} item_t;

static int model_cmp(const item_t *a, const item_t *b)
{
	int r;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	r = strcmp(a->name, b->name);
	if (r != 0)
		return r < 0 ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void test_order_and_keys(void **state)
{
	enum { N = 400 };
	static item_t items[N];
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (size_t i = 0; i < N; ++i) {
		wr_record_t r;
		size_t nlen;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		items[i].parent = (uint32_t)(x % 3) * 0x01000001u;
		/* names that are prefixes of each other, high bytes */
		nlen = 1 + (size_t)((x >> 8) % 3);
		for (size_t k = 0; k < nlen; ++k)
			items[i].name[k] = "ab\xff"[(x >> (16 + 2 * k)) % 3];
		items[i].name[nlen] = '\0';
		items[i].seq = (x >> 24) % 5 + ((x >> 40) % 2) * 0x100;

		memset(&r, 0, sizeof(r));
		r.parent = items[i].parent;
		r.name = items[i].name;
		r.name_len = nlen;
		r.seq = items[i].seq;
		r.kind = WR_REC_IPC;
		items[i].bytes = encode(&r, &items[i].len);
	}

	for (size_t i = 0; i < N; ++i) {
		uint8_t key[300];
		size_t klen = wr_record_key(items[i].parent, items[i].name,
					    strlen(items[i].name), key);

		assert_true(wr_record_key_hash(key, klen) ==
			    wr_record_hash(items[i].bytes, items[i].len, NULL));
		for (size_t j = 0; j < N; ++j) {
			item_t kj = items[j];
			item_t ki = items[i];
			int expect;

			assert_int_equal(
			    sign(wr_record_cmp(items[i].bytes, items[i].len,
					       items[j].bytes, items[j].len,
					       NULL)),
			    model_cmp(&items[i], &items[j]));

			/* the key ignores the sequence number */
			ki.seq = kj.seq = 0;
			expect = model_cmp(&ki, &kj);
			assert_int_equal(
			    sign(wr_record_key_cmp(key, klen, items[j].bytes,
						   items[j].len, NULL)),
			    expect);
		}
	}
	for (size_t i = 0; i < N; ++i)
		free(items[i].bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_order_and_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

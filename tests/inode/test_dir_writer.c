/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "sqfs/compressor.h"
#include "sqfs/dir_writer_internal.h"
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

#define MD SQFS_META_BLOCK_SIZE

typedef struct {
	sqfs_file_t *file;
	sqfs_compressor_t *cmp;
	sqfs_meta_writer_t *dm;
	meta_writer_stream_t ms;
	dir_writer_t *dw;
} fixture_t;

/* A run as decoded from the listing. */
typedef struct {
	size_t offset;
	size_t count;
	uint32_t start_block;
	uint32_t base;
	size_t first; /* index of its first entry */
	size_t end;   /* listing offset just past its last entry */
} run_info_t;

typedef struct {
	char name[257];
	size_t len;
	uint64_t ref;
	uint32_t number;
	uint16_t type;
} entry_info_t;

typedef struct {
	uint8_t *data;
	size_t size;
	run_info_t *runs;
	size_t nruns;
	entry_info_t *ents;
	size_t nents;
} listing_t;

static void fixture_open(fixture_t *fx, bool compress, size_t prefill)
{
	uint8_t *junk;

	memset(fx, 0, sizeof(*fx));
	fx->file = test_memory_file(NULL, 0);
	if (compress) {
		fx->cmp = test_first_compressor(SQFS_DEFAULT_BLOCK_SIZE);
		if (fx->cmp == NULL)
			skip();
	}
	assert_int_equal(sqfs_meta_writer_create(
			     fx->file, fx->cmp,
			     fx->cmp == NULL ? SQFS_META_WRITER_NO_COMPRESS : 0,
			     &fx->dm),
			 0);
	meta_writer_stream_init(&fx->ms, fx->dm);
	assert_int_equal(dir_writer_create(&fx->ms.base, &fx->dw), 0);

	/* move the listings off block offset 0 */
	if (prefill > 0) {
		junk = test_make_data(prefill, TEST_DATA_TEXT, 3);
		assert_int_equal(sqfs_meta_writer_append(fx->dm, junk, prefill),
				 0);
		free(junk);
	}
}

static void fixture_close(fixture_t *fx)
{
	dir_writer_destroy(fx->dw);
	sqfs_meta_writer_destroy(fx->dm);
	sqfs_compressor_destroy(fx->cmp);
	sqfs_file_destroy(fx->file);
}

static sqfs_meta_reader_t *open_reader(fixture_t *fx)
{
	sqfs_meta_reader_t *mr = NULL;

	assert_int_equal(sqfs_meta_writer_flush(fx->dm), 0);
	assert_int_equal(sqfs_meta_reader_create(fx->file, fx->cmp, 0,
						 fx->file->get_size(fx->file),
						 &mr),
			 0);
	return mr;
}

/* Decode a listing by hand, checking its structure on the way. */
static void decode(listing_t *l)
{
	size_t pos = 0, i, cap_runs = 16, cap_ents = 64;
	run_info_t *run;
	entry_info_t *ent;
	const uint8_t *p;

	l->runs = malloc(cap_runs * sizeof(*l->runs));
	l->ents = malloc(cap_ents * sizeof(*l->ents));
	assert_non_null(l->runs);
	assert_non_null(l->ents);
	l->nruns = l->nents = 0;

	while (pos < l->size) {
		assert_true(l->size - pos >= 12);
		if (l->nruns == cap_runs) {
			cap_runs *= 2;
			l->runs = realloc(l->runs, cap_runs * sizeof(*l->runs));
			assert_non_null(l->runs);
		}
		run = &l->runs[l->nruns++];
		p = l->data + pos;
		run->offset = pos;
		run->count = (size_t)get_le32(p) + 1;
		run->start_block = get_le32(p + 4);
		run->base = get_le32(p + 8);
		run->first = l->nents;
		assert_true(run->count <= 256);
		pos += 12;

		for (i = 0; i < run->count; ++i) {
			assert_true(l->size - pos >= 8);
			if (l->nents == cap_ents) {
				cap_ents *= 2;
				l->ents = realloc(l->ents,
						  cap_ents * sizeof(*l->ents));
				assert_non_null(l->ents);
			}
			ent = &l->ents[l->nents++];
			p = l->data + pos;
			ent->ref =
			    ((uint64_t)run->start_block << 16) | get_le16(p);
			ent->number = (uint32_t)((int64_t)run->base +
						 (int16_t)get_le16(p + 2));
			ent->type = get_le16(p + 4);
			ent->len = (size_t)get_le16(p + 6) + 1;
			assert_true(ent->len <= 256);
			assert_true(l->size - pos - 8 >= ent->len);
			memcpy(ent->name, p + 8, ent->len);
			ent->name[ent->len] = '\0';
			pos += 8 + ent->len;
		}
		run->end = pos;
	}
	assert_int_equal(pos, l->size);
}

static void read_listing(fixture_t *fx, sqfs_meta_reader_t *mr, uint64_t ref,
			 size_t size, listing_t *l)
{
	memset(l, 0, sizeof(*l));
	l->size = size;
	l->data = malloc(size + 1);
	assert_non_null(l->data);
	if (size > 0) {
		assert_int_equal(
		    sqfs_meta_reader_seek(mr, ref >> 16, ref & 0xFFFF), 0);
		assert_int_equal(sqfs_meta_reader_read(mr, l->data, size), 0);
	}
	(void)fx;
	decode(l);
}

static void free_listing(listing_t *l)
{
	free(l->data);
	free(l->runs);
	free(l->ents);
}

/*
 * Every index entry names a header: its offset in the listing, the block
 * that holds it (checked by reading the header there), and the first name.
 */
static void check_index(fixture_t *fx, sqfs_meta_reader_t *mr,
			const listing_t *l, uint64_t ref)
{
	size_t size, count, pos = 0, i, name_len, stride, r;
	const uint8_t *idx = dir_writer_get_index(fx->dw, &size, &count);
	uint8_t hdr[12];
	uint32_t index, start;

	if (l->nents < 256) {
		assert_int_equal(count, 0);
		assert_int_equal(size, 0);
		return;
	}
	/* past 65535 headers, every stride-th one is indexed */
	stride = (l->nruns + 65534) / 65535;
	assert_int_equal(count, (l->nruns + stride - 1) / stride);
	assert_true(count <= 65535);
	for (i = 0; i < count; ++i) {
		r = i * stride;
		assert_true(size - pos >= 12);
		index = get_le32(idx + pos);
		start = get_le32(idx + pos + 4);
		name_len = (size_t)get_le32(idx + pos + 8) + 1;
		assert_true(size - pos - 12 >= name_len);

		assert_int_equal(index, l->runs[r].offset);
		assert_int_equal(name_len, l->ents[l->runs[r].first].len);
		assert_memory_equal(idx + pos + 12,
				    l->ents[l->runs[r].first].name, name_len);

		/* the kernel's arithmetic for the in-block offset */
		assert_int_equal(sqfs_meta_reader_seek(
				     mr, start, ((ref & 0xFFFF) + index) % MD),
				 0);
		assert_int_equal(sqfs_meta_reader_read(mr, hdr, 12), 0);
		assert_memory_equal(hdr, l->data + index, 12);
		pos += 12 + name_len;
	}
	assert_int_equal(pos, size);
}

/* The md-block, counted in the stream, where a run's first entry ends. */
static size_t anchor_block(const listing_t *l, size_t run, size_t off0)
{
	const entry_info_t *first = &l->ents[l->runs[run].first];

	return (off0 + l->runs[run].offset + 12 + 8 + first->len - 1) / MD;
}

/* After its first entry, a run never crosses into another md-block. */
static void check_blocks(const listing_t *l, uint64_t ref)
{
	size_t off0 = ref & 0xFFFF, i;

	for (i = 0; i < l->nruns; ++i) {
		assert_int_equal(anchor_block(l, i, off0),
				 (off0 + l->runs[i].end - 1) / MD);
	}
}

static void add(fixture_t *fx, const char *name, uint32_t number, uint64_t ref,
		uint16_t type)
{
	assert_int_equal(dir_writer_add_entry(fx->dw, name, number, ref, type),
			 0);
}

static void test_hexdump(void **state)
{
	static const uint8_t expect[] = {
	    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x00,
	    0x00, 0x00, 0x81, 0x01, 0x00, 0x00, 0x01, 0x00, 0x07, 0x00,
	    'e',  'm',	'p',  't',  'y',  'd',	'i',  'r',  0xa1, 0x01,
	    0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 'f',
	};
	fixture_t fx;
	const uint8_t *data;
	size_t size, count;

	(void)state;
	fixture_open(&fx, false, 0);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	add(&fx, "emptydir", 13, 0x181, SQFS_INODE_DIR);
	/* an extended type is stored as its basic one */
	add(&fx, "f", 14, 0x1a1, SQFS_INODE_EXT_FILE);
	assert_int_equal(dir_writer_end(fx.dw), 0);

	assert_int_equal(dir_writer_get_size(fx.dw), sizeof(expect));
	assert_int_equal(dir_writer_get_dir_reference(fx.dw), 0);
	assert_int_equal(dir_writer_get_entry_count(fx.dw), 2);
	dir_writer_get_index(fx.dw, &size, &count);
	assert_int_equal(size, 0);
	assert_int_equal(count, 0);

	assert_int_equal(sqfs_meta_writer_flush(fx.dm), 0);
	data = test_memory_file_data(fx.file, &size);
	assert_int_equal(size, 2 + sizeof(expect));
	assert_int_equal(get_le16(data), 0x8000 | sizeof(expect));
	assert_memory_equal(data + 2, expect, sizeof(expect));
	fixture_close(&fx);
}

/* End the listing and decode it from the stream. */
static void finish(fixture_t *fx, sqfs_meta_reader_t **mr, listing_t *l)
{
	uint64_t ref;

	assert_int_equal(dir_writer_end(fx->dw), 0);
	ref = dir_writer_get_dir_reference(fx->dw);
	*mr = open_reader(fx);
	read_listing(fx, *mr, ref, dir_writer_get_size(fx->dw), l);
	assert_int_equal(l->nents, dir_writer_get_entry_count(fx->dw));
	check_blocks(l, ref);
	check_index(fx, *mr, l, ref);
}

static void test_split_256(void **state)
{
	sqfs_meta_reader_t *mr;
	char name[16];
	fixture_t fx;
	listing_t l;
	size_t i;

	(void)state;
	fixture_open(&fx, false, 0);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	for (i = 0; i < 300; ++i) {
		snprintf(name, sizeof(name), "e%03zu", i);
		add(&fx, name, (uint32_t)(i + 1), (uint64_t)(i * 20),
		    SQFS_INODE_FILE);
	}
	finish(&fx, &mr, &l);

	/* 300 * 12 + 24 bytes stays inside one block */
	assert_int_equal(l.nruns, 2);
	assert_int_equal(l.runs[0].count, 256);
	assert_int_equal(l.runs[1].count, 44);
	assert_int_equal(l.runs[0].base, 1);
	assert_int_equal(l.runs[1].base, 257);
	for (i = 0; i < 300; ++i) {
		assert_int_equal(l.ents[i].number, i + 1);
		assert_int_equal(l.ents[i].ref, i * 20);
		assert_int_equal(l.ents[i].type, SQFS_INODE_FILE);
	}
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

static void test_split_inode_block(void **state)
{
	sqfs_meta_reader_t *mr;
	char name[2] = "a";
	fixture_t fx;
	listing_t l;
	uint64_t ref;
	size_t i;

	(void)state;
	fixture_open(&fx, false, 0);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	for (i = 0; i < 10; ++i) {
		name[0] = (char)('a' + i);
		ref = ((uint64_t)(i < 4	  ? 0
				  : i < 7 ? 8194
					  : 0xFFFFFFFFu)
		       << 16) |
		      (i * 32);
		add(&fx, name, (uint32_t)(i + 1), ref, SQFS_INODE_SLINK);
	}
	finish(&fx, &mr, &l);

	assert_int_equal(l.nruns, 3);
	assert_int_equal(l.runs[0].count, 4);
	assert_int_equal(l.runs[0].start_block, 0);
	assert_int_equal(l.runs[1].count, 3);
	assert_int_equal(l.runs[1].start_block, 8194);
	assert_int_equal(l.runs[1].base, 5);
	assert_int_equal(l.runs[2].count, 3);
	assert_int_equal(l.runs[2].start_block, 0xFFFFFFFFu);
	for (i = 0; i < 7; ++i)
		assert_int_equal(l.ents[i].ref & 0xFFFF, i * 32);
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

static void test_split_delta(void **state)
{
	static const uint32_t numbers[] = {
	    1, 32768, 32769, 100000, 67233, 67232, 67232 + 32767,
	};
	static const size_t counts[] = {2, 1, 2, 2};
	static const uint32_t bases[] = {1, 32769, 100000, 67232};
	sqfs_meta_reader_t *mr;
	char name[2] = "a";
	fixture_t fx;
	listing_t l;
	size_t i;

	(void)state;
	fixture_open(&fx, false, 0);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); ++i) {
		name[0] = (char)('a' + i);
		add(&fx, name, numbers[i], i * 8, SQFS_INODE_FIFO);
	}
	finish(&fx, &mr, &l);

	/* +-32767 fits a run, +32768 and -32768 do not */
	assert_int_equal(l.nruns, 4);
	for (i = 0; i < 4; ++i) {
		assert_int_equal(l.runs[i].count, counts[i]);
		assert_int_equal(l.runs[i].base, bases[i]);
	}
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); ++i)
		assert_int_equal(l.ents[i].number, numbers[i]);
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

/* Long names from an odd starting offset: runs end at block boundaries,
 * and only there (or at 256 entries). */
static void crossing(bool compress)
{
	sqfs_meta_reader_t *mr;
	char name[120];
	fixture_t fx;
	listing_t l;
	uint64_t ref;
	size_t i, off0, next_end;

	fixture_open(&fx, compress, 5001);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	for (i = 0; i < 400; ++i) {
		memset(name, 'n', sizeof(name));
		snprintf(name, sizeof(name), "%04zu", i);
		name[4] = 'n';
		name[50 + i % 60] = '\0';
		add(&fx, name, (uint32_t)(i + 1), i * 4, SQFS_INODE_BDEV);
	}
	finish(&fx, &mr, &l);
	ref = dir_writer_get_dir_reference(fx.dw);
	off0 = ref & 0xFFFF;
	assert_int_equal(off0, 5001);

	/* a header after each of the boundaries the listing crosses */
	assert_true(l.nruns >= (off0 + l.size - 1) / MD - off0 / MD + 1);
	assert_true(l.nruns >= 5);
	for (i = 0; i + 1 < l.nruns; ++i) {
		const entry_info_t *next = &l.ents[l.runs[i + 1].first];

		if (l.runs[i].count == 256)
			continue;
		/* the next entry would have crossed a block boundary */
		next_end = off0 + l.runs[i].end + 8 + next->len - 1;
		assert_int_not_equal(next_end / MD, anchor_block(&l, i, off0));
	}
	for (i = 0; i < 400; ++i)
		assert_int_equal(l.ents[i].number, i + 1);
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

static void test_split_md_block(void **state)
{
	(void)state;
	crossing(false);
}

static void test_split_md_block_compressed(void **state)
{
	(void)state;
	crossing(true);
}

static void test_index_threshold(void **state)
{
	sqfs_meta_reader_t *mr;
	size_t i, size, count;
	char name[16];
	fixture_t fx;
	listing_t l;

	(void)state;
	fixture_open(&fx, false, 100);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	for (i = 0; i < 255; ++i) {
		snprintf(name, sizeof(name), "%05zu", i);
		add(&fx, name, (uint32_t)(i + 1), i * 4, SQFS_INODE_FILE);
	}
	assert_int_equal(dir_writer_end(fx.dw), 0);
	dir_writer_get_index(fx.dw, &size, &count);
	assert_int_equal(count, 0);
	assert_int_equal(size, 0);

	/* 256 entries get an index of one entry, for the only header */
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	for (i = 0; i < 256; ++i) {
		snprintf(name, sizeof(name), "%05zu", i);
		add(&fx, name, (uint32_t)(i + 1), i * 4, SQFS_INODE_FILE);
	}
	finish(&fx, &mr, &l);
	dir_writer_get_index(fx.dw, &size, &count);
	assert_int_equal(l.nruns, 1);
	assert_int_equal(count, 1);
	assert_int_equal(size, 12 + 5);
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

/* 20000 entries whose inodes lie in many blocks, as an inode table of
 * 40-byte inodes would put them. The listing goes out as they come, not
 * held until the end. */
static void test_large_directory(void **state)
{
	const size_t n = 20000;
	sqfs_meta_reader_t *mr;
	fixture_t fx;
	listing_t l;
	char name[16];
	uint64_t ref, pos, block0, block;
	uint32_t offset0, offset;
	size_t i;

	(void)state;
	fixture_open(&fx, true, 777);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	meta_stream_position(&fx.ms.base, &block0, &offset0);
	for (i = 0; i < n; ++i) {
		pos = i * 40;
		ref = ((pos / MD) * 3000 << 16) | (pos % MD);
		snprintf(name, sizeof(name), "file%05zu", i);
		add(&fx, name, (uint32_t)(n - i), ref, SQFS_INODE_FILE);
		if (i == n / 2) {
			/* 10000 entries of 17 bytes: 20 blocks out */
			meta_stream_position(&fx.ms.base, &block, &offset);
			assert_true(block > block0);
		}
	}
	finish(&fx, &mr, &l);

	assert_int_equal(l.nents, n);
	for (i = 0; i < n; ++i) {
		pos = i * 40;
		assert_int_equal(l.ents[i].ref,
				 ((pos / MD) * 3000 << 16) | (pos % MD));
		assert_int_equal(l.ents[i].number, n - i);
		assert_int_equal(l.ents[i].len, 9);
		if (i > 0)
			assert_true(strcmp(l.ents[i - 1].name, l.ents[i].name) <
				    0);
	}
	/* one run at least per inode block (98) and per 256 entries */
	assert_true(l.nruns >= 98);
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

/* More headers than an index can have: every other one is indexed. */
static void test_index_limit(void **state)
{
	const size_t n = 65600;
	sqfs_meta_reader_t *mr;
	fixture_t fx;
	listing_t l;
	char name[16];
	size_t i, count;

	(void)state;
	fixture_open(&fx, false, 0);
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	for (i = 0; i < n; ++i) {
		snprintf(name, sizeof(name), "%06zu", i);
		add(&fx, name, (uint32_t)(i + 1), (uint64_t)i << 16,
		    SQFS_INODE_FILE);
	}
	finish(&fx, &mr, &l);
	assert_int_equal(l.nruns, n);
	dir_writer_get_index(fx.dw, NULL, &count);
	assert_int_equal(count, n / 2);
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

static void test_names(void **state)
{
	char long_name[258];
	fixture_t fx;

	(void)state;
	fixture_open(&fx, false, 0);
	assert_int_equal(dir_writer_begin(fx.dw), 0);

	assert_int_equal(dir_writer_add_entry(fx.dw, "", 1, 0, 2),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(dir_writer_add_entry(fx.dw, ".", 1, 0, 2),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(dir_writer_add_entry(fx.dw, "..", 1, 0, 2),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(dir_writer_add_entry(fx.dw, "a/b", 1, 0, 2),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(dir_writer_add_entry(fx.dw, "/", 1, 0, 2),
			 SQFS_ERROR_ARG_INVALID);
	memset(long_name, 'x', 257);
	long_name[257] = '\0';
	assert_int_equal(dir_writer_add_entry(fx.dw, long_name, 1, 0, 2),
			 SQFS_ERROR_ARG_INVALID);
	/* bad types, numbers and references */
	assert_int_equal(dir_writer_add_entry(fx.dw, "a", 1, 0, 0),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(dir_writer_add_entry(fx.dw, "a", 1, 0, 15),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(dir_writer_add_entry(fx.dw, "a", 0, 0, 2),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(dir_writer_add_entry(fx.dw, "a", 1, 8192, 2),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(
	    dir_writer_add_entry(fx.dw, "a", 1, UINT64_C(1) << 48, 2),
	    SQFS_ERROR_OVERFLOW);

	/* order: unsigned bytes, a prefix first, no duplicates */
	add(&fx, "...", 1, 0, 2);
	add(&fx, "a", 2, 0, 2);
	assert_int_equal(dir_writer_add_entry(fx.dw, "a", 3, 0, 2),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(dir_writer_add_entry(fx.dw, "B", 3, 0, 2),
			 SQFS_ERROR_SEQUENCE);
	add(&fx, "ab", 3, 0, 2);
	assert_int_equal(dir_writer_add_entry(fx.dw, "a", 4, 0, 2),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(dir_writer_add_entry(fx.dw, "aa", 4, 0, 2),
			 SQFS_ERROR_SEQUENCE);
	add(&fx, "z", 4, 0, 2);
	add(&fx, "\xc3\xa9", 5, 0, 2);
	assert_int_equal(dir_writer_add_entry(fx.dw, "\x7f", 6, 0, 2),
			 SQFS_ERROR_SEQUENCE);
	memset(long_name, 0xFF, 256);
	long_name[256] = '\0';
	add(&fx, long_name, 6, 0, 2);
	assert_int_equal(dir_writer_end(fx.dw), 0);
	assert_int_equal(dir_writer_get_entry_count(fx.dw), 6);
	assert_int_equal(dir_writer_get_size(fx.dw),
			 12 + 6 * 8 + 3 + 1 + 2 + 1 + 2 + 256);
	fixture_close(&fx);
}

static void test_sequence(void **state)
{
	sqfs_meta_reader_t *mr;
	fixture_t fx;
	listing_t l;
	uint64_t ref1;

	(void)state;
	fixture_open(&fx, false, 0);
	assert_int_equal(dir_writer_add_entry(fx.dw, "a", 1, 0, 2),
			 SQFS_ERROR_SEQUENCE);
	assert_int_equal(dir_writer_end(fx.dw), SQFS_ERROR_SEQUENCE);
	assert_int_equal(dir_writer_create(NULL, &fx.dw),
			 SQFS_ERROR_ARG_INVALID);

	/* an empty listing takes no bytes */
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	assert_int_equal(dir_writer_end(fx.dw), 0);
	assert_int_equal(dir_writer_get_size(fx.dw), 0);
	assert_int_equal(dir_writer_get_entry_count(fx.dw), 0);
	assert_int_equal(dir_writer_end(fx.dw), SQFS_ERROR_SEQUENCE);

	/* two listings back to back; names restart */
	assert_int_equal(dir_writer_begin(fx.dw), 0);
	add(&fx, "x", 5, 0, 2);
	assert_int_equal(dir_writer_end(fx.dw), 0);
	ref1 = dir_writer_get_dir_reference(fx.dw);
	assert_int_equal(ref1, 0);
	assert_int_equal(dir_writer_get_size(fx.dw), 21);

	assert_int_equal(dir_writer_begin(fx.dw), 0);
	add(&fx, "a", 9, 64, 3);
	add(&fx, "b", 8, 96, 1);
	finish(&fx, &mr, &l);
	assert_int_equal(dir_writer_get_dir_reference(fx.dw), 21);
	assert_int_equal(l.nruns, 1);
	assert_string_equal(l.ents[1].name, "b");
	assert_int_equal(l.ents[1].number, 8);
	assert_int_equal(l.ents[1].type, 1);
	free_listing(&l);
	sqfs_meta_reader_destroy(mr);
	fixture_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hexdump),
	    cmocka_unit_test(test_split_256),
	    cmocka_unit_test(test_split_inode_block),
	    cmocka_unit_test(test_split_delta),
	    cmocka_unit_test(test_split_md_block),
	    cmocka_unit_test(test_split_md_block_compressed),
	    cmocka_unit_test(test_index_threshold),
	    cmocka_unit_test(test_large_directory),
	    cmocka_unit_test(test_index_limit),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_sequence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * The writer's flags for parts stored uncompressed (mksquashfs -noI -noId
 * -noD -noF -noX -no-compression) and for no padding (-nopad): the
 * superblock flags mksquashfs 4.7.5 sets, every block of each table raw
 * or not as the flag says (read straight from the image), and the image
 * read back by our reader and by unsquashfs.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "writer/writer_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BLOCK 4096u
#define NFILES 300

/* Parts of the image, for the masks of what must be raw. */
enum {
	P_INODES = 0x01,
	P_DIRS = 0x02,
	P_IDS = 0x04,
	P_EXPORT = 0x08,
	P_FRAG_TABLE = 0x10,
	P_FRAG_BLOCKS = 0x20,
	P_DATA = 0x40,
	P_XATTR_KV = 0x80,
	P_XATTR_IDS = 0x100,
	P_ALL = 0x1FF,
};

/* How many blocks of a part were raw and compressed. */
typedef struct {
	unsigned int raw;
	unsigned int packed;
} tally_t;

static void count_header(uint16_t header, tally_t *t)
{
	if (header & 0x8000)
		t->raw += 1;
	else
		t->packed += 1;
}

static uint16_t read_u16(sqfs_file_t *f, uint64_t pos)
{
	uint8_t b[2];

	assert_int_equal(f->read_at(f, pos, b, 2), 0);
	return (uint16_t)(b[0] | (b[1] << 8));
}

static uint64_t read_u64(sqfs_file_t *f, uint64_t pos)
{
	uint8_t b[8];
	uint64_t v = 0;

	assert_int_equal(f->read_at(f, pos, b, 8), 0);
	for (int i = 7; i >= 0; --i)
		v = (v << 8) | b[i];
	return v;
}

/* A stream of metadata blocks from start to end. */
static void tally_stream(sqfs_file_t *f, uint64_t start, uint64_t end,
			 tally_t *t)
{
	while (start < end) {
		uint16_t h = read_u16(f, start);

		count_header(h, t);
		start += 2 + (h & 0x7FFF);
	}
	assert_int_equal(start, end);
}

/* A lookup table: an index of count entries of size bytes at index. */
static void tally_lookup(sqfs_file_t *f, uint64_t index, uint64_t count,
			 size_t size, tally_t *t)
{
	uint64_t blocks = (count * size + 8191) / 8192;

	for (uint64_t i = 0; i < blocks; ++i)
		count_header(read_u16(f, read_u64(f, index + 8 * i)), t);
}

/* Where the first block of a lookup table lies. */
static uint64_t first_block(sqfs_file_t *f, uint64_t index)
{
	return read_u64(f, index);
}

static void check_tally(const char *what, const tally_t *t, bool raw)
{
	if (raw && t->packed != 0)
		fail_msg("%s: %u of %u blocks compressed, want all raw", what,
			 t->packed, t->packed + t->raw);
	if (!raw && t->packed == 0)
		fail_msg("%s: all %u blocks raw, want compressed ones", what,
			 t->raw);
}

/* Check every part of the image against the mask of raw parts, and the
 * data through our reader against the model. */
static void check_parts(const char *path, unsigned int raw, const wt_model_t *m)
{
	tally_t inodes = {0, 0}, dirs = {0, 0}, ids = {0, 0}, exp = {0, 0};
	tally_t ftab = {0, 0}, fblk = {0, 0}, data = {0, 0};
	tally_t kv = {0, 0}, xids = {0, 0};
	const sqfs_super_t *super;
	sqfs_data_reader_t *dr;
	sqfs_dir_reader_t *dir;
	sqfs_image_t *img;
	sqfs_file_t *f;
	uint64_t dir_end, kv_start, xindex;
	uint32_t xcount;
	uint8_t hdr[16];

	assert_int_equal(sqfs_file_open(&f, path, SQFS_FILE_OPEN_READ_ONLY), 0);
	assert_int_equal(sqfs_image_open(f, &img, NULL), 0);
	super = sqfs_image_super(img);

	/* the tables in the order the writer puts them down */
	dir_end = first_block(f, super->fragment_table_start);
	tally_stream(f, super->inode_table_start, super->directory_table_start,
		     &inodes);
	tally_stream(f, super->directory_table_start, dir_end, &dirs);
	tally_lookup(f, super->id_table_start, super->id_count, 4, &ids);
	tally_lookup(f, super->export_table_start, super->inode_count, 8, &exp);
	tally_lookup(f, super->fragment_table_start,
		     super->fragment_entry_count, 16, &ftab);
	for (uint32_t i = 0; i < super->fragment_entry_count; ++i) {
		sqfs_fragment_t frag;

		assert_int_equal(sqfs_image_get_fragment(img, i, &frag), 0);
		if (frag.size & (1u << 24))
			fblk.raw += 1;
		else
			fblk.packed += 1;
	}
	assert_int_equal(f->read_at(f, super->xattr_id_table_start, hdr, 16),
			 0);
	kv_start = read_u64(f, super->xattr_id_table_start);
	xcount = (uint32_t)hdr[8] | ((uint32_t)hdr[9] << 8) |
		 ((uint32_t)hdr[10] << 16) | ((uint32_t)hdr[11] << 24);
	xindex = super->xattr_id_table_start + 16;
	tally_stream(f, kv_start, first_block(f, xindex), &kv);
	tally_lookup(f, xindex, xcount, 16, &xids);

	/* every file's data, and the blocks of those larger than a block */
	assert_int_equal(sqfs_dir_reader_create(img, &dir), 0);
	assert_int_equal(sqfs_data_reader_create(img, &dr), 0);
	for (size_t i = 0; i < m->count; ++i) {
		const wt_entry_t *e = &m->entries[i];
		sqfs_inode_t *ino;
		uint8_t *want, *got;
		uint64_t nblocks;

		if (!S_ISREG(e->mode))
			continue;
		assert_int_equal(sqfs_dir_reader_resolve(dir, e->path, &ino),
				 0);
		nblocks = sqfs_inode_block_count(ino, super->block_size);
		for (uint64_t b = 0; b < nblocks; ++b) {
			if (sqfs_inode_block_sizes(ino)[b] & (1u << 24))
				data.raw += 1;
			else
				data.packed += 1;
		}
		want = test_make_data((size_t)e->size, e->kind, e->seed);
		got = malloc((size_t)e->size);
		assert_non_null(want);
		assert_non_null(got);
		assert_int_equal(
		    sqfs_data_reader_read(dr, ino, 0, got, (size_t)e->size),
		    (ptrdiff_t)e->size);
		assert_memory_equal(got, want, (size_t)e->size);
		free(got);
		free(want);
		free(ino);
	}
	sqfs_data_reader_destroy(dr);
	sqfs_dir_reader_destroy(dir);

	check_tally("inode table", &inodes, raw & P_INODES);
	check_tally("directory table", &dirs, raw & P_DIRS);
	check_tally("id table", &ids, raw & P_IDS);
	check_tally("export table", &exp, raw & P_EXPORT);
	check_tally("fragment table", &ftab, raw & P_FRAG_TABLE);
	check_tally("fragment blocks", &fblk, raw & P_FRAG_BLOCKS);
	check_tally("data blocks", &data, raw & P_DATA);
	check_tally("xattr key/value table", &kv, raw & P_XATTR_KV);
	check_tally("xattr id table", &xids, raw & P_XATTR_IDS);

	sqfs_image_destroy(img);
	sqfs_file_destroy(f);
}

/* A tree whose every table is large enough to shrink when compressed:
 * NFILES small files with their own owner and xattrs (ids, xattr sets,
 * fragments, export entries), and a compressible file of many blocks. */
static char notes[NFILES][64];
static const char *note_kv[NFILES][2];

static void build(sqfs_writer_t *wr, wt_model_t *m)
{
	char path[64];
	wt_xattr_set_t xs;
	wt_entry_t *e;

	wt_model_set(m, "", S_IFDIR | 0755, 0, 0, 0);
	wt_model_set(m, "f", S_IFDIR | 0755, 0, 0, 0);
	for (int i = 0; i < NFILES; ++i) {
		snprintf(path, sizeof(path), "f/file-%03d", i);
		snprintf(notes[i], sizeof(notes[i]),
			 "user.note=the note of file %d", i);
		note_kv[i][0] = notes[i];
		note_kv[i][1] = NULL;
		e = wt_model_set(m, path, S_IFREG | 0644, (uint32_t)i + 1, 0,
				 0);
		e->size = 1000 + (uint64_t)i;
		e->kind = TEST_DATA_TEXT;
		e->seed = (uint32_t)i + 1;
		e->xattrs = note_kv[i];
		wt_xattr_set(&xs, note_kv[i]);
		wt_write_file(wr, e, xs.x, xs.count);
	}
	e = wt_model_set(m, "big", S_IFREG | 0644, 0, 0, 0);
	e->size = 20 * BLOCK;
	e->kind = TEST_DATA_TEXT;
	e->seed = 4242;
	wt_write_file(wr, e, NULL, 0);
}

static void write_image(const char *path, uint32_t flags, wt_model_t *m,
			uint64_t *size)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_file_t *file;

	wt_options(&opt);
	opt.block_size = BLOCK;
	opt.compressor.block_size = BLOCK;
	opt.flags = SQFS_WRITER_EXPORTABLE | flags;
	wr = wt_create(path, &opt, &file);
	build(wr, m);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	*size = file->get_size(file);
	sqfs_file_destroy(file);
}

static uint16_t super_flags(const char *path, uint64_t *bytes_used)
{
	sqfs_super_t super;
	sqfs_file_t *f;

	assert_int_equal(sqfs_file_open(&f, path, SQFS_FILE_OPEN_READ_ONLY), 0);
	assert_int_equal(sqfs_super_read(&super, f), 0);
	sqfs_file_destroy(f);
	*bytes_used = super.bytes_used;
	return super.flags;
}

static const struct {
	const char *name;
	uint32_t flags;
	/* what mksquashfs 4.7.5 sets with the option, besides the flags of
	 * an image without it */
	uint16_t super;
	unsigned int raw;
} cases[] = {
    {"none", 0, 0, 0},
    {"-noI", SQFS_WRITER_UNCOMPRESSED_INODES, SQFS_FLAG_UNCOMPRESSED_INODES,
     P_INODES | P_DIRS | P_IDS | P_EXPORT},
    {"-noId", SQFS_WRITER_UNCOMPRESSED_IDS, SQFS_FLAG_UNCOMPRESSED_IDS, P_IDS},
    {"-noI -noId",
     SQFS_WRITER_UNCOMPRESSED_INODES | SQFS_WRITER_UNCOMPRESSED_IDS,
     SQFS_FLAG_UNCOMPRESSED_INODES, P_INODES | P_DIRS | P_IDS | P_EXPORT},
    {"-noD", SQFS_WRITER_UNCOMPRESSED_DATA, SQFS_FLAG_UNCOMPRESSED_DATA,
     P_DATA},
    {"-noF", SQFS_WRITER_UNCOMPRESSED_FRAGMENTS,
     SQFS_FLAG_UNCOMPRESSED_FRAGMENTS, P_FRAG_BLOCKS | P_FRAG_TABLE},
    {"-noX", SQFS_WRITER_UNCOMPRESSED_XATTRS, SQFS_FLAG_UNCOMPRESSED_XATTRS,
     P_XATTR_KV | P_XATTR_IDS},
    {"-no-compression", SQFS_WRITER_UNCOMPRESSED,
     SQFS_FLAG_UNCOMPRESSED_INODES | SQFS_FLAG_UNCOMPRESSED_DATA |
	 SQFS_FLAG_UNCOMPRESSED_FRAGMENTS | SQFS_FLAG_UNCOMPRESSED_XATTRS,
     P_ALL},
};

static void test_uncompressed_parts(void **state)
{
	uint16_t base = 0;
	uint64_t base_size = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		uint64_t size, used;
		wt_model_t model;
		wt_tmp_t tmp;
		uint16_t flags;

		print_message("%s\n", cases[i].name);
		wt_tmp_init(&tmp);
		wt_model_init(&model);
		write_image(tmp.image, cases[i].flags, &model, &size);

		flags = super_flags(tmp.image, &used);
		if (i == 0) {
			base = flags;
			base_size = used;
			assert_int_equal(base & 0x0909, 0);
		}
		assert_int_equal(flags, base | cases[i].super);
		if (i > 0 && cases[i].raw != P_ALL)
			assert_true(used > base_size);
		assert_int_equal(size % 4096, 0);

		check_parts(tmp.image, cases[i].raw, &model);
		if (wt_have(UNSQUASHFS))
			wt_check_image(&tmp, &model);
		wt_model_free(&model);
		wt_tmp_cleanup(&tmp);
	}
}

/* -nopad: the image ends where its last table does; the rest is the same
 * bytes as the padded image. */
static void test_no_pad(void **state)
{
	char second[PATH_MAX + 16];
	uint64_t size, padded, used;
	wt_model_t model;
	wt_tmp_t tmp;
	uint8_t *a, *b;
	FILE *fp;

	(void)state;
	wt_tmp_init(&tmp);
	snprintf(second, sizeof(second), "%s/padded", tmp.dir);
	wt_model_init(&model);
	write_image(tmp.image, SQFS_WRITER_NO_PAD, &model, &size);
	wt_model_free(&model);
	wt_model_init(&model);
	write_image(second, 0, &model, &padded);

	super_flags(tmp.image, &used);
	assert_int_equal(size, used);
	assert_true(size % 4096 != 0);
	assert_true(padded > size && padded % 4096 == 0);

	a = malloc(padded);
	b = malloc(padded);
	assert_non_null(a);
	assert_non_null(b);
	fp = fopen(tmp.image, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(a, 1, padded, fp), size);
	fclose(fp);
	fp = fopen(second, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(b, 1, padded, fp), padded);
	fclose(fp);
	assert_memory_equal(a, b, size);
	for (uint64_t i = size; i < padded; ++i)
		assert_int_equal(b[i], 0);
	free(a);
	free(b);

	check_parts(tmp.image, 0, &model);
	if (wt_have(UNSQUASHFS))
		wt_check_image(&tmp, &model);
	wt_model_free(&model);
	wt_tmp_cleanup(&tmp);
}

/* Threads give the same bytes with the flags too. */
static void test_raw_deterministic(void **state)
{
	char second[PATH_MAX + 16];
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	wt_model_t model;
	wt_tmp_t tmp;
	uint64_t size;

	(void)state;
	wt_tmp_init(&tmp);
	snprintf(second, sizeof(second), "%s/threads", tmp.dir);
	wt_model_init(&model);
	write_image(tmp.image,
		    SQFS_WRITER_UNCOMPRESSED_DATA | SQFS_WRITER_NO_PAD, &model,
		    &size);
	wt_model_free(&model);

	wt_options(&opt);
	opt.block_size = BLOCK;
	opt.compressor.block_size = BLOCK;
	opt.flags = SQFS_WRITER_EXPORTABLE | SQFS_WRITER_UNCOMPRESSED_DATA |
		    SQFS_WRITER_NO_PAD;
	opt.num_jobs = 3;
	wt_model_init(&model);
	wr = wt_create(second, &opt, &file);
	build(wr, &model);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	sqfs_file_destroy(file);
	wt_model_free(&model);

	assert_true(wt_files_equal(tmp.image, second));
	wt_tmp_cleanup(&tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_uncompressed_parts),
	    cmocka_unit_test(test_no_pad),
	    cmocka_unit_test(test_raw_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

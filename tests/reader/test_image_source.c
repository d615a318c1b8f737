/* SPDX-License-Identifier: MIT */
/*
 * test_image_source.c - the image source (sqfs/image_source.h): entries in
 * walk order with the attributes the writer was given, data as runs that
 * add up to the bytes written (holes merged, never two in a row), the same
 * at every number of jobs and read-ahead limit; extents, rewind, hard
 * links, the flags, and failures handed out in order with words.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sqfs/data_reader.h"
#include "sqfs/error.h"
#include "sqfs/image.h"
#include "sqfs/image_source.h"
#include "sqfs/io.h"
#include "sqfs/super.h"
#include "sqfs/walker.h"
#include "sqfs/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BS 4096u

/* ---- the test image ------------------------------------------------------ */

/* A regular file of the image: runs of data (seeded bytes) and holes. */
typedef struct {
	const char *path;
	/* alternating lengths: data, hole, data, hole, ... */
	uint64_t pieces[8];
	size_t count;
	uint32_t seed;
} file_spec_t;

static const file_spec_t files[] = {
    {"empty", {0}, 0, 1},
    {"small", {100}, 1, 2},
    {"a/two_blocks", {2 * BS}, 1, 3},
    {"a/tail", {3 * BS + 17}, 1, 4},
    /* a hole of three blocks in the middle: one hole run */
    {"a/b/holey", {BS, 3 * BS, BS + 5}, 3, 5},
    /* nothing but holes: one run, no data */
    {"a/b/all_holes", {0, 5 * BS}, 2, 6},
    /* holes at both ends */
    {"c/ends", {0, 2 * BS, BS, 2 * BS}, 4, 7},
    /* a hole then a short tail */
    {"c/hole_tail", {0, BS, 10}, 3, 8},
};

#define FILE_COUNT (sizeof(files) / sizeof(files[0]))

/* Seed 3 gives text that compresses (so that damage to it shows); the
 * others bytes that do not. */
static uint8_t byte_of(uint32_t seed, uint64_t off)
{
	uint64_t x = (off + 1) * 0x9E3779B97F4A7C15ull ^ seed;

	if (seed == 3)
		return (uint8_t)("squashed "[off % 9]);
	x ^= x >> 29;
	return (uint8_t)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

static uint64_t spec_size(const file_spec_t *f)
{
	uint64_t n = 0;

	for (size_t i = 0; i < f->count; ++i)
		n += f->pieces[i];
	return n;
}

/* The byte at off of f (0 in holes). */
static uint8_t spec_byte(const file_spec_t *f, uint64_t off)
{
	uint64_t pos = 0;

	for (size_t i = 0; i < f->count; ++i) {
		if (off < pos + f->pieces[i])
			return (i % 2 == 0) ? byte_of(f->seed, off) : 0;
		pos += f->pieces[i];
	}
	return 0;
}

static const file_spec_t *find_spec(const char *path)
{
	for (size_t i = 0; i < FILE_COUNT; ++i) {
		if (strcmp(files[i].path, path) == 0)
			return &files[i];
	}
	return NULL;
}

static void add(sqfs_writer_t *wr, sqfs_entry_t *e)
{
	assert_int_equal(sqfs_writer_add(wr, e, 0), 0);
}

static void write_file(sqfs_writer_t *wr, const file_spec_t *f, uint32_t uid)
{
	uint8_t buf[BS];
	uint64_t pos = 0;
	sqfs_entry_t e;

	sqfs_entry_init(&e, f->path, S_IFREG | 0640, uid, uid + 1,
			1000 + f->seed);
	e.size = spec_size(f);
	add(wr, &e);
	for (size_t i = 0; i < f->count; ++i) {
		uint64_t left = f->pieces[i];

		if (i % 2 == 1) {
			assert_int_equal(sqfs_writer_append_hole(wr, left), 0);
			pos += left;
			continue;
		}
		while (left > 0) {
			size_t n = left < BS ? (size_t)left : BS;

			for (size_t k = 0; k < n; ++k)
				buf[k] = byte_of(f->seed, pos + k);
			assert_int_equal(sqfs_writer_append(wr, buf, n), 0);
			pos += n;
			left -= n;
		}
	}
	assert_int_equal(sqfs_writer_end_file(wr), 0);
}

/* The image: directories, the files above, a symlink, devices, a FIFO, a
 * socket, hard links (to a file and a FIFO), xattrs. */
static sqfs_image_t *make_image(sqfs_file_t **file)
{
	static const sqfs_xattr_t xa[] = {
	    {"user.one", "1", 1},
	    {"security.two", "\0\1\2", 3},
	};
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr;
	sqfs_image_t *img;
	sqfs_entry_t e;

	assert_int_equal(sqfs_file_open_memory(file, NULL, 0, 0), 0);
	sqfs_writer_options_init(&opt);
	opt.block_size = BS;
	assert_int_equal(sqfs_compressor_config_init(
			     &opt.compressor, sqfs_compressor_default(), BS, 0),
			 0);
	assert_int_equal(sqfs_writer_create(*file, &opt, &wr, NULL), 0);

	sqfs_entry_init(&e, "", S_IFDIR | 0755, 0, 0, 77);
	add(wr, &e);
	sqfs_entry_init(&e, "a", S_IFDIR | 0700, 5, 6, 78);
	e.xattrs = xa;
	e.xattr_count = 2;
	add(wr, &e);
	for (size_t i = 0; i < FILE_COUNT; ++i)
		write_file(wr, &files[i], (uint32_t)i);
	sqfs_entry_init(&e, "a/link", S_IFLNK | 0777, 1, 2, 79);
	e.symlink_target = "../small";
	add(wr, &e);
	sqfs_entry_init(&e, "dev/chr", S_IFCHR | 0600, 0, 0, 80);
	e.rdev_major = 4095;
	e.rdev_minor = 1048575;
	add(wr, &e);
	sqfs_entry_init(&e, "dev/blk", S_IFBLK | 0660, 0, 6, 81);
	e.rdev_major = 8;
	e.rdev_minor = 1;
	add(wr, &e);
	sqfs_entry_init(&e, "dev/fifo", S_IFIFO | 0644, 0, 0, 82);
	add(wr, &e);
	sqfs_entry_init(&e, "dev/sock", S_IFSOCK | 0755, 0, 0, 83);
	add(wr, &e);
	sqfs_entry_init(&e, "z/hard", 0, 0, 0, 0);
	e.hard_link = "a/tail";
	add(wr, &e);
	sqfs_entry_init(&e, "z/hard_fifo", 0, 0, 0, 0);
	e.hard_link = "dev/fifo";
	add(wr, &e);
	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	assert_int_equal(sqfs_image_open(*file, &img, NULL), 0);
	return img;
}

/* ---- reading it back -------------------------------------------------------
 */

static sqfs_image_source_t *source(sqfs_image_t *img, const char *path,
				   uint32_t flags, unsigned int jobs,
				   size_t max_entries)
{
	sqfs_image_source_options_t opt;
	sqfs_image_source_t *src;

	sqfs_image_source_options_init(&opt);
	opt.flags = flags;
	opt.num_jobs = jobs;
	opt.max_entries = max_entries;
	assert_int_equal(sqfs_image_source_create(img, path, &opt, &src), 0);
	return src;
}

/* Read the current file's data and check it against its spec: the runs
 * follow each other, no two holes in a row, a hole exactly where the
 * writer made sparse blocks of whole holes. Returns the hole runs. */
static size_t check_data(sqfs_image_source_t *src, const sqfs_entry_t *e,
			 const file_spec_t *f)
{
	sqfs_data_run_t run;
	uint64_t pos = 0;
	bool last_hole = false;
	size_t holes = 0;
	int ret;

	while ((ret = sqfs_image_source_read(src, &run)) == 0) {
		assert_true(run.offset == pos);
		assert_true(run.size > 0);
		if (run.data == NULL) {
			assert_false(last_hole);
			holes += 1;
			for (uint64_t k = 0; k < run.size; ++k)
				assert_int_equal(spec_byte(f, pos + k), 0);
		} else {
			for (uint64_t k = 0; k < run.size; ++k)
				assert_int_equal(run.data[k],
						 spec_byte(f, pos + k));
		}
		last_hole = run.data == NULL;
		pos += run.size;
	}
	assert_int_equal(ret, 1);
	assert_true(pos == e->size);
	assert_true(pos == spec_size(f));
	/* and again: the end stays the end */
	assert_int_equal(sqfs_image_source_read(src, &run), 1);
	return holes;
}

/* The expected hole runs of a spec: holes of whole blocks, merged. */
static size_t spec_holes(const file_spec_t *f)
{
	size_t n = 0;

	for (size_t i = 1; i < f->count; i += 2)
		n += f->pieces[i] > 0;
	return n;
}

/* What the walker says, to compare the source's order and links with. */
typedef struct {
	char path[64];
	char link[64];
	bool post;
} walked_t;

static size_t walk_reference(sqfs_image_t *img, uint32_t wflags, walked_t *out,
			     size_t max)
{
	sqfs_walk_entry_t ent;
	sqfs_walker_t *w;
	size_t n = 0;
	int ret;

	assert_int_equal(sqfs_walker_create(img, "", 0, wflags, &w), 0);
	while ((ret = sqfs_walker_next(w, &ent)) == 0) {
		assert_true(n < max);
		snprintf(out[n].path, sizeof(out[n].path), "%s", ent.path);
		snprintf(out[n].link, sizeof(out[n].link), "%s",
			 ent.link_target != NULL ? ent.link_target : "");
		out[n].post = ent.post;
		++n;
	}
	assert_int_equal(ret, 1);
	sqfs_walker_destroy(w);
	return n;
}

static void check_entry(const sqfs_entry_t *e)
{
	const file_spec_t *f = find_spec(e->path);
	uint32_t type = e->mode & S_IFMT;

	assert_int_equal(e->reserved[0], 0);
	if (e->hard_link != NULL) {
		assert_true(strcmp(e->path, "z/hard") == 0 ||
			    strcmp(e->path, "z/hard_fifo") == 0);
		/* the target's attributes */
		if (strcmp(e->path, "z/hard") == 0) {
			assert_string_equal(e->hard_link, "a/tail");
			assert_int_equal(e->mode, S_IFREG | 0640);
			assert_int_equal(e->nlink, 2);
		} else {
			assert_string_equal(e->hard_link, "dev/fifo");
			assert_int_equal(e->mode, S_IFIFO | 0644);
		}
		return;
	}
	if (f != NULL) {
		assert_int_equal(type, S_IFREG);
		assert_int_equal(e->mode & 07777, 0640);
		assert_int_equal(e->uid, (uint32_t)(f - files));
		assert_int_equal(e->gid, (uint32_t)(f - files) + 1);
		assert_int_equal(e->mtime, 1000 + f->seed);
		assert_true(e->size == spec_size(f));
		return;
	}
	if (strcmp(e->path, "a") == 0) {
		assert_int_equal(e->mode, S_IFDIR | 0700);
		assert_int_equal(e->uid, 5);
		assert_int_equal(e->gid, 6);
		assert_int_equal(e->mtime, 78);
	} else if (strcmp(e->path, "a/link") == 0) {
		assert_int_equal(e->mode, S_IFLNK | 0777);
		assert_string_equal(e->symlink_target, "../small");
		assert_int_equal(e->size, 8);
	} else if (strcmp(e->path, "dev/chr") == 0) {
		assert_int_equal(e->mode, S_IFCHR | 0600);
		assert_int_equal(e->rdev_major, 4095);
		assert_int_equal(e->rdev_minor, 1048575);
	} else if (strcmp(e->path, "dev/blk") == 0) {
		assert_int_equal(e->mode, S_IFBLK | 0660);
		assert_int_equal(e->gid, 6);
		assert_int_equal(e->rdev_major, 8);
		assert_int_equal(e->rdev_minor, 1);
	} else if (strcmp(e->path, "dev/sock") == 0) {
		assert_int_equal(e->mode, S_IFSOCK | 0755);
	} else if (strcmp(e->path, "") == 0) {
		assert_int_equal(e->mode, S_IFDIR | 0755);
		assert_int_equal(e->mtime, 77);
	} else {
		assert_int_equal(type, e->path[0] == 'd' && e->path[3] == '/'
					   ? S_IFIFO
					   : S_IFDIR);
	}
}

/* Everything, with every number of jobs and read-ahead limit: the same
 * entries in the walker's order, each checked, the data of each file. */
static void test_whole_image(void **state)
{
	static const unsigned int jobs[] = {1, 2, 4};
	static const size_t limits[] = {0, 1, 3};
	walked_t ref[64];
	sqfs_file_t *file;
	sqfs_image_t *img = make_image(&file);
	size_t nref;

	(void)state;
	nref = walk_reference(img, SQFS_WALK_POST_DIRS, ref, 64);
	for (size_t j = 0; j < 3; ++j) {
		for (size_t l = 0; l < 3; ++l) {
			sqfs_image_source_t *src = source(
			    img, "", SQFS_SOURCE_POST_DIRS, jobs[j], limits[l]);
			const sqfs_entry_t *e;
			size_t n = 0;
			int ret;

			while ((ret = sqfs_image_source_next(src, &e)) == 0) {
				const file_spec_t *f = find_spec(e->path);

				assert_true(n < nref);
				assert_string_equal(e->path, ref[n].path);
				assert_string_equal(
				    e->hard_link != NULL ? e->hard_link : "",
				    ref[n].link);
				assert_int_equal((e->flags & SQFS_ENTRY_POST) !=
						     0,
						 ref[n].post);
				if (!ref[n].post)
					check_entry(e);
				if (f != NULL && e->hard_link == NULL)
					assert_int_equal(check_data(src, e, f),
							 spec_holes(f));
				/* xattrs where they were given */
				if (strcmp(e->path, "a") == 0) {
					assert_int_equal(e->xattr_count, 2);
				} else {
					assert_int_equal(e->xattr_count, 0);
				}
				++n;
			}
			assert_int_equal(ret, 1);
			assert_int_equal(n, nref);
			assert_int_equal(sqfs_image_source_next(src, &e), 1);
			sqfs_image_source_destroy(src);
		}
	}
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* Data not wanted ahead, a hard link's data, data read twice, data not
 * read at all, extents. */
static void test_data_ways(void **state)
{
	sqfs_file_t *file;
	sqfs_image_t *img = make_image(&file);
	const sqfs_extent_t *ext;
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	size_t count;
	int ret;

	(void)state;
	/* without data ahead: the same runs, through the data reader */
	src = source(img, "", SQFS_SOURCE_NO_DATA, 4, 0);
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		const file_spec_t *f = find_spec(e->path);

		if (f != NULL)
			assert_int_equal(check_data(src, e, f), spec_holes(f));
	}
	assert_int_equal(ret, 1);
	sqfs_image_source_destroy(src);

	/* a hard link's data can be read (for a copy); a rewound file is
	 * read again; a file whose data is never read is skipped */
	src = source(img, "", 0, 2, 0);
	while ((ret = sqfs_image_source_next(src, &e)) == 0) {
		const file_spec_t *f = find_spec(e->path);

		if (strcmp(e->path, "z/hard") == 0) {
			check_data(src, e, find_spec("a/tail"));
		} else if (f != NULL && strcmp(e->path, "a/b/holey") == 0) {
			assert_int_equal(sqfs_image_source_read(src, &run), 0);
			assert_int_equal(sqfs_image_source_rewind(src), 0);
			check_data(src, e, f);
			assert_int_equal(sqfs_image_source_rewind(src), 0);
			check_data(src, e, f);
		} else if ((e->mode & S_IFMT) != S_IFREG) {
			/* no data: at once the end */
			assert_int_equal(sqfs_image_source_read(src, &run), 1);
			assert_int_equal(
			    sqfs_image_source_extents(src, &ext, &count),
			    SQFS_ERROR_NOT_FILE);
		}
		if (f == NULL)
			continue;
		/* the data ranges, from the block list alone */
		assert_int_equal(sqfs_image_source_extents(src, &ext, &count),
				 0);
		if (strcmp(e->path, "a/b/holey") == 0) {
			assert_int_equal(count, 2);
			assert_true(ext[0].offset == 0 && ext[0].size == BS);
			assert_true(ext[1].offset == 4 * BS &&
				    ext[1].size == BS + 5);
		} else if (strcmp(e->path, "a/b/all_holes") == 0 ||
			   strcmp(e->path, "empty") == 0) {
			assert_int_equal(count, 0);
		} else if (strcmp(e->path, "c/ends") == 0) {
			assert_int_equal(count, 1);
			assert_true(ext[0].offset == 2 * BS &&
				    ext[0].size == BS);
		} else if (strcmp(e->path, "c/hole_tail") == 0) {
			assert_int_equal(count, 1);
			assert_true(ext[0].offset == BS && ext[0].size == 10);
		} else {
			assert_int_equal(count, 1);
			assert_true(ext[0].offset == 0 &&
				    ext[0].size == spec_size(f));
		}
	}
	assert_int_equal(ret, 1);
	sqfs_image_source_destroy(src);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* A subtree, the start alone, one level, a file as the start. */
static void test_parts(void **state)
{
	sqfs_file_t *file;
	sqfs_image_t *img = make_image(&file);
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	char seen[512];

	(void)state;
	src = source(img, "/a/b/", 0, 1, 0);
	seen[0] = '\0';
	while (sqfs_image_source_next(src, &e) == 0) {
		strcat(seen, e->path);
		strcat(seen, ";");
	}
	assert_string_equal(seen, ";all_holes;holey;");
	sqfs_image_source_destroy(src);

	src = source(img, "a", SQFS_SOURCE_START_ONLY, 1, 0);
	assert_int_equal(sqfs_image_source_next(src, &e), 0);
	assert_string_equal(e->path, "");
	assert_int_equal(e->mode, S_IFDIR | 0700);
	assert_int_equal(sqfs_image_source_next(src, &e), 1);
	sqfs_image_source_destroy(src);

	src = source(img, "", SQFS_SOURCE_ONE_LEVEL | SQFS_SOURCE_POST_DIRS, 1,
		     0);
	seen[0] = '\0';
	while (sqfs_image_source_next(src, &e) == 0) {
		strcat(seen, e->path);
		strcat(seen, (e->flags & SQFS_ENTRY_POST) ? "+;" : ";");
	}
	assert_string_equal(seen, ";a;c;dev;empty;small;z;+;");
	sqfs_image_source_destroy(src);

	/* a file as the start: itself, with its data */
	src = source(img, "a/tail", 0, 2, 0);
	assert_int_equal(sqfs_image_source_next(src, &e), 0);
	assert_string_equal(e->path, "");
	check_data(src, e, find_spec("a/tail"));
	assert_int_equal(sqfs_image_source_next(src, &e), 1);
	sqfs_image_source_destroy(src);

	/* no xattrs when asked for none */
	src = source(img, "a", SQFS_SOURCE_START_ONLY | SQFS_SOURCE_NO_XATTRS,
		     1, 0);
	assert_int_equal(sqfs_image_source_next(src, &e), 0);
	assert_int_equal(e->xattr_count, 0);
	assert_null(e->xattrs);
	sqfs_image_source_destroy(src);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

static void test_bad_arguments(void **state)
{
	sqfs_file_t *file;
	sqfs_image_t *img = make_image(&file);
	sqfs_image_source_options_t opt;
	sqfs_image_source_t *src = NULL;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;

	(void)state;
	sqfs_image_source_options_init(&opt);
	opt.flags = 0x100;
	assert_int_equal(sqfs_image_source_create(img, "", &opt, &src),
			 SQFS_ERROR_ARG_INVALID);
	sqfs_image_source_options_init(&opt);
	opt.reserved[3] = 1;
	assert_int_equal(sqfs_image_source_create(img, "", &opt, &src),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_source_create(img, NULL, NULL, &src),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_source_create(img, "nowhere", NULL, &src),
			 SQFS_ERROR_NO_ENTRY);
	assert_non_null(strstr(sqfs_image_error(img), "nowhere"));
	assert_int_equal(sqfs_image_source_create(img, "a/../b", NULL, &src),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(src);

	/* defaults when no options are given */
	assert_int_equal(sqfs_image_source_create(img, "", NULL, &src), 0);
	assert_int_equal(sqfs_image_source_read(src, &run), 1);
	assert_int_equal(sqfs_image_source_rewind(src), SQFS_ERROR_SEQUENCE);
	assert_int_equal(sqfs_image_source_next(src, NULL),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_image_source_next(src, &e), 0);
	sqfs_image_source_destroy(src);
	sqfs_image_source_destroy(NULL);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* Find the first data block of path in a memory image: its position. */
static uint64_t first_block_of(sqfs_image_t *img, const char *path)
{
	sqfs_image_source_t *src = source(img, path, SQFS_SOURCE_NO_DATA, 1, 0);
	const sqfs_entry_t *e;
	sqfs_walker_t *w;
	sqfs_walk_entry_t ent;
	uint64_t start;

	assert_int_equal(sqfs_image_source_next(src, &e), 0);
	sqfs_image_source_destroy(src);
	assert_int_equal(sqfs_walker_create(img, path, 0, 0, &w), 0);
	assert_int_equal(sqfs_walker_next(w, &ent), 0);
	start = ent.inode->data.file.blocks_start;
	sqfs_walker_destroy(w);
	return start;
}

/* A damaged block fails where its data is read, with the image's words,
 * or at the next entry when it is not read, naming the entry; every call
 * after repeats the failure. */
static void test_damage(void **state)
{
	sqfs_file_t *file, *bad;
	sqfs_image_t *img = make_image(&file), *bimg;
	const uint8_t *bytes;
	sqfs_image_source_t *src;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	uint64_t pos;
	size_t size;
	uint8_t *copy;
	int ret;

	(void)state;
	pos = first_block_of(img, "a/two_blocks");
	bytes = sqfs_file_memory_data(file, &size);
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, bytes, size);
	/* garbage where the compressed block is (its text compresses) */
	memset(copy + pos, 0x5A, 64);
	assert_int_equal(sqfs_file_open_memory(&bad, copy, size, 0), 0);
	free(copy);
	assert_int_equal(sqfs_image_open(bad, &bimg, NULL), 0);

	for (int pass = 0; pass < 2; ++pass) {
		bool failed = false;

		src = source(bimg, "", 0, pass == 0 ? 1 : 4, 0);
		while ((ret = sqfs_image_source_next(src, &e)) == 0) {
			if (strcmp(e->path, "a/two_blocks") != 0)
				continue;
			if (pass == 0) {
				ret = sqfs_image_source_read(src, &run);
				assert_true(ret < 0);
				assert_non_null(
				    strstr(sqfs_image_error(bimg), "block 0"));
				failed = true;
				break;
			}
		}
		if (pass == 1) {
			/* not read: the next entry fails, naming it */
			assert_true(ret < 0);
			assert_non_null(
			    strstr(sqfs_image_error(bimg), "'a/two_blocks'"));
			failed = true;
		}
		assert_true(failed);
		/* and stays failed */
		assert_true(sqfs_image_source_next(src, &e) < 0);
		assert_true(sqfs_image_source_read(src, &run) < 0);
		sqfs_image_source_destroy(src);
	}
	sqfs_image_destroy(bimg);
	sqfs_file_destroy(bad);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* The paths the walker reports before it fails (or all of them). */
static size_t walker_paths(sqfs_image_t *img, char *out, size_t size, int *err)
{
	sqfs_walk_entry_t ent;
	sqfs_walker_t *w;
	size_t n = 0;
	int ret;

	out[0] = '\0';
	*err = sqfs_walker_create(img, "", 0, 0, &w);
	if (*err != 0)
		return 0;
	while ((ret = sqfs_walker_next(w, &ent)) == 0) {
		strncat(out, ent.path, size - strlen(out) - 2);
		strcat(out, ";");
		++n;
	}
	*err = ret < 0 ? ret : 0;
	sqfs_walker_destroy(w);
	return n;
}

/*
 * A directory table damaged at every byte in turn: whatever the walk
 * reports before it fails, the source hands out first (reading far
 * ahead, with data), then the walker's failure, for good.
 */
static void test_walk_failure_in_order(void **state)
{
	sqfs_file_t *file;
	sqfs_image_t *img = make_image(&file);
	const sqfs_super_t *super = sqfs_image_super(img);
	uint64_t start = super->directory_table_start;
	uint64_t end = super->fragment_table_start;
	const uint8_t *bytes;
	size_t size, tried = 0;
	char *want = malloc(8192), *got = malloc(8192);

	(void)state;
	assert_non_null(want);
	assert_non_null(got);
	bytes = sqfs_file_memory_data(file, &size);
	if (end == 0 || end > size || end < start)
		end = start + 64;
	for (uint64_t pos = start; pos < end && pos < size; ++pos) {
		sqfs_image_source_t *src;
		const sqfs_entry_t *e;
		sqfs_file_t *bad;
		sqfs_image_t *bimg;
		uint8_t *copy = malloc(size);
		int werr, ret;

		assert_non_null(copy);
		memcpy(copy, bytes, size);
		copy[pos] ^= 0xA5;
		assert_int_equal(sqfs_file_open_memory(&bad, copy, size, 0), 0);
		free(copy);
		if (sqfs_image_open(bad, &bimg, NULL) != 0) {
			sqfs_file_destroy(bad);
			continue;
		}
		walker_paths(bimg, want, 8192, &werr);
		if (werr != 0 &&
		    sqfs_image_source_create(bimg, "", NULL, &src) == 0) {
			got[0] = '\0';
			while ((ret = sqfs_image_source_next(src, &e)) == 0) {
				strncat(got, e->path, 8192 - strlen(got) - 2);
				strcat(got, ";");
			}
			assert_string_equal(got, want);
			assert_int_equal(ret, werr);
			assert_int_equal(sqfs_image_source_next(src, &e), ret);
			sqfs_image_source_destroy(src);
			tried += 1;
		}
		sqfs_image_destroy(bimg);
		sqfs_file_destroy(bad);
	}
	/* the damage made some walks fail midway */
	assert_true(tried > 0);
	free(want);
	free(got);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_whole_image),
	    cmocka_unit_test(test_data_ways),
	    cmocka_unit_test(test_parts),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_walk_failure_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

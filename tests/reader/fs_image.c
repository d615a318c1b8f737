/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "reader/fs_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* size = mult * bs + add; sparse: every odd block a hole; random:
 * incompressible (raw blocks); nofrag: the tail as a short block. */
static const struct {
	int mult;
	int add;
	bool sparse, random, nofrag;
} shapes[FI_FILES] = {
    {0, 0, false, false, false},  {0, 1, false, false, false},
    {1, -1, false, false, false}, {1, 0, false, false, false},
    {1, 1, false, false, false},  {3, 123, false, false, false},
    {4, 999, true, false, false}, {2, 77, false, true, false},
    {2, 500, false, false, true}, {0, 3000, false, true, false},
    {5, 0, true, false, false},	  {0, 700, false, false, false},
};

uint64_t fi_file_size(size_t i, uint32_t bs)
{
	return (uint64_t)((int64_t)shapes[i].mult * bs + shapes[i].add);
}

static uint8_t byte_at(size_t i, uint32_t bs, uint64_t off)
{
	uint64_t x;

	if (shapes[i].sparse && (off / bs) % 2 == 1)
		return 0;
	if (shapes[i].random) {
		x = off * 0x9E3779B97F4A7C15ull + i;
		x ^= x >> 29;
		x *= 0xBF58476D1CE4E5B9ull;
		x ^= x >> 32;
		return (uint8_t)x;
	}
	return (uint8_t)("squashforge file system test "[off % 29] + i +
			 (off / 4096));
}

void fi_file_data(size_t i, uint32_t bs, uint64_t off, uint8_t *buf,
		  size_t size)
{
	size_t k;

	for (k = 0; k < size; ++k)
		buf[k] = byte_at(i, bs, off + k);
}

void fi_big_name(size_t i, char *buf)
{
	snprintf(buf, 64, "entry_with_a_longish_name_%06zu", i * 2 + 1);
}

static void add(sqfs_writer_t *wr, sqfs_entry_t *e, unsigned int flags)
{
	int ret = sqfs_writer_add(wr, e, flags);

	if (ret != 0)
		fail_msg("adding %s: %s", e->path, sqfs_writer_error(wr));
}

static void add_file(sqfs_writer_t *wr, size_t i, uint32_t bs)
{
	uint64_t size = fi_file_size(i, bs), off = 0;
	sqfs_xattr_t x[2];
	static uint8_t big_value[300];
	char path[64];
	uint8_t *buf = malloc(bs);
	sqfs_entry_t e;
	size_t n;

	assert_non_null(buf);
	snprintf(path, sizeof(path), "files/f%02zu", i);
	sqfs_entry_init(&e, path, S_IFREG | 0644, 1000 + (uint32_t)i, 100,
			1700000000 + (int64_t)i);
	if (i == 5) {
		memset(big_value, 'v', sizeof(big_value));
		x[0].key = "user.a";
		x[0].value = "1";
		x[0].size = 1;
		x[1].key = "user.big";
		x[1].value = big_value;
		x[1].size = sizeof(big_value);
		e.xattrs = x;
		e.xattr_count = 2;
	}
	add(wr, &e, shapes[i].nofrag ? SQFS_FILE_DONT_FRAGMENT : 0);
	while (off < size) {
		n = size - off < bs ? (size_t)(size - off) : bs;
		if (shapes[i].sparse && (off / bs) % 2 == 1) {
			assert_int_equal(sqfs_writer_append_hole(wr, n), 0);
		} else {
			fi_file_data(i, bs, off, buf, n);
			assert_int_equal(sqfs_writer_append(wr, buf, n), 0);
		}
		off += n;
	}
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	free(buf);
}

uint8_t *fi_build(uint32_t bs, uint32_t flags, bool small, size_t *size)
{
	static char target[4097];
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr = NULL;
	sqfs_file_t *file;
	sqfs_entry_t e;
	uint8_t *data;
	char path[128];
	size_t i;

	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	sqfs_writer_options_init(&opt);
	opt.block_size = bs;
	assert_int_equal(sqfs_compressor_config_init(&opt.compressor,
						     opt.compressor.id, bs, 0),
			 0);
	opt.devblk_size = 1024;
	opt.flags = flags;
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);

	sqfs_entry_init(&e, "a/b/c/d", S_IFDIR | 0750, 5, 6, 1234);
	add(wr, &e, 0);
	sqfs_entry_init(&e, "a/b/c/d/deep", S_IFIFO | 0600, 5, 6, 1234);
	add(wr, &e, 0);
	sqfs_entry_init(&e, "empty_dir", S_IFDIR | 0700, 0, 0, 99);
	add(wr, &e, 0);

	for (i = 0; i < FI_FILES; ++i) {
		if (small && i != 1 && i != 5 && i != 6 && i != 8)
			continue;
		add_file(wr, i, bs);
	}
	sqfs_entry_init(&e, "files/hard", 0, 0, 0, 0);
	e.hard_link = "files/f05";
	add(wr, &e, 0);

	sqfs_entry_init(&e, "link", S_IFLNK | 0777, 0, 0, 77);
	e.symlink_target = "files/f01";
	add(wr, &e, 0);
	memset(target, 'x', 4096);
	target[4096] = '\0';
	sqfs_entry_init(&e, "longlink", S_IFLNK | 0777, 0, 0, 77);
	e.symlink_target = target;
	if (!small)
		add(wr, &e, 0);

	sqfs_entry_init(&e, "dev/cdev", S_IFCHR | 0620, 0, 5, 1);
	e.rdev_major = 4;
	e.rdev_minor = 70000;
	add(wr, &e, 0);
	sqfs_entry_init(&e, "dev/bdev", S_IFBLK | 0660, 0, 6, 1);
	e.rdev_major = 8;
	e.rdev_minor = 1;
	add(wr, &e, 0);
	sqfs_entry_init(&e, "dev/sock", S_IFSOCK | 0666, 0, 0, 1);
	add(wr, &e, 0);

	if (!small) {
		for (i = 0; i < FI_BIG_ENTRIES; ++i) {
			char name[64];

			fi_big_name(i, name);
			snprintf(path, sizeof(path), "big/%s", name);
			sqfs_entry_init(&e, path, S_IFIFO | 0644, 0, 0, 5);
			add(wr, &e, 0);
		}
	}

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	*size = (size_t)file->get_size(file);
	data = malloc(*size);
	assert_non_null(data);
	assert_int_equal(file->read_at(file, 0, data, *size), 0);
	sqfs_file_close(file);
	return data;
}

sqfs_file_t *fi_file(const uint8_t *data, size_t size)
{
	sqfs_file_t *file;

	assert_int_equal(sqfs_file_open_memory(&file, data, size, 0), 0);
	return file;
}

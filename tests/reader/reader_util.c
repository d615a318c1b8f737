/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "reader/reader_util.h"
#include "sqfs/image_internal.h"
#include "util/le.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#define BLOCK_SIZE 4096u
#define MTIME 1700000000u

/* ---- the test tree --------------------------------------------------------
 */

uint64_t ru_file_size(size_t i)
{
	/* mostly tails in fragments, some with full blocks, some exact
	 * multiples of the block size (no fragment at all) */
	if (i % 10 == 9)
		return 2 * BLOCK_SIZE;
	if (i % 10 == 8)
		return BLOCK_SIZE + 1000 + i % 100;
	return (i * 137) % 3000 + 1;
}

void ru_file_data(size_t i, uint8_t *buf, size_t size)
{
	test_fill_data(buf, size, TEST_DATA_TEXT, (uint32_t)i + 1);
}

uint32_t ru_file_gid(size_t i)
{
	return 100 + (uint32_t)(i % 3);
}

static void add_xattr(ru_xattrs_t *out, const char *key, const void *value,
		      size_t size)
{
	size_t n = out->count++;

	assert_true(n < RU_MAX_XATTRS && size <= sizeof(out->values[n]));
	snprintf(out->keys[n], sizeof(out->keys[n]), "%s", key);
	memcpy(out->values[n], value, size);
	out->x[n].key = out->keys[n];
	out->x[n].value = out->values[n];
	out->x[n].size = size;
}

void ru_file_xattrs(const ru_tree_t *t, size_t i, ru_xattrs_t *out)
{
	char text[64];
	uint8_t big[200];

	memset(out, 0, sizeof(*out));
	if (!t->xattrs)
		return;

	if (i == SIZE_MAX) {
		add_xattr(out, "user.dirattr", "d", 1);
		if (t->privileged)
			add_xattr(out, "trusted.dir", "td", 2);
		return;
	}

	if (i % 2 == 0) {
		snprintf(text, sizeof(text), "value-%zu", i);
		add_xattr(out, "user.idx", text, strlen(text));
	}
	if (i % 5 == 0) {
		add_xattr(out, "user.shared", "a value shared by several files",
			  31);
	}
	if (i % 7 == 3) {
		/* long enough that mksquashfs stores it out of line */
		memset(big, 'a' + (int)(i % 3), sizeof(big));
		add_xattr(out, "user.big", big, sizeof(big));
	}
	if (t->privileged && i % 11 == 4) {
		snprintf(text, sizeof(text), "t%zu", i);
		add_xattr(out, "trusted.t", text, strlen(text));
	}
	if (t->privileged && i % 13 == 6)
		add_xattr(out, "security.s", "sec", 3);
}

static sqfs_entry_t make_entry(const char *path, uint32_t mode, uint32_t uid,
			       uint32_t gid, const ru_xattrs_t *xa)
{
	sqfs_entry_t e;

	sqfs_entry_init(&e, path, mode, uid, gid, MTIME);
	e.xattrs = xa->x;
	e.xattr_count = xa->count;
	return e;
}

uint8_t *ru_build_writer(const ru_tree_t *t, sqfs_compressor_id_t id,
			 uint32_t flags, size_t *size)
{
	sqfs_writer_options_t opt;
	sqfs_entry_t ent;
	sqfs_writer_t *wr = NULL;
	sqfs_file_t *file = NULL;
	const uint8_t *mem;
	ru_xattrs_t xa;
	uint8_t *buf;
	uint64_t fsize;
	char path[32];
	uint8_t *out;
	size_t i;

	sqfs_writer_options_init(&opt);
	opt.block_size = BLOCK_SIZE;
	opt.flags = flags;
	opt.mkfs_time = MTIME;
	assert_int_equal(
	    sqfs_compressor_config_init(&opt.compressor, id, BLOCK_SIZE, 0), 0);
	if (id == SQFS_COMP_GZIP)
		opt.compressor.opt.gzip.level = 1;
	if (id == SQFS_COMP_XZ || id == SQFS_COMP_LZMA)
		opt.compressor.opt.xz.level = 1;

	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	assert_int_equal(sqfs_writer_create(file, &opt, &wr, NULL), 0);

	ru_file_xattrs(t, SIZE_MAX, &xa);
	ent = make_entry("sub", S_IFDIR | 0755, 0, 0, &xa);
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);

	memset(&xa, 0, sizeof(xa));
	ent = make_entry("sub/link", S_IFLNK | 0777, 0, 0, &xa);
	ent.symlink_target = "../f0000";
	assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);

	buf = malloc(2 * BLOCK_SIZE + 4096);
	assert_non_null(buf);
	for (i = 0; i < t->files; ++i) {
		snprintf(path, sizeof(path), "f%04zu", i);
		ru_file_xattrs(t, i, &xa);
		ent = make_entry(path, S_IFREG | 0644, 1000 + (uint32_t)i,
				 ru_file_gid(i), &xa);
		fsize = ru_file_size(i);
		ru_file_data(i, buf, (size_t)fsize);

		ent.size = fsize;
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
		assert_int_equal(sqfs_writer_append(wr, buf, (size_t)fsize), 0);
		assert_int_equal(sqfs_writer_end_file(wr), 0);
	}
	free(buf);

	if (t->files > 1 && !t->no_hard_link) {
		sqfs_entry_init(&ent, "sub/hard", 0, 0, 0, 0);
		ent.hard_link = "f0001";
		assert_int_equal(sqfs_writer_add(wr, &ent, 0), 0);
	}

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);

	mem = sqfs_file_memory_data(file, size);
	assert_non_null(mem);
	out = ru_dup(mem, *size);
	sqfs_file_destroy(file);
	return out;
}

static bool set_xattrs(const char *path, const ru_xattrs_t *xa)
{
	size_t i;

	for (i = 0; i < xa->count; ++i) {
		if (lsetxattr(path, xa->x[i].key, xa->x[i].value, xa->x[i].size,
			      0) != 0)
			return false;
	}
	return true;
}

static void set_time(const char *path)
{
	struct timeval tv[2];

	tv[0].tv_sec = tv[1].tv_sec = MTIME;
	tv[0].tv_usec = tv[1].tv_usec = 0;
	assert_int_equal(lutimes(path, tv), 0);
}

bool ru_build_dir(const ru_tree_t *t, const char *dir)
{
	char path[PATH_MAX], other[PATH_MAX];
	bool xattrs_ok = true;
	ru_xattrs_t xa;
	uint64_t fsize;
	uint8_t *buf;
	size_t i;
	FILE *fp;

	buf = malloc(2 * BLOCK_SIZE + 4096);
	assert_non_null(buf);
	for (i = 0; i < t->files; ++i) {
		snprintf(path, sizeof(path), "%s/f%04zu", dir, i);
		fsize = ru_file_size(i);
		ru_file_data(i, buf, (size_t)fsize);
		fp = fopen(path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(buf, 1, (size_t)fsize, fp), fsize);
		assert_int_equal(fclose(fp), 0);
		assert_int_equal(chmod(path, 0644), 0);
		assert_int_equal(
		    chown(path, 1000 + (uid_t)i, (gid_t)ru_file_gid(i)), 0);
		ru_file_xattrs(t, i, &xa);
		xattrs_ok = xattrs_ok && set_xattrs(path, &xa);
		set_time(path);
	}
	free(buf);

	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	ru_file_xattrs(t, SIZE_MAX, &xa);
	xattrs_ok = xattrs_ok && set_xattrs(path, &xa);

	snprintf(path, sizeof(path), "%s/sub/link", dir);
	assert_int_equal(symlink("../f0000", path), 0);
	set_time(path);

	if (t->files > 1 && !t->no_hard_link) {
		snprintf(path, sizeof(path), "%s/sub/hard", dir);
		snprintf(other, sizeof(other), "%s/f0001", dir);
		assert_int_equal(link(other, path), 0);
	}

	snprintf(path, sizeof(path), "%s/sub", dir);
	set_time(path);
	assert_int_equal(chmod(dir, 0755), 0);
	set_time(dir);
	return xattrs_ok;
}

/* ---- files and tools ---------------------------------------------------- */

bool ru_have(const char *tool)
{
	return access(tool, X_OK) == 0;
}

void ru_tmpdir(char *dir)
{
	/* room below it for the names the tests put there */
	assert_int_equal(test_mkdtemp(dir, PATH_MAX - 64, "sqfs-reader"), 0);
}

void ru_rmrf(const char *dir)
{
	test_remove_tree(dir);
}

int ru_run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int status;

	va_start(ap, fmt);
	assert_true((size_t)vsnprintf(cmd, sizeof(cmd), fmt, ap) < sizeof(cmd));
	va_end(ap);

	status = system(cmd);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

uint8_t *ru_load(const char *path, size_t *size)
{
	struct stat sb;
	uint8_t *data;
	FILE *fp;

	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fstat(fileno(fp), &sb), 0);
	*size = (size_t)sb.st_size;
	data = malloc(*size + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, *size, fp), *size);
	fclose(fp);
	return data;
}

/* ---- opening and checking ----------------------------------------------- */

sqfs_image_t *ru_open(const uint8_t *data, size_t size, sqfs_file_t **file)
{
	sqfs_image_t *img = NULL;

	assert_int_equal(
	    sqfs_file_open_memory(file, data, size, SQFS_FILE_OPEN_READ_ONLY),
	    0);
	assert_int_equal(sqfs_image_open(*file, &img, NULL), 0);
	assert_non_null(img);
	return img;
}

void ru_close(sqfs_image_t *img, sqfs_file_t *file)
{
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

static void check_xattr_set(const sqfs_xattr_t *got, size_t count,
			    const ru_xattrs_t *want)
{
	size_t i, j;

	assert_int_equal(count, want->count);
	for (i = 0; i < want->count; ++i) {
		for (j = 0; j < count; ++j) {
			if (strcmp(got[j].key, want->x[i].key) == 0)
				break;
		}
		if (j == count)
			fail_msg("xattr %s missing", want->x[i].key);
		assert_int_equal(got[j].size, want->x[i].size);
		assert_memory_equal(got[j].value, want->x[i].value,
				    want->x[i].size);
	}
}

static void check_inode_xattrs(sqfs_image_t *img, const sqfs_inode_t *inode,
			       const ru_tree_t *t, size_t i, bool with_xattrs)
{
	sqfs_xattr_t *list = NULL;
	size_t count = 99;
	ru_xattrs_t want;

	assert_int_equal(sqfs_image_read_xattrs(img, inode, &list, &count), 0);
	if (with_xattrs) {
		ru_file_xattrs(t, i, &want);
	} else {
		memset(&want, 0, sizeof(want));
	}
	check_xattr_set(list, count, &want);
	if (count == 0)
		assert_null(list);
	sqfs_xattr_list_free(list, count);
}

static void check_file(sqfs_image_t *img, const sqfs_inode_t *inode,
		       const ru_tree_t *t, bool *seen, bool with_xattrs)
{
	const sqfs_super_t *super = sqfs_image_super(img);
	uint64_t data_start, data_end;
	sqfs_fragment_t frag;
	uint32_t uid, gid;
	size_t i;

	assert_int_equal(sqfs_image_inode_owner(img, inode, &uid, &gid), 0);
	assert_true(uid >= 1000 && uid - 1000 < t->files);
	i = uid - 1000;
	assert_false(seen[i]);
	seen[i] = true;

	assert_int_equal(gid, ru_file_gid(i));
	assert_int_equal(inode->data.file.file_size, ru_file_size(i));
	assert_int_equal(inode->mode, 0644);
	assert_int_equal(sqfs_inode_mode(inode), S_IFREG | 0644);
	assert_int_equal(inode->nlink,
			 i == 1 && t->files > 1 && !t->no_hard_link ? 2 : 1);

	if (inode->data.file.fragment_index != SQFS_NO_FRAGMENT) {
		assert_int_equal(
		    sqfs_image_get_fragment(
			img, inode->data.file.fragment_index, &frag),
		    0);
		image_data_region(img, &data_start, &data_end);
		assert_true(frag.start >= data_start);
		assert_true(frag.start + (frag.size & 0xFFFFFF) <= data_end);
		assert_true((frag.size & 0xFFFFFF) > 0);
		assert_true((frag.size & 0xFE000000) == 0);
		assert_true(inode->data.file.fragment_offset +
				inode->data.file.file_size %
				    super->block_size <=
			    super->block_size);
	}

	check_inode_xattrs(img, inode, t, i, with_xattrs);
}

void ru_check_tree(sqfs_image_t *img, const ru_tree_t *t, bool with_xattrs)
{
	const sqfs_super_t *super = sqfs_image_super(img);
	size_t files_seen = 0, dirs = 0, links = 0, offset, i;
	sqfs_inode_t *inode, *again, *root;
	sqfs_meta_reader_t *mr;
	bool *seen, *numbers;
	uint64_t block, ref;
	uint32_t id;
	bool has_export = super->export_table_start != SQFS_TABLE_ABSENT;

	assert_int_equal(super->inode_count, t->files + 3);
	seen = calloc(t->files + 1, sizeof(bool));
	numbers = calloc(super->inode_count + 1, sizeof(bool));
	assert_non_null(seen);
	assert_non_null(numbers);

	assert_int_equal(
	    sqfs_meta_reader_create(image_file(img), image_compressor(img),
				    super->inode_table_start,
				    super->directory_table_start, &mr),
	    0);
	assert_int_equal(sqfs_meta_reader_seek(mr, super->inode_table_start, 0),
			 0);

	for (i = 0; i < super->inode_count; ++i) {
		sqfs_meta_reader_get_position(mr, &block, &offset);
		ref = ((block - super->inode_table_start) << 16) | offset;
		assert_int_equal(sqfs_inode_read(mr, super, &inode), 0);

		assert_false(numbers[inode->inode_number]);
		numbers[inode->inode_number] = true;

		/* the export table and random access agree with the scan */
		if (has_export) {
			uint64_t exp;

			assert_int_equal(sqfs_image_inode_ref(
					     img, inode->inode_number, &exp),
					 0);
			assert_int_equal(exp, ref);
		}
		assert_int_equal(sqfs_image_read_inode(img, ref, &again), 0);
		assert_int_equal(again->inode_number, inode->inode_number);
		assert_int_equal(again->type, inode->type);
		free(again);

		switch (sqfs_inode_type_basic(inode->type)) {
		case SQFS_INODE_FILE:
			check_file(img, inode, t, seen, with_xattrs);
			files_seen++;
			break;
		case SQFS_INODE_DIR:
			assert_int_equal(sqfs_inode_mode(inode) & S_IFMT,
					 S_IFDIR);
			if (inode->xattr_index != SQFS_NO_XATTR ||
			    (with_xattrs && ref != super->root_inode_ref)) {
				check_inode_xattrs(img, inode, t, SIZE_MAX,
						   with_xattrs);
			}
			dirs++;
			break;
		case SQFS_INODE_SLINK:
			assert_int_equal(sqfs_inode_mode(inode) & S_IFMT,
					 S_IFLNK);
			links++;
			break;
		default:
			fail_msg("unexpected inode type %u", inode->type);
		}
		free(inode);
	}
	sqfs_meta_reader_destroy(mr);

	assert_int_equal(files_seen, t->files);
	assert_int_equal(dirs, 2);
	assert_int_equal(links, 1);
	for (i = 0; i < t->files; ++i)
		assert_true(seen[i]);

	assert_int_equal(sqfs_image_read_root(img, &root), 0);
	assert_int_equal(sqfs_inode_type_basic(root->type), SQFS_INODE_DIR);
	if (has_export) {
		assert_int_equal(
		    sqfs_image_inode_ref(img, root->inode_number, &ref), 0);
		assert_int_equal(ref, super->root_inode_ref);
		assert_int_equal(sqfs_image_inode_ref(img, 0, &ref),
				 SQFS_ERROR_OUT_OF_BOUNDS);
		assert_int_equal(
		    sqfs_image_inode_ref(img, super->inode_count + 1, &ref),
		    SQFS_ERROR_OUT_OF_BOUNDS);
	} else {
		assert_int_equal(sqfs_image_inode_ref(img, 1, &ref),
				 SQFS_ERROR_UNSUPPORTED);
	}
	free(root);

	assert_int_equal(sqfs_image_get_id(img, super->id_count, &id),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	{
		sqfs_fragment_t frag;

		assert_int_equal(sqfs_image_get_fragment(
				     img, super->fragment_entry_count, &frag),
				 SQFS_ERROR_OUT_OF_BOUNDS);
	}

	free(numbers);
	free(seen);
}

/* Read the whole directory table as one stream. */
static int probe_dir_table(sqfs_image_t *img)
{
	const sqfs_super_t *super = sqfs_image_super(img);
	uint64_t end = image_dir_table_end(img), block;
	sqfs_meta_reader_t *mr;
	uint8_t byte;
	size_t offset;
	int ret;

	if (end == super->directory_table_start)
		return 0;
	ret = image_open_dir_table(img, &mr);
	if (ret != 0)
		return ret;
	ret = sqfs_meta_reader_seek(mr, super->directory_table_start, 0);
	for (;;) {
		if (ret != 0)
			break;
		sqfs_meta_reader_get_position(mr, &block, &offset);
		if (block == end && offset == 0)
			break;
		ret = sqfs_meta_reader_read(mr, &byte, 1);
	}
	sqfs_meta_reader_destroy(mr);
	return ret;
}

static int probe_inode(sqfs_image_t *img, const sqfs_inode_t *inode)
{
	sqfs_xattr_t *list;
	uint32_t uid, gid;
	size_t count;
	int ret;

	ret = sqfs_image_inode_owner(img, inode, &uid, &gid);
	if (ret != 0)
		return ret;
	ret = sqfs_image_read_xattrs(img, inode, &list, &count);
	if (ret == 0)
		sqfs_xattr_list_free(list, count);
	return ret;
}

int ru_probe(const uint8_t *data, size_t size)
{
	const sqfs_super_t *super;
	sqfs_image_t *img = NULL;
	sqfs_file_t *file = NULL;
	sqfs_meta_reader_t *mr = NULL;
	sqfs_inode_t *inode;
	int ret, first = 0;
	uint64_t i, ref;

	ret =
	    sqfs_file_open_memory(&file, data, size, SQFS_FILE_OPEN_READ_ONLY);
	assert_int_equal(ret, 0);
	ret = sqfs_image_open(file, &img, NULL);
	if (ret != 0) {
		assert_null(img);
		sqfs_file_destroy(file);
		return ret;
	}
	super = sqfs_image_super(img);

	ret = sqfs_image_read_root(img, &inode);
	if (ret == 0)
		free(inode);
	first = ret;

	ret = probe_dir_table(img);
	if (first == 0)
		first = ret;

	ret = sqfs_meta_reader_create(file, image_compressor(img),
				      super->inode_table_start,
				      super->directory_table_start, &mr);
	assert_int_equal(ret, 0);
	ret = sqfs_meta_reader_seek(mr, super->inode_table_start, 0);
	for (i = 0; ret == 0 && i < super->inode_count; ++i) {
		ret = sqfs_inode_read(mr, super, &inode);
		if (ret == 0) {
			ret = probe_inode(img, inode);
			free(inode);
		}
	}
	sqfs_meta_reader_destroy(mr);
	if (first == 0)
		first = ret;

	for (i = 1; i <= super->inode_count && i <= 100000; ++i) {
		ret = sqfs_image_inode_ref(img, (uint32_t)i, &ref);
		if (ret == SQFS_ERROR_UNSUPPORTED) {
			ret = 0;
			break;
		}
		if (ret == 0)
			ret = sqfs_image_read_inode(img, ref, &inode);
		if (ret != 0)
			break;
		free(inode);
	}
	if (first == 0)
		first = ret;

	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	return first;
}

/* ---- patching ----------------------------------------------------------- */

void ru_put16(uint8_t *data, uint64_t off, uint16_t v)
{
	put_le16(data + off, v);
}

void ru_put32(uint8_t *data, uint64_t off, uint32_t v)
{
	put_le32(data + off, v);
}

void ru_put64(uint8_t *data, uint64_t off, uint64_t v)
{
	put_le64(data + off, v);
}

uint16_t ru_get16(const uint8_t *data, uint64_t off)
{
	return get_le16(data + off);
}

uint32_t ru_get32(const uint8_t *data, uint64_t off)
{
	return get_le32(data + off);
}

uint64_t ru_get64(const uint8_t *data, uint64_t off)
{
	return get_le64(data + off);
}

uint8_t *ru_dup(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size + 1);

	assert_non_null(copy);
	memcpy(copy, data, size);
	return copy;
}

void ru_tables_extract(const uint8_t *data, size_t size, ru_tables_t *t)
{
	const sqfs_super_t *super;
	xattr_id_entry_t xid;
	sqfs_fragment_t frag;
	uint64_t ref, kv_start, kv_end, dir_end;
	sqfs_file_t *file;
	sqfs_image_t *img;
	uint32_t i, id;

	memset(t, 0, sizeof(*t));
	img = ru_open(data, size, &file);
	super = sqfs_image_super(img);

	dir_end = image_dir_table_end(img);
	t->head = ru_dup(data, (size_t)dir_end);
	t->head_size = (size_t)dir_end;

	t->frag_size = (size_t)super->fragment_entry_count * 16;
	t->frag = calloc(1, t->frag_size + 1);
	assert_non_null(t->frag);
	for (i = 0; i < super->fragment_entry_count; ++i) {
		assert_int_equal(sqfs_image_get_fragment(img, i, &frag), 0);
		put_le64(t->frag + i * 16, frag.start);
		put_le32(t->frag + i * 16 + 8, frag.size);
	}

	if (super->export_table_start != SQFS_TABLE_ABSENT) {
		t->exp_size = (size_t)super->inode_count * 8;
		t->exp = malloc(t->exp_size);
		assert_non_null(t->exp);
		for (i = 0; i < super->inode_count; ++i) {
			assert_int_equal(sqfs_image_inode_ref(img, i + 1, &ref),
					 0);
			put_le64(t->exp + (size_t)i * 8, ref);
		}
	}

	t->ids_size = (size_t)super->id_count * 4;
	t->ids = malloc(t->ids_size);
	assert_non_null(t->ids);
	for (i = 0; i < super->id_count; ++i) {
		assert_int_equal(sqfs_image_get_id(img, (uint16_t)i, &id), 0);
		put_le32(t->ids + (size_t)i * 4, id);
	}

	if (image_kv_reader(img, &kv_start, &kv_end) != NULL) {
		t->kv_size = (size_t)(kv_end - kv_start);
		t->kv = ru_dup(data + kv_start, t->kv_size);
		for (i = 0; image_xattr_id(img, i, &xid) == 0; ++i)
			;
		t->xattr_count = i;
		t->xids_size = (size_t)i * 16;
		t->xids = malloc(t->xids_size);
		assert_non_null(t->xids);
		for (i = 0; i < t->xattr_count; ++i) {
			assert_int_equal(image_xattr_id(img, i, &xid), 0);
			put_le64(t->xids + (size_t)i * 16, xid.ref);
			put_le32(t->xids + (size_t)i * 16 + 8, xid.count);
			put_le32(t->xids + (size_t)i * 16 + 12, xid.size);
		}
	}

	ru_close(img, file);
}

static void append_zeros(sqfs_file_t *file, size_t count)
{
	uint8_t zero[64] = {0};
	size_t n;

	while (count > 0) {
		n = count < sizeof(zero) ? count : sizeof(zero);
		test_file_append(file, zero, n);
		count -= n;
	}
}

static uint64_t write_table(sqfs_file_t *file, const uint8_t *data, size_t size,
			    size_t gap)
{
	uint64_t start;

	assert_int_equal(sqfs_table_write(file, NULL, data, size, &start), 0);
	append_zeros(file, gap);
	return start;
}

uint8_t *ru_tables_emit(const ru_tables_t *t, size_t *size)
{
	uint8_t raw[SQFS_SUPER_SIZE], header[16], *index, *out;
	sqfs_super_t super;
	sqfs_file_t *file;
	const uint8_t *mem;
	uint64_t pos, kv_start;
	size_t blocks;

	file = test_memory_file(t->head, t->head_size);
	sqfs_super_decode(&super, t->head);

	super.fragment_entry_count = (uint32_t)(t->frag_size / 16);
	super.fragment_table_start = SQFS_TABLE_ABSENT;
	if (t->frag_size > 0) {
		super.fragment_table_start =
		    write_table(file, t->frag, t->frag_size, t->gap_frag);
	}

	super.export_table_start = SQFS_TABLE_ABSENT;
	if (t->exp != NULL) {
		super.export_table_start =
		    write_table(file, t->exp, t->exp_size, t->gap_exp);
	}

	super.id_count = (uint16_t)(t->ids_size / 4);
	super.id_table_start =
	    write_table(file, t->ids, t->ids_size, t->gap_id);

	super.xattr_id_table_start = SQFS_TABLE_ABSENT;
	if (t->kv != NULL) {
		kv_start = file->get_size(file);
		test_file_append(file, t->kv, t->kv_size);
		pos = write_table(file, t->xids, t->xids_size, 0);

		/* the header goes between the blocks and their index */
		blocks = (t->xids_size + 8191) / 8192;
		index = malloc(blocks * 8);
		assert_non_null(index);
		assert_int_equal(file->read_at(file, pos, index, blocks * 8),
				 0);
		assert_int_equal(file->truncate(file, pos), 0);
		put_le64(header, kv_start);
		put_le32(header + 8, t->xattr_count);
		put_le32(header + 12, 0);
		test_file_append(file, header, sizeof(header));
		test_file_append(file, index, blocks * 8);
		free(index);
		super.xattr_id_table_start = pos;
	}

	super.bytes_used = file->get_size(file);
	sqfs_super_encode(&super, raw);
	assert_int_equal(file->write_at(file, 0, raw, sizeof(raw)), 0);
	append_zeros(file, (size_t)((4096 - super.bytes_used % 4096) % 4096));

	mem = test_memory_file_data(file, size);
	out = ru_dup(mem, *size);
	sqfs_file_destroy(file);
	return out;
}

void ru_tables_free(ru_tables_t *t)
{
	free(t->head);
	free(t->frag);
	free(t->exp);
	free(t->ids);
	free(t->kv);
	free(t->xids);
	memset(t, 0, sizeof(*t));
}

void ru_tables_set_xattrs(ru_tables_t *t, const uint8_t *stream, size_t size,
			  const uint8_t *ids, uint32_t count)
{
	size_t blocks = (size + 8191) / 8192, i, n;
	uint8_t *p;

	free(t->kv);
	free(t->xids);
	t->kv = malloc(size + blocks * 2 + 1);
	assert_non_null(t->kv);
	p = t->kv;
	for (i = 0; i < size; i += n) {
		n = size - i < 8192 ? size - i : 8192;
		put_le16(p, (uint16_t)(0x8000 | n));
		memcpy(p + 2, stream + i, n);
		p += 2 + n;
	}
	t->kv_size = (size_t)(p - t->kv);

	t->xids = ru_dup(ids, (size_t)count * 16);
	t->xids_size = (size_t)count * 16;
	t->xattr_count = count;
}

uint64_t ru_kv_ref(size_t pos)
{
	return ((uint64_t)(pos / 8192) * 8194) << 16 | (pos % 8192);
}

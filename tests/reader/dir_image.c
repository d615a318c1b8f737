/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "reader/dir_image.h"

#include "sqfs/error.h"
#include "sqfs/id_table.h"
#include "sqfs/meta_writer.h"
#include "sqfs/super.h"
#include "util/le.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MKSQUASHFS "/usr/bin/mksquashfs"

/* ---- with the library's writer ------------------------------------------ */

sqfs_writer_t *di_writer(sqfs_file_t **file)
{
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr = NULL;

	assert_int_equal(sqfs_file_open_memory(file, NULL, 0, 0), 0);
	sqfs_writer_options_init(&opt);
	opt.devblk_size = 1024;
	assert_int_equal(sqfs_writer_create(*file, &opt, &wr, NULL), 0);
	return wr;
}

/* Add an entry of the given mode, owned by root, at time 1000. */
static void add_entry(sqfs_writer_t *wr, const char *path, uint32_t mode)
{
	sqfs_entry_t e;

	sqfs_entry_init(&e, path, mode, 0, 0, 1000);
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
}

void di_add_dir(sqfs_writer_t *wr, const char *path)
{
	add_entry(wr, path, S_IFDIR | 0755);
}

void di_add_fifo(sqfs_writer_t *wr, const char *path)
{
	add_entry(wr, path, S_IFIFO | 0644);
}

void di_add_file(sqfs_writer_t *wr, const char *path, const char *data)
{
	add_entry(wr, path, S_IFREG | 0644);
	assert_int_equal(sqfs_writer_append(wr, data, strlen(data)), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
}

void di_add_link(sqfs_writer_t *wr, const char *path, const char *target)
{
	sqfs_entry_t e;

	sqfs_entry_init(&e, path, 0, 0, 0, 0);
	e.hard_link = target;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
}

sqfs_image_t *di_finish(sqfs_writer_t *wr, sqfs_file_t *file)
{
	sqfs_image_t *img = NULL;

	assert_int_equal(sqfs_writer_finish(wr), 0);
	sqfs_writer_destroy(wr);
	assert_int_equal(sqfs_image_open(file, &img, NULL), 0);
	return img;
}

/* ---- with mksquashfs ----------------------------------------------------- */

bool di_have_mksquashfs(void)
{
	return access(MKSQUASHFS, X_OK) == 0;
}

char *di_tempdir(void)
{
	char tmpl[] = "/tmp/sqfs_dir_test.XXXXXX";
	char *dir;

	assert_non_null(mkdtemp(tmpl));
	dir = malloc(strlen(tmpl) + 16);
	assert_non_null(dir);
	sprintf(dir, "%s/root", tmpl);
	assert_int_equal(mkdir(dir, 0755), 0);
	return dir;
}

void di_touch(const char *dir, const char *name)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	int fd;

	assert_non_null(path);
	sprintf(path, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	free(path);
}

void di_mkdir(const char *dir, const char *name)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);

	assert_non_null(path);
	sprintf(path, "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
}

static void run(char *const argv[])
{
	int status, fd;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

sqfs_image_t *di_mksquashfs(const char *dir, sqfs_file_t **file)
{
	char *image = malloc(strlen(dir) + 8);
	sqfs_image_t *img = NULL;

	assert_non_null(image);
	sprintf(image, "%s.sqfs", dir);
	{
		char *const argv[] = {(char *)MKSQUASHFS,
				      (char *)dir,
				      image,
				      (char *)"-noappend",
				      (char *)"-no-xattrs",
				      (char *)"-quiet",
				      (char *)"-no-progress",
				      NULL};
		run(argv);
	}
	assert_int_equal(sqfs_file_open(file, image, SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(sqfs_image_open(*file, &img, NULL), 0);
	free(image);
	return img;
}

void di_cleanup(char *dir)
{
	char *top = strdup(dir);

	assert_non_null(top);
	*strrchr(top, '/') = '\0';
	{
		char *const argv[] = {(char *)"/bin/rm", (char *)"-rf", top,
				      NULL};
		run(argv);
	}
	free(top);
	free(dir);
}

/* ---- crafted images ------------------------------------------------------ */

void di_lst_header(di_listing_t *l, uint32_t count_m1, uint32_t block,
		   uint32_t base)
{
	assert_true(l->size + 12 <= sizeof(l->data));
	put_le32(l->data + l->size, count_m1);
	put_le32(l->data + l->size + 4, block);
	put_le32(l->data + l->size + 8, base);
	l->size += 12;
}

void di_lst_entry(di_listing_t *l, uint16_t offset, int16_t delta,
		  uint16_t type, const char *name, size_t len)
{
	assert_true(len >= 1 && l->size + 8 + len <= sizeof(l->data));
	put_le16(l->data + l->size, offset);
	put_le16(l->data + l->size + 2, (uint16_t)delta);
	put_le16(l->data + l->size + 4, type);
	put_le16(l->data + l->size + 6, (uint16_t)(len - 1));
	memcpy(l->data + l->size + 8, name, len);
	l->size += 8 + len;
}

void di_lst_one(di_listing_t *l, uint64_t ref, uint32_t number, uint16_t type,
		const char *name)
{
	di_lst_header(l, 0, (uint32_t)(ref >> 16), number);
	di_lst_entry(l, (uint16_t)(ref & 0xFFFF), 0, type, name, strlen(name));
}

struct di_craft {
	sqfs_file_t *file;
	sqfs_meta_writer_t *im;
	sqfs_meta_writer_t *dm;
};

di_craft_t *di_craft_new(void)
{
	di_craft_t *c = calloc(1, sizeof(*c));
	uint8_t zero[SQFS_SUPER_SIZE] = {0};

	assert_non_null(c);
	assert_int_equal(sqfs_file_open_memory(&c->file, zero, sizeof(zero), 0),
			 0);
	assert_int_equal(sqfs_meta_writer_create(c->file, NULL,
						 SQFS_META_WRITER_NO_COMPRESS,
						 &c->im),
			 0);
	assert_int_equal(
	    sqfs_meta_writer_create(c->file, NULL,
				    SQFS_META_WRITER_NO_COMPRESS |
					SQFS_META_WRITER_KEEP_IN_MEMORY,
				    &c->dm),
	    0);
	return c;
}

uint64_t di_craft_next_ref(const di_craft_t *c)
{
	uint64_t block;
	uint32_t offset;

	sqfs_meta_writer_get_position(c->im, &block, &offset);
	return (block << 16) | offset;
}

static void base_inode(sqfs_inode_t *inode, uint16_t type, uint32_t number)
{
	inode->type = type;
	inode->mode = 0755;
	inode->mtime = 1000;
	inode->inode_number = number;
	inode->nlink = 1;
	inode->xattr_index = SQFS_NO_XATTR;
}

uint64_t di_craft_fifo(di_craft_t *c, uint32_t number)
{
	return di_craft_fifo_links(c, number, 1);
}

uint64_t di_craft_fifo_links(di_craft_t *c, uint32_t number, uint32_t nlink)
{
	uint64_t ref = di_craft_next_ref(c);
	sqfs_inode_t *inode = sqfs_inode_alloc(0);

	assert_non_null(inode);
	base_inode(inode, SQFS_INODE_FIFO, number);
	inode->nlink = nlink;
	assert_int_equal(sqfs_inode_write(c->im, inode), 0);
	free(inode);
	return ref;
}

uint64_t di_craft_dir(di_craft_t *c, uint32_t number, const di_listing_t *l,
		      bool ext, const void *index, size_t index_size,
		      uint16_t index_count)
{
	uint64_t ref = di_craft_next_ref(c), block;
	sqfs_inode_t *inode = sqfs_inode_alloc(index_size);
	uint32_t offset;

	assert_non_null(inode);
	sqfs_meta_writer_get_position(c->dm, &block, &offset);
	if (l != NULL && l->size + l->pad > 0)
		assert_int_equal(
		    sqfs_meta_writer_append(c->dm, l->data, l->size + l->pad),
		    0);
	base_inode(inode, ext ? SQFS_INODE_EXT_DIR : SQFS_INODE_DIR, number);
	inode->nlink = 2;
	inode->data.dir.start_block = (uint32_t)block;
	inode->data.dir.offset = (uint16_t)offset;
	inode->data.dir.size = (uint32_t)(l != NULL ? l->size : 0) + 3;
	inode->data.dir.parent_inode = number;
	inode->data.dir.index_count = index_count;
	if (index_size > 0)
		memcpy(inode->payload, index, index_size);
	assert_int_equal(sqfs_inode_write(c->im, inode), 0);
	free(inode);
	return ref;
}

sqfs_image_t *di_craft_finish(di_craft_t *c, uint32_t inode_count,
			      uint64_t root_ref, sqfs_file_t **file)
{
	sqfs_id_table_t *ids = NULL;
	sqfs_image_t *img = NULL;
	sqfs_super_t super;
	uint16_t idx;

	assert_int_equal(sqfs_super_init(&super, 4096, 0, SQFS_COMP_GZIP), 0);
	super.flags = SQFS_FLAG_UNCOMPRESSED_INODES | SQFS_FLAG_NO_FRAGMENTS |
		      SQFS_FLAG_NO_XATTRS;
	super.inode_count = inode_count;
	super.root_inode_ref = root_ref;
	super.inode_table_start = SQFS_SUPER_SIZE;

	assert_int_equal(sqfs_meta_writer_flush(c->im), 0);
	super.directory_table_start = c->file->get_size(c->file);
	assert_int_equal(sqfs_meta_writer_flush(c->dm), 0);
	assert_int_equal(sqfs_meta_writer_write_out(c->dm), 0);

	assert_int_equal(sqfs_id_table_create(&ids), 0);
	assert_int_equal(sqfs_id_table_id_to_index(ids, 0, &idx), 0);
	assert_int_equal(sqfs_id_table_write(ids, c->file, &super, NULL), 0);
	sqfs_id_table_destroy(ids);
	super.bytes_used = c->file->get_size(c->file);
	assert_int_equal(sqfs_super_write(&super, c->file), 0);

	sqfs_meta_writer_destroy(c->im);
	sqfs_meta_writer_destroy(c->dm);
	*file = c->file;
	free(c);
	assert_int_equal(sqfs_image_open(*file, &img, NULL), 0);
	return img;
}

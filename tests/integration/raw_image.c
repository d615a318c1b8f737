/* SPDX-License-Identifier: MIT */
/*
 * raw_image: one fixed tree, made on disk or written as an image with the
 * writer flags mksquashfs's -noI -noId -noD -noF -noX -no-compression
 * -nopad stand for, for uncompressed.sh to hold ours against mksquashfs
 * 4.7.5's images of the same tree.
 *
 *   raw_image tree DIR             make the tree under DIR (new)
 *   raw_image image OPTIONS OUT    write it to OUT; OPTIONS: a comma list
 *                                  of noI,noId,noD,noF,noX,no-compression,
 *                                  nopad, or "none"
 *
 * The tree: 200 small text files owned by uids 1..200 (when run as root)
 * with an xattr each, a file of 40 blocks of text, a symlink. Every table
 * is large enough to shrink when compressed.
 */
#define _GNU_SOURCE

#include "sqfs/squashfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define NFILES 200
#define BIG (40 * 4096)

/* Text of size bytes, different for every seed. */
static void fill(char *buf, size_t size, unsigned int seed)
{
	static const char *const words[] = {"squash", "block",	  "inode",
					    "table",  "fragment", "tail",
					    "xattr",  "export"};
	size_t pos = 0;

	while (pos < size) {
		const char *w =
		    words[(seed = seed * 1103515245u + 12345u) >> 16 & 7];
		size_t n = strlen(w);

		for (size_t i = 0; i < n && pos < size; ++i)
			buf[pos++] = w[i];
		if (pos < size)
			buf[pos++] = (seed >> 8) % 11 == 0 ? '\n' : ' ';
	}
}

static int make_tree(const char *dir)
{
	char path[4096], note[64], *buf = malloc(BIG);
	int fd;

	if (buf == NULL || mkdir(dir, 0755) != 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/f", dir);
	if (mkdir(path, 0755) != 0)
		goto fail;
	for (unsigned int i = 0; i < NFILES; ++i) {
		snprintf(path, sizeof(path), "%s/f/file-%03u", dir, i);
		fill(buf, 1000 + i, i + 1);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, buf, 1000 + i) != (ssize_t)(1000 + i))
			goto fail;
		close(fd);
		snprintf(note, sizeof(note), "the note of file %u", i);
		if (setxattr(path, "user.note", note, strlen(note), 0) != 0)
			goto fail;
		if (geteuid() == 0 && chown(path, i + 1, 0) != 0)
			goto fail;
	}
	snprintf(path, sizeof(path), "%s/big", dir);
	fill(buf, BIG, 4242);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, buf, BIG) != BIG)
		goto fail;
	close(fd);
	snprintf(path, sizeof(path), "%s/link", dir);
	if (symlink("big", path) != 0)
		goto fail;
	free(buf);
	return 0;
fail:
	perror(dir);
	free(buf);
	return 1;
}

static int parse_options(const char *list, uint32_t *flags)
{
	static const struct {
		const char *name;
		uint32_t flag;
	} map[] = {
	    {"none", 0},
	    {"noI", SQFS_WRITER_UNCOMPRESSED_INODES},
	    {"noId", SQFS_WRITER_UNCOMPRESSED_IDS},
	    {"noD", SQFS_WRITER_UNCOMPRESSED_DATA},
	    {"noF", SQFS_WRITER_UNCOMPRESSED_FRAGMENTS},
	    {"noX", SQFS_WRITER_UNCOMPRESSED_XATTRS},
	    {"no-compression", SQFS_WRITER_UNCOMPRESSED},
	    {"nopad", SQFS_WRITER_NO_PAD},
	};
	char *copy = strdup(list), *save = NULL;

	if (copy == NULL)
		return -1;
	for (char *w = strtok_r(copy, ",", &save); w != NULL;
	     w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(map) / sizeof(map[0]); ++i) {
			if (strcmp(w, map[i].name) == 0)
				break;
		}
		if (i == sizeof(map) / sizeof(map[0])) {
			fprintf(stderr, "raw_image: unknown option '%s'\n", w);
			free(copy);
			return -1;
		}
		*flags |= map[i].flag;
	}
	free(copy);
	return 0;
}

static int add_file(sqfs_writer_t *wr, const char *path, const char *data,
		    size_t size, uint32_t uid, const sqfs_xattr_t *x)
{
	sqfs_entry_t e;
	int ret;

	sqfs_entry_init(&e, path, S_IFREG | 0644, uid, 0, 0);
	e.size = size;
	if (x != NULL) {
		e.xattrs = x;
		e.xattr_count = 1;
	}
	ret = sqfs_writer_add(wr, &e, 0);
	if (ret == 0)
		ret = sqfs_writer_append(wr, data, size);
	if (ret == 0)
		ret = sqfs_writer_end_file(wr);
	return ret;
}

static int make_image(const char *list, const char *out)
{
	char why[SQFS_ERROR_TEXT_SIZE], name[64], note[64];
	char *buf = malloc(BIG);
	sqfs_writer_options_t opt;
	sqfs_writer_t *wr = NULL;
	sqfs_file_t *file;
	sqfs_entry_t e;
	int ret;

	sqfs_writer_options_init(&opt);
	if (buf == NULL || parse_options(list, &opt.flags) != 0)
		return 2;
	/* as mksquashfs: an export table, gzip, 128 KiB blocks */
	opt.flags |= SQFS_WRITER_EXPORTABLE;
	ret = sqfs_compressor_config_init(&opt.compressor, SQFS_COMP_GZIP,
					  opt.block_size, 0);
	if (ret == 0)
		ret = sqfs_file_open(&file, out, SQFS_FILE_OPEN_OVERWRITE);
	if (ret != 0) {
		fprintf(stderr, "raw_image: %s: %s\n", out,
			sqfs_error_string(ret));
		return 1;
	}
	ret = sqfs_writer_create(file, &opt, &wr, why);
	if (ret != 0) {
		fprintf(stderr, "raw_image: %s\n", why);
		sqfs_file_destroy(file);
		return 1;
	}
	sqfs_entry_init(&e, "f", S_IFDIR | 0755, 0, 0, 0);
	ret = sqfs_writer_add(wr, &e, 0);
	for (unsigned int i = 0; ret == 0 && i < NFILES; ++i) {
		sqfs_xattr_t x = {"user.note", note, 0};

		snprintf(name, sizeof(name), "f/file-%03u", i);
		snprintf(note, sizeof(note), "the note of file %u", i);
		x.size = strlen(note);
		fill(buf, 1000 + i, i + 1);
		ret = add_file(wr, name, buf, 1000 + i, i + 1, &x);
	}
	if (ret == 0) {
		fill(buf, BIG, 4242);
		ret = add_file(wr, "big", buf, BIG, 0, NULL);
	}
	if (ret == 0) {
		sqfs_entry_init(&e, "link", S_IFLNK | 0777, 0, 0, 0);
		e.symlink_target = "big";
		ret = sqfs_writer_add(wr, &e, 0);
	}
	if (ret == 0)
		ret = sqfs_writer_finish(wr);
	if (ret != 0)
		fprintf(stderr, "raw_image: %s\n", sqfs_writer_error(wr));
	sqfs_writer_destroy(wr);
	if (sqfs_file_close(file) != 0 && ret == 0)
		ret = SQFS_ERROR_IO;
	free(buf);
	return ret == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "tree") == 0)
		return make_tree(argv[2]);
	if (argc == 4 && strcmp(argv[1], "image") == 0)
		return make_image(argv[2], argv[3]);
	fprintf(stderr, "usage: raw_image tree DIR | image OPTIONS OUT\n");
	return 2;
}

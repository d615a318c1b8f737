/* SPDX-License-Identifier: MIT */
/*
 * list_files.c - a small program built against an installed libsquashfs
 * through pkg-config: lists every entry of a SquashFS image, or of one
 * directory in it, with the walker (sqfs/walker.h), one line per entry as
 * a short `ls -lR` would give it:
 *
 *   drwxr-xr-x 2 0/0 48 ./docs
 *   -rw-r--r-- 2 0/0 24000 ./docs/hello.txt
 *   lrwxrwxrwx 1 0/0 14 ./hello -> docs/hello.txt
 *
 * It shows opening an image, walking it, reading the inode fields a
 * listing needs (type and permissions, link count, owner, size, link target,
 * device numbers), and reporting errors in the image's own words.
 *
 *   cc -o list_files list_files.c $(pkg-config --cflags --libs libsquashfs)
 *   ./list_files image.sqfs [DIRECTORY]
 */
/* S_ISDIR and friends are XSI names. */
#define _XOPEN_SOURCE 700

#include <sqfs/squashfs.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The ten characters `ls -l` shows for a mode, and a NUL. */
static void mode_string(uint32_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";

	out[0] = S_ISDIR(mode)	  ? 'd'
		 : S_ISLNK(mode)  ? 'l'
		 : S_ISBLK(mode)  ? 'b'
		 : S_ISCHR(mode)  ? 'c'
		 : S_ISFIFO(mode) ? 'p'
		 : S_ISSOCK(mode) ? 's'
				  : '-';
	for (int i = 0; i < 9; ++i)
		out[i + 1] = (mode & (0400u >> i)) ? rwx[i] : '-';
	/* set-id and sticky bits take the place of the execute bits */
	if (mode & S_ISUID)
		out[3] = (mode & S_IXUSR) ? 's' : 'S';
	if (mode & S_ISGID)
		out[6] = (mode & S_IXGRP) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[9] = (mode & S_IXOTH) ? 't' : 'T';
	out[10] = '\0';
}

static int print_entry(const sqfs_image_t *img, const sqfs_walk_entry_t *ent)
{
	const sqfs_inode_t *inode = ent->inode;
	uint32_t mode = sqfs_inode_mode(inode);
	uint32_t uid, gid, major, minor;
	char perms[11];
	int ret;

	ret = sqfs_image_inode_owner(img, inode, &uid, &gid);
	if (ret != 0)
		return ret;
	mode_string(mode, perms);
	printf("%s %lu %lu/%lu ", perms, (unsigned long)inode->nlink,
	       (unsigned long)uid, (unsigned long)gid);

	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_FILE:
		printf("%llu", (unsigned long long)inode->data.file.file_size);
		break;
	case SQFS_INODE_SLINK:
		printf("%lu", (unsigned long)inode->data.slink.target_size);
		break;
	case SQFS_INODE_DIR:
		/* what the kernel reports as a directory's size */
		printf("%lu", (unsigned long)inode->data.dir.size);
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(inode->data.dev.rdev, &major, &minor);
		printf("%lu,%lu", (unsigned long)major, (unsigned long)minor);
		break;
	default:
		printf("0");
		break;
	}

	/* paths are relative to the walk's start, which is "" */
	printf(" .%s%s", ent->depth > 0 ? "/" : "", ent->path);
	if (S_ISLNK(mode)) {
		/* the payload holds the target and a terminating NUL */
		printf(" -> %s", (const char *)inode->payload);
	}
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	const char *dir = argc > 2 ? argv[2] : "";
	sqfs_walk_entry_t ent;
	sqfs_walker_t *walker = NULL;
	sqfs_image_t *img;
	sqfs_file_t *file;
	int ret, status = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s IMAGE [DIRECTORY]\n", argv[0]);
		return 2;
	}

	ret = sqfs_file_open(&file, argv[1], SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		/* an I/O error leaves the system's reason in errno */
		fprintf(stderr, "list_files: %s: %s\n", argv[1],
			ret == SQFS_ERROR_IO ? strerror(errno)
					     : sqfs_error_string(ret));
		return 1;
	}
	ret = sqfs_image_open(file, &img, why);
	if (ret != 0) {
		fprintf(stderr, "list_files: %s: %s\n", argv[1], why);
		sqfs_file_destroy(file);
		return 1;
	}

	ret = sqfs_walker_create(img, dir, 0, 0, &walker);
	while (ret == 0) {
		ret = sqfs_walker_next(walker, &ent);
		if (ret == 0)
			ret = print_entry(img, &ent);
	}
	/* 1 is the end of the walk; anything else went wrong */
	if (ret < 0) {
		fprintf(stderr, "list_files: %s: %s\n", argv[1],
			sqfs_image_error(img));
		status = 1;
	}

	sqfs_walker_destroy(walker);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);

	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "list_files: writing the list: %s\n",
			strerror(errno));
		status = 1;
	}
	return status;
}

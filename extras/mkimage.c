/* SPDX-License-Identifier: MIT */
/*
 * mkimage.c - a small program built against an installed libsquashfs
 * through pkg-config: builds a SquashFS image with the high-level writer,
 * holding a directory, a file whose data is streamed in, a symlink, a hard
 * link and a FIFO, then prints a few statistics.
 *
 *   cc -o mkimage mkimage.c $(pkg-config --cflags --libs libsquashfs)
 *   ./mkimage out.sqfs && unsquashfs -lls out.sqfs
 */
/* S_IFDIR and friends are XSI names. */
#define _XOPEN_SOURCE 700

#include <sqfs/squashfs.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	static const char text[] = "Hello from libsquashfs!\n";
	sqfs_xattr_t xattr = {"user.comment", "made by mkimage", 15};
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_writer_options_t opt;
	sqfs_writer_stats_t stats;
	sqfs_entry_t entry;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IMAGE\n", argv[0]);
		return 2;
	}

	/* A new file: never overwrite one, which a failure would remove. */
	ret = sqfs_file_open(&file, argv[1], 0);
	if (ret != 0) {
		/* an I/O error leaves the system's reason in errno */
		fprintf(stderr, "mkimage: %s: %s\n", argv[1],
			ret == SQFS_ERROR_IO ? strerror(errno)
					     : sqfs_error_string(ret));
		return 1;
	}

	sqfs_writer_options_init(&opt);
	/* fixed times make the same image on every run */
	opt.mkfs_time = 1700000000;
	opt.default_mtime = 1700000000;
	ret = sqfs_writer_create(file, &opt, &wr, why);
	if (ret != 0) {
		fprintf(stderr, "mkimage: %s: %s\n", argv[1], why);
		sqfs_file_destroy(file);
		remove(argv[1]);
		return 1;
	}

	/*
	 * Every entry is an sqfs_entry_t, its file type in the mode; start
	 * each from sqfs_entry_init, which zeroes the rest. Parents come
	 * into being implicitly; this one gets attributes.
	 */
	sqfs_entry_init(&entry, "docs", S_IFDIR | 0755, 0, 0, 1700000000);
	ret = sqfs_writer_add(wr, &entry, 0);

	/* A regular file stays open for its data until end_file. */
	sqfs_entry_init(&entry, "docs/hello.txt", S_IFREG | 0644, 0, 0,
			1700000000);
	entry.xattrs = &xattr;
	entry.xattr_count = 1;
	entry.size = 1000 * (sizeof(text) - 1);
	if (ret == 0)
		ret = sqfs_writer_add(wr, &entry, 0);
	for (int i = 0; ret == 0 && i < 1000; ++i)
		ret = sqfs_writer_append(wr, text, sizeof(text) - 1);
	if (ret == 0)
		ret = sqfs_writer_end_file(wr);

	sqfs_entry_init(&entry, "hello", S_IFLNK | 0777, 0, 0, 1700000000);
	entry.symlink_target = "docs/hello.txt";
	if (ret == 0)
		ret = sqfs_writer_add(wr, &entry, 0);

	/* A hard link has its target's attributes: only the paths count. */
	sqfs_entry_init(&entry, "docs/same.txt", 0, 0, 0, 0);
	entry.hard_link = "docs/hello.txt";
	if (ret == 0)
		ret = sqfs_writer_add(wr, &entry, 0);

	sqfs_entry_init(&entry, "run/fifo", S_IFIFO | 0600, 0, 0, 1700000000);
	if (ret == 0)
		ret = sqfs_writer_add(wr, &entry, 0);
	if (ret == 0)
		ret = sqfs_writer_finish(wr);
	if (ret != 0) {
		/* the words name what was wrong; the code only its kind */
		fprintf(stderr, "mkimage: %s: %s\n", argv[1],
			sqfs_writer_error(wr));
		sqfs_writer_destroy(wr);
		sqfs_file_destroy(file);
		/* an unfinished image is of no use to anyone */
		remove(argv[1]);
		return 1;
	}

	sqfs_writer_get_stats(wr, &stats);
	sqfs_writer_destroy(wr);

	/*
	 * Written is not durable: sync the file (this is also where a failed
	 * write-back is reported), then close it, checking both.
	 */
	ret = sqfs_file_sync(file);
	if (ret == 0) {
		ret = sqfs_file_close(file);
	} else {
		int saved = errno;

		sqfs_file_destroy(file);
		errno = saved;
	}
	if (ret != 0) {
		fprintf(stderr, "mkimage: %s: %s\n", argv[1],
			ret == SQFS_ERROR_IO ? strerror(errno)
					     : sqfs_error_string(ret));
		remove(argv[1]);
		return 1;
	}

	printf("%s: %llu bytes, %llu inodes, %llu bytes of data in, "
	       "%llu written\n",
	       argv[1], (unsigned long long)stats.image_size,
	       (unsigned long long)stats.inodes,
	       (unsigned long long)stats.bytes_in,
	       (unsigned long long)stats.bytes_written);
	return 0;
}

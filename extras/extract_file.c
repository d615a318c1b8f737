/* SPDX-License-Identifier: MIT */
/*
 * extract_file.c - a small program built against an installed libsquashfs
 * through pkg-config: copies one regular file out of a SquashFS image, to
 * standard output or to a new file.
 *
 * It shows resolving a path to its inode with the directory reader
 * (sqfs/dir_reader.h) and reading a file's contents with the data reader
 * (sqfs/data_reader.h), which unpacks blocks and fragments and checks each
 * one. A program that reads many whole files in a row would rather use a
 * file stream (sqfs/file_stream.h), which unpacks ahead on threads.
 *
 *   cc -o extract_file extract_file.c \
 *      $(pkg-config --cflags --libs libsquashfs)
 *   ./extract_file image.sqfs docs/hello.txt            # to stdout
 *   ./extract_file image.sqfs docs/hello.txt hello.txt  # to a new file
 */
#include <sqfs/squashfs.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Copy the contents of the file inode to out: 0, a negative error of the
 * library reading the image, or 1 when writing failed (errno says why).
 */
static int copy_data(sqfs_data_reader_t *dr, const sqfs_inode_t *inode,
		     FILE *out)
{
	static uint8_t buffer[65536];
	uint64_t offset = 0;

	for (;;) {
		ptrdiff_t n = sqfs_data_reader_read(dr, inode, offset, buffer,
						    sizeof(buffer));
		if (n <= 0)
			return (int)n;
		if (fwrite(buffer, 1, (size_t)n, out) != (size_t)n)
			return 1;
		offset += (uint64_t)n;
	}
}

int main(int argc, char **argv)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	const char *image = argc > 1 ? argv[1] : NULL;
	const char *path = argc > 2 ? argv[2] : NULL;
	const char *output = argc > 3 ? argv[3] : NULL;
	sqfs_data_reader_t *data = NULL;
	sqfs_dir_reader_t *dir = NULL;
	sqfs_inode_t *inode = NULL;
	sqfs_image_t *img = NULL;
	sqfs_file_t *file;
	FILE *out = stdout;
	int ret, status = 1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s IMAGE PATH [OUTPUT]\n", argv[0]);
		return 2;
	}

	ret = sqfs_file_open(&file, image, SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		/* an I/O error leaves the system's reason in errno */
		fprintf(stderr, "extract_file: %s: %s\n", image,
			ret == SQFS_ERROR_IO ? strerror(errno)
					     : sqfs_error_string(ret));
		return 1;
	}
	ret = sqfs_image_open(file, &img, why);
	if (ret != 0) {
		fprintf(stderr, "extract_file: %s: %s\n", image, why);
		goto out;
	}

	/* Resolve the path first, so that a bad one leaves no output file
	 * behind. */
	ret = sqfs_dir_reader_create(img, &dir);
	if (ret == 0)
		ret = sqfs_dir_reader_resolve(dir, path, &inode);
	if (ret == 0)
		ret = sqfs_data_reader_create(img, &data);
	if (ret != 0) {
		fprintf(stderr, "extract_file: %s: %s\n", image,
			sqfs_image_error(img));
		goto out;
	}
	if (sqfs_inode_type_basic(inode->type) != SQFS_INODE_FILE) {
		fprintf(stderr, "extract_file: %s: %s: %s\n", image, path,
			sqfs_error_string(SQFS_ERROR_NOT_FILE));
		goto out;
	}

	if (output != NULL) {
		/* "x": never overwrite a file, which a failure would remove */
		out = fopen(output, "wbx");
		if (out == NULL) {
			fprintf(stderr, "extract_file: %s: %s\n", output,
				strerror(errno));
			goto out;
		}
	}

	ret = copy_data(data, inode, out);
	/* buffered data goes out, and may fail, only now */
	if (ret == 0 && fflush(out) != 0)
		ret = 1;
	if (output != NULL && fclose(out) != 0 && ret == 0)
		ret = 1;
	if (ret == 1) {
		fprintf(stderr, "extract_file: %s: %s\n",
			output != NULL ? output : "standard output",
			strerror(errno));
	} else if (ret < 0) {
		fprintf(stderr, "extract_file: %s: %s: %s\n", image, path,
			sqfs_image_error(img));
	}
	/* a partial copy must not pass for the file */
	if (ret != 0 && output != NULL)
		remove(output);
	if (ret == 0)
		status = 0;
out:
	free(inode);
	sqfs_data_reader_destroy(data);
	sqfs_dir_reader_destroy(dir);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	return status;
}

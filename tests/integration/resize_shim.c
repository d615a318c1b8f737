/* SPDX-License-Identifier: MIT */
/*
 * resize_shim.c - an LD_PRELOAD library for gensquashfs.sh: a file that
 * changes size while it is read, on cue rather than by a race.
 *
 * Right before the first read of a file (a pread at offset 0), a file
 * whose name ends in ".grows" gets GROW_BYTES appended, and one whose
 * name ends in ".shrinks" is cut to half its size. The reader has
 * already taken the size with fstat, so it sees the file change under
 * it, as it would when another program writes it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define GROW_BYTES 4096

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

static void change(int fd)
{
	char link[64], path[4096];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	if (ends_with(path, ".grows")) {
		char more[GROW_BYTES];
		int out = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

		memset(more, 'g', sizeof(more));
		if (out >= 0) {
			if (write(out, more, sizeof(more)) < 0)
				perror(path);
			close(out);
		}
	} else if (ends_with(path, ".shrinks") && stat(path, &st) == 0) {
		if (truncate(path, st.st_size / 2) != 0)
			perror(path);
	}
}

static ssize_t call_real(const char *name, int fd, void *buf, size_t count,
			 off_t offset)
{
	pread_fn real = (pread_fn)dlsym(RTLD_NEXT, name);

	if (offset == 0)
		change(fd);
	return real(fd, buf, count, offset);
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	return call_real("pread", fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off64_t offset)
{
	return call_real("pread64", fd, buf, count, (off_t)offset);
}

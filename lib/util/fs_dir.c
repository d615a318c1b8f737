/* SPDX-License-Identifier: MIT */
/*
 * fs_dir.c - reading a directory's names and a symlink's target.
 */
#include "config.h"

#include "util/fs_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void fs_dir_names_free(char **names, size_t count)
{
	while (count > 0)
		free(names[--count]);
	free(names);
}

int fs_dir_names(int fd, char ***out, size_t *count)
{
	DIR *dir = fdopendir(fd);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int err;

	*out = NULL;
	*count = 0;
	if (dir == NULL) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (de == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **nn;

			cap = cap ? 2 * cap : 64;
			nn = realloc(names, cap * sizeof(nn[0]));
			if (nn == NULL)
				goto fail_oom;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (names[n] == NULL)
			goto fail_oom;
		++n;
	}
	if (errno != 0)
		goto fail;
	closedir(dir);
	if (n > 1)
		qsort(names, n, sizeof(names[0]), by_name);
	*out = names;
	*count = n;
	return 0;
fail_oom:
	errno = ENOMEM;
fail:
	err = errno;
	fs_dir_names_free(names, n);
	closedir(dir);
	errno = err;
	return -1;
}

int fs_read_link(int dfd, const char *name, size_t size_hint, char **target)
{
	size_t size = size_hint + 1;
	ssize_t n;

	/* readlinkat filling the buffer to the last byte may have cut the
	 * target: read it again in a buffer twice as large */
	for (;;) {
		char *buf = realloc(*target, size + 1);

		if (buf == NULL) {
			errno = ENOMEM;
			return -1;
		}
		*target = buf;
		n = readlinkat(dfd, name, buf, size + 1);
		if (n < 0)
			return -1;
		if ((size_t)n <= size)
			break;
		size *= 2;
	}
	(*target)[n] = '\0';
	return 0;
}

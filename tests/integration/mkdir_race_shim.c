/* SPDX-License-Identifier: MIT */
/*
 * mkdir_race_shim.c - an LD_PRELOAD library for sqfsdiff.sh: another
 * program that creates a name in sqfsdiff's -e folder between sqfsdiff's
 * check and its mkdirat, on cue rather than by a race.
 *
 * Right before a mkdirat of the name in MKDIR_RACE_NAME, a regular file
 * of that name is created in the same directory, so that the mkdirat
 * fails with EEXIST as it would if another program had been quicker.
 * With MKDIR_RACE_FILL also set, a file of that name is first put into
 * the directory "old" beside it, as another program could put one into
 * DIR/old once sqfsdiff made it. A mkdirat of the name in MKDIR_FAIL_NAME
 * fails with ENOSPC and makes nothing, as on a full file system.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

typedef int (*mkdirat_fn)(int, const char *, mode_t);

static void make_file(int dirfd, const char *dir, const char *name)
{
	int at = dirfd, fd;

	if (dir != NULL) {
		at = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (at < 0)
			return;
	}
	fd = openat(at, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	if (at != dirfd)
		close(at);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	mkdirat_fn real = (mkdirat_fn)dlsym(RTLD_NEXT, "mkdirat");
	const char *race = getenv("MKDIR_RACE_NAME");
	const char *fill = getenv("MKDIR_RACE_FILL");
	const char *fail = getenv("MKDIR_FAIL_NAME");

	if (race != NULL && strcmp(path, race) == 0) {
		if (fill != NULL)
			make_file(dirfd, "old", fill);
		make_file(dirfd, NULL, race);
	}
	if (fail != NULL && strcmp(path, fail) == 0) {
		errno = ENOSPC;
		return -1;
	}
	return real(dirfd, path, mode);
}

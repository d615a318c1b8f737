/* SPDX-License-Identifier: MIT */
/*
 * fail_shim.c - an LD_PRELOAD library for write_errors.sh: the system
 * calls that make an image durable fail on cue, as they do when a disk
 * gives up, a delayed allocation finds no room or an NFS server goes away.
 *
 * The environment says what fails, always with EIO:
 *   FAIL_FSYNC=1    fsync and fdatasync of the image's temporary file
 *   FAIL_CLOSE=1    close of the image's temporary file (the descriptor is
 *                   closed all the same, as Linux does)
 *   FAIL_DIRSYNC=1  fsync and fdatasync of any directory
 * The temporary file is told by its name (see lib/common/out_file.c):
 * ".NAME.PID.N.tmp" beside the target, found through /proc/self/fd.
 * Everything else passes through to the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*fd_fn)(int);

static bool wanted(const char *var)
{
	const char *v = getenv(var);

	return v != NULL && strcmp(v, "1") == 0;
}

/* Whether fd is the temporary file of an image being written. */
static bool is_image_temp(int fd)
{
	char link[64], path[4096], tail[32];
	const char *base;
	size_t len, tlen;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return false;
	path[n] = '\0';
	base = strrchr(path, '/');
	base = base == NULL ? path : base + 1;
	/* ".NAME.PID.N.tmp": ours, by the pid */
	snprintf(tail, sizeof(tail), ".%ld.", (long)getpid());
	len = strlen(base);
	tlen = strlen(".tmp");
	return base[0] == '.' && len > tlen &&
	       strcmp(base + len - tlen, ".tmp") == 0 &&
	       strstr(base, tail) != NULL;
}

static bool is_directory(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

static int call_real(const char *name, int fd)
{
	fd_fn real = (fd_fn)dlsym(RTLD_NEXT, name);

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd);
}

static int sync_call(const char *name, int fd)
{
	if ((wanted("FAIL_FSYNC") && is_image_temp(fd)) ||
	    (wanted("FAIL_DIRSYNC") && is_directory(fd))) {
		errno = EIO;
		return -1;
	}
	return call_real(name, fd);
}

int fsync(int fd)
{
	return sync_call("fsync", fd);
}

int fdatasync(int fd)
{
	return sync_call("fdatasync", fd);
}

int close(int fd)
{
	bool fail = wanted("FAIL_CLOSE") && is_image_temp(fd);
	int ret = call_real("close", fd);

	if (fail && ret == 0) {
		errno = EIO;
		return -1;
	}
	return ret;
}

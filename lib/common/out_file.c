/* SPDX-License-Identifier: MIT */
/*
 * out_file.c - an output image that appears complete or not at all, even
 * after a crash: written to a temporary file beside the target, which is
 * synced and closed (both checked) before it is renamed into place, and
 * the directory synced after, so that the rename itself is durable.
 */
#include "config.h"

#include "common/out_file.h"
#include "common/fs_move.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Tries at a unique temporary name before giving up. */
#define OUT_FILE_MAX_TRIES 100

struct out_file {
	sqfs_file_t *file;
	char *path;
	char *temp;
	/* the directory holding path and temp, synced after the rename */
	int dirfd;
	bool force;
	bool committed;
};

/*
 * The temporary file a signal would leave behind. Only one output is open
 * at a time in a tool; the handler unlinks it (async-signal-safe) and
 * dies of the signal as it would have.
 */
static char signal_temp[4096];
static volatile sig_atomic_t signal_temp_set;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void cleanup_handler(int sig)
{
	if (signal_temp_set)
		unlink(signal_temp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void arm_cleanup(const char *temp)
{
	size_t i, len = strlen(temp);

	if (len >= sizeof(signal_temp))
		return;
	memcpy(signal_temp, temp, len + 1);
	signal_temp_set = 1;

	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]);
	     ++i) {
		struct sigaction sa, old;

		/* leave alone a signal the caller chose to ignore */
		if (sigaction(cleanup_signals[i], NULL, &old) != 0 ||
		    old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = cleanup_handler;
		sigemptyset(&sa.sa_mask);
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

static void disarm_cleanup(void)
{
	signal_temp_set = 0;
}

static char *make_temp_name(const char *path, unsigned int n)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash == NULL ? 0 : (size_t)(slash - path) + 1;
	const char *base = path + dirlen;
	size_t size = strlen(path) + 64;
	char *name = malloc(size);

	if (name == NULL)
		return NULL;
	/* a long name is cut, so the temporary name stays within NAME_MAX */
	snprintf(name, size, "%.*s.%.200s.%ld.%u.tmp", (int)dirlen, path, base,
		 (long)getpid(), n);
	return name;
}

/*
 * Open the directory that holds path, to sync it after the rename. Read
 * access is needed for that (Linux cannot fsync a directory opened with
 * O_PATH); it is asked for now, before any work is done.
 */
static int open_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, saved;

	if (slash == NULL)
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (dir == NULL) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	saved = errno;
	free(dir);
	errno = saved;
	return fd;
}

/*
 * Sync the directory: the rename in it reaches storage. A file system that
 * cannot sync directories at all says EINVAL (or ENOTSUP); there, nothing
 * more can be done and the rename stands as the file system keeps it.
 */
static int sync_dir(int dirfd)
{
	while (fsync(dirfd) != 0) {
		if (errno == EINTR)
			continue;
		if (errno == EINVAL || errno == ENOTSUP)
			return 0;
		return -1;
	}
	return 0;
}

int out_file_open(out_file_t **out, const char *path, bool force)
{
	out_file_t *of;
	struct stat sb;
	unsigned int n;
	int ret;

	if (path[0] == '\0' || path[strlen(path) - 1] == '/') {
		tool_error(path, "not a file name");
		return -1;
	}

	if (lstat(path, &sb) == 0) {
		if (!force) {
			tool_error(path, "file exists (use --force to "
					 "overwrite it)");
			return -1;
		}
		if (!S_ISREG(sb.st_mode)) {
			tool_error(path, "exists and is not a regular file");
			return -1;
		}
	} else if (errno != ENOENT) {
		tool_error(path, "%s", strerror(errno));
		return -1;
	}

	of = calloc(1, sizeof(*of));
	if (of == NULL || (of->path = strdup(path)) == NULL) {
		free(of);
		tool_error(path, "out of memory");
		return -1;
	}
	of->force = force;

	of->dirfd = open_dir_of(path);
	if (of->dirfd < 0) {
		tool_error(path, "cannot open its directory: %s",
			   strerror(errno));
		free(of->path);
		free(of);
		return -1;
	}

	for (n = 0; n < OUT_FILE_MAX_TRIES; ++n) {
		of->temp = make_temp_name(path, n);
		if (of->temp == NULL) {
			errno = ENOMEM;
			break;
		}
		ret = sqfs_file_open(&of->file, of->temp, 0);
		if (ret == 0)
			break;
		free(of->temp);
		of->temp = NULL;
		if (ret != SQFS_ERROR_EXISTS && errno != EEXIST)
			break;
	}

	if (of->file == NULL) {
		tool_error(path, "cannot create a file beside it: %s",
			   strerror(errno));
		close(of->dirfd);
		free(of->temp);
		free(of->path);
		free(of);
		return -1;
	}

	arm_cleanup(of->temp);
	*out = of;
	return 0;
}

sqfs_file_t *out_file_get(out_file_t *of)
{
	return of->file;
}

const char *out_file_temp_path(const out_file_t *of)
{
	return of->temp;
}

/* Move the temporary file to a target that must not exist. */
static int move_no_replace(const char *from, const char *to)
{
	struct stat sb;

	if (fs_move_no_replace(AT_FDCWD, from, to) == 0)
		return 0;
	if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS)
		return -1;

	/* no hard links either (FAT): check, then rename */
	if (lstat(to, &sb) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

int out_file_commit(out_file_t *of)
{
	int ret;

	/*
	 * The data first: after a crash, a name that points at an image
	 * whose blocks never reached the disk is worse than no name. fsync
	 * also reports a write-back that failed (EIO, ENOSPC on delayed
	 * allocation, an NFS server gone), and so does close on some file
	 * systems: either failure means the image is not what was written.
	 */
	ret = sqfs_file_sync(of->file);
	if (ret != 0) {
		tool_error(of->path, "cannot write the image to storage: %s",
			   strerror(errno));
		return -1;
	}
	ret = sqfs_file_close(of->file);
	of->file = NULL;
	if (ret != 0) {
		tool_error(of->path, "closing the image failed: %s",
			   strerror(errno));
		return -1;
	}

	if (of->force)
		ret = rename(of->temp, of->path);
	else
		ret = move_no_replace(of->temp, of->path);

	if (ret != 0) {
		if (errno == EEXIST)
			tool_error(of->path, "file exists (it appeared while "
					     "packing; use --force to "
					     "overwrite it)");
		else
			tool_error(of->path, "%s", strerror(errno));
		return -1;
	}
	of->committed = true;
	disarm_cleanup();

	/*
	 * Then the name: until the directory is synced, a crash may bring
	 * back the old entry (or none). Either is a complete state, so the
	 * image stays in place if this fails; the run still fails, since
	 * the image may not survive a crash.
	 */
	if (sync_dir(of->dirfd) != 0) {
		tool_error(of->path,
			   "the image is in place, but syncing its directory "
			   "failed: %s (a crash may still lose it)",
			   strerror(errno));
		return -1;
	}
	return 0;
}

void out_file_destroy(out_file_t *of)
{
	if (of == NULL)
		return;
	sqfs_file_destroy(of->file);
	if (!of->committed) {
		disarm_cleanup();
		unlink(of->temp);
	}
	close(of->dirfd);
	free(of->temp);
	free(of->path);
	free(of);
}

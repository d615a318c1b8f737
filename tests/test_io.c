/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "sqfs/error.h"
#include "sqfs/io.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * This program defines fsync and close itself, passing them on to the C
 * library, to count the calls the POSIX back end makes on one file and
 * to make them fail on cue.
 */
static struct {
	bool active;
	struct stat file;
	int eintr;	/* fsyncs left to fail with EINTR */
	int fsync_err;	/* then fail with this, if not 0 */
	bool close_err; /* close fails with EIO (after closing) */
	int fsyncs;
} hook;

static bool hooked(int fd)
{
	struct stat sb;

	return hook.active && fstat(fd, &sb) == 0 &&
	       sb.st_dev == hook.file.st_dev && sb.st_ino == hook.file.st_ino;
}

static void *real(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	assert_non_null(fn);
	return fn;
}

int fsync(int fd)
{
	int (*fn)(int) = (int (*)(int))real("fsync");

	if (hooked(fd)) {
		hook.fsyncs += 1;
		if (hook.eintr > 0) {
			hook.eintr -= 1;
			errno = EINTR;
			return -1;
		}
		if (hook.fsync_err != 0) {
			errno = hook.fsync_err;
			return -1;
		}
	}
	return fn(fd);
}

int close(int fd)
{
	int (*fn)(int) = (int (*)(int))real("close");
	bool fail = hooked(fd) && hook.close_err;
	int ret = fn(fd);

	if (fail && ret == 0) {
		errno = EIO;
		return -1;
	}
	return ret;
}

/* Watch the file at path from now on, with no failures set. */
static void watch(const char *path)
{
	memset(&hook, 0, sizeof(hook));
	assert_int_equal(stat(path, &hook.file), 0);
	hook.active = true;
}

static size_t count_fds(void)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/proc/self/fd");

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The behaviour every back end must share. */
static void check_file_contract(sqfs_file_t *file)
{
	uint8_t buf[16];
	static const uint8_t zeros[8];

	assert_int_equal(file->get_size(file), 0);
	assert_int_equal(file->read_at(file, 0, buf, 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(file->read_at(file, 0, buf, 0), 0);

	assert_int_equal(file->write_at(file, 0, "hello", 5), 0);
	assert_int_equal(file->get_size(file), 5);

	/* a write past the end leaves a gap of zeros */
	assert_int_equal(file->write_at(file, 13, "world", 5), 0);
	assert_int_equal(file->get_size(file), 18);
	assert_int_equal(file->read_at(file, 5, buf, 8), 0);
	assert_memory_equal(buf, zeros, 8);
	assert_int_equal(file->read_at(file, 13, buf, 5), 0);
	assert_memory_equal(buf, "world", 5);

	/* overwrite in the middle keeps the size */
	assert_int_equal(file->write_at(file, 1, "ELL", 3), 0);
	assert_int_equal(file->read_at(file, 0, buf, 5), 0);
	assert_memory_equal(buf, "hELLo", 5);
	assert_int_equal(file->get_size(file), 18);

	/* reads that cross or start past the end fail and read nothing */
	memset(buf, 0xAA, sizeof(buf));
	assert_int_equal(file->read_at(file, 10, buf, 9),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(buf[0], 0xAA);
	assert_int_equal(file->read_at(file, 19, buf, 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(file->read_at(file, UINT64_MAX, buf, 2),
			 SQFS_ERROR_OUT_OF_BOUNDS);

	assert_int_equal(file->truncate(file, 3), 0);
	assert_int_equal(file->get_size(file), 3);
	assert_int_equal(file->read_at(file, 2, buf, 2),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(file->truncate(file, 10), 0);
	assert_int_equal(file->read_at(file, 0, buf, 10), 0);
	assert_memory_equal(buf, "hEL\0\0\0\0\0\0\0", 10);

	assert_true(file->write_at(file, UINT64_MAX - 1, "ab", 2) < 0);
}

static void memory_file(void **state)
{
	sqfs_file_t *file = NULL;
	size_t size = 99;

	(void)state;
	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	check_file_contract(file);
	assert_non_null(sqfs_file_memory_data(file, &size));
	assert_int_equal(size, 10);
	sqfs_file_destroy(file);
	sqfs_file_destroy(NULL);
}

static void memory_file_initial_data_and_read_only(void **state)
{
	sqfs_file_t *file = NULL;
	const uint8_t *data;
	uint8_t buf[4];
	size_t size;

	(void)state;
	assert_int_equal(
	    sqfs_file_open_memory(&file, "abcd", 4, SQFS_FILE_OPEN_READ_ONLY),
	    0);
	assert_int_equal(file->get_size(file), 4);
	assert_int_equal(file->read_at(file, 0, buf, 4), 0);
	assert_memory_equal(buf, "abcd", 4);
	assert_int_equal(file->write_at(file, 0, "x", 1),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(file->truncate(file, 0), SQFS_ERROR_UNSUPPORTED);
	data = sqfs_file_memory_data(file, &size);
	assert_int_equal(size, 4);
	assert_memory_equal(data, "abcd", 4);
	sqfs_file_destroy(file);

	assert_int_equal(sqfs_file_open_memory(&file, NULL, 4, 0),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0x80),
			 SQFS_ERROR_ARG_INVALID);
}

/* Sync and close on memory files: nothing to do, nothing to fail. */
static void memory_sync_and_close(void **state)
{
	sqfs_file_t *file = NULL;
	const uint8_t *data;
	size_t size;

	(void)state;
	assert_int_equal(sqfs_file_open_memory(&file, NULL, 0, 0), 0);
	assert_non_null(file->sync);
	assert_int_equal(file->write_at(file, 0, "data", 4), 0);
	assert_int_equal(sqfs_file_sync(file), 0);
	assert_int_equal(file->sync(file), 0);
	data = sqfs_file_memory_data(file, &size);
	assert_int_equal(size, 4);
	assert_memory_equal(data, "data", 4);
	/* close frees it (ASan would tell otherwise) */
	assert_int_equal(sqfs_file_close(file), 0);

	assert_int_equal(
	    sqfs_file_open_memory(&file, "ro", 2, SQFS_FILE_OPEN_READ_ONLY), 0);
	assert_int_equal(sqfs_file_sync(file), 0);
	assert_int_equal(sqfs_file_close(file), 0);

	assert_int_equal(sqfs_file_sync(NULL), SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_close(NULL), 0);
}

/* A back end of a program's own that has neither sync nor close. */
static int bare_destroyed;

static void bare_destroy(sqfs_file_t *file)
{
	bare_destroyed += 1;
	free(file);
}

static void custom_without_sync(void **state)
{
	sqfs_file_t *file = calloc(1, sizeof(*file));

	(void)state;
	assert_non_null(file);
	file->destroy = bare_destroy;
	/* never claimed durable */
	errno = 0;
	assert_int_equal(sqfs_file_sync(file), SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(errno, ENOTSUP);
	/* close falls back to destroy */
	bare_destroyed = 0;
	assert_int_equal(sqfs_file_close(file), 0);
	assert_int_equal(bare_destroyed, 1);
}

static char tmpdir[PATH_MAX];

static int make_tmpdir(void **state)
{
	const char *base = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/sqfs-test-io-XXXXXX",
		 base != NULL ? base : "/tmp");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int remove_tmpdir(void **state)
{
	char path[PATH_MAX + 16];

	(void)state;
	snprintf(path, sizeof(path), "%s/image", tmpdir);
	unlink(path);
	return rmdir(tmpdir);
}

static void posix_file(void **state)
{
	sqfs_file_t *file = NULL, *other = NULL;
	char path[PATH_MAX + 16];
	uint8_t buf[4];

	(void)state;
	snprintf(path, sizeof(path), "%s/image", tmpdir);
	unlink(path);

	assert_int_equal(sqfs_file_open(&file, path, 0), 0);
	check_file_contract(file);
	assert_null(sqfs_file_memory_data(file, &(size_t){0}));
	sqfs_file_destroy(file);

	/* new files are created exclusively unless told to overwrite */
	assert_int_equal(sqfs_file_open(&other, path, 0), SQFS_ERROR_EXISTS);
	assert_null(other);

	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_READ_ONLY),
			 0);
	assert_int_equal(file->get_size(file), 10);
	assert_int_equal(file->read_at(file, 0, buf, 3), 0);
	assert_memory_equal(buf, "hEL", 3);
	assert_int_equal(file->write_at(file, 0, "x", 1),
			 SQFS_ERROR_UNSUPPORTED);
	assert_int_equal(file->truncate(file, 0), SQFS_ERROR_UNSUPPORTED);
	sqfs_file_destroy(file);

	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_OVERWRITE),
			 0);
	assert_int_equal(file->get_size(file), 0);
	sqfs_file_destroy(file);
}

/* sync is fsync, retried on EINTR; its failure is reported with errno. */
static void posix_sync(void **state)
{
	sqfs_file_t *file = NULL;
	char path[PATH_MAX + 16];
	uint8_t buf[5];

	(void)state;
	snprintf(path, sizeof(path), "%s/image", tmpdir);
	unlink(path);
	assert_int_equal(sqfs_file_open(&file, path, 0), 0);
	assert_non_null(file->sync);
	assert_int_equal(file->write_at(file, 0, "hello", 5), 0);
	watch(path);

	assert_int_equal(sqfs_file_sync(file), 0);
	assert_int_equal(hook.fsyncs, 1);

	hook.fsyncs = 0;
	hook.eintr = 2;
	assert_int_equal(sqfs_file_sync(file), 0);
	assert_int_equal(hook.fsyncs, 3);

	hook.fsyncs = 0;
	hook.fsync_err = EIO;
	errno = 0;
	assert_int_equal(sqfs_file_sync(file), SQFS_ERROR_IO);
	assert_int_equal(errno, EIO);
	hook.fsync_err = ENOSPC;
	assert_int_equal(file->sync(file), SQFS_ERROR_IO);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(hook.fsyncs, 2);
	hook.active = false;

	assert_int_equal(sqfs_file_close(file), 0);

	/* a read-only file can be synced too */
	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_READ_ONLY),
			 0);
	watch(path);
	assert_int_equal(sqfs_file_sync(file), 0);
	assert_int_equal(hook.fsyncs, 1);
	hook.active = false;
	assert_int_equal(file->read_at(file, 0, buf, 5), 0);
	assert_memory_equal(buf, "hello", 5);
	assert_int_equal(sqfs_file_close(file), 0);
}

/* close reports what close(2) reports, and the file is gone either way;
 * destroy says nothing. */
static void posix_close(void **state)
{
	sqfs_file_t *file = NULL;
	char path[PATH_MAX + 16];
	size_t fds = count_fds();

	(void)state;
	snprintf(path, sizeof(path), "%s/image", tmpdir);
	unlink(path);
	assert_int_equal(sqfs_file_open(&file, path, 0), 0);
	assert_non_null(file->close);
	assert_int_equal(count_fds(), fds + 1);
	assert_int_equal(file->write_at(file, 0, "x", 1), 0);
	assert_int_equal(sqfs_file_close(file), 0);
	assert_int_equal(count_fds(), fds);

	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_OVERWRITE),
			 0);
	watch(path);
	hook.close_err = true;
	errno = 0;
	assert_int_equal(sqfs_file_close(file), SQFS_ERROR_IO);
	assert_int_equal(errno, EIO);
	assert_int_equal(count_fds(), fds);

	/* the same failure through destroy: released, nothing reported */
	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_OVERWRITE),
			 0);
	watch(path);
	hook.close_err = true;
	sqfs_file_destroy(file);
	hook.active = false;
	assert_int_equal(count_fds(), fds);
}

static void posix_open_errors(void **state)
{
	sqfs_file_t *file = NULL;
	char path[PATH_MAX + 16];

	(void)state;
	snprintf(path, sizeof(path), "%s/missing/image", tmpdir);
	assert_int_equal(sqfs_file_open(&file, path, SQFS_FILE_OPEN_READ_ONLY),
			 SQFS_ERROR_IO);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(sqfs_file_open(&file, path, 0), SQFS_ERROR_IO);
	assert_int_equal(sqfs_file_open(&file, path, 0x40),
			 SQFS_ERROR_ARG_INVALID);
	assert_null(file);
}

/* A window: reads, writes, size and truncation shifted by the offset;
 * the bytes before it untouched; a file shorter than the offset an empty
 * view; releasing the view leaves the file. */
static void window_file(void **state)
{
	static const uint8_t head[8] = "HEADER!!";
	sqfs_file_t *mem, *view;
	const uint8_t *data;
	uint8_t buf[8];
	size_t size;

	(void)state;
	assert_int_equal(sqfs_file_open_memory(&mem, head, 8, 0), 0);
	assert_int_equal(sqfs_file_open_window(NULL, mem, 3, 0),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_open_window(&view, NULL, 3, 0),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_open_window(&view, mem, 8, 0), 0);
	assert_int_equal(view->get_size(view), 0);
	assert_int_equal(view->read_at(view, 0, buf, 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(view->write_at(view, 2, "xy", 2), 0);
	assert_int_equal(view->get_size(view), 4);
	assert_int_equal(view->read_at(view, 0, buf, 4), 0);
	assert_memory_equal(buf, "\0\0xy", 4);
	data = sqfs_file_memory_data(mem, &size);
	assert_int_equal(size, 12);
	assert_memory_equal(data, head, 8);
	assert_int_equal(view->truncate(view, 1), 0);
	assert_int_equal(view->get_size(view), 1);
	assert_int_equal(mem->get_size(mem), 9);
	assert_int_equal(view->read_at(view, UINT64_MAX, buf, 1),
			 SQFS_ERROR_OUT_OF_BOUNDS);
	assert_int_equal(sqfs_file_sync(view), 0);
	assert_int_equal(sqfs_file_close(view), 0);
	/* the file is still there, and still the caller's */
	assert_int_equal(mem->get_size(mem), 9);
	sqfs_file_destroy(mem);

	/* past the end of a short file: nothing to read, size 0 */
	assert_int_equal(
	    sqfs_file_open_memory(&mem, head, 8, SQFS_FILE_OPEN_READ_ONLY), 0);
	assert_int_equal(sqfs_file_open_window(&view, mem, 100, 2),
			 SQFS_ERROR_ARG_INVALID);
	assert_int_equal(sqfs_file_open_window(&view, mem, 100, 0), 0);
	assert_int_equal(view->get_size(view), 0);
	assert_int_equal(view->write_at(view, 0, "z", 1),
			 SQFS_ERROR_UNSUPPORTED);
	sqfs_file_destroy(view);

	/* taken over: the view's release is the file's (ASan would see the
	 * file leak otherwise) */
	assert_int_equal(
	    sqfs_file_open_window(&view, mem, 2, SQFS_FILE_WINDOW_OWN), 0);
	assert_int_equal(view->get_size(view), 6);
	assert_int_equal(sqfs_file_close(view), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(memory_file),
	    cmocka_unit_test(memory_file_initial_data_and_read_only),
	    cmocka_unit_test(memory_sync_and_close),
	    cmocka_unit_test(window_file),
	    cmocka_unit_test(custom_without_sync),
	    cmocka_unit_test(posix_file),
	    cmocka_unit_test(posix_sync),
	    cmocka_unit_test(posix_close),
	    cmocka_unit_test(posix_open_errors),
	};
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}

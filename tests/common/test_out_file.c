/* SPDX-License-Identifier: MIT */
/*
 * test_out_file.c - the output-file helper: an image appears complete or
 * not at all, and an existing file is only replaced with force.
 *
 * This program defines fsync, close, rename, renameat2 and link itself
 * (passing each on to the C library), so that it sees the order of the
 * calls that make an image durable and can make them fail on cue.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "common/out_file.h"
#include "sqfs/io.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];
static char target[300];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	(void)state;

	snprintf(dir, sizeof(dir), "%s/test_out_file.XXXXXX",
		 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(target, sizeof(target), "%s/image.sqfs", dir);
	return 0;
}

static int teardown(void **state)
{
	struct dirent *de;
	char path[600];
	DIR *d;
	(void)state;

	d = opendir(dir);
	if (d != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (unlink(path) != 0)
				rmdir(path);
		}
		closedir(d);
	}
	rmdir(dir);
	return 0;
}

static size_t count_files(void)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			++n;
	}
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static void check_contents(const char *path, const char *text)
{
	char buf[256];
	size_t n;
	FILE *fp = fopen(path, "rb");

	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void put(out_file_t *of, const char *text)
{
	sqfs_file_t *f = out_file_get(of);

	assert_non_null(f);
	assert_int_equal(f->write_at(f, 0, text, strlen(text)), 0);
}

/* ---- the system calls, observed and failed on cue ------------------------
 */

/* What was seen, in order: 'S' fsync of the temporary file, 'C' its
 * close, 'M' the move onto the target, 'D' fsync of the directory. */
static struct {
	bool active;
	struct stat temp, dir;
	char temp_path[600];
	bool fail_fsync, fail_close, fail_dirsync;
	char events[32];
	size_t count;
} obs;

static void record(char what)
{
	if (obs.count + 1 < sizeof(obs.events))
		obs.events[obs.count++] = what;
}

static bool fd_is(int fd, const struct stat *want)
{
	struct stat sb;

	return fstat(fd, &sb) == 0 && sb.st_dev == want->st_dev &&
	       sb.st_ino == want->st_ino;
}

/* Start watching the temporary file of of and its directory. */
static void observe(out_file_t *of)
{
	memset(&obs, 0, sizeof(obs));
	snprintf(obs.temp_path, sizeof(obs.temp_path), "%s",
		 out_file_temp_path(of));
	assert_int_equal(stat(obs.temp_path, &obs.temp), 0);
	assert_int_equal(stat(dir, &obs.dir), 0);
	obs.active = true;
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

	if (obs.active && fd_is(fd, &obs.temp)) {
		if (obs.fail_fsync) {
			errno = EIO;
			return -1;
		}
		record('S');
	} else if (obs.active && fd_is(fd, &obs.dir)) {
		if (obs.fail_dirsync) {
			errno = EIO;
			return -1;
		}
		record('D');
	}
	return fn(fd);
}

int close(int fd)
{
	int (*fn)(int) = (int (*)(int))real("close");
	bool temp = obs.active && fd_is(fd, &obs.temp);
	int ret = fn(fd);

	if (temp && ret == 0) {
		/* closed all the same, as Linux does */
		if (obs.fail_close) {
			errno = EIO;
			return -1;
		}
		record('C');
	}
	return ret;
}

static void moved(const char *from, int ret)
{
	if (obs.active && ret == 0 && strcmp(from, obs.temp_path) == 0)
		record('M');
}

int rename(const char *from, const char *to)
{
	int (*fn)(const char *, const char *) =
	    (int (*)(const char *, const char *))real("rename");
	int ret = fn(from, to);

	moved(from, ret);
	return ret;
}

int renameat2(int fromfd, const char *from, int tofd, const char *to,
	      unsigned int flags)
{
	int (*fn)(int, const char *, int, const char *, unsigned int) =
	    (int (*)(int, const char *, int, const char *, unsigned int))real(
		"renameat2");
	int ret = fn(fromfd, from, tofd, to, flags);

	moved(from, ret);
	return ret;
}

int link(const char *from, const char *to)
{
	int (*fn)(const char *, const char *) =
	    (int (*)(const char *, const char *))real("link");
	int ret = fn(from, to);

	moved(from, ret);
	return ret;
}

/* The number of open file descriptors. */
static size_t count_fds(void)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/proc/self/fd");

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_new_target(void **state)
{
	out_file_t *of = NULL;
	char temp[600];
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	assert_non_null(of);
	snprintf(temp, sizeof(temp), "%s", out_file_temp_path(of));
	/* beside the target, not the target */
	assert_int_equal(strncmp(temp, dir, strlen(dir)), 0);
	assert_null(strchr(temp + strlen(dir) + 1, '/'));
	assert_string_not_equal(temp, target);
	assert_int_equal(access(temp, F_OK), 0);
	assert_int_not_equal(access(target, F_OK), 0);

	put(of, "image");
	assert_int_equal(out_file_commit(of), 0);
	out_file_destroy(of);

	check_contents(target, "image");
	assert_int_not_equal(access(temp, F_OK), 0);
	assert_int_equal(count_files(), 1);
}

static void test_failure_removes_temp(void **state)
{
	out_file_t *of = NULL;
	char temp[600];
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	snprintf(temp, sizeof(temp), "%s", out_file_temp_path(of));
	put(of, "half an image");
	out_file_destroy(of);

	assert_int_not_equal(access(temp, F_OK), 0);
	assert_int_not_equal(access(target, F_OK), 0);
	assert_int_equal(count_files(), 0);
}

static void test_existing_kept(void **state)
{
	out_file_t *of = NULL;
	(void)state;

	write_file(target, "precious");
	assert_int_equal(out_file_open(&of, target, false), -1);
	assert_null(of);
	check_contents(target, "precious");
	assert_int_equal(count_files(), 1);

	/* a failed forced run leaves it alone as well */
	assert_int_equal(out_file_open(&of, target, true), 0);
	put(of, "broken");
	out_file_destroy(of);
	check_contents(target, "precious");
	assert_int_equal(count_files(), 1);
}

static void test_force_replaces(void **state)
{
	out_file_t *of = NULL;
	(void)state;

	write_file(target, "old image");
	assert_int_equal(out_file_open(&of, target, true), 0);
	put(of, "new");
	/* until the commit, the old file is there */
	check_contents(target, "old image");
	assert_int_equal(out_file_commit(of), 0);
	out_file_destroy(of);
	check_contents(target, "new");
	assert_int_equal(count_files(), 1);
}

/* A file that appears while packing is not replaced without force. */
static void test_appeared_meanwhile(void **state)
{
	out_file_t *of = NULL;
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	put(of, "ours");
	write_file(target, "theirs");
	assert_int_equal(out_file_commit(of), -1);
	out_file_destroy(of);
	check_contents(target, "theirs");
	assert_int_equal(count_files(), 1);
}

static void test_refused_targets(void **state)
{
	out_file_t *of = NULL;
	char path[600];
	(void)state;

	/* a directory, even with force */
	assert_int_equal(mkdir(target, 0755), 0);
	assert_int_equal(out_file_open(&of, target, false), -1);
	assert_int_equal(out_file_open(&of, target, true), -1);
	assert_int_equal(rmdir(target), 0);

	/* a symlink is an existing file */
	assert_int_equal(symlink("nowhere", target), 0);
	assert_int_equal(out_file_open(&of, target, false), -1);
	assert_int_equal(out_file_open(&of, target, true), -1);
	assert_int_equal(unlink(target), 0);

	/* a missing directory */
	snprintf(path, sizeof(path), "%s/missing/image.sqfs", dir);
	assert_int_equal(out_file_open(&of, path, false), -1);

	/* not a file name */
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(out_file_open(&of, path, true), -1);
	assert_int_equal(out_file_open(&of, "", false), -1);
	assert_null(of);
	assert_int_equal(count_files(), 0);

	out_file_destroy(NULL);
}

/*
 * The order that makes the image durable: the file synced, then closed,
 * then moved, then its directory synced; new and forced; no descriptor
 * left open.
 */
static void test_durable_order(void **state)
{
	out_file_t *of = NULL;
	size_t fds = count_fds();
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	observe(of);
	put(of, "image");
	assert_int_equal(out_file_commit(of), 0);
	obs.active = false;
	out_file_destroy(of);
	assert_string_equal(obs.events, "SCMD");
	check_contents(target, "image");
	assert_int_equal(count_fds(), fds);

	assert_int_equal(out_file_open(&of, target, true), 0);
	observe(of);
	put(of, "again");
	assert_int_equal(out_file_commit(of), 0);
	obs.active = false;
	out_file_destroy(of);
	assert_string_equal(obs.events, "SCMD");
	check_contents(target, "again");
	assert_int_equal(count_files(), 1);
	assert_int_equal(count_fds(), fds);
}

/* Commit with one failure injected, to a new target and over an
 * existing one (force): it fails, and only the old file remains. */
static void commit_failing(bool *flag)
{
	out_file_t *of = NULL;
	size_t fds = count_fds();

	assert_int_equal(out_file_open(&of, target, false), 0);
	observe(of);
	*flag = true;
	put(of, "image");
	assert_int_equal(out_file_commit(of), -1);
	out_file_destroy(of);
	obs.active = false;
	assert_int_not_equal(access(target, F_OK), 0);
	assert_int_equal(count_files(), 0);
	assert_int_equal(count_fds(), fds);

	write_file(target, "precious");
	assert_int_equal(out_file_open(&of, target, true), 0);
	observe(of);
	*flag = true;
	put(of, "broken");
	assert_int_equal(out_file_commit(of), -1);
	out_file_destroy(of);
	obs.active = false;
	check_contents(target, "precious");
	assert_int_equal(count_files(), 1);
	assert_int_equal(count_fds(), fds);
}

static void test_fsync_fails(void **state)
{
	(void)state;
	commit_failing(&obs.fail_fsync);
}

static void test_close_fails(void **state)
{
	(void)state;
	commit_failing(&obs.fail_close);
}

/* The move happened, its directory cannot be synced: a failure, but the
 * complete image stays (removing it would lose the only copy). */
static void test_dirsync_fails(void **state)
{
	out_file_t *of = NULL;
	(void)state;

	assert_int_equal(out_file_open(&of, target, false), 0);
	observe(of);
	obs.fail_dirsync = true;
	put(of, "image");
	assert_int_equal(out_file_commit(of), -1);
	out_file_destroy(of);
	obs.active = false;
	assert_string_equal(obs.events, "SCM");
	check_contents(target, "image");
	assert_int_equal(count_files(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_new_target, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failure_removes_temp, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_existing_kept, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_force_replaces, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_appeared_meanwhile, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_refused_targets, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_durable_order, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_fsync_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_close_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dirsync_fails, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

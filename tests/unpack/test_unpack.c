/* SPDX-License-Identifier: MIT */
/*
 * test_unpack.c - the unpacker (sqfs/unpack.h): where entries go (a
 * directory, a file, the root, with and without the parents), what is in
 * the destination already (symlinks to outside never followed, files
 * refused or replaced), hostile images whose names climb out ("..", '/',
 * "."), the callbacks (select, report, warn, on the calling thread even
 * when the finisher thread is the one that failed), and the words of
 * failures, which name the entry or the path.
 *
 * Every case that could write outside the destination checks that
 * nothing appeared there: the destination lives in a directory of its
 * own next to a sentinel directory ("outside") that must stay empty.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "reader/dir_image.h"

#include "sqfs/error.h"
#include "sqfs/unpack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

/* ---- images and paths ---------------------------------------------------- */

/* a/, a/b/, a/b/f ("data"), a/b/g -> hard link to f, a/l -> "b/f",
 * a/p (FIFO), top ("top!") */
static sqfs_image_t *sample(sqfs_file_t **file)
{
	sqfs_writer_t *wr = di_writer(file);
	sqfs_entry_t e;

	di_add_dir(wr, "a");
	di_add_dir(wr, "a/b");
	di_add_file(wr, "a/b/f", "data");
	di_add_link(wr, "a/b/g", "a/b/f");
	sqfs_entry_init(&e, "a/l", S_IFLNK | 0777, 0, 0, 1000);
	e.symlink_target = "b/f";
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	di_add_fifo(wr, "a/p");
	di_add_file(wr, "top", "top!");
	return di_finish(wr, *file);
}

static const char *at(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", test_tmpdir, name);
	return p;
}

/* Whether the entry at name (below the test directory) is of type. */
static bool is(const char *name, mode_t type)
{
	struct stat st;

	return lstat(at(name), &st) == 0 && (st.st_mode & S_IFMT) == type;
}

static size_t count_in(const char *name)
{
	DIR *dir = opendir(at(name));
	struct dirent *de;
	size_t n = 0;

	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..");
	closedir(dir);
	return n;
}

static void read_text(const char *name, char *buf, size_t size)
{
	int fd = open(at(name), O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, size - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

/* A destination "dest" and an empty sentinel "outside" beside it. */
static void make_dest(void)
{
	assert_int_equal(mkdir(at("dest"), 0755), 0);
	assert_int_equal(mkdir(at("outside"), 0755), 0);
}

static int unpack_flags(sqfs_image_t *img, const char *path, uint32_t flags,
			char *why)
{
	sqfs_unpack_options_t opt;

	sqfs_unpack_options_init(&opt);
	opt.flags = flags;
	return sqfs_unpack(img, path, at("dest"), &opt, why);
}

/* ---- where entries go ---------------------------------------------------- */

static void test_layout(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE], text[64];
	sqfs_file_t *file;
	sqfs_image_t *img = sample(&file);
	struct stat st, st2;

	(void)state;
	make_dest();
	/* a directory: under its own name, with everything below it */
	assert_int_equal(unpack_flags(img, "a/b", 0, why), 0);
	assert_true(is("dest/b", S_IFDIR));
	read_text("dest/b/f", text, sizeof(text));
	assert_string_equal(text, "data");
	/* the hard link is a link to the first name, not a copy */
	assert_int_equal(stat(at("dest/b/f"), &st), 0);
	assert_int_equal(stat(at("dest/b/g"), &st2), 0);
	assert_true(st.st_ino == st2.st_ino);
	assert_int_equal(count_in("dest"), 1);

	/* a file: under its own name */
	assert_int_equal(unpack_flags(img, "/a/b/f", 0, why), 0);
	read_text("dest/f", text, sizeof(text));
	assert_string_equal(text, "data");
	assert_int_equal(count_in("dest"), 2);

	/* the directories leading to the path, as rdsquashfs makes them */
	assert_int_equal(
	    unpack_flags(img, "a/b", SQFS_UNPACK_KEEP_PARENTS, why), 0);
	assert_true(is("dest/a", S_IFDIR));
	assert_true(is("dest/a/b/g", S_IFREG));
	/* only what lies on the way: a/l and a/p are not below a/b */
	assert_int_equal(count_in("dest/a"), 1);

	/* the root: its contents straight into dest (a directory already
	 * there is used as it is) */
	assert_int_equal(unpack_flags(img, "", SQFS_UNPACK_OVERWRITE, why), 0);
	assert_true(is("dest/a/l", S_IFLNK));
	assert_true(is("dest/a/p", S_IFIFO));
	read_text("dest/top", text, sizeof(text));
	assert_string_equal(text, "top!");
	assert_int_equal(count_in("outside"), 0);

	/* a destination to make, with its parents */
	assert_int_equal(sqfs_unpack(img, "top", at("new/deeper"), NULL, why),
			 SQFS_ERROR_IO);
	assert_non_null(strstr(why, "new/deeper: cannot open: "));
	assert_false(is("new", S_IFDIR));
	{
		sqfs_unpack_options_t opt;

		sqfs_unpack_options_init(&opt);
		opt.flags = SQFS_UNPACK_MAKE_DEST;
		assert_int_equal(
		    sqfs_unpack(img, "top", at("new/deeper"), &opt, why), 0);
		assert_true(is("new/deeper/top", S_IFREG));
	}
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* Bad arguments: nothing is made, and the words say why. */
static void test_refusals(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_unpack_options_t opt;
	sqfs_file_t *file;
	sqfs_image_t *img = sample(&file);

	(void)state;
	make_dest();
	assert_int_equal(unpack_flags(img, "a/../top", 0, why),
			 SQFS_ERROR_ARG_INVALID);
	assert_string_equal(why, "a/../top: '..' is not allowed in a path");
	assert_int_equal(unpack_flags(img, "a/missing", 0, why),
			 SQFS_ERROR_NO_ENTRY);
	assert_non_null(strstr(why, "missing"));
	assert_int_equal(unpack_flags(img, "a", 0x80000000u, why),
			 SQFS_ERROR_ARG_INVALID);
	sqfs_unpack_options_init(&opt);
	opt.reserved[0] = 1;
	assert_int_equal(sqfs_unpack(img, "a", at("dest"), &opt, why),
			 SQFS_ERROR_ARG_INVALID);
	/* the image's name before its words */
	sqfs_unpack_options_init(&opt);
	opt.image_name = "img.sqfs";
	assert_int_equal(sqfs_unpack(img, "nothing", at("dest"), &opt, why),
			 SQFS_ERROR_NO_ENTRY);
	assert_int_equal(strncmp(why, "img.sqfs: ", 10), 0);
	/* a destination that is not there, or is a file */
	assert_int_equal(sqfs_unpack(img, "a", at("dest/x"), NULL, why),
			 SQFS_ERROR_IO);
	assert_non_null(strstr(why, "dest/x: cannot open: "));
	assert_int_equal(mkfifo(at("dest/fifo"), 0600), 0);
	assert_int_equal(sqfs_unpack(img, "a", at("dest/fifo"), NULL, why),
			 SQFS_ERROR_NOT_DIR);
	assert_int_equal(unlink(at("dest/fifo")), 0);
	assert_int_equal(count_in("dest"), 0);
	assert_int_equal(count_in("outside"), 0);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* ---- what is in the destination already ---------------------------------- */

/* Before g (a hard link to f) is made: f becomes a symlink to outside. */
static int swap_first(void *user, const sqfs_entry_t *e)
{
	(void)user;
	if (strcmp(e->path, "g") == 0) {
		assert_int_equal(unlink(at("dest/b/f")), 0);
		assert_int_equal(
		    symlink("../../outside/secret", at("dest/b/f")), 0);
	}
	return 1;
}

static void test_existing(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE], text[64];
	sqfs_file_t *file;
	sqfs_image_t *img = sample(&file);
	int fd;

	(void)state;
	make_dest();
	fd = open(at("outside/secret"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "secret", 6), 6);
	close(fd);

	/* a symlink to outside where the image has a directory: never
	 * entered */
	assert_int_equal(symlink("../outside", at("dest/a")), 0);
	assert_int_equal(unpack_flags(img, "", 0, why), SQFS_ERROR_EXISTS);
	assert_string_equal(why, "a: exists and is not a directory (a "
				 "symlink is never followed)");
	assert_int_equal(count_in("outside"), 1);
	/* the same with the path below it, made with its parents */
	assert_int_equal(
	    unpack_flags(img, "a/b", SQFS_UNPACK_KEEP_PARENTS, why),
	    SQFS_ERROR_EXISTS);
	assert_int_equal(count_in("outside"), 1);
	assert_int_equal(unlink(at("dest/a")), 0);

	/* a symlink to outside where the image has a file: refused ... */
	assert_int_equal(symlink("../outside/secret", at("dest/top")), 0);
	assert_int_equal(unpack_flags(img, "top", 0, why), SQFS_ERROR_EXISTS);
	assert_string_equal(why, "top: cannot create: File exists");
	read_text("outside/secret", text, sizeof(text));
	assert_string_equal(text, "secret");
	/* ... or, told to overwrite, removed itself, never followed */
	assert_int_equal(unpack_flags(img, "top", SQFS_UNPACK_OVERWRITE, why),
			 0);
	assert_true(is("dest/top", S_IFREG));
	read_text("dest/top", text, sizeof(text));
	assert_string_equal(text, "top!");
	read_text("outside/secret", text, sizeof(text));
	assert_string_equal(text, "secret");
	assert_int_equal(count_in("outside"), 1);

	/* a hard link whose first name was swapped for a symlink to the
	 * secret meanwhile (by the select callback, right before the link
	 * is made): the link is made to the symlink itself, never to what
	 * it names */
	{
		sqfs_unpack_options_t opt;

		sqfs_unpack_options_init(&opt);
		opt.select = swap_first;
		assert_int_equal(sqfs_unpack(img, "a/b", at("dest"), &opt, why),
				 0);
	}
	assert_true(is("dest/b/g", S_IFLNK));
	read_text("outside/secret", text, sizeof(text));
	assert_string_equal(text, "secret");
	assert_int_equal(count_in("outside"), 1);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* ---- hostile images ------------------------------------------------------ */

/* An image whose root holds two FIFOs named a and b, as given (bytes
 * the writer would never write). */
static sqfs_image_t *crafted(const char *a, const char *b, sqfs_file_t **file)
{
	di_craft_t *c = di_craft_new();
	uint64_t refs[2], root;
	di_listing_t l;

	memset(&l, 0, sizeof(l));
	refs[0] = di_craft_fifo(c, 1);
	refs[1] = di_craft_fifo(c, 2);
	root = di_craft_next_ref(c);
	di_lst_header(&l, 1, (uint32_t)(refs[0] >> 16), 1);
	di_lst_entry(&l, (uint16_t)(refs[0] & 0xFFFF), 0, SQFS_INODE_FIFO, a,
		     strlen(a));
	di_lst_entry(&l, (uint16_t)(refs[1] & 0xFFFF), 1, SQFS_INODE_FIFO, b,
		     strlen(b));
	assert_int_equal(di_craft_dir(c, 3, &l, false, NULL, 0, 0), root);
	return di_craft_finish(c, 3, root, file);
}

static void test_hostile_names(void **state)
{
	static const char *const names[][2] = {
	    {"..", "a"},  {".", "a"},	       {"a", "b/../../outside"},
	    {"a", "b/c"}, {"a", "../outside"},
	};
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_file_t *file;
	sqfs_image_t *img;

	(void)state;
	make_dest();
	/* the crafting works: a sane pair unpacks */
	img = crafted("a", "b", &file);
	assert_int_equal(unpack_flags(img, "", 0, why), 0);
	assert_true(is("dest/a", S_IFIFO) && is("dest/b", S_IFIFO));
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	assert_int_equal(unlink(at("dest/a")), 0);
	assert_int_equal(unlink(at("dest/b")), 0);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
		img = crafted(names[i][0], names[i][1], &file);
		assert_true(unpack_flags(img, "", 0, why) < 0);
		/* the words name the image's fault */
		assert_true(why[0] != '\0');
		assert_int_equal(count_in("outside"), 0);
		assert_true(count_in("dest") <= 1);
		if (count_in("dest") == 1)
			assert_int_equal(unlink(at("dest/a")), 0);
		sqfs_image_destroy(img);
		sqfs_file_destroy(file);
	}
	/* nothing beside dest and outside either */
	assert_int_equal(count_in(""), 2);
}

/* ---- callbacks ----------------------------------------------------------- */

typedef struct {
	char seen[1024];
	char reports[1024];
	char warnings[1024];
	const char *stop_at;
	pthread_t caller;
	bool other_thread;
} calls_t;

static int select_cb(void *user, const sqfs_entry_t *e)
{
	calls_t *c = user;

	c->other_thread |= !pthread_equal(pthread_self(), c->caller);
	strcat(c->seen, e->path);
	strcat(c->seen, ";");
	if (c->stop_at != NULL && strcmp(e->path, c->stop_at) == 0)
		return SQFS_ERROR_ABORTED;
	/* a/b is left out with all below it */
	return strcmp(e->path, "a/b") != 0;
}

static void report_cb(void *user, const char *what, const char *path)
{
	calls_t *c = user;

	c->other_thread |= !pthread_equal(pthread_self(), c->caller);
	strcat(c->reports, what);
	strcat(c->reports, " ");
	strcat(c->reports, path);
	strcat(c->reports, ";");
}

static void warn_cb(void *user, const char *words)
{
	calls_t *c = user;

	c->other_thread |= !pthread_equal(pthread_self(), c->caller);
	strncat(c->warnings, words,
		sizeof(c->warnings) - 1 - strlen(c->warnings));
	strncat(c->warnings, ";",
		sizeof(c->warnings) - 1 - strlen(c->warnings));
}

static void test_callbacks(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_unpack_options_t opt;
	sqfs_file_t *file;
	sqfs_image_t *img = sample(&file);
	calls_t c;

	(void)state;
	make_dest();
	memset(&c, 0, sizeof(c));
	c.caller = pthread_self();
	sqfs_unpack_options_init(&opt);
	opt.select = select_cb;
	opt.report = report_cb;
	opt.warn = warn_cb;
	opt.user = &c;
	opt.num_jobs = 2;
	assert_int_equal(sqfs_unpack(img, "", at("dest"), &opt, why), 0);
	/* each entry once, before it is made; nothing below a/b asked */
	assert_string_equal(c.seen, ";a;a/b;a/l;a/p;top;");
	assert_string_equal(c.reports, "creating a;creating a/l;creating a/p;"
				       "unpacking top;");
	assert_false(is("dest/a/b", S_IFDIR));
	assert_string_equal(c.warnings, "");
	assert_false(c.other_thread);

	/* a stop: returned as given, with no words of the library's */
	memset(c.seen, 0, sizeof(c.seen));
	c.stop_at = "a/p";
	opt.flags = SQFS_UNPACK_OVERWRITE;
	assert_int_equal(sqfs_unpack(img, "", at("dest"), &opt, why),
			 SQFS_ERROR_ABORTED);
	assert_string_equal(why, "");
	assert_string_equal(c.seen, ";a;a/b;a/l;a/p;");
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/*
 * Warnings of the finisher thread (which sets a file's attributes) come
 * to the program on the calling thread: a chown refused (as a user who
 * is not root) is told once, and the unpack goes on. As root, the run is
 * made in a child process that became nobody first.
 */
static int unpack_as_user(sqfs_image_t *img)
{
	char why[SQFS_ERROR_TEXT_SIZE], expect[256];
	sqfs_unpack_options_t opt;
	calls_t c;

	memset(&c, 0, sizeof(c));
	c.caller = pthread_self();
	sqfs_unpack_options_init(&opt);
	opt.flags = SQFS_UNPACK_CHOWN;
	opt.warn = warn_cb;
	opt.user = &c;
	opt.num_jobs = 2;
	if (sqfs_unpack(img, "top", at("dest"), &opt, why) != 0)
		return 1;
	if (c.other_thread)
		return 2;
	/* one warning, naming the file, saying that it goes on */
	snprintf(expect, sizeof(expect),
		 "top: cannot change the owner to 0:0: %s; owners are left as "
		 "they are;",
		 strerror(EPERM));
	if (strcmp(c.warnings, expect) != 0) {
		fprintf(stderr, "warnings: %s\n", c.warnings);
		return 3;
	}
	return is("dest/top", S_IFREG) ? 0 : 4;
}

static void test_warnings_from_finisher(void **state)
{
	sqfs_file_t *file;
	sqfs_image_t *img = sample(&file);
	int status;
	pid_t pid;

	(void)state;
	make_dest();
	if (geteuid() != 0) {
		assert_int_equal(unpack_as_user(img), 0);
	} else {
		assert_int_equal(chown(at("dest"), 65534, 65534), 0);
		assert_int_equal(chmod(test_tmpdir, 0755), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (setgid(65534) != 0 || setuid(65534) != 0)
				_exit(10);
			_exit(unpack_as_user(img));
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

/* Attributes: modes, times and xattrs as the image has them; a symlink's
 * user.* xattr (which Linux refuses) told and left out. */
static void test_attributes(void **state)
{
	char why[SQFS_ERROR_TEXT_SIZE], value[8];
	sqfs_unpack_options_t opt;
	sqfs_xattr_t xa = {"user.note", "n1", 2};
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	sqfs_image_t *img;
	sqfs_entry_t e;
	struct stat st;
	calls_t c;

	(void)state;
	wr = di_writer(&file);
	sqfs_entry_init(&e, "d", S_IFDIR | 0710, 0, 0, 5000);
	e.xattrs = &xa;
	e.xattr_count = 1;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	sqfs_entry_init(&e, "d/f", S_IFREG | 0604, 0, 0, 6000);
	e.xattrs = &xa;
	e.xattr_count = 1;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	assert_int_equal(sqfs_writer_append(wr, "x", 1), 0);
	assert_int_equal(sqfs_writer_end_file(wr), 0);
	sqfs_entry_init(&e, "d/l", S_IFLNK | 0777, 0, 0, 7000);
	e.symlink_target = "f";
	e.xattrs = &xa;
	e.xattr_count = 1;
	assert_int_equal(sqfs_writer_add(wr, &e, 0), 0);
	img = di_finish(wr, file);

	make_dest();
	memset(&c, 0, sizeof(c));
	c.caller = pthread_self();
	sqfs_unpack_options_init(&opt);
	opt.flags =
	    SQFS_UNPACK_CHMOD | SQFS_UNPACK_SET_TIMES | SQFS_UNPACK_SET_XATTRS;
	opt.warn = warn_cb;
	opt.user = &c;
	assert_int_equal(sqfs_unpack(img, "d", at("dest"), &opt, why), 0);
	assert_int_equal(lstat(at("dest/d"), &st), 0);
	assert_int_equal(st.st_mode, S_IFDIR | 0710);
	assert_int_equal(st.st_mtime, 5000);
	assert_int_equal(lstat(at("dest/d/f"), &st), 0);
	assert_int_equal(st.st_mode, S_IFREG | 0604);
	assert_int_equal(st.st_mtime, 6000);
	assert_int_equal(lstat(at("dest/d/l"), &st), 0);
	assert_int_equal(st.st_mtime, 7000);
	if (getxattr(at("dest/d/f"), "user.note", value, sizeof(value)) < 0 &&
	    errno == ENOTSUP) {
		/* no user xattrs here: each one is told */
		assert_non_null(strstr(c.warnings, "d/f: cannot set xattr "));
	} else {
		assert_int_equal(
		    getxattr(at("dest/d"), "user.note", value, sizeof(value)),
		    2);
		assert_int_equal(
		    getxattr(at("dest/d/f"), "user.note", value, sizeof(value)),
		    2);
		assert_memory_equal(value, "n1", 2);
		/* Linux keeps user.* off symlinks: told, never followed to
		 * the file */
		assert_string_equal(c.warnings,
				    "d/l: cannot set xattr user.note: "
				    "Operation not permitted; skipped;");
	}
	assert_false(c.other_thread);
	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_layout, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_refusals, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_existing, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(
		test_hostile_names, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_callbacks, test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_warnings_from_finisher,
					    test_tmpdir_setup,
					    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_attributes, test_tmpdir_setup,
					    test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

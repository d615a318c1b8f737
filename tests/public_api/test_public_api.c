/* SPDX-License-Identifier: MIT */
/*
 * test_public_api.c - a program on the installed API alone: it is built
 * with include/ as its only include path (nothing of lib/, no config.h)
 * and linked to the shared library, as the Python bindings are. It packs
 * a tree made on disk with the directory source and the writer, unpacks
 * the image with sqfs_unpack, and walks both trees again side by side:
 * every entry, attribute, xattr and byte must come back.
 *
 * Exit status: 0 when everything came back, 1 (with the difference on
 * stderr) otherwise, 99 when the test itself cannot run.
 */
#define _XOPEN_SOURCE 700

/* each header on its own first: they must need nothing else */
#include <sqfs/dir_source.h>
#include <sqfs/unpack.h>

#include <sqfs/squashfs.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures += 1;
}

static void hard_error(const char *what)
{
	fprintf(stderr, "ERROR: %s: %s\n", what, strerror(errno));
	exit(99);
}

static char top[256];

static const char *at(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", top, name);
	return p;
}

static void write_file(const char *name, const void *data, size_t size,
		       off_t offset)
{
	int fd = open(at(name), O_WRONLY | O_CREAT, 0640);

	if (fd < 0 || pwrite(fd, data, size, offset) != (ssize_t)size)
		hard_error(name);
	close(fd);
}

/* The tree: every kind of entry the API hands out. */
static void make_tree(void)
{
	static unsigned char big[300000];

	for (size_t i = 0; i < sizeof(big); ++i)
		big[i] = (unsigned char)(i * 7 + i / 1000);
	if (mkdir(at("src"), 0755) != 0 || mkdir(at("src/d"), 0750) != 0 ||
	    mkdir(at("src/d/e"), 0700) != 0 || mkdir(at("src/empty"), 0755))
		hard_error("mkdir");
	write_file("src/a", "hello\n", 6, 0);
	write_file("src/d/big", big, sizeof(big), 0);
	/* data, a hole of 4 MiB, data */
	write_file("src/d/sparse", big, 5000, 0);
	write_file("src/d/sparse", big, 5000, 4 << 20);
	write_file("src/d/e/empty", "", 0, 0);
	if (symlink("../a", at("src/d/link")) != 0 ||
	    link(at("src/a"), at("src/d/e/hard")) != 0 ||
	    mkfifo(at("src/fifo"), 0604) != 0)
		hard_error("making special files");
	if (geteuid() == 0 &&
	    mknod(at("src/null"), S_IFCHR | 0666, makedev(1, 3)) != 0)
		hard_error("mknod");
	/* xattrs where the file system has them */
	if (setxattr(at("src/a"), "user.greeting", "hi", 2, 0) == 0)
		setxattr(at("src/d"), "user.dir", "\0\1\2", 3, 0);
	/* times to check: the image keeps seconds */
	{
		struct timespec ts[2] = {{1234567, 0}, {1234567, 0}};

		utimensat(AT_FDCWD, at("src/d/big"), ts, AT_SYMLINK_NOFOLLOW);
		utimensat(AT_FDCWD, at("src/d/link"), ts, AT_SYMLINK_NOFOLLOW);
	}
}

/* ---- packing ------------------------------------------------------------- */

static void pack(const char *dir, const char *image)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_writer_options_t wopt;
	sqfs_dir_source_t *src;
	const sqfs_entry_t *e;
	sqfs_data_run_t run;
	sqfs_writer_t *wr;
	sqfs_file_t *file;
	int ret;

	if (sqfs_file_open(&file, image, 0) != 0)
		hard_error(image);
	sqfs_writer_options_init(&wopt);
	if (sqfs_writer_create(file, &wopt, &wr, why) != 0) {
		fail("writer: %s", why);
		exit(1);
	}
	if (sqfs_dir_source_create(dir, NULL, &src, why) != 0) {
		fail("dir source: %s", why);
		exit(1);
	}
	while ((ret = sqfs_dir_source_next(src, &e)) == 0) {
		if (sqfs_writer_add(wr, e, 0) != 0) {
			fail("add %s: %s", e->path, sqfs_writer_error(wr));
			exit(1);
		}
		if (!S_ISREG(e->mode) || e->hard_link != NULL)
			continue;
		while ((ret = sqfs_dir_source_read(src, &run)) == 0) {
			ret = run.data != NULL
				  ? sqfs_writer_append(wr, run.data, run.size)
				  : sqfs_writer_append_hole(wr, run.size);
			if (ret != 0) {
				fail("append: %s", sqfs_writer_error(wr));
				exit(1);
			}
		}
		if (ret < 0 || sqfs_writer_end_file(wr) != 0) {
			fail("%s: %s", e->path, sqfs_dir_source_error(src));
			exit(1);
		}
	}
	if (ret < 0) {
		fail("walk: %s", sqfs_dir_source_error(src));
		exit(1);
	}
	sqfs_dir_source_destroy(src);
	if (sqfs_writer_finish(wr) != 0) {
		fail("finish: %s", sqfs_writer_error(wr));
		exit(1);
	}
	sqfs_writer_destroy(wr);
	if (sqfs_file_close(file) != 0)
		hard_error("closing the image");
}

/* ---- comparing ----------------------------------------------------------- */

static int by_key(const void *a, const void *b)
{
	return strcmp(((const sqfs_xattr_t *)a)->key,
		      ((const sqfs_xattr_t *)b)->key);
}

/* The xattrs of an entry in key order, as a text to compare. */
static void xattr_text(const sqfs_entry_t *e, char *out, size_t size)
{
	sqfs_xattr_t list[16];
	size_t n = e->xattr_count < 16 ? e->xattr_count : 16, len = 0;

	if (n > 0)
		memcpy(list, e->xattrs, n * sizeof(list[0]));
	qsort(list, n, sizeof(list[0]), by_key);
	out[0] = '\0';
	for (size_t i = 0; i < n && len + 1 < size; ++i) {
		len += (size_t)snprintf(out + len, size - len,
					"%s=%zu:", list[i].key, list[i].size);
		for (size_t j = 0; j < list[i].size && len + 3 < size; ++j)
			len += (size_t)snprintf(
			    out + len, size - len, "%02x",
			    ((const uint8_t *)list[i].value)[j]);
	}
}

/* A file's data as one buffer (holes as zeros). */
static uint8_t *slurp(sqfs_dir_source_t *src, uint64_t *size)
{
	sqfs_data_run_t run;
	uint8_t *buf = NULL;
	int ret;

	*size = 0;
	while ((ret = sqfs_dir_source_read(src, &run)) == 0) {
		buf = realloc(buf, run.offset + run.size + 1);
		if (buf == NULL)
			hard_error("memory");
		if (run.data != NULL)
			memcpy(buf + run.offset, run.data, run.size);
		else
			memset(buf + run.offset, 0, run.size);
		*size = run.offset + run.size;
	}
	if (ret < 0)
		fail("reading: %s", sqfs_dir_source_error(src));
	return buf;
}

static void compare_entries(const sqfs_entry_t *a, const sqfs_entry_t *b,
			    bool owners, bool root_time)
{
	char xa[1024], xb[1024];

	if (a->mode != b->mode)
		fail("%s: mode 0%o -> 0%o", a->path, a->mode, b->mode);
	if (owners && (a->uid != b->uid || a->gid != b->gid))
		fail("%s: owner %u:%u -> %u:%u", a->path, a->uid, a->gid,
		     b->uid, b->gid);
	/* directories' times hold (they are set after their contents) */
	if ((a->path[0] != '\0' || root_time) && a->mtime != b->mtime)
		fail("%s: time %lld -> %lld", a->path, (long long)a->mtime,
		     (long long)b->mtime);
	if (!S_ISDIR(a->mode) && a->size != b->size)
		fail("%s: size %llu -> %llu", a->path,
		     (unsigned long long)a->size, (unsigned long long)b->size);
	if (S_ISLNK(a->mode) &&
	    strcmp(a->symlink_target, b->symlink_target) != 0)
		fail("%s: target %s -> %s", a->path, a->symlink_target,
		     b->symlink_target);
	if ((S_ISCHR(a->mode) || S_ISBLK(a->mode)) &&
	    (a->rdev_major != b->rdev_major || a->rdev_minor != b->rdev_minor))
		fail("%s: device number", a->path);
	if ((a->hard_link == NULL) != (b->hard_link == NULL) ||
	    (a->hard_link != NULL && strcmp(a->hard_link, b->hard_link) != 0))
		fail("%s: hard link %s -> %s", a->path,
		     a->hard_link ? a->hard_link : "(none)",
		     b->hard_link ? b->hard_link : "(none)");
	xattr_text(a, xa, sizeof(xa));
	xattr_text(b, xb, sizeof(xb));
	if (strcmp(xa, xb) != 0)
		fail("%s: xattrs '%s' -> '%s'", a->path, xa, xb);
}

/* Walk both trees side by side; n: entries compared. */
static size_t compare_trees(const char *left, const char *right, bool owners,
			    bool root_time)
{
	sqfs_dir_source_t *a, *b;
	const sqfs_entry_t *ea, *eb;
	char why[SQFS_ERROR_TEXT_SIZE];
	int ra, rb;
	size_t n = 0;

	if (sqfs_dir_source_create(left, NULL, &a, why) != 0 ||
	    sqfs_dir_source_create(right, NULL, &b, why) != 0) {
		fail("%s", why);
		return 0;
	}
	for (;;) {
		ra = sqfs_dir_source_next(a, &ea);
		rb = sqfs_dir_source_next(b, &eb);
		if (ra != 0 || rb != 0)
			break;
		if (strcmp(ea->path, eb->path) != 0) {
			fail("entry %s where %s was", eb->path, ea->path);
			break;
		}
		compare_entries(ea, eb, owners, root_time);
		if (S_ISREG(ea->mode)) {
			uint64_t sa, sb;
			uint8_t *da = slurp(a, &sa), *db = slurp(b, &sb);

			if (sa != sb || (sa > 0 && memcmp(da, db, sa) != 0))
				fail("%s: the data differs", ea->path);
			free(da);
			free(db);
		}
		n += 1;
	}
	if (ra != rb)
		fail("the trees end apart (%d, %d)", ra, rb);
	if (ra < 0)
		fail("%s", sqfs_dir_source_error(a));
	if (rb < 0)
		fail("%s", sqfs_dir_source_error(b));
	sqfs_dir_source_destroy(a);
	sqfs_dir_source_destroy(b);
	return n;
}

/* ---- unpacking ----------------------------------------------------------- */

static sqfs_image_t *open_image(const char *image, sqfs_file_t **file)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_image_t *img;

	if (sqfs_file_open(file, image, SQFS_FILE_OPEN_READ_ONLY) != 0)
		hard_error(image);
	if (sqfs_image_open(*file, &img, why) != 0) {
		fail("%s: %s", image, why);
		exit(1);
	}
	return img;
}

static int unpack(sqfs_image_t *img, const char *path, const char *dest,
		  uint32_t flags, unsigned int jobs)
{
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_unpack_options_t opt;
	int ret;

	sqfs_unpack_options_init(&opt);
	opt.flags = flags;
	opt.num_jobs = jobs;
	ret = sqfs_unpack(img, path, dest, &opt, why);
	if (ret != 0)
		fail("unpacking '%s' into %s: %s (%s)", path, dest, why,
		     sqfs_error_string(ret));
	return ret;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	bool root = geteuid() == 0;
	uint32_t all = SQFS_UNPACK_SET_XATTRS | SQFS_UNPACK_SET_TIMES |
		       SQFS_UNPACK_CHMOD | SQFS_UNPACK_ROOT_ATTRS |
		       (root ? SQFS_UNPACK_CHOWN : 0);
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	sqfs_image_t *img;
	sqfs_file_t *file;
	size_t n;

	snprintf(top, sizeof(top), "%s/sqfs-pubapi-XXXXXX",
		 tmp != NULL ? tmp : "/tmp");
	if (mkdtemp(top) == NULL)
		hard_error("mkdtemp");
	make_tree();
	pack(at("src"), at("img.sqfs"));
	img = open_image(at("img.sqfs"), &file);

	/* the whole image, with every attribute, on one thread and on
	 * several */
	for (unsigned int jobs = 1; jobs <= 3; jobs += 2) {
		const char *out = jobs == 1 ? at("out1") : at("out3");

		if (mkdir(out, 0755) != 0)
			hard_error(out);
		if (unpack(img, "", out, all, jobs) == 0) {
			n = compare_trees(at("src"), out, root, true);
			if (n != (root ? 12u : 11u))
				fail("%zu entries compared", n);
		}
	}

	/* a directory goes into dest under its name, a file too */
	if (mkdir(at("part"), 0755) != 0)
		hard_error("part");
	if (unpack(img, "d/e", at("part"), all, 1) == 0 &&
	    compare_trees(at("src/d/e"), at("part/e"), root, true) != 3)
		fail("d/e: not unpacked as part/e");
	if (unpack(img, "/d/big", at("part"), 0, 1) == 0 &&
	    (stat(at("part/big"), &st) != 0 || st.st_size != 300000))
		fail("d/big: not unpacked as part/big");
	/* a path that is not in the image: nothing is made */
	{
		char why[SQFS_ERROR_TEXT_SIZE];
		int ret = sqfs_unpack(img, "d/missing", at("none"), NULL, why);

		if (ret != SQFS_ERROR_NO_ENTRY ||
		    strstr(why, "missing") == NULL)
			fail("d/missing: %d '%s'", ret, why);
		if (stat(at("none"), &st) == 0)
			fail("d/missing: something was made");
	}

	sqfs_image_destroy(img);
	sqfs_file_destroy(file);
	nftw(top, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (failures == 0)
		printf("PASS: the tree came back whole through the public "
		       "API\n");
	return failures == 0 ? 0 : 1;
}

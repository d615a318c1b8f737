/* SPDX-License-Identifier: MIT */
/*
 * compare.c - walking the two sides together and saying how they differ.
 *
 * Both sides give their entries depth first, each directory's names in
 * byte order, so paths come in the order path_order defines, and the walk
 * is a merge: the smaller head is on one side only; equal heads are a
 * pair, compared attribute by attribute. An entry that is a directory on
 * one side only is reported once: what lies below it is counted, not
 * listed.
 *
 * Every difference is one line on stdout, "PATH: what", in walk order,
 * with the old value first; a summary line ends the report. A side that
 * fails (a damaged image, an unreadable entry) ends the walk: the verdict
 * is then an error, whatever was printed before.
 */
#include "config.h"

#include "sqfsdiff.h"
#include "common/print.h"
#include "sqfs/compressor.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
	const sd_options_t *opt;
	sd_side_t *side[2];
	sd_extract_t *extract;
	/* lines printed, and entries with at least one */
	uint64_t differences;
	uint64_t entries_differing;
	uint64_t entries_compared;
	/* the current pair has been counted as differing */
	bool pair_differs;
} cmp_t;

static const char *const labels[2] = {"old", "new"};

/*
 * Depth-first order with each directory's names in byte order is byte
 * order on paths with '/' ranked below every other byte: "a" < "a/b" <
 * "a-c" ('-' is 0x2d, below '/', but "a" is a prefix of "a-c" and its
 * subtree comes first).
 */
static int path_order(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x != '\0' && *x == *y) {
		++x;
		++y;
	}
	if (*x == *y)
		return 0;
	if (*x == '\0')
		return -1;
	if (*y == '\0')
		return 1;
	if (*x == '/')
		return -1;
	if (*y == '/')
		return 1;
	return *x < *y ? -1 : 1;
}

/* Whether path lies below dir. */
static bool is_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 0)
		return path[0] != '\0';
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/*
 * Paths, link targets and xattr keys are printed straight to stdout, byte
 * by byte, with bytes that would break a line as \ooo: no buffer, so
 * nothing is cut, however long (a directory side's paths have no bound,
 * an image's hardly any).
 */
static void put_quoted(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0';
	     ++p) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			printf("\\%03o", *p);
		else
			putchar(*p);
	}
}

/* The path as printed: from the root, "/" for the root itself, quoted. */
static void put_shown(const char *path)
{
	putchar('/');
	put_quoted(path);
}

/* A hard link's group as printed: the first member's path, or "none". */
static void put_link(const char *first)
{
	if (first != NULL)
		put_shown(first);
	else
		fputs("none", stdout);
}

/* Start a difference's line with its path, and count it. */
static void differ_begin(cmp_t *c, const char *path)
{
	put_shown(path);
	fputs(": ", stdout);
	c->differences += 1;
	if (!c->pair_differs) {
		c->pair_differs = true;
		c->entries_differing += 1;
	}
}

static void differ(cmp_t *c, const char *path, const char *fmt, ...)
{
	va_list ap;

	differ_begin(c, path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "directory";
	case S_IFREG:
		return "regular file";
	case S_IFLNK:
		return "symbolic link";
	case S_IFBLK:
		return "block device";
	case S_IFCHR:
		return "character device";
	case S_IFIFO:
		return "named pipe";
	case S_IFSOCK:
		return "socket";
	default:
		return "unknown type";
	}
}

/* ---- contents ------------------------------------------------------------ */

/* The offset of the first byte of p[0..n) that is not zero, or n. */
static size_t first_nonzero(const uint8_t *p, size_t n)
{
	size_t i = 0;

	/* memcmp against the data shifted by one byte is all zeros if
	 * and only if the first byte is zero and every byte equals the
	 * next: fast, without a buffer of zeros */
	if (n > 0 && p[0] == 0 && memcmp(p, p + 1, n - 1) == 0)
		return n;
	while (i < n && p[i] == 0)
		++i;
	return i;
}

/*
 * Compare the head files' data run by run; the two sides cut it in runs
 * of their own (block sizes differ between images, a directory is read
 * in chunks and its holes are single runs), so each run is compared as
 * far as the other reaches. Zeros against zeros cost
 * nothing. Returns 0 with *first_diff UINT64_MAX if equal, or the offset
 * of the first byte that differs; -1 after an error.
 */
static int compare_data(cmp_t *c, uint64_t size, uint64_t *first_diff)
{
	sqfs_data_run_t run[2];
	uint64_t left[2] = {0, 0};
	bool ended[2] = {false, false};
	uint64_t pos = 0;

	*first_diff = UINT64_MAX;
	for (;;) {
		const uint8_t *a, *b;
		uint64_t n, i;

		for (int k = 0; k < 2; ++k) {
			while (left[k] == 0 && !ended[k]) {
				int ret = sd_side_read(c->side[k], &run[k]);

				if (ret < 0)
					return -1;
				if (ret > 0)
					ended[k] = true;
				else
					left[k] = run[k].size;
			}
		}
		if (ended[0] || ended[1])
			break;
		n = left[0] < left[1] ? left[0] : left[1];
		a = run[0].data;
		b = run[1].data;
		if (a == NULL && b == NULL)
			i = n;
		/* a run with data is no longer than a block: n fits */
		else if (a == NULL)
			i = first_nonzero(b, (size_t)n);
		else if (b == NULL)
			i = first_nonzero(a, (size_t)n);
		else if (memcmp(a, b, (size_t)n) == 0)
			i = n;
		else
			for (i = 0; a[i] == b[i]; ++i)
				;
		if (i < n) {
			*first_diff = pos + i;
			return 0;
		}
		for (int k = 0; k < 2; ++k) {
			if (run[k].data != NULL)
				run[k].data += n;
			left[k] -= n;
		}
		pos += n;
	}
	/* one ended early: a directory's file that shrank while read (an
	 * image's block list is checked against its size) */
	if (!ended[0] || !ended[1] || pos != size)
		*first_diff = pos;
	return 0;
}

/* ---- attributes ---------------------------------------------------------- */

static void print_value(const sqfs_xattr_t *x)
{
	/* text as text, anything else as hex */
	bool text = true;

	for (size_t i = 0; i < x->size; ++i) {
		unsigned char ch = ((const unsigned char *)x->value)[i];

		if ((ch < 0x20 || ch > 0x7e) && !(i + 1 == x->size && ch == 0))
			text = false;
	}
	if (text && x->size > 0) {
		printf("\"");
		for (size_t i = 0; i < x->size; ++i) {
			char ch = ((const char *)x->value)[i];

			if (ch == '\0')
				break;
			if (ch == '"' || ch == '\\')
				putchar('\\');
			putchar(ch);
		}
		printf("\"");
		return;
	}
	printf("0x");
	for (size_t i = 0; i < x->size; ++i)
		printf("%02X", ((const unsigned char *)x->value)[i]);
}

static int compare_xattrs(cmp_t *c, const char *path)
{
	const sqfs_xattr_t *l[2];
	size_t n[2], i = 0, j = 0;

	if (sd_side_xattrs(c->side[0], &l[0], &n[0]) != 0 ||
	    sd_side_xattrs(c->side[1], &l[1], &n[1]) != 0)
		return -1;
	while (i < n[0] || j < n[1]) {
		int o;

		if (i == n[0])
			o = 1;
		else if (j == n[1])
			o = -1;
		else
			o = strcmp(l[0][i].key, l[1][j].key);
		if (o < 0) {
			differ_begin(c, path);
			fputs("xattr ", stdout);
			put_quoted(l[0][i].key);
			fputs(": only in old\n", stdout);
			++i;
		} else if (o > 0) {
			differ_begin(c, path);
			fputs("xattr ", stdout);
			put_quoted(l[1][j].key);
			fputs(": only in new\n", stdout);
			++j;
		} else {
			if (l[0][i].size != l[1][j].size ||
			    memcmp(l[0][i].value, l[1][j].value,
				   l[0][i].size) != 0) {
				differ_begin(c, path);
				fputs("xattr ", stdout);
				put_quoted(l[0][i].key);
				fputs(": ", stdout);
				print_value(&l[0][i]);
				printf(" -> ");
				print_value(&l[1][j]);
				putchar('\n');
			}
			++i;
			++j;
		}
	}
	return 0;
}

static int extract_both(cmp_t *c)
{
	if (c->extract == NULL)
		return 0;
	for (int i = 0; i < 2; ++i) {
		if (sd_side_rewind(c->side[i]) != 0 ||
		    sd_extract_file(c->extract, c->side[i], i) != 0)
			return -1;
	}
	return 0;
}

/* A pair of entries at the same path. */
static int compare_pair(cmp_t *c, const sqfs_entry_t *a, const sqfs_entry_t *b)
{
	unsigned int fl = c->opt->flags;
	const char *path = a->path;
	uint32_t type = a->mode & S_IFMT;
	bool same_link;

	c->pair_differs = false;
	c->entries_compared += 1;

	if (type != (b->mode & S_IFMT)) {
		differ(c, path, "type: %s -> %s", type_name(a->mode),
		       type_name(b->mode));
		return 0;
	}
	if (!(fl & SD_NO_PERMS) && (a->mode & 07777) != (b->mode & 07777))
		differ(c, path, "mode: %04o -> %04o",
		       (unsigned int)(a->mode & 07777),
		       (unsigned int)(b->mode & 07777));
	if (!(fl & SD_NO_OWNER) && (a->uid != b->uid || a->gid != b->gid))
		differ(c, path,
		       "owner: %" PRIu32 ":%" PRIu32 " -> %" PRIu32 ":%" PRIu32,
		       a->uid, a->gid, b->uid, b->gid);
	if ((fl & SD_TIMESTAMPS) && a->mtime != b->mtime)
		differ(c, path, "mtime: %" PRId64 " -> %" PRId64, a->mtime,
		       b->mtime);
	if ((fl & SD_INODE_NUMBERS) && a->inode_number != b->inode_number)
		differ(c, path, "inode number: %" PRIu64 " -> %" PRIu64,
		       a->inode_number, b->inode_number);

	/* hard-link groups: each member names the group's first member,
	 * and both sides meet the entries in one order, so two trees with
	 * the same groups name the same first members */
	same_link =
	    (a->hard_link == NULL) == (b->hard_link == NULL) &&
	    (a->hard_link == NULL || strcmp(a->hard_link, b->hard_link) == 0);
	if (!same_link) {
		differ_begin(c, path);
		fputs("hard link to: ", stdout);
		put_link(a->hard_link);
		fputs(" -> ", stdout);
		put_link(b->hard_link);
		putchar('\n');
	}

	switch (type) {
	case S_IFLNK:
		if (strcmp(a->symlink_target, b->symlink_target) != 0) {
			differ_begin(c, path);
			fputs("link target: '", stdout);
			put_quoted(a->symlink_target);
			fputs("' -> '", stdout);
			put_quoted(b->symlink_target);
			fputs("'\n", stdout);
		}
		break;
	case S_IFBLK:
	case S_IFCHR:
		if (a->rdev_major != b->rdev_major ||
		    a->rdev_minor != b->rdev_minor)
			differ(c, path,
			       "device: %" PRIu32 ":%" PRIu32 " -> %" PRIu32
			       ":%" PRIu32,
			       a->rdev_major, a->rdev_minor, b->rdev_major,
			       b->rdev_minor);
		break;
	case S_IFREG:
		if (a->size != b->size) {
			differ(c, path, "size: %" PRIu64 " -> %" PRIu64,
			       a->size, b->size);
			if (extract_both(c) != 0)
				return -1;
		} else if (!(fl & SD_NO_CONTENTS) &&
			   !(same_link && a->hard_link != NULL)) {
			uint64_t at;

			if (compare_data(c, a->size, &at) != 0)
				return -1;
			if (at != UINT64_MAX) {
				differ(c, path,
				       "contents differ from byte %" PRIu64,
				       at);
				if (extract_both(c) != 0)
					return -1;
			}
		}
		break;
	default:
		break;
	}
	return compare_xattrs(c, path);
}

/* ---- the walk ------------------------------------------------------------ */

/* Pop side i's head, the directory dir (a copy of its path, which goes
 * with the pop), and everything below it, counted in *below. */
static int pop_subtree(cmp_t *c, int i, const char *dir, uint64_t *below)
{
	const sqfs_entry_t *e;
	int ret;

	*below = 0;
	if (sd_side_pop(c->side[i]) != 0)
		return -1;
	for (;;) {
		ret = sd_side_head(c->side[i], &e);
		if (ret != 0)
			return ret < 0 ? -1 : 0;
		if (!is_below(e->path, dir))
			return 0;
		*below += 1;
		if (sd_side_pop(c->side[i]) != 0)
			return -1;
	}
}

/* The head of side i exists there only: report it; a directory is one
 * line, with what lies below it counted, not listed. */
static int one_sided(cmp_t *c, int i, const sqfs_entry_t *e)
{
	sd_side_t *side = c->side[i];
	uint64_t below;
	char *dir;
	int ret;

	c->pair_differs = false;
	if (!S_ISDIR(e->mode)) {
		differ(c, e->path, "only in %s (%s)", labels[i],
		       type_name(e->mode));
		if (S_ISREG(e->mode) && c->extract != NULL &&
		    sd_extract_file(c->extract, side, i) != 0)
			return -1;
		return sd_side_pop(side);
	}
	dir = strdup(e->path);
	if (dir == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	ret = pop_subtree(c, i, dir, &below);
	if (ret == 0)
		differ(c, dir,
		       "only in %s (directory, %" PRIu64 " entries below)",
		       labels[i], below);
	free(dir);
	return ret;
}

static const char *comp_name(uint16_t id)
{
	const char *name = sqfs_compressor_name(id);

	return name != NULL ? name : "unknown";
}

static void compare_super(cmp_t *c)
{
	const sqfs_super_t *a = sd_side_super(c->side[0]);
	const sqfs_super_t *b = sd_side_super(c->side[1]);

	c->pair_differs = false;
#define SUPER_FIELD(field, what)                                               \
	do {                                                                   \
		if (a->field != b->field) {                                    \
			printf("superblock: %s: %" PRIu64 " -> %" PRIu64 "\n", \
			       what, (uint64_t)a->field, (uint64_t)b->field);  \
			c->differences += 1;                                   \
		}                                                              \
	} while (0)
	if (a->compression_id != b->compression_id) {
		printf("superblock: compressor: %s -> %s\n",
		       comp_name(a->compression_id),
		       comp_name(b->compression_id));
		c->differences += 1;
	}
	SUPER_FIELD(block_size, "block size");
	SUPER_FIELD(flags, "flags");
	SUPER_FIELD(inode_count, "inode count");
	SUPER_FIELD(fragment_entry_count, "fragment blocks");
	SUPER_FIELD(id_count, "ids");
	SUPER_FIELD(modification_time, "modification time");
	SUPER_FIELD(bytes_used, "bytes used");
	SUPER_FIELD(version_major, "version major");
	SUPER_FIELD(version_minor, "version minor");
#undef SUPER_FIELD
}

int sd_compare(const sd_options_t *opt, sd_side_t *old_side,
	       sd_side_t *new_side)
{
	cmp_t c;
	int ret = 0;

	memset(&c, 0, sizeof(c));
	c.opt = opt;
	c.side[0] = old_side;
	c.side[1] = new_side;
	if (opt->extract_dir != NULL) {
		c.extract = sd_extract_open(opt->extract_dir);
		if (c.extract == NULL)
			return SD_EXIT_ERROR;
	}
	if (opt->flags & SD_SUPER)
		compare_super(&c);

	for (;;) {
		const sqfs_entry_t *a = NULL, *b = NULL;
		int ra, rb, o;

		ra = sd_side_head(old_side, &a);
		if (ra < 0)
			goto fail;
		rb = sd_side_head(new_side, &b);
		if (rb < 0)
			goto fail;
		if (ra > 0 && rb > 0)
			break;
		if (ra > 0)
			o = 1;
		else if (rb > 0)
			o = -1;
		else
			o = path_order(a->path, b->path);

		if (o != 0) {
			ret = one_sided(&c, o < 0 ? 0 : 1, o < 0 ? a : b);
		} else {
			ret = compare_pair(&c, a, b);
			if (ret == 0 && S_ISDIR(a->mode) != S_ISDIR(b->mode)) {
				/* one directory, one not: what lies below it
				 * is not compared, and not listed */
				int i = S_ISDIR(a->mode) ? 0 : 1;
				char *dir = strdup(a->path);
				uint64_t below;

				if (dir == NULL) {
					tool_error(NULL, "out of memory");
					goto fail;
				}
				ret = sd_side_pop(c.side[1 - i]);
				if (ret == 0)
					ret = pop_subtree(&c, i, dir, &below);
				free(dir);
			} else if (ret == 0) {
				ret = sd_side_pop(old_side);
				if (ret == 0)
					ret = sd_side_pop(new_side);
			}
		}
		if (ret != 0)
			goto fail;
	}
	sd_extract_close(c.extract);
	if (c.differences == 0) {
		printf("equal: %" PRIu64 " entries compared\n",
		       c.entries_compared);
		return SD_EXIT_EQUAL;
	}
	printf("different: %" PRIu64 " differences, %" PRIu64
	       " entries differ, %" PRIu64 " entries on both sides\n",
	       c.differences, c.entries_differing, c.entries_compared);
	return SD_EXIT_DIFFERENT;
fail:
	sd_extract_close(c.extract);
	fflush(stdout);
	tool_error(NULL, "comparison stopped by the error above; no verdict");
	return SD_EXIT_ERROR;
}

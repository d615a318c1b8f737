/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "support/test_util.h"
#include "writer/writer_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

void wt_tmp_init(wt_tmp_t *tmp)
{
	assert_int_equal(
	    test_mkdtemp(tmp->dir, sizeof(tmp->dir), "sqfs-writer"), 0);
	snprintf(tmp->image, sizeof(tmp->image), "%s/image.sqfs", tmp->dir);
	snprintf(tmp->out, sizeof(tmp->out), "%s/out", tmp->dir);
}

void wt_tmp_cleanup(wt_tmp_t *tmp)
{
	/* WT_KEEP_TMP=1 keeps the images for a look after a failure. */
	if (getenv("WT_KEEP_TMP") != NULL)
		print_message("kept %s\n", tmp->dir);
	else if (tmp->dir[0] != '\0')
		test_remove_tree(tmp->dir);
	tmp->dir[0] = '\0';
}

void wt_options(sqfs_writer_options_t *opt)
{
	sqfs_compressor_id_t id = sqfs_compressor_default();

	sqfs_writer_options_init(opt);
	if (sqfs_compressor_is_available(SQFS_COMP_GZIP))
		id = SQFS_COMP_GZIP;
	assert_int_equal(sqfs_compressor_config_init(&opt->compressor, id,
						     opt->block_size, 0),
			 0);
	if (id == SQFS_COMP_GZIP)
		opt->compressor.opt.gzip.level = 1;
}

sqfs_writer_t *wt_create(const char *path, const sqfs_writer_options_t *opt,
			 sqfs_file_t **file)
{
	sqfs_writer_t *wr = NULL;

	assert_int_equal(sqfs_file_open(file, path, SQFS_FILE_OPEN_OVERWRITE),
			 0);
	assert_int_equal(sqfs_writer_create(*file, opt, &wr, NULL), 0);
	assert_non_null(wr);
	return wr;
}

sqfs_entry_t wt_make_entry(const char *path, uint32_t mode, uint32_t uid,
			   uint32_t gid, int64_t mtime)
{
	sqfs_entry_t e;

	sqfs_entry_init(&e, path, mode, uid, gid, mtime);
	return e;
}

int wt_add_link(sqfs_writer_t *wr, const char *path, const char *target)
{
	sqfs_entry_t e;

	/* the attributes are the target's: only the two paths count */
	sqfs_entry_init(&e, path, 0, 0, 0, 0);
	e.hard_link = target;
	return sqfs_writer_add(wr, &e, 0);
}

char *wt_run(const char *cmd, int *status)
{
	size_t size = 0, cap = 4096;
	char *buf = malloc(cap);
	FILE *fp;
	int ret;

	assert_non_null(buf);
	fp = popen(cmd, "r");
	assert_non_null(fp);

	for (;;) {
		size_t n;

		if (cap - size < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + size, 1, cap - size - 1, fp);
		if (n == 0)
			break;
		size += n;
	}
	buf[size] = '\0';

	ret = pclose(fp);
	*status = (ret >= 0 && WIFEXITED(ret)) ? WEXITSTATUS(ret) : -1;
	return buf;
}

bool wt_have(const char *tool)
{
	return access(tool, X_OK) == 0;
}

/* ---- model ----------------------------------------------------------------
 */

void wt_model_init(wt_model_t *m)
{
	memset(m, 0, sizeof(*m));
}

static void entry_free(wt_entry_t *e)
{
	free(e->path);
	free(e->target);
	free(e->link_of);
}

void wt_model_free(wt_model_t *m)
{
	for (size_t i = 0; i < m->count; ++i)
		entry_free(&m->entries[i]);
	free(m->entries);
	memset(m, 0, sizeof(*m));
}

wt_entry_t *wt_model_find(wt_model_t *m, const char *path)
{
	for (size_t i = 0; i < m->count; ++i) {
		if (strcmp(m->entries[i].path, path) == 0)
			return &m->entries[i];
	}
	return NULL;
}

static wt_entry_t *model_put(wt_model_t *m, wt_entry_t *e, const char *path,
			     uint32_t mode, uint32_t uid, uint32_t gid,
			     uint32_t mtime)
{
	if (e == NULL) {
		if (m->count == m->capacity) {
			m->capacity = m->capacity ? m->capacity * 2 : 64;
			m->entries =
			    realloc(m->entries, m->capacity * sizeof(*e));
			assert_non_null(m->entries);
		}
		e = &m->entries[m->count++];
	} else {
		entry_free(e);
	}

	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	assert_non_null(e->path);
	e->mode = mode;
	e->uid = uid;
	e->gid = gid;
	e->mtime = mtime;
	return e;
}

wt_entry_t *wt_model_set(wt_model_t *m, const char *path, uint32_t mode,
			 uint32_t uid, uint32_t gid, uint32_t mtime)
{
	return model_put(m, wt_model_find(m, path), path, mode, uid, gid,
			 mtime);
}

wt_entry_t *wt_model_add(wt_model_t *m, const char *path, uint32_t mode,
			 uint32_t uid, uint32_t gid, uint32_t mtime)
{
	return model_put(m, NULL, path, mode, uid, gid, mtime);
}

void wt_model_remove(wt_model_t *m, const char *path)
{
	size_t len = strlen(path), out = 0;

	for (size_t i = 0; i < m->count; ++i) {
		wt_entry_t *e = &m->entries[i];

		if (strcmp(e->path, path) == 0 ||
		    (strncmp(e->path, path, len) == 0 && e->path[len] == '/')) {
			entry_free(e);
			continue;
		}
		m->entries[out++] = *e;
	}
	m->count = out;
}

void wt_xattr_set(wt_xattr_set_t *set, const char *const *kv)
{
	set->count = 0;
	for (; kv != NULL && *kv != NULL; ++kv) {
		const char *eq = strchr(*kv, '=');
		size_t klen;

		assert_non_null(eq);
		assert_true(set->count < WT_MAX_XATTRS);
		klen = (size_t)(eq - *kv);
		assert_true(klen < sizeof(set->keys[0]));
		memcpy(set->keys[set->count], *kv, klen);
		set->keys[set->count][klen] = '\0';
		set->x[set->count].key = set->keys[set->count];
		set->x[set->count].value = eq + 1;
		set->x[set->count].size = strlen(eq + 1);
		set->count += 1;
	}
}

void wt_write_file(sqfs_writer_t *wr, const wt_entry_t *e,
		   const sqfs_xattr_t *xattrs, size_t xattr_count)
{
	sqfs_entry_t entry =
	    wt_make_entry(e->path, e->mode, e->uid, e->gid, e->mtime);
	uint64_t data_size = e->size - e->hole_size;
	uint8_t *data = NULL;
	size_t pos = 0, step = 1;

	entry.xattrs = xattrs;
	entry.xattr_count = xattr_count;
	/* the size up front, as tar2sqfs gives it: checked, never stored */
	entry.size = e->size;
	assert_int_equal(sqfs_writer_add(wr, &entry, e->file_flags), 0);

	if (e->hole_size > 0)
		assert_int_equal(sqfs_writer_append_hole(wr, e->hole_size), 0);

	if (data_size > 0) {
		data = test_make_data((size_t)data_size, e->kind, e->seed);
		assert_non_null(data);
	}
	/* Pieces of growing, odd sizes cross block boundaries anywhere. */
	while (pos < data_size) {
		size_t n = step;

		if (n > data_size - pos)
			n = (size_t)(data_size - pos);
		assert_int_equal(sqfs_writer_append(wr, data + pos, n), 0);
		pos += n;
		step = step * 3 + 7;
	}
	free(data);

	assert_int_equal(sqfs_writer_end_file(wr), 0);
}

/* ---- checking an image -----------------------------------------------------
 */

static void mode_string(uint32_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";

	switch (mode & S_IFMT) {
	case S_IFDIR:
		out[0] = 'd';
		break;
	case S_IFLNK:
		out[0] = 'l';
		break;
	case S_IFCHR:
		out[0] = 'c';
		break;
	case S_IFBLK:
		out[0] = 'b';
		break;
	case S_IFIFO:
		out[0] = 'p';
		break;
	case S_IFSOCK:
		out[0] = 's';
		break;
	default:
		out[0] = '-';
		break;
	}
	for (int i = 0; i < 9; ++i)
		out[i + 1] = (mode & (0400u >> i)) ? rwx[i] : '-';
	if (mode & S_ISUID)
		out[3] = (mode & 0100) ? 's' : 'S';
	if (mode & S_ISGID)
		out[6] = (mode & 0010) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[9] = (mode & 0001) ? 't' : 'T';
	out[10] = '\0';
}

/* Paths in listing order: '/' sorts before every byte of a name. */
static int compare_paths(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;

	for (;; ++x, ++y) {
		int cx = *x == '/' ? 1 : *x, cy = *y == '/' ? 1 : *y;

		if (cx != cy || cx == 0)
			return cx - cy;
	}
}

static int compare_entries(const void *a, const void *b)
{
	const wt_entry_t *x = *(const wt_entry_t *const *)a;
	const wt_entry_t *y = *(const wt_entry_t *const *)b;

	return compare_paths(&x->path, &y->path);
}

/* The attributes an entry shows: a hard link's are its target's. */
static const wt_entry_t *shown(const wt_model_t *m, const wt_entry_t *e)
{
	if (e->link_of == NULL)
		return e;
	for (size_t i = 0; i < m->count; ++i) {
		if (strcmp(m->entries[i].path, e->link_of) == 0)
			return shown(m, &m->entries[i]);
	}
	fail_msg("model: %s links to missing %s", e->path, e->link_of);
	return NULL;
}

static char *expected_line(const wt_model_t *m, const wt_entry_t *le)
{
	const wt_entry_t *e = shown(m, le);
	char mode[11], size[64], when[32], *line;
	time_t t = (time_t)e->mtime;
	struct tm tm;
	size_t len;

	mode_string(e->mode, mode);
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		strcpy(size, "*");
		break;
	case S_IFLNK:
		snprintf(size, sizeof(size), "%zu", strlen(e->target));
		break;
	case S_IFCHR:
	case S_IFBLK: {
		/* unsquashfs 4.5.1 shows the raw value split the old way
		 * (signed, 8-bit minor); the same for numbers below
		 * 4096:256. */
		uint32_t rdev = (e->major << 8) | (e->minor & 0xFF) |
				((e->minor & ~0xFFu) << 12);

		snprintf(size, sizeof(size), "%d,%u", (int32_t)rdev >> 8,
			 rdev & 0xFF);
		break;
	}
	case S_IFREG:
		snprintf(size, sizeof(size), "%llu",
			 (unsigned long long)e->size);
		break;
	default:
		strcpy(size, "0");
		break;
	}
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);

	len = strlen(le->path) + (e->target ? strlen(e->target) : 0) + 200;
	line = malloc(len);
	assert_non_null(line);
	snprintf(line, len, "%s %u/%u %s %s squashfs-root%s%s%s%s", mode,
		 e->uid, e->gid, size, when, le->path[0] ? "/" : "", le->path,
		 (e->mode & S_IFMT) == S_IFLNK ? " -> " : "",
		 (e->mode & S_IFMT) == S_IFLNK ? e->target : "");
	return line;
}

/* Collapse blanks, drop the blank after a device's comma and a
 * directory's size, so lines compare independent of column widths. */
static void normalise_line(char *line)
{
	char *out = line, *p = line;
	bool blank = false;

	for (; *p != '\0'; ++p) {
		if (*p == ' ' || *p == '\t') {
			blank = true;
			continue;
		}
		if (blank && out != line && out[-1] != ',')
			*out++ = ' ';
		blank = false;
		*out++ = *p;
	}
	*out = '\0';

	if (line[0] == 'd') {
		/* "mode owner size date time path": size -> "*" */
		char *s1 = strchr(line, ' '), *s2, *s3;

		if (s1 != NULL && (s2 = strchr(s1 + 1, ' ')) != NULL &&
		    (s3 = strchr(s2 + 1, ' ')) != NULL) {
			s2[1] = '*';
			memmove(s2 + 2, s3, strlen(s3) + 1);
		}
	}
}

void wt_check_listing(const wt_tmp_t *tmp, const wt_model_t *m)
{
	char cmd[PATH_MAX + 100], *out, *line, *save = NULL;
	const wt_entry_t **sorted;
	size_t i = 0;
	int status;

	sorted = calloc(m->count + 1, sizeof(sorted[0]));
	assert_non_null(sorted);
	for (size_t k = 0; k < m->count; ++k)
		sorted[k] = &m->entries[k];
	qsort(sorted, m->count, sizeof(sorted[0]), compare_entries);

	snprintf(cmd, sizeof(cmd), "%s -lln -UTC -n '%s' 2>&1", UNSQUASHFS,
		 tmp->image);
	out = wt_run(cmd, &status);
	if (status != 0)
		fail_msg("unsquashfs -lln failed (%d):\n%s", status, out);

	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *expect;

		normalise_line(line);
		if (line[0] == '\0')
			continue;
		if (i >= m->count)
			fail_msg("unexpected listing line: %s", line);
		expect = expected_line(m, sorted[i]);
		if (strcmp(expect, line) != 0)
			fail_msg("listing line %zu:\n  got    %s\n  expect %s",
				 i, line, expect);
		free(expect);
		++i;
	}
	if (i != m->count)
		fail_msg("listing has %zu lines, expected %zu", i, m->count);

	free(out);
	free(sorted);
}

static void check_content(const char *path, const wt_entry_t *e)
{
	uint64_t data_size = e->size - e->hole_size;
	uint8_t *expect = NULL, *buf;
	struct stat sb;
	int fd;

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	assert_int_equal((uint64_t)sb.st_size, e->size);

	if (e->hole_size > ((uint64_t)1 << 30)) {
		/* Not reading gigabytes of zeros: the extraction must have
		 * kept the hole. */
		assert_true((uint64_t)sb.st_blocks * 512 <
			    data_size + ((uint64_t)64 << 20));
	} else if (e->hole_size > 0) {
		uint8_t *zeros = calloc(1, (size_t)e->hole_size);

		buf = malloc((size_t)e->hole_size);
		assert_non_null(zeros);
		assert_non_null(buf);
		assert_int_equal(pread(fd, buf, (size_t)e->hole_size, 0),
				 (ssize_t)e->hole_size);
		assert_memory_equal(buf, zeros, (size_t)e->hole_size);
		free(buf);
		free(zeros);
	}

	if (data_size > 0) {
		expect = test_make_data((size_t)data_size, e->kind, e->seed);
		buf = malloc((size_t)data_size);
		assert_non_null(expect);
		assert_non_null(buf);
		assert_int_equal(
		    pread(fd, buf, (size_t)data_size, (off_t)e->hole_size),
		    (ssize_t)data_size);
		if (memcmp(buf, expect, (size_t)data_size) != 0)
			fail_msg("%s: contents differ", e->path);
		free(buf);
		free(expect);
	}
	close(fd);
}

static void check_xattrs(const char *path, const wt_entry_t *e, bool root)
{
	char list[4096], value[4096];
	size_t expected = 0, found = 0;
	ssize_t len;

	for (const char *const *kv = e->xattrs; kv && *kv; ++kv) {
		const char *eq = strchr(*kv, '=');
		char key[300];

		if (!root && strncmp(*kv, "user.", 5) != 0)
			continue;
		memcpy(key, *kv, (size_t)(eq - *kv));
		key[eq - *kv] = '\0';
		len = lgetxattr(path, key, value, sizeof(value));
		if (len < 0)
			fail_msg("%s: xattr %s missing", e->path, key);
		assert_int_equal((size_t)len, strlen(eq + 1));
		assert_memory_equal(value, eq + 1, (size_t)len);
		++expected;
	}

	len = llistxattr(path, list, sizeof(list));
	if (len < 0 && (errno == ENOTSUP || errno == EPERM))
		return;
	assert_true(len >= 0);
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(list + i) + 1) {
		if (strncmp(list + i, "user.", 5) == 0 ||
		    strncmp(list + i, "trusted.", 8) == 0 ||
		    strncmp(list + i, "security.", 9) == 0)
			++found;
	}
	if (found != expected)
		fail_msg("%s: %zu xattrs, expected %zu", e->path, found,
			 expected);
}

static size_t extracted_count;

static int count_one(const char *path, const struct stat *sb, int flag,
		     struct FTW *ftw)
{
	(void)path;
	(void)sb;
	(void)flag;
	(void)ftw;
	extracted_count += 1;
	return 0;
}

static void check_extracted(const wt_tmp_t *tmp, const wt_model_t *m)
{
	bool root = geteuid() == 0;
	char cmd[2 * PATH_MAX + 100], *out;
	int status;

	snprintf(cmd, sizeof(cmd), "%s -n -d '%s' '%s' 2>&1", UNSQUASHFS,
		 tmp->out, tmp->image);
	out = wt_run(cmd, &status);
	if (root && status != 0)
		fail_msg("unsquashfs extraction failed (%d):\n%s", status, out);
	free(out);

	for (size_t i = 0; i < m->count; ++i) {
		const wt_entry_t *le = &m->entries[i], *e = shown(m, le);
		uint32_t type = e->mode & S_IFMT;
		char path[2 * PATH_MAX], buf[8192];
		struct stat sb;

		if (!root && (type == S_IFCHR || type == S_IFBLK))
			continue;

		snprintf(path, sizeof(path), "%s%s%s", tmp->out,
			 le->path[0] ? "/" : "", le->path);
		if (lstat(path, &sb) != 0)
			fail_msg("%s: not extracted", le->path);
		if ((sb.st_mode & S_IFMT) != type)
			fail_msg("%s: type %o, expected %o", le->path,
				 sb.st_mode & S_IFMT, type);

		if (type != S_IFLNK &&
		    (sb.st_mode & 07777) != (e->mode & 07777))
			fail_msg("%s: mode %o, expected %o", le->path,
				 sb.st_mode & 07777, e->mode & 07777);
		if (root && (sb.st_uid != e->uid || sb.st_gid != e->gid))
			fail_msg("%s: owner %u/%u, expected %u/%u", le->path,
				 sb.st_uid, sb.st_gid, e->uid, e->gid);
		if (type != S_IFLNK && (uint64_t)sb.st_mtime != e->mtime)
			fail_msg("%s: mtime %lld, expected %u", le->path,
				 (long long)sb.st_mtime, e->mtime);

		switch (type) {
		case S_IFREG:
			if (e->size > 0)
				check_content(path, e);
			else if (sb.st_size != 0)
				fail_msg("%s: not empty", le->path);
			break;
		case S_IFLNK: {
			ssize_t n = readlink(path, buf, sizeof(buf));

			assert_true(n > 0);
			assert_int_equal((size_t)n, strlen(e->target));
			assert_memory_equal(buf, e->target, (size_t)n);
			break;
		}
		case S_IFCHR:
		case S_IFBLK:
			assert_int_equal(major(sb.st_rdev), e->major);
			assert_int_equal(minor(sb.st_rdev), e->minor);
			break;
		default:
			break;
		}

		if (le->link_of != NULL) {
			char tpath[2 * PATH_MAX];
			struct stat tsb;

			snprintf(tpath, sizeof(tpath), "%s/%s", tmp->out,
				 e->path);
			assert_int_equal(lstat(tpath, &tsb), 0);
			if (tsb.st_ino != sb.st_ino || sb.st_nlink < 2)
				fail_msg("%s: not a hard link of %s", le->path,
					 e->path);
		}

		if (type != S_IFLNK)
			check_xattrs(path, e, root);
	}

	extracted_count = 0;
	assert_int_equal(nftw(tmp->out, count_one, 64, FTW_PHYS), 0);
	if (extracted_count != m->count)
		fail_msg("%zu entries extracted, expected %zu", extracted_count,
			 m->count);
}

void wt_check_image(const wt_tmp_t *tmp, const wt_model_t *m)
{
	if (!wt_have(UNSQUASHFS))
		skip();
	wt_check_listing(tmp, m);
	check_extracted(tmp, m);
}

/* One line of rdsquashfs -l: mode, owner, size, name [-> target]. */
static char *expected_rd_line(const wt_model_t *m, const wt_entry_t *le)
{
	const wt_entry_t *e = shown(m, le);
	const char *name = strrchr(le->path, '/');
	char mode[11], size[64], *line;
	size_t len;

	name = name != NULL ? name + 1 : le->path;
	mode_string(e->mode, mode);
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		strcpy(size, "*");
		break;
	case S_IFLNK:
		snprintf(size, sizeof(size), "%zu", strlen(e->target));
		break;
	case S_IFCHR:
	case S_IFBLK:
		snprintf(size, sizeof(size), "%u:%u", e->major, e->minor);
		break;
	case S_IFREG: {
		/* rdsquashfs divides by 1024, rounding, while above 1024. */
		static const char *const units[] = {"", "k", "M", "G", "T"};
		unsigned long long v = e->size;
		int u = 0;

		while (v > 1024 && u < 4) {
			v = (v + 512) / 1024;
			++u;
		}
		snprintf(size, sizeof(size), "%llu%s", v, units[u]);
		break;
	}
	default:
		strcpy(size, "0");
		break;
	}

	len = strlen(name) + (e->target ? strlen(e->target) : 0) + 100;
	line = malloc(len);
	assert_non_null(line);
	snprintf(line, len, "%s %u/%u %s %s%s%s", mode, e->uid, e->gid, size,
		 name, (e->mode & S_IFMT) == S_IFLNK ? " -> " : "",
		 (e->mode & S_IFMT) == S_IFLNK ? e->target : "");
	return line;
}

static bool is_child(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (len == 0)
		return path[0] != '\0' && strchr(path, '/') == NULL;
	return strncmp(path, dir, len) == 0 && path[len] == '/' &&
	       strchr(path + len + 1, '/') == NULL;
}

void wt_check_rd_list(const wt_tmp_t *tmp, const wt_model_t *m, const char *dir)
{
	char cmd[2 * PATH_MAX + 100], *out, *line, *save = NULL;
	const wt_entry_t **sorted;
	size_t count = 0, i = 0;
	int status;

	if (!wt_have(RDSQUASHFS))
		return;

	sorted = calloc(m->count + 1, sizeof(sorted[0]));
	assert_non_null(sorted);
	for (size_t k = 0; k < m->count; ++k) {
		if (is_child(m->entries[k].path, dir))
			sorted[count++] = &m->entries[k];
	}
	qsort(sorted, count, sizeof(sorted[0]), compare_entries);

	snprintf(cmd, sizeof(cmd), "%s -l '/%s' '%s' 2>&1", RDSQUASHFS, dir,
		 tmp->image);
	out = wt_run(cmd, &status);
	if (status != 0)
		fail_msg("rdsquashfs -l failed (%d):\n%s", status, out);

	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *expect;

		normalise_line(line);
		if (line[0] == '\0')
			continue;
		if (i >= count)
			fail_msg("unexpected rdsquashfs line: %s", line);
		expect = expected_rd_line(m, sorted[i]);
		if (strcmp(expect, line) != 0)
			fail_msg("rdsquashfs line %zu:\n  got    %s\n  expect "
				 "%s",
				 i, line, expect);
		free(expect);
		++i;
	}
	if (i != count)
		fail_msg("rdsquashfs lists %zu entries, expected %zu", i,
			 count);
	free(out);
	free(sorted);
}

char *wt_rd_stat(const char *image, const char *path, const char *field)
{
	char cmd[2 * PATH_MAX + 100], *out, *line, *save = NULL, *res = NULL;
	int status;

	snprintf(cmd, sizeof(cmd), "%s -s '%s' '%s' 2>&1", RDSQUASHFS, path,
		 image);
	out = wt_run(cmd, &status);
	if (status != 0)
		fail_msg("rdsquashfs -s %s failed (%d):\n%s", path, status,
			 out);

	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, field, strlen(field)) == 0) {
			res = strdup(line + strlen(field));
			break;
		}
	}
	free(out);
	return res;
}

bool wt_files_equal(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool equal = fa != NULL && fb != NULL;

	while (equal) {
		char ba[65536], bb[65536];
		size_t na = fread(ba, 1, sizeof(ba), fa);
		size_t nb = fread(bb, 1, sizeof(bb), fb);

		if (na != nb || memcmp(ba, bb, na) != 0)
			equal = false;
		if (na == 0)
			break;
	}
	if (fa != NULL)
		fclose(fa);
	if (fb != NULL)
		fclose(fb);
	return equal;
}

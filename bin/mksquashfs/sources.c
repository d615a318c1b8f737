/* SPDX-License-Identifier: MIT */
/*
 * sources.c - the sources of a mksquashfs command line merged into one
 * tree, as mksquashfs merges them (found by running mksquashfs 4.7.5):
 *
 * - One source that is a directory, without -keep-as-directory: its
 *   contents are the image's root, which takes the directory's own
 *   attributes.
 * - Otherwise (several sources, a file, a symlink, a device, or
 *   -keep-as-directory) the root is a new directory, mode 0777, owned by
 *   the user running the command, with the time of the run; each source
 *   is an entry of it under its last name. A name used already gets _1,
 *   _2 ... (named on stderr, as mksquashfs does).
 * - A source is taken as it is (lstat): a symlink is packed as a symlink,
 *   /dev/null as a character device; symlinks on the way to it are the
 *   user's and are followed. "-" first stands for no sources at all
 *   (the tree comes from -p and -pf, the root from a "/ d" definition;
 *   the other sources are ignored); elsewhere it is left out.
 *
 * Each directory source is walked by gensquashfs's scan (the checked walk
 * of sqfs/dir_source.h) below its own root, whose image name says where
 * it lands (gs_root_t). A source that is not a directory is an entry
 * below a root at its parent directory, opened again by its real name.
 */
#include "config.h"

#include "mksquashfs.h"
#include "util/fs_dir.h"
#include "util/fs_open.h"
#include "common/print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* The last name of a source path ("a/b/" is "b"), malloc'd; for "." and
 * ".." (and "/"), the name of the directory they are. */
static char *source_name(const char *source)
{
	size_t len = strlen(source);
	const char *start;
	char *name, *real;

	while (len > 1 && source[len - 1] == '/')
		--len;
	start = source + len;
	while (start > source && start[-1] != '/')
		--start;
	name = strndup(start, (size_t)(source + len - start));
	if (name == NULL || (strcmp(name, ".") != 0 &&
			     strcmp(name, "..") != 0 && name[0] != '/'))
		return name;
	free(name);
	real = realpath(source, NULL);
	if (real == NULL)
		return NULL;
	start = strrchr(real, '/');
	name = strdup(start != NULL && start[1] != '\0' ? start + 1 : "root");
	free(real);
	return name;
}

/* name, or name_1, name_2 ... if an entry of the root has it already. */
static char *unique_name(gs_entries_t *entries, gs_path_index_t *idx,
			 char *name)
{
	size_t *slot;
	char *alt;

	if (gs_path_index_reserve(idx, entries) != 0) {
		free(name);
		return NULL;
	}
	slot = gs_path_index_slot(idx, entries, name);
	if (*slot == SIZE_MAX)
		return name;
	for (unsigned long n = 1;; ++n) {
		if (asprintf(&alt, "%s_%lu", name, n) < 0) {
			free(name);
			return NULL;
		}
		fprintf(stderr,
			"Source directory entry %s already used! - trying "
			"%s\n",
			name, alt);
		slot = gs_path_index_slot(idx, entries, alt);
		if (*slot == SIZE_MAX) {
			free(name);
			return alt;
		}
		free(alt);
	}
}

/* Index the entries of the root added since *done. */
static void index_new(gs_entries_t *entries, gs_path_index_t *idx, size_t *done)
{
	for (; *done < entries->count; ++*done) {
		const char *path = entries->list[*done].path;
		size_t *slot;

		if (strchr(path, '/') != NULL || path[0] == '\0')
			continue;
		if (gs_path_index_reserve(idx, entries) != 0)
			continue;
		slot = gs_path_index_slot(idx, entries, path);
		if (*slot == SIZE_MAX)
			*slot = *done;
	}
}

/* The new root of several sources: 0777, the user's, now. */
static int add_new_root(gs_entries_t *entries)
{
	gs_entry_t *e;
	char *path = strdup("");

	if (path == NULL || (e = gs_entries_push(entries, path)) == NULL)
		return oom();
	e->st.mode = S_IFDIR | 0777;
	e->st.uid = (uint32_t)getuid();
	e->st.gid = (uint32_t)getgid();
	e->st.mtime = (int64_t)time(NULL);
	e->root = GS_ROOT_NONE;
	/* nothing on disk to read it from */
	e->from_listing = true;
	e->keep_time = true;
	return 0;
}

/* A directory source, walked below a root of its own. */
static int scan_dir(const mk_options_t *opt, mk_exclude_t *ex,
		    const char *source, const struct stat *st,
		    const char *image_name, gs_entries_t *entries)
{
	gs_scan_opts_t so;
	struct stat fst;
	int fd;

	fd = open(source, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr,
			"Cannot open source directory \"%s\" because %s\n",
			source, strerror(errno));
		return -1;
	}
	if (fstat(fd, &fst) != 0 || fst.st_dev != st->st_dev ||
	    fst.st_ino != st->st_ino) {
		fprintf(stderr,
			"Source directory \"%s\" was replaced while "
			"it was read\n",
			source);
		close(fd);
		return -1;
	}
	memset(&so, 0, sizeof(so));
	so.one_file_system = opt->gs.one_file_system;
	so.no_hard_links = opt->no_hard_links;
	/* mksquashfs skips what it cannot list, unless told to stop */
	so.skip_unreadable_dirs = !opt->exit_on_error;
	so.image_name = image_name;
	so.filter = mk_exclude_filter;
	so.user = ex;
	mk_exclude_set_source(ex, image_name[0] != '\0' ? 1 : 0, st->st_dev);
	return gs_scan_opts(fd, source, &so, entries);
}

/* A source that is not a directory: an entry below a root at its
 * parent, opened again there by its real name. */
static int add_file_source(const char *source, const struct stat *st,
			   char *image_name, gs_entries_t *entries)
{
	char *copy = strdup(source), *slash, *real_name, *location;
	struct stat pst;
	uint32_t root;
	gs_entry_t *e;
	size_t len;

	if (copy == NULL) {
		free(image_name);
		return oom();
	}
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	slash = strrchr(copy, '/');
	if (slash == NULL) {
		location = strdup(".");
		real_name = strdup(copy);
	} else {
		real_name = strdup(slash + 1);
		*slash = '\0';
		location = strdup(copy[0] != '\0' ? copy : "/");
	}
	free(copy);
	if (location == NULL || real_name == NULL)
		goto oom;
	if (stat(location, &pst) != 0) {
		fprintf(stderr, "Cannot stat source \"%s\" because %s\n",
			location, strerror(errno));
		free(location);
		free(real_name);
		free(image_name);
		return -1;
	}
	if (gs_entries_add_root(entries, location, fs_id_of(&pst), &root) != 0)
		goto oom_loc_gone;
	if (gs_entries_name_root(entries, root, strdup(image_name),
				 real_name) != 0) {
		free(image_name);
		return oom();
	}
	e = gs_entries_push(entries, image_name);
	if (e == NULL)
		return oom();
	gs_stat_set(&e->st, st);
	e->root = root;
	if (S_ISLNK(st->st_mode)) {
		int dfd = open(source[0] != '\0' ? source : ".",
			       O_PATH | O_NOFOLLOW | O_CLOEXEC);

		if (dfd < 0 || fs_read_link(dfd, "", (size_t)st->st_size,
					    &e->target) != 0) {
			fprintf(stderr, "Cannot read symlink \"%s\": %s\n",
				source, strerror(errno));
			if (dfd >= 0)
				close(dfd);
			return -1;
		}
		close(dfd);
	} else if (S_ISREG(st->st_mode)) {
		entries->total_bytes += (uint64_t)st->st_size;
	}
	return 0;
oom:
	free(location);
oom_loc_gone:
	free(real_name);
	free(image_name);
	return oom();
}

/* Entries of different sources that are one object on disk: the walk
 * finds hard links within one source; across sources the later names
 * become hard links to the first, as mksquashfs makes them. */
static const gs_entries_t *sort_entries;

static int by_object(const void *a, const void *b)
{
	const gs_entry_t *x = &sort_entries->list[*(const size_t *)a];
	const gs_entry_t *y = &sort_entries->list[*(const size_t *)b];

	if (x->st.dev != y->st.dev)
		return x->st.dev < y->st.dev ? -1 : 1;
	if (x->st.ino != y->st.ino)
		return x->st.ino < y->st.ino ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int link_across_sources(gs_entries_t *entries)
{
	size_t *idx, n = 0;

	idx = malloc((entries->count + 1) * sizeof(idx[0]));
	if (idx == NULL)
		return oom();
	for (size_t i = 0; i < entries->count; ++i) {
		const gs_entry_t *e = &entries->list[i];

		if (e->root != GS_ROOT_NONE && !e->hard_link &&
		    !S_ISDIR(e->st.mode))
			idx[n++] = i;
	}
	sort_entries = entries;
	qsort(idx, n, sizeof(idx[0]), by_object);
	/* in each run of one object, the first met is kept; the entries
	 * linking to a later one within its source resolve through it */
	for (size_t i = 1, head = 0; i < n; ++i) {
		const gs_entry_t *h = &entries->list[idx[head]];
		gs_entry_t *e = &entries->list[idx[i]];
		char *target;

		if (e->st.dev != h->st.dev || e->st.ino != h->st.ino) {
			head = i;
			continue;
		}
		target = strdup(h->path);
		if (target == NULL) {
			free(idx);
			return oom();
		}
		if (S_ISREG(e->st.mode))
			entries->total_bytes -= e->st.size;
		free(e->target);
		e->target = target;
		e->hard_link = true;
	}
	free(idx);
	return 0;
}

int mk_scan_sources(const mk_options_t *opt, mk_exclude_t *ex,
		    gs_entries_t *entries, int *input_dir)
{
	gs_path_index_t idx;
	size_t real = 0, indexed = 0;
	struct stat st;
	int ret = 0;

	*input_dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*input_dir < 0) {
		tool_error(".", "%s", strerror(errno));
		return -1;
	}
	/* "-" first: no sources at all, the rest ignored as mksquashfs
	 * does; the root is the one the pseudo definitions give */
	if (opt->source_count > 0 && strcmp(opt->sources[0], "-") == 0)
		return add_new_root(entries);
	for (size_t i = 0; i < opt->source_count; ++i)
		real += strcmp(opt->sources[i], "-") != 0 ? 1 : 0;

	if (real == 1 && !opt->keep_as_directory) {
		for (size_t i = 0; i < opt->source_count; ++i) {
			const char *src = opt->sources[i];

			if (strcmp(src, "-") == 0)
				continue;
			if (lstat(src, &st) != 0) {
				fprintf(stderr,
					"Cannot stat source directory \"%s\" "
					"because %s\n",
					src, strerror(errno));
				return -1;
			}
			if (S_ISDIR(st.st_mode))
				return scan_dir(opt, ex, src, &st, "", entries);
		}
	}

	if (add_new_root(entries) != 0)
		return -1;
	memset(&idx, 0, sizeof(idx));
	for (size_t i = 0; ret == 0 && i < opt->source_count; ++i) {
		const char *src = opt->sources[i];
		char *name;

		if (strcmp(src, "-") == 0)
			continue;
		if (lstat(src, &st) != 0) {
			fprintf(stderr,
				"Cannot stat source directory \"%s\" because "
				"%s\n",
				src, strerror(errno));
			ret = -1;
			break;
		}
		index_new(entries, &idx, &indexed);
		name = source_name(src);
		if (name != NULL)
			name = unique_name(entries, &idx, name);
		if (name == NULL) {
			ret = oom();
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			ret = scan_dir(opt, ex, src, &st, name, entries);
			free(name);
		} else {
			ret = add_file_source(src, &st, name, entries);
		}
	}
	gs_path_index_free(&idx);
	if (ret == 0 && !opt->no_hard_links)
		ret = link_across_sources(entries);
	return ret;
}

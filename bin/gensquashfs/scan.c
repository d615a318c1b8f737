/* SPDX-License-Identifier: MIT */
/*
 * scan.c - listing a directory tree for packing (--pack-dir).
 *
 * Safety rules, so that a tree that changes while it is scanned, or holds
 * symlinks anywhere, never leads the scan outside it:
 * - every system call is relative to the descriptor of the directory the
 *   entry is in (openat, fstatat, readlinkat), never a path from the top;
 * - symlinks are listed, never followed: fstatat with AT_SYMLINK_NOFOLLOW,
 *   directories opened with O_DIRECTORY | O_NOFOLLOW;
 * - a directory is entered only if the one opened is the one lstat saw
 *   (device and inode compared), else the scan fails naming it;
 * - names are taken as readdir gives them; "." and ".." are skipped.
 *
 * The output is deterministic: each directory's entries are sorted by
 * name (byte order), whatever order readdir returns them in, so the same
 * tree gives the same list and the same image.
 *
 * Hard links: a non-directory with more than one link is looked up by
 * (device, inode); the first one met is packed, the later ones become
 * hard links to its path, so the image keeps the group (a scan that split
 * them into copies would lose what the tree says).
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/fs_dir.h"
#include "common/fs_links.h"
#include "common/print.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	gs_entries_t *out;
	bool one_file_system;
	dev_t root_dev;
	/* where each multiply-linked inode was first met: its entry */
	fs_links_t links;
	/* the path of the directory being read, for messages */
	char *path;
} scan_t;

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

static gs_entry_t *add_entry(scan_t *s, char *path, const struct stat *st)
{
	gs_entry_t *ent = gs_entries_push(s->out, path);

	if (ent != NULL)
		gs_stat_set(&ent->st, st);
	return ent;
}

/* The names in the directory at fd (which is taken over), sorted. */
static int read_names(scan_t *s, int fd, char ***out, size_t *count)
{
	if (fs_dir_names(fd, out, count) == 0)
		return 0;
	if (errno == ENOMEM)
		return oom();
	tool_error(s->path[0] ? s->path : ".", "%s", strerror(errno));
	return -1;
}

static int scan_dir(scan_t *s, int fd, const char *path);

/* One entry named name in the directory at dfd, whose image path is
 * path (taken over). */
static int scan_entry(scan_t *s, int dfd, const char *name, char *path)
{
	struct stat st, opened;
	gs_entry_t *ent;
	size_t index = s->out->count;
	uint64_t first;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		tool_error(path, "%s", strerror(errno));
		free(path);
		return -1;
	}
	ent = add_entry(s, path, &st);
	if (ent == NULL)
		return oom();

	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		int found = fs_links_find(&s->links, &st, index, &first);

		if (found < 0)
			return oom();
		if (found > 0) {
			ent->hard_link = true;
			ent->target = strdup(s->out->list[first].path);
			return ent->target != NULL ? 0 : oom();
		}
	}
	if (S_ISREG(st.st_mode))
		s->out->total_bytes += (uint64_t)st.st_size;
	if (S_ISLNK(st.st_mode)) {
		if (fs_read_link(dfd, name, (size_t)st.st_size, &ent->target) !=
		    0) {
			if (errno == ENOMEM)
				return oom();
			tool_error(path, "%s", strerror(errno));
			return -1;
		}
		return 0;
	}

	if (!S_ISDIR(st.st_mode))
		return 0;

	/* a mount point is kept, but not entered */
	if (s->one_file_system && st.st_dev != s->root_dev)
		return 0;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		tool_error(path, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &opened) != 0 || opened.st_dev != st.st_dev ||
	    opened.st_ino != st.st_ino) {
		tool_error(path, "was replaced while it was scanned");
		close(fd);
		return -1;
	}
	/* path stays valid: the list owns it, and only grows after this */
	return scan_dir(s, fd, s->out->list[index].path);
}

/* The directory at fd (taken over), whose image path is path. */
static int scan_dir(scan_t *s, int fd, const char *path)
{
	char **names, *saved = s->path, *copy;
	size_t count, i;
	int dfd, ret = 0;

	/* read_names takes fd over for the listing; entries are looked up
	 * through a second descriptor of the same directory */
	dfd = dup(fd);
	if (dfd < 0) {
		tool_error(path[0] ? path : ".", "%s", strerror(errno));
		close(fd);
		return -1;
	}
	copy = strdup(path);
	if (copy == NULL) {
		close(fd);
		close(dfd);
		return oom();
	}
	s->path = copy;
	if (read_names(s, fd, &names, &count) != 0) {
		ret = -1;
		goto out;
	}
	for (i = 0; i < count; ++i) {
		char *child;

		if (ret != 0) {
			free(names[i]);
			continue;
		}
		child = gs_path_join(copy, names[i]);
		if (child == NULL)
			ret = oom();
		else
			ret = scan_entry(s, dfd, names[i], child);
		free(names[i]);
	}
	free(names);
out:
	close(dfd);
	s->path = saved;
	free(copy);
	return ret;
}

int gs_scan(int dirfd, const char *name, bool one_file_system,
	    gs_entries_t *out)
{
	struct stat st;
	scan_t s;
	char *root;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.out = out;
	s.one_file_system = one_file_system;
	fs_links_init(&s.links);

	if (fstat(dirfd, &st) != 0) {
		tool_error(name, "%s", strerror(errno));
		return -1;
	}
	s.root_dev = st.st_dev;
	root = strdup("");
	if (root == NULL || add_entry(&s, root, &st) == NULL)
		return oom();
	fd = dup(dirfd);
	if (fd < 0) {
		tool_error(name, "%s", strerror(errno));
		return -1;
	}
	s.path = (char *)"";
	ret = scan_dir(&s, fd, "");
	fs_links_cleanup(&s.links);
	return ret;
}

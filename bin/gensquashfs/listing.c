/* SPDX-License-Identifier: MIT */
/*
 * listing.c - reading a pack file (--pack-file): the image described line
 * by line, so that owners, modes and device nodes need no root.
 *
 * One entry a line, "TYPE PATH MODE UID GID [EXTRA]"; blank lines and
 * lines starting with '#' are skipped, leading white space is trimmed.
 * PATH (and a file's input location) may be double-quoted, with \" and \\
 * standing for themselves. Everything is checked before anything is
 * packed, and every complaint names the listing and the line:
 * "gensquashfs: FILE:LINE: what is wrong".
 *
 * The listing is trusted as a build script is: a file's input location
 * may lie anywhere, and symlinks on the way to it are followed.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/parse.h"
#include "common/print.h"

#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

typedef struct {
	const char *name;
	size_t line;
	gs_entries_t *out;
	/* where input files are found */
	int input_dir;
	/* the entry of each path, to find a second entry for a path */
	gs_path_index_t index;
} listing_t;

static int bad(listing_t *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(listing_t *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_text_verror(l->name, l->line, fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* ---- fields -------------------------------------------------------------- */

static void skip_space(char **p)
{
	while (**p == ' ' || **p == '\t')
		++*p;
}

/* The next field at *p: a run of non-blank bytes, or a double-quoted
 * string with \" and \\ escapes. *out is NULL at the end of the line. */
static int next_field(listing_t *l, char **p, char **out)
{
	char *in = *p;

	skip_space(&in);
	*out = NULL;
	if (*in == '\0') {
		*p = in;
		return 0;
	}
	if (*in != '"') {
		*out = in;
		while (*in != '\0' && *in != ' ' && *in != '\t')
			++in;
		if (*in != '\0')
			*in++ = '\0';
		*p = in;
		return 0;
	}
	if (gs_text_unquote(&in, out) != 0)
		return bad(l, "unterminated quote");
	if (*in != '\0' && *in != ' ' && *in != '\t')
		return bad(l, "a quoted field must end at a blank");
	*p = in;
	return 0;
}

/* Field f (NULL: missing) as a number up to max. */
static int parse_number(listing_t *l, const char *f, const char *what,
			bool octal, uint64_t max, uint64_t *out)
{
	const char *why;

	if (f == NULL)
		return bad(l, "no %s", what);
	why = octal ? parse_octal(f, max, out) : parse_uint(f, max, out);
	if (why != NULL)
		return bad(l, "%s '%s': %s", what, f, why);
	return 0;
}

static int number_field(listing_t *l, char **p, const char *what, bool octal,
			uint64_t max, uint64_t *out)
{
	char *f;

	if (next_field(l, p, &f) != 0)
		return -1;
	return parse_number(l, f, what, octal, max, out);
}

/* ---- entries ------------------------------------------------------------- */

static gs_entry_t *new_entry(listing_t *l, const char *path)
{
	char *copy = strdup(path);
	gs_entry_t *ent;

	if (copy == NULL)
		return NULL;
	ent = gs_entries_push(l->out, copy);
	if (ent != NULL) {
		ent->line = (uint32_t)l->line;
		ent->from_listing = true;
	}
	return ent;
}

/* Record the new last entry under its path; a second entry is an error
 * unless both are directories (the later one's attributes win). */
static int claim_path(listing_t *l)
{
	size_t index = l->out->count - 1, *slot;
	const gs_entry_t *ent = &l->out->list[index];

	if (gs_path_index_reserve(&l->index, l->out) != 0)
		return oom();
	slot = gs_path_index_slot(&l->index, l->out, ent->path);
	if (*slot != SIZE_MAX) {
		const gs_entry_t *first = &l->out->list[*slot];

		if (!S_ISDIR(first->st.mode) || !S_ISDIR(ent->st.mode))
			return bad(l, "'%s' is already given on line %zu",
				   ent->path[0] ? ent->path : "/",
				   (size_t)first->line);
	}
	*slot = index;
	return 0;
}

/* A file's input: LOCATION, or the image path, below the input folder;
 * it must be a regular file now. */
static int file_input(listing_t *l, gs_entry_t *ent, char *location)
{
	struct stat st;

	ent->source = strdup(location != NULL ? location : ent->path);
	if (ent->source == NULL)
		return oom();
	if (fstatat(l->input_dir, ent->source, &st, 0) != 0)
		return bad(l, "input '%s': %s", ent->source, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bad(l, "input '%s' is not a regular file", ent->source);
	ent->st.size = (uint64_t)st.st_size;
	l->out->total_bytes += (uint64_t)st.st_size;
	return 0;
}

/* ---- glob ---------------------------------------------------------------- */

/* MODE, UID or GID of a glob line: a number, or '*' (from the source):
 * *out is then UINT64_MAX. */
static int glob_number(listing_t *l, char **p, const char *what, bool octal,
		       uint64_t max, uint64_t *out)
{
	char *f;

	if (next_field(l, p, &f) != 0)
		return -1;
	if (f != NULL && strcmp(f, "*") == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	return parse_number(l, f, what, octal, max, out);
}

typedef struct {
	unsigned int types; /* bit per S_IFMT >> 12; 0: every type */
	bool xdev;
	bool keep_time;
	bool nonrecursive;
	const char *name;
	const char *path;
} glob_opts_t;

static int glob_type(listing_t *l, const char *t, glob_opts_t *g)
{
	static const struct {
		char c;
		mode_t fmt;
	} types[] = {{'b', S_IFBLK}, {'c', S_IFCHR}, {'d', S_IFDIR},
		     {'p', S_IFIFO}, {'f', S_IFREG}, {'l', S_IFLNK},
		     {'s', S_IFSOCK}};

	if (t != NULL && strlen(t) == 1) {
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i) {
			if (types[i].c == t[0]) {
				g->types |= 1u << (types[i].fmt >> 12);
				return 0;
			}
		}
	}
	return bad(l, "-type wants one of b c d p f l s, not '%s'",
		   t != NULL ? t : "");
}

static bool glob_wants(const glob_opts_t *g, const gs_entry_t *e)
{
	const char *base = strrchr(e->path, '/');

	base = base != NULL ? base + 1 : e->path;
	if (g->nonrecursive && strchr(e->path, '/') != NULL)
		return false;
	if (g->types != 0 &&
	    !(g->types & (1u << ((e->st.mode & S_IFMT) >> 12))))
		return false;
	if (g->name != NULL && fnmatch(g->name, base, 0) != 0)
		return false;
	if (g->path != NULL && fnmatch(g->path, e->path, 0) != 0)
		return false;
	return true;
}

/* What a glob line brings: the scan of its location, the root its
 * entries are read under, and which of them it takes. */
typedef struct {
	gs_entries_t sub;
	uint32_t root;
	bool *taken;
	/* the scan's entries by path, for hard links */
	gs_path_index_t index;
} glob_scan_t;

/* One scanned entry e as an entry at PATH/e. */
static int glob_entry(listing_t *l, const char *path, glob_scan_t *gs,
		      const gs_entry_t *e, const uint64_t ids[3],
		      const glob_opts_t *g)
{
	char *dst = gs_path_join(path, e->path);
	gs_entry_t *ent;

	if (dst == NULL)
		return oom();
	ent = gs_entries_push(l->out, dst);
	if (ent == NULL)
		return oom();
	ent->line = (uint32_t)l->line;
	ent->from_listing = true;
	ent->keep_time = g->keep_time;
	ent->root = gs->root;
	ent->st = e->st;
	if (ids[0] != UINT64_MAX)
		ent->st.mode = (e->st.mode & S_IFMT) | (mode_t)ids[0];
	if (ids[1] != UINT64_MAX)
		ent->st.uid = (uid_t)ids[1];
	if (ids[2] != UINT64_MAX)
		ent->st.gid = (gid_t)ids[2];

	if (e->hard_link) {
		size_t *slot = gs_path_index_slot(&gs->index, &gs->sub,
						  e->target);

		/* a link whose first name is packed stays a link to it */
		if (*slot != SIZE_MAX && gs->taken[*slot]) {
			ent->hard_link = true;
			ent->target = gs_path_join(path, e->target);
			return ent->target != NULL ? claim_path(l) : oom();
		}
	}
	if (S_ISLNK(e->st.mode)) {
		/* as the scan read it: never again through a path */
		ent->target = strdup(e->target);
		if (ent->target == NULL)
			return oom();
	} else if (S_ISREG(e->st.mode)) {
		/* its data, below the location */
		ent->source = strdup(e->path);
		if (ent->source == NULL)
			return oom();
		l->out->total_bytes += (uint64_t)e->st.size;
	}
	return claim_path(l);
}

/* The location's scan, its root moved into the listing's roots, and an
 * index of its paths. */
static int glob_scan(listing_t *l, const char *location, bool xdev,
		     glob_scan_t *gs)
{
	gs_entries_t *out = l->out;
	gs_root_t *roots;
	int fd;

	/* the location is the listing's: symlinks in it are followed */
	fd = openat(l->input_dir, location, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return bad(l, "glob location '%s': %s", location,
			   strerror(errno));
	if (gs_scan(fd, location, xdev, &gs->sub) != 0)
		return -1;
	roots = realloc(out->roots, (out->root_count + 1) * sizeof(roots[0]));
	if (roots == NULL)
		return oom();
	out->roots = roots;
	roots[out->root_count] = gs->sub.roots[0];
	gs->sub.roots[0].location = NULL;
	gs->root = (uint32_t)out->root_count++;

	gs->taken = calloc(gs->sub.count + 1, sizeof(gs->taken[0]));
	if (gs->taken == NULL)
		return oom();
	for (size_t i = 0; i < gs->sub.count; ++i) {
		size_t *slot;

		if (gs_path_index_reserve(&gs->index, &gs->sub) != 0)
			return oom();
		slot = gs_path_index_slot(&gs->index, &gs->sub,
					  gs->sub.list[i].path);
		*slot = i;
	}
	return 0;
}

static void glob_scan_free(glob_scan_t *gs)
{
	free(gs->taken);
	gs_path_index_free(&gs->index);
	gs_entries_free(&gs->sub);
}

/* glob PATH MODE UID GID [OPTIONS] LOCATION: the tree at LOCATION (below
 * the input folder), as find would select it, below PATH. */
static int parse_glob(listing_t *l, char *path, char *p)
{
	glob_opts_t g = {0};
	uint64_t ids[3];
	char *f, *location = NULL;
	glob_scan_t gs = {0};
	gs_entry_t *dir;
	bool options = true;
	int ret = -1;

	if (glob_number(l, &p, "mode", true, 07777, &ids[0]) != 0 ||
	    glob_number(l, &p, "uid", false, UINT32_MAX, &ids[1]) != 0 ||
	    glob_number(l, &p, "gid", false, UINT32_MAX, &ids[2]) != 0)
		return -1;
	for (;;) {
		if (next_field(l, &p, &f) != 0)
			return -1;
		if (f == NULL)
			break;
		if (location != NULL)
			return bad(l, "unexpected '%s' after the location", f);
		if (!options || f[0] != '-') {
			location = f;
		} else if (strcmp(f, "--") == 0) {
			options = false;
		} else if (strcmp(f, "-xdev") == 0 ||
			   strcmp(f, "-mount") == 0) {
			g.xdev = true;
		} else if (strcmp(f, "-keeptime") == 0) {
			g.keep_time = true;
		} else if (strcmp(f, "-nonrecursive") == 0) {
			g.nonrecursive = true;
		} else if (strcmp(f, "-type") == 0 || strcmp(f, "-name") == 0 ||
			   strcmp(f, "-path") == 0) {
			char *v;

			if (next_field(l, &p, &v) != 0)
				return -1;
			if (v == NULL)
				return bad(l, "%s needs a value", f);
			if (f[1] == 't' && glob_type(l, v, &g) != 0)
				return -1;
			if (f[1] == 'n')
				g.name = v;
			if (f[1] == 'p')
				g.path = v;
		} else {
			return bad(l, "unknown glob option '%s'", f);
		}
	}
	if (location == NULL)
		return bad(l, "a glob needs a location");

	if (glob_scan(l, location, g.xdev, &gs) != 0)
		goto out;

	/* PATH itself, a directory: the location's attributes where '*' */
	dir = new_entry(l, path);
	if (dir == NULL) {
		oom();
		goto out;
	}
	dir->keep_time = g.keep_time;
	dir->st = gs.sub.list[0].st;
	dir->st.mode =
	    S_IFDIR | (ids[0] != UINT64_MAX ? (mode_t)ids[0]
					    : (gs.sub.list[0].st.mode & 07777));
	if (ids[1] != UINT64_MAX)
		dir->st.uid = (uid_t)ids[1];
	if (ids[2] != UINT64_MAX)
		dir->st.gid = (gid_t)ids[2];
	if (claim_path(l) != 0)
		goto out;

	ret = 0;
	for (size_t i = 1; ret == 0 && i < gs.sub.count; ++i) {
		if (!glob_wants(&g, &gs.sub.list[i]))
			continue;
		gs.taken[i] = true;
		ret = glob_entry(l, path, &gs, &gs.sub.list[i], ids, &g);
	}
out:
	glob_scan_free(&gs);
	return ret;
}

static int parse_line(listing_t *l, char *p)
{
	char *type, *path, *extra;
	uint64_t mode, uid, gid;
	gs_entry_t *ent;
	mode_t fmt;

	if (next_field(l, &p, &type) != 0 || next_field(l, &p, &path) != 0)
		return -1;
	if (path == NULL)
		return bad(l, "no path after '%s'", type);
	if (gs_path_canonical(path) == NULL)
		return bad(l, "'..' in path");

	if (strcmp(type, "dir") == 0)
		fmt = S_IFDIR;
	else if (strcmp(type, "file") == 0)
		fmt = S_IFREG;
	else if (strcmp(type, "nod") == 0)
		fmt = 0;
	else if (strcmp(type, "slink") == 0)
		fmt = S_IFLNK;
	else if (strcmp(type, "link") == 0)
		fmt = S_IFREG;
	else if (strcmp(type, "pipe") == 0)
		fmt = S_IFIFO;
	else if (strcmp(type, "sock") == 0)
		fmt = S_IFSOCK;
	else if (strcmp(type, "glob") == 0)
		return parse_glob(l, path, p);
	else
		return bad(l, "unknown entry type '%s'", type);
	if (path[0] == '\0' && fmt != S_IFDIR)
		return bad(l, "the root can only be a directory");

	if (number_field(l, &p, "mode", true, 07777, &mode) != 0 ||
	    number_field(l, &p, "uid", false, UINT32_MAX, &uid) != 0 ||
	    number_field(l, &p, "gid", false, UINT32_MAX, &gid) != 0)
		return -1;

	ent = new_entry(l, path);
	if (ent == NULL)
		return oom();
	ent->st.uid = (uid_t)uid;
	ent->st.gid = (gid_t)gid;

	skip_space(&p);
	extra = *p != '\0' ? p : NULL;
	if (strcmp(type, "nod") == 0) {
		uint64_t major, minor;
		char *kind;

		if (next_field(l, &p, &kind) != 0)
			return -1;
		if (kind == NULL ||
		    (strcmp(kind, "c") != 0 && strcmp(kind, "b") != 0))
			return bad(l, "a device needs 'c' or 'b'");
		fmt = kind[0] == 'c' ? S_IFCHR : S_IFBLK;
		if (number_field(l, &p, "major", false, UINT32_MAX, &major) !=
			0 ||
		    number_field(l, &p, "minor", false, UINT32_MAX, &minor) !=
			0)
			return -1;
		ent->st.rdev =
		    makedev((unsigned int)major, (unsigned int)minor);
		extra = NULL;
	} else if (strcmp(type, "slink") == 0) {
		if (extra == NULL)
			return bad(l, "a symlink needs a target");
		ent->target = strdup(extra);
		if (ent->target == NULL)
			return oom();
	} else if (strcmp(type, "link") == 0) {
		char *target;

		if (next_field(l, &p, &target) != 0)
			return -1;
		if (target == NULL || gs_path_canonical(target) == NULL)
			return bad(l, "a hard link needs a target without "
				      "'..'");
		ent->hard_link = true;
		ent->target = strdup(target);
		if (ent->target == NULL)
			return oom();
	} else if (fmt == S_IFREG) {
		char *location;

		if (next_field(l, &p, &location) != 0)
			return -1;
		if (file_input(l, ent, location) != 0)
			return -1;
	} else if (extra != NULL) {
		return bad(l, "unexpected '%s' after the gid", extra);
	}
	ent->st.mode = fmt | (mode_t)mode;
	return claim_path(l);
}

/* Every hard link names an entry given somewhere in the listing that is
 * not a directory. */
static int check_links(listing_t *l)
{
	for (size_t i = 0; i < l->out->count; ++i) {
		const gs_entry_t *e = &l->out->list[i];
		size_t *slot;

		if (!e->hard_link)
			continue;
		l->line = e->line;
		slot = gs_path_index_slot(&l->index, l->out, e->target);
		if (*slot == SIZE_MAX)
			return bad(l,
				   "hard link target '%s' is not in the "
				   "listing",
				   e->target);
		if (S_ISDIR(l->out->list[*slot].st.mode))
			return bad(l, "hard link target '%s' is a directory",
				   e->target);
	}
	return 0;
}

static int listing_line(void *user, size_t line, char *text)
{
	listing_t *l = user;

	l->line = line;
	/* an entry keeps its line in 32 bits */
	if (line > UINT32_MAX)
		return bad(l, "more lines than a listing can have");
	return parse_line(l, text);
}

int gs_read_listing_stream(FILE *fp, const char *name, int input_dir,
			   gs_entries_t *out)
{
	listing_t l = {0};
	int ret;

	memset(out, 0, sizeof(*out));
	l.name = name;
	l.out = out;
	l.input_dir = input_dir;

	ret = gs_text_lines(fp, name, listing_line, &l);
	if (ret == 0)
		ret = check_links(&l);
	gs_path_index_free(&l.index);
	return ret;
}

int gs_read_listing(const char *name, int input_dir, gs_entries_t *out)
{
	FILE *fp = gs_text_open(name);
	int ret;

	if (fp == NULL) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	ret = gs_read_listing_stream(fp, name, input_dir, out);
	fclose(fp);
	return ret;
}

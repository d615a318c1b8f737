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
	/* the directories the lines so far imply (parents of entries, and
	 * the directories of globs) but none gives: each an implicit entry,
	 * put after the others at the end; one that a line gives later is
	 * dropped (its implicit flag cleared) */
	gs_entries_t implied;
	gs_path_index_t implied_index;
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

/* ---- what the lines so far made of a path ------------------------------ */

typedef enum {
	PATH_NONE,
	/* a line gives it: out->list[*index] */
	PATH_GIVEN,
	/* a directory the lines imply: implied.list[*index] */
	PATH_IMPLIED,
} path_kind_t;

static int path_kind(listing_t *l, const char *path, path_kind_t *kind,
		     size_t *index)
{
	size_t *slot;

	if (gs_path_index_reserve(&l->index, l->out) != 0 ||
	    gs_path_index_reserve(&l->implied_index, &l->implied) != 0)
		return oom();
	*kind = PATH_NONE;
	slot = gs_path_index_slot(&l->index, l->out, path);
	if (*slot != SIZE_MAX) {
		*kind = PATH_GIVEN;
		*index = *slot;
		return 0;
	}
	slot = gs_path_index_slot(&l->implied_index, &l->implied, path);
	if (*slot != SIZE_MAX) {
		*kind = PATH_IMPLIED;
		*index = *slot;
	}
	return 0;
}

/* Whether path is a directory so far (given or implied); the root is. */
static int is_dir_now(listing_t *l, const char *path, bool *out)
{
	path_kind_t kind;
	size_t i;

	*out = true;
	if (path[0] == '\0')
		return 0;
	if (path_kind(l, path, &kind, &i) != 0)
		return -1;
	*out = kind == PATH_IMPLIED ||
	       (kind == PATH_GIVEN && S_ISDIR(l->out->list[i].st.mode));
	return 0;
}

/* ent, new, becomes an implicit directory brought in on line (0: by
 * none): packed only if no line gives it, with the --defaults. */
static void make_implicit(gs_entry_t *ent, size_t line)
{
	ent->line = (uint32_t)line;
	ent->from_listing = true;
	ent->implicit = true;
	ent->default_attrs = true;
	ent->st.mode = S_IFDIR;
}

/* path (that nothing gives or implies) becomes implied by this line. */
static int add_implied(listing_t *l, const char *path)
{
	char *copy = strdup(path);
	gs_entry_t *ent;
	size_t *slot;

	if (copy == NULL)
		return oom();
	ent = gs_entries_push(&l->implied, copy);
	if (ent == NULL)
		return oom();
	make_implicit(ent, l->line);
	if (gs_path_index_reserve(&l->implied_index, &l->implied) != 0)
		return oom();
	slot = gs_path_index_slot(&l->implied_index, &l->implied, path);
	*slot = l->implied.count - 1;
	return 0;
}

/* The directories above path that nothing gives or implies yet become
 * implied; one a line gives must be a directory. */
static int imply_parents(listing_t *l, const char *path)
{
	size_t len = strlen(path), cut = len, index;
	char *buf = strdup(path);
	path_kind_t kind;
	int ret = 0;

	if (buf == NULL)
		return oom();
	/* the deepest one there is: everything above it is there too */
	for (;;) {
		char *slash;

		buf[cut] = '\0';
		slash = strrchr(buf, '/');
		if (slash == NULL) {
			cut = 0;
			break;
		}
		cut = (size_t)(slash - buf);
		buf[cut] = '\0';
		if (path_kind(l, buf, &kind, &index) != 0) {
			free(buf);
			return -1;
		}
		if (kind == PATH_IMPLIED)
			break;
		if (kind == PATH_GIVEN) {
			const gs_entry_t *e = &l->out->list[index];

			if (!S_ISDIR(e->st.mode))
				ret =
				    bad(l, "'%s' is not a directory (line %zu)",
					e->path, (size_t)e->line);
			break;
		}
	}
	memcpy(buf, path, len + 1);
	for (size_t i = cut == 0 ? 0 : cut + 1; ret == 0 && i < len; ++i) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		ret = add_implied(l, buf);
		buf[i] = '/';
	}
	free(buf);
	return ret;
}

/* Record the new last entry under its path; a second entry is an error
 * unless both are directories (the later one's attributes win). An entry
 * for a path implied so far takes its place, if it is a directory. */
static int claim_path(listing_t *l)
{
	size_t index = l->out->count - 1, *slot, implied;
	const gs_entry_t *ent = &l->out->list[index];
	path_kind_t kind;

	if (path_kind(l, ent->path, &kind, &implied) != 0)
		return -1;
	slot = gs_path_index_slot(&l->index, l->out, ent->path);
	if (*slot != SIZE_MAX) {
		const gs_entry_t *first = &l->out->list[*slot];

		if (!S_ISDIR(first->st.mode) || !S_ISDIR(ent->st.mode))
			return bad(l, "'%s' is already given on line %zu",
				   ent->path[0] ? ent->path : "/",
				   (size_t)first->line);
		*slot = index;
		return 0;
	}
	if (kind == PATH_IMPLIED) {
		gs_entry_t *dir = &l->implied.list[implied];

		if (!S_ISDIR(ent->st.mode))
			return bad(l,
				   "'%s' is a directory: line %zu has entries "
				   "below it",
				   ent->path, (size_t)dir->line);
		dir->implicit = false;
	}
	*slot = index;
	return imply_parents(l, ent->path);
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

/* Whether the glob selects e, found at dst in the image: its type, its
 * name and its path in the image (-path: without the leading '/', and
 * wildcards do not match '/'). */
static bool glob_wants(const glob_opts_t *g, const gs_entry_t *e,
		       const char *dst)
{
	const char *base = strrchr(e->path, '/');

	base = base != NULL ? base + 1 : e->path;
	if (g->types != 0 &&
	    !(g->types & (1u << ((e->st.mode & S_IFMT) >> 12))))
		return false;
	if (g->name != NULL && fnmatch(g->name, base, 0) != 0)
		return false;
	if (g->path != NULL && fnmatch(g->path, dst, FNM_PATHNAME) != 0)
		return false;
	return true;
}

/* What a glob line brings: the scan of its location, the root its
 * entries are read under, which of them it takes, and which directories
 * it descends into. */
typedef struct {
	gs_entries_t sub;
	uint32_t root;
	bool *taken;
	bool *entered;
	/* the scan's entries by path, for hard links and parents */
	gs_path_index_t index;
} glob_scan_t;

/* One scanned entry e as an entry at dst (taken over). */
static int glob_entry(listing_t *l, char *dst, glob_scan_t *gs,
		      const gs_entry_t *e, const uint64_t ids[3],
		      const glob_opts_t *g, const char *path)
{
	gs_entry_t *ent;

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
		size_t *slot =
		    gs_path_index_slot(&gs->index, &gs->sub, e->target);

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
	char *root_location;
	int fd;

	/* the location is the listing's: symlinks in it are followed */
	fd = openat(l->input_dir, location, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return bad(l, "glob location '%s': %s", location,
			   strerror(errno));
	if (gs_scan(fd, location, xdev, &gs->sub) != 0)
		return -1;
	root_location = gs->sub.roots[0].location;
	gs->sub.roots[0].location = NULL;
	if (gs_entries_add_root(l->out, root_location, gs->sub.roots[0].id,
				&gs->root) != 0)
		return oom();

	gs->taken = calloc(gs->sub.count + 1, sizeof(gs->taken[0]));
	gs->entered = calloc(gs->sub.count + 1, sizeof(gs->entered[0]));
	if (gs->taken == NULL || gs->entered == NULL)
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
	free(gs->entered);
	gs_path_index_free(&gs->index);
	gs_entries_free(&gs->sub);
}

/* Whether the glob descended into the directory that holds e. */
static bool glob_parent_entered(glob_scan_t *gs, gs_entry_t *e)
{
	char *slash = strrchr(e->path, '/');
	size_t *slot;

	if (slash == NULL)
		return gs->entered[0];
	/* the scan's paths are its own: cut one for the look-up */
	*slash = '\0';
	slot = gs_path_index_slot(&gs->index, &gs->sub, e->path);
	*slash = '/';
	return *slot != SIZE_MAX && gs->entered[*slot];
}

/*
 * Walk the scan as squashfs-tools-ng's glob does: an entry is looked at
 * only in a directory the glob descended into, its own directory (PATH)
 * first. A directory it selects is added (or, if a line gave it already,
 * kept as it is) and descended into; a directory it does not select is
 * neither, except that with a -type that leaves directories out, one that
 * exists in the image already (given or implied by the lines before) is
 * descended into. Nothing is descended into with -nonrecursive.
 */
static int glob_walk(listing_t *l, const char *path, glob_scan_t *gs,
		     const uint64_t ids[3], const glob_opts_t *g)
{
	const unsigned int dir_bit = 1u << (S_IFDIR >> 12);

	gs->entered[0] = true;
	for (size_t i = 1; i < gs->sub.count; ++i) {
		gs_entry_t *e = &gs->sub.list[i];
		bool is_dir = S_ISDIR(e->st.mode), exists;
		char *dst;

		if (!glob_parent_entered(gs, e))
			continue;
		dst = gs_path_join(path, e->path);
		if (dst == NULL)
			return oom();
		if (is_dir && g->types != 0 && !(g->types & dir_bit)) {
			if (!g->nonrecursive &&
			    is_dir_now(l, dst, &gs->entered[i]) != 0) {
				free(dst);
				return -1;
			}
			free(dst);
			continue;
		}
		if (!glob_wants(g, e, dst)) {
			free(dst);
			continue;
		}
		if (is_dir) {
			path_kind_t kind;
			size_t index;

			gs->entered[i] = !g->nonrecursive;
			if (path_kind(l, dst, &kind, &index) != 0) {
				free(dst);
				return -1;
			}
			exists = kind == PATH_GIVEN &&
				 S_ISDIR(l->out->list[index].st.mode);
			if (exists) {
				/* the glob's attributes are for what it
				 * adds: a directory given keeps its own */
				free(dst);
				continue;
			}
		}
		gs->taken[i] = true;
		if (glob_entry(l, dst, gs, e, ids, g, path) != 0)
			return -1;
	}
	return 0;
}

/* glob PATH MODE UID GID [OPTIONS] [LOCATION]: the tree at LOCATION
 * (below the input folder; default: the input folder itself), as find
 * would select it, below PATH. PATH is a directory the line implies, but
 * does not give: its attributes are those of a dir line, or the
 * --defaults. */
static int parse_glob(listing_t *l, char *path, char *p)
{
	glob_opts_t g = {0};
	uint64_t ids[3];
	const char *location = NULL;
	char *f;
	glob_scan_t gs = {0};
	path_kind_t kind;
	size_t index;
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
	/* as squashfs-tools-ng: no location is the input folder */
	if (location == NULL)
		location = ".";

	/* PATH: a directory, made implicit if nothing gives it */
	if (path[0] != '\0') {
		if (path_kind(l, path, &kind, &index) != 0)
			return -1;
		if (kind == PATH_GIVEN && !S_ISDIR(l->out->list[index].st.mode))
			return bad(l, "'%s' is not a directory (line %zu)",
				   path, (size_t)l->out->list[index].line);
		if (kind == PATH_NONE &&
		    (imply_parents(l, path) != 0 || add_implied(l, path) != 0))
			return -1;
	}

	if (glob_scan(l, location, g.xdev, &gs) == 0)
		ret = glob_walk(l, path, &gs, ids, &g);
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
		char *location = extra;

		/* the rest of the line, blanks and all, as squashfs-tools-ng
		 * takes it; or a quoted string, and nothing after it */
		if (extra != NULL && *extra == '"') {
			if (next_field(l, &p, &location) != 0)
				return -1;
			skip_space(&p);
			if (*p != '\0')
				return bad(
				    l, "unexpected '%s' after the location", p);
		}
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

/* The implied directories that no line gave after all, and the root if
 * none gave it (last: the packer adds it last), go after the entries. */
static int add_implicit_entries(listing_t *l)
{
	gs_entry_t *ent;
	size_t *slot;
	bool has_root;
	char *root;

	if (gs_path_index_reserve(&l->index, l->out) != 0)
		return oom();
	slot = gs_path_index_slot(&l->index, l->out, "");
	has_root = *slot != SIZE_MAX;
	for (size_t i = 0; i < l->implied.count; ++i) {
		gs_entry_t *src = &l->implied.list[i];

		if (!src->implicit)
			continue;
		ent = gs_entries_push(l->out, src->path);
		src->path = NULL;
		if (ent == NULL)
			return oom();
		make_implicit(ent, src->line);
	}
	if (has_root)
		return 0;
	root = strdup("");
	if (root == NULL)
		return oom();
	ent = gs_entries_push(l->out, root);
	if (ent == NULL)
		return oom();
	make_implicit(ent, 0);
	return 0;
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
	if (ret == 0)
		ret = add_implicit_entries(&l);
	gs_path_index_free(&l.index);
	gs_path_index_free(&l.implied_index);
	gs_entries_free(&l.implied);
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

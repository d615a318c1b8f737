/* SPDX-License-Identifier: MIT */
/*
 * pseudo.c - pseudo definitions (-p, -pf, -pd): entries a build script
 * adds to or changes in the image without them being on disk.
 *
 * A definition is "PATH TYPE ARGS...", PATH quoted ("a b") or with
 * backslash escapes (a\ b), relative to the image's root. Types, as
 * mksquashfs 4.7 has them (upper case: the same with a TIME first):
 *
 *   d MODE UID GID              a directory          (D)
 *   m MODE UID GID              change an entry      (M)
 *   b|c MODE UID GID MAJ MIN    a device             (B, C)
 *   s MODE UID GID TARGET       a symlink            (S)
 *   i MODE UID GID s|f          a socket or a FIFO   (I)
 *   x NAME=VALUE                an xattr of an entry
 *   l HOSTPATH / h HOSTPATH     a hard link to a file on disk (h follows
 *                               symlinks): the file, or a hard link to
 *                               it where a source holds it too
 *   L PATH                      a hard link to an entry of the image
 *
 * MODE is octal or symbolic, UID and GID numbers or names. A definition
 * for a path a source already has is ignored with a warning, as
 * mksquashfs does; its parent must exist, or -pd gives the attributes of
 * the directories made for it. Files with data (f, F from a command's
 * output, R with data in the pseudo file) are refused by name for now.
 *
 * Every message names the definition: "-p 'DEF'" or FILE:LINE.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/print.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

typedef struct {
	const mk_options_t *opt;
	gs_entries_t *entries;
	gs_path_index_t idx;
	size_t indexed;
	/* -pd */
	bool have_pd;
	uint32_t pd_mode;
	uint32_t pd_uid;
	uint32_t pd_gid;
	int64_t pd_time;
	int64_t now;
	/* the definition being read, for messages */
	const char *where;
	size_t line;
	const char *text;
	/* definitions read, numbering pseudo entries (gs_entry_t.line) */
	uint32_t count;
} pseudo_t;

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

static int def_error(const pseudo_t *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int def_error(const pseudo_t *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->line > 0)
		fprintf(stderr, "mksquashfs: %s:%zu: ", ps->where, ps->line);
	else
		fprintf(stderr, "mksquashfs: -p '%s': ", ps->text);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* ---- the index of every entry by path -------------------------------- */

static int index_all(pseudo_t *ps)
{
	for (; ps->indexed < ps->entries->count; ++ps->indexed) {
		size_t *slot;

		if (gs_path_index_reserve(&ps->idx, ps->entries) != 0)
			return oom();
		slot = gs_path_index_slot(&ps->idx, ps->entries,
					  ps->entries->list[ps->indexed].path);
		if (*slot == SIZE_MAX)
			*slot = ps->indexed;
	}
	return 0;
}

static gs_entry_t *find(pseudo_t *ps, const char *path)
{
	size_t *slot;

	if (index_all(ps) != 0 ||
	    gs_path_index_reserve(&ps->idx, ps->entries) != 0)
		return NULL;
	slot = gs_path_index_slot(&ps->idx, ps->entries, path);
	return *slot == SIZE_MAX ? NULL : &ps->entries->list[*slot];
}

/* A new pseudo entry at path (taken over). */
static gs_entry_t *push(pseudo_t *ps, char *path, uint32_t mode, uint32_t uid,
			uint32_t gid, int64_t mtime)
{
	gs_entry_t *e = gs_entries_push(ps->entries, path);

	if (e == NULL) {
		oom();
		return NULL;
	}
	e->st.mode = mode;
	e->st.uid = uid;
	e->st.gid = gid;
	e->st.mtime = mtime;
	e->root = GS_ROOT_NONE;
	e->from_listing = true;
	e->keep_time = true;
	e->line = ps->count;
	if (index_all(ps) != 0)
		return NULL;
	return e;
}

/* The parents of path exist as directories, made with -pd's attributes
 * where missing if -pd was given. */
static int parents(pseudo_t *ps, const char *path)
{
	char *buf = strdup(path);
	int ret = 0;

	if (buf == NULL)
		return oom();
	for (char *p = buf; ret == 0 && (p = strchr(p, '/')) != NULL;
	     *p++ = '/') {
		gs_entry_t *e;

		*p = '\0';
		e = find(ps, buf);
		if (e != NULL) {
			if (!S_ISDIR(e->st.mode) || e->hard_link)
				ret = def_error(ps, "\"%s\" is not a directory",
						buf);
			continue;
		}
		if (!ps->have_pd) {
			ret = def_error(ps,
					"Pathname \"%s\" does not exist in "
					"filesystem (give -pd for the "
					"directories to make)",
					buf);
			continue;
		}
		char *copy = strdup(buf);

		if (copy == NULL ||
		    push(ps, copy, S_IFDIR | ps->pd_mode, ps->pd_uid,
			 ps->pd_gid, ps->pd_time) == NULL)
			ret = -1;
	}
	free(buf);
	return ret;
}

/* ---- fields ---------------------------------------------------------- */

/* The next blank-separated word of *p, NUL-terminated in place; NULL at
 * the end. */
static char *word(char **p)
{
	char *start;

	while (**p == ' ' || **p == '\t')
		++*p;
	if (**p == '\0')
		return NULL;
	start = *p;
	while (**p != '\0' && **p != ' ' && **p != '\t')
		++*p;
	if (**p != '\0')
		*(*p)++ = '\0';
	return start;
}

/* The path at the start of *p: "quoted", or with \ escapes. */
static char *path_word(char **p)
{
	char *out, *w;

	while (**p == ' ' || **p == '\t')
		++*p;
	if (**p == '\0')
		return NULL;
	out = w = *p;
	if (**p == '"') {
		++*p;
		while (**p != '\0' && **p != '"') {
			if (**p == '\\' && (*p)[1] != '\0')
				++*p;
			*w++ = *(*p)++;
		}
		if (**p != '"')
			return NULL;
		++*p;
	} else {
		while (**p != '\0' && **p != ' ' && **p != '\t') {
			if (**p == '\\' && (*p)[1] != '\0')
				++*p;
			*w++ = *(*p)++;
		}
	}
	if (**p != '\0')
		++*p;
	*w = '\0';
	return out;
}

typedef struct {
	int64_t mtime;
	mk_mode_t mode;
	uint32_t uid;
	uint32_t gid;
} attrs_t;

/* [TIME] MODE UID GID */
static int read_attrs(pseudo_t *ps, char **p, bool timed, attrs_t *a)
{
	char *t = NULL, *m, *u, *g;
	const char *why;

	memset(a, 0, sizeof(*a));
	a->mtime = ps->now;
	if (timed && (t = word(p)) == NULL)
		return def_error(ps, "missing time");
	if (t != NULL) {
		mk_time_t tm;

		why = mk_parse_time(t, &tm);
		if (why != NULL || tm.inode)
			return def_error(ps, "bad time \"%s\"", t);
		a->mtime = tm.seconds;
	}
	m = word(p);
	u = word(p);
	g = word(p);
	if (m == NULL || u == NULL || g == NULL)
		return def_error(ps, "expected %sMODE UID GID",
				 timed ? "TIME " : "");
	why = mk_mode_parse(m, &a->mode);
	if (why != NULL)
		return def_error(ps, "bad mode \"%s\": %s", m, why);
	why = mk_parse_user(u, &a->uid);
	if (why == NULL)
		why = mk_parse_group(g, &a->gid);
	if (why != NULL) {
		mk_mode_free(&a->mode);
		return def_error(ps, "%s", why);
	}
	return 0;
}

static int parse_num(pseudo_t *ps, const char *what, const char *text,
		     unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = text != NULL ? strtoul(text, &end, 10) : 0;
	if (text == NULL || *text == '\0' || *end != '\0' || errno != 0 ||
	    v > max || text[0] == '-')
		return def_error(ps, "bad %s \"%s\"", what,
				 text != NULL ? text : "");
	*out = (uint32_t)v;
	return 0;
}

/* ---- one definition ---------------------------------------------------- */

/* The entry on disk at host path, as a file of the image: a hard link to
 * the scanned entry of the same object, or the file itself. */
static int host_link(pseudo_t *ps, char *path, const char *host, bool follow)
{
	struct stat st;
	gs_entry_t *e;

	if ((follow ? stat(host, &st) : lstat(host, &st)) != 0) {
		free(path);
		return def_error(ps, "cannot stat \"%s\": %s", host,
				 strerror(errno));
	}
	if (!S_ISREG(st.st_mode)) {
		free(path);
		return def_error(ps, "\"%s\" is not a regular file", host);
	}
	for (size_t i = 0; i < ps->entries->count; ++i) {
		gs_entry_t *s = &ps->entries->list[i];

		if (s->root == GS_ROOT_NONE || s->hard_link ||
		    !S_ISREG(s->st.mode) || s->st.dev != (uint64_t)st.st_dev ||
		    s->st.ino != (uint64_t)st.st_ino)
			continue;
		e = push(ps, path, 0, 0, 0, 0);
		if (e == NULL)
			return -1;
		e->hard_link = true;
		e->target = strdup(s->path);
		return e->target != NULL ? 0 : oom();
	}
	e = push(ps, path, (uint32_t)st.st_mode & (S_IFMT | 07777),
		 (uint32_t)st.st_uid, (uint32_t)st.st_gid, st.st_mtime);
	if (e == NULL)
		return -1;
	gs_stat_set(&e->st, &st);
	e->source = strdup(host);
	if (e->source == NULL)
		return oom();
	ps->entries->total_bytes += (uint64_t)st.st_size;
	return 0;
}

static int set_xattr(pseudo_t *ps, gs_entry_t *e, char *def)
{
	char *eq = strchr(def, '=');
	char *key;
	uint8_t *value;

	if (eq == NULL || eq == def)
		return def_error(ps, "expected NAME=VALUE");
	key = strndup(def, (size_t)(eq - def));
	value = (uint8_t *)strdup(eq + 1);
	if (key == NULL || value == NULL) {
		free(key);
		free(value);
		return oom();
	}
	return gs_entry_set_xattr(e, key, value, strlen(eq + 1)) == 0 ? 0
								      : oom();
}

static int definition(pseudo_t *ps, char *text)
{
	char *p = text, *raw, *type, *path;
	const char *canon;
	attrs_t a;
	gs_entry_t *e;
	uint32_t kind, maj, min;
	int ret;

	ps->count += 1;
	raw = path_word(&p);
	type = word(&p);
	if (raw == NULL || type == NULL || type[1] != '\0')
		return def_error(ps, "expected \"PATH TYPE ...\"");
	canon = gs_path_canonical(raw);
	if (canon == NULL)
		return def_error(ps, "\"..\" in a path is not allowed");

	switch (type[0]) {
	case 'x':
		e = find(ps, canon);
		if (e == NULL)
			return def_error(ps, "\"%s\" does not exist",
					 canon[0] ? canon : "/");
		return set_xattr(ps, e, p);
	case 'm':
	case 'M':
		if (read_attrs(ps, &p, type[0] == 'M', &a) != 0)
			return -1;
		e = find(ps, canon);
		if (e == NULL || e->hard_link) {
			mk_mode_free(&a.mode);
			return def_error(ps, "\"%s\" does not exist",
					 canon[0] ? canon : "/");
		}
		e->st.mode =
		    (e->st.mode & S_IFMT) |
		    mk_mode_apply(&a.mode, e->st.mode, S_ISDIR(e->st.mode));
		e->st.uid = a.uid;
		e->st.gid = a.gid;
		if (type[0] == 'M')
			e->st.mtime = a.mtime;
		/* the root given its own attributes keeps them */
		e->default_attrs = false;
		mk_mode_free(&a.mode);
		return 0;
	case 'f':
	case 'F':
	case 'R':
		return def_error(ps,
				 "pseudo files with data (type %c) are "
				 "not supported by squashforge's "
				 "mksquashfs yet",
				 type[0]);
	default:
		break;
	}
	if (strchr("dDbBcCsSiIlhL", type[0]) == NULL)
		return def_error(ps, "unknown pseudo type '%c'", type[0]);
	if (canon[0] == '\0')
		return def_error(ps, "the root can only be changed (m, M)");
	if (find(ps, canon) != NULL) {
		fprintf(stderr,
			"Pseudo file \"%s\" exists in source filesystem.\n"
			"Ignoring, exclude it (-e/-ef) to override.\n",
			canon);
		return 0;
	}
	if (parents(ps, canon) != 0)
		return -1;
	path = strdup(canon);
	if (path == NULL)
		return oom();

	if (type[0] == 'l' || type[0] == 'h' || type[0] == 'L') {
		char *target = word(&p);

		if (target == NULL) {
			free(path);
			return def_error(ps, "expected a link target");
		}
		if (type[0] != 'L')
			return host_link(ps, path, target, type[0] == 'h');
		/* L links to a pseudo file only, as in mksquashfs */
		canon = gs_path_canonical(target);
		e = canon != NULL ? find(ps, canon) : NULL;
		if (e == NULL || !e->from_listing || e->line == 0) {
			free(path);
			return def_error(
			    ps, "Pseudo LINK file %s doesn't exist", target);
		}
		e = push(ps, path, 0, 0, 0, 0);
		if (e == NULL)
			return -1;
		e->hard_link = true;
		e->target = strdup(canon);
		return e->target != NULL ? 0 : oom();
	}

	if (read_attrs(ps, &p, isupper((unsigned char)type[0]), &a) != 0) {
		free(path);
		return -1;
	}
	switch (tolower((unsigned char)type[0])) {
	case 'd':
		kind = S_IFDIR;
		break;
	case 'b':
		kind = S_IFBLK;
		break;
	case 'c':
		kind = S_IFCHR;
		break;
	case 's':
		kind = S_IFLNK;
		break;
	default:
		kind = S_IFIFO;
		break;
	}
	ret = 0;
	maj = min = 0;
	if (kind == S_IFBLK || kind == S_IFCHR) {
		char *a1 = word(&p), *a2 = word(&p);

		ret = parse_num(ps, "major", a1, 0xFFFFFFFFul, &maj);
		if (ret == 0)
			ret = parse_num(ps, "minor", a2, 0xFFFFFFFFul, &min);
	} else if (kind == S_IFIFO) {
		char *w = word(&p);

		if (w != NULL && strcmp(w, "s") == 0)
			kind = S_IFSOCK;
		else if (w == NULL || strcmp(w, "f") != 0)
			ret = def_error(ps, "expected s (socket) or f (FIFO)");
	} else if (kind == S_IFLNK) {
		while (*p == ' ' || *p == '\t')
			++p;
		if (*p == '\0')
			ret = def_error(ps, "expected a symlink target");
	}
	if (ret != 0) {
		free(path);
		mk_mode_free(&a.mode);
		return -1;
	}
	e = push(ps, path, kind | mk_mode_apply(&a.mode, 0, kind == S_IFDIR),
		 a.uid, a.gid, a.mtime);
	mk_mode_free(&a.mode);
	if (e == NULL)
		return -1;
	if (kind == S_IFBLK || kind == S_IFCHR) {
		e->st.rdev = makedev(maj, min);
	} else if (kind == S_IFLNK) {
		e->target = strdup(p);
		if (e->target == NULL)
			return oom();
	}
	return 0;
}

/* ---- -pd and the sources of definitions ------------------------------ */

static int take_pd(pseudo_t *ps, const char *text)
{
	char *copy = strdup(text), *p = copy, *type;
	attrs_t a;
	int ret = -1;

	if (copy == NULL)
		return oom();
	ps->text = text;
	ps->line = 0;
	type = word(&p);
	if (type == NULL || (strcmp(type, "d") != 0 && strcmp(type, "D"))) {
		def_error(ps, "-pd expects \"d MODE UID GID\" or \"D TIME "
			      "MODE UID GID\"");
	} else if (read_attrs(ps, &p, type[0] == 'D', &a) == 0) {
		ps->have_pd = true;
		ps->pd_mode = mk_mode_apply(&a.mode, 0, true);
		ps->pd_uid = a.uid;
		ps->pd_gid = a.gid;
		ps->pd_time = a.mtime;
		mk_mode_free(&a.mode);
		ret = 0;
	}
	free(copy);
	return ret;
}

int mk_pseudo_stream(FILE *fp, const char *name, const mk_options_t *opt,
		     gs_entries_t *entries);

static int run_stream(pseudo_t *ps, FILE *fp, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	ps->where = name;
	ps->line = 0;
	while (ret == 0 && (len = getline(&line, &cap, fp)) >= 0) {
		char *p = line;

		ps->line += 1;
		if ((size_t)len != strlen(line)) {
			ret = def_error(ps, "a NUL byte in the line");
			break;
		}
		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		while (*p == ' ' || *p == '\t')
			++p;
		if (*p == '\0' || *p == '#')
			continue;
		ret = definition(ps, p);
	}
	free(line);
	return ret;
}

static void pseudo_init(pseudo_t *ps, const mk_options_t *opt,
			gs_entries_t *entries)
{
	memset(ps, 0, sizeof(*ps));
	ps->opt = opt;
	ps->entries = entries;
	ps->now = (int64_t)time(NULL);
}

int mk_pseudo_stream(FILE *fp, const char *name, const mk_options_t *opt,
		     gs_entries_t *entries)
{
	pseudo_t ps;
	int ret;

	pseudo_init(&ps, opt, entries);
	ret = run_stream(&ps, fp, name);
	gs_path_index_free(&ps.idx);
	return ret;
}

int mk_apply_pseudo(const mk_options_t *opt, gs_entries_t *entries)
{
	pseudo_t ps;
	int ret = 0;

	if (opt->pseudo_count == 0)
		return 0;
	pseudo_init(&ps, opt, entries);
	if (opt->pseudo_dir != NULL)
		ret = take_pd(&ps, opt->pseudo_dir);
	for (size_t i = 0; ret == 0 && i < opt->pseudo_count; ++i) {
		const struct mk_pseudo_arg *arg = &opt->pseudo[i];

		if (arg->is_file) {
			FILE *fp = strcmp(arg->text, "-") == 0
				       ? stdin
				       : fopen(arg->text, "r");

			if (fp == NULL) {
				fprintf(stderr,
					"mksquashfs: Cannot open pseudo file "
					"\"%s\" because %s\n",
					arg->text, strerror(errno));
				ret = -1;
				break;
			}
			ret = run_stream(&ps, fp, arg->text);
			if (ret == 0 && ferror(fp)) {
				fprintf(stderr,
					"mksquashfs: reading pseudo file "
					"\"%s\": %s\n",
					arg->text, strerror(errno));
				ret = -1;
			}
			if (fp != stdin)
				fclose(fp);
		} else {
			char *copy = strdup(arg->text);

			if (copy == NULL) {
				ret = oom();
				break;
			}
			ps.text = arg->text;
			ps.line = 0;
			ret = definition(&ps, copy);
			free(copy);
		}
	}
	gs_path_index_free(&ps.idx);
	return ret;
}

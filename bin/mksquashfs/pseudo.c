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
 *   f MODE UID GID COMMAND      a file holding COMMAND's output   (F)
 *   R TIME MODE UID GID SIZE OFFSET SPARSE
 *                               a file whose data is SIZE bytes at OFFSET
 *                               of the pseudo file's data section
 *
 * MODE is octal or symbolic, UID and GID numbers or names. A definition
 * for a path a source already has is ignored with a warning, as
 * mksquashfs does; its parent must exist, or -pd gives the attributes of
 * the directories made for it. With the source "-" (first) there are no
 * sources: the root is what a "/ d" or "/ D" definition says, and one
 * must be given.
 *
 * Files with data, as mksquashfs 4.7.5 has them (found by running it):
 *
 * - R is for -pf files only (unsquashfs -pf writes them): after the
 *   definitions, a line "# START OF DATA - DO NOT MODIFY" and a line "#"
 *   start the data section, which runs to the end of the file; OFFSET
 *   counts from its start. A -pf file that is a regular file is read
 *   where it is (the entries refer to ranges of it); a pipe (-pf -) is
 *   read once, its data section spooled to an unlinked temporary file in
 *   $TMPDIR, so memory stays bounded whatever the order of the offsets.
 *   A range past the end of the data section is an error. SPARSE is a
 *   number mksquashfs takes as a hint; blocks of zeros are sparse blocks
 *   either way, so it is checked and not used.
 * - f and F run COMMAND with /bin/sh -c, in the current directory, with
 *   mksquashfs's environment and standard input; the file holds what it
 *   writes to standard output. Commands run only once every definition
 *   has been read and checked (mksquashfs runs none when a definition is
 *   bad), one after the other in the order given, their output spooled
 *   to the temporary file. A command that fails (exit status not 0,
 *   killed) gives an empty file and a warning, as mksquashfs does; with
 *   -exit-on-error it is an error. A lowercase f's time is the run's.
 *
 * Every message names the definition: "-p 'DEF'" or FILE:LINE.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/print.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The line that starts a -pf file's data section (leading blanks
 * allowed), and the line that must follow it. */
#define DATA_MARKER "# START OF DATA - DO NOT MODIFY"

/* Bytes copied at a time into the spool. */
#define SPOOL_CHUNK (128u * 1024u)

/* An R definition of the stream being read, waiting for its data
 * section. */
typedef struct {
	size_t entry;
	uint64_t offset;
	size_t line;
} pending_t;

/* An f or F definition, run once every definition is read. */
typedef struct {
	size_t entry;
	char *command;
	/* how messages name the definition: "FILE:LINE" or "-p 'DEF'" */
	char *where;
} command_t;

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
	/* the unlinked temporary file data is spooled to (a piped data
	 * section, commands' output), made on first use: a store of the
	 * entries, which own it; spool_end is the bytes it holds */
	int spool_fd;
	uint32_t spool_store;
	uint64_t spool_end;
	/* the R definitions of the stream being read */
	pending_t *pending;
	size_t pending_count;
	size_t pending_cap;
	/* the f and F definitions, in order */
	command_t *commands;
	size_t command_count;
	size_t command_cap;
	/* source "-": the root is the one a "/ d" definition gives */
	bool stdin_root;
	bool root_given;
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

/* "-p 'DEF'" or "FILE:LINE" for the definition being read, malloc'd;
 * NULL if out of memory. */
static char *def_where(const pseudo_t *ps)
{
	char *out;
	int n = ps->line > 0 ? asprintf(&out, "%s:%zu", ps->where, ps->line)
			     : asprintf(&out, "-p '%s'", ps->text);

	return n < 0 ? NULL : out;
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

/* ---- files with data ------------------------------------------------- */

/* The spool open, made on first use: an unlinked file in $TMPDIR, so
 * that nothing is left behind whatever happens. */
static int spool_open(pseudo_t *ps)
{
	const char *dir = getenv("TMPDIR");
	char *tmpl;
	int fd;

	if (ps->spool_fd >= 0)
		return 0;
	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 &&
	    (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* a file system without O_TMPFILE */
		if (asprintf(&tmpl, "%s/mksquashfs-XXXXXX", dir) < 0)
			return oom();
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
		free(tmpl);
	}
	if (fd < 0) {
		fprintf(stderr,
			"mksquashfs: cannot make a temporary file in \"%s\" "
			"for pseudo file data: %s\n",
			dir, strerror(errno));
		return -1;
	}
	if (gs_entries_add_store(ps->entries, fd, &ps->spool_store) != 0)
		return oom();
	ps->spool_fd = fd;
	return 0;
}

/* Append n bytes to the spool. */
static int spool_write(pseudo_t *ps, const uint8_t *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = pwrite(ps->spool_fd, buf, n, (off_t)ps->spool_end);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fprintf(stderr,
				"mksquashfs: writing pseudo file data to a "
				"temporary file: %s\n",
				strerror(errno));
			return -1;
		}
		buf += w;
		n -= (size_t)w;
		ps->spool_end += (uint64_t)w;
	}
	return 0;
}

/* A number of the definition: decimal, no sign. */
static int parse_u64(pseudo_t *ps, const char *what, const char *text,
		     uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = text != NULL ? strtoull(text, &end, 10) : 0;
	if (text == NULL || !isdigit((unsigned char)text[0]) || *end != '\0' ||
	    errno != 0)
		return def_error(ps, "bad %s \"%s\"", what,
				 text != NULL ? text : "");
	*out = (uint64_t)v;
	return 0;
}

/* R: SIZE OFFSET SPARSE after the attributes. */
static int parse_r(pseudo_t *ps, char *p, uint64_t *size, uint64_t *offset)
{
	char *sz = word(&p), *off = word(&p), *sparse = word(&p);
	uint64_t hint;

	if (parse_u64(ps, "size", sz, size) != 0 ||
	    parse_u64(ps, "offset", off, offset) != 0 ||
	    parse_u64(ps, "sparse flag", sparse, &hint) != 0)
		return -1;
	if (word(&p) != NULL)
		return def_error(ps, "unexpected text after SIZE OFFSET "
				     "SPARSE");
	return 0;
}

/* e's data is found when the stream's data section is. */
static int data_file(pseudo_t *ps, gs_entry_t *e, uint64_t size,
		     uint64_t offset)
{
	pending_t *pd;

	if (ps->pending_count == ps->pending_cap) {
		size_t cap = ps->pending_cap ? 2 * ps->pending_cap : 64;

		pd = realloc(ps->pending, cap * sizeof(pd[0]));
		if (pd == NULL)
			return oom();
		ps->pending = pd;
		ps->pending_cap = cap;
	}
	pd = &ps->pending[ps->pending_count++];
	pd->entry = (size_t)(e - ps->entries->list);
	pd->offset = offset;
	pd->line = ps->line;
	e->st.size = size;
	/* no store yet: opening it fails until the data section is read */
	e->st.data.store = UINT64_MAX;
	ps->entries->total_bytes += size;
	return 0;
}

/* f, F: the command, run later (run_commands). */
static int command_file(pseudo_t *ps, gs_entry_t *e, const char *command)
{
	command_t *c;

	if (ps->command_count == ps->command_cap) {
		size_t cap = ps->command_cap ? 2 * ps->command_cap : 16;

		c = realloc(ps->commands, cap * sizeof(c[0]));
		if (c == NULL)
			return oom();
		ps->commands = c;
		ps->command_cap = cap;
	}
	c = &ps->commands[ps->command_count];
	c->entry = (size_t)(e - ps->entries->list);
	c->command = strdup(command);
	c->where = def_where(ps);
	if (c->command == NULL || c->where == NULL) {
		free(c->command);
		free(c->where);
		return oom();
	}
	ps->command_count += 1;
	e->st.data.store = UINT64_MAX;
	return 0;
}

/* The R definitions of the stream, placed in the data section that is
 * len bytes at start of store. */
static int resolve_pending(pseudo_t *ps, uint32_t store, uint64_t start,
			   uint64_t len)
{
	for (size_t i = 0; i < ps->pending_count; ++i) {
		const pending_t *pd = &ps->pending[i];
		gs_entry_t *e = &ps->entries->list[pd->entry];

		/* an empty file's offset is not looked at, as in
		 * mksquashfs */
		if (e->st.size > 0 &&
		    (pd->offset > len || e->st.size > len - pd->offset)) {
			ps->line = pd->line;
			return def_error(
			    ps,
			    "the data (%" PRIu64 " bytes at offset %" PRIu64
			    ") is past the end of the data section (%" PRIu64
			    " bytes): the pseudo file is truncated or "
			    "corrupted",
			    e->st.size, pd->offset, len);
		}
		e->st.data.store = store;
		e->st.data.offset = start + pd->offset;
	}
	ps->pending_count = 0;
	return 0;
}

/* The data section of fp, on the line after the marker. */
static int data_section(pseudo_t *ps, FILE *fp)
{
	struct stat st;
	uint64_t start, len = 0;
	uint32_t store;
	uint8_t *buf;
	int fd;

	ps->line += 1;
	if (getc(fp) != '#' || getc(fp) != '\n')
		return def_error(ps,
				 "expected \"#\" on the line after \"%s\": "
				 "the pseudo file is truncated or "
				 "corrupted",
				 DATA_MARKER);
	if (ps->pending_count == 0)
		return 0;
	fd = fileno(fp);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* read where it is: ftello counts what fp has buffered */
		off_t pos = ftello(fp);

		if (pos < 0) {
			return def_error(ps, "cannot tell the position: %s",
					 strerror(errno));
		}
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return def_error(ps, "%s", strerror(errno));
		if (gs_entries_add_store(ps->entries, fd, &store) != 0)
			return oom();
		start = (uint64_t)pos;
		len = (uint64_t)st.st_size > start
			  ? (uint64_t)st.st_size - start
			  : 0;
		return resolve_pending(ps, store, start, len);
	}
	/* a pipe: read once, to the end, into the spool */
	if (spool_open(ps) != 0)
		return -1;
	buf = malloc(SPOOL_CHUNK);
	if (buf == NULL)
		return oom();
	start = ps->spool_end;
	for (;;) {
		size_t n = fread(buf, 1, SPOOL_CHUNK, fp);

		if (n > 0 && spool_write(ps, buf, n) != 0) {
			free(buf);
			return -1;
		}
		len += n;
		if (n < SPOOL_CHUNK)
			break;
	}
	free(buf);
	if (ferror(fp))
		return def_error(ps, "reading the data section: %s",
				 strerror(errno));
	return resolve_pending(ps, ps->spool_store, start, len);
}

/* Run c's command, its output appended to the spool: 0 with *len, 1 if
 * the command failed (said in why), -1 on an error (printed). */
static int run_one(pseudo_t *ps, const command_t *c, uint64_t *len, char *why,
		   size_t why_size)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {(char *)"sh", (char *)"-c", c->command, NULL};
	uint64_t start = ps->spool_end;
	int pipefd[2], status, ret = 0;
	uint8_t *buf;
	pid_t pid;

	buf = malloc(SPOOL_CHUNK);
	if (buf == NULL)
		return oom();
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		fprintf(stderr, "mksquashfs: %s: pipe: %s\n", c->where,
			strerror(errno));
		free(buf);
		return -1;
	}
	/* the child's standard output is the pipe; the rest is ours */
	ret = posix_spawn_file_actions_init(&fa);
	if (ret == 0)
		ret = posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	if (ret == 0)
		ret = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (ret != 0) {
		fprintf(stderr, "mksquashfs: %s: cannot run /bin/sh: %s\n",
			c->where, strerror(ret));
		close(pipefd[0]);
		free(buf);
		return -1;
	}
	for (;;) {
		ssize_t n = read(pipefd[0], buf, SPOOL_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr,
				"mksquashfs: %s: reading the command's "
				"output: %s\n",
				c->where, strerror(errno));
			ret = -1;
			break;
		}
		if (n == 0)
			break;
		if (spool_write(ps, buf, (size_t)n) != 0) {
			ret = -1;
			break;
		}
	}
	free(buf);
	/* on an error the command gets SIGPIPE rather than being waited
	 * for while it writes */
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "mksquashfs: %s: waitpid: %s\n",
				c->where, strerror(errno));
			return -1;
		}
	}
	if (ret != 0)
		return -1;
	*len = ps->spool_end - start;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(why, why_size,
			 "the command was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(why, why_size, "the command exited with status %d",
			 WEXITSTATUS(status));
	return 1;
}

/* Every f and F command, in order, into its entry. */
static int run_commands(pseudo_t *ps)
{
	char why[128];

	for (size_t i = 0; i < ps->command_count; ++i) {
		const command_t *c = &ps->commands[i];
		uint64_t start, len = 0;
		gs_entry_t *e;
		int ret;

		if (spool_open(ps) != 0)
			return -1;
		start = ps->spool_end;
		ret = run_one(ps, c, &len, why, sizeof(why));
		if (ret < 0)
			return -1;
		e = &ps->entries->list[c->entry];
		if (ret > 0) {
			if (ps->opt->exit_on_error) {
				fprintf(stderr,
					"mksquashfs: %s: %s (-exit-on-error)\n",
					c->where, why);
				return -1;
			}
			/* mksquashfs packs the file empty, and goes on */
			fprintf(stderr,
				"mksquashfs: %s: %s: Failed to read file %s, "
				"creating empty file\n",
				c->where, why, e->path);
			ps->spool_end = start;
			len = 0;
			if (ftruncate(ps->spool_fd, (off_t)start) != 0) {
				/* the bytes stay, unused */
			}
		}
		e->st.size = len;
		e->st.data.store = ps->spool_store;
		e->st.data.offset = start;
		ps->entries->total_bytes += len;
	}
	return 0;
}

/* The root "/ d" or "/ D" gives with the source "-". */
static int stdin_root(pseudo_t *ps, bool timed, char *p)
{
	gs_entry_t *e = find(ps, "");
	attrs_t a;

	if (read_attrs(ps, &p, timed, &a) != 0)
		return -1;
	if (e == NULL || word(&p) != NULL) {
		mk_mode_free(&a.mode);
		if (e != NULL)
			return def_error(ps, "unexpected text after UID GID");
		return oom();
	}
	e->st.mode = S_IFDIR | mk_mode_apply(&a.mode, 0, true);
	e->st.uid = a.uid;
	e->st.gid = a.gid;
	e->st.mtime = a.mtime;
	e->default_attrs = false;
	/* a pseudo entry, as far as -pseudo-override goes */
	e->line = ps->count;
	mk_mode_free(&a.mode);
	ps->root_given = true;
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
	const char *why;
	char *key;
	uint8_t *value;
	size_t size;

	if (eq == NULL || eq == def)
		return def_error(ps, "expected NAME=VALUE");
	/* encoded as -xattrs-add's (unsquashfs -pf writes 0t values) */
	why = mk_xattr_value_decode(eq + 1, &value, &size);
	if (why != NULL)
		return def_error(ps, "bad xattr value: %s", why);
	key = strndup(def, (size_t)(eq - def));
	if (key == NULL) {
		free(value);
		return oom();
	}
	return gs_entry_set_xattr(e, key, value, size) == 0 ? 0 : oom();
}

static int definition(pseudo_t *ps, char *text)
{
	char *p = text, *raw, *type, *path;
	const char *canon;
	attrs_t a;
	gs_entry_t *e;
	uint32_t kind, maj, min;
	uint64_t size, offset;
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
		if (word(&p) != NULL) {
			mk_mode_free(&a.mode);
			return def_error(ps, "unexpected text after UID GID");
		}
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
	case 'R':
		if (ps->line == 0)
			return def_error(ps, "\"R\" definitions can only be "
					     "used in a pseudo file (-pf)");
		break;
	default:
		break;
	}
	if (strchr("dDbBcCsSiIlhLfFR", type[0]) == NULL)
		return def_error(ps, "unknown pseudo type '%c'", type[0]);
	if (canon[0] == '\0') {
		if (type[0] != 'd' && type[0] != 'D')
			return def_error(ps, "the root can only be a directory "
					     "(d, D) or changed (m, M)");
		if (ps->stdin_root)
			return stdin_root(ps, type[0] == 'D', p);
		/* mksquashfs ignores it too ("is not a directory") */
		fprintf(stderr,
			"Pseudo definition / exists in source filesystem "
			"(the root).\nIgnoring, use m or M to change it.\n");
		return 0;
	}
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
		if (S_ISDIR(e->st.mode)) {
			free(path);
			return def_error(ps, "Cannot hardlink to a Pseudo "
					     "directory");
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
	case 'f':
	case 'r':
		kind = S_IFREG;
		break;
	default:
		kind = S_IFIFO;
		break;
	}
	ret = 0;
	maj = min = 0;
	size = offset = 0;
	if (type[0] == 'R') {
		ret = parse_r(ps, p, &size, &offset);
	} else if (kind == S_IFREG) {
		while (*p == ' ' || *p == '\t')
			++p;
		if (*p == '\0')
			ret = def_error(ps, "expected a command");
	} else if (kind == S_IFBLK || kind == S_IFCHR) {
		char *a1 = word(&p), *a2 = word(&p);

		ret = parse_num(ps, "major", a1, 0xFFFFFFFFul, &maj);
		if (ret == 0)
			ret = parse_num(ps, "minor", a2, 0xFFFFFFFFul, &min);
		if (ret == 0 && word(&p) != NULL)
			ret =
			    def_error(ps, "unexpected text after MAJOR MINOR");
	} else if (kind == S_IFDIR) {
		if (word(&p) != NULL)
			ret = def_error(ps, "unexpected text after UID GID");
	} else if (kind == S_IFIFO) {
		char *w = word(&p);

		if (w != NULL && strcmp(w, "s") == 0)
			kind = S_IFSOCK;
		else if (w == NULL || strcmp(w, "f") != 0)
			ret = def_error(ps, "expected s (socket) or f (FIFO)");
		if (ret == 0 && word(&p) != NULL)
			ret = def_error(ps, "unexpected text after s or f");
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
	if (kind == S_IFREG) {
		/* the data is a range of a store, made known later */
		e->in_store = true;
		if (type[0] == 'R')
			return data_file(ps, e, size, offset);
		return command_file(ps, e, p);
	} else if (kind == S_IFBLK || kind == S_IFCHR) {
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
	ps->pending_count = 0;
	while (ret == 0 && (len = getline(&line, &cap, fp)) >= 0) {
		char *p = line;

		ps->line += 1;
		if ((size_t)len != strlen(line)) {
			ret = def_error(ps, "a NUL byte in the line");
			break;
		}
		while (*p == ' ' || *p == '\t')
			++p;
		/* the marker as unsquashfs writes it, not a '\r' more */
		if (strcmp(p, DATA_MARKER "\n") == 0 ||
		    strcmp(p, DATA_MARKER) == 0) {
			ret = data_section(ps, fp);
			free(line);
			return ret;
		}
		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (*p == '\0' || *p == '#')
			continue;
		ret = definition(ps, p);
	}
	free(line);
	if (ret == 0 && ps->pending_count > 0) {
		ps->line = ps->pending[0].line;
		ret = def_error(ps,
				"no data section (a line \"%s\") in the "
				"pseudo file for this R definition",
				DATA_MARKER);
	}
	return ret;
}

static void pseudo_init(pseudo_t *ps, const mk_options_t *opt,
			gs_entries_t *entries)
{
	memset(ps, 0, sizeof(*ps));
	ps->opt = opt;
	ps->entries = entries;
	ps->now = (int64_t)time(NULL);
	ps->spool_fd = -1;
	ps->stdin_root = opt->source_count > 0 && opt->sources != NULL &&
			 strcmp(opt->sources[0], "-") == 0;
}

static void pseudo_cleanup(pseudo_t *ps)
{
	gs_path_index_free(&ps->idx);
	free(ps->pending);
	for (size_t i = 0; i < ps->command_count; ++i) {
		free(ps->commands[i].command);
		free(ps->commands[i].where);
	}
	free(ps->commands);
}

/* Reads and checks only: the fuzz target's way in runs no command. */
int mk_pseudo_stream(FILE *fp, const char *name, const mk_options_t *opt,
		     gs_entries_t *entries)
{
	pseudo_t ps;
	int ret;

	pseudo_init(&ps, opt, entries);
	ret = run_stream(&ps, fp, name);
	pseudo_cleanup(&ps);
	return ret;
}

int mk_apply_pseudo(const mk_options_t *opt, gs_entries_t *entries)
{
	pseudo_t ps;
	int ret = 0;

	pseudo_init(&ps, opt, entries);
	if (opt->pseudo_count == 0 && !ps.stdin_root)
		return 0;
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
	if (ret == 0 && ps.stdin_root && !ps.root_given) {
		fprintf(stderr, "mksquashfs: Source is \"-\", but no pseudo "
				"definition for \"/\" (give \"/ d MODE UID "
				"GID\")\n");
		ret = -1;
	}
	/* only once every definition is known to be good */
	if (ret == 0)
		ret = run_commands(&ps);
	pseudo_cleanup(&ps);
	return ret;
}

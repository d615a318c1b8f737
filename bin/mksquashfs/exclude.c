/* SPDX-License-Identifier: MIT */
/*
 * exclude.c - what -e, -ef, -wildcards, -regex and -max-depth leave out,
 * by mksquashfs's rules (found by running mksquashfs 4.7.5):
 *
 * - An exclude is a path relative to each source directory, compared
 *   component by component ("a//b/" is "a/b"); it leaves out what it names
 *   and everything below. One that does not exist is no error.
 * - Starting with "/", "./" or "../" it names a file on disk instead, found
 *   from the current directory (symlinks followed), and leaves out that
 *   object wherever the scan meets it (by device and inode). One that
 *   cannot be found is named in a warning and ignored.
 * - With -wildcards each component is a shell pattern (fnmatch with
 *   extended patterns; '*' does not match a leading '.'), with -regex a
 *   POSIX extended regular expression that matches anywhere in the
 *   component. "... PATTERN" matches PATTERN's components at any depth.
 *   Disk paths are then refused.
 * - -ef FILE gives one exclude a line; leading blanks are skipped, and
 *   empty lines and lines starting with '#' mean nothing.
 * - -max-depth N keeps what is at most N levels below the image's root:
 *   the directories at level N are kept, empty.
 * - -one-file-system-x leaves out directories on another device than
 *   their source (-one-file-system keeps them, empty: the walk does that).
 *
 * The scan asks before entering a directory, so that a left-out subtree
 * (/proc, say) is never read.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/print.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
	/* the components, or the compiled expressions of them */
	char **parts;
	regex_t *regs;
	size_t count;
	/* "... PATTERN": at any depth */
	bool anywhere;
} rule_t;

struct mk_exclude {
	mk_match_t match;
	rule_t *rules;
	size_t rule_count;
	/* disk objects left out */
	struct {
		dev_t dev;
		ino_t ino;
	} * ids;
	size_t id_count;
	long max_depth;
	bool one_file_system_x;
	/* set by the scan of each source: how deep below the image's root
	 * the source directory is, and its device */
	unsigned int base_depth;
	dev_t source_dev;
};

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

static void rule_free(rule_t *r, mk_match_t match)
{
	for (size_t i = 0; i < r->count; ++i) {
		free(r->parts[i]);
		if (match == MK_MATCH_REGEX && r->regs != NULL)
			regfree(&r->regs[i]);
	}
	free(r->parts);
	free(r->regs);
}

void mk_exclude_destroy(mk_exclude_t *ex)
{
	if (ex == NULL)
		return;
	for (size_t i = 0; i < ex->rule_count; ++i)
		rule_free(&ex->rules[i], ex->match);
	free(ex->rules);
	free(ex->ids);
	free(ex);
}

static bool is_disk_path(const char *text)
{
	return text[0] == '/' || strncmp(text, "./", 2) == 0 ||
	       strncmp(text, "../", 3) == 0 || strcmp(text, ".") == 0 ||
	       strcmp(text, "..") == 0;
}

int mk_exclude_add_object(mk_exclude_t *ex, const struct stat *st)
{
	void *ids = realloc(ex->ids, (ex->id_count + 1) * sizeof(ex->ids[0]));

	if (ids == NULL)
		return oom();
	ex->ids = ids;
	ex->ids[ex->id_count].dev = st->st_dev;
	ex->ids[ex->id_count].ino = st->st_ino;
	ex->id_count += 1;
	return 0;
}

static int add_disk_path(mk_exclude_t *ex, const char *text)
{
	struct stat st;

	if (stat(text, &st) != 0) {
		fprintf(stderr,
			"Cannot stat exclude dir/file %s because %s, "
			"ignoring\n",
			text, strerror(errno));
		return 0;
	}
	return mk_exclude_add_object(ex, &st);
}

static int add_rule(mk_exclude_t *ex, const char *text)
{
	char *copy, *save = NULL;
	rule_t r, *list;

	if (is_disk_path(text)) {
		if (ex->match != MK_MATCH_PLAIN) {
			fputs("FATAL ERROR: /, ./ and ../ prefixed excludes "
			      "not supported with -wildcards or -regex "
			      "options\n",
			      stderr);
			return -1;
		}
		return add_disk_path(ex, text);
	}
	memset(&r, 0, sizeof(r));
	if (ex->match != MK_MATCH_PLAIN && strncmp(text, "... ", 4) == 0) {
		r.anywhere = true;
		text += 4;
	}
	copy = strdup(text);
	if (copy == NULL)
		return oom();
	for (char *tok = strtok_r(copy, "/", &save); tok != NULL;
	     tok = strtok_r(NULL, "/", &save)) {
		char **parts = realloc(r.parts, (r.count + 1) * sizeof(char *));

		if (parts == NULL)
			goto fail_oom;
		r.parts = parts;
		r.parts[r.count] = strdup(tok);
		if (r.parts[r.count] == NULL)
			goto fail_oom;
		r.count += 1;
	}
	free(copy);
	copy = NULL;
	/* "/" alone or "" names nothing */
	if (r.count == 0) {
		rule_free(&r, MK_MATCH_PLAIN);
		return 0;
	}
	if (ex->match == MK_MATCH_REGEX) {
		r.regs = calloc(r.count, sizeof(r.regs[0]));
		if (r.regs == NULL)
			goto fail_oom;
		for (size_t i = 0; i < r.count; ++i) {
			char why[256];
			int ret = regcomp(&r.regs[i], r.parts[i],
					  REG_EXTENDED | REG_NOSUB);

			if (ret != 0) {
				regerror(ret, &r.regs[i], why, sizeof(why));
				fprintf(stderr,
					"mksquashfs: invalid regex %s in "
					"exclude %s, because %s\n",
					r.parts[i], text, why);
				/* only the ones before compiled */
				for (size_t j = 0; j < i; ++j)
					regfree(&r.regs[j]);
				free(r.regs);
				r.regs = NULL;
				rule_free(&r, MK_MATCH_PLAIN);
				return -1;
			}
		}
	}
	list = realloc(ex->rules, (ex->rule_count + 1) * sizeof(list[0]));
	if (list == NULL) {
		rule_free(&r, ex->match);
		return oom();
	}
	ex->rules = list;
	ex->rules[ex->rule_count++] = r;
	return 0;
fail_oom:
	free(copy);
	rule_free(&r, MK_MATCH_PLAIN);
	return oom();
}

static int read_exclude_file(mk_exclude_t *ex, const char *name)
{
	FILE *fp = fopen(name, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (fp == NULL) {
		fprintf(stderr,
			"FATAL ERROR: Failed to open exclude file \"%s\" "
			"because %s\n",
			name, strerror(errno));
		return -1;
	}
	while (ret == 0 && (len = getline(&line, &cap, fp)) >= 0) {
		char *p = line;

		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		while (*p == ' ' || *p == '\t')
			++p;
		if (*p == '\0' || *p == '#')
			continue;
		ret = add_rule(ex, p);
	}
	if (ret == 0 && ferror(fp)) {
		fprintf(stderr,
			"FATAL ERROR: reading exclude file \"%s\": %s\n", name,
			strerror(errno));
		ret = -1;
	}
	free(line);
	fclose(fp);
	return ret;
}

int mk_exclude_create(const mk_options_t *opt, mk_exclude_t **out)
{
	mk_exclude_t *ex = calloc(1, sizeof(*ex));

	*out = NULL;
	if (ex == NULL)
		return oom();
	ex->match = opt->match;
	ex->max_depth = opt->max_depth;
	ex->one_file_system_x = opt->one_file_system_x;
	/* mksquashfs reads the -ef files and then the -e list */
	for (size_t i = 0; i < opt->exclude_file_count; ++i) {
		if (read_exclude_file(ex, opt->exclude_files[i]) != 0)
			goto fail;
	}
	for (size_t i = 0; i < opt->exclude_count; ++i) {
		if (add_rule(ex, opt->excludes[i]) != 0)
			goto fail;
	}
	*out = ex;
	return 0;
fail:
	mk_exclude_destroy(ex);
	return -1;
}

void mk_exclude_set_source(mk_exclude_t *ex, unsigned int base_depth, dev_t dev)
{
	ex->base_depth = base_depth;
	ex->source_dev = dev;
}

static bool part_matches(const mk_exclude_t *ex, const rule_t *r, size_t i,
			 const char *name, size_t len)
{
	char buf[4096];

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	switch (ex->match) {
	case MK_MATCH_WILDCARDS:
		return fnmatch(r->parts[i], buf, FNM_PERIOD | FNM_EXTMATCH) ==
		       0;
	case MK_MATCH_REGEX:
		return regexec(&r->regs[i], buf, 0, NULL, 0) == 0;
	default:
		return strcmp(r->parts[i], buf) == 0;
	}
}

/* Whether the components comps[from..n) are exactly r's. */
static bool rule_matches_at(const mk_exclude_t *ex, const rule_t *r,
			    const char *const *comps, const size_t *lens,
			    size_t n, size_t from)
{
	if (n - from != r->count)
		return false;
	for (size_t i = 0; i < r->count; ++i) {
		if (!part_matches(ex, r, i, comps[from + i], lens[from + i]))
			return false;
	}
	return true;
}

#define MAX_COMPONENTS 2048

int mk_exclude_filter(void *user, const char *path, const struct stat *st)
{
	mk_exclude_t *ex = user;
	const char *comps[MAX_COMPONENTS];
	size_t lens[MAX_COMPONENTS], n = 0;
	const char *p = path;

	for (size_t i = 0; i < ex->id_count; ++i) {
		if (ex->ids[i].dev == st->st_dev &&
		    ex->ids[i].ino == st->st_ino)
			return 1;
	}
	if (ex->one_file_system_x && S_ISDIR(st->st_mode) &&
	    st->st_dev != ex->source_dev)
		return 1;
	while (*p != '\0' && n < MAX_COMPONENTS) {
		const char *slash = strchr(p, '/');
		size_t len = slash != NULL ? (size_t)(slash - p) : strlen(p);

		comps[n] = p;
		lens[n++] = len;
		p += len;
		if (*p == '/')
			++p;
	}
	if (ex->max_depth >= 0 && (long)(n + ex->base_depth) > ex->max_depth)
		return 1;
	for (size_t i = 0; i < ex->rule_count; ++i) {
		const rule_t *r = &ex->rules[i];

		if (!r->anywhere) {
			if (rule_matches_at(ex, r, comps, lens, n, 0))
				return 1;
			continue;
		}
		for (size_t from = 0; from + r->count <= n; ++from) {
			if (rule_matches_at(ex, r, comps, lens, n, from))
				return 1;
		}
	}
	return 0;
}

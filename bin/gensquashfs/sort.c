/* SPDX-License-Identifier: MIT */
/*
 * sort.c - the sort file (--sort-file): in which order the files' data is
 * packed, and how each file is stored.
 *
 * One rule a line, "PRIORITY [FLAGS] NAME"; blank lines and '#' comments
 * are skipped. NAME is an image path (made canonical; it may be
 * double-quoted like a pack file's paths), compared whole, or with the
 * glob flag as an fnmatch pattern in which wildcards do not match '/'
 * (glob_no_path: they do). The first rule that matches a file wins; files
 * no rule matches have priority 0. Files are packed by priority, lowest
 * first, in their listing or scan order among equals.
 *
 * The other flags become the writer's per-file flags: align,
 * dont_fragment, dont_compress, dont_deduplicate, nosparse.
 */
#include "config.h"

#include "gensquashfs.h"
#include "common/print.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	RULE_GLOB = 0x01,
	RULE_GLOB_NO_PATH = 0x02,
};

typedef struct {
	int64_t priority;
	unsigned int file_flags;
	unsigned int match;
	char *pattern;
} rule_t;

typedef struct {
	const char *name;
	size_t line;
	rule_t *rules;
	size_t count;
	size_t capacity;
} sort_file_t;

static int bad(sort_file_t *sf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(sort_file_t *sf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_text_verror(sf->name, sf->line, fmt, ap);
	va_end(ap);
	return -1;
}

static const struct {
	const char *name;
	unsigned int file_flag;
	unsigned int match;
} flag_names[] = {
    {"glob", 0, RULE_GLOB},
    {"glob_no_path", 0, RULE_GLOB | RULE_GLOB_NO_PATH},
    {"align", SQFS_FILE_ALIGN, 0},
    {"dont_fragment", SQFS_FILE_DONT_FRAGMENT, 0},
    {"dont_compress", SQFS_FILE_DONT_COMPRESS, 0},
    {"dont_deduplicate", SQFS_FILE_DONT_DEDUPLICATE, 0},
    {"nosparse", SQFS_FILE_NO_SPARSE, 0},
};

/* "[a,b,...]" at *p into the rule. */
static int parse_flags(sort_file_t *sf, char **p, rule_t *r)
{
	char *end = strchr(*p, ']'), *name = *p + 1;

	if (end == NULL)
		return bad(sf, "'[' without ']'");
	*end = '\0';
	*p = end + 1;
	while (name != NULL) {
		char *comma = strchr(name, ',');
		size_t i;

		if (comma != NULL)
			*comma = '\0';
		name += strspn(name, " \t");
		name[strcspn(name, " \t")] = '\0';
		for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]);
		     ++i) {
			if (strcmp(name, flag_names[i].name) == 0)
				break;
		}
		if (i == sizeof(flag_names) / sizeof(flag_names[0]))
			return bad(sf, "unknown flag '%s'", name);
		r->file_flags |= flag_names[i].file_flag;
		r->match |= flag_names[i].match;
		name = comma != NULL ? comma + 1 : NULL;
	}
	return 0;
}

/* The name at p: the rest of the line, or a quoted string; canonical. */
static int parse_name(sort_file_t *sf, char *p, rule_t *r)
{
	char *in;

	p += strspn(p, " \t");
	if (*p == '"') {
		in = p;
		if (gs_text_unquote(&in, &p) != 0)
			return bad(sf, "unterminated quote");
		in += strspn(in, " \t");
		if (*in != '\0')
			return bad(sf, "unexpected '%s' after the name", in);
	} else {
		size_t n = strlen(p);

		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			p[--n] = '\0';
	}
	/* compared with the image's paths, which are canonical */
	if (gs_path_canonical(p) == NULL)
		return bad(sf, "'..' in the name '%s'", p);
	if (*p == '\0')
		return bad(sf, "no name");
	r->pattern = strdup(p);
	if (r->pattern == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	return 0;
}

static int parse_line(sort_file_t *sf, char *p)
{
	rule_t r = {0};
	char *end;

	errno = 0;
	r.priority = strtoll(p, &end, 10);
	if (end == p || errno != 0 || (*end != ' ' && *end != '\t'))
		return bad(sf, "no priority (a decimal number) at '%s'", p);
	p = end + strspn(end, " \t");
	if (*p == '[' && parse_flags(sf, &p, &r) != 0)
		return -1;
	if (parse_name(sf, p, &r) != 0)
		return -1;

	if (sf->count == sf->capacity) {
		size_t cap = sf->capacity ? 2 * sf->capacity : 64;
		rule_t *n = realloc(sf->rules, cap * sizeof(n[0]));

		if (n == NULL) {
			free(r.pattern);
			tool_error(NULL, "out of memory");
			return -1;
		}
		sf->rules = n;
		sf->capacity = cap;
	}
	sf->rules[sf->count++] = r;
	return 0;
}

static bool matches(const rule_t *r, const char *path)
{
	if (!(r->match & RULE_GLOB))
		return strcmp(r->pattern, path) == 0;
	return fnmatch(r->pattern, path,
		       (r->match & RULE_GLOB_NO_PATH) ? 0 : FNM_PATHNAME) == 0;
}

static int sort_line(void *user, size_t line, char *text)
{
	sort_file_t *sf = user;

	sf->line = line;
	return parse_line(sf, text);
}

int gs_apply_sort_stream(FILE *fp, const char *name, gs_entries_t *entries)
{
	sort_file_t sf = {0};
	int ret;

	sf.name = name;
	ret = gs_text_lines(fp, name, sort_line, &sf);

	for (size_t i = 0; ret == 0 && i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];

		if (!S_ISREG(e->st.mode) || e->hard_link)
			continue;
		for (size_t j = 0; j < sf.count; ++j) {
			if (matches(&sf.rules[j], e->path)) {
				e->priority = sf.rules[j].priority;
				e->file_flags = sf.rules[j].file_flags;
				break;
			}
		}
	}
	for (size_t j = 0; j < sf.count; ++j)
		free(sf.rules[j].pattern);
	free(sf.rules);
	return ret;
}

int gs_apply_sort_file(const char *name, gs_entries_t *entries)
{
	FILE *fp = gs_text_open(name);
	int ret;

	if (fp == NULL)
		return -1;
	ret = gs_apply_sort_stream(fp, name, entries);
	fclose(fp);
	return ret;
}

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
 *
 * Rules without a glob flag are found by name in a hash table (the first
 * rule of a name wins), so that a sort file that names every file of a
 * big tree costs a look-up per file, not a pass over the rules: a file
 * then tries only the glob rules that come before its exact rule, in
 * order, which gives the rule a walk of every line would find first.
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
	/* the exact rules by name: the first rule of each name, or
	 * SIZE_MAX for a free slot (open addressing, at most half full) */
	size_t *slots;
	size_t mask;
	/* the glob rules, in order */
	size_t *globs;
	size_t glob_count;
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

static bool glob_matches(const rule_t *r, const char *path)
{
	return fnmatch(r->pattern, path,
		       (r->match & RULE_GLOB_NO_PATH) ? 0 : FNM_PATHNAME) == 0;
}

/* The slot of name: the one holding its first exact rule, or the free
 * one where it would go. */
static size_t *exact_slot(const sort_file_t *sf, const char *name)
{
	size_t i = (size_t)gs_path_hash(name) & sf->mask;

	while (sf->slots[i] != SIZE_MAX &&
	       strcmp(sf->rules[sf->slots[i]].pattern, name) != 0)
		i = (i + 1) & sf->mask;
	return &sf->slots[i];
}

/* The table of exact rules and the list of glob rules. */
static int index_rules(sort_file_t *sf)
{
	size_t size = 16;

	while (size / 2 <= sf->count)
		size *= 2;
	sf->slots = malloc(size * sizeof(sf->slots[0]));
	sf->globs = malloc((sf->count + 1) * sizeof(sf->globs[0]));
	if (sf->slots == NULL || sf->globs == NULL) {
		tool_error(NULL, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < size; ++i)
		sf->slots[i] = SIZE_MAX;
	sf->mask = size - 1;
	for (size_t j = 0; j < sf->count; ++j) {
		size_t *slot;

		if (sf->rules[j].match & RULE_GLOB) {
			sf->globs[sf->glob_count++] = j;
			continue;
		}
		slot = exact_slot(sf, sf->rules[j].pattern);
		/* a later rule of the same name never wins */
		if (*slot == SIZE_MAX)
			*slot = j;
	}
	return 0;
}

/* The first rule that matches path, or NULL. */
static const rule_t *first_match(const sort_file_t *sf, const char *path)
{
	size_t best = *exact_slot(sf, path);

	/* only a glob rule before the exact one can come first */
	for (size_t k = 0; k < sf->glob_count && sf->globs[k] < best; ++k) {
		if (glob_matches(&sf->rules[sf->globs[k]], path)) {
			best = sf->globs[k];
			break;
		}
	}
	return best != SIZE_MAX ? &sf->rules[best] : NULL;
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
	if (ret == 0)
		ret = index_rules(&sf);

	for (size_t i = 0; ret == 0 && i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];
		const rule_t *r;

		if (!S_ISREG(e->st.mode) || e->hard_link)
			continue;
		r = first_match(&sf, e->path);
		if (r != NULL) {
			e->priority = r->priority;
			e->file_flags = r->file_flags;
		}
	}
	for (size_t j = 0; j < sf.count; ++j)
		free(sf.rules[j].pattern);
	free(sf.rules);
	free(sf.slots);
	free(sf.globs);
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

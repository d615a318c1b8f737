/* SPDX-License-Identifier: MIT */
/*
 * select.c - which entries the paths on the command line name.
 *
 * 4.7.5 matches extract and exclude paths a component at a time, each
 * component a shell wildcard (fnmatch), empty components ignored: a path
 * names an entry and everything below it, and the directories on the way
 * to it are created (and listed) too. A verdict depends on the entry's
 * own path only, so a walk can judge each entry as it comes.
 */
#include "config.h"

#include "unsquashfs.h"

#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>

/* The next component of *p (empty components skipped), or NULL. */
static const char *next_comp(const char **p, size_t *len)
{
	const char *s = *p, *start;

	while (*s == '/')
		++s;
	if (*s == '\0')
		return NULL;
	start = s;
	while (*s != '\0' && *s != '/')
		++s;
	*len = (size_t)(s - start);
	*p = s;
	return start;
}

static bool comp_matches(const uq_options_t *opt, const char *pat, size_t plen,
			 const char *name, size_t nlen)
{
	char pbuf[4097], nbuf[4097];

	if (plen >= sizeof(pbuf) || nlen >= sizeof(nbuf))
		return false;
	if (opt->no_wildcards)
		return plen == nlen && memcmp(pat, name, plen) == 0;
	memcpy(pbuf, pat, plen);
	pbuf[plen] = '\0';
	memcpy(nbuf, name, nlen);
	nbuf[nlen] = '\0';
	return fnmatch(pbuf, nbuf, 0) == 0;
}

typedef enum {
	/* a component differs */
	M_NONE,
	/* the path is a proper prefix of the pattern */
	M_PREFIX,
	/* the pattern covers the path, or a prefix of it */
	M_FULL,
} match_t;

static match_t match(const uq_options_t *opt, const char *pattern,
		     const char *path)
{
	const char *pp = pattern, *ep = path, *pc, *ec;
	size_t plen = 0, elen = 0;

	for (;;) {
		pc = next_comp(&pp, &plen);
		if (pc == NULL)
			return M_FULL;
		ec = next_comp(&ep, &elen);
		if (ec == NULL)
			return M_PREFIX;
		if (!comp_matches(opt, pc, plen, ec, elen))
			return M_NONE;
	}
}

static unsigned int depth_of(const char *path)
{
	unsigned int depth = path[0] != '\0';

	for (; *path != '\0'; ++path)
		depth += *path == '/';
	return depth;
}

uq_verdict_t uq_select(const uq_options_t *opt, const sqfs_entry_t *e)
{
	bool dir = S_ISDIR(e->mode);
	uq_verdict_t verdict = UQ_TAKE;

	if (e->path[0] == '\0')
		return UQ_TAKE;
	if (opt->max_depth_set && depth_of(e->path) > opt->max_depth)
		return UQ_SKIP;
	for (size_t i = 0; i < opt->exclude.count; ++i) {
		if (match(opt, opt->exclude.items[i], e->path) == M_FULL)
			return UQ_SKIP;
	}
	if (opt->extract.count == 0)
		return UQ_TAKE;
	verdict = UQ_SKIP;
	for (size_t i = 0; i < opt->extract.count; ++i) {
		match_t m = match(opt, opt->extract.items[i], e->path);

		if (m == M_FULL)
			return UQ_TAKE;
		if (m == M_PREFIX && dir)
			verdict = UQ_PASS;
	}
	return verdict;
}

bool uq_names_exactly(const uq_options_t *opt, const char *pattern,
		      const char *path)
{
	const char *pp = pattern, *ep = path, *pc, *ec;
	size_t plen = 0, elen = 0;

	for (;;) {
		pc = next_comp(&pp, &plen);
		ec = next_comp(&ep, &elen);
		if (pc == NULL || ec == NULL)
			return pc == NULL && ec == NULL;
		if (!comp_matches(opt, pc, plen, ec, elen))
			return false;
	}
}

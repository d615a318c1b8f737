/* SPDX-License-Identifier: MIT */
/*
 * links.c - hard links not bound when they were added (their target did
 * not exist yet), resolved by path before finish. A link bound when it
 * was added keeps its object and needs nothing here. Chains of links are
 * followed; loops and targets that are missing or directories make a
 * link broken.
 *
 * Unbound links are rare (an archive names a link's target before the
 * link), so they are kept in memory, in the order they were added, which
 * is the order of their sequence numbers; resolving looks every step up
 * among the records (wr_entries_newest).
 */
#include "config.h"

#include "sqfs/writer/internal.h"
#include "sqfs/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void wr_links_cleanup(wr_links_t *l)
{
	for (size_t i = 0; i < l->count; ++i) {
		free(l->list[i].name);
		free(l->list[i].target);
	}
	free(l->list);
	memset(l, 0, sizeof(*l));
}

int wr_links_add_unbound(wr_links_t *l, uint64_t seq, uint32_t parent,
			 const char *name, size_t len, const char *target)
{
	wr_unbound_t *u;

	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		wr_unbound_t *list = realloc(l->list, cap * sizeof(list[0]));

		if (list == NULL)
			return SQFS_ERROR_ALLOC;
		l->list = list;
		l->cap = cap;
	}
	u = &l->list[l->count];
	memset(u, 0, sizeof(*u));
	u->seq = seq;
	u->parent = parent;
	u->name = malloc(len + 1);
	u->target = strdup(target);
	if (u->name == NULL || u->target == NULL) {
		free(u->name);
		free(u->target);
		return SQFS_ERROR_ALLOC;
	}
	memcpy(u->name, name, len);
	u->name[len] = '\0';
	l->count += 1;
	return 0;
}

/* Whether an unbound link is still in the image: its directory alive, no
 * directory of its name, and no newer record of its name. */
static int is_live(sqfs_writer_t *wr, const wr_unbound_t *u, bool *live)
{
	size_t len = strlen(u->name);
	wr_record_t r;
	int ret;

	*live = false;
	if (wr_node(&wr->tree, u->parent)->flags & NODE_DEAD)
		return 0;
	if (wr_tree_lookup(&wr->tree, u->parent, u->name, len) != NODE_NIL)
		return 0;
	ret = wr_entries_newest(&wr->entries, u->parent, u->name, len, &r);
	if (ret <= 0)
		return ret;
	*live = r.seq == u->seq;
	return 0;
}

int wr_newest_at_path(struct sqfs_writer *wr, const char *path,
		      wr_record_t *out)
{
	const char *p = path, *comp, *n;
	uint32_t dir = NODE_ROOT;
	size_t len, nlen;

	if (wr_path_next(&p, &comp, &len) <= 0)
		return 0; /* the root: a directory */
	for (;;) {
		uint32_t id = wr_tree_lookup(&wr->tree, dir, comp, len);

		if (wr_path_next(&p, &n, &nlen) <= 0) {
			if (id != NODE_NIL)
				return 0; /* a directory */
			break;
		}
		if (id == NODE_NIL)
			return 0;
		dir = id;
		comp = n;
		len = nlen;
	}
	return wr_entries_newest(&wr->entries, dir, comp, len, out);
}

/*
 * What path names now: *object the sequence number of the record there,
 * or WR_LINK_BROKEN; an unbound link there is followed (its target copied
 * into *next).
 */
static int lookup_path(sqfs_writer_t *wr, const char *path, uint64_t *object,
		       char **next)
{
	wr_record_t r;
	int ret;

	*object = WR_LINK_BROKEN;
	*next = NULL;
	ret = wr_newest_at_path(wr, path, &r);
	if (ret <= 0)
		return ret;
	if (r.kind != WR_REC_LINK) {
		*object = r.seq;
		return 0;
	}
	if (r.bound != 0) {
		*object = r.bound;
		return 0;
	}
	*next = malloc(r.text_len + 1);
	if (*next == NULL)
		return SQFS_ERROR_ALLOC;
	memcpy(*next, r.text, r.text_len);
	(*next)[r.text_len] = '\0';
	*object = 0;
	return 0;
}

int wr_links_resolve(sqfs_writer_t *wr, size_t *broken)
{
	wr_links_t *l = &wr->links;
	int ret;

	*broken = 0;
	for (size_t i = 0; i < l->count; ++i) {
		wr_unbound_t *u = &l->list[i];
		char *path = NULL, *next;
		uint64_t object = 0;
		bool live;

		ret = is_live(wr, u, &live);
		if (ret != 0)
			return ret;
		u->live = live;
		u->result = 0;
		if (!live)
			continue;

		/* a chain longer than the links there are is a loop */
		for (size_t step = 0; step <= l->count; ++step) {
			ret = lookup_path(wr, path != NULL ? path : u->target,
					  &object, &next);
			free(path);
			path = next;
			if (ret != 0) {
				free(path);
				return ret;
			}
			if (path == NULL)
				break;
		}
		free(path);
		u->result = object != 0 ? object : WR_LINK_BROKEN;
		if (u->result == WR_LINK_BROKEN)
			*broken += 1;
	}
	return 0;
}

int wr_links_drop_broken(sqfs_writer_t *wr,
			 void (*report)(void *user, const char *path,
					const char *target),
			 void *user)
{
	wr_links_t *l = &wr->links;
	int count = 0, ret;

	for (size_t i = 0; i < l->count; ++i) {
		wr_unbound_t *u = &l->list[i];
		wr_record_t r;

		if (!u->live || u->result != WR_LINK_BROKEN)
			continue;
		if (report != NULL) {
			char *path =
			    wr_entry_path(&wr->tree, u->parent, u->name);

			if (path == NULL)
				return SQFS_ERROR_ALLOC;
			report(user, path, u->target);
			free(path);
		}

		/* a tombstone hides the link from here on */
		memset(&r, 0, sizeof(r));
		r.parent = u->parent;
		r.name = u->name;
		r.name_len = strlen(u->name);
		r.seq = wr->entries.next_seq++;
		r.kind = WR_REC_GONE;
		ret = wr_entries_add(&wr->entries, &r);
		if (ret != 0)
			return ret;
		/* counted as an entry it is not */
		wr->entries.count -= 1;
		u->live = false;
		if (count < INT_MAX)
			count += 1;
	}
	return count;
}

void wr_links_first_broken(sqfs_writer_t *wr, char **path, const char **target)
{
	*path = NULL;
	*target = NULL;
	for (size_t i = 0; i < wr->links.count; ++i) {
		const wr_unbound_t *u = &wr->links.list[i];

		if (u->live && u->result == WR_LINK_BROKEN) {
			*path = wr_entry_path(&wr->tree, u->parent, u->name);
			*target = u->target;
			return;
		}
	}
}

uint64_t wr_links_result(const wr_links_t *l, uint64_t seq)
{
	size_t lo = 0, hi = l->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->list[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->count && l->list[lo].seq == seq && l->list[lo].live)
		return l->list[lo].result;
	return WR_LINK_BROKEN;
}

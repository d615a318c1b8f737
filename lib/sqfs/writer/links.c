/* SPDX-License-Identifier: MIT */
/*
 * links.c - resolving hard links at finish. A link bound when it was
 * added keeps its object; the others are resolved by path: chains are
 * followed, loops and targets that are missing or directories make a link
 * broken.
 */
#include "config.h"

#include "sqfs/writer/internal.h"

/* What a link's target path names right now: a node id or LINK_BROKEN. */
static uint32_t lookup_target(wr_tree_t *t, const wr_node_t *link)
{
	uint32_t id = wr_tree_find(t, link->data.target);

	if (id == NODE_NIL || wr_node_is_dir(wr_node(t, id)))
		return LINK_BROKEN;
	return id;
}

/*
 * Follow a chain of links from start. Every link on the chain is marked
 * LINK_VISITING as it is entered, so meeting such a link again is a loop;
 * then the whole chain takes the result. Each link is thus looked up at
 * most twice, however the chains overlap.
 */
static void resolve_chain(wr_tree_t *t, uint32_t start)
{
	uint32_t id = start, result;

	for (;;) {
		wr_node_t *n = wr_node(t, id);

		if (!(n->flags & NODE_HARDLINK)) {
			result = id;
			break;
		}
		if (n->flags & NODE_LINK_BOUND) {
			result = n->num;
			break;
		}
		if (n->num == LINK_VISITING) {
			result = LINK_BROKEN;
			break;
		}
		if (n->num != LINK_UNRESOLVED) {
			result = n->num;
			break;
		}

		n->num = LINK_VISITING;
		id = lookup_target(t, n);
		if (id == LINK_BROKEN) {
			result = LINK_BROKEN;
			break;
		}
	}

	/* Walk the chain again and record the result. */
	id = start;
	for (;;) {
		wr_node_t *n = wr_node(t, id);

		if (!(n->flags & NODE_HARDLINK) || n->num != LINK_VISITING)
			break;
		n->num = result;
		id = lookup_target(t, n);
		if (id == LINK_BROKEN)
			break;
	}
}

size_t wr_links_resolve(wr_tree_t *t)
{
	size_t broken = 0;

	for (uint32_t id = 0; id < t->node_count; ++id) {
		wr_node_t *n = wr_node(t, id);

		if ((n->flags & NODE_HARDLINK) && !(n->flags & NODE_LINK_BOUND))
			n->num = LINK_UNRESOLVED;
	}

	for (uint32_t id = 0; id < t->node_count; ++id) {
		wr_node_t *n = wr_node(t, id);

		if (!(n->flags & NODE_HARDLINK) || (n->flags & NODE_DEAD))
			continue;
		if (n->num == LINK_UNRESOLVED)
			resolve_chain(t, id);
		if (n->num == LINK_BROKEN)
			broken += 1;
	}
	return broken;
}

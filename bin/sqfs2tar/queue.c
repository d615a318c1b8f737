/* SPDX-License-Identifier: MIT */
/*
 * queue.c - entries chosen for the archive wait in the library's
 * read-ahead queue (sqfs/read_ahead.h), so that the data of the next files
 * is unpacked while one is written.
 *
 * What is queued, and when the oldest entry is written, never depends on
 * the number of jobs, and everything is written in queue order: the
 * archive and the messages are the same for every -j.
 */
#include "config.h"

#include "sqfs2tar.h"
#include "common/print.h"
#include "sqfs/error.h"

#include <stdlib.h>
#include <string.h>

static int out_of_memory(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* What an item holds besides the inode, counted against the queue's
 * byte budget. */
static size_t item_bytes(const s2t_item_t *it)
{
	size_t n = sizeof(*it) + strlen(it->name) + strlen(it->what);

	if (it->link != NULL)
		n += strlen(it->link);
	return n;
}

void s2t_item_free(void *item)
{
	s2t_item_t *it = item;

	free(it->name);
	free(it->link);
	free(it->what);
	free(it);
}

/* Write the oldest entry and take it out. */
static int write_oldest(sqfs2tar_t *s)
{
	const sqfs_ahead_entry_t *e = sqfs_read_ahead_oldest(s->ahead);
	s2t_item_t *it = e->user;
	int ret;

	it->inode = e->inode;
	ret = s2t_write_entry(s, it);
	/* data the entry did not read is skipped: a failure there, after
	 * the entry went well, is still one */
	if (sqfs_read_ahead_pop(s->ahead) != 0 && ret == 0) {
		tool_error(it->what, "%s", sqfs_image_error(s->img));
		ret = -1;
	}
	s2t_item_free(it);
	return ret;
}

int s2t_flush(sqfs2tar_t *s)
{
	while (sqfs_read_ahead_count(s->ahead) > 0) {
		if (write_oldest(s) != 0)
			return -1;
	}
	return 0;
}

const char *s2t_known_link(sqfs2tar_t *s, const sqfs_inode_t *inode)
{
	uint64_t index;

	if (!hash_table_get(&s->links, inode->inode_number, &index) ||
	    index >= s->link_count)
		return NULL;
	return s->link_names[index];
}

int s2t_remember_link(sqfs2tar_t *s, const sqfs_inode_t *inode,
		      const char *name)
{
	char **names, *copy;

	names = realloc(s->link_names,
			(s->link_count + 1) * sizeof(s->link_names[0]));
	if (names == NULL)
		return out_of_memory();
	s->link_names = names;
	copy = strdup(name);
	if (copy == NULL)
		return out_of_memory();
	if (hash_table_put(&s->links, inode->inode_number, s->link_count) !=
	    0) {
		free(copy);
		return out_of_memory();
	}
	s->link_names[s->link_count++] = copy;
	return 0;
}

/*
 * Whether the entry is written as a hard link: never for directories or
 * with --no-hard-links; across several --subdir walks, a multiply-linked
 * inode met again links to the name it was first queued as. Decided in
 * queue order, which is the order of writing.
 */
static int choose_link(sqfs2tar_t *s, const char *name,
		       const sqfs_inode_t *inode, char **link)
{
	uint16_t type = sqfs_inode_type_basic(inode->type);
	const char *known;

	if (type == SQFS_INODE_SOCKET)
		return 0;
	if (s->opt->no_hard_links || type == SQFS_INODE_DIR) {
		free(*link);
		*link = NULL;
		return 0;
	}
	if (*link != NULL || !s->track_links || inode->nlink <= 1)
		return 0;
	known = s2t_known_link(s, inode);
	if (known == NULL)
		return s2t_remember_link(s, inode, name);
	*link = strdup(known);
	return *link == NULL ? out_of_memory() : 0;
}

int s2t_queue_entry(sqfs2tar_t *s, char *name, const sqfs_inode_t *inode,
		    char *link, char *what)
{
	s2t_item_t *it;
	int ret;

	while (sqfs_read_ahead_full(s->ahead)) {
		if (write_oldest(s) != 0)
			goto fail;
	}
	if (choose_link(s, name, inode, &link) != 0)
		goto fail;

	it = calloc(1, sizeof(*it));
	if (it == NULL) {
		out_of_memory();
		goto fail;
	}
	it->name = name;
	it->link = link;
	it->what = what;
	it->has_data = s2t_entry_has_data(s, inode, link);
	ret = sqfs_read_ahead_push(s->ahead, inode, it->has_data, it,
				   item_bytes(it));
	if (ret != 0) {
		tool_error(what, "%s", sqfs_image_error(s->img));
		s2t_item_free(it);
		return -1;
	}
	return 0;
fail:
	free(name);
	free(link);
	free(what);
	return -1;
}

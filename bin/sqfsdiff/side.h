/* SPDX-License-Identifier: MIT */
/*
 * side.h - the two kinds of side (side_image.c, side_dir.c) behind the
 * sd_side_* calls of sqfsdiff.h.
 */
#ifndef SQFSDIFF_SIDE_H
#define SQFSDIFF_SIDE_H

#include "sqfsdiff.h"

/* What a kind of side does: the calls of its source, each printing why
 * it fails. side.c keeps the head and sorts the xattrs for both. */
typedef struct {
	/* the next entry: 0, 1 after the last, -1 (printed) */
	int (*next)(sd_side_t *side, const sqfs_entry_t **out);
	/* the current entry's xattrs, any order, valid until next */
	int (*xattrs)(sd_side_t *side, const sqfs_xattr_t **list,
		      size_t *count);
	int (*read)(sd_side_t *side, sqfs_data_run_t *out);
	int (*rewind)(sd_side_t *side);
	const sqfs_super_t *(*super)(const sd_side_t *side);
	/* free the side, the base included */
	void (*close)(sd_side_t *side);
} sd_side_ops_t;

/* The part every side starts with (zeroed, then ops and name set). */
struct sd_side {
	const sd_side_ops_t *ops;
	/* the path as the user gave it */
	const char *name;
	/* the head entry, when have_head */
	bool have_head;
	const sqfs_entry_t *head;
	/* the head's xattrs, copied to be sorted (sd_side_xattrs) */
	sqfs_xattr_t *xattrs;
	size_t xattr_cap;
};

sd_side_t *sd_image_side_open(const char *path, const image_offset_t *offset,
			      bool with_data, unsigned int num_jobs);
/* fd: the directory, opened (taken over) */
sd_side_t *sd_dir_side_open(const char *path, int fd);

#endif /* SQFSDIFF_SIDE_H */

/* SPDX-License-Identifier: MIT */
/*
 * side.h - the two kinds of side (side_image.c, side_dir.c) behind the
 * sd_side_* calls of sqfsdiff.h.
 */
#ifndef SQFSDIFF_SIDE_H
#define SQFSDIFF_SIDE_H

#include "sqfsdiff.h"

typedef struct {
	int (*head)(sd_side_t *side, const sqfs_entry_t **out);
	int (*pop)(sd_side_t *side);
	/* the head entry's xattrs, any order, owned by the side until pop */
	int (*xattrs)(sd_side_t *side, sqfs_xattr_t **list, size_t *count);
	int (*read)(sd_side_t *side, sd_piece_t *out);
	int (*rewind)(sd_side_t *side);
	const sqfs_super_t *(*super)(const sd_side_t *side);
	void (*close)(sd_side_t *side);
} sd_side_ops_t;

/* The part every side starts with. */
struct sd_side {
	const sd_side_ops_t *ops;
	/* the path as the user gave it */
	const char *name;
};

sd_side_t *sd_image_side_open(const char *path, bool with_data,
			      unsigned int num_jobs);
/* fd: the directory, opened (taken over) */
sd_side_t *sd_dir_side_open(const char *path, int fd);

#endif /* SQFSDIFF_SIDE_H */

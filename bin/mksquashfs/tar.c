/* SPDX-License-Identifier: MIT */
/*
 * tar.c - a tar archive from stdin into DEST: sqfstar, and mksquashfs -
 * DEST -tar. The archive is read once, through lib/tar (libarchive), and
 * streamed into the writer as tar2sqfs does; what is squashfs-tools' is
 * the policy, found by running sqfstar 4.7.5:
 *
 * - The archive's own root ("./") is ignored; the image's root and the
 *   directories the archive implies but does not hold have -default-mode
 *   (0755; the root 0777), -default-uid/-gid (else the running user's)
 *   and the time of the run (SOURCE_DATE_EPOCH if set). The root takes
 *   whichever of -root-mode/-default-mode (-uid, -gid) came last, then
 *   -root-time. A directory entry that comes after its contents gives its
 *   attributes to the implied directory.
 * - The first entry of a path wins; a later one is ignored with a
 *   warning, as sqfstar does.
 * - Owner names map to the ids of this system where they exist, unless
 *   -numeric-owner; the number stored is used otherwise.
 * - Then the options of policy.c's order: SOURCE_DATE_EPOCH clamps every
 *   time, -all-root, -force-uid/-gid (not pseudo entries with
 *   -pseudo-override), -uid-gid-offset, -force-file-mode (not symlinks),
 *   -force-dir-mode, -inode-time.
 * - Excludes are matched against archive paths (wildcards, or -regex), a
 *   directory's leaving out all below it.
 * - -p/-pf definitions apply on top of the archive, once it is read: new
 *   entries are added, and "m"/"x" change entries that are not regular
 *   files (a regular file's data has gone by then: refused by name).
 *
 * A time of "inode" (-repro, -mkfs-time inode, -inode-time inode) needs
 * the latest time of the archive before the first entry is written: the
 * archive is then read twice, from a temporary copy when stdin is a
 * pipe.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/out_file.h"
#include "common/print.h"
#include "sqfs/error.h"
#include "sqfs/io.h"
#include "tar/tar_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	mk_options_t *opt;
	const char *prog;
	mk_exclude_t *ex;
	mk_report_t *report;
	tar_reader_t *rd;
	sqfs_writer_t *wr;
	progress_t *progress;
	/* the archive's entries (and the directories they imply) as added:
	 * which paths are taken, and what pseudo definitions work on */
	gs_entries_t seen;
	gs_path_index_t idx;
	/* the attributes of an implied directory, policy applied */
	gs_stat_t implied;
	/* the time of the run (SOURCE_DATE_EPOCH clamps it) */
	int64_t now;
	/* the latest entry time, for "inode" */
	int64_t latest;
	/* stdin's size when it is a file: the progress total */
	uint64_t input_size;
	uint64_t blocks;
	uint64_t entries;
	/* the last owner names looked up, and their ids */
	char *last_uname, *last_gname;
	int64_t last_uid, last_gid;
} tar_packer_t;

static int oom(void)
{
	tool_error(NULL, "out of memory");
	return -1;
}

/* ---- owners and policy ------------------------------------------------- */

/* The id an archive's owner name stands for here, or the number stored. */
static int64_t map_owner(tar_packer_t *tp, const char *name, int64_t id,
			 bool group)
{
	char **last = group ? &tp->last_gname : &tp->last_uname;
	int64_t *last_id = group ? &tp->last_gid : &tp->last_uid;
	int64_t found = id;

	if (tp->opt->numeric_owner || name == NULL)
		return id;
	/* archives repeat a few names: look each up once in a row */
	if (*last != NULL && strcmp(*last, name) == 0)
		return *last_id >= 0 ? *last_id : id;
	free(*last);
	*last = strdup(name);
	if (group) {
		struct group *gr = getgrnam(name);

		*last_id = gr != NULL ? (int64_t)gr->gr_gid : -1;
	} else {
		struct passwd *pw = getpwnam(name);

		*last_id = pw != NULL ? (int64_t)pw->pw_uid : -1;
	}
	if (*last_id >= 0)
		found = *last_id;
	return found;
}

/* An entry's time as sqfstar 4.7.5 stores it: 0 for a time before 1970,
 * the low 32 bits of one after 2106, before SOURCE_DATE_EPOCH clamps
 * it. */
static int64_t entry_time(const tar_entry_t *ent)
{
	if (!ent->mtime_set || ent->mtime < 0)
		return 0;
	return (int64_t)(uint32_t)ent->mtime;
}

/* The options' owners, modes and times on one entry (policy.c's order). */
static void apply_policy(const tar_packer_t *tp, gs_stat_t *st, bool pseudo)
{
	const mk_options_t *opt = tp->opt;
	uint32_t perm = st->mode & 07777, type = st->mode & S_IFMT;

	if (opt->have_sde && st->mtime > (int64_t)opt->sde)
		st->mtime = (int64_t)opt->sde;
	if (!(pseudo && opt->pseudo_override)) {
		if (opt->all_root)
			st->uid = st->gid = 0;
		if (opt->force_uid.set)
			st->uid = opt->force_uid.id;
		if (opt->force_gid.set)
			st->gid = opt->force_gid.id;
	}
	if (opt->have_id_offset) {
		st->uid += opt->id_offset;
		st->gid += opt->id_offset;
	}
	if (type == S_IFDIR && opt->have_dir_mode)
		perm = mk_mode_apply(&opt->dir_mode, perm, true);
	else if (type != S_IFDIR && type != S_IFLNK && opt->have_file_mode)
		perm = mk_mode_apply(&opt->file_mode, perm, false);
	if (opt->inode_time.set)
		st->mtime = opt->inode_time.inode ? tp->latest
						  : opt->inode_time.seconds;
	st->mode = type | perm;
}

/* The image's root, as sqfstar makes it. */
static void root_stat(const tar_packer_t *tp, gs_stat_t *st)
{
	const mk_options_t *opt = tp->opt;
	const mk_id_t *uid = opt->root_uid_from_default || !opt->root_uid.set
				 ? &opt->default_uid
				 : &opt->root_uid;
	const mk_id_t *gid = opt->root_gid_from_default || !opt->root_gid.set
				 ? &opt->default_gid
				 : &opt->root_gid;
	uint32_t perm = 0777;

	memset(st, 0, sizeof(*st));
	if (opt->have_root_mode &&
	    (!opt->root_mode_from_default || !opt->have_default_mode))
		perm = mk_mode_apply(&opt->root_mode, 0777, true);
	else if (opt->have_default_mode)
		perm = mk_mode_apply(&opt->default_mode, 0755, true);
	st->mode = S_IFDIR | perm;
	st->uid = uid->set ? uid->id : (uint32_t)getuid();
	st->gid = gid->set ? gid->id : (uint32_t)getgid();
	st->mtime = tp->now;
	/* -repro: 4.7.5 gives the root the latest time, that of an implied
	 * directory (the run's) included */
	if ((opt->repro || opt->mkfs_time.inode) && !opt->root_time.set)
		st->mtime = tp->latest;
	/* -inode-time wins over -root-time */
	apply_policy(tp, st, false);
	if (opt->root_time.set && !opt->inode_time.set)
		st->mtime =
		    opt->root_time.inode ? tp->latest : opt->root_time.seconds;
}

/* The directories the archive implies. */
static void implied_stat(const tar_packer_t *tp, gs_stat_t *st)
{
	const mk_options_t *opt = tp->opt;

	memset(st, 0, sizeof(*st));
	st->mode =
	    S_IFDIR | (opt->have_default_mode
			   ? mk_mode_apply(&opt->default_mode, 0755, true)
			   : 0755);
	st->uid =
	    opt->default_uid.set ? opt->default_uid.id : (uint32_t)getuid();
	st->gid =
	    opt->default_gid.set ? opt->default_gid.id : (uint32_t)getgid();
	st->mtime = tp->now;
	apply_policy(tp, st, false);
}

/* ---- what was added ----------------------------------------------------- */

/* The shadow entry of path, or NULL. */
static gs_entry_t *find_seen(tar_packer_t *tp, const char *path)
{
	size_t *slot;

	if (gs_path_index_reserve(&tp->idx, &tp->seen) != 0)
		return NULL;
	slot = gs_path_index_slot(&tp->idx, &tp->seen, path);
	return *slot == SIZE_MAX ? NULL : &tp->seen.list[*slot];
}

/* Record path (and the directories above it, as implied ones). Returns
 * the entry, or NULL if out of memory. */
static gs_entry_t *record(tar_packer_t *tp, const char *path)
{
	size_t len = strlen(path);
	gs_entry_t *e = NULL;

	for (size_t i = 0; i <= len; ++i) {
		char *sub;
		size_t *slot;

		if (i < len && path[i] != '/')
			continue;
		sub = strndup(path, i);
		if (sub == NULL ||
		    gs_path_index_reserve(&tp->idx, &tp->seen) != 0) {
			free(sub);
			return NULL;
		}
		slot = gs_path_index_slot(&tp->idx, &tp->seen, sub);
		if (*slot != SIZE_MAX) {
			free(sub);
			e = &tp->seen.list[*slot];
			continue;
		}
		e = gs_entries_push(&tp->seen, sub);
		if (e == NULL)
			return NULL;
		*slot = tp->seen.count - 1;
		e->implicit = true;
		e->st = tp->implied;
		e->root = GS_ROOT_NONE;
	}
	return e;
}

/* Whether an exclude leaves out path or a directory above it. */
static bool excluded(tar_packer_t *tp, const char *path, uint32_t mode)
{
	struct stat st;
	char buf[8192];
	size_t len = strlen(path);

	if (tp->ex == NULL || len >= sizeof(buf))
		return false;
	memcpy(buf, path, len + 1);
	memset(&st, 0, sizeof(st));
	/* no disk object is ever this one */
	st.st_dev = (dev_t)-1;
	st.st_ino = (ino_t)-1;
	for (size_t i = 0; i <= len; ++i) {
		if (i < len && buf[i] != '/')
			continue;
		buf[i] = '\0';
		st.st_mode = i < len ? S_IFDIR : mode;
		if (mk_exclude_filter(tp->ex, buf, &st) == 1)
			return true;
		if (i < len)
			buf[i] = '/';
	}
	return false;
}

/* ---- entries ------------------------------------------------------------ */

/* An entry the image cannot hold: a warning, or the end with
 * -exit-on-error. */
static int skip(tar_packer_t *tp, const char *name, const char *why)
{
	if (tp->opt->exit_on_error) {
		fprintf(stderr, "FATAL ERROR: %s: %s\n", name, why);
		return -1;
	}
	fprintf(stderr, "%s: %s, ignoring\n", name, why);
	return 0;
}

static int writer_failed(tar_packer_t *tp, const char *name, int ret)
{
	if (sqfs_writer_usable(tp->wr))
		return skip(tp, name, sqfs_writer_error(tp->wr));
	tool_image_error(tp->opt->dest, name, ret, errno,
			 sqfs_writer_error(tp->wr));
	return -1;
}

/* The xattrs the options keep: the archive's, filtered, then -xattrs-add.
 * *list is malloc'd (or NULL). */
static int pick_xattrs(tar_packer_t *tp, const tar_entry_t *ent, uint32_t type,
		       sqfs_xattr_t **list, size_t *count)
{
	const mk_options_t *opt = tp->opt;
	size_t n = 0, max;
	sqfs_xattr_t *out;
	const char *why;

	*list = NULL;
	*count = 0;
	if (opt->no_xattrs)
		return 0;
	max = ent->xattr_count + opt->xattr_add_count;
	if (max == 0)
		return 0;
	out = calloc(max, sizeof(out[0]));
	if (out == NULL)
		return oom();
	for (size_t i = 0; i < ent->xattr_count; ++i) {
		const tar_xattr_t *x = &ent->xattrs[i];

		if (opt->xattr_exclude != NULL || opt->xattr_include != NULL) {
			if (!mk_keep_xattr_key(opt, x->key))
				continue;
		}
		out[n].key = x->key;
		out[n].value = x->value;
		out[n].size = x->size;
		if (sqfs_xattr_check(&out[n], &why) != 0) {
			fprintf(stderr, "%s: xattr %s: %s, ignoring\n",
				ent->raw_path, x->key, why);
			continue;
		}
		++n;
	}
	for (size_t i = 0; i < opt->xattr_add_count; ++i) {
		const sqfs_xattr_t *x = &opt->xattr_add[i];
		size_t j;

		/* user xattrs exist only on files and directories */
		if (strncmp(x->key, "user.", 5) == 0 && type != S_IFREG &&
		    type != S_IFDIR)
			continue;
		for (j = 0; j < n && strcmp(out[j].key, x->key) != 0; ++j)
			;
		out[j] = *x;
		if (j == n)
			++n;
	}
	*list = out;
	*count = n;
	return 0;
}

static void report_entry(tar_packer_t *tp, const char *path,
			 const gs_stat_t *st, bool hard_link)
{
	gs_entry_t e;

	memset(&e, 0, sizeof(e));
	e.path = (char *)path;
	e.st = *st;
	e.hard_link = hard_link;
	mk_report_entry(tp->report, &e);
}

static void update_progress(tar_packer_t *tp)
{
	uint64_t pos = tar_reader_position(tp->rd);

	/* a pipe's size is known only at its end: the bar then counts
	 * what was read so far */
	if (tp->input_size == 0)
		mk_report_set_total(tp->report, pos, tp->blocks);
	progress_update(tp->progress, pos, tp->entries);
}

static int add_data(tar_packer_t *tp, const tar_entry_t *ent)
{
	uint32_t block = tp->opt->gs.pk.wr.block_size;
	tar_chunk_t chunk;
	int ret;

	tp->blocks += (ent->size + block - 1) / block;
	while ((ret = tar_reader_read_chunk(tp->rd, &chunk)) == 0) {
		if (chunk.data == NULL)
			ret = sqfs_writer_append_hole(tp->wr, chunk.size);
		else
			ret = sqfs_writer_append(tp->wr, chunk.data,
						 (size_t)chunk.size);
		if (ret != 0) {
			tool_image_error(tp->opt->dest, ent->raw_path, ret,
					 errno, sqfs_writer_error(tp->wr));
			return -1;
		}
		update_progress(tp);
	}
	if (ret < 0) {
		fprintf(stderr, "FATAL ERROR: %s: %s\n", ent->raw_path,
			tar_reader_error(tp->rd));
		return -1;
	}
	ret = sqfs_writer_end_file(tp->wr);
	if (ret != 0) {
		tool_image_error(tp->opt->dest, ent->raw_path, ret, errno,
				 sqfs_writer_error(tp->wr));
		return -1;
	}
	return 0;
}

static int add_entry(tar_packer_t *tp, const tar_entry_t *ent)
{
	uint32_t type = tar_type_mode(ent->type);
	sqfs_xattr_t *xattrs = NULL;
	gs_entry_t *seen, *target;
	sqfs_entry_t e;
	gs_stat_t st;
	int64_t uid, gid;
	size_t xcount = 0;
	int ret;

	if (ent->path[0] == '\0') {
		/* sqfstar makes its own root, whatever the archive says */
		fprintf(stderr,
			"Empty tar filename after skipping leading /, ./, or "
			"../, ignoring\n");
		return 0;
	}
	if (ent->unsafe)
		return skip(tp, ent->raw_path, "name climbs out of the root");
	if (excluded(tp, ent->path,
		     ent->type == TAR_TYPE_HARDLINK ? S_IFREG : type))
		return 0;

	seen = find_seen(tp, ent->path);
	if (seen != NULL && !(seen->implicit && type == S_IFDIR)) {
		fprintf(stderr, "%s already exists in the tar file, ignoring\n",
			ent->path);
		return 0;
	}

	sqfs_entry_init(&e, ent->path, 0, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	if (ent->type == TAR_TYPE_HARDLINK) {
		if (ent->hardlink_unsafe || ent->hardlink[0] == '\0' ||
		    strcmp(ent->hardlink, ent->path) == 0)
			return skip(tp, ent->raw_path, "bad hard link target");
		if (tp->opt->no_hard_links)
			return skip(tp, ent->raw_path,
				    "-no-hardlinks cannot copy a hard link's "
				    "data from a tar stream");
		/* sqfstar links to what came before, never to what comes
		 * later */
		target = find_seen(tp, ent->hardlink);
		if (target == NULL || target->implicit ||
		    S_ISDIR(target->st.mode))
			return skip(tp, ent->raw_path,
				    "hard link target not found before it");
		e.hard_link = ent->hardlink;
	} else if (type == 0) {
		return skip(tp, ent->raw_path, "unsupported entry type");
	} else {
		uid = map_owner(tp, ent->uname, ent->uid, false);
		gid = map_owner(tp, ent->gname, ent->gid, true);
		if (uid < 0 || uid > (int64_t)UINT32_MAX || gid < 0 ||
		    gid > (int64_t)UINT32_MAX)
			return skip(tp, ent->raw_path, "owner out of range");
		st.mode = type | (ent->mode & 07777);
		st.uid = (uint32_t)uid;
		st.gid = (uint32_t)gid;
		st.mtime = entry_time(ent);
		if (type == S_IFREG)
			st.size = ent->size;
		apply_policy(tp, &st, false);
		e.mode = st.mode;
		e.uid = st.uid;
		e.gid = st.gid;
		e.mtime = st.mtime;
		if (type == S_IFLNK)
			e.symlink_target = ent->symlink;
		if (type == S_IFCHR || type == S_IFBLK) {
			if (ent->rdev_major > UINT32_MAX ||
			    ent->rdev_minor > UINT32_MAX)
				return skip(tp, ent->raw_path,
					    "device number out of range");
			e.rdev_major = (uint32_t)ent->rdev_major;
			e.rdev_minor = (uint32_t)ent->rdev_minor;
		}
		if (pick_xattrs(tp, ent, type, &xattrs, &xcount) != 0)
			return -1;
		e.xattrs = xattrs;
		e.xattr_count = xcount;
	}

	ret = sqfs_writer_add(tp->wr, &e,
			      type == S_IFREG && e.hard_link == NULL &&
				      tp->opt->no_sparse
				  ? SQFS_FILE_NO_SPARSE
				  : 0);
	free(xattrs);
	if (ret != 0)
		return writer_failed(tp, ent->raw_path, ret);

	if (seen == NULL) {
		seen = record(tp, ent->path);
		if (seen == NULL)
			return oom();
	}
	seen->implicit = false;
	seen->hard_link = e.hard_link != NULL;
	seen->st = st;
	if (e.hard_link != NULL) {
		target = find_seen(tp, e.hard_link);
		if (target != NULL)
			seen->st = target->st;
	} else if (st.mtime > tp->latest) {
		tp->latest = st.mtime;
	}
	report_entry(tp, ent->path, &seen->st, seen->hard_link);

	if (type == S_IFREG && e.hard_link == NULL)
		return add_data(tp, ent);
	return 0;
}

/* Every entry of the archive. */
static int pack_archive(tar_packer_t *tp)
{
	const tar_entry_t *ent;
	int ret;

	for (;;) {
		ret = tar_reader_next(tp->rd, &ent);
		if (ret == 1)
			return 0;
		if (ret < 0) {
			const char *name = tar_reader_error_entry(tp->rd);

			/* a volume label: nothing lost; damage: never an
			 * image without what the archive holds */
			if (ret == SQFS_ERROR_UNSUPPORTED &&
			    !tar_reader_is_fatal(tp->rd)) {
				if (skip(tp, name != NULL ? name : "archive",
					 tar_reader_error(tp->rd)) != 0)
					return -1;
				continue;
			}
			fprintf(stderr,
				"%s\nFATAL ERROR: Error occurred "
				"reading tar file.  Aborting\n",
				tar_reader_error(tp->rd));
			return -1;
		}
		++tp->entries;
		if (add_entry(tp, ent) != 0)
			return -1;
		update_progress(tp);
	}
}

/* The latest time in the archive (SOURCE_DATE_EPOCH clamping it), for a
 * time of "inode": a pass over the headers. */
static int scan_latest(tar_packer_t *tp)
{
	const tar_entry_t *ent;
	int ret;

	while ((ret = tar_reader_next(tp->rd, &ent)) == 0) {
		int64_t t = entry_time(ent);

		if (tp->opt->have_sde && t > (int64_t)tp->opt->sde)
			t = (int64_t)tp->opt->sde;
		if (ent->path[0] != '\0' && t > tp->latest)
			tp->latest = t;
	}
	if (ret < 0) {
		fprintf(stderr,
			"%s\nFATAL ERROR: Error occurred "
			"reading tar file.  Aborting\n",
			tar_reader_error(tp->rd));
		return -1;
	}
	return 0;
}

/* Whether a directory the archive implies was never given. */
static bool implied_left(const tar_packer_t *tp)
{
	for (size_t i = 1; i < tp->seen.count; ++i) {
		if (tp->seen.list[i].implicit)
			return true;
	}
	return false;
}

/* ---- pseudo definitions -------------------------------------------------- */

/* Apply -p/-pf on top of what the archive gave. */
static int apply_pseudo(tar_packer_t *tp)
{
	size_t before = tp->seen.count;
	gs_stat_t *was;
	int ret = 0;

	if (tp->opt->pseudo_count == 0)
		return 0;
	was = calloc(before + 1, sizeof(was[0]));
	if (was == NULL)
		return oom();
	for (size_t i = 0; i < before; ++i)
		was[i] = tp->seen.list[i].st;
	if (mk_apply_pseudo(tp->opt, &tp->seen) != 0) {
		free(was);
		return -1;
	}
	for (size_t i = 0; ret == 0 && i < tp->seen.count; ++i) {
		gs_entry_t *g = &tp->seen.list[i];
		uint32_t type = g->st.mode & S_IFMT;
		bool is_new = i >= before;
		sqfs_entry_t e;

		if (!is_new && g->xattr_count == 0 &&
		    memcmp(&was[i], &g->st, sizeof(was[i])) == 0)
			continue;
		if (g->path[0] == '\0') {
			/* the root is added last, from the options */
			continue;
		}
		if (type == S_IFREG && !g->hard_link) {
			fprintf(stderr,
				"%s: pseudo definition for \"%s\": %s regular "
				"files is not supported with tar input by "
				"squashforge (yet); no image was written\n",
				tp->prog, g->path,
				is_new ? "making" : "changing");
			ret = -1;
			break;
		}
		if (!is_new && g->hard_link) {
			/* a hard link has its target's attributes */
			continue;
		}
		if (!g->hard_link)
			apply_policy(tp, &g->st, is_new);
		sqfs_entry_init(&e, g->path, g->st.mode, g->st.uid, g->st.gid,
				g->st.mtime);
		if (g->hard_link)
			e.hard_link = g->target;
		else if (type == S_IFLNK)
			e.symlink_target = g->target;
		if (type == S_IFCHR || type == S_IFBLK) {
			e.rdev_major = major(g->st.rdev);
			e.rdev_minor = minor(g->st.rdev);
		}
		e.xattrs = g->xattrs;
		e.xattr_count = g->xattr_count;
		ret = sqfs_writer_add(tp->wr, &e, 0);
		if (ret != 0) {
			ret = writer_failed(tp, g->path, ret);
			continue;
		}
		if (is_new)
			report_entry(tp, g->path, &g->st, g->hard_link);
	}
	free(was);
	return ret;
}

static void report_broken(void *user, const char *path, const char *target)
{
	(void)user;
	fprintf(stderr,
		"%s: hard link target %s does not exist (or is a directory), "
		"ignoring\n",
		path, target);
}

/* ---- the run ------------------------------------------------------------ */

/* DEST: 0 to go on, -1 refused (printed). */
static int check_dest(const tar_packer_t *tp)
{
	const mk_options_t *opt = tp->opt;
	struct stat st;

	if (stat(opt->dest, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "%s: cannot stat \"%s\": %s\n", tp->prog,
			opt->dest, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr,
			"%s: destination \"%s\" is not a regular file; "
			"squashforge's %s writes only files\n",
			tp->prog, opt->dest, tp->prog);
		return -1;
	}
	if (opt->sqfstar ? opt->force : opt->noappend)
		return 0;
	fprintf(stderr,
		"Appending is not supported reading tar files\n"
		"To force %s to write to this file use %s\n",
		opt->sqfstar ? "Sqfstar" : "Mksquashfs",
		opt->sqfstar ? "-force" : "-noappend");
	return -1;
}

/* Where the archive is read from: stdin, or (for two passes over a pipe)
 * a copy of it in an unlinked temporary file. */
static int open_input(tar_packer_t *tp, bool twice, int *fd_out, bool *own)
{
	struct stat st;
	char buf[65536];
	FILE *tmp;
	int fd;

	*own = false;
	*fd_out = STDIN_FILENO;
	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t at = lseek(STDIN_FILENO, 0, SEEK_CUR);

		if (at >= 0 && st.st_size >= at)
			tp->input_size = (uint64_t)(st.st_size - at);
		return 0;
	}
	if (!twice)
		return 0;
	tmp = tmpfile();
	if (tmp == NULL) {
		fprintf(stderr, "%s: cannot make a temporary file: %s\n",
			tp->prog, strerror(errno));
		return -1;
	}
	fd = dup(fileno(tmp));
	fclose(tmp);
	if (fd < 0)
		return oom();
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			break;
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			fprintf(stderr, "%s: copying stdin: %s\n", tp->prog,
				strerror(errno));
			close(fd);
			return -1;
		}
	}
	tp->input_size = (uint64_t)lseek(fd, 0, SEEK_CUR);
	lseek(fd, 0, SEEK_SET);
	*fd_out = fd;
	*own = true;
	return 0;
}

static int open_reader(tar_packer_t *tp, int fd)
{
	tar_reader_destroy(tp->rd);
	tp->rd = NULL;
	if (tar_reader_create(&tp->rd) != 0 ||
	    tar_reader_set_ignore_zeros(tp->rd, tp->opt->ignore_zeros) != 0)
		return oom();
	if (tar_reader_open_fd(tp->rd, fd) != 0) {
		fprintf(stderr,
			"%s\nFATAL ERROR: Error occurred reading tar "
			"file.  Aborting\n",
			tar_reader_error(tp->rd));
		return -1;
	}
	return 0;
}

int mk_run_tar(mk_options_t *opt)
{
	bool twice = opt->inode_time.inode || opt->mkfs_time.inode;
	char why[SQFS_ERROR_TEXT_SIZE];
	sqfs_file_t *view = NULL, *file;
	sqfs_writer_stats_t stats;
	out_file_t *of = NULL;
	progress_t progress;
	tar_packer_t tp;
	sqfs_entry_t root;
	gs_stat_t rst;
	int fd = -1, ret, status = EXIT_FAILURE;
	bool own_fd = false;

	memset(&tp, 0, sizeof(tp));
	tp.opt = opt;
	tp.prog = opt->sqfstar ? "sqfstar" : "mksquashfs";
	tp.now = (int64_t)time(NULL);
	if (opt->have_sde && tp.now > (int64_t)opt->sde)
		tp.now = (int64_t)opt->sde;
	/* messages about a pseudo entry name it so */
	opt->gs.pack_file = "pseudo definition";

	if (check_dest(&tp) != 0)
		goto out;
	if (mk_report_create(opt, &tp.report) != 0 ||
	    mk_exclude_create(opt, &tp.ex) != 0)
		goto out;
	if (open_input(&tp, twice, &fd, &own_fd) != 0)
		goto out;
	if (twice) {
		if (open_reader(&tp, fd) != 0 || scan_latest(&tp) != 0)
			goto out;
		if (lseek(fd, 0, SEEK_SET) != 0) {
			fprintf(stderr, "%s: cannot read stdin twice: %s\n",
				tp.prog, strerror(errno));
			goto out;
		}
	}
	if (open_reader(&tp, fd) != 0)
		goto out;

	/* the writer's implied directories are sqfstar's */
	implied_stat(&tp, &tp.implied);
	opt->gs.pk.wr.default_mode = (uint16_t)(tp.implied.mode & 07777);
	opt->gs.pk.wr.default_uid = tp.implied.uid;
	opt->gs.pk.wr.default_gid = tp.implied.gid;
	opt->gs.pk.wr.default_mtime = (uint32_t)tp.implied.mtime;
	if (!opt->mkfs_time.set)
		opt->gs.pk.wr.mkfs_time = (uint32_t)time(NULL);
	else if (opt->mkfs_time.inode)
		opt->gs.pk.wr.mkfs_time = (uint32_t)tp.latest;
	else
		opt->gs.pk.wr.mkfs_time = opt->mkfs_time.seconds;
	if (record(&tp, "") == NULL) {
		oom();
		goto out;
	}

	if (out_file_open(&of, opt->dest, true) != 0)
		goto out;
	file = out_file_get(of);
	if (opt->offset > 0) {
		if (mk_copy_prefix(opt, file) != 0)
			goto out;
		if (sqfs_file_open_window(&view, file, opt->offset, 0) != 0) {
			oom();
			goto out;
		}
		file = view;
	}
	ret = sqfs_writer_create(file, &opt->gs.pk.wr, &tp.wr, why);
	if (ret != 0) {
		fprintf(stderr, "%s: %s: %s\n", tp.prog, opt->dest, why);
		goto out;
	}
	mk_report_start(tp.report);
	if (tp.input_size > 0)
		mk_report_set_total(
		    tp.report, tp.input_size,
		    (tp.input_size + opt->gs.pk.wr.block_size - 1) /
			opt->gs.pk.wr.block_size);
	progress_init(&progress, true);
	progress.draw = mk_report_progress;
	progress.draw_user = tp.report;
	tp.progress = &progress;

	ret = pack_archive(&tp);
	if (ret == 0)
		ret = apply_pseudo(&tp);
	if (ret == 0) {
		if (implied_left(&tp) && tp.now > tp.latest)
			tp.latest = tp.now;
		root_stat(&tp, &rst);
		sqfs_entry_init(&root, "", rst.mode, rst.uid, rst.gid,
				rst.mtime);
		/* the root is a directory: it takes every -xattrs-add */
		if (!opt->no_xattrs) {
			root.xattrs = opt->xattr_add;
			root.xattr_count = opt->xattr_add_count;
		}
		ret = sqfs_writer_add(tp.wr, &root, 0);
		if (ret != 0)
			tool_image_error(opt->dest, "/", ret, errno,
					 sqfs_writer_error(tp.wr));
	}
	if (ret == 0 &&
	    sqfs_writer_drop_broken_links(tp.wr, report_broken, &tp) < 0) {
		tool_error(opt->dest, "%s", sqfs_writer_error(tp.wr));
		ret = -1;
	}
	if (ret == 0) {
		ret = sqfs_writer_finish(tp.wr);
		if (ret != 0)
			tool_image_error(opt->dest, NULL, ret, errno,
					 sqfs_writer_error(tp.wr));
	}
	progress_end(&progress);
	if (ret != 0)
		goto out;
	sqfs_writer_get_stats(tp.wr, &stats);
	sqfs_writer_destroy(tp.wr);
	tp.wr = NULL;
	sqfs_file_destroy(view);
	view = NULL;
	if (out_file_commit(of) != 0)
		goto out;
	mk_report_summary(tp.report, &stats);
	status = EXIT_SUCCESS;
out:
	sqfs_writer_destroy(tp.wr);
	sqfs_file_destroy(view);
	out_file_destroy(of);
	tar_reader_destroy(tp.rd);
	if (own_fd)
		close(fd);
	gs_path_index_free(&tp.idx);
	gs_entries_free(&tp.seen);
	free(tp.last_uname);
	free(tp.last_gname);
	mk_exclude_destroy(tp.ex);
	mk_report_destroy(tp.report);
	return status;
}

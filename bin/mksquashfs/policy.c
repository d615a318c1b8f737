/* SPDX-License-Identifier: MIT */
/*
 * policy.c - owners, modes and times as mksquashfs's options set them,
 * applied to the scanned and pseudo entries before anything is packed.
 *
 * Order, as mksquashfs 4.7.5 behaves:
 * - owners: -all-root, then -force-uid/-force-gid, then -uid-gid-offset;
 *   pseudo entries keep their own with -pseudo-override; the root then
 *   takes -root-uid/-root-gid;
 * - modes: -force-file-mode on every non-directory but symlinks,
 *   -force-dir-mode on directories, -root-mode on the root;
 * - times: SOURCE_DATE_EPOCH clamps every time after it (and is the
 *   image's time); -inode-time sets every entry's, -root-time the root's
 *   (-inode-time wins); "inode" stands for the latest entry time, taken
 *   before these are applied; -mkfs-time (or -repro) sets the image's.
 */
#include "config.h"

#include "mksquashfs.h"
#include "common/print.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static bool all_digits(const char *text)
{
	if (*text == '\0')
		return false;
	for (; *text != '\0'; ++text) {
		if (!isdigit((unsigned char)*text))
			return false;
	}
	return true;
}

static const char *parse_id(const char *text, uint32_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX)
		return "id out of range";
	*out = (uint32_t)v;
	return NULL;
}

const char *mk_parse_user(const char *text, uint32_t *out)
{
	struct passwd *pw;

	if (all_digits(text))
		return parse_id(text, out);
	pw = getpwnam(text);
	if (pw == NULL)
		return "invalid user name or uid";
	*out = (uint32_t)pw->pw_uid;
	return NULL;
}

const char *mk_parse_group(const char *text, uint32_t *out)
{
	struct group *gr;

	if (all_digits(text))
		return parse_id(text, out);
	gr = getgrnam(text);
	if (gr == NULL)
		return "invalid group name or gid";
	*out = (uint32_t)gr->gr_gid;
	return NULL;
}

/* `date -d TEXT +%s`, as mksquashfs reads times it does not know. */
static const char *run_date(const char *text, uint32_t *out)
{
	static char arg0[] = "date", arg1[] = "-d", arg3[] = "+%s";
	char *copy = strdup(text);
	char *argv[] = {arg0, arg1, copy, arg3, NULL};
	char buf[64];
	posix_spawn_file_actions_t fa;
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (copy == NULL || pipe(pipefd) != 0) {
		free(copy);
		return "cannot run date";
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	if (posix_spawnp(&pid, "date", &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		free(copy);
		return "cannot run date";
	}
	posix_spawn_file_actions_destroy(&fa);
	free(copy);
	close(pipefd[1]);
	while (got < sizeof(buf) - 1 &&
	       (n = read(pipefd[0], buf + got, sizeof(buf) - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[got] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    !all_digits(buf) || parse_id(buf, out) != NULL)
		return "invalid time value";
	return NULL;
}

const char *mk_parse_time(const char *text, mk_time_t *out)
{
	memset(out, 0, sizeof(*out));
	out->set = true;
	if (strcmp(text, "inode") == 0) {
		out->inode = true;
		return NULL;
	}
	if (all_digits(text))
		return parse_id(text, &out->seconds) == NULL
			   ? NULL
			   : "invalid time value";
	return run_date(text, &out->seconds);
}

bool mk_keep_xattr_key(const void *user, const char *key)
{
	const mk_options_t *opt = user;

	if (opt->xattr_include != NULL &&
	    regexec(opt->xattr_include, key, 0, NULL, 0) != 0)
		return false;
	if (opt->xattr_exclude != NULL &&
	    regexec(opt->xattr_exclude, key, 0, NULL, 0) == 0)
		return false;
	return true;
}

static bool is_pseudo(const gs_entry_t *e)
{
	return e->from_listing && e->line > 0;
}

int mk_apply_policy(mk_options_t *opt, gs_entries_t *entries)
{
	sqfs_writer_options_t *wr = &opt->gs.pk.wr;
	int64_t latest = 0, now = (int64_t)time(NULL);

	/* the writer's implicit directories (none are left implicit here,
	 * but the defaults are its root's if no entry is) */
	if (opt->have_default_mode)
		wr->default_mode =
		    (uint16_t)mk_mode_apply(&opt->default_mode, 0755, true);
	if (opt->default_uid.set)
		wr->default_uid = opt->default_uid.id;
	if (opt->default_gid.set)
		wr->default_gid = opt->default_gid.id;

	for (size_t i = 0; i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];

		if (e->hard_link || e->path == NULL)
			continue;
		if (opt->have_sde && e->st.mtime > (int64_t)opt->sde)
			e->st.mtime = (int64_t)opt->sde;
		if (e->st.mtime > latest)
			latest = e->st.mtime;
	}

	for (size_t i = 0; i < entries->count; ++i) {
		gs_entry_t *e = &entries->list[i];
		bool root = e->path != NULL && e->path[0] == '\0';
		bool keep_owner = opt->pseudo_override && is_pseudo(e);
		uint32_t perm = e->st.mode & 07777, type = e->st.mode & S_IFMT;

		if (e->hard_link || e->path == NULL)
			continue;
		if (!keep_owner) {
			if (opt->all_root)
				e->st.uid = e->st.gid = 0;
			if (opt->force_uid.set)
				e->st.uid = opt->force_uid.id;
			if (opt->force_gid.set)
				e->st.gid = opt->force_gid.id;
		}
		if (opt->have_id_offset) {
			e->st.uid += opt->id_offset;
			e->st.gid += opt->id_offset;
		}
		if (type == S_IFDIR && opt->have_dir_mode)
			perm = mk_mode_apply(&opt->dir_mode, perm, true);
		else if (type != S_IFDIR && type != S_IFLNK &&
			 opt->have_file_mode)
			perm = mk_mode_apply(&opt->file_mode, perm, false);
		if (root) {
			if (opt->root_uid.set)
				e->st.uid = opt->root_uid.id;
			if (opt->root_gid.set)
				e->st.gid = opt->root_gid.id;
			if (opt->have_root_mode)
				perm =
				    mk_mode_apply(&opt->root_mode, perm, true);
			if (opt->root_time.set)
				e->st.mtime = opt->root_time.inode
						  ? latest
						  : opt->root_time.seconds;
		}
		if (opt->inode_time.set)
			e->st.mtime = opt->inode_time.inode
					  ? latest
					  : opt->inode_time.seconds;
		e->st.mode = type | perm;
		if (type == S_IFREG && opt->no_sparse)
			e->file_flags |= SQFS_FILE_NO_SPARSE;
		/* set here, whatever the walk saw */
		e->default_attrs = false;
	}

	if (!opt->mkfs_time.set)
		wr->mkfs_time = (uint32_t)now;
	else if (opt->mkfs_time.inode)
		wr->mkfs_time = (uint32_t)latest;
	else
		wr->mkfs_time = opt->mkfs_time.seconds;
	return 0;
}

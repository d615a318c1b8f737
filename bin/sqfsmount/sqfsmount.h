/* SPDX-License-Identifier: MIT */
/*
 * sqfsmount.h - what the parts of sqfsmount share: the options, the
 * mounted file system's state, and the functions of each file.
 *
 * sqfsmount serves a SquashFS image through FUSE's low-level API
 * (fuse_lowlevel.h) on libsquashfs's random-access file system (fs.h),
 * from as many threads as libfuse runs. The same code is the compat
 * commands squashfuse and squashfuse_ll, which differ only in the words of
 * their help.
 */
#ifndef SQFSMOUNT_H
#define SQFSMOUNT_H

#define FUSE_USE_VERSION 312

#include "common/image_open.h"
#include "sqfs/fs.h"
#include "sqfs/io.h"

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Which command line and help the program has. */
typedef enum {
	MOUNT_SQFSMOUNT = 0,
	MOUNT_SQUASHFUSE,
	MOUNT_SQUASHFUSE_LL,
} mount_personality_t;

typedef struct {
	mount_personality_t personality;
	/* The image, as given (messages) and absolute (the daemon leaves
	 * its working directory). */
	const char *image;
	image_offset_t offset;
	/* The directory of the image to mount as the root, or NULL. */
	const char *subdir;
	/* Owner and group of every inode, when set. */
	bool set_uid, set_gid;
	uint32_t uid, gid;
	/* Unmount after this many idle seconds; 0: never. */
	unsigned int timeout;
	/* Where to say 's' (mounted) or 'f' (failed): a named pipe (absolute
	 * path) and/or a file descriptor (-1: none). */
	char *notify_pipe;
	int notify_fd;
	/* The file system's caches and read-ahead. */
	sqfs_fs_options_t fs;
	/* Other users may reach the mount: the kernel must check
	 * permissions. root_only: -o allow_root, which libfuse enforces on
	 * every request but reads (so opens must be asked for). */
	bool others, root_only;
	/* -o max_read=N (0: none), which init() must repeat. */
	unsigned int max_read;
	/* libfuse's part of the command line. */
	struct fuse_cmdline_opts fuse;
	/* The arguments left for fuse_session_new (mount options). */
	struct fuse_args args;
} mount_options_t;

typedef struct mount_handle mount_handle_t;

/* The mounted file system: the user data of every FUSE request. */
typedef struct {
	const mount_options_t *opt;
	sqfs_fs_t *fs;
	/* The inode served as the mount's root (FUSE node id 1): its node
	 * id in the library (fs.h) and its inode number. */
	uint64_t root;
	uint32_t root_ino;
	/* Log the library's words on stderr (foreground or debug). */
	bool verbose;
	/* The kernel opens files (directories) without asking (init()). */
	bool no_open, no_opendir;
	/* Store the blocks around random reads (store.c); the kernel's
	 * read-ahead window, below which a read is random. */
	bool store;
	size_t read_ahead_bytes;
	/* Requests being served, handles open, and the monotonic second of
	 * the last request, for -o timeout. */
	atomic_uint busy;
	atomic_uint open_handles;
	atomic_llong last_active;
	/* The open files (handles.c). */
	pthread_mutex_t handles_lock;
	mount_handle_t *handles;
} mount_ctx_t;

/* options.c: parse the command line. Returns 0, CLI_DONE (help or
 * version printed), MOUNT_USAGE (no image or mount point: a message
 * printed) or -1 (a message printed). fuse_opt_free_args(&opt->args)
 * and free(opt->fuse.mountpoint) and free(opt->notify_pipe) release it. */
int mount_parse_options(mount_personality_t who, int argc, char **argv,
			mount_options_t *opt);

/* mount_parse_options' result for a command line without an image or a
 * mount point (squashfuse answers it as it answers --help). */
#define MOUNT_USAGE 2

/* ops.c: the low-level operations. */
extern const struct fuse_lowlevel_ops mount_ops;

/* inode.c: FUSE node ids <-> the library's node ids, attributes, error
 * codes. */
uint64_t mount_node_of(const mount_ctx_t *ctx, uint64_t id);
uint64_t mount_id_of(const mount_ctx_t *ctx, fuse_ino_t node);
void mount_fill_stat(const mount_ctx_t *ctx, const sqfs_fs_stat_t *in,
		     struct stat *out);
/* The errno for a library error; read_op: a read of a non-file. Logs
 * the library's words (what: the operation, node: the FUSE node id) when
 * the error is the image's, not the caller's. */
int mount_errno(mount_ctx_t *ctx, int err, bool read_op, const char *what,
		fuse_ino_t node, const char *why);

/* handles.c: open files, each a handle in fi->fh; those the kernel never
 * released are closed by mount_handles_close_all once the session ended
 * (no request running). add returns NULL when out of memory. */
mount_handle_t *mount_handle_add(mount_ctx_t *ctx, sqfs_fs_file_t *file);
sqfs_fs_file_t *mount_handle_file(const mount_handle_t *h);
void mount_handle_close(mount_ctx_t *ctx, mount_handle_t *h);
void mount_handles_close_all(mount_ctx_t *ctx);

/* notify.c: tell the notify pipe and the notify fd 's' or 'f'. On
 * success, the pipe is written from a thread, as soon as someone reads
 * it; on failure, from a child process, so that the caller can exit. */
void mount_notify(const mount_options_t *opt, char status);

/* daemon.c: -f absent: fork; the parent waits for the child's word
 * (mount_daemon_ready: 0) and exits with it, or with failed_status when
 * the child ends without a word. */
int mount_daemon_start(int failed_status);
/* The mount exists: leave the terminal, make the parent exit 0. */
void mount_daemon_ready(void);

/* idle.c: -o timeout: a thread that ends the session after that many
 * seconds without requests and open files. */
int mount_idle_start(mount_ctx_t *ctx, struct fuse_session *se);
void mount_idle_stop(void);
/* Around every request. */
void mount_busy(mount_ctx_t *ctx);
void mount_idle(mount_ctx_t *ctx);

/* store.c: a thread that puts the rest of the blocks of random reads in
 * the kernel's page cache. start before the loop (-1 and errno: no
 * thread, nothing stored); read after answering a read of size bytes at
 * off (asked: the request's size); stop after the loop (answers requests
 * until the thread is done). */
int mount_store_start(mount_ctx_t *ctx, struct fuse_session *se);
void mount_store_read(mount_ctx_t *ctx, fuse_ino_t node, uint64_t id,
		      uint64_t off, size_t asked, size_t size);
void mount_store_stop(struct fuse_session *se);

/* run.c: the whole life of a mount; returns the exit status. */
int mount_run(mount_personality_t who, int argc, char **argv);

#endif /* SQFSMOUNT_H */

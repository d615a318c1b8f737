/* SPDX-License-Identifier: MIT */
/*
 * browse.c - a small program built against an installed libsquashfs
 * through pkg-config: a shell-like browser of a SquashFS image. It reads
 * commands from standard input, one a line, so a script can be piped in;
 * it prompts only when standard input is a terminal.
 *
 *   ls [PATH]    list a directory (or show one entry)
 *   cd [PATH]    change the current directory (the root without PATH)
 *   stat PATH    show an entry's inode: type, mode, owner, size, times...
 *   cat PATH     write a regular file's contents
 *   pwd          show the current directory
 *   help, quit
 *
 * Paths are relative to the current directory unless they start with '/';
 * "." and ".." work as in a shell (by the text of the path: symlinks are
 * never followed). A bad command or path is reported and the browser goes
 * on; it exits with status 0 at the end of input or on quit.
 *
 * It shows keeping an image open for many lookups: resolving paths and
 * listing directories with one directory reader (sqfs/dir_reader.h),
 * reading inodes by reference, extended attributes, and file contents
 * with the data reader (sqfs/data_reader.h).
 *
 *   cc -o browse browse.c $(pkg-config --cflags --libs libsquashfs)
 *   printf 'ls\ncd docs\ncat hello.txt\n' | ./browse image.sqfs
 */
/* S_ISDIR, isatty and getline are POSIX names. */
#define _XOPEN_SOURCE 700

#include <sqfs/squashfs.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	sqfs_image_t *img;
	sqfs_dir_reader_t *dir;
	sqfs_data_reader_t *data;
	/* The current directory as the library resolves paths: from the
	 * root, no leading or trailing '/', no "." or "..", "" for the
	 * root itself. */
	char *cwd;
} browser_t;

/* Print a failed command's reason, in the image's words. */
static void report(const browser_t *b, const char *cmd)
{
	fprintf(stderr, "browse: %s: %s\n", cmd, sqfs_image_error(b->img));
}

/*
 * The path arg names, seen from the directory cwd, in the form of cwd.
 * The library refuses "..", so it is worked out here, on the text: the
 * parent of "a/b" is "a", the root is its own parent. Returns NULL when
 * out of memory.
 */
static char *join_path(const char *cwd, const char *arg)
{
	/* cwd, a '/', arg (whose components never grow) and a NUL */
	char *out = malloc(strlen(cwd) + strlen(arg) + 2);
	size_t n = 0;

	if (out == NULL)
		return NULL;
	if (arg[0] != '/') {
		n = strlen(cwd);
		memcpy(out, cwd, n);
	}
	out[n] = '\0';

	while (*arg != '\0') {
		size_t len = strcspn(arg, "/");

		if (len == 2 && arg[0] == '.' && arg[1] == '.') {
			char *slash = strrchr(out, '/');

			n = slash != NULL ? (size_t)(slash - out) : 0;
			out[n] = '\0';
		} else if (len > 0 && !(len == 1 && arg[0] == '.')) {
			if (n > 0)
				out[n++] = '/';
			memcpy(out + n, arg, len);
			n += len;
			out[n] = '\0';
		}
		arg += len;
		if (*arg == '/')
			++arg;
	}
	return out;
}

/*
 * The inode that arg names from the current directory, to free(), and its
 * path from the root in *path (to free) if path is not NULL. NULL if there
 * is none, after saying why.
 */
static sqfs_inode_t *lookup(browser_t *b, const char *cmd, const char *arg,
			    char **path)
{
	sqfs_inode_t *inode;
	char *full = join_path(b->cwd, arg);
	int ret;

	if (full == NULL) {
		fprintf(stderr, "browse: %s: %s\n", cmd,
			sqfs_error_string(SQFS_ERROR_ALLOC));
		return NULL;
	}
	ret = sqfs_dir_reader_resolve(b->dir, full, &inode);
	if (ret != 0) {
		report(b, cmd);
		free(full);
		return NULL;
	}
	if (path != NULL)
		*path = full;
	else
		free(full);
	return inode;
}

/* The ten characters `ls -l` shows for a mode, and a NUL. */
static void mode_string(uint32_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";

	out[0] = S_ISDIR(mode)	  ? 'd'
		 : S_ISLNK(mode)  ? 'l'
		 : S_ISBLK(mode)  ? 'b'
		 : S_ISCHR(mode)  ? 'c'
		 : S_ISFIFO(mode) ? 'p'
		 : S_ISSOCK(mode) ? 's'
				  : '-';
	for (int i = 0; i < 9; ++i)
		out[i + 1] = (mode & (0400u >> i)) ? rwx[i] : '-';
	/* set-id and sticky bits take the place of the execute bits */
	if (mode & S_ISUID)
		out[3] = (mode & S_IXUSR) ? 's' : 'S';
	if (mode & S_ISGID)
		out[6] = (mode & S_IXGRP) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[9] = (mode & S_IXOTH) ? 't' : 'T';
	out[10] = '\0';
}

/* The size `ls -l` shows: bytes, a target's length, or the device. */
static void print_size(const sqfs_inode_t *inode)
{
	uint32_t major, minor;

	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_FILE:
		printf("%llu", (unsigned long long)inode->data.file.file_size);
		break;
	case SQFS_INODE_SLINK:
		printf("%lu", (unsigned long)inode->data.slink.target_size);
		break;
	case SQFS_INODE_DIR:
		/* what the kernel reports as a directory's size */
		printf("%lu", (unsigned long)inode->data.dir.size);
		break;
	case SQFS_INODE_BDEV:
	case SQFS_INODE_CDEV:
		sqfs_inode_decode_rdev(inode->data.dev.rdev, &major, &minor);
		printf("%lu,%lu", (unsigned long)major, (unsigned long)minor);
		break;
	default:
		printf("0");
		break;
	}
}

/* One `ls -l` line for inode under name; 0 or a negative error. */
static int print_line(const browser_t *b, const sqfs_inode_t *inode,
		      const char *name)
{
	uint32_t mode = sqfs_inode_mode(inode);
	uint32_t uid, gid;
	char perms[11];
	int ret;

	ret = sqfs_image_inode_owner(b->img, inode, &uid, &gid);
	if (ret != 0)
		return ret;
	mode_string(mode, perms);
	printf("%s %lu %lu/%lu ", perms, (unsigned long)inode->nlink,
	       (unsigned long)uid, (unsigned long)gid);
	print_size(inode);
	printf(" %s", name);
	/* the payload holds the target and a terminating NUL */
	if (S_ISLNK(mode))
		printf(" -> %s", (const char *)inode->payload);
	putchar('\n');
	return 0;
}

static void cmd_ls(browser_t *b, const char *arg)
{
	sqfs_inode_t *dir = lookup(b, "ls", arg, NULL);
	sqfs_dir_entry_t ent;
	int ret;

	if (dir == NULL)
		return;
	if (!S_ISDIR(sqfs_inode_mode(dir))) {
		/* like ls: an entry that is no directory stands for itself */
		if (print_line(b, dir, arg) != 0)
			report(b, "ls");
		free(dir);
		return;
	}

	ret = sqfs_dir_reader_open(b->dir, dir);
	while (ret == 0) {
		sqfs_inode_t *inode;

		ret = sqfs_dir_reader_next(b->dir, &ent);
		if (ret != 0)
			break;
		/* the listing names the inode; the inode has the details */
		ret = sqfs_image_read_inode(b->img, ent.inode_ref, &inode);
		if (ret == 0) {
			ret = print_line(b, inode, ent.name);
			free(inode);
		}
	}
	/* 1 is the end of the listing */
	if (ret < 0)
		report(b, "ls");
	free(dir);
}

static void cmd_cd(browser_t *b, const char *arg)
{
	char *path;
	sqfs_inode_t *inode = lookup(b, "cd", arg, &path);

	if (inode == NULL)
		return;
	if (S_ISDIR(sqfs_inode_mode(inode))) {
		free(b->cwd);
		b->cwd = path;
	} else {
		fprintf(stderr, "browse: cd: %s: %s\n", arg,
			sqfs_error_string(SQFS_ERROR_NOT_DIR));
		free(path);
	}
	free(inode);
}

static const char *type_name(const sqfs_inode_t *inode)
{
	switch (sqfs_inode_type_basic(inode->type)) {
	case SQFS_INODE_DIR:
		return "directory";
	case SQFS_INODE_FILE:
		return "regular file";
	case SQFS_INODE_SLINK:
		return "symbolic link";
	case SQFS_INODE_BDEV:
		return "block device";
	case SQFS_INODE_CDEV:
		return "character device";
	case SQFS_INODE_FIFO:
		return "fifo";
	default:
		return "socket";
	}
}

static void cmd_stat(browser_t *b, const char *arg)
{
	char *path;
	sqfs_inode_t *inode = lookup(b, "stat", arg, &path);
	sqfs_xattr_t *xattrs = NULL;
	size_t count = 0;
	uint32_t uid, gid;
	char when[32];
	time_t mtime;
	int ret;

	if (inode == NULL)
		return;
	ret = sqfs_image_inode_owner(b->img, inode, &uid, &gid);
	if (ret == 0)
		ret = sqfs_image_read_xattrs(b->img, inode, &xattrs, &count);
	if (ret != 0) {
		report(b, "stat");
		goto out;
	}

	/* the image counts unsigned seconds since the epoch, in UTC */
	mtime = (time_t)inode->mtime;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&mtime));

	printf("path: /%s\n", path);
	printf("type: %s%s\n", type_name(inode),
	       sqfs_inode_type_is_extended(inode->type) ? " (extended inode)"
							: "");
	printf("mode: %04o\n", (unsigned int)inode->mode);
	printf("owner: %lu/%lu\n", (unsigned long)uid, (unsigned long)gid);
	printf("links: %lu\n", (unsigned long)inode->nlink);
	printf("inode: %lu\n", (unsigned long)inode->inode_number);
	printf("size: ");
	print_size(inode);
	printf("\nmtime: %s\n", when);
	if (S_ISLNK(sqfs_inode_mode(inode)))
		printf("target: %s\n", (const char *)inode->payload);
	for (size_t i = 0; i < count; ++i) {
		printf("xattr: %s (%zu bytes)\n", xattrs[i].key,
		       xattrs[i].size);
	}
out:
	sqfs_xattr_list_free(xattrs, count);
	free(path);
	free(inode);
}

static void cmd_cat(browser_t *b, const char *arg)
{
	static uint8_t buffer[65536];
	sqfs_inode_t *inode = lookup(b, "cat", arg, NULL);
	uint64_t offset = 0;
	ptrdiff_t n;

	if (inode == NULL)
		return;
	if (sqfs_inode_type_basic(inode->type) != SQFS_INODE_FILE) {
		fprintf(stderr, "browse: cat: %s: %s\n", arg,
			sqfs_error_string(SQFS_ERROR_NOT_FILE));
		free(inode);
		return;
	}
	/* a short write shows in ferror(stdout), checked at the end */
	while ((n = sqfs_data_reader_read(b->data, inode, offset, buffer,
					  sizeof(buffer))) > 0) {
		fwrite(buffer, 1, (size_t)n, stdout);
		offset += (uint64_t)n;
	}
	if (n < 0)
		report(b, "cat");
	free(inode);
}

static void cmd_help(void)
{
	puts("ls [PATH]   list a directory, or show one entry\n"
	     "cd [PATH]   change the current directory (the root without "
	     "PATH)\n"
	     "stat PATH   show an entry's inode\n"
	     "cat PATH    write a regular file's contents\n"
	     "pwd         show the current directory\n"
	     "help        show this text\n"
	     "quit        leave (so does the end of input)");
}

/*
 * Run one line of input; false for quit. The command is the first word,
 * and the argument all the rest, so that a path may hold spaces.
 */
static bool run_line(browser_t *b, char *line)
{
	size_t len = strlen(line);
	const char *arg;
	char *cmd;

	while (len > 0 && strchr(" \t\r\n", line[len - 1]) != NULL)
		line[--len] = '\0';
	cmd = line + strspn(line, " \t");
	if (*cmd == '\0')
		return true;
	len = strcspn(cmd, " \t");
	arg = cmd + len + strspn(cmd + len, " \t");
	cmd[len] = '\0';

	if (strcmp(cmd, "ls") == 0) {
		cmd_ls(b, *arg != '\0' ? arg : ".");
	} else if (strcmp(cmd, "cd") == 0) {
		cmd_cd(b, *arg != '\0' ? arg : "/");
	} else if ((strcmp(cmd, "stat") == 0 || strcmp(cmd, "cat") == 0) &&
		   *arg == '\0') {
		fprintf(stderr, "browse: %s: a path is needed\n", cmd);
	} else if (strcmp(cmd, "stat") == 0) {
		cmd_stat(b, arg);
	} else if (strcmp(cmd, "cat") == 0) {
		cmd_cat(b, arg);
	} else if (strcmp(cmd, "pwd") == 0 && *arg == '\0') {
		printf("/%s\n", b->cwd);
	} else if (strcmp(cmd, "help") == 0 && *arg == '\0') {
		cmd_help();
	} else if (strcmp(cmd, "quit") == 0 && *arg == '\0') {
		return false;
	} else if (strcmp(cmd, "pwd") == 0 || strcmp(cmd, "help") == 0 ||
		   strcmp(cmd, "quit") == 0) {
		fprintf(stderr, "browse: %s: takes no argument\n", cmd);
	} else {
		fprintf(stderr, "browse: %s: unknown command (try help)\n",
			cmd);
	}
	return true;
}

int main(int argc, char **argv)
{
	browser_t b = {NULL, NULL, NULL, NULL};
	char why[SQFS_ERROR_TEXT_SIZE];
	bool prompt = isatty(STDIN_FILENO);
	size_t size = 0;
	char *line = NULL;
	sqfs_file_t *file;
	int ret, status = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IMAGE < COMMANDS\n", argv[0]);
		return 2;
	}

	ret = sqfs_file_open(&file, argv[1], SQFS_FILE_OPEN_READ_ONLY);
	if (ret != 0) {
		/* an I/O error leaves the system's reason in errno */
		fprintf(stderr, "browse: %s: %s\n", argv[1],
			ret == SQFS_ERROR_IO ? strerror(errno)
					     : sqfs_error_string(ret));
		return 1;
	}
	ret = sqfs_image_open(file, &b.img, why);
	if (ret != 0) {
		fprintf(stderr, "browse: %s: %s\n", argv[1], why);
		goto out;
	}
	ret = sqfs_dir_reader_create(b.img, &b.dir);
	if (ret == 0)
		ret = sqfs_data_reader_create(b.img, &b.data);
	if (ret != 0) {
		fprintf(stderr, "browse: %s: %s\n", argv[1],
			sqfs_image_error(b.img));
		goto out;
	}
	b.cwd = calloc(1, 1);
	if (b.cwd == NULL) {
		fprintf(stderr, "browse: %s\n",
			sqfs_error_string(SQFS_ERROR_ALLOC));
		goto out;
	}

	for (;;) {
		if (prompt) {
			printf("sqfs:/%s> ", b.cwd);
			fflush(stdout);
		}
		if (getline(&line, &size, stdin) < 0) {
			/* leave the terminal on a fresh line */
			if (prompt)
				putchar('\n');
			break;
		}
		if (!run_line(&b, line))
			break;
		/* keep the output in step with the messages on stderr */
		fflush(stdout);
	}

	status = 0;
	if (ferror(stdin)) {
		fprintf(stderr, "browse: reading commands: %s\n",
			strerror(errno));
		status = 1;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "browse: standard output: %s\n",
			strerror(errno));
		status = 1;
	}
out:
	free(line);
	free(b.cwd);
	sqfs_data_reader_destroy(b.data);
	sqfs_dir_reader_destroy(b.dir);
	sqfs_image_destroy(b.img);
	sqfs_file_destroy(file);
	return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * race_shim.c - an LD_PRELOAD library for races.sh: the tree a tool reads
 * is changed under it at a chosen step, on cue rather than by a race.
 *
 * The trigger: every call of the tool that names a path (open, openat,
 * fstatat, stat, lstat, readlinkat, the path *xattr calls; each also in
 * its 64 spelling) and has RACE_MATCH as one of the components of that
 * path (for /proc/self/fd/N[/REST], of the path N is open at, REST
 * after it) is counted, whichever thread makes it. Right before the call
 * numbered RACE_AT goes to the C library, the swap is made; the call then
 * proceeds and sees the changed tree. Counting calls that name one
 * component makes the step deterministic: the scan, which is one thread,
 * names a file once (fstatat) and a directory twice (fstatat, then the
 * open that enters it), so the first call after the scan is number 2 for
 * a file and 3 for a directory, whichever reader thread makes it.
 *
 * Environment:
 *   RACE_ROOT    absolute path of the tree (required)
 *   RACE_TARGET  path below RACE_ROOT of what is swapped (required)
 *   RACE_KIND    what takes its place: symlink (to RACE_SECRET), copy (a
 *                new file with RACE_SECRET's bytes), hardlink (a hard link
 *                to RACE_SECRET), rename (RACE_SECRET itself, a file or a
 *                directory, moved in), fifo (a new FIFO)
 *   RACE_SECRET  absolute path of the secret, a file or a directory
 *   RACE_MATCH   the component whose calls are counted (default: the last
 *                component of RACE_TARGET)
 *   RACE_AT      [CALL:]N: swap before the Nth counted call (default 1);
 *                CALL (open, stat, xattr, readlink, any) counts only that
 *                family
 *   RACE_RESTORE [CALL:]N: put the original back before the Nth counted
 *                call after the swap (an A-B-A change); unset: never
 *   RACE_RESTORE_MATCH  the component counted for that (default:
 *                RACE_MATCH)
 *   RACE_STASH   where the original goes meanwhile (default:
 *                RACE_ROOT.stash, beside the tree)
 *   RACE_WATCH   the objects the tool must never reach through a symlink
 *                nor read from (default: RACE_SECRET, and all below it)
 *   RACE_PROG    act only in a process whose name ends in this (the
 *                libtool wrapper is a shell that runs the real tool)
 *   RACE_LOG     file the shim appends its lines to (default: stderr)
 *   RACE_TRACE   1: log every counted call
 *
 * What it says, in RACE_LOG: "swap: ..." and "restore: ..." when done;
 * after the swap, "FOLLOWED: ..." when a call reached an object of
 * RACE_WATCH through the symlink put in (kind symlink), and "READ: ..."
 * when data or xattrs were read from an object of RACE_WATCH (a pread or
 * f*xattr call on a descriptor of one, or a path *xattr call naming
 * one), whatever the kind. races.sh fails on either.
 *
 * Thread safety: one mutex orders the counting and the swap, so every
 * call counted after the one that triggers it, on any thread, sees the
 * swap done (a call counted before it may still be under way; races.sh
 * triggers on the first call after the scan, when none is). The shim's
 * own calls go to the C library directly (the pointers dlsym gives, or
 * calls it does not wrap), never through its wrappers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

/* ---- the real functions -------------------------------------------------- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*fstatat_fn)(int, const char *, struct stat *, int);
typedef int (*stat_fn)(const char *, struct stat *);
typedef ssize_t (*readlinkat_fn)(int, const char *, char *, size_t);
typedef ssize_t (*getxattr_fn)(const char *, const char *, void *, size_t);
typedef ssize_t (*listxattr_fn)(const char *, char *, size_t);
typedef ssize_t (*fgetxattr_fn)(int, const char *, void *, size_t);
typedef ssize_t (*flistxattr_fn)(int, char *, size_t);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static struct {
	open_fn open, open64;
	openat_fn openat, openat64;
	fstatat_fn fstatat, fstatat64;
	stat_fn stat, lstat, stat64, lstat64;
	readlinkat_fn readlinkat;
	getxattr_fn getxattr, lgetxattr;
	listxattr_fn listxattr, llistxattr;
	fgetxattr_fn fgetxattr;
	flistxattr_fn flistxattr;
	pread_fn pread, pread64;
} real;

/* ---- the configuration --------------------------------------------------- */

enum family { F_ANY, F_OPEN, F_STAT, F_XATTR, F_READLINK };

enum kind { K_SYMLINK, K_COPY, K_HARDLINK, K_RENAME, K_FIFO };

typedef struct {
	enum family family;
	unsigned long n;
} when_t;

#define WATCH_MAX 4096

static struct {
	bool active;
	char target[4096];
	char stash[4096];
	const char *secret;
	const char *watch;
	const char *match;
	const char *restore_match;
	enum kind kind;
	when_t at;
	bool restore;
	when_t restore_at;
	bool trace;
	int log_fd;

	/* progress, under the lock */
	unsigned long seen;
	bool swapped;
	bool restored;
	/* the objects of RACE_WATCH (device, inode), taken at the swap */
	size_t watch_count;
	dev_t watch_dev[WATCH_MAX];
	ino_t watch_ino[WATCH_MAX];
	/* READ and FOLLOWED lines written, to keep the log short */
	unsigned int reports;
} cfg;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread bool inside;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_(const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(cfg.log_fd, line, (size_t)n) < 0) {
		/* nowhere to say it */
	}
}

static bool parse_when(const char *s, when_t *w)
{
	static const struct {
		const char *name;
		enum family f;
	} names[] = {{"any", F_ANY},
		     {"open", F_OPEN},
		     {"stat", F_STAT},
		     {"xattr", F_XATTR},
		     {"readlink", F_READLINK}};
	const char *colon = strchr(s, ':');
	char *end;

	w->family = F_ANY;
	if (colon != NULL) {
		size_t len = (size_t)(colon - s), i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
			if (strlen(names[i].name) == len &&
			    strncmp(s, names[i].name, len) == 0)
				break;
		}
		if (i == sizeof(names) / sizeof(names[0]))
			return false;
		w->family = names[i].f;
		s = colon + 1;
	}
	w->n = strtoul(s, &end, 10);
	return *end == '\0' && w->n > 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* An environment variable, empty taken as unset. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

static void *must_find(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p == NULL) {
		fprintf(stderr, "race_shim: no %s: %s\n", name, dlerror());
		abort();
	}
	return p;
}

static void setup(void)
{
	const char *root = env("RACE_ROOT"), *target = env("RACE_TARGET");
	const char *kind = env("RACE_KIND"), *prog = env("RACE_PROG");
	const char *at = env("RACE_AT"), *restore = env("RACE_RESTORE");
	const char *log = env("RACE_LOG"), *stash = env("RACE_STASH");
	const char *slash;

	real.open = (open_fn)must_find("open");
	real.open64 = (open_fn)must_find("open64");
	real.openat = (openat_fn)must_find("openat");
	real.openat64 = (openat_fn)must_find("openat64");
	real.fstatat = (fstatat_fn)must_find("fstatat");
	real.fstatat64 = (fstatat_fn)must_find("fstatat64");
	real.stat = (stat_fn)must_find("stat");
	real.lstat = (stat_fn)must_find("lstat");
	real.stat64 = (stat_fn)must_find("stat64");
	real.lstat64 = (stat_fn)must_find("lstat64");
	real.readlinkat = (readlinkat_fn)must_find("readlinkat");
	real.getxattr = (getxattr_fn)must_find("getxattr");
	real.lgetxattr = (getxattr_fn)must_find("lgetxattr");
	real.listxattr = (listxattr_fn)must_find("listxattr");
	real.llistxattr = (listxattr_fn)must_find("llistxattr");
	real.fgetxattr = (fgetxattr_fn)must_find("fgetxattr");
	real.flistxattr = (flistxattr_fn)must_find("flistxattr");
	real.pread = (pread_fn)must_find("pread");
	real.pread64 = (pread_fn)must_find("pread64");

	cfg.log_fd = 2;
	if (root == NULL || target == NULL)
		return;
	if (prog != NULL && !ends_with(program_invocation_short_name, prog))
		return;
	if (log != NULL) {
		int fd = real.open(
		    log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0)
			cfg.log_fd = fd;
	}
	cfg.secret = env("RACE_SECRET");
	if (kind == NULL || strcmp(kind, "symlink") == 0)
		cfg.kind = K_SYMLINK;
	else if (strcmp(kind, "copy") == 0)
		cfg.kind = K_COPY;
	else if (strcmp(kind, "hardlink") == 0)
		cfg.kind = K_HARDLINK;
	else if (strcmp(kind, "rename") == 0)
		cfg.kind = K_RENAME;
	else if (strcmp(kind, "fifo") == 0)
		cfg.kind = K_FIFO;
	else {
		logf_("race_shim: unknown RACE_KIND '%s'", kind);
		return;
	}
	if (cfg.secret == NULL && cfg.kind != K_FIFO) {
		logf_("race_shim: RACE_SECRET is needed");
		return;
	}
	if (!parse_when(at != NULL ? at : "1", &cfg.at) ||
	    (restore != NULL && !parse_when(restore, &cfg.restore_at))) {
		logf_("race_shim: bad RACE_AT or RACE_RESTORE");
		return;
	}
	cfg.restore = restore != NULL;
	snprintf(cfg.target, sizeof(cfg.target), "%s/%s", root, target);
	if (stash != NULL)
		snprintf(cfg.stash, sizeof(cfg.stash), "%s", stash);
	else
		snprintf(cfg.stash, sizeof(cfg.stash), "%s.stash", root);
	cfg.match = env("RACE_MATCH");
	if (cfg.match == NULL) {
		slash = strrchr(target, '/');
		cfg.match = slash != NULL ? slash + 1 : target;
	}
	cfg.restore_match = env("RACE_RESTORE_MATCH");
	if (cfg.restore_match == NULL)
		cfg.restore_match = cfg.match;
	cfg.watch = env("RACE_WATCH");
	if (cfg.watch == NULL)
		cfg.watch = cfg.secret;
	cfg.trace =
	    env("RACE_TRACE") != NULL && strcmp(env("RACE_TRACE"), "1") == 0;
	cfg.active = true;
}

/* ---- the watched objects ------------------------------------------------- */

static void watch_add(const struct stat *st)
{
	if (cfg.watch_count < WATCH_MAX) {
		cfg.watch_dev[cfg.watch_count] = st->st_dev;
		cfg.watch_ino[cfg.watch_count] = st->st_ino;
		cfg.watch_count += 1;
	}
}

static int watch_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	watch_add(st);
	return 0;
}

static bool watched_locked(const struct stat *st)
{
	for (size_t i = 0; i < cfg.watch_count; ++i) {
		if (cfg.watch_dev[i] == st->st_dev &&
		    cfg.watch_ino[i] == st->st_ino)
			return true;
	}
	return false;
}

static bool watched(const struct stat *st)
{
	bool ret;

	pthread_mutex_lock(&lock);
	ret = watched_locked(st);
	pthread_mutex_unlock(&lock);
	return ret;
}

/* ---- the swap ------------------------------------------------------------ */

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = real.open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = real.open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	}
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

static const char *call_name[] = {"any", "open", "stat", "xattr", "readlink"};

static void do_swap(const char *fn, const char *path)
{
	struct stat st;
	int ret = -1;

	if (cfg.watch != NULL)
		nftw(cfg.watch, watch_one, 16, FTW_PHYS);
	if (rename(cfg.target, cfg.stash) != 0) {
		logf_("swap FAILED: rename %s -> %s: %s", cfg.target, cfg.stash,
		      strerror(errno));
		return;
	}
	switch (cfg.kind) {
	case K_SYMLINK:
		ret = symlink(cfg.secret, cfg.target);
		break;
	case K_COPY:
		ret = copy_file(cfg.secret, cfg.target);
		break;
	case K_HARDLINK:
		ret = link(cfg.secret, cfg.target);
		break;
	case K_RENAME:
		ret = rename(cfg.secret, cfg.target);
		break;
	case K_FIFO:
		ret = mkfifo(cfg.target, 0644);
		break;
	}
	if (ret != 0) {
		logf_("swap FAILED: %s: %s", cfg.target, strerror(errno));
		return;
	}
	/* a copy is the secret too */
	if (cfg.kind == K_COPY && real.lstat(cfg.target, &st) == 0)
		watch_add(&st);
	cfg.swapped = true;
	logf_("swap: %s replaced (%s) before %s(\"%s\"), call %lu naming %s",
	      cfg.target, env("RACE_KIND") ? env("RACE_KIND") : "symlink", fn,
	      path, cfg.seen, cfg.match);
}

static void do_restore(const char *fn, const char *path)
{
	int ret;

	if (cfg.kind == K_RENAME)
		ret = rename(cfg.target, cfg.secret);
	else
		ret = unlink(cfg.target);
	if (ret != 0 || rename(cfg.stash, cfg.target) != 0) {
		logf_("restore FAILED: %s: %s", cfg.target, strerror(errno));
		return;
	}
	cfg.restored = true;
	logf_("restore: %s put back before %s(\"%s\"), call %lu naming %s",
	      cfg.target, fn, path, cfg.seen, cfg.restore_match);
}

/* Whether path has match as one of its components. */
static bool names_match(const char *path, const char *match)
{
	size_t len = strlen(match);
	const char *p = path;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, '/');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);

		if (n == len && strncmp(p, match, len) == 0)
			return true;
		p = end != NULL ? end + 1 : NULL;
	}
	return false;
}

/* What path names, for matching: a /proc/self/fd/N[/REST] path is what
 * the descriptor N is open at, REST after it, so that a call through the
 * magic link of a descriptor counts as one naming the object. */
static const char *what_it_names(const char *path, char *buf, size_t size)
{
	const char *p = path + strlen("/proc/self/fd/");
	char link[64];
	size_t len = 0;
	ssize_t n;

	if (strncmp(path, "/proc/self/fd/", strlen("/proc/self/fd/")) != 0)
		return path;
	while (p[len] >= '0' && p[len] <= '9')
		++len;
	if (len == 0 || len > 10)
		return path;
	snprintf(link, sizeof(link), "/proc/self/fd/%.*s", (int)len, p);
	n = readlink(link, buf, size - 1);
	if (n <= 0)
		return path;
	buf[n] = '\0';
	if ((size_t)n + strlen(p + len) >= size)
		return path;
	strcat(buf, p + len);
	return buf;
}

static bool family_is(const when_t *w, enum family f)
{
	return w->family == F_ANY || w->family == f;
}

/* Count a call naming path (flags: an open's, for the trace, or -1);
 * swap or restore if its turn has come. */
static void before_flags(enum family f, const char *fn, const char *path,
			 int flags)
{
	char buf[8192];
	bool counted, restoring;

	pthread_once(&once, setup);
	if (!cfg.active || inside || path == NULL)
		return;
	path = what_it_names(path, buf, sizeof(buf));
	counted = names_match(path, cfg.match);
	restoring = cfg.restore && names_match(path, cfg.restore_match);
	if (!counted && !restoring)
		return;
	inside = true;
	pthread_mutex_lock(&lock);
	if (!cfg.swapped && counted && family_is(&cfg.at, f)) {
		cfg.seen += 1;
		if (cfg.trace)
			logf_("call %lu (%s): %s(\"%s\", %#x)", cfg.seen,
			      call_name[f], fn, path, (unsigned int)flags);
		if (cfg.seen == cfg.at.n) {
			do_swap(fn, path);
			cfg.seen = 0;
		}
	} else if (cfg.swapped && restoring && !cfg.restored &&
		   family_is(&cfg.restore_at, f)) {
		cfg.seen += 1;
		if (cfg.trace)
			logf_("call %lu after the swap (%s): %s(\"%s\", %#x)",
			      cfg.seen, call_name[f], fn, path,
			      (unsigned int)flags);
		if (cfg.seen == cfg.restore_at.n)
			do_restore(fn, path);
	} else if (cfg.trace) {
		logf_("call (%s): %s(\"%s\", %#x)", call_name[f], fn, path,
		      (unsigned int)flags);
	}
	pthread_mutex_unlock(&lock);
	inside = false;
}

static void before(enum family f, const char *fn, const char *path)
{
	before_flags(f, fn, path, -1);
}

static bool swapped(void)
{
	bool ret;

	pthread_once(&once, setup);
	if (!cfg.active || inside)
		return false;
	pthread_mutex_lock(&lock);
	ret = cfg.swapped;
	pthread_mutex_unlock(&lock);
	return ret;
}

static void report(const char *what, const char *fn, const char *path, int fd)
{
	pthread_mutex_lock(&lock);
	if (cfg.reports < 50) {
		cfg.reports += 1;
		if (path != NULL)
			logf_("%s: %s(\"%s\")", what, fn, path);
		else
			logf_("%s: %s(fd %d)", what, fn, fd);
	}
	pthread_mutex_unlock(&lock);
}

/* After a call that opened fd or filled st: did it reach a watched object
 * through the symlink put in? */
static void after_open(const char *fn, const char *path, int fd)
{
	struct stat st;

	if (fd < 0 || !swapped() || cfg.kind != K_SYMLINK)
		return;
	if (fstat(fd, &st) == 0 && watched(&st))
		report("FOLLOWED", fn, path, fd);
}

static void after_stat(const char *fn, const char *path, int ret,
		       const struct stat *st)
{
	if (ret != 0 || !swapped() || cfg.kind != K_SYMLINK)
		return;
	if (watched(st))
		report("FOLLOWED", fn, path, -1);
}

/* Before reading from fd, or from path (follow: whether the call follows
 * a symlink at its end): is it a watched object? */
static void reading_fd(const char *fn, int fd)
{
	struct stat st;

	if (swapped() && fstat(fd, &st) == 0 && watched(&st))
		report("READ", fn, NULL, fd);
}

static void reading_path(const char *fn, const char *path, bool follow)
{
	struct stat st;
	int ret;

	if (!swapped())
		return;
	ret = follow ? real.stat(path, &st) : real.lstat(path, &st);
	if (ret == 0 && watched(&st))
		report("READ", fn, path, -1);
}

/* ---- the wrappers -------------------------------------------------------- */

static bool wants_mode(int flags)
{
	return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

#define OPEN_MODE(flags, mode)                          \
	do {                                            \
		if (wants_mode(flags)) {                \
			va_list ap;                     \
			va_start(ap, flags);            \
			mode = (mode_t)va_arg(ap, int); \
			va_end(ap);                     \
		}                                       \
	} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	before_flags(F_OPEN, "open", path, flags);
	fd = real.open(path, flags, mode);
	after_open("open", path, fd);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	before_flags(F_OPEN, "open64", path, flags);
	fd = real.open64(path, flags, mode);
	after_open("open64", path, fd);
	return fd;
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	before_flags(F_OPEN, "openat", path, flags);
	fd = real.openat(dirfd, path, flags, mode);
	after_open("openat", path, fd);
	return fd;
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	OPEN_MODE(flags, mode);
	before_flags(F_OPEN, "openat64", path, flags);
	fd = real.openat64(dirfd, path, flags, mode);
	after_open("openat64", path, fd);
	return fd;
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int ret;

	before_flags(F_STAT, "fstatat", path, flags);
	ret = real.fstatat(dirfd, path, st, flags);
	after_stat("fstatat", path, ret, st);
	return ret;
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	int ret;

	before_flags(F_STAT, "fstatat64", path, flags);
	ret = real.fstatat64(dirfd, path, (struct stat *)st, flags);
	after_stat("fstatat64", path, ret, (struct stat *)st);
	return ret;
}

int stat(const char *path, struct stat *st)
{
	int ret;

	before(F_STAT, "stat", path);
	ret = real.stat(path, st);
	after_stat("stat", path, ret, st);
	return ret;
}

int lstat(const char *path, struct stat *st)
{
	int ret;

	before(F_STAT, "lstat", path);
	ret = real.lstat(path, st);
	after_stat("lstat", path, ret, st);
	return ret;
}

int stat64(const char *path, struct stat64 *st)
{
	int ret;

	before(F_STAT, "stat64", path);
	ret = real.stat64(path, (struct stat *)st);
	after_stat("stat64", path, ret, (struct stat *)st);
	return ret;
}

int lstat64(const char *path, struct stat64 *st)
{
	int ret;

	before(F_STAT, "lstat64", path);
	ret = real.lstat64(path, (struct stat *)st);
	after_stat("lstat64", path, ret, (struct stat *)st);
	return ret;
}

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size)
{
	before(F_READLINK, "readlinkat", path);
	return real.readlinkat(dirfd, path, buf, size);
}

ssize_t getxattr(const char *path, const char *key, void *buf, size_t size)
{
	before(F_XATTR, "getxattr", path);
	reading_path("getxattr", path, true);
	return real.getxattr(path, key, buf, size);
}

ssize_t lgetxattr(const char *path, const char *key, void *buf, size_t size)
{
	before(F_XATTR, "lgetxattr", path);
	reading_path("lgetxattr", path, false);
	return real.lgetxattr(path, key, buf, size);
}

ssize_t listxattr(const char *path, char *buf, size_t size)
{
	before(F_XATTR, "listxattr", path);
	reading_path("listxattr", path, true);
	return real.listxattr(path, buf, size);
}

ssize_t llistxattr(const char *path, char *buf, size_t size)
{
	before(F_XATTR, "llistxattr", path);
	reading_path("llistxattr", path, false);
	return real.llistxattr(path, buf, size);
}

ssize_t fgetxattr(int fd, const char *key, void *buf, size_t size)
{
	reading_fd("fgetxattr", fd);
	return real.fgetxattr(fd, key, buf, size);
}

ssize_t flistxattr(int fd, char *buf, size_t size)
{
	reading_fd("flistxattr", fd);
	return real.flistxattr(fd, buf, size);
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	reading_fd("pread", fd);
	return real.pread(fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off64_t offset)
{
	reading_fd("pread64", fd);
	return real.pread64(fd, buf, count, (off_t)offset);
}

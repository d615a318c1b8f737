/* SPDX-License-Identifier: MIT */
/*
 * daemon.c - going to the background without lying about the outcome.
 *
 * The process forks before it does anything: the child opens the image,
 * mounts and serves; the parent only waits for the child's word and
 * exits with it. So the exit status is 0 only once the mount exists, the
 * child's messages before that reach the terminal, and the threads the
 * file system starts (read-ahead) are the serving process's own: a fork
 * after them would lose them, as libfuse's fuse_daemonize would.
 */
#include "config.h"

#include "common/print.h"
#include "sqfsmount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The child's end of the pipe to the waiting parent; -1: foreground. */
static int status_fd = -1;

int mount_daemon_start(int failed_status)
{
	int fds[2];
	unsigned char status;
	ssize_t ret;
	pid_t pid;

	if (pipe(fds) != 0) {
		tool_error(NULL, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		tool_error(NULL, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		status_fd = fds[1];
		fcntl(status_fd, F_SETFD, FD_CLOEXEC);
		return 0;
	}

	/* the parent: the child's status byte, or its end (a crash) */
	close(fds[1]);
	do {
		ret = read(fds[0], &status, 1);
	} while (ret < 0 && errno == EINTR);
	_exit(ret == 1 ? status : failed_status);
}

void mount_daemon_ready(void)
{
	unsigned char ok = 0;
	int fd;

	if (chdir("/") != 0) {
		/* nothing depends on it: it only frees the directory the
		 * command was started in */
	}
	if (status_fd < 0)
		return;
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	if (write(status_fd, &ok, 1) != 1) {
		/* the parent is gone: nobody to tell */
	}
	close(status_fd);
	status_fd = -1;
}

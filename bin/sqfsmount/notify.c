/* SPDX-License-Identifier: MIT */
/*
 * notify.c - -o notify_pipe=PATH and --notify-fd N: one byte, 's' once the
 * mount is there, 'f' if it never will be.
 *
 * This is squashfuse's protocol, as runtimes that start it in the
 * background use it: they make a named pipe, pass it, and read one byte.
 * Opening a pipe for writing waits for a reader, so the byte is written
 * by someone who can wait: a thread of the daemon on success (the mount
 * is served meanwhile), a child process on failure (the command exits
 * with its status at once; the child writes when the reader comes).
 */
#include "config.h"

#include "common/print.h"
#include "sqfsmount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_byte(int fd, char c)
{
	ssize_t ret;

	do {
		ret = write(fd, &c, 1);
	} while (ret < 0 && errno == EINTR);
}

/* Open the pipe for writing (waiting for a reader) and write c. */
static void pipe_write(const char *path, char c)
{
	int fd;

	do {
		fd = open(path, O_WRONLY | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return;
	write_byte(fd, c);
	close(fd);
}

static void *pipe_thread(void *user)
{
	const mount_options_t *opt = user;

	pipe_write(opt->notify_pipe, 's');
	return NULL;
}

/* A reader is there already: write now, without waiting. */
static bool pipe_write_now(const char *path, char c)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno != ENXIO;
	write_byte(fd, c);
	close(fd);
	return true;
}

/* The grandchild that waits for a reader keeps nothing of the command:
 * not its output (a caller reading it would wait for the reader too),
 * nor the pipe to a waiting parent (daemon.c). */
static void detach_fds(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	for (fd = STDERR_FILENO + 1; fd < 1024; ++fd)
		close(fd);
}

void mount_notify(const mount_options_t *opt, char status)
{
	pthread_t thread;
	pid_t pid;

	if (opt->notify_fd >= 0) {
		write_byte(opt->notify_fd, status);
		close(opt->notify_fd);
	}
	if (opt->notify_pipe == NULL ||
	    pipe_write_now(opt->notify_pipe, status))
		return;

	if (status == 's') {
		if (pthread_create(&thread, NULL, pipe_thread, (void *)opt) ==
		    0)
			pthread_detach(thread);
		return;
	}

	/* failure: a grandchild waits for the reader, so that nobody has
	 * to reap it and this process may exit now */
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			detach_fds();
			pipe_write(opt->notify_pipe, status);
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

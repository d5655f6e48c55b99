// SPDX-License-Identifier: GPL-2.0
/*
 * The child raises SIGSTOP before exec; the recorder waits for the stop, puts
 * the pid into the kernel filter, and sends SIGCONT.  The exec and everything
 * after it are therefore traced.  An exec failure travels back through a
 * close-on-exec pipe: EOF on it means the exec worked.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader/spawn.h"

static void child(int err_fd, char **argv)
{
	int e;

	raise(SIGSTOP);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

int spawn__start(struct spawn *s, char **argv)
{
	int pfd[2], status, e;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	s->pid = fork();
	if (s->pid < 0) {
		e = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return e;
	}
	if (s->pid == 0) {
		close(pfd[0]);
		child(pfd[1], argv);
	}
	close(pfd[1]);
	s->err_fd = pfd[0];
	while (waitpid(s->pid, &status, WUNTRACED) < 0) {
		if (errno != EINTR) {
			e = -errno;
			spawn__abort(s);
			return e;
		}
	}
	if (!WIFSTOPPED(status)) {
		close(s->err_fd);
		return -ECHILD;
	}
	return 0;
}

int spawn__release(struct spawn *s)
{
	int e = 0;
	ssize_t n;

	kill(s->pid, SIGCONT);
	do
		n = read(s->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(s->err_fd);
	s->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(s->pid, NULL, 0);
		return -e;
	}
	return 0;
}

void spawn__abort(struct spawn *s)
{
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	if (s->err_fd >= 0)
		close(s->err_fd);
	s->err_fd = -1;
}

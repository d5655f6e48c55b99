// SPDX-License-Identifier: GPL-2.0
/*
 * A thread other than the main one execs: the kernel gives it the process's
 * pid as its tid.  Before, it reads a file; after, the new image (this
 * program again, with a third argument) writes DIR/after.
 *
 *   threadexec DIR
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char **args;

static void *worker(void *arg)
{
	char path[512], buf[64];
	char *argv2[] = { args[0], args[1], "after", NULL };

	(void)arg;
	printf("worker=%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	snprintf(path, sizeof(path), "%s/before", args[1]);
	for (int i = 0; i < 100; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			return NULL;
		close(fd);
	}
	execv("/proc/self/exe", argv2);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc < 2)
		return 2;
	if (argc > 2) {
		char path[512];
		int fd;

		snprintf(path, sizeof(path), "%s/after", argv[1]);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "after\n", 6) != 6)
			return 1;
		close(fd);
		printf("after=%d\n", getpid());
		return 0;
	}
	args = argv;
	printf("pid=%d\n", getpid());
	fflush(stdout);
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	pause(); /* the exec ends this thread */
	return 1;
}

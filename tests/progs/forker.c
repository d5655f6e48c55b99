// SPDX-License-Identifier: GPL-2.0
/*
 * A process tree: a child that writes a file and exits 7, reaped by wait4,
 * and a child that execs `true`.  For the fork-following tests.
 *
 *   forker DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[512];
	pid_t a, b;
	int status, fd;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof(path), "%s/child.out", argv[1]);
	printf("parent=%d\n", getpid());
	fflush(stdout);
	a = fork();
	if (a == 0) {
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "child\n", 6) != 6)
			_exit(1);
		close(fd);
		_exit(7);
	}
	if (wait4(a, &status, 0, NULL) != a || WEXITSTATUS(status) != 7)
		return 1;
	b = fork();
	if (b == 0) {
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(b, &status, 0);
	printf("child_a=%d child_b=%d\n", a, b);
	return 0;
}

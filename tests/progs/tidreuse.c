// SPDX-License-Identifier: GPL-2.0
/*
 * A thread that exits and a later thread of the same process given the same
 * tid, for the test that no state of the first passes to the second.  The
 * kernel hands out pids in turn, so the tid is asked for: after the first
 * thread is gone, /proc/sys/kernel/ns_last_pid is set to the tid before it
 * (root; another process may take the tid in between, so it is tried again).
 * Each thread stats DIR/f a few times; prints "tid=T tries=N", or exits 1
 * when the tid was never reused.
 *
 *   tidreuse DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TRIES 2000

static const char *dir;

static void *worker(void *arg)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/f", dir);
	for (int i = 0; i < 3; i++)
		stat(path, &st);
	*(long *)arg = syscall(SYS_gettid);
	return NULL;
}

static long run_thread(void)
{
	pthread_t th;
	long tid = 0;

	if (pthread_create(&th, NULL, worker, &tid) || pthread_join(th, NULL))
		return -1;
	return tid;
}

/* Waits, up to a second, until the exited thread's tid is free again. */
static void wait_gone(long tid)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 1000; i++) {
		if (syscall(SYS_tgkill, getpid(), tid, 0) && errno == ESRCH)
			return;
		nanosleep(&ms, NULL);
	}
}

static int set_last_pid(long pid)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY), n, ok;

	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%ld", pid);
	ok = write(fd, buf, n) == n;
	close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	long a, b;

	if (argc < 2)
		return 2;
	dir = argv[1];
	for (int i = 1; i <= TRIES; i++) {
		a = run_thread();
		if (a <= 1)
			return 1;
		wait_gone(a);
		if (set_last_pid(a - 1)) {
			perror("tidreuse: ns_last_pid");
			return 1;
		}
		b = run_thread();
		if (b == a) {
			printf("tid=%ld tries=%d\n", a, i);
			return 0;
		}
	}
	fprintf(stderr, "tidreuse: no tid reused in %d tries\n", TRIES);
	return 1;
}

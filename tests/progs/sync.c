// SPDX-License-Identifier: GPL-2.0
/*
 * Threads with known causal shapes, for the analysis tests.  Each mode
 * prints the tids and what they did, so a test can name the edges it
 * expects and the ones that must not exist.
 *
 *   sync token DIR	4 threads pass a token in a ring, 3 rounds; the holder
 *			pwrites its slot of DIR/token then hands on
 *   sync barrier DIR	4 threads write DIR/bN, meet at a barrier, then
 *			read the next thread's file
 *   sync sockpair	one thread writes 3 messages into a socketpair, the
 *			other reads them
 *   sync apart DIR	2 threads doing I/O on their own files, sharing nothing
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NT     4
#define ROUNDS 3

static const char *dir;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static int turn, tokfd, sv[2];

static long gettid_(void)
{
	return syscall(SYS_gettid);
}

/* One write(2) per line: no lock shared between threads that should not interact. */
static void say(const char *fmt, long a, long b)
{
	char line[128];
	int n = snprintf(line, sizeof(line), fmt, a, b);

	if (write(1, line, n) != n)
		exit(1);
}

static void *token(void *arg)
{
	long k = (long)arg;
	char slot[64];

	say("token k=%ld tid=%ld\n", k, gettid_());
	memset(slot, 'a' + k, sizeof(slot));
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&mu);
		while (turn % NT != k)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		/* the others are surely asleep waiting for the token, even on a busy
		 * machine: a thread that finds the token without blocking leaves no
		 * wakeup in the trace to order its pwrite by */
		usleep(20000);
		if (pwrite(tokfd, slot, sizeof(slot), (r * NT + k) * 64) != sizeof(slot))
			exit(1);
		pthread_mutex_lock(&mu);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void *barrier(void *arg)
{
	long k = (long)arg;
	char path[512], buf[4096];
	int fd;

	say("barrier k=%ld tid=%ld\n", k, gettid_());
	snprintf(path, sizeof(path), "%s/b%ld", dir, k);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	memset(buf, 'b', sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) || close(fd))
		exit(1);
	pthread_barrier_wait(&bar);
	snprintf(path, sizeof(path), "%s/b%ld", dir, (k + 1) % NT);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf) || close(fd))
		exit(1);
	return NULL;
}

static void *sock_writer(void *arg)
{
	char msg[100] = { 0 };

	(void)arg;
	say("sockpair writer tid=%ld%ld\n", gettid_(), 0);
	for (int i = 0; i < 3; i++) {
		usleep(5000);
		if (write(sv[0], msg, sizeof(msg)) != sizeof(msg))
			exit(1);
	}
	return NULL;
}

static void *sock_reader(void *arg)
{
	char buf[100];
	int got = 0;

	(void)arg;
	say("sockpair reader tid=%ld%ld\n", gettid_(), 0);
	while (got < 300) {
		ssize_t n = read(sv[1], buf, sizeof(buf));

		if (n <= 0)
			exit(1);
		got += n;
	}
	return NULL;
}

static void *apart(void *arg)
{
	long k = (long)arg;
	char path[512], buf[4096] = { 0 };
	int fd;

	say("apart k=%ld tid=%ld\n", k, gettid_());
	snprintf(path, sizeof(path), "%s/apart%ld", dir, k);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	for (int i = 0; i < 20 && fd >= 0; i++)
		if (pwrite(fd, buf, sizeof(buf), i * 4096) != sizeof(buf) ||
		    pread(fd, buf, sizeof(buf), i * 4096) != sizeof(buf))
			exit(1);
	return fd < 0 || close(fd) ? (void *)1 : NULL;
}

static void run(void *(*fn)(void *), int n)
{
	pthread_t th[NT];

	for (long i = 0; i < n; i++)
		pthread_create(&th[i], NULL, fn, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
	char path[512];

	if (argc < 2)
		return 2;
	dir = argc > 2 ? argv[2] : ".";
	if (!strcmp(argv[1], "token")) {
		snprintf(path, sizeof(path), "%s/token", dir);
		tokfd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
		if (tokfd < 0)
			return 1;
		run(token, NT);
	} else if (!strcmp(argv[1], "barrier")) {
		pthread_barrier_init(&bar, NULL, NT);
		run(barrier, NT);
	} else if (!strcmp(argv[1], "sockpair")) {
		pthread_t w, r;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			return 1;
		pthread_create(&r, NULL, sock_reader, NULL);
		pthread_create(&w, NULL, sock_writer, NULL);
		pthread_join(w, NULL);
		pthread_join(r, NULL);
	} else if (!strcmp(argv[1], "apart")) {
		run(apart, 2);
	} else {
		return 2;
	}
	return 0;
}

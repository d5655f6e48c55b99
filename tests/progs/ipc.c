// SPDX-License-Identifier: GPL-2.0
/*
 * Synchronization and IPC with known shapes: a pipe and a condvar between
 * two threads, a socketpair, an eventfd, a TCP connection over loopback,
 * and a file read through a shared mapping.
 *
 *   ipc DIR
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static int pfd[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int token;

static void *reader(void *arg)
{
	char buf[100];

	(void)arg;
	if (read(pfd[0], buf, sizeof(buf)) != 64) /* blocks until main writes */
		exit(1);
	pthread_mutex_lock(&mu);
	token = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void pipe_and_condvar(void)
{
	char buf[64] = { 0 };
	pthread_t th;

	if (pipe(pfd))
		exit(1);
	pthread_create(&th, NULL, reader, NULL);
	usleep(20000); /* let the reader block in read() */
	if (write(pfd[1], buf, sizeof(buf)) != sizeof(buf))
		exit(1);
	pthread_mutex_lock(&mu);
	while (!token)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	printf("pipe_r=%d pipe_w=%d\n", pfd[0], pfd[1]);
}

static void sockpair_and_eventfd(void)
{
	int sv[2], efd = eventfd(0, 0);
	uint64_t one = 1;
	char buf[32] = "hello";

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || write(sv[0], buf, 5) != 5 ||
	    read(sv[1], buf, sizeof(buf)) != 5 || write(efd, &one, 8) != 8 ||
	    read(efd, &one, 8) != 8)
		exit(1);
	printf("sp0=%d sp1=%d efd=%d\n", sv[0], sv[1], efd);
}

static void tcp_loopback(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s;
	char buf[128] = { 0 };

	if (bind(l, (void *)&a, sizeof(a)) || listen(l, 1) || getsockname(l, (void *)&a, &len) ||
	    connect(c, (void *)&a, sizeof(a)))
		exit(1);
	s = accept(l, NULL, NULL);
	if (s < 0 || send(c, buf, 100, 0) != 100 || recv(s, buf, 100, MSG_WAITALL) != 100)
		exit(1);
	printf("tcp_port=%d\n", ntohs(a.sin_port));
	close(s);
	close(c);
	close(l);
}

static void mapped_file(const char *dir)
{
	char path[512], page[4096];
	volatile char sum = 0;
	char *m;
	int fd;

	snprintf(path, sizeof(path), "%s/mapped", dir);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	memset(page, 'm', sizeof(page));
	for (int i = 0; i < 8; i++)
		if (write(fd, page, sizeof(page)) != sizeof(page))
			exit(1);
	m = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		exit(1);
	sum += m[0];
	sum += m[5 * 4096];
	m[3 * 4096] = 'w'; /* dirties page 3 */
	if (msync(m, 8 * 4096, MS_SYNC) || munmap(m, 8 * 4096))
		exit(1);
	close(fd);
	printf("mapped=%s\n", path);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("pid=%d\n", getpid());
	pipe_and_condvar();
	sockpair_and_eventfd();
	tcp_loopback();
	mapped_file(argv[1]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Exactly THREADS x N cached 4 KiB preads of FILE and nothing else in the
 * loop, so a test knows how many calls were made.
 *
 *   preads FILE THREADS N
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fd;
static long n;

static void *worker(void *arg)
{
	unsigned int s = (unsigned int)(long)arg + 1;
	char buf[4096];

	for (long i = 0; i < n; i++) {
		s = s * 1103515245 + 12345;
		if (pread(fd, buf, sizeof(buf), (off_t)((s >> 8) % 256) * 4096) != sizeof(buf))
			exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	int t;

	if (argc < 4 || (t = atoi(argv[2])) < 1 || t > 16)
		return 2;
	n = atol(argv[3]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	for (long i = 0; i < t; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	return 0;
}

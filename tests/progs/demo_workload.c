// SPDX-License-Identifier: GPL-2.0
/*
 * The workload `make demo` records: a writer thread appends records to a log
 * and fsyncs it, hands each batch to an indexer thread through a pipe, which
 * reads the batch back and writes an index; two reader threads take turns
 * reading the log under a condvar.  About a second of work.
 *
 *   demo_workload DIR
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCHES 40
#define RECORD	4096

static char logpath[512], idxpath[512];
static int handoff[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;
static int turn;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void *writer(void *arg)
{
	char rec[RECORD];
	int fd = open(logpath, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	(void)arg;
	if (fd < 0)
		die("open log");
	for (int b = 0; b < BATCHES; b++) {
		long off = (long)b * 4 * RECORD;

		memset(rec, 'a' + b % 26, sizeof(rec));
		for (int i = 0; i < 4; i++)
			if (write(fd, rec, sizeof(rec)) != sizeof(rec))
				die("write log");
		if (fdatasync(fd))
			die("fdatasync");
		if (write(handoff[1], &off, sizeof(off)) != sizeof(off))
			die("handoff");
		usleep(2000); /* think */
	}
	close(fd);
	close(handoff[1]);
	return NULL;
}

static void *indexer(void *arg)
{
	int lfd = open(logpath, O_RDONLY | O_CREAT, 0644);
	int ifd = open(idxpath, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	char rec[RECORD];
	long off;

	(void)arg;
	if (lfd < 0 || ifd < 0)
		die("open index");
	while (read(handoff[0], &off, sizeof(off)) == sizeof(off)) {
		if (pread(lfd, rec, sizeof(rec), off) != sizeof(rec))
			die("pread");
		if (write(ifd, &off, sizeof(off)) != sizeof(off))
			die("write index");
	}
	fsync(ifd);
	close(ifd);
	close(lfd);
	return NULL;
}

static void *reader(void *arg)
{
	long me = (long)arg;
	char rec[RECORD];
	int fd = open(logpath, O_RDONLY | O_CREAT, 0644);

	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&mu);
		while (turn % 2 != me)
			pthread_cond_wait(&turn_cv, &mu);
		pthread_mutex_unlock(&mu);
		if (pread(fd, rec, sizeof(rec), (long)(i % 8) * RECORD) < 0)
			die("pread");
		pthread_mutex_lock(&mu);
		turn++;
		pthread_cond_broadcast(&turn_cv);
		pthread_mutex_unlock(&mu);
		usleep(1000);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[4];

	if (argc < 2) {
		fprintf(stderr, "usage: demo_workload DIR\n");
		return 2;
	}
	snprintf(logpath, sizeof(logpath), "%s/demo.log", argv[1]);
	snprintf(idxpath, sizeof(idxpath), "%s/demo.idx", argv[1]);
	if (pipe(handoff))
		die("pipe");
	pthread_create(&th[0], NULL, writer, NULL);
	pthread_create(&th[1], NULL, indexer, NULL);
	pthread_create(&th[2], NULL, reader, (void *)0L);
	pthread_create(&th[3], NULL, reader, (void *)1L);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("demo_workload: wrote %d batches to %s\n", BATCHES, logpath);
	return 0;
}

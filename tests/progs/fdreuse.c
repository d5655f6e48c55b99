// SPDX-License-Identifier: GPL-2.0
/*
 * One fd number that names one open file after another, read many times in
 * each: the recorder emits an fd's identity once per open file and a reader
 * restores it, so every read must still name the file it read.  Each read's
 * offset is its tag; DIR/expect gets "TAG INO DEV ACCMODE" for every tag.
 *
 *   fdreuse DIR
 *
 * dup2 over the fd, close and reopen at the same number, files unlinked and
 * closed so their struct file and inode may be reused at the same addresses,
 * a forked child reading the inherited fd, and a thread reading it before
 * and after another thread swapped the file under it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define READS 8

static FILE *expect;
static int fd;
static pthread_barrier_t bar;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* READS reads of fd tagged tag, and what they must name. */
static void reads(int tag)
{
	struct stat st;
	char c;

	if (fstat(fd, &st))
		die("fstat");
	for (int i = 0; i < READS; i++)
		if (pread(fd, &c, 1, tag) < 0)
			die("pread");
	fprintf(expect, "%d %llu %llu %d\n", tag, (unsigned long long)st.st_ino,
		(unsigned long long)st.st_dev, fcntl(fd, F_GETFL) & O_ACCMODE);
	fflush(expect);
}

static int make(const char *dir, const char *name, int flags)
{
	char path[4096];
	int f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = open(path, O_WRONLY | O_CREAT, 0600);
	if (f < 0 || write(f, "0123456789abcdefghijklmnopqrstuvwxyz", 36) != 36)
		die(path);
	close(f);
	f = open(path, flags);
	if (f < 0)
		die(path);
	return f;
}

/* Takes fd's number over with a new file, as a reopen does. */
static void reopen(const char *dir, const char *name, int flags)
{
	int f;

	close(fd);
	f = make(dir, name, flags);
	if (f != fd)
		die("reopen at the same number");
}

static void *reader(void *arg)
{
	(void)arg;
	reads(40);
	pthread_barrier_wait(&bar); /* main swaps the file */
	pthread_barrier_wait(&bar);
	reads(41);
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	pthread_t th;
	int f, st;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/expect", argv[1]);
	expect = fopen(path, "w");
	if (!expect)
		die(path);
	fd = make(argv[1], "a", O_RDONLY);
	reads(1);
	f = make(argv[1], "b", O_RDWR);
	if (dup2(f, fd) != fd)
		die("dup2");
	close(f);
	reads(2);
	reopen(argv[1], "c", O_RDONLY);
	reads(3);
	for (int i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "t%d", i);
		reopen(argv[1], path, i % 2 ? O_RDONLY : O_RDWR);
		snprintf(path, sizeof(path), "%s/t%d", argv[1], i);
		unlink(path);
		reads(10 + i);
	}
	reopen(argv[1], "d", O_RDONLY);
	reads(4);
	if (!fork()) {
		reads(20);
		f = make(argv[1], "e", O_RDWR);
		dup2(f, fd);
		reads(21);
		_exit(0);
	}
	wait(&st);
	reads(5);
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&th, NULL, reader, NULL);
	pthread_barrier_wait(&bar);
	reopen(argv[1], "f", O_RDWR);
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
	reads(6);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

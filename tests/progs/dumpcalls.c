// SPDX-License-Identifier: GPL-2.0
/*
 * Calls whose strace spelling is known, for dump's golden-output tests.
 *
 *   dumpcalls calls DIR	one thread: opens with flags and modes, failures
 *				with known errnos, sockets, pipes, mmap, futex,
 *				fcntl, a fork and its wait, between access(DIR/begin)
 *				and access(DIR/end)
 *   dumpcalls threads DIR	4 threads, 200 pwrites each to their own file,
 *				handing a futex word round, for time order
 *   dumpcalls execs DIR	execve of DIR/missing with NULL arrays and with
 *				arrays that cannot be read, each failing ENOENT
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NT     4
#define ROUNDS 200

static const char *dir;
static unsigned int word;

static const char *at(const char *name)
{
	static char buf[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static long futex(unsigned int *w, int op, unsigned int val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void files(void)
{
	char buf[64] = "hello world\n";
	int fd, sv[2], p[2];
	struct stat st;
	void *m;

	fd = openat(AT_FDCWD, at("f"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || write(fd, buf, 12) != 12 || pwrite(fd, "tail", 4, 100) != 4)
		exit(1);
	lseek(fd, 0, SEEK_END);
	lseek(fd, 4, SEEK_SET);
	fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	close(fcntl(fd, F_DUPFD_CLOEXEC, 10));
	fsync(fd);
	close(fd);
	openat(AT_FDCWD, at("missing"), O_RDONLY);
	fd = openat(AT_FDCWD, at("f"), O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0 || pread(fd, buf, sizeof(buf), 2) < 0 || fstat(fd, &st))
		exit(1);
	flock(fd, LOCK_EX | LOCK_NB);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	close(fd);
	access(at("f"), R_OK | W_OK);
	chmod(at("f"), 0600);
	mkdir(at("d"), 0750);
	rename(at("d"), at("e"));
	rmdir(at("e"));
	rmdir(at("e"));
	if (symlink("f", at("l")) || readlink(at("l"), buf, sizeof(buf)) < 0)
		exit(1);
	unlink(at("l"));
	socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, IPPROTO_UDP);
	socket(AF_INET6, SOCK_STREAM, 0);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) || pipe2(p, O_CLOEXEC | O_NONBLOCK))
		exit(1);
	close(-1);
	futex(&word, FUTEX_WAKE_PRIVATE, 1);
	futex(&word, FUTEX_WAIT_PRIVATE, 1); /* the word is 0: EAGAIN at once */
}

static void child(void)
{
	pid_t c = fork();
	int st;

	if (c == 0)
		_exit(3);
	if (c < 0 || waitpid(c, &st, 0) != c)
		exit(1);
}

static void *worker(void *arg)
{
	long k = (long)arg;
	char name[32], b[512] = { 0 };
	int fd;

	snprintf(name, sizeof(name), "w%ld", k);
	fd = open(at(name), O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		exit(1);
	for (int r = 0; r < ROUNDS; r++) {
		if (pwrite(fd, b, sizeof(b), (off_t)r * sizeof(b)) != sizeof(b))
			exit(1);
		/* hand the word on; nobody needs to wait for it, only to call */
		__atomic_add_fetch(&word, 1, __ATOMIC_SEQ_CST);
		futex(&word, FUTEX_WAKE_PRIVATE, 1);
	}
	close(fd);
	return NULL;
}

/* The argv and envp spellings strace has for arrays that are not there. */
static void execs(void)
{
	char *const *bad = (char *const *)8;

	syscall(SYS_execve, at("missing"), NULL, NULL);
	syscall(SYS_execve, at("missing"), bad, bad);
	syscall(SYS_execveat, AT_FDCWD, at("missing"), NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	pthread_t t[NT];

	if (argc != 3)
		return 2;
	dir = argv[2];
	if (!strcmp(argv[1], "calls")) {
		access(at("begin"), F_OK);
		files();
		child();
		access(at("end"), F_OK);
		return 0;
	}
	if (!strcmp(argv[1], "execs")) {
		execs();
		return 0;
	}
	if (strcmp(argv[1], "threads"))
		return 2;
	for (long k = 0; k < NT; k++) {
		int e = pthread_create(&t[k], NULL, worker, (void *)k);

		if (e) {
			fprintf(stderr, "dumpcalls: thread %ld: %s\n", k, strerror(e));
			return 1;
		}
	}
	for (int k = 0; k < NT; k++)
		pthread_join(t[k], NULL);
	return 0;
}

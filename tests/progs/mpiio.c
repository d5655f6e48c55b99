// SPDX-License-Identifier: GPL-2.0
/*
 * //TRACE's MPI patterns (issue 20), one process per rank, against a directory
 * every rank sees:
 *
 *   mpiio pseudo DIR ROUNDS [LOG]      each rank writes ROUNDS blocks of its own
 *                                      file with compute between, syncs, meets
 *                                      the others at a barrier, reads them back
 *   mpiio pseudosync DIR ROUNDS [LOG]  the same with a barrier after each write
 *   mpiio fitness DIR ROUNDS [LOG]     a token goes round the ranks ROUNDS times;
 *                                      the holder writes its next block, then
 *                                      passes the token on
 *
 * Rank r's file is DIR/rR, blocks of 64 KiB at offset J * 64 KiB, opened
 * O_DIRECT where the file system allows it so that every write and read
 * reaches the storage. With LOG each rank writes LOG.R: "host NAME" first,
 * then "write J" and "read J" after its write and read of block J, "send
 * PEER" and "recv PEER" for each token, "barrier 0" after each barrier, in
 * its own order: what the tests need to know which of the other ranks' calls
 * each call must come after. Prints, on rank 0, the seconds from the first
 * barrier to the last.
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLK	   (64 * 1024)
#define COMPUTE_NS 200000L
#define MAX_ROUNDS 10000

static int rank, nranks;
static FILE *logf;
static char *buf;

static void die(const char *what)
{
	fprintf(stderr, "mpiio: rank %d: %s: %s\n", rank, what, strerror(errno));
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Compute stands for work on the data: a spin, so that it takes CPU time, as
 * //TRACE's compute phases do, not a sleep */
static void compute(void)
{
	double end = now() + COMPUTE_NS / 1e9;
	volatile unsigned long x = 0;

	while (now() < end)
		x++;
}

static void note(const char *what, int n)
{
	if (logf)
		fprintf(logf, "%s %d\n", what, n);
}

static int open_own(const char *dir)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/r%d", dir, rank);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	/* tmpfs has no O_DIRECT: there the page cache is the storage */
	if (fd < 0 && errno == EINVAL)
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	return fd;
}

static void write_block(int fd, int j)
{
	if (pwrite(fd, buf, BLK, (off_t)j * BLK) != BLK || fdatasync(fd))
		die("pwrite or fdatasync");
	note("write", j);
}

static void barrier(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
	note("barrier", 0);
}

static void read_back(int fd, int rounds)
{
	for (int j = 0; j < rounds; j++) {
		compute();
		if (pread(fd, buf, BLK, (off_t)j * BLK) != BLK)
			die("pread");
		note("read", j);
	}
}

static void pseudo(int fd, int rounds, int sync)
{
	for (int j = 0; j < rounds; j++) {
		compute();
		write_block(fd, j);
		if (sync)
			barrier();
	}
	barrier();
	read_back(fd, rounds);
}

/* The token goes 0 -> 1 -> ... -> n-1 -> 0; rank 0 starts each round but the
 * first when it gets the token back */
static void fitness(int fd, int rounds)
{
	int prev = (rank + nranks - 1) % nranks, next = (rank + 1) % nranks;
	int token = 0;

	for (int j = 0; j < rounds; j++) {
		if (rank || j) {
			MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			note("recv", prev);
		}
		compute();
		write_block(fd, j);
		if (rank != nranks - 1 || j != rounds - 1) {
			token++;
			MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
			note("send", next);
		}
	}
}

static void open_log(const char *path)
{
	char name[4096], host[256] = "";

	snprintf(name, sizeof(name), "%s.%d", path, rank);
	logf = fopen(name, "w");
	if (!logf)
		die(name);
	/* a line per event, in order, even if a rank is killed */
	setvbuf(logf, NULL, _IOLBF, 0);
	gethostname(host, sizeof(host) - 1);
	fprintf(logf, "host %s\n", host);
}

int main(int argc, char **argv)
{
	int rounds, fd;
	double t0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	rounds = argc >= 4 ? atoi(argv[3]) : 0;
	if (argc < 4 || argc > 5 || rounds < 1 || rounds > MAX_ROUNDS ||
	    (strcmp(argv[1], "pseudo") && strcmp(argv[1], "pseudosync") &&
	     strcmp(argv[1], "fitness"))) {
		if (!rank)
			fprintf(stderr,
				"usage: mpiio pseudo|pseudosync|fitness DIR ROUNDS(1-%d) "
				"[LOG]\n",
				MAX_ROUNDS);
		MPI_Finalize();
		return 2;
	}
	if (posix_memalign((void **)&buf, 4096, BLK))
		die("posix_memalign");
	memset(buf, 'a' + rank, BLK);
	if (argc == 5)
		open_log(argv[4]);
	fd = open_own(argv[2]);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = now();
	if (!strcmp(argv[1], "fitness"))
		fitness(fd, rounds);
	else
		pseudo(fd, rounds, !strcmp(argv[1], "pseudosync"));
	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank)
		printf("%.6f\n", now() - t0);
	close(fd);
	if (logf)
		fclose(logf);
	MPI_Finalize();
	return 0;
}

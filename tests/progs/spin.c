// SPDX-License-Identifier: GPL-2.0
/*
 * spin PATH SECONDS: creates PATH, then computes for SECONDS without a system
 * call (the vDSO clock needs none) and, as SCHED_FIFO, without being switched
 * out by ordinary tasks, so the records of its first calls stay in its CPU's
 * batch until the recorder drains it at the end of the recording.  Prints
 * "ready" once PATH exists.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 1 };
	volatile unsigned long sink = 0;
	double end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: spin PATH SECONDS\n");
		return 2;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		perror("sched_setscheduler"); /* still a test, a weaker one */
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	printf("ready\n");
	fflush(stdout);
	end = now() + atof(argv[2]);
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
	return 0;
}

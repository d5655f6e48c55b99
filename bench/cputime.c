// SPDX-License-Identifier: GPL-2.0
/*
 * cputime: run a command and report the CPU time of that process alone,
 * apart from its children.
 *
 * Usage: cputime OUTFILE CMD [ARG...]
 * Writes to OUTFILE one line:
 *   wall_s=.. self_user_s=.. self_sys_s=.. child_user_s=.. child_sys_s=..
 * and exits with CMD's exit status (128+N if killed by signal N).
 *
 * Why not /usr/bin/time: a tracer such as `iotrace record -- CMD` reaps its
 * workload, so getrusage(RUSAGE_CHILDREN) mixes the recorder's CPU with the
 * workload's. Here the child is left a zombie with waitid(WNOWAIT) and its
 * /proc/PID/stat read then: utime/stime are the recorder's own threads (all
 * of them, exited ones included), cutime/cstime what it reaped. Time spent
 * in BPF programs runs in the traced threads' context and so is counted in
 * the workload's system time, not here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
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
	if (argc < 3) {
		fprintf(stderr, "usage: cputime OUTFILE CMD [ARG...]\n");
		return 2;
	}
	double t0 = now();
	pid_t pid = fork();

	if (pid < 0) {
		perror("cputime: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cputime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}

	siginfo_t si;

	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR) {
			perror("cputime: waitid");
			return 2;
		}
	double wall = now() - t0;

	/* Fields after the ")" of comm: 3 state ... 14 utime 15 stime 16 cutime 17 cstime. */
	char path[64], buf[4096];
	unsigned long long ut = 0, st = 0;
	long long cut = 0, cst = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		char *p;

		buf[n] = 0;
		fclose(f);
		p = strrchr(buf, ')');
		if (!p ||
		    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld",
			   &ut, &st, &cut, &cst) != 4)
			fprintf(stderr, "cputime: cannot parse %s\n", path);
	}

	int status;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	double hz = sysconf(_SC_CLK_TCK);

	f = fopen(argv[1], "w");
	if (!f) {
		perror("cputime: output");
		return 2;
	}
	fprintf(f,
		"wall_s=%.6f self_user_s=%.2f self_sys_s=%.2f child_user_s=%.2f child_sys_s=%.2f\n",
		wall, ut / hz, st / hz, cut / hz, cst / hz);
	fclose(f);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

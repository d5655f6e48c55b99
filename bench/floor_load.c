// SPDX-License-Identifier: GPL-2.0
/*
 * floor_load: attach the empty programs of floor.bpf.o for a benchmark run.
 *
 * Usage: floor_load OBJ syscalls|sched|all
 * Loads OBJ, attaches the syscall pair (sys_enter, sys_exit), the scheduler
 * set (sched_switch, sched_waking, fork, exec, exit) or both, prints "ready"
 * on stdout once they run, and holds them until SIGINT or SIGTERM.  A bench
 * tool, not part of iotrace: a hidden iotrace subcommand would ship it.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Whether program p belongs to the set named by what. */
static bool floor__wanted(struct bpf_program *p, const char *what)
{
	bool sys = strstr(bpf_program__section_name(p), "/sys_") != NULL;

	if (!strcmp(what, "all"))
		return true;
	return sys == !strcmp(what, "syscalls");
}

static int floor__attach(struct bpf_object *obj, const char *what)
{
	struct bpf_program *p;

	for (p = bpf_object__next_program(obj, NULL); p; p = bpf_object__next_program(obj, p))
		bpf_program__set_autoload(p, floor__wanted(p, what));
	if (bpf_object__load(obj))
		return -errno;
	for (p = bpf_object__next_program(obj, NULL); p; p = bpf_object__next_program(obj, p)) {
		if (!floor__wanted(p, what))
			continue;
		/* the links live until the process exits */
		if (!bpf_program__attach(p))
			return -errno;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, wait;
	struct bpf_object *obj;
	int e;

	if (argc != 3 ||
	    (strcmp(argv[2], "syscalls") && strcmp(argv[2], "sched") && strcmp(argv[2], "all"))) {
		fprintf(stderr, "usage: floor_load OBJ syscalls|sched|all\n");
		return 2;
	}
	/* blocked until sigsuspend: a signal sent right after "ready" is not missed */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &wait);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "floor_load: opening %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	e = floor__attach(obj, argv[2]);
	if (e) {
		fprintf(stderr, "floor_load: loading %s: %s\n", argv[1], strerror(-e));
		bpf_object__close(obj);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		sigsuspend(&wait);
	bpf_object__close(obj);
	return 0;
}

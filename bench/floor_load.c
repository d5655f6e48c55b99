// SPDX-License-Identifier: GPL-2.0
/*
 * floor_load: attach the empty programs of floor.bpf.o for a benchmark run.
 *
 * Usage: floor_load OBJ syscalls|sched|all|clock|record
 * Loads OBJ, attaches the empty syscall pair (sys_enter, sys_exit), the
 * scheduler set (sched_switch, sched_waking, fork, exec, exit) or both, or
 * the scheduler set with the syscall pair that times each call (clock) or
 * also writes its record (record); prints "ready" on stdout once they run,
 * and holds them, draining the record pair's ring, until SIGINT or SIGTERM.
 * A bench tool, not part of iotrace: a hidden iotrace subcommand would ship
 * it.
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

static const char *const floor__sets[] = { "syscalls", "sched", "all", "clock", "record" };

/* Whether program p belongs to the set named by what. */
static bool floor__wanted(struct bpf_program *p, const char *what)
{
	const char *name = bpf_program__name(p);
	bool sys = strstr(bpf_program__section_name(p), "/sys_") != NULL;

	if (!sys)
		return strcmp(what, "syscalls") != 0;
	if (!strcmp(what, "clock"))
		return !strncmp(name, "floor_clock_", 12);
	if (!strcmp(what, "record"))
		return !strncmp(name, "floor_rec_", 10);
	return !strncmp(name, "floor_sys_", 10) && strcmp(what, "sched") != 0;
}

static bool floor__known(const char *what)
{
	for (size_t i = 0; i < sizeof(floor__sets) / sizeof(floor__sets[0]); i++)
		if (!strcmp(what, floor__sets[i]))
			return true;
	return false;
}

/* The record pair's batches are read and dropped, as a recorder would drain them. */
static int floor__drop(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
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
	struct ring_buffer *rb = NULL;
	sigset_t block, wait;
	struct bpf_object *obj;
	int e;

	if (argc != 3 || !floor__known(argv[2])) {
		fprintf(stderr, "usage: floor_load OBJ syscalls|sched|all|clock|record\n");
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
	if (!strcmp(argv[2], "record")) {
		rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "floor_ring"),
				      floor__drop, NULL, NULL);
		if (!rb) {
			fprintf(stderr, "floor_load: the record ring: %s\n", strerror(errno));
			bpf_object__close(obj);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	if (rb) {
		/* every 100 ms, as iotrace's drain (the programs wake no reader);
		 * a signal ends the loop within one sleep */
		sigprocmask(SIG_SETMASK, &wait, NULL);
		while (!stop) {
			ring_buffer__consume(rb);
			usleep(100000);
		}
	}
	while (!stop)
		sigsuspend(&wait);
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return 0;
}

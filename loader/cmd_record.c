// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace record: load the capture programs, put the targets into the kernel
 * filter, snapshot what they already hold, and drain the ring buffer into the
 * trace file until the targets are gone or we are told to stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/cliopt.h"
#include "lib/log.h"
#include "lib/record.h"
#include "lib/trace.h"
#include "loader/bpfsetup.h"
#include "loader/calib.h"
#include "loader/linksnap.h"
#include "loader/cmd_record.h"
#include "loader/pidset.h"
#include "loader/procsnap.h"
#include "loader/spawn.h"

#define FLUSH_NS	1000000000ull	/* a killed recorder loses at most this much */
#define POLL_MS		100

struct record_opts {
	struct pidset targets;
	bool no_children;
	const char *out;
	double duration;
	size_t ring_bytes;
	char **cmd;
};

struct recorder {
	struct capture *cap;
	struct ring_buffer *rb;
	struct trace_writer *w;
	int out_fd;
	struct pidset live;	/* traced processes still alive */
	struct spawn child;
	bool have_child;
	int child_status;
	uint64_t events;	/* records of kernel origin */
	struct calib calib;	/* its child's records are kept out of the trace */
	struct linksnap links;	/* paths whose symlink chains are in the trace */
	uint64_t loss_base[IOT_LOSS_NR];	/* the calibration's, not the trace's */
	int write_err;
	uint64_t start_ns;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t mono_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iotrace record [-p PID[,PID...]] [--no-children] [-o FILE]\n"
		"                      [--duration SEC] [--buffer-size MB] [-- CMD [ARG...]]\n"
		"\n"
		"Record the file, pipe, socket, futex and mmap activity of running processes\n"
		"(-p) or of a command started traced (-- CMD).\n"
		"\n"
		"  -p, --pid PID[,PID...]   trace these processes, their threads and descendants\n"
		"      --no-children        do not follow descendants, existing or new\n"
		"  -o, --output FILE        trace file (default iotrace.iot)\n"
		"  -d, --duration SEC       stop after SEC seconds\n"
		"  -b, --buffer-size MB     kernel ring buffer size (default 64, a power of two;\n"
		"                           NK for KiB)\n"
		"\n"
		"EXAMPLES:\n"
		"  iotrace record -p 1234 -o db.iot --duration 10\n"
		"  iotrace record -p \"$(pgrep -d, nginx)\" -o nginx.iot\n"
		"  iotrace record -o ls.iot -- ls -l /tmp\n");
}

static int parse_pids(struct pidset *set, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL, *end;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || *end || v <= 0 || v > INT_MAX) {
			err("invalid PID '%s'", tok);
			e = -EINVAL;
		} else {
			e = pidset__add(set, v);
		}
	}
	free(copy);
	return e;
}

static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "no-children", no_argument, NULL, 'N' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{},
	};
	char *end;
	int c;

	o->out = "iotrace.iot";
	o->ring_bytes = 64u << 20;
	/* '+': stop at the first non-option, CMD's own options are its own */
	while ((c = getopt_long(argc, argv, "+p:o:d:b:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pids(&o->targets, optarg))
				return -EINVAL;
			break;
		case 'N': o->no_children = true; break;
		case 'o': o->out = optarg; break;
		case 'v': log_level = LOG_DBG; break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || o->duration <= 0) {
				err("invalid duration '%s'", optarg);
				return -EINVAL;
			}
			break;
		case 'b':
			/* MB, or K for small rings (the loss tests use them) */
			o->ring_bytes = strtoul(optarg, &end, 10) << (*end == 'K' ? 10 : 20);
			if ((*end && strcmp(end, "K")) || o->ring_bytes < 4096 ||
			    (o->ring_bytes & (o->ring_bytes - 1)) || o->ring_bytes > (4ul << 30)) {
				err("invalid buffer size '%s': a power of two from 4K to 4096 (MB)",
				    optarg);
				return -EINVAL;
			}
			break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -EINVAL;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->cmd == !o->targets.n) {
		err(o->cmd ? "give either -p PID or -- CMD, not both" :
			     "nothing to trace: give -p PID or -- CMD");
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

static int append(struct recorder *r, const struct iot_hdr *h)
{
	int e = trace_writer__append(r->w, h);

	if (e && !r->write_err)
		r->write_err = e;
	return e;
}

/* META first: what a reader needs to interpret everything after it. */
static int write_meta(struct recorder *r, const struct record_opts *o, int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(8)));
	struct iot_meta *m = (struct iot_meta *)buf;
	char host[256] = "", line[1024] = "";
	size_t off = sizeof(*m), len = 0;
	struct utsname u;

	memset(m, 0, sizeof(*m));
	m->hdr.type = IOT_REC_META;
	m->hdr.ts = r->start_ns;
	m->realtime_ns = mono_ns(CLOCK_REALTIME);
	m->page_size = sysconf(_SC_PAGESIZE);
	m->follow_children = !o->no_children;
	m->compute_floor_ns = calib__floor_ns(&r->calib);
	m->nstr = 3;
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	for (int i = 0; i < argc && len < sizeof(line) - 1; i++)
		len += snprintf(line + len, sizeof(line) - len, "%s%s", i ? " " : "", argv[i]);
	len = strnlen(line, sizeof(line) - 1);
	rec__put_str(buf, &off, sizeof(buf), 0, u.release, strlen(u.release));
	rec__put_str(buf, &off, sizeof(buf), 1, host, strlen(host));
	rec__put_str(buf, &off, sizeof(buf), 2, line, len);
	m->hdr.size = off;
	return append(r, &m->hdr);
}

/* Filter first, then snapshot: an fd opened in between is in one or both. */
static int add_target(struct recorder *r, pid_t pid, uint32_t reason)
{
	struct iot_target t = {
		.hdr = { .ts = mono_ns(CLOCK_MONOTONIC), .pid = pid, .tid = pid,
			 .type = IOT_REC_TARGET, .size = sizeof(t) },
		.reason = reason,
	};
	int e;

	e = capture__add_pid(r->cap, pid);
	if (e) {
		err("adding pid %d to the filter: %s", pid, strerror(-e));
		return e;
	}
	e = pidset__add(&r->live, pid);
	if (!e)
		e = append(r, &t.hdr);
	if (!e)
		e = procsnap__write(r->w, pid, t.hdr.ts, reason == IOT_TARGET_CMD);
	if (e == -ESRCH) {
		warn("process %d ended during the attach", pid);
		pidset__del(&r->live, pid);
		e = 0;
	}
	return e;
}

static int attach_pids(struct recorder *r, struct record_opts *o)
{
	size_t nnamed = o->targets.n;
	int e;

	for (size_t i = 0; i < nnamed; i++) {
		if (kill(o->targets.pids[i], 0) && errno == ESRCH) {
			err("no process %d", o->targets.pids[i]);
			return -ESRCH;
		}
	}
	if (!o->no_children) {
		e = procsnap__descendants(&o->targets);
		if (e)
			return e;
	}
	for (size_t i = 0; i < o->targets.n; i++) {
		pid_t pid = o->targets.pids[i];

		if (pid == getpid())	/* never trace ourselves: the trace would feed itself */
			continue;
		e = add_target(r, pid, i < nnamed ? IOT_TARGET_PID : IOT_TARGET_CHILD);
		if (e)
			return e;
	}
	if (!r->live.n) {
		err("every target process ended during the attach");
		return -ESRCH;
	}
	return 0;
}

static int start_cmd(struct recorder *r, char **cmd)
{
	int e = spawn__start(&r->child, cmd);

	if (e) {
		err("starting '%s': %s", cmd[0], strerror(-e));
		return e;
	}
	r->have_child = true;
	e = add_target(r, r->child.pid, IOT_TARGET_CMD);
	if (e) {
		spawn__abort(&r->child);
		r->have_child = false;
		return e;
	}
	e = spawn__release(&r->child);
	if (e) {
		err("cannot run '%s': %s", cmd[0], strerror(-e));
		r->have_child = false;
		return e;
	}
	return 0;
}

/* Follows processes coming and going, to know when every target is gone. */
static void track(struct recorder *r, const struct iot_hdr *h)
{
	if (h->type == IOT_REC_FORK) {
		const struct iot_fork *f = (const void *)h;

		if (!f->thread)
			pidset__add(&r->live, f->child_pid);
	} else if (h->type == IOT_REC_EXIT) {
		if (((const struct iot_exit *)h)->group_dead)
			pidset__del(&r->live, h->pid);
	}
}

/* One ring record: a CPU's batch of whole records, or a single one. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	int e;

	while (size >= sizeof(struct iot_hdr)) {
		const struct iot_hdr *h = data;

		if (h->size > size || h->size < sizeof(*h) || h->size % 8)
			return 0;	/* cannot happen short of a BPF bug: skip, do not stop */
		data = (char *)data + h->size;
		size -= h->size;
		if (calib__take(&r->calib, h))
			continue;
		r->events++;
		track(r, h);
		if (append(r, h))
			return -EIO;
		e = linksnap__note(&r->links, r->w, h);
		if (e) {
			if (!r->write_err)
				r->write_err = e;
			return -EIO;
		}
	}
	return 0;
}

static void reap_child(struct recorder *r)
{
	int status;

	if (r->have_child && waitpid(r->child.pid, &status, WNOHANG) == r->child.pid) {
		r->child_status = status;
		r->have_child = false;
	}
}

/*
 * The ring is ordered per CPU only: a child that exits at once on another
 * CPU can have its exit record consumed before the fork record that made it
 * live, and then it never leaves the set.  Ask the kernel now and then.
 */
static void prune_live(struct recorder *r)
{
	for (size_t i = r->live.n; i-- > 0;) {
		pid_t pid = r->live.pids[i];

		if (kill(pid, 0) && errno == ESRCH)
			pidset__del(&r->live, pid);
	}
}

/*
 * Turns the final sequence numbers of threads that exited into SEQEND
 * records.  The BPF side stores one after the thread's last record is in the
 * ring, so: take the keys, then consume the ring, then write them; every
 * record of those threads is in the trace before their SEQEND.
 */
static void drain_seq_ends(struct recorder *r)
{
	int fd = capture__seq_end_fd(r->cap);
	__u32 keys[1024], key, next;
	size_t n = 0;
	bool first = true;

	while (n < sizeof(keys) / sizeof(keys[0]) &&
	       !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		keys[n++] = key = next;
		first = false;
	}
	if (!n)
		return;
	ring_buffer__consume(r->rb);
	for (size_t i = 0; i < n; i++) {
		struct iot_seqend_val v;
		struct iot_seqend e = { .hdr = { .ts = mono_ns(CLOCK_MONOTONIC), .tid = keys[i],
						 .type = IOT_REC_SEQEND, .size = sizeof(e) } };

		if (bpf_map_lookup_elem(fd, &keys[i], &v))
			continue;
		e.hdr.pid = v.pid;
		e.last_seq = v.seq;
		bpf_map_delete_elem(fd, &keys[i]);
		if (calib__take(&r->calib, &e.hdr))
			continue;
		if (append(r, &e.hdr))
			return;
	}
}

static int drain_loop(struct recorder *r, double duration)
{
	uint64_t deadline = duration > 0 ? r->start_ns + duration * 1e9 : UINT64_MAX;
	uint64_t next_flush = mono_ns(CLOCK_MONOTONIC) + FLUSH_NS;

	while (!stop_requested && !r->write_err) {
		/* Records are submitted without wakeups below a watermark, so
		 * the poll mostly times out: consume what is there regardless. */
		int n = ring_buffer__poll(r->rb, POLL_MS);
		uint64_t now = mono_ns(CLOCK_MONOTONIC);

		if (n >= 0 || n == -EINTR)
			n = ring_buffer__consume(r->rb);
		if (n < 0 && n != -EINTR)
			break;
		reap_child(r);
		if (now >= next_flush) {
			int e = trace_writer__flush(r->w);

			if (e && !r->write_err)
				r->write_err = e;
			next_flush = now + FLUSH_NS;
			prune_live(r);
			drain_seq_ends(r);
		}
		if (now >= deadline)
			break;
		/* the exit records of the last target arrive through the ring */
		if (!r->live.n && !r->have_child)
			break;
	}
	/* what the CPUs still batch is complete only once nothing runs */
	capture__stop(r->cap);
	ring_buffer__consume(r->rb);
	if (!r->write_err) {
		int e = capture__drain_batches(r->cap, on_record, r);

		/* a failed append has set write_err; anything else loses only these */
		if (e && !r->write_err)
			warn("cannot read the records the CPUs still held: %s", strerror(-e));
	}
	drain_seq_ends(r);
	return r->write_err;
}

/* The kernel's loss counters since the recording proper began. */
static void recorder_loss(struct recorder *r, uint64_t *loss)
{
	capture__loss(r->cap, loss);
	for (int i = 0; i < IOT_LOSS_NR; i++)
		loss[i] = loss[i] > r->loss_base[i] ? loss[i] - r->loss_base[i] : 0;
}

static int write_stats(struct recorder *r)
{
	struct trace_writer_stats ws;
	struct iot_stats s = {
		.hdr = { .ts = mono_ns(CLOCK_MONOTONIC), .type = IOT_REC_STATS,
			 .size = sizeof(s) },
	};

	recorder_loss(r, (uint64_t *)s.loss);
	trace_writer__stats(r->w, &ws);
	s.records = r->events;
	s.bytes = ws.raw_bytes;
	return append(r, &s.hdr);
}

static void summary(struct recorder *r, const char *out, bool cmd)
{
	struct trace_writer_stats ws;
	uint64_t loss[IOT_LOSS_NR] = {};
	uint64_t lost;
	double secs = (mono_ns(CLOCK_MONOTONIC) - r->start_ns) / 1e9;

	recorder_loss(r, loss);
	lost = loss[IOT_LOSS_RINGBUF] + loss[IOT_LOSS_STORAGE];
	trace_writer__stats(r->w, &ws);
	info("%s: %llu events, %llu lost, %llu bytes (%.1f per event), %.2f s", out,
	     (unsigned long long)r->events, (unsigned long long)lost,
	     (unsigned long long)ws.file_bytes, r->events ? (double)ws.file_bytes / r->events : 0,
	     secs);
	/* under -- CMD the one such call is the child's wait for its release */
	if (loss[IOT_LOSS_NO_ENTER] && !cmd)
		info("%llu calls were already in progress at the attach (recorded without "
		     "their start)", (unsigned long long)loss[IOT_LOSS_NO_ENTER]);
	if (loss[IOT_LOSS_STR_TRUNC] || loss[IOT_LOSS_STR_FAULT])
		warn("%llu path strings cut, %llu unreadable",
		     (unsigned long long)loss[IOT_LOSS_STR_TRUNC],
		     (unsigned long long)loss[IOT_LOSS_STR_FAULT]);
}

static int open_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		err("cannot write %s: %s", path, strerror(errno));
	return fd;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int recorder_start(struct recorder *r, struct record_opts *o, int argc, char **argv)
{
	struct capture_opts co = {
		.follow_children = !o->no_children,
		.ring_bytes = o->ring_bytes,
	};
	int e;

	r->cap = capture__new(&co);
	if (!r->cap)
		return -errno;
	r->w = trace_writer__new(r->out_fd, 0);
	if (!r->w) {
		err("writing %s: %s", o->out, strerror(errno));
		return -errno;
	}
	r->rb = ring_buffer__new(capture__ring_fd(r->cap), on_record, r, NULL);
	if (!r->rb) {
		err("creating ring buffer reader: %s", strerror(errno));
		return -errno;
	}
	/* before any target: its records are the only ones in the ring */
	e = calib__run(&r->calib, r->cap);
	if (e)
		dbg("compute floor not measured: %s", strerror(-e));
	ring_buffer__consume(r->rb);
	capture__loss(r->cap, r->loss_base);
	r->start_ns = mono_ns(CLOCK_MONOTONIC);
	if (write_meta(r, o, argc, argv))
		return r->write_err;
	return o->cmd ? start_cmd(r, o->cmd) : attach_pids(r, o);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {};
	struct recorder r = { .out_fd = -1 };
	int e, ret = 1;

	e = parse_opts(argc, argv, &o);
	if (e)
		return e > 0 ? 0 : EXIT_USAGE;
	install_signals();
	r.out_fd = open_output(o.out);
	if (r.out_fd < 0)
		goto cleanup;
	e = recorder_start(&r, &o, argc, argv);
	if (e)
		goto cleanup;
	e = drain_loop(&r, o.duration);
	if (!e)
		e = write_stats(&r);
	if (!e)
		e = trace_writer__flush(r.w);
	if (e) {
		err("writing %s: %s", o.out, strerror(-e));
		goto cleanup;
	}
	summary(&r, o.out, o.cmd != NULL);
	if (o.cmd && !r.have_child && WIFEXITED(r.child_status) && WEXITSTATUS(r.child_status))
		info("%s exited with status %d", o.cmd[0], WEXITSTATUS(r.child_status));
	ret = 0;
cleanup:
	/* a command still running (--duration, a signal) goes on untraced */
	ring_buffer__free(r.rb);
	trace_writer__free(r.w);
	capture__free(r.cap);
	if (r.out_fd >= 0)
		close(r.out_fd);
	pidset__free(&o.targets);
	pidset__free(&r.live);
	calib__free(&r.calib);
	linksnap__free(&r.links);
	return ret;
}

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
#include "loader/hostid.h"
#include "loader/linksnap.h"
#include "loader/cmd_record.h"
#include "loader/output.h"
#include "loader/pace.h"
#include "loader/pidset.h"
#include "loader/procsnap.h"
#include "loader/recopts.h"
#include "loader/spawn.h"
#include "loader/status.h"

#define FLUSH_NS 1000000000ull /* a killed recorder loses at most this much */
#define POLL_MS	 100

struct recorder {
	struct capture *cap;
	struct ring_buffer *rb;
	struct trace_writer *w;
	struct output out;
	struct status status;
	struct pidset live; /* traced processes still alive */
	struct spawn child;
	bool have_child; /* started and not reaped yet */
	bool child_done; /* reaped: child_status is its wait status */
	int child_status;
	uint64_t records;	     /* records of kernel origin */
	uint64_t events;	     /* of them, system calls: what every command calls events */
	uint64_t first_ts, last_end; /* the events' span: first enter, last end */
	struct calib calib;	     /* its child's records are kept out of the trace */
	struct linksnap links;	     /* paths whose symlink chains are in the trace */
	uint64_t loss_base[IOT_LOSS_NR]; /* the calibration's, not the trace's */
	int write_err;
	uint64_t start_ns;
	struct iot_clock launch; /* -- CMD: where the clock stood before loading */
	struct pace *pace;	 /* the drain's idle policy and its watcher */
	bool helper_written;	 /* the watcher's tid is in the trace */
};

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t forwarded; /* a stop signal went on to the command */
static volatile pid_t forward_pid;	/* the -- CMD child while it can be signalled */

/*
 * The first stop signal goes on to a -- CMD child, whose exit then ends the
 * recording, as strace and perf record do; a second one stops at once.  One
 * from the terminal (SI_KERNEL) has reached the child already: it is in the
 * terminal's foreground process group with us.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (forward_pid > 0 && !forwarded) {
		forwarded = 1;
		if (si->si_code != SI_KERNEL)
			kill(forward_pid, sig);
		return;
	}
	stop_requested = 1;
}

static uint64_t mono_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
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
	m->hdr.pid = m->hdr.tid = getpid(); /* the recorder: a task outside the trace */
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

/* What --calls left out, after META and HOST: readers refuse what it forbids. */
static int write_calls(struct recorder *r, const struct record_opts *o)
{
	struct iot_calls c = {
		.hdr = { .ts = r->start_ns, .type = IOT_REC_CALLS, .size = sizeof(c) },
		.families = o->families,
	};

	if (o->families == IOT_FAM_ALL)
		return 0;
	return append(r, &c.hdr);
}

/* The compute floor after a switch, when the calibration measured it: after
 * CALLS, so readers find it with what precedes the first event. */
static int write_floor(struct recorder *r)
{
	struct iot_floor f = {
		.hdr = { .ts = r->start_ns, .type = IOT_REC_FLOOR, .size = sizeof(f) },
		.switch_ns = calib__floor_switch_ns(&r->calib),
	};

	if (!f.switch_ns)
		return 0;
	return append(r, &f.hdr);
}

/* After META: which machine this is, and where its clock stood at the start. */
static int write_host(struct recorder *r)
{
	char buf[2048] __attribute__((aligned(8)));
	struct iot_clock c;
	size_t n = hostid__build(buf, sizeof(buf), r->start_ns);

	if (n && append(r, (struct iot_hdr *)buf))
		return r->write_err;
	hostid__clock(&c, IOT_CLOCK_START);
	if (append(r, &c.hdr))
		return r->write_err;
	return r->launch.hdr.type ? append(r, &r->launch.hdr) : 0;
}

/* Filter first, then snapshot: an fd opened in between is in one or both. */
static int add_target(struct recorder *r, pid_t pid, uint32_t reason)
{
	struct iot_target t = {
		.hdr = { .ts = mono_ns(CLOCK_MONOTONIC),
			 .pid = pid,
			 .tid = pid,
			 .type = IOT_REC_TARGET,
			 .size = sizeof(t) },
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

		if (pid == getpid()) /* never trace ourselves: the trace would feed itself */
			continue;
		e = add_target(r, pid, i < nnamed ? IOT_TARGET_PID : IOT_TARGET_CHILD);
		if (e)
			return e;
	}
	if (!r->live.n && nnamed == 1 && o->targets.pids[0] == getpid()) {
		err("%d is this iotrace itself: give another process's PID", getpid());
		return -EINVAL;
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
	/* from here a stop signal is the command's: stopped, it dies on SIGCONT */
	forward_pid = r->child.pid;
	e = add_target(r, r->child.pid, IOT_TARGET_CMD);
	if (e) {
		forward_pid = 0;
		spawn__abort(&r->child);
		r->have_child = false;
		return e;
	}
	e = spawn__release(&r->child);
	if (e) {
		forward_pid = 0;
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

/* The span every command calls duration: from the first call's enter to the last one's end. */
static void note_event(struct recorder *r, const struct iot_syscall *sc)
{
	uint64_t end = sc->hdr.ts;

	if (sc->hdr.size < sizeof(*sc))
		return;
	r->events++;
	if (!(sc->flags & IOT_SCF_NO_ENTER))
		end += sc->dur_ns;
	if (!r->first_ts || sc->hdr.ts < r->first_ts)
		r->first_ts = sc->hdr.ts;
	if (end > r->last_end)
		r->last_end = end;
}

/* One ring record: a CPU's batch of whole records, or a single one. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	int e;

	while (size >= sizeof(struct iot_hdr)) {
		const struct iot_hdr *h = data;

		if (h->size > size || h->size < sizeof(*h) || h->size % 8)
			return 0; /* cannot happen short of a BPF bug: skip, do not stop */
		data = (char *)data + h->size;
		size -= h->size;
		if (calib__take(&r->calib, h))
			continue;
		r->records++;
		if (h->type == IOT_REC_SYSCALL)
			note_event(r, (const void *)h);
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

/* Signals are held meanwhile: a pid reaped is free for reuse and no longer ours to signal. */
static void reap_child(struct recorder *r)
{
	sigset_t stop, old;
	int status;

	if (!r->have_child)
		return;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if (waitpid(r->child.pid, &status, WNOHANG) == r->child.pid) {
		forward_pid = 0;
		r->child_status = status;
		r->child_done = true;
		r->have_child = false;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
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
		struct iot_seqend e = { .hdr = { .ts = mono_ns(CLOCK_MONOTONIC),
						 .tid = keys[i],
						 .type = IOT_REC_SEQEND,
						 .size = sizeof(e) } };

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

/* The kernel's loss counters since the recording proper began. */
static void recorder_loss(struct recorder *r, uint64_t *loss)
{
	capture__loss(r->cap, loss);
	for (int i = 0; i < IOT_LOSS_NR; i++)
		loss[i] = loss[i] > r->loss_base[i] ? loss[i] - r->loss_base[i] : 0;
}

/* Records lost on the way: a full ring, a thread without its storage. */
static uint64_t recorder_lost(struct recorder *r)
{
	uint64_t loss[IOT_LOSS_NR] = {};

	recorder_loss(r, loss);
	return loss[IOT_LOSS_RINGBUF] + loss[IOT_LOSS_STORAGE];
}

static void recorder_status(struct recorder *r, uint64_t now)
{
	struct trace_writer_stats ws;
	struct status_counts c;

	if (!r->status.on || now < r->status.next_ns)
		return;
	trace_writer__stats(r->w, &ws);
	c = (struct status_counts){ .events = r->events,
				    .lost = recorder_lost(r),
				    .bytes = ws.file_bytes };
	status__tick(&r->status, now, &c);
}

/* Whether the recording is over: every target gone, or the signalled command. */
static bool recorder_done(const struct recorder *r)
{
	if (r->have_child)
		return false;
	/* the exit records of the last target arrive through the ring */
	return !r->live.n || (forwarded && r->child_done);
}

/*
 * The watcher's tid, once it runs (IOT_REC_HELPER): the CPU it takes from a
 * traced thread is the recorder's, not a task's outside the trace that a
 * replay would have to wait out.
 */
static void write_helper(struct recorder *r)
{
	struct iot_helper h = { .hdr = { .type = IOT_REC_HELPER, .size = sizeof(h) } };

	if (r->helper_written || !(h.hdr.tid = pace__watcher(r->pace)))
		return;
	h.hdr.ts = mono_ns(CLOCK_MONOTONIC);
	h.hdr.pid = getpid();
	r->helper_written = true;
	append(r, &h.hdr);
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
		write_helper(r);
		if (now >= next_flush) {
			int e = trace_writer__flush(r->w);

			if (e && !r->write_err)
				r->write_err = e;
			next_flush = now + FLUSH_NS;
			prune_live(r);
			drain_seq_ends(r);
		}
		recorder_status(r, now);
		if (now >= deadline || recorder_done(r))
			break;
	}
	status__clear(&r->status);
	write_helper(r);
	pace__stop(r->pace);
	r->pace = NULL;
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

static int write_stats(struct recorder *r)
{
	struct trace_writer_stats ws;
	struct iot_stats s = {
		.hdr = { .ts = mono_ns(CLOCK_MONOTONIC), .type = IOT_REC_STATS, .size = sizeof(s) },
	};
	struct iot_clock c;

	/* the clock pair at the end, then the counters that close a clean trace */
	hostid__clock(&c, IOT_CLOCK_END);
	if (append(r, &c.hdr))
		return r->write_err;

	recorder_loss(r, (uint64_t *)s.loss);
	trace_writer__stats(r->w, &ws);
	s.records = r->records;
	s.bytes = ws.raw_bytes;
	return append(r, &s.hdr);
}

/* A span of ns the way a person reads it; the tests parse it back. */
static void fmt_span(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

static void summary(struct recorder *r, const char *out, bool cmd)
{
	struct trace_writer_stats ws;
	uint64_t loss[IOT_LOSS_NR] = {};
	char span[32];

	recorder_loss(r, loss);
	trace_writer__stats(r->w, &ws);
	fmt_span(span, sizeof(span), r->last_end > r->first_ts ? r->last_end - r->first_ts : 0);
	info("%s: %llu events in %s, %llu lost, %llu bytes (%.1f per event)", out,
	     (unsigned long long)r->events, span,
	     (unsigned long long)(loss[IOT_LOSS_RINGBUF] + loss[IOT_LOSS_STORAGE]),
	     (unsigned long long)ws.file_bytes, r->events ? (double)ws.file_bytes / r->events : 0);
	/* under -- CMD the one such call is the child's wait for its release */
	if (loss[IOT_LOSS_NO_ENTER] && !cmd)
		info("%llu calls were already in progress at the attach (recorded without "
		     "their start)",
		     (unsigned long long)loss[IOT_LOSS_NO_ENTER]);
	if (loss[IOT_LOSS_STR_TRUNC] || loss[IOT_LOSS_STR_FAULT])
		warn("%llu path strings cut, %llu unreadable",
		     (unsigned long long)loss[IOT_LOSS_STR_TRUNC],
		     (unsigned long long)loss[IOT_LOSS_STR_FAULT]);
}

/* -- CMD's status as a shell gives it, and record's own exit status. */
static int child_exit(const struct recorder *r, const char *name)
{
	int st = r->child_status;

	if (!r->child_done) {
		info("%s goes on, untraced", name);
		return EXIT_OK;
	}
	if (WIFSIGNALED(st)) {
		info("%s was killed by signal %d (%s)", name, WTERMSIG(st),
		     strsignal(WTERMSIG(st)));
		return 128 + WTERMSIG(st);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st))
		info("%s exited with status %d", name, WEXITSTATUS(st));
	return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_OK;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

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
		.families = o->families,
	};
	uint64_t t0 = mono_ns(CLOCK_MONOTONIC);
	int e;

	/*
	 * Untraced, CMD would have started about now: a merge starts each
	 * host's replay here, not where loading its programs let it start
	 * (several hosts' recorders load for different times)
	 */
	if (o->cmd)
		hostid__clock(&r->launch, IOT_CLOCK_LAUNCH);
	r->cap = capture__new(&co);
	if (!r->cap)
		return -errno;
	/* the delay a recorder puts before its command, nearly all the verifier */
	dbg("BPF programs loaded and attached in %.3f s", (mono_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	r->w = trace_writer__new(r->out.fd, 0);
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
	if (!e)
		dbg("compute floor %u ns, %u ns after a switch", calib__floor_ns(&r->calib),
		    calib__floor_switch_ns(&r->calib));
	capture__loss(r->cap, r->loss_base);
	r->start_ns = mono_ns(CLOCK_MONOTONIC);
	if (write_meta(r, o, argc, argv) || write_host(r) || write_calls(r, o) || write_floor(r))
		return r->write_err;
	/* loading takes a while: a Ctrl-C meanwhile means do not start at all */
	if (stop_requested) {
		err("interrupted before the recording started");
		return -EINTR;
	}
	e = o->cmd ? start_cmd(r, o->cmd) : attach_pids(r, o);
	/* only a recording that started has a file to show for it */
	if (!e)
		e = output__commit(&r->out, o->force);
	if (!e)
		status__init(&r->status, o->quiet, r->start_ns);
	/* after the command started: it keeps the policy it was given */
	if (!e)
		r->pace = pace__start(capture__ring_fd(r->cap), o->ring_bytes);
	return e;
}

static void recorder_free(struct recorder *r)
{
	pace__stop(r->pace);
	ring_buffer__free(r->rb);
	trace_writer__free(r->w);
	capture__free(r->cap);
	output__close(&r->out);
	pidset__free(&r->live);
	calib__free(&r->calib);
	linksnap__free(&r->links);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {};
	struct recorder r = { .out = { .fd = -1 } };
	int e, ret = EXIT_FAIL;

	e = record_opts__parse(argc, argv, &o);
	if (e)
		return e > 0 ? EXIT_OK : EXIT_USAGE;
	install_signals();
	if (output__open(&r.out, o.out))
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
	/* a command still running (--duration, a second signal) goes on untraced */
	ret = o.cmd ? child_exit(&r, o.cmd[0]) : EXIT_OK;
cleanup:
	recorder_free(&r);
	pidset__free(&o.targets);
	return ret;
}

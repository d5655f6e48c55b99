// SPDX-License-Identifier: GPL-2.0
/* iotrace info: what a trace holds, as one JSON object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>

#include "cli/cmd_inspect.h"
#include "lib/cliopt.h"
#include "lib/htab.h"
#include "lib/log.h"
#include "lib/record.h"
#include "lib/stats.h"
#include "lib/syscalls.h"
#include "lib/trace.h"

struct info {
	uint64_t kernel_records; /* records of kernel origin */
	uint64_t events;	 /* of them, system calls */
	uint64_t records[IOT_REC_CLOCK + 1];
	uint64_t calls[IOT_NR_MAX];
	uint64_t unknown_calls;
	uint64_t first_ts, last_ts;	 /* the events' span: first enter, last end */
	uint64_t seq_gaps;		 /* records missing from threads' sequences */
	struct htab pids, tids, targets; /* ids seen; values unused */
	struct htab seq_idx;		 /* tid -> index into last_seq */
	uint64_t *last_seq;
	uint32_t nseq, seq_cap;
	bool have_stats;
	struct iot_stats stats;
	const char *meta[3];
	struct iot_meta meta_hdr;
	uint32_t families;     /* IOT_REC_CALLS's, or all */
	uint32_t floor_switch; /* IOT_REC_FLOOR's, 0: none */
	char meta_buf[IOT_REC_MAX];
	const char *host[3]; /* host name, boot id, machine id */
	struct iot_host host_hdr;
	char host_buf[IOT_REC_MAX];
	struct iot_clock clock[IOT_CLOCK_LAUNCH + 1]; /* by enum iot_clock_when */
	bool have_clock[IOT_CLOCK_LAUNCH + 1];
};

static const char *const loss_names[IOT_LOSS_NR] = {
	[IOT_LOSS_RINGBUF] = "ringbuf_full",
	[IOT_LOSS_NO_ENTER] = "exit_without_enter",
	[IOT_LOSS_STORAGE] = "no_task_storage",
	[IOT_LOSS_STR_TRUNC] = "string_cut",
	[IOT_LOSS_STR_FAULT] = "string_unreadable",
	[IOT_LOSS_FDS] = "fd_slots_full",
	[IOT_LOSS_RINGBUF_NOSEQ] = "ringbuf_full_unsequenced",
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: iotrace info FILE\n"
		   "\n"
		   "Print what a trace holds as one JSON object: format_version, events (system\n"
		   "calls), duration_ns (first call's start to last call's end), lost_events,\n"
		   "loss (every counter), processes, threads, calls (name -> count), truncated\n"
		   "(the recorder did not stop cleanly), host_id (host name, boot id, machine id,\n"
		   "network namespace), clock_pairs (CLOCK_REALTIME against CLOCK_MONOTONIC at\n"
		   "start and end), and more.\n"
		   "\n"
		   "  -h, --help   this help\n"
		   "\n"
		   "EXAMPLES:\n"
		   "  iotrace record -o ls.iot -- ls -l /tmp\n"
		   "  iotrace info ls.iot\n"
		   "  iotrace info ls.iot | jq .calls\n"
		   "  iotrace info ls.iot | jq '{events, duration_ns, lost_events, truncated}'\n");
}

/* Adds a pid or tid to a set; 0 (no process) is not one. */
static void id_add(struct htab *set, uint32_t id)
{
	if (id)
		htab__set(set, id, 0);
}

/* The last sequence number seen from thread tid, starting at 0; NULL on ENOMEM or tid 0. */
static uint64_t *last_seq_of(struct info *in, uint32_t tid)
{
	uint32_t i = tid ? htab__get(&in->seq_idx, tid) : 0;

	if (!tid)
		return NULL;
	if (i != UINT32_MAX)
		return &in->last_seq[i];
	if (in->nseq == in->seq_cap) {
		uint32_t cap = in->seq_cap ? in->seq_cap * 2 : 64;
		uint64_t *n = realloc(in->last_seq, cap * sizeof(*n));

		if (!n)
			return NULL;
		in->last_seq = n;
		in->seq_cap = cap;
	}
	if (htab__set(&in->seq_idx, tid, in->nseq))
		return NULL;
	in->last_seq[in->nseq] = 0;
	return &in->last_seq[in->nseq++];
}

/* A gap in a thread's sequence numbers is records lost on the way. */
static void note_seq(struct info *in, const struct iot_hdr *h)
{
	uint64_t *last;

	if (!h->seq)
		return;
	last = last_seq_of(in, h->tid);
	if (!last)
		return;
	/* from 0: a thread's sequence starts at 1, so lost first records count too */
	if (h->seq > *last + 1)
		in->seq_gaps += h->seq - *last - 1;
	if (h->seq > *last)
		*last = h->seq;
}

/* An exited thread's final seq: what was lost after its last kept record. */
static void note_seqend(struct info *in, const struct iot_hdr *h)
{
	const struct iot_seqend *e = (const void *)h;
	uint64_t *last;

	if (h->size < sizeof(*e) || !(last = last_seq_of(in, h->tid)))
		return;
	if (e->last_seq > *last) {
		in->seq_gaps += e->last_seq - *last;
		*last = e->last_seq;
	}
}

/* An event is a system call; its span is what every command calls duration. */
static void note_event(struct info *in, const struct iot_syscall *sc)
{
	uint64_t end = sc->hdr.ts;

	in->events++;
	if (sc->nr < IOT_NR_MAX)
		in->calls[sc->nr]++;
	else
		in->unknown_calls++;
	if (!(sc->flags & IOT_SCF_NO_ENTER))
		end += sc->dur_ns;
	if (sc->hdr.ts && (!in->first_ts || sc->hdr.ts < in->first_ts))
		in->first_ts = sc->hdr.ts;
	if (end > in->last_ts)
		in->last_ts = end;
}

static void note_kernel(struct info *in, const struct iot_hdr *h)
{
	in->kernel_records++;
	id_add(&in->pids, h->pid);
	id_add(&in->tids, h->tid);
	note_seq(in, h);
	if (h->type == IOT_REC_SYSCALL && h->size >= sizeof(struct iot_syscall))
		note_event(in, (const void *)h);
}

/* The host record's strings point into a copy: records move on. */
static void note_host(struct info *in, const struct iot_hdr *h)
{
	if (h->size < sizeof(in->host_hdr) || h->size > sizeof(in->host_buf))
		return;
	memcpy(in->host_buf, h, h->size);
	memcpy(&in->host_hdr, h, sizeof(in->host_hdr));
	memset(in->host, 0, sizeof(in->host));
	rec__strings((const void *)in->host_buf, sizeof(in->host_hdr), in->host_hdr.nstr, in->host,
		     3);
}

static void note_clock(struct info *in, const struct iot_hdr *h)
{
	const struct iot_clock *c = (const void *)h;

	if (h->size < sizeof(*c) || c->when > IOT_CLOCK_LAUNCH)
		return;
	in->clock[c->when] = *c;
	in->have_clock[c->when] = true;
}

static void note_user(struct info *in, const struct iot_hdr *h)
{
	switch (h->type) {
	case IOT_REC_HOST:
		note_host(in, h);
		break;
	case IOT_REC_CLOCK:
		note_clock(in, h);
		break;
	case IOT_REC_STATS:
		if (h->size >= sizeof(in->stats)) {
			memcpy(&in->stats, h, sizeof(in->stats));
			in->have_stats = true;
		}
		break;
	case IOT_REC_META:
		if (h->size >= sizeof(in->meta_hdr) && h->size <= sizeof(in->meta_buf)) {
			memcpy(in->meta_buf, h, h->size);
			memcpy(&in->meta_hdr, h, sizeof(in->meta_hdr));
			rec__strings((const void *)in->meta_buf, sizeof(in->meta_hdr),
				     in->meta_hdr.nstr, in->meta, 3);
		}
		break;
	case IOT_REC_TARGET:
		id_add(&in->targets, h->pid);
		break;
	case IOT_REC_CALLS:
		if (h->size >= sizeof(struct iot_calls))
			in->families = ((const struct iot_calls *)h)->families;
		break;
	case IOT_REC_FLOOR:
		if (h->size >= sizeof(struct iot_floor))
			in->floor_switch = ((const struct iot_floor *)h)->switch_ns;
		break;
	case IOT_REC_SEQEND:
		note_seqend(in, h);
		break;
	case IOT_REC_PROC:
	case IOT_REC_THREAD:
		id_add(&in->pids, h->pid);
		id_add(&in->tids, h->tid);
		break;
	}
}

static json_t *calls_json(const struct info *in, uint64_t *not_replayable)
{
	json_t *calls = json_object();

	*not_replayable = 0;
	for (int nr = 0; nr < IOT_NR_MAX; nr++) {
		const struct syscall_info *si = syscall__by_nr(nr);

		if (!in->calls[nr])
			continue;
		json_object_set_new(calls, syscall__name(nr), json_integer(in->calls[nr]));
		if (si && si->cls == SC_URING)
			*not_replayable += in->calls[nr];
	}
	return calls;
}

static json_t *records_json(const struct info *in)
{
	static const char *const names[] = {
		[IOT_REC_SYSCALL] = "syscall", [IOT_REC_FORK] = "fork",
		[IOT_REC_EXEC] = "exec",       [IOT_REC_EXIT] = "exit",
		[IOT_REC_WAKEUP] = "wakeup",   [IOT_REC_SWITCH] = "switch",
		[IOT_REC_PAGE] = "page",       [IOT_REC_META] = "meta",
		[IOT_REC_PROC] = "proc",       [IOT_REC_THREAD] = "thread",
		[IOT_REC_FDSNAP] = "fdsnap",   [IOT_REC_MAPSNAP] = "mapsnap",
		[IOT_REC_STATS] = "stats",     [IOT_REC_TARGET] = "target",
		[IOT_REC_SEQEND] = "seqend",   [IOT_REC_LINK] = "link",
		[IOT_REC_HOST] = "host",       [IOT_REC_CLOCK] = "clock",
	};
	json_t *o = json_object();

	for (unsigned int t = 0; t <= IOT_REC_CLOCK; t++)
		if (in->records[t] && names[t])
			json_object_set_new(o, names[t], json_integer(in->records[t]));
	return o;
}

/* The attached pids, ascending: the table's own order is its hash's. */
static void targets_json(const struct info *in, json_t *out)
{
	uint64_t *v = calloc(in->targets.n + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return;
	for (size_t i = 0; i < in->targets.cap; i++)
		if (in->targets.used[i])
			v[n++] = in->targets.key[i];
	stats__sort(v, n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(out, json_integer(v[i]));
	free(v);
}

/*
 * Why the trace is not the whole recording, or NULL: a cut or damaged block,
 * or no STATS record, which the recorder writes last when it stops cleanly;
 * a recorder killed just after a block boundary leaves no damage to see.
 */
static const char *info_cut(const struct info *in, struct trace_reader *r)
{
	if (trace_reader__error(r))
		return trace_reader__error(r);
	if (!in->have_stats)
		return "no end-of-recording record: the recorder did not stop cleanly";
	return NULL;
}

/* The HOST record: what tells this trace's machine from another's. */
static void add_host(json_t *o, const struct info *in)
{
	static const char *const keys[] = { "hostname", "boot_id", "machine_id" };
	json_t *h;

	if (!in->host_hdr.hdr.type)
		return;
	h = json_pack("{s:I}", "netns", (json_int_t)in->host_hdr.netns);
	for (int i = 0; i < 3; i++)
		json_object_set_new(h, keys[i], json_string(in->host[i] ? in->host[i] : ""));
	json_object_set_new(o, "host_id", h);
}

/* The CLOCK records, start, end, then launch: realtime_minus_monotonic_ns is
 * what a merge lines hosts up with, and its change from start to end the drift. */
static void add_clocks(json_t *o, const struct info *in)
{
	json_t *a = json_array();

	for (int i = 0; i <= IOT_CLOCK_LAUNCH; i++) {
		const struct iot_clock *c = &in->clock[i];

		if (!in->have_clock[i])
			continue;
		json_array_append_new(
			a, json_pack("{s:s, s:I, s:I, s:I, s:I}", "when", rec__clock_when(i),
				     "monotonic_ns", (json_int_t)c->hdr.ts, "realtime_ns",
				     (json_int_t)c->realtime_ns, "bracket_ns",
				     (json_int_t)c->bracket_ns, "realtime_minus_monotonic_ns",
				     (json_int_t)(c->realtime_ns - c->hdr.ts)));
	}
	if (json_array_size(a))
		json_object_set_new(o, "clock_pairs", a);
	else
		json_decref(a);
}

static void add_extras(json_t *o, const struct info *in, const char *path)
{
	static const char *const keys[] = { "kernel", "host", "command" };
	struct stat st;

	if (stat(path, &st) == 0) {
		json_object_set_new(o, "file_bytes", json_integer(st.st_size));
		json_object_set_new(o, "bytes_per_event",
				    json_real(in->events ? (double)st.st_size / in->events : 0));
	}
	for (int i = 0; i < 3; i++)
		if (in->meta[i])
			json_object_set_new(o, keys[i], json_string(in->meta[i]));
	json_object_set_new(o, "compute_floor_ns", json_integer(in->meta_hdr.compute_floor_ns));
	json_object_set_new(o, "compute_floor_switch_ns", json_integer(in->floor_switch));
	add_host(o, in);
	add_clocks(o, in);
}

/* Which call families the recorder kept (record --calls) and left out. */
static void add_families(json_t *o, const struct info *in)
{
	char kept[64], out[64];

	syscall__format_families(in->families, kept, sizeof(kept));
	syscall__format_families(IOT_FAM_ALL & ~in->families, out, sizeof(out));
	json_object_set_new(o, "call_families", json_string(kept));
	json_object_set_new(o, "call_families_left_out", json_string(out));
}

static json_t *to_json(struct info *in, struct trace_reader *r, const char *path)
{
	json_t *o, *loss = json_object(), *targets = json_array();
	uint64_t lost, not_replayable;
	json_t *calls = calls_json(in, &not_replayable);
	const char *cut = info_cut(in, r);

	for (int i = 0; i < IOT_LOSS_NR; i++)
		if (loss_names[i])
			json_object_set_new(loss, loss_names[i], json_integer(in->stats.loss[i]));
	targets_json(in, targets);
	/* without the final counters (recorder killed) the sequence gaps tell */
	lost = in->have_stats ?
		       in->stats.loss[IOT_LOSS_RINGBUF] + in->stats.loss[IOT_LOSS_STORAGE] :
		       in->seq_gaps;
	o = json_pack("{s:i, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:o, s:o, s:I, s:b, s:b, s:o, s:I}",
		      "format_version", (int)trace_reader__version(r), "events",
		      (json_int_t)in->events, "kernel_records", (json_int_t)in->kernel_records,
		      "lost_events", (json_int_t)lost, "loss", loss, "processes",
		      (json_int_t)in->pids.n, "threads", (json_int_t)in->tids.n, "duration_ns",
		      (json_int_t)(in->last_ts > in->first_ts ? in->last_ts - in->first_ts : 0),
		      "calls", calls, "records", records_json(in), "seq_gaps",
		      (json_int_t)in->seq_gaps, "complete", !cut, "truncated", cut != NULL,
		      "targets", targets, "not_replayable_calls", (json_int_t)not_replayable);
	if (cut)
		json_object_set_new(o, "truncated_at", json_string(cut));
	add_extras(o, in, path);
	add_families(o, in);
	return o;
}

static void info_free(struct info *in)
{
	htab__free(&in->pids);
	htab__free(&in->tids);
	htab__free(&in->targets);
	htab__free(&in->seq_idx);
	free(in->last_seq);
}

/* 0 to go on with argv[optind], 1 when --help was answered, or EXIT_USAGE. */
static int parse_opts(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	while ((c = cliopt__next("info", argc, argv, "h", longopts)) != -1) {
		if (c != 'h')
			return EXIT_USAGE;
		usage(stdout);
		return 1;
	}
	if (optind >= argc)
		return cliopt__usage_error("info", "no trace file given");
	if (optind + 1 < argc)
		return cliopt__usage_error("info", "one trace file at a time, not '%s' too",
					   argv[optind + 1]);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	static struct info in;
	struct trace_reader *r;
	const struct iot_hdr *h;
	const char *path;
	json_t *o;
	int e;

	e = parse_opts(argc, argv);
	if (e)
		return e == 1 ? EXIT_OK : e;
	path = argv[optind];
	in.families = IOT_FAM_ALL;
	r = trace_open_or_explain(path);
	if (!r)
		return EXIT_FAIL;
	while (trace_reader__next(r, &h) == 1) {
		if (h->type <= IOT_REC_CLOCK)
			in.records[h->type]++;
		if (h->type < IOT_REC_META)
			note_kernel(&in, h);
		else
			note_user(&in, h);
	}
	if (trace_reader__error(r))
		warn("%s: %s: counted what comes before it", path, trace_reader__error(r));
	else if (!in.have_stats)
		warn("%s: the recorder did not stop cleanly: counted what it wrote", path);
	o = to_json(&in, r, path);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	fputc('\n', stdout);
	json_decref(o);
	info_free(&in);
	trace_reader__free(r);
	return EXIT_OK;
}

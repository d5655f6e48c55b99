// SPDX-License-Identifier: GPL-2.0
/*
 * What the replay did against what the trace says: the one-paragraph
 * summary on stderr and the --report JSON (docs/replay.md lists its fields).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "lib/log.h"
#include "lib/stats.h"
#include "replay/replay.h"
#include "replay/run.h"

struct totals {
	uint64_t issued, failed, shrt, emulated, skipped, touched, unmapped, dio_aligned,
		lock_first;
	uint64_t busy_orig, busy_replay;
};

static bool counted(const struct rp_op *op)
{
	return op__is_io(op->kind) && op->got != RP_SKIPPED && !op->remote;
}

static void report_totals(const struct rp_plan *p, struct totals *s)
{
	memset(s, 0, sizeof(*s));
	for (uint32_t i = 0; i < p->nth; i++) {
		const struct rp_thread *t = &p->th[i];

		s->issued += t->issued;
		s->failed += t->failed;
		s->shrt += t->shrt;
		s->emulated += t->emulated;
		s->dio_aligned += t->dio_aligned;
		s->lock_first += t->lock_first;
		s->touched += t->pages_touched;
		s->unmapped += t->pages_unmapped;
		for (uint32_t c = 0; c < p->ncalls; c++)
			s->skipped += t->skipped[c];
	}
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *op = &p->ops[i];

		if (!counted(op))
			continue;
		s->busy_orig += op->dur;
		s->busy_replay += op->t_end - op->t_issue;
	}
}

static json_t *report_skipped(const struct rp_plan *p)
{
	json_t *o = json_object();

	for (uint32_t c = 0; c < p->ncalls; c++) {
		uint64_t n = 0;

		for (uint32_t i = 0; i < p->nth; i++)
			n += p->th[i].skipped[c];
		if (n)
			json_object_set_new(o, p->calls[c], json_integer(n));
	}
	return o;
}

static json_t *report_pcts(uint64_t *v, uint32_t n)
{
	stats__sort(v, n);
	return json_pack("{s:I, s:I, s:I}", "p50", (json_int_t)stats__percentile(v, n, 0.5), "p99",
			 (json_int_t)stats__percentile(v, n, 0.99), "max",
			 (json_int_t)(n ? v[n - 1] : 0));
}

/* Per call: latency percentiles in the trace and in the replay. */
static json_t *report_calls(const struct rp_plan *p)
{
	uint64_t *orig = malloc((p->nops + 1) * sizeof(*orig));
	uint64_t *repl = malloc((p->nops + 1) * sizeof(*repl));
	json_t *o = json_object();

	for (uint32_t c = 0; orig && repl && c < p->ncalls; c++) {
		uint32_t n = 0;

		for (uint32_t i = 0; i < p->nops; i++) {
			const struct rp_op *op = &p->ops[i];

			if (op->call != c || !counted(op))
				continue;
			orig[n] = op->dur;
			repl[n++] = op->t_end - op->t_issue;
		}
		if (n)
			json_object_set_new(o, p->calls[c],
					    json_pack("{s:I, s:o, s:o}", "count", (json_int_t)n,
						      "original", report_pcts(orig, n), "replay",
						      report_pcts(repl, n)));
	}
	free(orig);
	free(repl);
	return o;
}

static json_t *report_thread(const struct rp_thread *t)
{
	json_t *o = json_pack("{s:i, s:i}", "tid", t->tid, "pid", t->pid);
	const struct {
		const char *key;
		uint64_t v;
	} f[] = {
		{ "ops", t->nops },	      { "issued", t->issued },
		{ "failed", t->failed },      { "busy_ns", t->busy },
		{ "wait_ns", t->wait },	      { "compute_ns", t->compute },
		{ "hold_ns", t->hold },	      { "sleep_ns", t->sleep },
		{ "cpu_ns", t->cpu },	      { "preempted_ns", t->preempted },
		{ "outside_ns", t->outside },
	};

	for (size_t i = 0; o && i < sizeof(f) / sizeof(f[0]); i++)
		json_object_set_new(o, f[i].key, json_integer(f[i].v));
	return o;
}

static json_t *report_threads(const struct rp_plan *p)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < p->nth; i++)
		if (!p->th[i].remote)
			json_array_append_new(a, report_thread(&p->th[i]));
	return a;
}

static json_t *report_failures(const struct rp_plan *p, bool shorts)
{
	const uint32_t *ids;
	uint32_t n = watch__failures(&ids, shorts);
	json_t *a = json_array();

	for (uint32_t i = 0; i < n; i++) {
		const struct rp_op *op = &p->ops[ids[i]];

		json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I, s:s?}", "id",
						   (json_int_t)op->id, "call", p->calls[op->call],
						   "ret", (json_int_t)op->ret, "got",
						   (json_int_t)op->got, "path", op->path));
	}
	return a;
}

static const char *const rp_reason_names[RR_NR] = {
	[RR_NONE] = "differs",
	[RR_OUTSIDE] = "outside_sandbox",
	[RR_HOST_DEV] = "host_device_write",
	[RR_PSEUDO_FS] = "pseudo_fs",
	[RR_UNSUPPORTED] = "not_replayed",
	[RR_FD_NOT_MADE] = "fd_not_made",
	[RR_FD_NOT_OPEN] = "fd_not_open",
	[RR_PATH_UNKNOWN] = "path_unknown",
	[RR_UNIX_SOCKET] = "unix_socket",
	[RR_NO_PEER_PORT] = "no_peer_port",
	[RR_RECORD_LOCK] = "record_lock",
	[RR_BEFORE_ATTACH] = "before_attach",
	[RR_ARG_UNKNOWN] = "arg_unknown",
	[RR_DIR_CONTENTS] = "dir_contents",
	[RR_EOF_EARLY] = "eof_early",
	[RR_FD_RANGE] = "fd_range",
	[RR_BIND_FAILED] = "bind_failed",
};
static const char *const outcome_names[RO_NR] = { "failed", "short", "emulated", "skipped" };

static json_t *report_sample(const struct rp_plan *p, uint32_t idx, enum rp_outcome how)
{
	const struct rp_op *op = &p->ops[idx];
	json_t *o = json_pack("{s:s, s:I, s:s, s:s?, s:I}", "outcome", outcome_names[how], "id",
			      (json_int_t)op->id, "call", p->calls[op->call], "path", op->path,
			      "ret", (json_int_t)op->ret);

	json_object_set_new(o, "got", op->got == RP_SKIPPED ? json_null() : json_integer(op->got));
	return o;
}

/* Per reason: how many calls failed, were short, emulated or skipped for it,
 * and the first few of each; reasons no call had are left out. */
static json_t *report_reasons(const struct rp_plan *p)
{
	json_t *all = json_object();

	for (int why = 0; why < RR_NR; why++) {
		json_t *r = json_object(), *first = json_array();
		uint64_t sum = 0;

		for (int how = 0; how < RO_NR; how++) {
			const uint32_t *ids;
			uint64_t n = watch__reason(why, how, &ids);

			json_object_set_new(r, outcome_names[how], json_integer(n));
			for (uint64_t i = 0; i < n && i < RP_REASON_SAMPLES; i++)
				json_array_append_new(first, report_sample(p, ids[i], how));
			sum += n;
		}
		json_object_set_new(r, "first", first);
		if (sum)
			json_object_set_new(all, rp_reason_names[why], r);
		else
			json_decref(r);
	}
	return all;
}

static const char *const order_names[] = { "causal", "temporal", "single", "none", "think" };

json_t *report__json(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	struct totals s;
	json_t *j;

	report_totals(p, &s);
	j = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:s, s:s, s:f}", "wall_ns",
		      (json_int_t)r->wall, "trace_wall_ns", (json_int_t)p->trace_wall, "events",
		      (json_int_t)p->nops, "issued", (json_int_t)s.issued, "failed",
		      (json_int_t)s.failed, "short", (json_int_t)s.shrt, "emulated",
		      (json_int_t)s.emulated, "skipped_total", (json_int_t)s.skipped, "skipped",
		      report_skipped(p), "timing", o->timing == RT_NATURAL ? "natural" : "afap",
		      "order", order_names[o->order], "speed", o->speed);
	if (!j)
		return NULL;
	if (o->timing == RT_NATURAL) {
		json_object_set_new(j, "lag_ns", report_pcts(r->lag, r->nlag));
		json_object_set_new(j, "fed_ahead", json_integer(peer__fed_ahead()));
	}
	json_object_set_new(j, "fed_by_client", json_integer(peer__fed_by_client()));
	json_object_set_new(j, "prepare_ns", json_integer(r->prepare));
	json_object_set_new(j, "settle_ns", json_integer(r->settle));
	json_object_set_new(j, "threads", report_threads(p));
	json_object_set_new(j, "calls", report_calls(p));
	json_object_set_new(j, "dio_aligned", json_integer(s.dio_aligned));
	json_object_set_new(j, "lock_first", json_integer(s.lock_first));
	json_object_set_new(j, "pages_touched", json_integer(s.touched));
	json_object_set_new(j, "pages_unmapped", json_integer(s.unmapped));
	json_object_set_new(j, "concurrency",
			    json_pack("{s:f, s:f}", "original",
				      p->trace_wall ? (double)s.busy_orig / p->trace_wall : 0.0,
				      "replay", r->wall ? (double)s.busy_replay / r->wall : 0.0));
	json_object_set_new(j, "failures", report_failures(p, false));
	json_object_set_new(j, "short_calls", report_failures(p, true));
	json_object_set_new(j, "reasons", report_reasons(p));
	return j;
}

int report__write(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	json_t *j = report__json(p, o, r);
	int err = 0;

	if (!j)
		return -ENOMEM;
	if (json_dump_file(j, o->report, JSON_INDENT(1) | JSON_SORT_KEYS)) {
		err = -errno ? -errno : -EIO;
		err("%s: cannot write the report: %s", o->report, strerror(-err));
	}
	json_decref(j);
	return err;
}

/*
 * --timeline: one line per replayed call (waits too, replayed as their
 * deps; not the calls skipped or ignored), tab-separated, after a header:
 * the traced thread, the call, its event id, its recorded start and
 * duration (ns from the trace's start), and its issue and end in this
 * replay (ns from the replay's start).  ARTC's per-thread timelines are
 * drawn from it (bench/plot.sh).
 */
int report__timeline(const struct rp_plan *p, const char *file)
{
	FILE *f = fopen(file, "w");
	int err = 0;

	if (!f) {
		err = -errno;
		err("%s: cannot write the timeline: %s", file, strerror(-err));
		return err;
	}
	fprintf(f, "tid\tcall\tid\tts\tdur\tissue\tend\n");
	for (uint32_t i = 0; i < p->nops; i++) {
		const struct rp_op *op = &p->ops[i];

		if (!op->t_end || op->got == RP_SKIPPED || op->kind == RK_IGNORE || op->remote)
			continue;
		fprintf(f, "%d\t%s\t%u\t%llu\t%llu\t%llu\t%llu\n", p->th[op->tidx].tid,
			p->calls[op->call], op->id, (unsigned long long)op->ts,
			(unsigned long long)op->dur, (unsigned long long)op->t_issue,
			(unsigned long long)op->t_end);
	}
	if (ferror(f) | fclose(f)) {
		err = -EIO;
		err("%s: cannot write the timeline: %s", file, strerror(errno ? errno : EIO));
	}
	return err;
}

static void report_list_skipped(const struct rp_plan *p)
{
	char line[512];
	size_t n = 0;

	line[0] = '\0';
	for (uint32_t c = 0; c < p->ncalls && n < sizeof(line) - 64; c++) {
		uint64_t k = 0;

		for (uint32_t i = 0; i < p->nth; i++)
			k += p->th[i].skipped[c];
		if (k)
			n += snprintf(line + n, sizeof(line) - n, "%s%s %llu", n ? ", " : "",
				      p->calls[c], (unsigned long long)k);
	}
	if (n)
		info("skipped: %s", line);
}

/* One line per reason: "emulated 21 (outside_sandbox), failed 3 (differs)". */
static void report_list_reasons(void)
{
	char line[512];
	size_t n = 0;

	line[0] = '\0';
	for (int why = 0; why < RR_NR; why++)
		for (int how = 0; how < RO_NR && n < sizeof(line) - 64; how++) {
			const uint32_t *ids;
			uint64_t k = watch__reason(why, how, &ids);

			if (k)
				n += snprintf(line + n, sizeof(line) - n, "%s%s %llu (%s)",
					      n ? ", " : "", outcome_names[how],
					      (unsigned long long)k, rp_reason_names[why]);
		}
	if (n)
		info("by reason: %s", line);
}

void report__summary(struct rp_plan *p, const struct rp_opts *o, struct rp_run *r)
{
	const uint32_t *ids;
	uint32_t nf = watch__failures(&ids, false);
	struct totals s;

	report_totals(p, &s);
	info("replayed %u events (%llu issued) in %.1f ms, trace duration %.1f ms: %llu failed, "
	     "%llu short, %llu skipped, %llu emulated (before it: %.1f ms preparing, %.1f ms "
	     "settling)",
	     p->nops, (unsigned long long)s.issued, r->wall / 1e6, p->trace_wall / 1e6,
	     (unsigned long long)s.failed, (unsigned long long)s.shrt,
	     (unsigned long long)s.skipped, (unsigned long long)s.emulated, r->prepare / 1e6,
	     r->settle / 1e6);
	report_list_skipped(p);
	report_list_reasons();
	if (o->timing == RT_NATURAL && r->nlag) {
		stats__sort(r->lag, r->nlag);
		info("lag p50 %.1f us, p99 %.1f us, max %.1f us",
		     stats__percentile(r->lag, r->nlag, 0.5) / 1e3,
		     stats__percentile(r->lag, r->nlag, 0.99) / 1e3, r->lag[r->nlag - 1] / 1e3);
	}
	for (uint32_t i = 0; i < nf && i < 5; i++) {
		const struct rp_op *op = &p->ops[ids[i]];

		dbg("failed: event %u %s%s%s: trace %lld, replay %lld", op->id, p->calls[op->call],
		    op->path ? " " : "", op->path ? op->path : "", (long long)op->ret,
		    (long long)op->got);
	}
}

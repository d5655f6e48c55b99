// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a trace into the model: every syscall record is copied into one
 * arena and indexed by a 40-byte struct an_event; threads, processes and the
 * scheduler records the later passes need are kept beside them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an.h"
#include "lib/sort.h"
#include "lib/log.h"
#include "lib/record.h"
#include "lib/syscalls.h"
#include "lib/trace.h"

static int arena_put(struct analysis *an, const struct iot_hdr *h, uint64_t *off)
{
	if (an->arena_len + h->size > an->arena_cap) {
		size_t cap = an->arena_cap ? an->arena_cap * 2 : (1u << 20);
		unsigned char *n;

		while (cap < an->arena_len + h->size)
			cap *= 2;
		n = realloc(an->arena, cap);
		if (!n)
			return -ENOMEM;
		an->arena = n;
		an->arena_cap = cap;
	}
	memcpy(an->arena + an->arena_len, h, h->size);
	*off = an->arena_len;
	an->arena_len += (h->size + 7) & ~7u;
	return 0;
}

static uint32_t thread_get(struct analysis *an, uint32_t pid, uint32_t tid)
{
	uint64_t key = an__key(an->cur_trace, tid);
	struct an_proc *p;
	struct an_thread *t;
	uint32_t idx;

	if (an->last_tidx != AN_NONE && an->last_tid == tid)
		return an->last_tidx;
	idx = htab__get(&an->tid_idx, key);
	if (idx != AN_NONE) {
		an->last_tid = tid;
		an->last_tidx = idx;
		return idx;
	}
	p = an__proc(an, an->cur_trace, pid);
	t = p ? an_vec__push(&an->threads) : NULL;
	if (!t || htab__set(&an->tid_idx, key, an->threads.n - 1))
		return AN_NONE;
	t->tid = tid;
	t->pid = pid;
	t->trace = an->cur_trace;
	t->host = p->host;
	t->comm = AN_NONE;
	t->first = AN_NONE;
	return an->threads.n - 1;
}

/* A gap in a thread's sequence numbers: records were lost there. */
static int note_seq(struct analysis *an, const struct iot_hdr *h)
{
	uint32_t idx;
	struct an_thread *t;

	if (!h->seq)
		return 0;
	idx = thread_get(an, h->pid, h->tid);
	if (idx == AN_NONE)
		return -ENOMEM;
	t = an__thread(an, idx);
	if (h->seq > t->last_seq + 1) { /* from 0: sequences start at 1 */
		uint64_t *g = realloc(t->gap_ts, (t->ngaps + 1) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		g[t->ngaps++] = h->ts;
		t->gap_ts = g;
		an->seq_gaps += h->seq - t->last_seq - 1;
	}
	if (h->seq > t->last_seq)
		t->last_seq = h->seq;
	return 0;
}

/* Records lost after a thread's last kept one: counted, no call follows them. */
static int note_seqend(struct analysis *an, const struct iot_seqend *e)
{
	uint32_t idx = an__tidx(an, an->cur_trace, e->hdr.tid);
	struct an_thread *t;

	if (idx == AN_NONE)
		return 0;
	t = an__thread(an, idx);
	if (e->last_seq > t->last_seq) {
		an->seq_gaps += e->last_seq - t->last_seq;
		t->last_seq = e->last_seq;
	}
	return 0;
}

static int add_syscall(struct analysis *an, const struct iot_hdr *h)
{
	struct sc_view v;
	struct an_event *e;
	uint32_t tidx;

	if (sc_view__parse(h, &v)) {
		an->bad_records++; /* malformed: counted, skipped */
		return 0;
	}
	tidx = thread_get(an, h->pid, h->tid);
	if (tidx == AN_NONE)
		return -ENOMEM;
	if (an->nev == an->evcap) {
		uint32_t cap = an->evcap ? an->evcap * 2 : 4096;

		e = realloc(an->ev, (size_t)cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		an->ev = e;
		an->evcap = cap;
	}
	e = &an->ev[an->nev];
	*e = (struct an_event){ .ts = h->ts,
				.tidx = tidx,
				.fdpath = { AN_NONE, AN_NONE },
				.apath = { AN_NONE, AN_NONE } };
	if (arena_put(an, h, &e->rec))
		return -ENOMEM;
	an->nev++;
	return 0;
}

/* Page faults, fault-around and pages dirtied: what a thread did through its
 * file mappings.  Cache misses are a read's own doing: the read replays them. */
static int add_page(struct analysis *an, const struct iot_page *pg)
{
	struct an_page *p;

	if (pg->kind != IOT_PAGE_FAULT && pg->kind != IOT_PAGE_MAP && pg->kind != IOT_PAGE_DIRTY)
		return 0;
	p = an_vec__push(&an->pages);
	if (!p)
		return -ENOMEM;
	*p = (struct an_page){ .ts = pg->hdr.ts,
			       .ino = pg->ino,
			       .index = pg->index,
			       .dev = pg->dev,
			       .npages = pg->npages,
			       .tid = pg->hdr.tid,
			       .ev = AN_NONE,
			       .kind = pg->kind,
			       .trace = an->cur_trace };
	return 0;
}

static int add_side(struct analysis *an, const struct iot_hdr *h, uint32_t a, uint32_t b)
{
	struct an_side *s = an_vec__push(&an->side);

	if (!s)
		return -ENOMEM;
	*s = (struct an_side){
		.ts = h->ts,
		.type = h->type,
		.pid = h->pid,
		.tid = h->tid,
		.a = a,
		.b = b,
		.trace = an->cur_trace,
	};
	return 0;
}

static int add_fork(struct analysis *an, const struct iot_fork *f)
{
	uint32_t parent = thread_get(an, f->hdr.pid, f->hdr.tid);
	uint32_t child = thread_get(an, f->child_pid, f->child_tid);
	struct an_proc *cp, *pp;

	if (parent == AN_NONE || child == AN_NONE)
		return -ENOMEM;
	an__thread(an, child)->comm = an__thread(an, parent)->comm;
	if (!f->thread) {
		pp = an__proc(an, an->cur_trace, f->hdr.pid);
		cp = an__proc(an, an->cur_trace, f->child_pid);
		if (!pp || !cp)
			return -ENOMEM;
		if (!an__host_named(an, f->child_pid)) /* a child runs where its parent does */
			cp->host = an__thread(an, child)->host = pp->host;
		cp->ppid = f->hdr.pid;
		cp->comm = pp->comm;
		cp->cwd = pp->cwd;
		cp->exe = pp->exe;
	}
	return add_side(an, &f->hdr, f->child_pid, f->child_tid);
}

/*
 * A traced thread taken off the CPU while runnable, by a user task outside
 * the trace (not one of the trace's threads, checked once all are known; not
 * the recorder; not a kernel thread): time the thread could not run, spent
 * on something the replay does not run.  How long it stayed off comes with
 * its next switch, whose oncpu_ns says when it ran again.  A thread's
 * records come in its own order.  Traces written before the recorder put
 * its pid in META have no way to tell the recorder: none are kept.
 */
static int add_switch(struct analysis *an, const struct iot_switch *s)
{
	uint32_t idx = thread_get(an, s->hdr.pid, s->hdr.tid), st = s->prev_state;
	struct an_preempt *p;
	struct an_thread *t;
	uint64_t back;

	if (idx == AN_NONE)
		return -ENOMEM;
	if (!an->cur_recorder)
		return 0;
	t = an__thread(an, idx);
	back = s->hdr.ts > s->oncpu_ns ? s->hdr.ts - s->oncpu_ns : 0;
	if (t->out_ts && back > t->out_ts) {
		p = an_vec__push(&an->preempts);
		if (!p)
			return -ENOMEM;
		*p = (struct an_preempt){ .ts = t->out_ts,
					  .off = back - t->out_ts,
					  .trace = an->cur_trace,
					  .tid = s->hdr.tid,
					  .by = t->out_by };
	}
	t->out_ts = 0;
	if ((st & IOT_SW_PREEMPT || !(st & IOT_SW_STATE)) && !(st & IOT_SW_NEXT_KERNEL) &&
	    s->next_tid && s->next_tid != an->cur_recorder) {
		t->out_ts = s->hdr.ts;
		t->out_by = s->next_tid;
	}
	return 0;
}

static int add_exec(struct analysis *an, const struct iot_exec *x)
{
	char comm[sizeof(x->comm) + 1] = { 0 };
	uint32_t idx = thread_get(an, x->hdr.pid, x->hdr.tid);
	struct an_proc *p = an__proc(an, an->cur_trace, x->hdr.pid);

	if (idx == AN_NONE || !p)
		return -ENOMEM;
	memcpy(comm, x->comm, sizeof(x->comm));
	p->comm = an__thread(an, idx)->comm = strtab__intern(&an->strs, comm);
	return add_side(an, &x->hdr, x->old_tid, 0);
}

static int add_proc(struct analysis *an, const struct iot_hdr *h)
{
	const struct iot_proc *pr = (const void *)h;
	const char *s[4] = { 0 };
	struct an_proc *p = an__proc(an, an->cur_trace, h->pid);
	uint32_t idx = thread_get(an, h->pid, h->pid);

	if (!p || idx == AN_NONE)
		return -ENOMEM;
	if (rec__strings(h, sizeof(*pr), pr->nstr, s, 4) < 0)
		return 0;
	p->ppid = pr->ppid;
	p->comm = strtab__intern(&an->strs, s[0]);
	p->cwd = strtab__intern(&an->strs, s[1]);
	p->exe = strtab__intern(&an->strs, s[2]);
	p->from_snapshot = true;
	an__thread(an, idx)->comm = p->comm;
	return 0;
}

static int add_thread_snap(struct analysis *an, const struct iot_hdr *h)
{
	const struct iot_thread *th = (const void *)h;
	const char *s[1] = { 0 };
	uint32_t idx = thread_get(an, h->pid, h->tid);

	if (idx == AN_NONE)
		return -ENOMEM;
	if (rec__strings(h, sizeof(*th), th->nstr, s, 1) > 0)
		an__thread(an, idx)->comm = strtab__intern(&an->strs, s[0]);
	return 0;
}

static int add_snap(struct analysis *an, const struct iot_hdr *h)
{
	struct an_snap *s = an_vec__push(&an->snaps);

	if (!s)
		return -ENOMEM;
	s->trace = an->cur_trace;
	return arena_put(an, h, &s->off);
}

static uint32_t intern_or_none(struct analysis *an, const char *s)
{
	return s && *s ? strtab__intern(&an->strs, s) : AN_NONE;
}

/* The recorder's machine: only a job (several inputs) needs it. */
static void host_rec(struct analysis *an, struct an_input *in, const struct iot_host *hr)
{
	const char *s[3] = { 0 };

	if (rec__strings(&hr->hdr, sizeof(*hr), hr->nstr, s, 3) < 0)
		return;
	in->hostname = intern_or_none(an, s[0]);
	in->boot_id = intern_or_none(an, s[1]);
	in->machine_id = intern_or_none(an, s[2]);
	in->netns = hr->netns;
}

/*
 * The start pair, or the end pair when there is no start: realtime at a
 * monotonic instant.  The launch pair says when the recorder began loading.
 */
static void clock_rec(struct an_input *in, const struct iot_clock *c)
{
	if (c->when == IOT_CLOCK_LAUNCH) {
		in->launch = c->hdr.ts;
		in->have_launch = true;
		return;
	}
	if (in->have_rt && c->when != IOT_CLOCK_START)
		return;
	in->rt_offset = (int64_t)(c->realtime_ns - c->hdr.ts);
	in->have_rt = true;
}

static int add_host(struct analysis *an, const struct iot_hdr *h)
{
	struct an_input *in;

	if (!an->multi || (h->type != IOT_REC_HOST && h->type != IOT_REC_CLOCK))
		return 0;
	in = an_vec__at(&an->inputs, an->cur_trace);
	if (h->type == IOT_REC_HOST && h->size >= sizeof(struct iot_host))
		host_rec(an, in, (const void *)h);
	if (h->type == IOT_REC_CLOCK && h->size >= sizeof(struct iot_clock))
		clock_rec(in, (const void *)h);
	return 0;
}

/*
 * The call families each rule needs whole: an edge found without the calls of
 * one of them could point at the wrong call (a wakeup from a call that was not
 * recorded lands on another), so the rule is not run at all.
 */
static const uint32_t rule_needs[AN_RULE_NR] = {
	[AN_RULE_PROCESS] = IOT_FAM_PROC,
	[AN_RULE_WAKEUP] = IOT_FAM_FILE | IOT_FAM_NET | IOT_FAM_IPC,
	[AN_RULE_DATA] = IOT_FAM_FILE | IOT_FAM_NET | IOT_FAM_IPC | IOT_FAM_MEM,
	[AN_RULE_STAGE] = IOT_FAM_FILE | IOT_FAM_NET | IOT_FAM_IPC,
	[AN_RULE_NAME] = IOT_FAM_FILE,
	[AN_RULE_SEQ] = IOT_FAM_FILE | IOT_FAM_MEM,
	/* the loop's polls and sleeps, and every call that may have ended it */
	[AN_RULE_SPIN] = IOT_FAM_FILE | IOT_FAM_NET | IOT_FAM_IPC,
	/* the requests and answers on sockets, the waits between them */
	[AN_RULE_BARRIER] = IOT_FAM_NET | IOT_FAM_IPC,
};

/* A trace of record --calls: drops, with a warning, the rules it cannot feed. */
static int note_calls(struct analysis *an, const struct iot_calls *c)
{
	char kept[64], missing[64];

	an->families = c->families;
	if (!an->opts.infer)
		return 0;
	syscall__format_families(c->families, kept, sizeof(kept));
	for (unsigned int r = 0; r < AN_RULE_NR; r++) {
		uint32_t lack = rule_needs[r] & ~c->families;

		if (!(an->opts.rules & (1u << r)) || !lack)
			continue;
		an->opts.rules &= ~(1u << r);
		syscall__format_families(lack, missing, sizeof(missing));
		warn("rule %s dropped: it needs the %s calls, left out of this trace "
		     "(recorded with --calls %s)",
		     an_rule__name(r), missing, kept);
	}
	return 0;
}

static int add_record(struct analysis *an, const struct iot_hdr *h)
{
	const struct iot_wakeup *w = (const void *)h;
	const struct iot_exit *x = (const void *)h;
	int err = note_seq(an, h);

	if (err)
		return err;
	if (rec__min_size(h->type) && h->size < rec__min_size(h->type))
		return 0;
	switch (h->type) {
	case IOT_REC_SYSCALL:
		return add_syscall(an, h);
	case IOT_REC_FORK:
		return add_fork(an, (const void *)h);
	case IOT_REC_EXEC:
		return add_exec(an, (const void *)h);
	case IOT_REC_EXIT:
		return add_side(an, h, x->group_dead, (uint32_t)x->exit_code);
	case IOT_REC_WAKEUP:
		return add_side(an, h, w->waker_pid, w->waker_tid);
	case IOT_REC_PAGE:
		return add_page(an, (const void *)h);
	case IOT_REC_SWITCH:
		return add_switch(an, (const void *)h);
	case IOT_REC_META:
		an->t0 = h->ts;
		an->cur_recorder = h->pid;
		if (h->size >= sizeof(struct iot_meta))
			an->compute_floor = ((const struct iot_meta *)h)->compute_floor_ns;
		return 0;
	case IOT_REC_FLOOR:
		if (h->size >= sizeof(struct iot_floor))
			an->compute_floor_switch = ((const struct iot_floor *)h)->switch_ns;
		return 0;
	case IOT_REC_HELPER:
		an->cur_helper = h->tid;
		return 0;
	case IOT_REC_PROC:
		return add_proc(an, h);
	case IOT_REC_THREAD:
		return add_thread_snap(an, h);
	case IOT_REC_FDSNAP:
	case IOT_REC_MAPSNAP:
	case IOT_REC_LINK:
		return add_snap(an, h);
	case IOT_REC_SEQEND:
		return note_seqend(an, (const void *)h);
	case IOT_REC_CALLS:
		return h->size >= sizeof(struct iot_calls) ? note_calls(an, (const void *)h) : 0;
	case IOT_REC_STATS:
		memcpy(an->loss, ((const struct iot_stats *)h)->loss, sizeof(an->loss));
		an->have_stats = true;
		if (an->multi) /* summed over the inputs at the end */
			memcpy(((struct an_input *)an_vec__at(&an->inputs, an->cur_trace))->loss,
			       an->loss, sizeof(an->loss));
		return 0;
	default:
		return add_host(an, h);
	}
}

/* Moves ev[perm[i]] to ev[i] for every i, cycle by cycle; perm ends as the identity. */
static void permute_events(struct an_event *ev, uint32_t *perm, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct an_event tmp;
		uint32_t j = i, k;

		if (perm[i] == i)
			continue;
		tmp = ev[i];
		for (;;) {
			k = perm[j];
			perm[j] = j;
			if (k == i)
				break;
			ev[j] = ev[k];
			j = k;
		}
		ev[j] = tmp;
	}
}

/*
 * Enter order: by ts, then thread, then arrival (the arena offset).  Radix
 * passes by thread and then by ts, in place, with no copy of the events: the
 * events are the largest array the load holds besides the arena.
 */
static int sort_events(struct analysis *an)
{
	uint64_t *key = malloc((an->nev + 1) * sizeof(*key));
	uint32_t *perm = malloc((an->nev + 1) * sizeof(*perm));
	int err = -ENOMEM;

	if (!key || !perm)
		goto out;
	for (uint32_t i = 0; i < an->nev; i++) {
		key[i] = an->ev[i].tidx;
		perm[i] = i;
	}
	err = sort__by_key(key, perm, an->nev);
	for (uint32_t i = 0; !err && i < an->nev; i++)
		key[i] = an->ev[perm[i]].ts;
	err = err ?: sort__by_key(key, perm, an->nev);
	if (!err)
		permute_events(an->ev, perm, an->nev);
out:
	free(key);
	free(perm);
	return err;
}

static int thread_push(struct an_thread *t, uint32_t id)
{
	if (t->nev == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		uint32_t *n = realloc(t->ev, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->ev = n;
		t->cap = cap;
	}
	t->ev[t->nev++] = id;
	return 0;
}

static int cmp_page(const void *a, const void *b)
{
	const struct an_page *x = a, *y = b;

	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Each page record outside a call belongs to the thread's next call: the
 * replay touches those pages before issuing it.  Records inside a call (a
 * write dirtying the cache, a read's fault-around) are the call's own doing.
 */
static void assign_pages(struct analysis *an)
{
	struct an_page *pg = an->pages.v;
	size_t kept = 0;

	for (size_t i = 0; i < an->pages.n; i++) {
		uint32_t tidx = an__tidx(an, pg[i].trace, pg[i].tid), lo = 0, hi;
		struct an_thread *t;

		if (tidx == AN_NONE)
			goto drop;
		t = an__thread(an, tidx);
		hi = t->nev;
		while (lo < hi) { /* first call entered at or after the page */
			uint32_t mid = lo + (hi - lo) / 2;

			if (an->ev[t->ev[mid]].ts < pg[i].ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == t->nev || (lo && an__end(an, t->ev[lo - 1]) >= pg[i].ts))
			goto drop;
		pg[i].ev = t->ev[lo];
		pg[kept++] = pg[i];
		continue;
drop:
		an->pages_dropped++;
	}
	an->pages.n = kept;
	if (kept)
		qsort(pg, kept, sizeof(*pg), cmp_page);
}

/*
 * Whether tid of input trace is a task of the job's, or a recorder's, on that
 * input's kernel.  The recorder's watcher (HELPER) is at a real-time policy:
 * it takes the CPU from a traced thread every few ms for microseconds, and
 * what the thread waits after that is for the other runnable tasks, the
 * job's own (the other hosts' ranks on one kernel) among them.
 */
static bool task_of_job(const struct analysis *an, uint32_t trace, uint32_t tid)
{
	const struct an_input *in, *other;

	if (!an->multi)
		return an__tidx(an, trace, tid) != AN_NONE ||
		       (an->cur_helper && tid == an->cur_helper);
	in = an_vec__at(&an->inputs, trace);
	for (uint32_t k = 0; k < an->inputs.n; k++) {
		other = an_vec__at(&an->inputs, k);
		if (other->kernel == in->kernel &&
		    (an__tidx(an, k, tid) != AN_NONE || other->recorder == tid ||
		     (other->helper && other->helper == tid)))
			return true;
	}
	return false;
}

/*
 * Each preemption by a task outside the job between two calls of its thread
 * goes to the second: the replay is off the CPU that long before it issues
 * the call.  One inside a call is left to the call: the replay holds a wait
 * or a sleep for its recorded duration, which has it already.
 */
static int assign_preempts(struct analysis *an)
{
	const struct an_preempt *pr = an->preempts.v;

	for (size_t i = 0; i < an->preempts.n; i++) {
		uint32_t tidx = an__tidx(an, pr[i].trace, pr[i].tid), lo = 0, hi;
		const struct an_thread *t;

		if (tidx == AN_NONE || task_of_job(an, pr[i].trace, pr[i].by))
			continue;
		t = an__thread(an, tidx);
		hi = t->nev;
		while (lo < hi) { /* first call that ended at or after it */
			uint32_t mid = lo + (hi - lo) / 2;

			if (an__end(an, t->ev[mid]) < pr[i].ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == t->nev || an->ev[t->ev[lo]].ts <= pr[i].ts)
			continue;
		if (!an->outside_ns) {
			an->outside_ns = calloc(an->nev + 1, sizeof(*an->outside_ns));
			if (!an->outside_ns)
				return -ENOMEM;
		}
		an->outside_ns[t->ev[lo]] += pr[i].off;
	}
	an_vec__free(&an->preempts);
	return 0;
}

/* Enter-time order, per-thread lists, and which calls follow a loss gap. */
int an__index(struct analysis *an)
{
	if (sort_events(an))
		return -ENOMEM;
	an->evflags = calloc(an->nev + 1, 1);
	if (!an->evflags)
		return -ENOMEM;
	for (uint32_t i = 0; i < an->nev; i++) {
		struct an_thread *t = an__thread(an, an->ev[i].tidx);

		an->ev[i].pos = t->nev;
		if (t->first == AN_NONE)
			t->first = i;
		if (thread_push(t, i))
			return -ENOMEM;
	}
	for (size_t ti = 0; ti < an->threads.n; ti++) {
		struct an_thread *t = an__thread(an, ti);
		uint32_t g = 0;

		for (uint32_t k = 0; k < t->nev && g < t->ngaps; k++) {
			if (an->ev[t->ev[k]].ts < t->gap_ts[g])
				continue;
			an->evflags[t->ev[k]] |= EVF_GAP_BEFORE;
			while (g < t->ngaps && t->gap_ts[g] <= an->ev[t->ev[k]].ts)
				g++;
		}
	}
	/* the trace starts with its first call, as it does for info and replay:
	 * what came before it (the recorder's start, an attach) is no event's */
	if (an->nev)
		an->t0 = an->ev[0].ts;
	assign_pages(an);
	return assign_preempts(an);
}

static struct trace_reader *open_reader(const char *path, const void *buf, size_t len)
{
	uint32_t version = 0;
	struct trace_reader *r;

	if (path)
		return trace_open_or_explain(path);
	r = trace_reader__open_mem(buf, len, &version);
	if (!r)
		err("trace in memory: %s",
		    errno == EPROTONOSUPPORT ? "unknown format version" : "not an iotrace trace");
	return r;
}

int an__load_input(struct analysis *an, const char *path, const void *buf, size_t len)
{
	struct trace_reader *r = open_reader(path, buf, len);
	const struct iot_hdr *h;
	uint64_t nrec = 0;
	int err = 0, ret;

	if (!r)
		return -errno;
	an->last_tidx = AN_NONE;
	while (!err && (ret = trace_reader__next(r, &h)) == 1) {
		err = add_record(an, h);
		nrec++;
	}
	if (trace_reader__error(r))
		an->read_error =
			strtab__str(&an->strs, strtab__intern(&an->strs, trace_reader__error(r)));
	trace_reader__free(r);
	if (err)
		return err;
	if (!nrec) {
		err("%s: empty trace: no records", path ? path : "trace");
		return -EBADMSG;
	}
	return 0;
}

int an__load(struct analysis *an, const char *path, const void *buf, size_t len)
{
	return an__load_input(an, path, buf, len) ?: an__index(an);
}

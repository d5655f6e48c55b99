// SPDX-License-Identifier: GPL-2.0
/*
 * Several traces as one job: each input is read into the one model with its
 * pids and tids kept apart by input, its processes given to hosts (its own,
 * or the one --host-of names), and its clock moved onto the first input's
 * once the cross-host edges (xhost.c) have said by how much.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "analyze/an.h"
#include "analyze/clockfit.h"
#include "analyze/xhost.h"
#include "lib/log.h"
#include "lib/record.h"

static struct an_input *input_at(const struct analysis *an, uint32_t k)
{
	return an_vec__at(&an->inputs, k);
}

static struct an_host *host_at(const struct analysis *an, uint32_t h)
{
	return an_vec__at(&an->hosts, h);
}

static const char *str(const struct analysis *an, uint32_t id)
{
	return strtab__str(&an->strs, id);
}

static bool name_taken(const struct analysis *an, uint32_t name, uint32_t except)
{
	for (uint32_t h = 0; h < an->hosts.n; h++)
		if (h != except && host_at(an, h)->name == name)
			return true;
	return false;
}

/* An input's own host is named by its hostname, or by its file when it has none;
 * a name already taken (two traces of one machine) gets the input's number. */
static void host_name(struct analysis *an, uint32_t k)
{
	struct an_input *in = input_at(an, k);
	const char *p = str(an, in->path), *base = strrchr(p, '/');
	char buf[256];
	size_t len;

	if (in->hostname != AN_NONE) {
		snprintf(buf, sizeof(buf), "%s", str(an, in->hostname));
	} else {
		base = base ? base + 1 : p;
		len = strlen(base);
		if (len > 4 && !strcmp(base + len - 4, ".iot"))
			len -= 4;
		snprintf(buf, sizeof(buf), "%.*s", (int)len, base);
	}
	host_at(an, in->host)->name = strtab__intern(&an->strs, buf);
	if (name_taken(an, host_at(an, in->host)->name, in->host)) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "-%u", k + 1);
		host_at(an, in->host)->name = strtab__intern(&an->strs, buf);
	}
}

/* Moves input k's times by d: its calls, scheduler and page records, gaps. */
static void input_shift(struct analysis *an, uint32_t k, int64_t d)
{
	struct an_input *in = input_at(an, k);

	for (uint32_t i = in->ev0; i < in->ev1; i++) {
		an->ev[i].ts += d;
		((struct iot_hdr *)(an->arena + an->ev[i].rec))->ts += d;
	}
	for (size_t i = in->side0; i < in->side1; i++)
		((struct an_side *)an_vec__at(&an->side, i))->ts += d;
	for (size_t i = in->page0; i < in->page1; i++)
		((struct an_page *)an_vec__at(&an->pages, i))->ts += d;
	for (size_t i = 0; i < an->preempts.n; i++) {
		struct an_preempt *p = an_vec__at(&an->preempts, i);

		if (p->trace == k)
			p->ts += d;
	}
	for (size_t i = 0; i < an->threads.n; i++) {
		struct an_thread *t = an__thread(an, i);

		for (uint32_t g = 0; t->trace == k && g < t->ngaps; g++)
			t->gap_ts[g] += d;
	}
	in->first += d;
	in->last += d;
	in->launch += d;
	in->rt_offset -= d; /* the same instant, read later on the moved clock */
}

static void input_span(struct analysis *an, struct an_input *in)
{
	in->first = UINT64_MAX;
	in->last = 0;
	for (uint32_t i = in->ev0; i < in->ev1; i++) {
		if (an->ev[i].ts < in->first)
			in->first = an->ev[i].ts;
		if (an__end(an, i) > in->last)
			in->last = an__end(an, i);
	}
	if (in->first > in->last)
		in->first = in->last;
}

static int input_load(struct analysis *an, const char *path, uint32_t k)
{
	struct an_input *in = an_vec__push(&an->inputs);
	int err;

	if (!in)
		return -ENOMEM;
	*in = (struct an_input){ .path = strtab__intern(&an->strs, path),
				 .hostname = AN_NONE,
				 .boot_id = AN_NONE,
				 .machine_id = AN_NONE,
				 .residual = -1,
				 .ev0 = an->nev,
				 .side0 = an->side.n,
				 .page0 = an->pages.n };
	in->host = an__host_add(an, AN_NONE, k);
	if (in->host == AN_NONE)
		return -ENOMEM;
	an->cur_trace = k;
	an->cur_host = in->host;
	memset(an->loss, 0, sizeof(an->loss));
	an->compute_floor = an->compute_floor_switch = 0;
	an->cur_recorder = an->cur_helper = 0;
	err = an__load_input(an, path, NULL, 0);
	if (err)
		return err;
	in = input_at(an, k); /* the load may have grown the vector */
	in->ev1 = an->nev;
	in->side1 = an->side.n;
	in->page1 = an->pages.n;
	in->compute_floor = an->compute_floor;
	in->compute_floor_switch = an->compute_floor_switch;
	in->recorder = an->cur_recorder;
	in->helper = an->cur_helper;
	if (an->read_error) {
		err("%s: %s", path, an->read_error);
		return -EBADMSG;
	}
	input_span(an, in);
	host_name(an, k);
	return 0;
}

/* --clock-shift: a test moves one trace's clock by a known amount. */
static int apply_shifts(struct analysis *an)
{
	for (uint32_t s = 0; s < an->opts.n_shift; s++) {
		const struct an_shift *sh = &an->opts.shift[s];
		uint32_t k;

		for (k = 0; k < an->inputs.n; k++)
			if (!strcmp(str(an, host_at(an, input_at(an, k)->host)->name), sh->host) ||
			    !strcmp(str(an, input_at(an, k)->path), sh->host))
				break;
		if (k == an->inputs.n) {
			err("analyze: --clock-shift: no trace of host '%s'", sh->host);
			return -EINVAL;
		}
		input_shift(an, k, sh->ns);
		input_at(an, k)->shift = sh->ns;
	}
	return 0;
}

static bool same_id(uint32_t a, uint32_t b)
{
	return a == b; /* interned: equal strings, or both unknown */
}

/* Thread t of input j, seen in input i over the same time: one host given twice. */
static bool thread_in_both(struct analysis *an, uint32_t i, const struct an_thread *t,
			   const uint64_t *lo, const uint64_t *hi, size_t tj)
{
	uint32_t ti = an__tidx(an, i, t->tid);

	return ti != AN_NONE && lo[ti] <= hi[tj] && lo[tj] <= hi[ti];
}

/* Inputs of one boot id share a kernel, and with it inode numbers; unknown ids are their own. */
static void find_kernels(struct analysis *an)
{
	for (uint32_t k = 0; k < an->inputs.n; k++) {
		struct an_input *in = input_at(an, k);

		in->kernel = k;
		for (uint32_t j = 0; in->boot_id != AN_NONE && j < k; j++)
			if (input_at(an, j)->boot_id == in->boot_id) {
				in->kernel = input_at(an, j)->kernel;
				break;
			}
	}
}

static int check_twice(struct analysis *an, uint32_t i, uint32_t j, const uint64_t *lo,
		       const uint64_t *hi)
{
	const struct an_input *a = input_at(an, i), *b = input_at(an, j);

	if (!same_id(a->boot_id, b->boot_id) || a->netns != b->netns)
		return 0;
	for (size_t t = 0; t < an->threads.n; t++) {
		const struct an_thread *th = an__thread(an, t);

		if (th->trace != j || !thread_in_both(an, i, th, lo, hi, t))
			continue;
		err("analyze: %s and %s are the same host given twice: thread %u is in both "
		    "at the same time (boot id %s)",
		    str(an, a->path), str(an, b->path), th->tid,
		    a->boot_id == AN_NONE ? "unknown" : str(an, a->boot_id));
		return -EINVAL;
	}
	return 0;
}

/* Two inputs of one kernel and namespace with a thread in common over the same time. */
static int check_same_host(struct analysis *an)
{
	uint64_t *lo = malloc((an->threads.n + 1) * sizeof(*lo));
	uint64_t *hi = malloc((an->threads.n + 1) * sizeof(*hi));
	int err = lo && hi ? 0 : -ENOMEM;

	for (size_t t = 0; !err && t < an->threads.n; t++) {
		lo[t] = UINT64_MAX;
		hi[t] = 0;
	}
	for (uint32_t e = 0; !err && e < an->nev; e++) {
		uint32_t t = an->ev[e].tidx;

		lo[t] = an->ev[e].ts < lo[t] ? an->ev[e].ts : lo[t];
		hi[t] = an__end(an, e) > hi[t] ? an__end(an, e) : hi[t];
	}
	for (uint32_t i = 0; !err && i < an->inputs.n; i++)
		for (uint32_t j = i + 1; !err && j < an->inputs.n; j++)
			err = check_twice(an, i, j, lo, hi);
	free(lo);
	free(hi);
	return err;
}

/* After alignment: an input that overlaps no other in time can have no edge to them. */
static void warn_no_overlap(struct analysis *an)
{
	for (uint32_t i = 0; an->inputs.n > 1 && i < an->inputs.n; i++) {
		const struct an_input *a = input_at(an, i);
		bool any = false;

		for (uint32_t j = 0; !any && j < an->inputs.n; j++) {
			const struct an_input *b = input_at(an, j);

			any = j != i && a->first <= b->last && b->first <= a->last;
		}
		if (!any)
			warn("analyze: %s does not overlap any other trace in time: it can have "
			     "no cross-host edge",
			     str(an, a->path));
	}
}

struct side_at {
	struct an_side s;
	size_t at; /* where it was: ties keep the order they came in */
};

static int cmp_side(const void *a, const void *b)
{
	const struct side_at *x = a, *y = b;

	if (x->s.ts != y->s.ts)
		return x->s.ts < y->s.ts ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The scheduler records of all inputs in one time order, stable (qsort is not). */
static int sort_side(struct analysis *an)
{
	struct side_at *t = malloc((an->side.n + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < an->side.n; i++)
		t[i] = (struct side_at){ *(struct an_side *)an_vec__at(&an->side, i), i };
	qsort(t, an->side.n, sizeof(*t), cmp_side);
	for (size_t i = 0; i < an->side.n; i++)
		*(struct an_side *)an_vec__at(&an->side, i) = t[i].s;
	free(t);
	return 0;
}

/* Every input's clock moved by its offset. */
static int apply_offsets(struct analysis *an)
{
	for (uint32_t k = 1; k < an->inputs.n; k++)
		input_shift(an, k, input_at(an, k)->offset);
	warn_no_overlap(an);
	return sort_side(an);
}

static void sum_losses(struct analysis *an)
{
	memset(an->loss, 0, sizeof(an->loss));
	for (uint32_t k = 0; k < an->inputs.n; k++)
		for (int i = 0; i < IOT_LOSS_NR; i++)
			an->loss[i] += input_at(an, k)->loss[i];
}

int an__hosts_load(struct analysis *an, const char *const *paths, uint32_t n)
{
	int err = 0;

	an->inputs.esz = sizeof(struct an_input);
	for (uint32_t k = 0; !err && k < n; k++)
		err = input_load(an, paths[k], k);
	if (err)
		return err;
	sum_losses(an);
	find_kernels(an);
	/* the header's: the reference's */
	an->compute_floor = input_at(an, 0)->compute_floor;
	an->compute_floor_switch = input_at(an, 0)->compute_floor_switch;
	err = apply_shifts(an) ?: check_same_host(an) ?: an__xhost_match(an);
	if (err)
		return err;
	return apply_offsets(an);
}

static const char *clock_src_name(unsigned int src)
{
	static const char *const names[] = { [CF_REF] = "reference",
					     [CF_EDGES] = "edges",
					     [CF_ONE_SIDED] = "edges_one_way",
					     [CF_REALTIME] = "realtime",
					     [CF_NONE] = "none" };

	return src < sizeof(names) / sizeof(names[0]) ? names[src] : "none";
}

static json_t *host_json(const struct analysis *an, uint32_t h)
{
	const struct an_host *ho = host_at(an, h);
	const struct an_input *in = input_at(an, ho->input);
	json_t *o = json_pack("{s:s, s:s?, s:s?, s:s?, s:s, s:I, s:o}", "name", str(an, ho->name),
			      "hostname", str(an, in->hostname), "boot_id", str(an, in->boot_id),
			      "machine_id", str(an, in->machine_id), "trace", str(an, in->path),
			      "clock_offset_ns", (json_int_t)in->offset, "netns",
			      xhost__netns_json(an, h, in->netns));

	json_object_set_new(o, "clock_residual_ns",
			    in->residual < 0 ? json_null() : json_integer(in->residual));
	if (in->shift)
		json_object_set_new(o, "clock_shift_ns", json_integer(in->shift));
	json_object_set_new(o, "compute_floor_ns", json_integer(in->compute_floor));
	json_object_set_new(o, "compute_floor_switch_ns", json_integer(in->compute_floor_switch));
	json_object_set_new(o, "clock_source", json_string(clock_src_name(in->clock_src)));
	/* the recorder's own host: the one its command ran on */
	if (in->have_launch && in->host == h)
		json_object_set_new(o, "launch_ns", json_integer((int64_t)(in->launch - an->t0)));
	return o;
}

void an__job_json(const struct analysis *an, json_t *header)
{
	json_t *hosts = json_array();

	for (uint32_t h = 0; h < an->hosts.n; h++)
		json_array_append_new(hosts, host_json(an, h));
	json_object_set_new(header, "hosts", hosts);
	json_object_set_new(header, "connections", xhost__conns_json(an));
}

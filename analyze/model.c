// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis model every pass shares: rule names, the vectors, lookups of
 * threads, processes and calls, and the one way to add an edge.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an.h"

static const char *const rule_names[AN_RULE_NR] = {
	[AN_RULE_PROCESS] = "process", [AN_RULE_WAKEUP] = "wakeup",   [AN_RULE_DATA] = "data",
	[AN_RULE_STAGE] = "stage",     [AN_RULE_NAME] = "name",	      [AN_RULE_SEQ] = "seq",
	[AN_RULE_SPIN] = "spin",       [AN_RULE_BARRIER] = "barrier",
};

const char *an_rule__name(enum an_rule r)
{
	return r < AN_RULE_NR ? rule_names[r] : "unknown";
}

int an_rule__parse(const char *list, unsigned int *mask)
{
	const char *p = list;

	*mask = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int r;

		for (r = 0; r < AN_RULE_NR; r++)
			if (strlen(rule_names[r]) == len && !strncmp(p, rule_names[r], len))
				break;
		if (r == AN_RULE_NR && len == 3 && !strncmp(p, "all", 3))
			*mask |= (1u << AN_RULE_NR) - 1;
		else if (r == AN_RULE_NR)
			return -EINVAL;
		else
			*mask |= 1u << r;
		p += len + (p[len] == ',');
	}
	return 0;
}

void *an_vec__push(struct an_vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		void *n = realloc(v->v, cap * v->esz);

		if (!n)
			return NULL;
		v->v = n;
		v->cap = cap;
	}
	return memset((char *)v->v + v->n++ * v->esz, 0, v->esz);
}

void *an_vec__at(const struct an_vec *v, size_t i)
{
	return (char *)v->v + i * v->esz;
}

void an_vec__free(struct an_vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

uint32_t an__tidx(const struct analysis *an, uint32_t trace, uint32_t tid)
{
	return htab__get(&an->tid_idx, an__key(trace, tid));
}

struct an_proc *an__proc(struct analysis *an, uint32_t trace, uint32_t pid)
{
	uint32_t idx = htab__get(&an->pid_idx, an__key(trace, pid));
	struct an_proc *p;

	if (idx != AN_NONE)
		return an_vec__at(&an->procs, idx);
	p = an_vec__push(&an->procs);
	if (!p || htab__set(&an->pid_idx, an__key(trace, pid), an->procs.n - 1))
		return NULL;
	*p = (struct an_proc){ .pid = pid,
			       .trace = trace,
			       .host = an->multi ? an__host_for(an, pid) : 0,
			       .comm = AN_NONE,
			       .cwd = AN_NONE,
			       .exe = AN_NONE };
	return p;
}

uint32_t an__trace_of(const struct analysis *an, uint32_t id)
{
	return an__thread(an, an->ev[id].tidx)->trace;
}

uint32_t an__kernel_of(const struct analysis *an, uint32_t id)
{
	if (!an->multi)
		return 0;
	return ((struct an_input *)an_vec__at(&an->inputs, an__trace_of(an, id)))->kernel;
}

uint64_t an__floor_of(const struct analysis *an, uint32_t id)
{
	const struct an_event *e = &an->ev[id];
	const struct an_thread *t = an__thread(an, e->tidx);
	uint64_t floor = an->compute_floor, after_switch = an->compute_floor_switch;

	if (an->multi) {
		const struct an_input *in = an_vec__at(&an->inputs, t->trace);

		floor = in->compute_floor;
		after_switch = in->compute_floor_switch;
	}
	if (after_switch && e->pos && an__rec(an, t->ev[e->pos - 1])->offcpu_ns)
		return after_switch;
	return floor;
}

uint32_t an__host_of(const struct analysis *an, uint32_t id)
{
	return an__thread(an, an->ev[id].tidx)->host;
}

uint32_t an__call_at(const struct analysis *an, uint32_t tidx, uint64_t ts, bool in_progress)
{
	const struct an_thread *t = an__thread(an, tidx);
	uint32_t lo = 0, hi = t->nev, id;

	while (lo < hi) { /* first call entered after ts */
		uint32_t mid = (lo + hi) / 2;

		if (an->ev[t->ev[mid]].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return AN_NONE;
	id = t->ev[lo - 1];
	if (in_progress && an__end(an, id) < ts)
		return AN_NONE;
	return id;
}

int an__edge(struct analysis *an, uint32_t from, uint32_t to, enum an_rule kind, uint32_t info)
{
	struct an_edge *e;

	if (!an->opts.infer || !(an->opts.rules & (1u << kind)) || from == AN_NONE ||
	    to == AN_NONE || from == to)
		return 0;
	if (an->ev[from].tidx == an->ev[to].tidx)
		return 0;
	/* only bytes and barriers cross hosts: a wakeup or a path names one
	 * kernel's objects */
	if (kind != AN_RULE_DATA && kind != AN_RULE_BARRIER &&
	    an__host_of(an, from) != an__host_of(an, to)) {
		an->edges_xhost_dropped++;
		return 0;
	}
	e = an_vec__push(&an->edges);
	if (!e)
		return -ENOMEM;
	*e = (struct an_edge){ .from = from, .to = to, .kind = kind, .info = info };
	an->edges_raw++;
	return 0;
}

void an__file_seen(struct analysis *an, uint32_t path, unsigned int ftype, uint64_t size,
		   uint32_t dev, bool created)
{
	uint32_t idx = htab__get(&an->file_idx, path);
	struct an_file *f;

	if (path == AN_NONE)
		return;
	if (idx != AN_NONE) {
		f = an_vec__at(&an->files, idx);
		/* a sighting that only proved the path existed learns its type */
		if (f->type == IOT_FT_NONE && ftype != IOT_FT_NONE)
			f->type = ftype;
		if (!f->created && ftype == IOT_FT_REG && size > f->size)
			f->size = size;
		if (!f->dev)
			f->dev = dev;
		return;
	}
	f = an_vec__push(&an->files);
	if (!f || htab__set(&an->file_idx, path, an->files.n - 1))
		return;
	*f = (struct an_file){ .path = path,
			       .type = ftype,
			       .size = size,
			       .created = created,
			       .target = AN_NONE,
			       .dev = dev };
}

unsigned int an__file_type(const struct analysis *an, uint32_t path)
{
	uint32_t idx = path == AN_NONE ? AN_NONE : htab__get(&an->file_idx, path);

	return idx == AN_NONE ? IOT_FT_NONE :
				((const struct an_file *)an_vec__at(&an->files, idx))->type;
}

bool an__host_named(const struct analysis *an, uint32_t pid)
{
	for (uint32_t i = 0; i < an->opts.n_host_of; i++)
		if (an->opts.host_of[i].pid == pid)
			return true;
	return false;
}

uint32_t an__host_add(struct analysis *an, uint32_t name, uint32_t input)
{
	struct an_host *h = an_vec__push(&an->hosts);

	if (!h)
		return AN_NONE;
	h->name = name;
	h->input = input;
	return an->hosts.n - 1;
}

uint32_t an__host_for(struct analysis *an, uint32_t pid)
{
	const char *name = NULL;
	uint32_t id;

	for (uint32_t i = 0; i < an->opts.n_host_of; i++)
		if (an->opts.host_of[i].pid == pid)
			name = an->opts.host_of[i].name;
	if (!name)
		return an->cur_host;
	id = strtab__intern(&an->strs, name);
	for (uint32_t h = 0; h < an->hosts.n; h++) {
		const struct an_host *ho = an_vec__at(&an->hosts, h);

		if (ho->name == id && ho->input == an->cur_trace)
			return h;
	}
	id = an__host_add(an, id, an->cur_trace);
	return id == AN_NONE ? an->cur_host : id;
}

const char *an__host_name(const struct analysis *an, uint32_t host)
{
	const struct an_host *h = host < an->hosts.n ? an_vec__at(&an->hosts, host) : NULL;

	return h ? strtab__str(&an->strs, h->name) : NULL;
}

// SPDX-License-Identifier: GPL-2.0
/* Read-only views of a finished analysis, for tests, summary and export. */
#include <stddef.h>
#include <string.h>

#include "analyze/an.h"

const char *analysis__read_error(const struct analysis *an)
{
	return an->read_error;
}

uint32_t analysis__events(const struct analysis *an)
{
	return an->nev;
}

uint64_t analysis__duration(const struct analysis *an)
{
	uint64_t end = an->t0;

	for (uint32_t i = 0; i < an->nev; i++)
		if (an__end(an, i) > end)
			end = an__end(an, i);
	return an->nev ? end - an->t0 : 0;
}

const char *analysis__cut(const struct analysis *an)
{
	if (an->read_error)
		return an->read_error;
	if (!an->have_stats)
		return "no end-of-recording record: the recorder did not stop cleanly";
	return NULL;
}

double analysis__bytes_per_event(const struct analysis *an)
{
	size_t b = an->arena_cap + (size_t)an->evcap * (sizeof(struct an_event) + 1) +
		   an->deps.cap * sizeof(struct an_edge) + strtab__bytes(&an->strs) +
		   (an->nev + 2) * sizeof(uint32_t);

	for (size_t i = 0; i < an->threads.n; i++)
		b += an__thread(an, i)->cap * sizeof(uint32_t);
	return an->nev ? (double)b / an->nev : 0;
}

uint32_t analysis__ndeps(const struct analysis *an, uint32_t id)
{
	return id < an->nev ? an->dep_off[id + 1] - an->dep_off[id] : 0;
}

void analysis__dep(const struct analysis *an, uint32_t id, uint32_t i, uint32_t *from,
		   enum an_rule *kind)
{
	const struct an_edge *d = an_vec__at(&an->deps, an->dep_off[id] + i);

	*from = d->from;
	*kind = d->kind;
}

bool analysis__has_dep(const struct analysis *an, uint32_t from, uint32_t to, enum an_rule kind)
{
	for (uint32_t i = 0; i < analysis__ndeps(an, to); i++) {
		const struct an_edge *d = an_vec__at(&an->deps, an->dep_off[to] + i);

		if (d->from == from && d->kind == kind)
			return true;
	}
	return false;
}

uint32_t analysis__event_of(const struct analysis *an, uint32_t tid, uint32_t n)
{
	return analysis__event_in(an, 0, tid, n);
}

uint32_t analysis__event_in(const struct analysis *an, uint32_t trace, uint32_t tid, uint32_t n)
{
	uint32_t t = an__tidx(an, trace, tid);

	if (t == AN_NONE || n >= an__thread(an, t)->nev)
		return AN_NONE;
	return an__thread(an, t)->ev[n];
}

uint64_t analysis__counter(const struct analysis *an, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} c[] = {
		{ "blocked_unexplained", offsetof(struct analysis, blocked_unexplained) },
		{ "seq_gaps", offsetof(struct analysis, seq_gaps) },
		{ "edges_gap", offsetof(struct analysis, edges_gap) },
		{ "edges_time", offsetof(struct analysis, edges_time) },
		{ "edges_raw", offsetof(struct analysis, edges_raw) },
		{ "edges_reduced", offsetof(struct analysis, edges_reduced) },
		{ "wakeups_untraced", offsetof(struct analysis, wakeups_untraced) },
		{ "wakeups_outside", offsetof(struct analysis, wakeups_outside) },
		{ "stream_bytes_unmatched", offsetof(struct analysis, pipe_bytes_unmatched) },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (!strcmp(c[i].name, name))
			return *(const uint64_t *)((const char *)an + c[i].off);
	return 0;
}

const char *analysis__fd_path(const struct analysis *an, uint32_t id, unsigned int slot)
{
	if (id >= an->nev || slot >= 2)
		return NULL;
	return strtab__str(&an->strs, an->ev[id].fdpath[slot]);
}

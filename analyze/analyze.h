/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotrace analyze: a trace in, the annotated trace (JSON Lines, see
 * docs/annotated-format.md) out, with causal edges between calls of
 * different threads.
 */
#ifndef IOTRACE_ANALYZE_H
#define IOTRACE_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum an_rule {
	AN_RULE_PROCESS = 0, /* fork -> child's first call, child exit -> reaping wait */
	AN_RULE_WAKEUP,	     /* waker's call -> the woken call */
	AN_RULE_DATA,	     /* pipe/socket bytes, file ranges: write -> read */
	AN_RULE_STAGE,	     /* create -> uses -> delete of fds, files, paths */
	AN_RULE_NAME,	     /* generations of one path in order */
	AN_RULE_SEQ,	     /* every access to a file in trace order */
	AN_RULE_SPIN,	     /* another thread's call -> the end of a lazy-wait loop */
	AN_RULE_BARRIER,     /* across hosts: each host's request -> the others' answers */
	AN_RULE_NR,
};

#define AN_RULES_DEFAULT (((1u << AN_RULE_NR) - 1) & ~(1u << AN_RULE_SEQ))

/* --host-of PID=NAME: process PID (and the children it forks) ran on host NAME. */
struct an_host_of {
	uint32_t pid;
	const char *name;
};

/* --clock-shift HOST=NS, for tests: add NS to the times of HOST's trace. */
struct an_shift {
	const char *host; /* a trace's host name or file path */
	int64_t ns;
};

struct an_opts {
	bool infer;			  /* --infer-causality */
	unsigned int rules;		  /* bit per enum an_rule */
	const struct an_host_of *host_of; /* borrowed, n_host_of of them */
	uint32_t n_host_of;
	const struct an_shift *shift; /* borrowed, n_shift of them */
	uint32_t n_shift;
};

struct analysis;

/* Name of a rule as in --rules and in "kind". */
const char *an_rule__name(enum an_rule r);
/* Parses "process,wakeup,..." into a rule mask.  0 or -EINVAL. */
int an_rule__parse(const char *list, unsigned int *mask);

/*
 * Reads the trace at path (or buf/len when path is NULL) and builds the model;
 * with opts->infer, also the edges.  Owned by the caller, freed with
 * analysis__free().  NULL with errno set (EBADMSG: not a trace or empty,
 * EPROTONOSUPPORT: unknown version); messages are logged.
 */
struct analysis *analysis__new(const char *path, const void *buf, size_t len,
			       const struct an_opts *opts);
/*
 * Several traces (or one with opts->host_of) as one job of several hosts:
 * connections matched across them, the clocks aligned.  As analysis__new();
 * EINVAL when the inputs do not make a job (the same host twice, a clock
 * that cannot be aligned), with the reason logged.
 */
struct analysis *analysis__new_multi(const char *const *paths, uint32_t n,
				     const struct an_opts *opts);
void analysis__free(struct analysis *an);
/* Why the trace ended early (truncated, corrupt), or NULL. */
const char *analysis__read_error(const struct analysis *an);
/* Why the trace is not the whole recording (read_error, or the recorder did
 * not stop cleanly), or NULL. */
const char *analysis__cut(const struct analysis *an);
/* Events are the system calls; their span is the trace's duration. */
uint32_t analysis__events(const struct analysis *an);
/* From the first call's enter to the last call's end, ns. */
uint64_t analysis__duration(const struct analysis *an);
/* Bytes of memory held per event, averaged (for the benchmark). */
double analysis__bytes_per_event(const struct analysis *an);

/* Writes the annotated trace.  0 or -errno. */
int analysis__write_jsonl(const struct analysis *an, FILE *f);
/* Writes the summary: text, or one JSON object.  0 or -errno. */
int analysis__write_summary(const struct analysis *an, FILE *f, bool json);

/* Looking at the result (tests, export). */
uint32_t analysis__ndeps(const struct analysis *an, uint32_t id);
/* The i-th dep of event id: its source event and rule. */
void analysis__dep(const struct analysis *an, uint32_t id, uint32_t i, uint32_t *from,
		   enum an_rule *kind);
bool analysis__has_dep(const struct analysis *an, uint32_t from, uint32_t to, enum an_rule kind);
/* Event id of the n-th call (0-based) of thread tid, or UINT32_MAX. */
uint32_t analysis__event_of(const struct analysis *an, uint32_t tid, uint32_t n);
/* The same in input trace `trace` of a job (analysis__new_multi). */
uint32_t analysis__event_in(const struct analysis *an, uint32_t trace, uint32_t tid, uint32_t n);
/* Counters by name: "blocked_unexplained", "seq_gaps", "edges_gap", ... ; 0 if unknown. */
uint64_t analysis__counter(const struct analysis *an, const char *name);
/* Resolved path of fd slot `slot` of event id, or NULL. */
const char *analysis__fd_path(const struct analysis *an, uint32_t id, unsigned int slot);

#endif

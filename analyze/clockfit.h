/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clock offsets of the hosts of a job from the cross-host data edges: a
 * receive cannot end before the send that fed it began.  Each edge bounds
 * the difference of two hosts' offsets from one side; edges both ways bound
 * it from both sides, NTP-style, and the midpoint is the estimate.
 */
#ifndef IOTRACE_CLOCKFIT_H
#define IOTRACE_CLOCKFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One cross-host edge: times on each host's own clock, ns. */
struct cf_obs {
	uint32_t from, to;  /* sending and receiving host */
	int64_t send_begin; /* enter of the send, on host from's clock */
	int64_t recv_end;   /* exit of the receive, on host to's clock */
};

enum cf_src {
	CF_REF = 0,   /* the reference host: offset 0 */
	CF_EDGES,     /* bounded from both sides by edges */
	CF_ONE_SIDED, /* edges one way only: the realtime estimate, held within the bound */
	CF_REALTIME,  /* no edge: the CLOCK records' realtime pairs */
	CF_NONE,      /* no edge and no realtime pair: offset 0, unaligned */
};

struct cf_host {
	bool have_rt;	   /* in: rt_offset is known */
	int64_t rt_offset; /* in: CLOCK_REALTIME minus CLOCK_MONOTONIC at the recording */
	int64_t offset;	   /* out: add to the host's times to get the reference host's clock */
	int64_t residual;  /* out: half the width of the bounds; -1 when not bounded */
	enum cf_src src;   /* out: what the offset came from */
	uint32_t via;	   /* out: the host it was aligned against */
};

/*
 * Offsets of hosts[0..n) against host 0 from the n_obs edges.  0, or -EDOM when
 * the edges between two hosts contradict (*bad_a, *bad_b name them), or
 * -ENOMEM.
 */
int clockfit__solve(const struct cf_obs *obs, size_t n_obs, struct cf_host *hosts, uint32_t n,
		    uint32_t *bad_a, uint32_t *bad_b);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* record's one-line live status on a terminal, replaced by the summary at the end. */
#ifndef IOTRACE_LOADER_STATUS_H
#define IOTRACE_LOADER_STATUS_H

#include <stdbool.h>
#include <stdint.h>

struct status {
	bool on;    /* stderr is a terminal and not -q */
	bool shown; /* a line is on the screen */
	uint64_t start_ns, next_ns;
};

struct status_counts {
	uint64_t events, lost, bytes;
};

/* Shows nothing unless stderr is a terminal and QUIET is not set. */
void status__init(struct status *s, bool quiet, uint64_t start_ns);
/* Redraws the line when its time has come (a few times a second). */
void status__tick(struct status *s, uint64_t now_ns, const struct status_counts *c);
/* Erases the line, so what is printed next takes its place. */
void status__clear(struct status *s);

#endif

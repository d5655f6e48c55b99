/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the annotated trace into the plan, for parse.c: event.c turns one
 * event line into one op, track.c keeps each fd number's generations.
 */
#ifndef IOTRACE_REPLAY_LOAD_H
#define IOTRACE_REPLAY_LOAD_H

#include <jansson.h>

#include "replay/replay.h"

/* event.c */
/* Fills op from the event object; NULL, or why the event is unusable.  Deps
 * are left as event ids for compile__plan to turn into op indexes. */
const char *event__compile(struct rp_plan *p, struct rp_op *op, json_t *ev);

/* track.c */
/* Called for each op in trace order, right after event__compile. */
int track__op(struct rp_plan *p, struct rp_op *op, json_t *ev);
/* After the last op: the fds made by calls still running at its start. */
int track__finish(struct rp_plan *p);
void track__free(void);

#endif

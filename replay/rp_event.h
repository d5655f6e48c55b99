/* SPDX-License-Identifier: GPL-2.0 */
/* One event line of the annotated trace into one op (event.c). */
#ifndef IOTRACE_RP_EVENT_H
#define IOTRACE_RP_EVENT_H

#include <jansson.h>
#include "replay/replay.h"

/* Fills op from the event object; NULL, or why the event is unusable.  Deps
 * are left as event ids for plan__compile to turn into op indexes. */
const char *event__compile(struct rp_plan *p, struct rp_op *op, json_t *ev);
/* The fd object of argument KEY, for the inherited-fd table; NULL if none. */

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Whole-trace plan passes (graph.c), run by plan__compile. */
#ifndef IOTRACE_RP_PLAN_H
#define IOTRACE_RP_PLAN_H

#include "replay.h"

/* Cuts deps that would deadlock against thread order; returns how many. */
uint32_t plan__break_cycles(struct rp_plan *p);
/* Mapping slots for file mmaps and the munmap/msync that use them. */
int plan__mmaps(struct rp_plan *p);
/* Adds to p->files the parent dirs of paths the trace used; sorts p->files. */
int plan__expect_dirs(struct rp_plan *p);

/* Collapses //, . and .. lexically, in place; "/" is the floor (load.c). */
void path__normalize(char *s);

#endif

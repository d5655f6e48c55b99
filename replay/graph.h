/* SPDX-License-Identifier: GPL-2.0 */
/* Whole-trace plan passes (graph.c), run by compile.c. */
#ifndef IOTRACE_REPLAY_GRAPH_H
#define IOTRACE_REPLAY_GRAPH_H

#include "replay/replay.h"

/* Cuts deps that would deadlock against thread order; returns how many. */
uint32_t graph__break_cycles(struct rp_plan *p, bool only_arrive);
/* Mapping slots for file mmaps and the munmap/msync that use them. */
int graph__mmaps(struct rp_plan *p);
/* Adds to p->files the parent dirs of paths the trace used; sorts p->files. */
int graph__expect_dirs(struct rp_plan *p);
/* --dev-root: which sandbox root each file of p->files and each op's paths
 * live in (after graph__expect_dirs). */
void graph__roots(struct rp_plan *p, const struct rp_opts *o);
/* The initial-state entry of PATH (normalized), or NULL. */
const struct rp_file *graph__file(const struct rp_plan *p, const char *path);
/* The root PATH resolves in: its file's, or 0 (--root). */
unsigned int graph__root_of(const struct rp_plan *p, const char *path);

#endif

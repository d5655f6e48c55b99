/* SPDX-License-Identifier: GPL-2.0 */
/* Paths as the trace names them: lexical, since the trace never sees symlinks resolved. */
#ifndef IOTRACE_PATH_H
#define IOTRACE_PATH_H

#include <stdbool.h>

/* Collapses //, /./ and /../ of an absolute path in place; "/" is the floor. */
void path__normalize(char *s);
/*
 * True for /dev, /proc and /sys and everything under them: kernel views
 * and devices, not files a replay can recreate.  The mount points
 * themselves count as outside too: a listing or stat of /dev shows the
 * host's devices, which a sandbox does not have.
 */
bool path__outside_fs(const char *s);

#endif

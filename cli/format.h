/* SPDX-License-Identifier: GPL-2.0 */
/* Turning records into strace-like text. */
#ifndef IOTRACE_FORMAT_H
#define IOTRACE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "include/iotrace_abi.h"

struct fdtable;

/*
 * One call line's "call(args) = ret" part, as strace prints it; fds show
 * their names from t.  Buffers the recorder did not keep print as "...",
 * or as their addresses when verbose.
 */
void format__syscall(FILE *f, const struct iot_hdr *h, const struct fdtable *t, bool verbose);
/* A non-syscall record as a "--- ... ---" or "# ..." line body. */
void format__other(FILE *f, const struct iot_hdr *h);

#endif

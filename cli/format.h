/* SPDX-License-Identifier: GPL-2.0 */
/* Turning records into strace-like text. */
#ifndef IOTRACE_FORMAT_H
#define IOTRACE_FORMAT_H

#include <stdint.h>
#include <stdio.h>

#include "include/iotrace_abi.h"

struct fdtable;

/* Flags value as NAME|NAME|0x..; kind is an enum sc_arg. */
void format__flags(FILE *f, unsigned int kind, uint64_t v);
/* One call line's "call(args) = ret" part; fds show their names from t. */
void format__syscall(FILE *f, const struct iot_hdr *h, const struct fdtable *t);
/* A non-syscall record as a "--- ... ---" or "# ..." line body. */
void format__other(FILE *f, const struct iot_hdr *h);
/* "ENOENT (No such file or directory)" style for -ret. */
void format__errno(FILE *f, int64_t ret);

#endif

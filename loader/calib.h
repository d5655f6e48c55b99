/* SPDX-License-Identifier: GPL-2.0 */
/* Calibrating the compute floor of a recording (calib.c). */
#ifndef IOTRACE_CALIB_H
#define IOTRACE_CALIB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "include/iotrace_abi.h"

struct capture;

struct calib {
	pid_t pid;     /* the calibration child, 0 when none ran */
	uint32_t n;    /* its calls seen so far */
	uint64_t *cpu; /* their cpu_ns */
	uint32_t nsw;  /* its calls seen right after one it was switched out in */
	bool switched; /* its last call was switched out */
	uint64_t *sw;  /* their cpu_ns */
};

/* Runs the calibration child traced until it exits; its records are then in
 * the ring, for calib__take().  0 or -errno (no correction then). */
int calib__run(struct calib *k, struct capture *cap);
/* True when h is the calibration child's: the caller drops it from the trace. */
bool calib__take(struct calib *k, const struct iot_hdr *h);
/* The median gap between its calls, or 0 when too few were seen; and the
 * same for calls right after one it was switched out in. */
uint32_t calib__floor_ns(struct calib *k);
uint32_t calib__floor_switch_ns(struct calib *k);
void calib__free(struct calib *k);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Open MPI, loaded at run time (mpi.c), for the multi-host replay (mhost.c).
 * Messages are bytes on MPI_COMM_WORLD; every wait has a deadline on the
 * CLOCK_MONOTONIC clock of mpi__now(), 0 meaning none.
 */
#ifndef IOTRACE_REPLAY_MPI_H
#define IOTRACE_REPLAY_MPI_H

#include <stdbool.h>
#include <stdint.h>

typedef void *mpi_req; /* MPI_Request */

/* Loads libmpi.so.40 and initialises it; 0 or -errno (message printed). */
int mpi__init(int *rank, int *size);
void mpi__finalize(void);
/* Ends the whole job: every rank, through mpirun. */
void mpi__abort(int code) __attribute__((noreturn));
uint64_t mpi__now(void);
void mpi__nap(void);
int mpi__isend(const void *buf, int len, int dest, int tag, mpi_req *req);
/* SRC < 0: from any rank. */
int mpi__irecv(void *buf, int len, int src, int tag, mpi_req *req);
int mpi__test(mpi_req *req);
void mpi__cancel(mpi_req *req);
int mpi__wait(mpi_req *req, uint64_t deadline);
int mpi__barrier(uint64_t deadline);

#endif

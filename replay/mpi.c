// SPDX-License-Identifier: GPL-2.0
/*
 * The few Open MPI calls the multi-host replay makes, loaded with dlopen
 * only when a file has more than one host: iotrace is not linked with
 * libmpi, and a machine without Open MPI replays single-host traces.  The
 * declarations are Open MPI 4's ABI (libmpi.so.40), where a communicator,
 * a datatype and a request are pointers and the predefined ones are
 * exported objects.  Every wait is a poll with a deadline.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "replay/mpi.h"

#define MPI_LIB		      "libmpi.so.40"
#define MPI_THREAD_SERIALIZED 2 /* only one thread calls MPI at a time */
#define MPI_ANY_SOURCE	      -1

static struct {
	void *lib;
	void *comm_world, *byte;
	int (*init_thread)(int *, char ***, int, int *);
	int (*comm_rank)(void *, int *);
	int (*comm_size)(void *, int *);
	int (*ibarrier)(void *, mpi_req *);
	int (*isend)(const void *, int, void *, int, int, void *, mpi_req *);
	int (*irecv)(void *, int, void *, int, int, void *, mpi_req *);
	int (*test)(mpi_req *, int *, void *);
	int (*cancel)(mpi_req *);
	int (*abort)(void *, int);
	int (*finalize)(void);
	bool up;
} mp;

static int mpi_sym(void **f, const char *name)
{
	*f = dlsym(mp.lib, name);
	if (!*f) {
		err("replay: %s has no %s: not Open MPI 4", MPI_LIB, name);
		return -ENOENT;
	}
	return 0;
}

static int mpi_load(void)
{
	static const char *const names[] = {
		"ompi_mpi_comm_world", "ompi_mpi_byte", "MPI_Init_thread",
		"MPI_Comm_rank",       "MPI_Comm_size", "MPI_Ibarrier",
		"MPI_Isend",	       "MPI_Irecv",	"MPI_Test",
		"MPI_Cancel",	       "MPI_Abort",	"MPI_Finalize"
	};
	void **f[] = { &mp.comm_world,		 &mp.byte,
		       (void **)&mp.init_thread, (void **)&mp.comm_rank,
		       (void **)&mp.comm_size,	 (void **)&mp.ibarrier,
		       (void **)&mp.isend,	 (void **)&mp.irecv,
		       (void **)&mp.test,	 (void **)&mp.cancel,
		       (void **)&mp.abort,	 (void **)&mp.finalize };

	/* global: Open MPI's own plugins, dlopened in turn, resolve libmpi's
	 * symbols against it */
	mp.lib = dlopen(MPI_LIB, RTLD_NOW | RTLD_GLOBAL);
	if (!mp.lib) {
		err("replay: a multi-host replay needs Open MPI (apt-get install openmpi-bin): "
		    "%s",
		    dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (mpi_sym(f[i], names[i]))
			return -ENOENT;
	return 0;
}

int mpi__init(int *rank, int *size)
{
	int argc = 0, got = 0, err = mpi_load();
	char **argv = NULL;

	if (err)
		return err;
	if (mp.init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &got)) {
		err("replay: MPI_Init_thread failed");
		return -EIO;
	}
	mp.up = true;
	if (got < MPI_THREAD_SERIALIZED) {
		err("replay: Open MPI gives thread level %d, the replay needs %d (serialized)", got,
		    MPI_THREAD_SERIALIZED);
		return -ENOTSUP;
	}
	mp.comm_rank(mp.comm_world, rank);
	mp.comm_size(mp.comm_world, size);
	return 0;
}

void mpi__finalize(void)
{
	if (mp.up)
		mp.finalize();
	mp.up = false;
}

void mpi__abort(int code)
{
	if (mp.up)
		mp.abort(mp.comm_world, code);
	exit(code);
}

uint64_t mpi__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Polling sleeps this long: a wakeup's worth, short against a call. */
void mpi__nap(void)
{
	struct timespec ts = { 0, 20000 };

	nanosleep(&ts, NULL);
}

int mpi__isend(const void *buf, int len, int dest, int tag, mpi_req *req)
{
	return mp.isend(buf, len, mp.byte, dest, tag, mp.comm_world, req) ? -EIO : 0;
}

int mpi__irecv(void *buf, int len, int src, int tag, mpi_req *req)
{
	return mp.irecv(buf, len, mp.byte, src < 0 ? MPI_ANY_SOURCE : src, tag, mp.comm_world,
			req) ?
		       -EIO :
		       0;
}

/* 1 when REQ completed, 0 when not yet, -EIO on an MPI error. */
int mpi__test(mpi_req *req)
{
	int flag = 0;

	if (mp.test(req, &flag, NULL))
		return -EIO;
	return flag;
}

void mpi__cancel(mpi_req *req)
{
	mp.cancel(req);
	while (mpi__test(req) == 0)
		mpi__nap();
}

/* Waits for REQ until the deadline (0: none); -ETIMEDOUT after it. */
int mpi__wait(mpi_req *req, uint64_t deadline)
{
	int r;

	while (!(r = mpi__test(req))) {
		if (deadline && mpi__now() >= deadline)
			return -ETIMEDOUT;
		mpi__nap();
	}
	return r < 0 ? r : 0;
}

int mpi__barrier(uint64_t deadline)
{
	mpi_req req;

	if (mp.ibarrier(mp.comm_world, &req))
		return -EIO;
	return mpi__wait(&req, deadline);
}

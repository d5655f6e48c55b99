/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resource state of the state pass (state.c, paths.c): fd tables with
 * generations, paths with generations, files by (dev, ino), and the ROOT
 * bookkeeping of each (who created it, who used it last per thread).
 */
#ifndef IOTRACE_AN_STATE_H
#define IOTRACE_AN_STATE_H

#include "analyze/an.h"

struct res_user {
	uint32_t tidx, ev;
};

/* One generation of one resource (fd@gen, path@gen, file). */
struct res {
	uint32_t creator; /* event that created it, or AN_NONE */
	uint32_t last;	  /* last event that touched it, exit order */
	uint32_t nusers;
	struct res_user *users; /* last use per thread */
};

struct fdslot {
	uint64_t ino;
	uint32_t dev;
	uint32_t path; /* interned, or AN_NONE */
	uint32_t res;  /* index in st->res */
	uint16_t ftype;
	uint8_t open, cloexec;
};

struct st_proc {
	uint64_t key; /* an__key(trace, pid) */
	uint32_t cwd; /* interned absolute path, or AN_NONE */
	uint32_t nfd;
	struct fdslot *fd;
};

struct pathst {
	uint32_t res; /* current generation, or AN_NONE: never seen */
	uint32_t gen;
	uint8_t exists; /* PATH_* */
};

enum { PATH_UNKNOWN = 0, PATH_EXISTS = 1, PATH_GONE = 2 };

struct an_state {
	struct an_vec procs; /* struct st_proc */
	struct htab proc_idx;
	struct an_vec res;    /* struct res */
	struct pathst *paths; /* by interned path id */
	uint32_t npaths;
	struct htab file_res; /* hash of (dev, ino) -> res index */
	/* the last answers of state__proc() and paths__file_res(): calls come in runs of one
	 * process and one file, and hashing for each cost more than the rest */
	uint64_t last_key;
	uint32_t last_proc; /* last_proc AN_NONE: none yet */
	uint32_t last_dev, last_file;
	uint64_t last_ino;
};

#define FD_LIMIT (1 << 20) /* fds above this are not tracked */

/* state_tables.c */
struct st_proc *state__proc(struct analysis *an, uint64_t key);
struct fdslot *state__fd(struct st_proc *p, int fd, bool grow);
uint32_t state__res_new(struct analysis *an, uint32_t creator);
struct res *state__res(struct analysis *an, uint32_t idx);
int state__use(struct analysis *an, uint32_t res, uint32_t ev, enum an_rule kind);
int state__restage(struct analysis *an, uint32_t res, uint32_t ev);
int state__delete(struct analysis *an, uint32_t res, uint32_t ev);

/* paths.c */
/* Interned absolute form of path against dirfd of process key, or AN_NONE. */
uint32_t paths__resolve(struct analysis *an, uint64_t key, int dirfd, const char *path);
int paths__use(struct analysis *an, uint32_t path, uint32_t ev);
int paths__create(struct analysis *an, uint32_t path, uint32_t ev);
int paths__delete(struct analysis *an, uint32_t path, uint32_t ev);
bool paths__known_exists(struct analysis *an, uint32_t path);
/* Namespace calls: mkdir, unlink, rename, link, symlink, ...  0 or -ENOMEM. */
int paths__namespace(struct analysis *an, uint32_t ev, int nr);
/* A directory was renamed: open fds and cwds under it follow it. */
void paths__moved(struct analysis *an, uint32_t from, uint32_t to);
/* The file behind (dev, ino): its resource index for seq/stage. */
uint32_t paths__file_res(struct analysis *an, uint32_t dev, uint64_t ino, uint32_t creator);

#endif

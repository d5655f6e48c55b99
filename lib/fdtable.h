/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each fd of each traced process refers to, by name, as far as the
 * trace tells: snapshots at attach, opens, dups, pipes, sockets, closes and
 * fork inheritance.  Also each process's cwd, to resolve relative paths.
 */
#ifndef IOTRACE_FDTABLE_H
#define IOTRACE_FDTABLE_H

#include <stdint.h>

struct fdtable;

/* Owned by the caller, freed with fdtable__free().  NULL on ENOMEM. */
struct fdtable *fdtable__new(void);
void fdtable__free(struct fdtable *t);
/* Name of pid's fd, or NULL when unknown. */
const char *fdtable__get(const struct fdtable *t, uint32_t pid, int fd);
/* Copies name.  0 or -ENOMEM. */
int fdtable__set(struct fdtable *t, uint32_t pid, int fd, const char *name);
void fdtable__del(struct fdtable *t, uint32_t pid, int fd);
/* The child process starts with a copy of the parent's fds and cwd. */
int fdtable__fork(struct fdtable *t, uint32_t parent, uint32_t child);
const char *fdtable__cwd(const struct fdtable *t, uint32_t pid);
int fdtable__set_cwd(struct fdtable *t, uint32_t pid, const char *cwd);
/*
 * Resolves path against dirfd (AT_FDCWD: the cwd) into buf.  Absolute paths
 * are returned as they are; an unknown base leaves the path relative.
 */
const char *fdtable__resolve(const struct fdtable *t, uint32_t pid, int dirfd, const char *path,
			     char *buf, size_t len);

struct iot_hdr;
/* Follows one trace record: snapshots, opens, dups, closes, forks, chdir.
 * Records must come in trace order.  0 or -ENOMEM. */
int fdtable__apply(struct fdtable *t, const struct iot_hdr *h);
#endif

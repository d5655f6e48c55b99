/* SPDX-License-Identifier: GPL-2.0 */
/* Path resolution confined to a root, without openat2. */
#ifndef IOTRACE_REPLAY_RESOLVE_H
#define IOTRACE_REPLAY_RESOLVE_H

/*
 * openat(root_fd, path, flags, mode) as openat2 with RESOLVE_IN_ROOT |
 * RESOLVE_NO_MAGICLINKS would do it: nothing the path or its symlinks say
 * leads outside root_fd.  Returns the fd (the caller's) or -errno.
 */
int resolve__open_in_root(int root_fd, const char *path, int flags, int mode);

#endif

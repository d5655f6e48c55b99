/* SPDX-License-Identifier: GPL-2.0 */
/* The sandbox root shared by sandbox.c and prepare.c. */
#ifndef IOTRACE_RP_SANDBOX_H
#define IOTRACE_RP_SANDBOX_H

/* O_PATH fds of the sandbox roots (0 --root, then each --dev-root), their
 * names for messages, and how many there are. */
extern int sb_root_fd[];
extern const char *sb_root_name[];
extern unsigned int sb_nroots;

#endif

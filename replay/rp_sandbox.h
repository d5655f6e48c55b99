/* SPDX-License-Identifier: GPL-2.0 */
/* The sandbox root shared by sandbox.c and prepare.c. */
#ifndef IOTRACE_RP_SANDBOX_H
#define IOTRACE_RP_SANDBOX_H

/* O_PATH fd of --root, and its name for messages. */
extern int sb_root_fd;
extern const char *sb_root_name;

#endif

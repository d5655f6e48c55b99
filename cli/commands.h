/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of the iotrace binary.  Each returns the exit status:
 * 0 success, 1 failure, 2 usage error. */
#ifndef IOTRACE_COMMANDS_H
#define IOTRACE_COMMANDS_H

#include <stdio.h>

#include "cliopt.h"

int cmd_record(int argc, char **argv);	/* loader/record.c */
int cmd_info(int argc, char **argv);	/* cli/info.c */
int cmd_dump(int argc, char **argv);	/* cli/dump.c */
int cmd_analyze(int argc, char **argv);	/* analyze/cmd.c */
int cmd_replay(int argc, char **argv);	/* replay/cmd.c */
int cmd_export(int argc, char **argv);	/* analyze/export.c */
int cmd_version(int argc, char **argv);	/* cli/version.c */

/* iotrace's, libbpf's and the kernel's versions, one line each */
void version__print(FILE *f);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of the iotrace binary.  Each returns the exit status:
 * 0 success, 1 failure, 2 usage error. */
#ifndef IOTRACE_COMMANDS_H
#define IOTRACE_COMMANDS_H

#include "lib/cliopt.h"

int cmd_record(int argc, char **argv);	/* loader/cmd_record.c */
int cmd_info(int argc, char **argv);	/* cli/info.c */
int cmd_dump(int argc, char **argv);	/* cli/dump.c */
int cmd_analyze(int argc, char **argv);	/* analyze/cmd_analyze.c */
int cmd_replay(int argc, char **argv);	/* replay/cmd_replay.c */
int cmd_export(int argc, char **argv);	/* analyze/export.c */

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The info and dump subcommands; each returns the exit status (lib/cliopt.h).
 * Included by cli/main.c, and by no other module.
 */
#ifndef IOTRACE_CLI_CMD_INSPECT_H
#define IOTRACE_CLI_CMD_INSPECT_H

int cmd_info(int argc, char **argv); /* info.c */
int cmd_dump(int argc, char **argv); /* dump.c */

#endif

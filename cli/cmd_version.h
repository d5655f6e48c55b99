/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The version subcommand, also behind iotrace --version; returns the exit
 * status (lib/cliopt.h).  Included by cli/main.c, and by no other module.
 */
#ifndef IOTRACE_CLI_CMD_VERSION_H
#define IOTRACE_CLI_CMD_VERSION_H

int cmd_version(int argc, char **argv); /* version.c */

#endif

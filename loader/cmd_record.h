/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record subcommand; returns the exit status (lib/cliopt.h).
 * Included by cli/main.c, and by no other module.
 */
#ifndef IOTRACE_LOADER_CMD_RECORD_H
#define IOTRACE_LOADER_CMD_RECORD_H

int cmd_record(int argc, char **argv);

#endif

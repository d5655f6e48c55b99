/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay subcommand; returns the exit status (lib/cliopt.h).
 * Included by cli/main.c, and by no other module.
 */
#ifndef IOTRACE_REPLAY_CMD_REPLAY_H
#define IOTRACE_REPLAY_CMD_REPLAY_H

int cmd_replay(int argc, char **argv);

#endif

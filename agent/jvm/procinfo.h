/* SPDX-License-Identifier: Apache-2.0 */
/*
 * procinfo.h - facts about the agent's own process.
 */
#ifndef JSYM_PROCINFO_H
#define JSYM_PROCINFO_H

#include <stdint.h>

#define JSYM_AGENT_VERSION "jsym-agent 0.1"

/* Field 22 of /proc/self/stat (start time, clock ticks since boot), or 0. */
uint64_t procinfo_starttime(void);

/* Parse field 22 out of the text of a /proc/<pid>/stat file; 0 if absent.
 * The command name (field 2) may contain spaces and ')'. */
uint64_t procinfo_parse_starttime(const char *stat_text);

#endif

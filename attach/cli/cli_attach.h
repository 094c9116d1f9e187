/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_attach.h - how `jsym attach` reports the use case's outcomes
 * (attaching.h), for cli_attach.c and cli_attach_print.c.
 */
#ifndef JSYM_CLI_ATTACH_H
#define JSYM_CLI_ATTACH_H

#include "attaching.h"

void attach_print_json(const struct attach_env *env, const struct attach_outcome *o);
/* The failure line of one JVM, on stderr (nothing when it succeeded). */
void attach_print_failure(const struct attach_outcome *o);
void attach_print_human(const struct attach_env *env, const struct attach_outcome *o);
/* The --all summary table on stdout. */
void attach_print_table(const struct attach_env *env, const struct attach_outcome *o, int n);
/* What --all left out of its list, per container, on stderr (nothing when
 * it took every JVM it found). */
void attach_print_left_out(const struct attach_list *list);

#endif

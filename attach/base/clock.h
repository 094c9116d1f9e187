/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clock.h - the one clock of the attach side: monotonic milliseconds.
 *
 * Every deadline and every "[N ms]" in a verbose line is measured with it,
 * so a wall-clock jump (NTP, a container's clock) never shortens or
 * stretches a timeout.
 */
#ifndef JSYM_CLOCK_H
#define JSYM_CLOCK_H

/* CLOCK_MONOTONIC in milliseconds. */
long clock_ms(void);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* clock.c - clock_ms(): CLOCK_MONOTONIC in milliseconds. */
#include <time.h>

#include "base.h"

long clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

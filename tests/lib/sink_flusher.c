/* SPDX-License-Identifier: Apache-2.0 */
/* sink_flusher.c - the sink's flush thread as a pthread: sink_flusher.h. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sink.h"
#include "sink_flusher.h"

pthread_t sink_flusher;
static int inside;      /* threads inside sink_flush_loop */

static void *flusher_main(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
	sink_flush_loop();
	__atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int sink_flusher_spawn(struct err_text *why)
{
	int rc = pthread_create(&sink_flusher, NULL, flusher_main, NULL);

	if (rc)
		err_set(why, 0, "pthread_create: %s", strerror(rc));
	return -rc;
}

int sink_flusher_running(void)
{
	return __atomic_load_n(&inside, __ATOMIC_SEQ_CST);
}

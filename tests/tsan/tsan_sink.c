/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tsan_sink.c - the agent's sink under ThreadSanitizer (make tsan).
 *
 * Two threads as in a JVM: a flush thread running sink_flush_loop (which
 * calls flush_once every flush_ms) and this one, which loads methods past
 * jitdump_max and calls sink_update with a changing jitdump_max, as an
 * `attach` with new options does.  Every field the two share must be read
 * and written under the sink's lock: ThreadSanitizer reports any that is
 * not and the run exits 66 (TSAN_OPTIONS exitcode, set by the make rule).
 * It found issue 17 row 9: flush_once tested jit_cap_said after the unlock.
 *
 * Exit: 0 clean, 1 setup failed, 66 a data race.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "rmtree.h"
#include "sink.h"
#include "sink_flusher.h"

#define ROUNDS 3000

/* the "compiled code" the jitdump copies: 0x40 bytes a method */
static unsigned char code[ROUNDS * 0x40];

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "tsan_sink: %s: %s\n", what, why);
	return 1;
}

int main(void)
{
	char dir[] = "/tmp/jsym-tsan-sink.XXXXXX";
	struct err_text why = { "" };
	struct agent_opts o;

	if (!mkdtemp(dir))
		return fail("mkdtemp", "cannot make a directory in /tmp");
	if (options_parse("flush_ms=1,jitdump,jitdump_max=64k", &o, &why))
		return fail("options", why.msg);
	strcpy(o.dir, dir);
	if (sink_start(&o, &why))
		return fail("sink_start", why.msg);
	if (sink_run_thread(sink_flusher_spawn, &why))
		return fail("flush thread", why.msg);
	for (int i = 0; i < ROUNDS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "void T.m%d()", i);
		/* 0x40 bytes each: the 64k cap is passed after about 1000 */
		sink_record_load(0x1000 + (uintptr_t)i,
				 (uint64_t)(uintptr_t)code + 0x40 * (uint64_t)i, 0x40, "T", "m",
				 "()V", name);
		/* a new cap now and then: its note is due again */
		if (i % 64 == 0) {
			o.jitdump_max = (i / 64) % 2 ? 64 << 10 : 128 << 10;
			sink_update(&o);
		}
		if (i % 16 == 0)
			usleep(1000);   /* let flushes interleave */
	}
	sink_stop();
	pthread_join(sink_flusher, NULL);
	if (tmp_rmtree(dir) != 0)
		return fail("cleanup", dir);
	printf("tsan_sink: %d rounds, no race reported\n", ROUNDS);
	return 0;
}

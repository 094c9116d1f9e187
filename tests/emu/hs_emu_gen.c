/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu_gen.c - the synthetic JIT: a code cache of fixed slots, stubs in a
 * region of their own, the events an agent sees, and the truth file.
 *
 * Methods live in slots of SLOT bytes of a reserved mapping; a load takes a
 * freed slot (--reuse percent of the time: the most recently freed one, at
 * the very start address its last method had) or a fresh one.  Event kinds
 * per step: a new stub (--stub-events), a replacement whose unload is
 * posted after the new method's load at the same address (--late-unload, a
 * different method, as a deferred unload can arrive in HotSpot), an unload
 * (--unload), else a load.  Stubs are never unloaded (HotSpot posts no such
 * event) and never share addresses with methods.
 *
 * One lock covers the model, the posting of each event and GenerateEvents,
 * so an agent sees the events in the order the truth applies them and a
 * replay is a consistent snapshot.  The truth file holds the live ranges as
 * perf-map lines ("%llx %llx name", sorted by start, newlines in names as
 * spaces), rewritten by rename at most every --truth-ms while events flow,
 * always when the generator goes idle and at gen_stop().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "hs_emu.h"

#include <jvmticmlr.h>   /* needs jvmti.h first */

#define SLOT 0x400u
#define CODE_MIN 0x40u
#define CODE_ALIGN 0x20u
#define STUB_SLOT 0x200u
#define MAX_SLOTS (1u << 18)
#define MAX_STUBS (1u << 16)

struct slot {
	const struct emu_method *m;
	uint64_t size;
	long live_pos;          /* index in G.live, -1 when free */
};

struct stub {
	const char *name;
	uint64_t start, size;
};

static const char *const stub_names[] = {
	"Interpreter", "flush_icache_stub", "StubRoutines (1)", "StubRoutines (2)",
	"I2C/C2I adapters", "MethodHandles adapters", "vtable chunks", "itable chunks",
	"deoptimization blob", "uncommon trap blob", "exception blob",
	"safepoint handler blob", "I2C/C2I adapters",
};

static struct {
	pthread_mutex_t lock;
	uint8_t *code, *stub_area;
	struct slot *slots;
	size_t nslots, next_fresh;
	size_t *free_stack, n_free;
	size_t *live, n_live;
	struct stub *stubs;
	size_t n_stubs, max_stubs;
	uint64_t rng;
	struct timespec last_truth;
	unsigned long truth_gen;
	unsigned long loads, reuses, unloads, lates, new_stubs;
	bool stop, thread_on;
	pthread_t thread;
} G = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t rnd(void)
{
	uint64_t x = G.rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	G.rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static size_t pick(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static uint64_t slot_start(size_t s)
{
	return (uint64_t)(uintptr_t)G.code + (uint64_t)s * SLOT;
}

static uint64_t random_size(unsigned max)
{
	return CODE_MIN + CODE_ALIGN * pick((max - CODE_MIN) / CODE_ALIGN + 1);
}

/* ---- posting ------------------------------------------------------------- */

/* CompiledMethodLoad, with two PcDescs of inline info under --inline-info:
 * the method itself at its start, another method inlined from the middle. */
static void post_load(jvmtiEnv *target, size_t s)
{
	const struct emu_method *m = G.slots[s].m, *inl;
	uint64_t start = slot_start(s), size = G.slots[s].size;
	jvmtiCompiledMethodLoadInlineRecord rec;
	PCStackInfo pcs[2];
	jmethodID frames0[1], frames1[2];
	jint bcis0[1] = { 0 }, bcis1[2] = { 3, 7 };
	size_t idx = (size_t)(m - catalog_method(0));

	if (!emu.o.inline_info) {
		jvmti_post_load(target, m, start, size, NULL);
		return;
	}
	inl = catalog_method((idx + 1) % catalog_count());
	frames0[0] = (jmethodID)(void *)m;
	frames1[0] = (jmethodID)(void *)inl;
	frames1[1] = (jmethodID)(void *)m;
	pcs[0] = (PCStackInfo){ (void *)(uintptr_t)start, 1, frames0, bcis0 };
	pcs[1] = (PCStackInfo){ (void *)(uintptr_t)(start + (size / 2 & ~(uint64_t)0xf)), 2,
				frames1, bcis1 };
	memset(&rec, 0, sizeof(rec));
	rec.header.kind = JVMTI_CMLR_INLINE_INFO;
	rec.header.majorinfoversion = JVMTI_CMLR_MAJOR_VERSION;
	rec.header.minorinfoversion = JVMTI_CMLR_MINOR_VERSION;
	rec.numpcs = 2;
	rec.pcinfo = pcs;
	jvmti_post_load(target, m, start, size, &rec);
}

/* ---- the model (G.lock held) ---------------------------------------------- */

static void live_add(size_t s)
{
	G.slots[s].live_pos = (long)G.n_live;
	G.live[G.n_live++] = s;
}

static void live_remove(size_t s)
{
	size_t pos = (size_t)G.slots[s].live_pos, last = G.live[--G.n_live];

	G.live[pos] = last;
	G.slots[last].live_pos = (long)pos;
	G.slots[s].live_pos = -1;
}

static bool do_load(void)
{
	size_t s;

	if (G.n_free && (pick(100) < emu.o.reuse_pct || G.next_fresh == G.nslots)) {
		s = G.free_stack[--G.n_free];
		G.reuses++;
	} else if (G.next_fresh < G.nslots) {
		s = G.next_fresh++;
	} else {
		return false;
	}
	G.slots[s].m = catalog_method(pick(catalog_count()));
	G.slots[s].size = random_size(SLOT);
	live_add(s);
	G.loads++;
	post_load(NULL, s);
	return true;
}

static bool do_unload(void)
{
	size_t s;

	if (!G.n_live)
		return false;
	s = G.live[pick(G.n_live)];
	live_remove(s);
	G.free_stack[G.n_free++] = s;
	G.unloads++;
	jvmti_post_unload(G.slots[s].m, slot_start(s));
	return true;
}

/* Another method at the same start; the old one's unload comes after. */
static bool do_late_replace(void)
{
	const struct emu_method *old, *m;
	size_t s;

	if (!G.n_live || catalog_count() < 2)
		return false;
	s = G.live[pick(G.n_live)];
	old = G.slots[s].m;
	do
		m = catalog_method(pick(catalog_count()));
	while (m == old);
	G.slots[s].m = m;
	G.slots[s].size = random_size(SLOT);
	G.lates++;
	post_load(NULL, s);
	jvmti_post_unload(old, slot_start(s));
	return true;
}

static bool do_stub(void)
{
	struct stub *st;

	if (G.n_stubs == G.max_stubs)
		return false;
	st = &G.stubs[G.n_stubs];
	st->name = stub_names[pick(sizeof(stub_names) / sizeof(stub_names[0]))];
	st->start = (uint64_t)(uintptr_t)G.stub_area + G.n_stubs * STUB_SLOT;
	st->size = random_size(STUB_SLOT);
	G.n_stubs++;
	G.new_stubs++;
	jvmti_post_stub(NULL, st->name, st->start, st->size);
	return true;
}

static void step(void)
{
	size_t r = pick(100);
	unsigned a = emu.o.stub_pct, b = a + emu.o.late_pct, c = b + emu.o.unload_pct;

	if (r < a && do_stub())
		return;
	if (r >= a && r < b && do_late_replace())
		return;
	if (r >= b && r < c && do_unload())
		return;
	if (!do_load())
		do_unload();
}

/* ---- the truth ----------------------------------------------------------- */

struct line {
	uint64_t start, size;
	const char *name;
};

static int by_start(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000L + (now.tv_nsec - t->tv_nsec) / 1000000L;
}

static void write_truth(bool force)
{
	char tmp[4096];
	struct line *v;
	size_t n = 0;
	FILE *f;

	if (!emu.o.truth || (!force && ms_since(&G.last_truth) < (long)emu.o.truth_ms))
		return;
	v = malloc((G.n_stubs + G.n_live + 1) * sizeof(*v));
	if (!v)
		emu_abort("out of memory writing the truth");
	for (size_t i = 0; i < G.n_stubs; i++)
		v[n++] = (struct line){ G.stubs[i].start, G.stubs[i].size, G.stubs[i].name };
	for (size_t i = 0; i < G.n_live; i++) {
		size_t s = G.live[i];

		v[n++] = (struct line){ slot_start(s), G.slots[s].size, G.slots[s].m->expect };
	}
	qsort(v, n, sizeof(*v), by_start);
	snprintf(tmp, sizeof(tmp), "%s.tmp", emu.o.truth);
	f = fopen(tmp, "w");
	if (!f)
		emu_abort("cannot write %s: %s", tmp, strerror(errno));
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%llx %llx ", (unsigned long long)v[i].start,
			(unsigned long long)v[i].size);
		for (const char *p = v[i].name; *p; p++)
			fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
		fputc('\n', f);
	}
	if (fclose(f) != 0 || rename(tmp, emu.o.truth) != 0)
		emu_abort("cannot write %s: %s", emu.o.truth, strerror(errno));
	free(v);
	clock_gettime(CLOCK_MONOTONIC, &G.last_truth);
	G.truth_gen++;
}

/* ---- the generator thread ------------------------------------------------- */

static bool stopping(void)
{
	bool s;

	pthread_mutex_lock(&G.lock);
	s = G.stop;
	pthread_mutex_unlock(&G.lock);
	return s;
}

static void *gen_main(void *arg)
{
	struct timespec next, nap = { 0, 10 * 1000 * 1000 };
	unsigned i;

	vm_attach_thread("C2 CompilerThread0");
	while (!jvmti_events_ready() && !stopping())
		nanosleep(&nap, NULL);
	emu_log("generator: an agent enabled the code events: posting %u events at %u/s",
		emu.o.events, emu.o.rate);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < emu.o.events && !stopping(); i++) {
		pthread_mutex_lock(&G.lock);
		step();
		write_truth(false);
		pthread_mutex_unlock(&G.lock);
		if (!emu.o.rate)
			continue;
		next.tv_nsec += 1000000000L / (long)emu.o.rate;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	pthread_mutex_lock(&G.lock);
	write_truth(true);
	emu_log("generator: idle after %u events: %zu live methods, %zu stubs (loads %lu, "
		"reuses %lu, late unloads %lu, unloads %lu, new stubs %lu); truth %lu written",
		i, G.n_live, G.n_stubs, G.loads, G.reuses, G.lates, G.unloads, G.new_stubs,
		G.truth_gen);
	pthread_mutex_unlock(&G.lock);
	vm_detach_thread();
	return NULL;
}

int gen_init(void)
{
	size_t want = (size_t)emu.o.initial + emu.o.events + 16;

	G.rng = (uint64_t)emu.o.seed * 0x9e3779b97f4a7c15ull + 1;
	G.nslots = want < MAX_SLOTS ? want : MAX_SLOTS;
	G.max_stubs = (size_t)emu.o.stubs + emu.o.events + 1;
	if (G.max_stubs > MAX_STUBS)
		G.max_stubs = MAX_STUBS;
	/* Like a code cache: executable, reserved, never touched (rwx may be
	 * refused by a hardened kernel: then any reservation will do). */
	G.code = mmap(NULL, G.nslots * SLOT + G.max_stubs * STUB_SLOT,
		      PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS |
		      MAP_NORESERVE, -1, 0);
	if (G.code == MAP_FAILED)
		G.code = mmap(NULL, G.nslots * SLOT + G.max_stubs * STUB_SLOT, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (G.code == MAP_FAILED)
		return -errno;
	G.stub_area = G.code + G.nslots * SLOT;
	G.slots = calloc(G.nslots, sizeof(*G.slots));
	G.free_stack = calloc(G.nslots, sizeof(size_t));
	G.live = calloc(G.nslots, sizeof(size_t));
	G.stubs = calloc(G.max_stubs, sizeof(*G.stubs));
	if (!G.slots || !G.free_stack || !G.live || !G.stubs)
		return -ENOMEM;
	pthread_mutex_lock(&G.lock);
	for (unsigned i = 0; i < emu.o.stubs; i++)
		do_stub();
	for (unsigned i = 0; i < emu.o.initial; i++)
		do_load();
	write_truth(true);
	pthread_mutex_unlock(&G.lock);
	emu_log("JIT: code cache %p, %zu slots of 0x%x; %zu stubs at %p; %zu methods compiled",
		(void *)G.code, G.nslots, SLOT, G.n_stubs, (void *)G.stub_area, G.n_live);
	return 0;
}

int gen_start(void)
{
	int rc = pthread_create(&G.thread, NULL, gen_main, NULL);

	if (rc)
		return -rc;
	G.thread_on = true;
	return 0;
}

void gen_stop(void)
{
	pthread_mutex_lock(&G.lock);
	G.stop = true;
	pthread_mutex_unlock(&G.lock);
	if (G.thread_on)
		pthread_join(G.thread, NULL);
	G.thread_on = false;
	pthread_mutex_lock(&G.lock);
	write_truth(true);
	emu_log("generator: stopped; final truth %lu: %zu methods, %zu stubs", G.truth_gen,
		G.n_live, G.n_stubs);
	pthread_mutex_unlock(&G.lock);
}

void gen_replay(jvmtiEnv *env, jvmtiEvent kind)
{
	size_t n;

	pthread_mutex_lock(&G.lock);
	if (kind == JVMTI_EVENT_COMPILED_METHOD_LOAD) {
		n = G.n_live;
		for (size_t i = 0; i < G.n_live; i++)
			post_load(env, G.live[i]);
	} else {
		n = G.n_stubs;
		for (size_t i = 0; i < G.n_stubs; i++)
			jvmti_post_stub(env, G.stubs[i].name, G.stubs[i].start, G.stubs[i].size);
	}
	pthread_mutex_unlock(&G.lock);
	emu_log("GenerateEvents(%d): %zu events replayed", (int)kind, n);
}

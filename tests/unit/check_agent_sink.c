/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_agent_sink.c - the sink end to end, without a JVM: records from
 * several threads, the flush thread, the files it leaves.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_tmp.h"
#include "frames.h"
#include "jitdump.h"
#include "journal_format.h"
#include "journal_read.h"
#include "options.h"
#include "sink.h"
#include "sink_flusher.h"
#include "sink_journal.h"
#include "sink_state.h"

extern Suite *agent_sink_suite(void); /* listed in the runner by tests/tests.mk */

static char dir[64];
static void start_flusher(void)
{
	struct err_text why = { "" };

	ck_assert_int_eq(sink_run_thread(sink_flusher_spawn, &why), 0);
}

static void stop_with_flusher(void)
{
	sink_stop();
	pthread_join(sink_flusher, NULL);
}
static char path_map[128], path_journal[128], path_dump[192];

/* The sink started with the agent options opts, writing into a new dir. */
static void start_in_new_dir(const char *opts)
{
	struct agent_opts o;
	struct err_text why = { "" };

	tmp_dir(dir, sizeof(dir), "sink");
	snprintf(path_map, sizeof(path_map), "%s/perf-%d.map", dir, (int)getpid());
	snprintf(path_journal, sizeof(path_journal), "%s/jsym-%d.journal", dir, (int)getpid());
	snprintf(path_dump, sizeof(path_dump), "%s/jsym-jit-%d/jit-%d.dump", dir, (int)getpid(),
		 (int)getpid());
	ck_assert_int_eq(options_parse(opts, &o, &why), 0);
	strcpy(o.dir, dir);
	ck_assert_int_eq(sink_start(&o, &why), 0);
}

static void setup_dir(void)
{
	start_in_new_dir("flush_ms=5");
}

static unsigned char *slurp(const char *path, size_t *n)
{
	static unsigned char buf[4 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t r;

	ck_assert_int_ge(fd, 0);
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(r, 0);
	buf[r] = 0;
	*n = (size_t)r;
	return buf;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* The requirement: an unload of a reused address ends only the old id.
 * (No flush thread here: sink_sync and sink_stop flush on this thread.) */
START_TEST(test_unload_never_ends_newer_entry)
{
	uint64_t id1, id2;
	size_t n;
	unsigned char *j;
	int unloads = 0;
	uint64_t ended = 0;

	setup_dir();
	id1 = sink_record_load(0xA, 0x1000, 0x40, "A", "m", "()V", "void A.m()");
	ck_assert_uint_eq(id1, 1);
	/* a replay of the same thing is not a new entry */
	ck_assert_uint_eq(sink_record_load(0xA, 0x1000, 0x40, "A", "m", "()V", "void A.m()"), 0);
	/* an unload naming another method does not end A.m */
	sink_record_unload(0xB, 0x1000);
	sink_record_unload(0xA, 0x1000);
	id2 = sink_record_load(0xB, 0x1000, 0x80, "B", "n", "()V", "void B.n()");
	ck_assert_uint_eq(id2, 2);
	/* a late, repeated unload of A at the reused address: B stays */
	sink_record_unload(0xA, 0x1000);
	sink_sync();
	ck_assert_str_eq((char *)slurp(path_map, &n), "1000 80 void B.n()\n");
	sink_stop();
	j = slurp(path_journal, &n);
	ck_assert_int_eq(memcmp(j, JF_MAGIC, 8), 0);
	for (size_t off = JF_HEADER_SIZE; off + JF_PREFIX_SIZE <= n; off += jf_get32(j + off + 4)) {
		if (jf_get16(j + off) == JF_UNLOAD) {
			unloads++;
			ended |= 1ull << jf_get64(j + off + 16);
		}
	}
	/* one UNLOAD for id 1 during the run, one for id 2 at stop */
	ck_assert_int_eq(unloads, 2);
	ck_assert_uint_eq(ended, (1ull << 1) | (1ull << 2));
}
END_TEST

enum { THREADS = 4, PER_THREAD = 3000 };

static void *producer(void *arg)
{
	uint64_t base = 0x100000ull * (1 + (uintptr_t)arg);
	char name[64];

	for (uint64_t i = 0; i < PER_THREAD; i++) {
		snprintf(name, sizeof(name), "void T%lu.m%llu()", (unsigned long)(uintptr_t)arg,
			 (unsigned long long)i);
		sink_record_load(base + i, base + i * 0x40, 0x40, "T", "m", "()V", name);
		if (i % 3 == 0)
			sink_record_unload(base + i, base + i * 0x40);
		if (i % 500 == 0)
			sink_record_stub(base + 0x80000 + i, 0x10, "StubRoutines (1)");
	}
	return NULL;
}

START_TEST(test_threads_map_equals_live_set)
{
	pthread_t t[THREADS];
	struct sink_stats st;
	struct stat sb;
	size_t n;
	int live = THREADS * (PER_THREAD - (PER_THREAD + 2) / 3 + PER_THREAD / 500);

	setup_dir();
	start_flusher();
	for (uintptr_t i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, producer, (void *)i), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	sink_sync();
	sink_get_stats(&st);
	ck_assert_uint_eq(st.drops, 0);
	ck_assert_uint_eq(st.map_lines, (uint64_t)live);
	ck_assert_int_eq(count_lines((char *)slurp(path_map, &n)), live);
	ck_assert_int_eq(stat(path_map, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0644);
	stop_with_flusher();
	ck_assert(!sink_running());
	/* stop leaves the map as it was and adds nothing more */
	sink_record_load(1, 0x42, 1, "X", "x", "()V", "void X.x()");
	ck_assert_int_eq(count_lines((char *)slurp(path_map, &n)), live);
}
END_TEST

/* A /tmp cleaner removes the map: the agent writes it again. */
START_TEST(test_removed_map_comes_back)
{
	size_t n;

	setup_dir();
	start_flusher();
	sink_record_load(0xA, 0x1000, 0x40, "A", "m", "()V", "void A.m()");
	sink_sync();
	ck_assert_int_eq(unlink(path_map), 0);
	for (int i = 0; i < 200 && access(path_map, F_OK) != 0; i++)
		usleep(10 * 1000);
	ck_assert_str_eq((char *)slurp(path_map, &n), "1000 40 void A.m()\n");
	stop_with_flusher();
}
END_TEST

/* Full buffers drop journal records (counted, logged), never map lines. */
START_TEST(test_full_buffer_drops_journal_not_map)
{
	struct sink_stats st;
	char name[32], logpath[160];
	size_t n;
	unsigned char *text;

	S.buf_max = 512;   /* header (64) + a few LOADs */
	setup_dir();
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "void A.m%d()", i);
		sink_record_load(0x100 + i, 0x1000 + 0x40 * i, 0x40, "A", "m", "()V", name);
	}
	sink_get_stats(&st);
	ck_assert_uint_gt(st.drops, 0);
	ck_assert_uint_eq(st.map_lines, 20);
	sink_sync();
	ck_assert_int_eq(count_lines((char *)slurp(path_map, &n)), 20);
	sink_stop();
	S.buf_max = SINK_BUF_MAX;
	snprintf(logpath, sizeof(logpath), "%s/jsym-%d.log", dir, (int)getpid());
	text = slurp(logpath, &n);
	ck_assert_ptr_nonnull(strstr((char *)text, "dropped"));
	ck_assert_ptr_nonnull(strstr((char *)text, "the perf map stays complete"));
}
END_TEST

START_TEST(test_bad_dir_fails_with_reason)
{
	struct agent_opts o;
	struct err_text why = { "" };
	char log[64];

	options_defaults(&o);
	strcpy(o.dir, "/nonexistent/jsym-check");
	ck_assert_int_eq(sink_start(&o, &why), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why.msg, "cannot open output directory /nonexistent/jsym-check"));
	ck_assert(!sink_running());
	/* the reason also went to the fallback log */
	snprintf(log, sizeof(log), "/tmp/jsym-%d.log", (int)getpid());
	ck_assert_int_eq(access(log, R_OK), 0);
	unlink(log);
}
END_TEST

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * A flush thread that hangs past sink_stop's 5 s (here: blocked writing the
 * journal into a full pipe) must not get a second flush thread beside it
 * on a re-attach, and its files must be closed once it finishes.
 */
START_TEST(test_reattach_never_runs_two_flush_threads)
{
	static char junk[1 << 16];
	struct agent_opts o;
	struct err_text why = { "" };
	pthread_t stuck;
	int p[2], fds = open_fds(), rc;

	signal(SIGPIPE, SIG_IGN);
	setup_dir();
	start_flusher();
	stuck = sink_flusher;
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
	while (write(p[1], junk, sizeof(junk)) > 0)
		;
	ck_assert_int_eq(fcntl(p[1], F_SETFL, 0), 0);
	ck_assert_int_eq(dup2(p[1], sink_journal_fd()), sink_journal_fd());
	close(p[1]);
	sink_record_load(0xA, 0x1000, 0x40, "A", "m", "()V", "void A.m()");
	sink_stop();    /* gives up on the blocked thread after 5 s */
	ck_assert(!sink_running());

	ck_assert_int_eq(options_parse("flush_ms=5", &o, &why), 0);
	strcpy(o.dir, dir);
	rc = sink_start(&o, &why);
	if (rc == 0)
		sink_run_thread(sink_flusher_spawn, &why);
	ck_assert_int_le(sink_flusher_running(), 1);
	ck_assert_int_eq(rc, -EBUSY);
	ck_assert_ptr_nonnull(strstr(why.msg, "flush thread"));

	close(p[0]);    /* its write fails with EPIPE: it finishes */
	pthread_join(stuck, NULL);
	ck_assert_int_eq(sink_flusher_running(), 0);
	ck_assert_int_eq(open_fds(), fds);

	ck_assert_int_eq(sink_start(&o, &why), 0);
	start_flusher();
	ck_assert_int_eq(sink_flusher_running(), 1);
	stop_with_flusher();
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

/* Code bytes for the jitdump: the sink copies them from the load's start. */
static unsigned char fake_code[0x40 * 200];

/*
 * journal_max: the journal never passes the cap, is started over with
 * EPOCH(LIVE_SET), and read alone gives exactly the live set (the FRAMES
 * of live loads included, nothing twice); the jitdump has one CODE_LOAD
 * per load; stop rewrites the map at once, rate limit or not.
 */
/* The FRAMES record of LOAD id at start, as the agent hands it over
 * (frames.h, sink_record_raw): U.n() inlined at [start + 8, start + 16). */
static void record_frames(uint64_t id, uint64_t start)
{
	static int m_t, m_u;
	jmethodID ids[2] = { (jmethodID)&m_t, (jmethodID)&m_u };
	struct unfold_range r[1] = { { 8, 8, 0, 2 } };
	struct unfold_frame fr[2] = { { 0, UNFOLD_NO_BCI }, { 1, UNFOLD_NO_BCI } };
	struct unfold_info u = { .ranges = r, .frames = fr, .methods = ids,
				 .n_ranges = 1, .n_frames = 2, .n_methods = 2 };
	struct frames_method m[2] = {
		{ "T", "m", "()V", "void T.m()", NULL, NULL, 0 },
		{ "U", "n", "()V", "void U.n()", NULL, NULL, 0 },
	};
	struct bbuf b = { 0 };

	ck_assert_int_eq(frames_encode(&b, sink_now(), id, start, &u, m, 0), 1);
	sink_record_raw(id, b.data, b.len, 1);
	bbuf_free(&b);
}

/* 120 rounds of 30 loads (each with its FRAMES) or unloads over 200
 * slots; the journal never passes journal_max=64k.  live[i] is slot i's
 * id or 0. */
static void churn_bounded(uint64_t base, uint64_t live[200])
{
	struct stat sb;

	memset(live, 0, 200 * sizeof(live[0]));
	for (int round = 0; round < 120; round++) {
		for (int k = 0; k < 30; k++) {
			int i = (round * 37 + k * 11) % 200;
			char name[64];

			if (live[i]) {
				sink_record_unload(0x100 + (uintptr_t)i, base + 0x40 * (uint64_t)i);
				live[i] = 0;
				continue;
			}
			snprintf(name, sizeof(name), "void T.m%d()", i);
			live[i] = sink_record_load(0x100 + (uintptr_t)i, base + 0x40 * (uint64_t)i,
						   0x40, "T", "m", "()V", name);
			record_frames(live[i], base + 0x40 * (uint64_t)i);
		}
		sink_sync();
		ck_assert_int_eq(stat(path_journal, &sb), 0);
		ck_assert_int_le(sb.st_size, 64 << 10);
	}
}

/* The journal alone: EPOCH(LIVE_SET) first, then exactly the live set,
 * each live load with its one FRAMES, nothing twice. */
static void check_journal_is_live_set(uint64_t base, const uint64_t live[200])
{
	struct jr_reader jr;
	struct jr_record rec;
	static uint64_t seen[200], nframes[200];
	int n = 0, first = 1;

	memset(seen, 0, sizeof(seen));
	memset(nframes, 0, sizeof(nframes));
	jr_open_fd(&jr, open(path_journal, O_RDONLY));
	while (jr_next(&jr, &rec, NULL) == 1) {
		int i = (int)((rec.code_start - base) / 0x40);

		if (first) {
			ck_assert_uint_eq(rec.type, JF_EPOCH);
			ck_assert_uint_eq(rec.reason, JF_EPOCH_LIVE_SET);
			first = 0;
			continue;
		}
		if (rec.type == JF_LOAD) {
			ck_assert_uint_eq(seen[i], 0);   /* never twice */
			seen[i] = rec.id;
		} else if (rec.type == JF_UNLOAD) {
			ck_assert_uint_eq(seen[i], rec.id);
			seen[i] = 0;
			nframes[i] = 0;
		} else if (rec.type == JF_FRAMES) {
			ck_assert_uint_eq(seen[i], rec.id);
			nframes[i]++;
		}
	}
	jr_close(&jr);
	for (int i = 0; i < 200; i++) {
		ck_assert_uint_eq(seen[i], live[i]);
		if (live[i]) {
			ck_assert_uint_eq(nframes[i], 1);
			n++;
		}
	}
	ck_assert_int_gt(n, 0);
}

/* Unloads just before stop leave the map at once: the rewrite after the
 * sync started the rate limit, stop ignores it. */
static void unload_three_then_stop(uint64_t base, uint64_t live[200])
{
	size_t len;
	const char *map;
	int n = 0;

	sink_sync();
	for (int i = 0, k = 0; i < 200 && k < 3; i++)
		if (live[i]) {
			sink_record_unload(0x100 + (uintptr_t)i, base + 0x40 * (uint64_t)i);
			live[i] = 0;
			k++;
		}
	sink_stop();
	map = (const char *)slurp(path_map, &len);
	for (int i = 0; i < 200; i++)
		n += live[i] != 0;
	ck_assert_int_eq(count_lines(map), n);
}

/* The jitdump: header, then CODE_LOADs carrying the code, then CLOSE. */
static void check_jitdump_loads(uint64_t jit_records)
{
	size_t len, off = JITDUMP_HEADER_SIZE, loads = 0;
	const unsigned char *d = slurp(path_dump, &len);
	uint32_t v;

	memcpy(&v, d, 4);
	ck_assert_uint_eq(v, JITDUMP_MAGIC);
	memcpy(&v, d + 20, 4);
	ck_assert_uint_eq(v, (uint32_t)getpid());
	while (off + 16 <= len) {
		uint32_t id, total;
		uint64_t addr, size;

		memcpy(&id, d + off, 4);
		memcpy(&total, d + off + 4, 4);
		ck_assert_uint_ge(total, 16);
		if (id == JITDUMP_CODE_LOAD) {
			const char *name = (const char *)d + off + JITDUMP_LOAD_FIXED;

			memcpy(&addr, d + off + 24, 8);
			memcpy(&size, d + off + 40, 8);
			ck_assert_uint_eq(size, 0x40);
			ck_assert_int_eq(memcmp(name + strlen(name) + 1,
						(const void *)(uintptr_t)addr, 0x40), 0);
			loads++;
		} else {
			ck_assert_uint_eq(id, JITDUMP_CODE_CLOSE);
			ck_assert_uint_eq(off + total, len);
		}
		off += total;
	}
	ck_assert_uint_eq(off, len);
	ck_assert_uint_eq(loads, jit_records);
}

START_TEST(test_bounded_journal_and_jitdump)
{
	struct sink_stats st;
	uint64_t base = (uint64_t)(uintptr_t)fake_code;
	static uint64_t live[200];

	for (size_t i = 0; i < sizeof(fake_code); i++)
		fake_code[i] = (unsigned char)i;
	start_in_new_dir("flush_ms=5,journal_max=64k,jitdump");
	churn_bounded(base, live);
	sink_get_stats(&st);
	ck_assert_uint_ge(st.rotations, 2);
	ck_assert_uint_eq(st.jit_records, st.loads);
	check_journal_is_live_set(base, live);
	unload_three_then_stop(base, live);
	sink_get_stats(&st);
	check_jitdump_loads(st.jit_records);
}
END_TEST

/*
 * jitdump_max: past the cap no CODE_LOAD is appended (counted), the file
 * stays under it with its CLOSE; a DEBUG_INFO handed with a load is written
 * right before that load's CODE_LOAD, never apart from it.
 */
START_TEST(test_jitdump_max_and_debug_info)
{
	struct sink_stats st;
	uint64_t base = (uint64_t)(uintptr_t)fake_code;
	struct jitdump_line line = { 0, 42, "T.java" };
	size_t len, off = JITDUMP_HEADER_SIZE;
	const unsigned char *d;
	int loads = 0, infos = 0;

	start_in_new_dir("flush_ms=5,jitdump,jitdump_max=64k");
	for (int i = 0; i < 200; i++) {
		struct bbuf dbg = { 0 };
		char name[64];

		line.addr = base + 0x40 * (uint64_t)i;
		ck_assert_int_eq(jitdump_put_debug_info(&dbg, 1, line.addr, &line, 1), 0);
		snprintf(name, sizeof(name), "void T.m%d()", i);
		/* 0x40 * 200 bytes of code, 20 loads each: ~256k offered */
		for (int k = 0; k < 20; k++) {
			ck_assert_uint_ne(sink_record_load_dbg(0x100 + (uintptr_t)i * 32 + k, line.addr,
							       0x40, "T", "m", "()V", name,
							       i % 2 ? dbg.data : NULL,
							       i % 2 ? dbg.len : 0), 0);
			sink_record_unload(0x100 + (uintptr_t)i * 32 + k, line.addr);
		}
		bbuf_free(&dbg);
	}
	sink_stop();
	sink_get_stats(&st);
	ck_assert_uint_gt(st.jit_capped, 0);
	ck_assert_uint_eq(st.jit_records + st.jit_capped, st.loads);
	d = slurp(path_dump, &len);
	ck_assert_uint_le(len, 64 << 10);
	ck_assert_uint_gt(len, 60 << 10);
	while (off + 16 <= len) {
		uint32_t id, total;
		uint64_t addr, at;

		memcpy(&id, d + off, 4);
		memcpy(&total, d + off + 4, 4);
		if (id == JITDUMP_CODE_DEBUG_INFO) {
			/* the next record is the CODE_LOAD of the same code */
			memcpy(&addr, d + off + 16, 8);
			memcpy(&at, d + off + JITDUMP_DEBUG_FIXED, 8);
			ck_assert_uint_eq(at, addr);
			ck_assert_str_eq((const char *)d + off + JITDUMP_DEBUG_FIXED + 16, "T.java");
			memcpy(&id, d + off + total, 4);
			ck_assert_uint_eq(id, JITDUMP_CODE_LOAD);
			memcpy(&at, d + off + total + 32, 8);
			ck_assert_uint_eq(at, addr);
			ck_assert_uint_eq((at - base) / 0x40 % 2, 1);
			infos++;
		} else if (id == JITDUMP_CODE_LOAD) {
			loads++;
		} else {
			ck_assert_uint_eq(id, JITDUMP_CODE_CLOSE);
		}
		off += total;
	}
	ck_assert_uint_eq(off, len);
	ck_assert_uint_eq((uint64_t)loads, st.jit_records);
	ck_assert_uint_eq((uint64_t)infos, st.jit_lines);
	ck_assert_int_gt(infos, 0);
	/* the cap is said once (flush_once decides it under the lock) */
	snprintf(path_dump, sizeof(path_dump), "%s/jsym-%d.log", dir, (int)getpid());
	d = slurp(path_dump, &len);             /* NUL-terminated */
	const char *said = strstr((const char *)d, "jitdump reached jitdump_max=65536");

	ck_assert_ptr_nonnull(said);
	ck_assert_ptr_null(strstr(said + 1, "jitdump reached jitdump_max"));
}
END_TEST

Suite *agent_sink_suite(void)
{
	Suite *s = suite_create("agent_sink");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_unload_never_ends_newer_entry);
	tcase_add_test(tc, test_threads_map_equals_live_set);
	tcase_add_test(tc, test_removed_map_comes_back);
	tcase_add_test(tc, test_full_buffer_drops_journal_not_map);
	tcase_add_test(tc, test_bad_dir_fails_with_reason);
	tcase_add_test(tc, test_reattach_never_runs_two_flush_threads);
	tcase_add_test(tc, test_bounded_journal_and_jitdump);
	tcase_add_test(tc, test_jitdump_max_and_debug_info);
	suite_add_tcase(s, tc);
	return s;
}

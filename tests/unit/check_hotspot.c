/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_hotspot.c - the HotSpot client (hotspot.c, hs_io.c) against a fake
 * listener process: exact request bytes, streamed output, peer checks,
 * silent close, "never signal a non-JVM", a hard deadline against a JVM
 * that drips its reply, and a refusal's text escaped on its way to stderr.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base.h"
#include "check_skip.h"
#include "hotspot.h"
#include "hotspot_int.h"
#include "hs_io.h"
#include "target.h"

extern Suite *hotspot_suite(void); /* listed in the runner by tests/tests.mk */

START_TEST(sockaddr_length_checked)
{
	struct sockaddr_un sa;
	char p[200];

	memset(p, 'a', sizeof(p));
	p[sizeof(sa.sun_path) - 1] = '\0';          /* 107 chars: fits */
	ck_assert_int_gt(hs_sockaddr(p, &sa), 0);
	ck_assert_str_eq(sa.sun_path, p);
	p[sizeof(sa.sun_path) - 1] = 'a';
	p[sizeof(sa.sun_path)] = '\0';              /* 108 chars: refused */
	ck_assert_int_eq(hs_sockaddr(p, &sa), -ENAMETOOLONG);
	ck_assert_int_eq(hs_sockaddr("", &sa), -EINVAL);
}
END_TEST

static void jvm_like(struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->pid = 4242;
	t->maps.kind = PROC_HOTSPOT;
	t->st.has_sigcgt = true;
	t->st.sigcgt = 1u << (SIGQUIT - 1);
}

START_TEST(may_signal_rules)
{
	struct target t;
	struct err_text why;

	jvm_like(&t);
	ck_assert(hotspot_may_signal(&t, &why));
	t.opts.xrs = true;
	ck_assert(!hotspot_may_signal(&t, &why));
	ck_assert_ptr_nonnull(strstr(why.msg, "-Xrs"));
	jvm_like(&t);
	t.opts.disable_attach = true;
	ck_assert(!hotspot_may_signal(&t, &why));
	ck_assert_ptr_nonnull(strstr(why.msg, "DisableAttachMechanism"));
	jvm_like(&t);
	t.st.sigcgt = 0;
	ck_assert(!hotspot_may_signal(&t, &why));
	jvm_like(&t);
	t.maps.kind = PROC_OPENJ9;
	ck_assert(!hotspot_may_signal(&t, &why));
	jvm_like(&t);
	t.maps.kind = PROC_NOT_JVM;
	ck_assert(!hotspot_may_signal(&t, &why));
	jvm_like(&t);
	t.maps_err = -EACCES;
	ck_assert(!hotspot_may_signal(&t, &why));
}
END_TEST

/*
 * A fake JVM listener: binds /tmp/.java_pid<owner>, then for each of n
 * connections reads one v1/v2 request (until 5 NULs or EOF), copies it to
 * the shared buffer and answers `reply`.  Ready when it writes to `ready`.
 * n < 0 with an empty reply: the process exits after reading the request
 * (a JVM killed mid-attach); otherwise it stays alive until fake_stop.
 */
static const char *serve_dir = "/tmp"; /* where the fake binds */

struct shared {
	pid_t server;           /* the listening process */
	int drip_ms;            /* > 0: after the reply, one more byte every
	                           drip_ms for 10 s (a hostile JVM) */
	size_t flood;           /* > 0: after the reply, that many more bytes
	                           as fast as the client takes them */
	size_t req_len;
	char req[4096];
};

static void serve(pid_t owner, const char *reply, size_t rlen, int n,
		  int ready, struct shared *sh)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	sh->server = getpid();
	signal(SIGPIPE, SIG_IGN);       /* a client that hangs up ends a drip */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/.java_pid%d", serve_dir,
		 (int)owner);
	unlink(sa.sun_path);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 5))
		_exit(1);
	if (write(ready, "r", 1) != 1)
		_exit(1);
	for (int i = 0; i < (n < 0 ? -n : n); i++) {
		int c = accept(s, NULL, NULL), nuls = 0;
		ssize_t k;

		sh->req_len = 0;
		while (nuls < 5 && sh->req_len < sizeof(sh->req) &&
		       (k = read(c, sh->req + sh->req_len, 1)) == 1)
			nuls += sh->req[sh->req_len++] == '\0';
		if (rlen && write(c, reply, rlen) != (ssize_t)rlen)
			_exit(1);
		for (size_t sent = 0, part; sent < sh->flood; sent += part) {
			static const char chunk[65536];

			part = sh->flood - sent < sizeof(chunk) ? sh->flood - sent : sizeof(chunk);
			if (write(c, chunk, part) != (ssize_t)part)
				break;
		}
		for (int t = 0; sh->drip_ms > 0 && t < 10000; t += sh->drip_ms) {
			if (write(c, "x", 1) != 1)
				break;
			usleep((useconds_t)sh->drip_ms * 1000);
		}
		if (!rlen && n < 0)
			_exit(0);       /* a JVM that dies mid-request */
		close(c);
	}
	unlink(sa.sun_path);
	pause();                        /* stay alive like a JVM until fake_stop */
	_exit(0);
}

struct fake {
	pid_t pid;              /* the "JVM" (target) */
	struct shared *sh;
};

static void fake_start(struct fake *f, const char *reply, size_t rlen, int n,
		       bool impostor)
{
	int p[2];
	char c;

	f->sh = mmap(NULL, sizeof(*f->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(f->sh, MAP_FAILED);
	ck_assert_int_eq(pipe(p), 0);
	f->pid = fork();
	ck_assert_int_ge(f->pid, 0);
	if (f->pid == 0) {
		pid_t me = getpid();

		if (impostor && fork() == 0)
			serve(me, reply, rlen, n, p[1], f->sh);
		if (impostor)
			pause();
		serve(me, reply, rlen, n, p[1], f->sh);
	}
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	close(p[1]);
}

static void fake_stop(struct fake *f)
{
	char path[64];

	if (f->sh->server && f->sh->server != f->pid)
		kill(f->sh->server, SIGKILL);   /* the impostor (not our child) */
	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
	snprintf(path, sizeof(path), "%s/.java_pid%d", serve_dir, (int)f->pid);
	unlink(path);
}

/* run() on a target that says -XX:AltTempDir=alt and is JDK `major`. */
static int run_alt(struct fake *f, const char *alt, int major, const char *name,
		   struct attach_reply *r, struct err_text *e)
{
	struct hs_request rq = { name, NULL, 0, 0 };
	struct hs_opts o = { 2000, 2000, -1, -1, NULL, NULL, -1 };
	struct target t;
	int rc;

	ck_assert_int_eq(target_open(f->pid, TARGET_FDS, &t, e), 0);
	snprintf(t.opts.alt_tmpdir, sizeof(t.opts.alt_tmpdir), "%s", alt);
	t.jdk_major = major;
	rc = hotspot_exec(&t, &rq, &o, r, e);
	target_close(&t);
	return rc;
}

static int run_with(struct fake *f, const char *name, const char *const *args,
		    int nargs, const struct hs_opts *o, struct attach_reply *r,
		    struct err_text *e)
{
	struct hs_request rq = { name, args, nargs, 0 };
	struct target t;
	int rc;

	ck_assert_int_eq(target_open(f->pid, TARGET_FDS, &t, e), 0);
	rc = hotspot_exec(&t, &rq, o, r, e);
	target_close(&t);
	return rc;
}

static int run(struct fake *f, const char *name, const char *const *args,
	       int nargs, int out_fd, struct attach_reply *r, struct err_text *e)
{
	struct hs_opts o = { 2000, 2000, out_fd, -1, NULL, NULL, -1 };

	return run_with(f, name, args, nargs, &o, r, e);
}

START_TEST(properties_round_trip)
{
	static const char reply[] = "0\njava.version=17\n";
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;
	char out[64];
	int mfd = memfd_create("out", 0);
	ssize_t n;

	fake_start(&f, reply, sizeof(reply) - 1, 1, false);
	ck_assert_int_eq(run(&f, "properties", NULL, 0, mfd, &r, &e), 0);
	ck_assert_int_eq(r.vm_code, 0);
	ck_assert(!r.failed);
	ck_assert_uint_eq(f.sh->req_len, 16);
	ck_assert_mem_eq(f.sh->req, "1\0properties\0\0\0", 16);
	n = pread(mfd, out, sizeof(out), 0);
	ck_assert_int_eq(n, 16);
	ck_assert_mem_eq(out, "java.version=17\n", 16);
	fake_stop(&f);
}
END_TEST

/*
 * JDK 28's -XX:AltTempDir: the socket is looked for in that directory.  A
 * missing one is an error that names it (JDK 28 keeps an absolute
 * AltTempDir even then, so there is no socket to wait for); a relative one
 * or a JDK 17 given the flag keep /tmp.  Version 0 (unknown) is taken at
 * its word and keeps the request at v1 (a 24+ would first ask getversion,
 * which this fake does not speak).
 */
static char alt[] = "/tmp/jsym-check-alt.XXXXXX";

/* Unchecked fixture (run by the runner itself, outside the forked test):
 * the AltTempDir, made before and removed after the test whatever it did,
 * a socket a failed test left there included. */
static void alt_setup(void)
{
	memcpy(alt + sizeof(alt) - 7, "XXXXXX", 6);
	ck_assert_ptr_nonnull(mkdtemp(alt));
}

static void alt_teardown(void)
{
	DIR *d = opendir(alt);
	struct dirent *de;

	serve_dir = "/tmp";
	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' || strncmp(de->d_name, ".java_pid", 9) == 0)
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(alt);
}

START_TEST(alt_temp_dir_followed)
{
	static const char reply[] = "0\n";
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;

	serve_dir = alt;
	fake_start(&f, reply, sizeof(reply) - 1, 1, false);
	ck_assert_int_eq(run_alt(&f, alt, 0, "properties", &r, &e), 0);
	ck_assert_int_eq(r.vm_code, 0);
	ck_assert_mem_eq(f.sh->req, "1\0properties\0\0\0", 16);
	ck_assert_int_eq(run_alt(&f, "/nonexistent-jsym-alt", 0, "properties",
				 &r, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "temp dir is /nonexistent-jsym-alt "
				     "(-XX:AltTempDir)"));
	fake_stop(&f);
	serve_dir = "/tmp";
	fake_start(&f, reply, sizeof(reply) - 1, 2, false);
	ck_assert_int_eq(run_alt(&f, "relative", 0, "properties", &r, &e), 0);
	ck_assert_int_eq(run_alt(&f, alt, 17, "properties", &r, &e), 0);
	ck_assert_int_eq(r.vm_code, 0);
	fake_stop(&f);
}
END_TEST

START_TEST(load_agent_code)
{
	static const char reply[] = "0\nreturn code: 7\n";
	const char *args[] = { "/x.so", "true", "opt" };
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;

	fake_start(&f, reply, sizeof(reply) - 1, 1, false);
	ck_assert_int_eq(run(&f, "load", args, 3, -1, &r, &e), 0);
	ck_assert(r.agent_code_known && !r.failed);
	ck_assert_int_eq(r.agent_code, 7);
	ck_assert_mem_eq(f.sh->req, "1\0load\0/x.so\0true\0opt\0", 23);
	fake_stop(&f);
}
END_TEST

START_TEST(silent_close_is_an_error)
{
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;

	fake_start(&f, "", 0, 1, false);
	ck_assert_int_eq(run(&f, "properties", NULL, 0, -1, &r, &e), -ECONNRESET);
	ck_assert_ptr_nonnull(strstr(e.msg, "without a reply"));
	fake_stop(&f);
}
END_TEST

START_TEST(jvm_dying_mid_attach_is_named)
{
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;

	fake_start(&f, "", 0, -1, false);
	ck_assert_int_eq(run(&f, "properties", NULL, 0, -1, &r, &e), -ESRCH);
	ck_assert_ptr_nonnull(strstr(e.msg, "exited during the attach"));
	fake_stop(&f);
}
END_TEST

START_TEST(impostor_listener_refused)
{
	static const char reply[] = "0\nevil=1\n";
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;

	fake_start(&f, reply, sizeof(reply) - 1, 1, true);
	ck_assert_int_eq(run(&f, "properties", NULL, 0, -1, &r, &e), -EPERM);
	ck_assert_ptr_nonnull(strstr(e.msg, "not by the JVM"));
	ck_assert_uint_eq(f.sh->req_len, 0);        /* nothing was sent */
	fake_stop(&f);
}
END_TEST

START_TEST(v1_limit_checked_before_sending)
{
	char big[1500];
	const char *args[] = { big };
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;

	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	/* pre-24 (getversion answers -1): a clear error naming the limit */
	fake_start(&f, "-1\nOperation getversion not recognized!", 39, 1, false);
	ck_assert_int_eq(run(&f, "jcmd", args, 1, -1, &r, &e), -EMSGSIZE);
	ck_assert_ptr_nonnull(strstr(e.msg, "1024"));
	ck_assert_mem_eq(f.sh->req, "1\0getversion\0options\0", 21);
	fake_stop(&f);
}
END_TEST

START_TEST(non_jvm_never_signalled)
{
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f = { 0 };
	int status;

	/* a process with default SIGQUIT disposition: a signal would kill it */
	f.pid = fork();
	ck_assert_int_ge(f.pid, 0);
	if (f.pid == 0) {
		signal(SIGQUIT, SIG_DFL);
		pause();
		_exit(0);
	}
	usleep(20000);
	ck_assert_int_eq(run(&f, "properties", NULL, 0, -1, &r, &e), -EPERM);
	ck_assert_ptr_nonnull(strstr(e.msg, "not a JVM"));
	ck_assert_int_eq(waitpid(f.pid, &status, WNOHANG), 0);   /* alive */
	kill(f.pid, SIGKILL);
	waitpid(f.pid, NULL, 0);
}
END_TEST

/* Issue 17 row 2: "0\n", then a byte every 200 ms.  Each byte used to
 * restart the read timer, so jsym read for as long as the JVM liked (here
 * 10 s, in the wild forever); the whole reply now has --read-timeout. */
START_TEST(dripping_reply_has_a_deadline)
{
	struct hs_opts o = { 1000, 1500, -1, -1, NULL, NULL, -1 };
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;
	long start;
	int rc;

	fake_start(&f, "0\n", 2, 1, false);
	f.sh->drip_ms = 200;
	start = clock_ms();
	rc = run_with(&f, "properties", NULL, 0, &o, &r, &e);
	ck_assert_msg(rc == -ETIMEDOUT, "got %d: %s", rc, e.msg);
	ck_assert_int_lt(clock_ms() - start, 3000);
	ck_assert_ptr_nonnull(strstr(e.msg, "not complete within 1500 ms"));
	fake_stop(&f);
}
END_TEST

/* Issue 17 row 2: a JVM that answers without end is cut off at
 * HS_REPLY_MAX, however fast it sends; the output so far stays written. */
START_TEST(endless_reply_is_capped)
{
	int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct hs_opts o = { 2000, 60000, out, -1, NULL, NULL, -1 };
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;
	int rc;

	ck_assert_int_ge(out, 0);
	fake_start(&f, "0\n", 2, 1, false);
	f.sh->flood = (size_t)HS_REPLY_MAX + (16u << 20);
	rc = run_with(&f, "threaddump", NULL, 0, &o, &r, &e);
	ck_assert_msg(rc == -EMSGSIZE, "got %d: %s", rc, e.msg);
	ck_assert_ptr_nonnull(strstr(e.msg, "passed 256 MiB"));
	close(out);
	fake_stop(&f);
}
END_TEST

/* Issue 17 row 7: the text of a refused command goes to stderr escaped,
 * C0 and C1 controls alike, its lines kept. */
START_TEST(refusal_text_escaped)
{
	static const char reply[] = "1\n\033]0;pwn\007\033[2J\302\233X\nline 2\n";
	int efd = memfd_create("err", 0);
	struct hs_opts o = { 2000, 2000, -1, efd, NULL, NULL, -1 };
	struct attach_reply r;
	struct err_text e = { "" };
	struct fake f;
	char out[256];
	ssize_t n;

	fake_start(&f, reply, sizeof(reply) - 1, 1, false);
	ck_assert_int_eq(run_with(&f, "jcmd", (const char *[]){ "VM.version" }, 1, &o, &r,
				  &e), 0);
	ck_assert(r.failed);
	n = pread(efd, out, sizeof(out) - 1, 0);
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	ck_assert_str_eq(out, "\\x1b]0;pwn\\x07\\x1b[2J\\xc2\\x9bX\nline 2\n");
	close(efd);
	fake_stop(&f);
}
END_TEST

/* Everything the pty's master has to read now, into out (cap). */
static size_t drain(int master, char *out, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = read(master, out + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	return n;
}

/* Issue 24 row 8: a command that succeeds with an OSC title sequence and a
 * bidi override in its output.  On a terminal the output is escaped like
 * a refusal's (the newline kept, an é cut by jsym's own 1024-byte chunks
 * kept whole); to a pipe or a file it stays byte for byte the JVM's. */
/* Whether a pseudo-terminal can be had here (05-first-run's fresh
 * container has no /dev/ptmx). */
static bool have_pty(void)
{
	int fd = posix_openpt(O_RDWR | O_NOCTTY), slave = -1;
	bool ok = fd >= 0 && grantpt(fd) == 0 && unlockpt(fd) == 0 &&
		  (slave = open(ptsname(fd), O_RDWR | O_NOCTTY | O_CLOEXEC)) >= 0;

	if (slave >= 0)
		close(slave);
	if (fd >= 0)
		close(fd);
	return ok;
}

START_TEST(success_output_escaped_on_a_terminal_only)
{
	static char reply[2048], want[2048], out[4096];
	static const char evil[] = "\033]0;pwn\007 \xe2\x80\xae" "cba\n";
	struct attach_reply r;
	struct err_text e = { "" };
	struct termios tio;
	struct fake f;
	size_t n, body;
	int master, slave, mfd;

	/* "0\n", 1022 a's and an é that crosses byte 1024 of the body */
	n = (size_t)snprintf(reply, sizeof(reply), "0\n%s", evil);
	memset(reply + n, 'a', 1024 - (sizeof(evil) - 1) - 1);
	n += 1024 - (sizeof(evil) - 1) - 1;
	n += (size_t)snprintf(reply + n, sizeof(reply) - n, "\xc3\xa9\n");
	body = n - 2;
	snprintf(want, sizeof(want), "\\x1b]0;pwn\\x07 \\xe2\\x80\\xae" "cba\n%.*s\xc3\xa9\n",
		 (int)(1024 - (sizeof(evil) - 1) - 1), reply + 2 + sizeof(evil) - 1);

	master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(slave, 0);
	ck_assert_int_eq(tcgetattr(slave, &tio), 0);
	cfmakeraw(&tio);                /* bytes as written: no \n -> \r\n */
	ck_assert_int_eq(tcsetattr(slave, TCSANOW, &tio), 0);

	fake_start(&f, reply, n, 1, false);
	ck_assert_int_eq(run(&f, "properties", NULL, 0, slave, &r, &e), 0);
	fake_stop(&f);
	ck_assert(!r.failed);
	drain(master, out, sizeof(out));
	ck_assert_str_eq(out, want);
	close(slave);
	close(master);

	mfd = memfd_create("out", 0);
	fake_start(&f, reply, n, 1, false);
	ck_assert_int_eq(run(&f, "properties", NULL, 0, mfd, &r, &e), 0);
	fake_stop(&f);
	ck_assert_int_eq((int)pread(mfd, out, sizeof(out), 0), (int)body);
	ck_assert(!memcmp(out, reply + 2, body));
	close(mfd);
}
END_TEST

Suite *hotspot_suite(void)
{
	Suite *s = suite_create("hotspot");
	TCase *tc = tcase_create("client");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, sockaddr_length_checked);
	tcase_add_test(tc, may_signal_rules);
	tcase_add_test(tc, properties_round_trip);
	tcase_add_test(tc, load_agent_code);
	tcase_add_test(tc, silent_close_is_an_error);
	tcase_add_test(tc, jvm_dying_mid_attach_is_named);
	tcase_add_test(tc, impostor_listener_refused);
	tcase_add_test(tc, v1_limit_checked_before_sending);
	tcase_add_test(tc, non_jvm_never_signalled);
	tcase_add_test(tc, dripping_reply_has_a_deadline);
	tcase_add_test(tc, endless_reply_is_capped);
	tcase_add_test(tc, refusal_text_escaped);
	check_add_if(tc, have_pty(), "hotspot", success_output_escaped_on_a_terminal_only,
		     "no pseudo-terminal here (a container without /dev/ptmx or /dev/pts)");
	suite_add_tcase(s, tc);
	tc = tcase_create("alt_temp_dir");
	tcase_set_timeout(tc, 20);
	tcase_add_unchecked_fixture(tc, alt_setup, alt_teardown);
	tcase_add_test(tc, alt_temp_dir_followed);
	suite_add_tcase(s, tc);
	return s;
}

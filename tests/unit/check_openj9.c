/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_openj9.c - unit tests of the OpenJ9 attach client's pure parts:
 * properties parser, command translation, reply mapping, replyInfo and
 * ATTACH_CONNECTED formats, framing, the rooted VM lookup on a scratch
 * directory tree, and nodes planted at the files it opens there.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "check_planted.h"
#include "check_tmp.h"
#include "openj9.h"
#include "openj9_int.h"

extern Suite *openj9_suite(void); /* listed in the runner by tests/tests.mk */

#define PARSE(p, lit) ck_assert_int_eq(openj9_props_parse((p), (lit), sizeof(lit) - 1), 0)

START_TEST(props_basic)
{
	struct openj9_props p;

	PARSE(&p, "#comment\n! also\n\nversion=0.1\nuserId : joe\nvmId 4711\n  displayName=a b\n");
	ck_assert_str_eq(openj9_props_get(&p, "version"), "0.1");
	ck_assert_str_eq(openj9_props_get(&p, "userId"), "joe");
	ck_assert_str_eq(openj9_props_get(&p, "vmId"), "4711");
	ck_assert_str_eq(openj9_props_get(&p, "displayName"), "a b");
	ck_assert_ptr_null(openj9_props_get(&p, "comment"));
	ck_assert_uint_eq(p.n, 4);
	openj9_props_free(&p);
}
END_TEST

START_TEST(props_escapes)
{
	struct openj9_props p;

	PARSE(&p, "a\\ key=\\ lead\\ttab\\nnl\nc\\:d=e\\=f\\\\g\nu=\\u00e9\\u20AC\nz=\\u0000x\n"
		  "bad=\\u12G4\n");
	ck_assert_str_eq(openj9_props_get(&p, "a key"), " lead\ttab\nnl");
	ck_assert_str_eq(openj9_props_get(&p, "c:d"), "e=f\\g");
	ck_assert_str_eq(openj9_props_get(&p, "u"), "\xc3\xa9\xe2\x82\xac");
	ck_assert_str_eq(openj9_props_get(&p, "z"), "?x"); /* no early NUL */
	ck_assert_str_eq(openj9_props_get(&p, "bad"), "u12G4");
	openj9_props_free(&p);
}
END_TEST

START_TEST(props_lines)
{
	struct openj9_props p;
	static const char in[] = "k1=one\\\n    two\r\nk2=x\\\\\nk3=\xe9\rk4=\\\nk5=v\0w\nk1=again";

	ck_assert_int_eq(openj9_props_parse(&p, in, sizeof(in) - 1), 0);
	ck_assert_str_eq(openj9_props_get(&p, "k1"), "again"); /* later wins */
	ck_assert_str_eq(openj9_props_get(&p, "k2"), "x\\");
	ck_assert_str_eq(openj9_props_get(&p, "k3"), "\xc3\xa9"); /* ISO-8859-1 */
	/* a continuation swallows the next line, NUL and all */
	ck_assert_str_eq(openj9_props_get(&p, "k4"), "k5=v?w");
	ck_assert_ptr_null(openj9_props_get(&p, "k5"));
	openj9_props_free(&p);
	PARSE(&p, "k=one\\\n    two");
	ck_assert_str_eq(openj9_props_get(&p, "k"), "onetwo");
	openj9_props_free(&p);
	PARSE(&p, "trailing\\");
	ck_assert_str_eq(openj9_props_get(&p, "trailing"), "");
	openj9_props_free(&p);
}
END_TEST

START_TEST(props_bounded)
{
	struct openj9_props p;
	char *buf = malloc(20 * 1000);
	size_t len = 0;
	int i;

	for (i = 0; i < 1000; i++)
		len += (size_t)sprintf(buf + len, "key%d=v\n", i);
	ck_assert_int_eq(openj9_props_parse(&p, buf, len), 0);
	ck_assert_uint_eq(p.n, OPENJ9_PROPS_MAX);
	openj9_props_free(&p);
	free(buf);
}
END_TEST

static int tr(const char *const *argv, int argc, char *out, bool *load, bool *diag)
{
	struct err_text err;

	return openj9_translate(argc, argv, out, 4096, load, diag, &err);
}

START_TEST(translate_commands)
{
	char out[4096];
	bool load, diag;
	const char *a1[] = { "load", "/opt/a/libx.so", "true", "dir=/tmp,unfold" };
	const char *a2[] = { "load", "instrument", "false", "/x.jar=opt" };
	const char *a3[] = { "load", "/opt/libx.so" };
	const char *a4[] = { "properties" };
	const char *a5[] = { "agentProperties" };
	const char *a6[] = { "threaddump" };
	const char *a7[] = { "jcmd", "GC.heap_dump  /tmp/h.phd", "extra" };
	const char *a8[] = { "dumpheap", "/tmp/h" };
	const char *a9[] = { "inspectheap" };

	ck_assert_int_eq(tr(a1, 4, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_LOADAGENTPATH(/opt/a/libx.so,dir=/tmp,unfold)");
	ck_assert(load && !diag);
	ck_assert_int_eq(tr(a2, 4, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_LOADAGENT(instrument,/x.jar=opt)");
	ck_assert_int_eq(tr(a3, 2, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_LOADAGENTPATH(/opt/libx.so)");
	ck_assert_int_eq(tr(a4, 1, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_GETSYSTEMPROPERTIES");
	ck_assert(!load && !diag);
	ck_assert_int_eq(tr(a5, 1, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_GETAGENTPROPERTIES");
	ck_assert_int_eq(tr(a6, 1, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_DIAGNOSTICS:Thread.print");
	ck_assert(diag);
	ck_assert_int_eq(tr(a7, 3, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_DIAGNOSTICS:GC.heap_dump,/tmp/h.phd,extra");
	ck_assert_int_eq(tr(a8, 2, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_DIAGNOSTICS:Dump.heap,/tmp/h");
	ck_assert_int_eq(tr(a9, 1, out, &load, &diag), 0);
	ck_assert_str_eq(out, "ATTACH_DIAGNOSTICS:GC.class_histogram");
}
END_TEST

START_TEST(translate_refusals)
{
	char out[4096], small[16];
	struct err_text err;
	bool load, diag;
	const char *comma[] = { "load", "/opt/a,b/libx.so", "true", "" };
	const char *nolib[] = { "load" };
	const char *nojcmd[] = { "jcmd", "  " };
	const char *pf[] = { "printflag", "X" };
	const char *sf[] = { "setflag", "X", "1" };
	const char *unk[] = { "frobnicate" };
	const char *big[] = { "properties" };

	ck_assert_int_eq(openj9_translate(4, comma, out, sizeof(out), &load, &diag, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "','"));
	ck_assert_int_eq(tr(nolib, 1, out, &load, &diag), -EINVAL);
	ck_assert_int_eq(tr(nojcmd, 2, out, &load, &diag), -EINVAL);
	ck_assert_int_eq(openj9_translate(2, pf, out, sizeof(out), &load, &diag, &err), -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(err.msg, "not supported by OpenJ9"));
	ck_assert_int_eq(tr(sf, 3, out, &load, &diag), -EOPNOTSUPP);
	ck_assert_int_eq(tr(unk, 1, out, &load, &diag), -EOPNOTSUPP);
	ck_assert_int_eq(openj9_translate(1, big, small, sizeof(small), &load, &diag, &err), -ENAMETOOLONG);
}
END_TEST

static void map(const char *msg, bool load, bool diag, struct attach_reply *r, char **text)
{
	size_t tl;

	ck_assert_int_eq(openj9_map_reply(msg, strlen(msg), load, diag, r, text, &tl), 0);
}

START_TEST(map_load_replies)
{
	struct attach_reply r;
	char *t;

	map("ATTACH_ACK", true, false, &r, &t);
	ck_assert(r.vm_code == 0 && r.agent_code_known && r.agent_code == 0 && !r.failed);
	map("ATTACH_ERR AgentInitializationException7", true, false, &r, &t);
	ck_assert(r.vm_code == -1 && r.agent_code_known && r.agent_code == 7 && !r.failed);
	map("ATTACH_ERR AgentInitializationException-3", true, false, &r, &t);
	ck_assert(r.agent_code_known && r.agent_code == -3);
	map("ATTACH_ERR AgentInitializationException7x", true, false, &r, &t);
	ck_assert(!r.agent_code_known && r.failed);
	map("ATTACH_ERR AgentLoadException /x.so:opts", true, false, &r, &t);
	ck_assert(r.vm_code == -1 && r.failed && !r.agent_code_known);
	ck_assert_str_eq(r.message, "AgentLoadException /x.so:opts");
	map("ATTACH_ERR syntax error", true, false, &r, &t);
	ck_assert(r.failed);
	map("what\001ever", true, false, &r, &t);
	ck_assert(r.failed);
	ck_assert_str_eq(r.message, "what?ever");
	ck_assert_ptr_null(t);
}
END_TEST

START_TEST(map_other_replies)
{
	struct attach_reply r;
	char *t;

	map("#date\njava.vm.name=Eclipse OpenJ9 VM\n", false, false, &r, &t);
	ck_assert(!r.failed && r.vm_code == 0);
	ck_assert_str_eq(t, "#date\njava.vm.name=Eclipse OpenJ9 VM\n");
	free(t);
	map("ATTACH_ERR command invalid: X", false, false, &r, &t);
	ck_assert(r.failed);
	ck_assert_str_eq(t, "command invalid: X\n");
	free(t);
	map("#d\nopenj9_diagnostics.error=false\nopenj9_diagnostics.string_result=\"main\"\\n\\tat X\n",
	    false, true, &r, &t);
	ck_assert(!r.failed);
	ck_assert_str_eq(t, "\"main\"\n\tat X");
	free(t);
	map("openj9_diagnostics.error=true\nopenj9_diagnostics.errortype=java.lang.Foo\n"
	    "openj9_diagnostics.errormsg=Command x not recognized\n", false, true, &r, &t);
	ck_assert(r.failed && r.vm_code == -1);
	ck_assert_str_eq(r.message, "java.lang.Foo: Command x not recognized");
	ck_assert_str_eq(t, "java.lang.Foo: Command x not recognized\n");
	free(t);
	map("ATTACH_ERR command invalid: ATTACH_DIAGNOSTICS:x", false, true, &r, &t);
	ck_assert(r.failed);
	free(t);
	map("garbage", false, true, &r, &t);
	ck_assert(r.failed);
	ck_assert_str_eq(t, "garbage\n");
	free(t);
}
END_TEST

START_TEST(wire_formats)
{
	char b[64];

	ck_assert_int_eq(openj9_reply_info(b, sizeof(b), 0x0123456789abcdefULL, 41235), 23);
	ck_assert_str_eq(b, "0123456789abcdef\n41235\n");
	ck_assert_int_eq(openj9_reply_info(b, sizeof(b), 0x1ULL, 7), 19);
	ck_assert_str_eq(b, "0000000000000001\n7\n");
	ck_assert_int_eq(openj9_reply_info(b, 8, 1, 1), -ENOSPC);
#define CC(s) openj9_check_connected(s, sizeof(s) - 1, "0123456789abcdef")
	ck_assert(CC("ATTACH_CONNECTED 0123456789abcdef "));
	ck_assert(!CC("ATTACH_CONNECTED 0123456789abcdef"));
	ck_assert(!CC("ATTACH_CONNECTED 0123456789abcdee "));
	ck_assert(!CC("ATTACH_CONNECTED 0123456789abcdef0 "));
	ck_assert(!CC("ATTACH_CONNECTE 0123456789abcdef "));
	ck_assert(!CC(""));
#undef CC
	ck_assert_int_eq(openj9_frame_done("abc", 3, 3, 100), 0);
	ck_assert_int_eq(openj9_frame_done("abc", 4, 4, 100), 1);
	ck_assert_int_eq(openj9_frame_done("a\0b", 3, 3, 100), 0); /* no scan */
	ck_assert_int_eq(openj9_frame_done("abc", 4, 101, 100), -EMSGSIZE);
}
END_TEST

/* A scratch "target root" with a common dir and a few VM dirs. */
static char root[64];

static void put_file(const char *rel, const char *text, mode_t mode)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void mk(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

START_TEST(find_vm_in_root)
{
	struct openj9_target t = { .uid = 0 };
	char vmid[64], link[256];
	struct err_text err;

	tmp_dir(root, sizeof(root), "openj9");
	mk("tmp");
	mk("tmp/.com_ibm_tools_attach");
	mk("tmp/.com_ibm_tools_attach/4711");
	mk("tmp/.com_ibm_tools_attach/myvm");
	mk("tmp/.com_ibm_tools_attach/99");
	put_file("tmp/.com_ibm_tools_attach/4711/attachInfo", "processId=4711\n", 0600);
	put_file("tmp/.com_ibm_tools_attach/myvm/attachInfo", "#x\nprocessId=1\nvmId=myvm\n", 0600);
	put_file("tmp/.com_ibm_tools_attach/99/attachInfo", "processId=1\\u00002\n", 0600);
	mk("alt");
	mk("alt/.com_ibm_tools_attach");
	mk("alt/.com_ibm_tools_attach/5");
	put_file("alt/.com_ibm_tools_attach/5/attachInfo", "processId = 5\n", 0600);
	snprintf(link, sizeof(link), "%s/escape", root);
	ck_assert_int_eq(symlink("/etc", link), 0);
	t.root_fd = open(root, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(t.root_fd, 0);

	t.nspid = 4711;
	ck_assert_int_eq(openj9_find_vm(&t, vmid, sizeof(vmid), &err), 0);
	ck_assert_str_eq(vmid, "4711");
	t.nspid = 1; /* non-numeric vmId; "1\u00002" must not match */
	ck_assert_int_eq(openj9_find_vm(&t, vmid, sizeof(vmid), &err), 0);
	ck_assert_str_eq(vmid, "myvm");
	t.nspid = 5;
	ck_assert_int_eq(openj9_find_vm(&t, vmid, sizeof(vmid), &err), -ENOENT);
	t.tmpdir = "/alt"; /* the target's TMPDIR */
	ck_assert_int_eq(openj9_find_vm(&t, vmid, sizeof(vmid), &err), 0);
	ck_assert_str_eq(vmid, "5");
	t.tmpdir = "/missing"; /* not existing: back to /tmp */
	ck_assert_int_eq(openj9_find_vm(&t, vmid, sizeof(vmid), &err), -ENOENT);
	t.tmpdir = NULL;
	t.attach_dir = "/alt/.com_ibm_tools_attach";
	ck_assert_int_eq(openj9_find_vm(&t, vmid, sizeof(vmid), &err), 0);
	t.attach_dir = "relative/dir";
	ck_assert_int_eq(openj9_find_vm(&t, vmid, sizeof(vmid), &err), -EINVAL);
	/* a symlink to "/etc" stays inside the root: no /etc/passwd there */
	ck_assert_int_lt(confine_open(-1, t.root_fd, "/escape/passwd", O_RDONLY, 0, NULL), 0);
	close(t.root_fd);
}
END_TEST

/*
 * A short write of replyInfo (here: a 4-byte file size limit) sets no errno:
 * the error must not name whatever errno an earlier call left (the missing
 * _attachlock's ENOENT).
 */
START_TEST(replyinfo_short_write_names_no_stale_errno)
{
	struct openj9_target t = { .uid = getuid(), .gid = getgid(), .nspid = 4711,
				   .timeout_ms = 2000, .read_timeout_ms = 2000 };
	const char *argv[] = { "properties" };
	struct rlimit old, tiny = { 4, RLIM_INFINITY };
	struct attach_reply rep;
	struct err_text err = { "" };
	int rc;

	tmp_dir(root, sizeof(root), "openj9");
	mk("tmp");
	mk("tmp/.com_ibm_tools_attach");
	mk("tmp/.com_ibm_tools_attach/4711");
	put_file("tmp/.com_ibm_tools_attach/4711/attachInfo", "processId=4711\n", 0600);
	t.root_fd = open(root, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(t.root_fd, 0);
	memset(&rep, 0, sizeof(rep));

	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	tiny.rlim_max = old.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &tiny), 0);
	rc = openj9_exec(&t, 1, argv, -1, &rep, &err);
	setrlimit(RLIMIT_FSIZE, &old);  /* before Check writes anything */

	ck_assert_msg(rc == -EIO, "rc %d: %s", rc, err.msg);
	ck_assert_ptr_nonnull(strstr(err.msg, "replyInfo"));
	ck_assert_ptr_null(strstr(err.msg, strerror(ENOENT)));
	close(t.root_fd);
}
END_TEST

/* root/rel as a planted node and its open watch (check_planted.h). */
static int plant_watched(const char *rel, bool device)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert(planted_node(p, device));
	return planted_watch(p);
}

/*
 * Issue 17 row 1, OpenJ9 side: a container plants a node at each file the
 * client opens in its common dir: attachInfo (read to find the VM),
 * _attachlock (locked), attachNotificationSync (locked).  None is opened:
 * a VM whose attachInfo is not a file is not found; with a real
 * attachInfo, the lock is skipped with a step line and the sync file is
 * refused with an error that names it.  As root the nodes are devices,
 * else FIFOs.
 */
START_TEST(planted_nodes_not_opened)
{
	static const char *const files[] = {
		"tmp/.com_ibm_tools_attach/4711/attachInfo",
		"tmp/.com_ibm_tools_attach/_attachlock",
		"tmp/.com_ibm_tools_attach/4711/attachNotificationSync",
	};
	struct openj9_target t = { .uid = getuid(), .gid = getgid(), .nspid = 4711,
				   .timeout_ms = 500 };
	const char *argv[] = { "properties" };
	bool device = geteuid() == 0;
	struct attach_reply rep;
	struct err_text err = { "" };
	char path[256];
	int ifd[3], rc;

	tmp_dir(root, sizeof(root), "openj9");
	mk("tmp");
	mk("tmp/.com_ibm_tools_attach");
	mk("tmp/.com_ibm_tools_attach/4711");
	for (int i = 0; i < 3; i++)
		ifd[i] = plant_watched(files[i], device);
	t.root_fd = open(root, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(t.root_fd, 0);
	memset(&rep, 0, sizeof(rep));
	rc = openj9_exec(&t, 1, argv, -1, &rep, &err);
	ck_assert_msg(rc == -ENOENT, "rc %d: %s", rc, err.msg);
	ck_assert_msg(!planted_opened(ifd[0]), "the planted %s attachInfo was opened",
		      device ? "device" : "FIFO");
	snprintf(path, sizeof(path), "%s/%s", root, files[0]);
	ck_assert_int_eq(unlink(path), 0);
	put_file(files[0], "processId=4711\n", 0600);
	rc = openj9_exec(&t, 1, argv, -1, &rep, &err);
	ck_assert_msg(rc < 0 && strstr(err.msg, "attachNotificationSync"), "rc %d: %s", rc,
		      err.msg);
	for (int i = 1; i < 3; i++)
		ck_assert_msg(!planted_opened(ifd[i]), "the planted %s %s was opened",
			      device ? "device" : "FIFO", files[i]);
	close(t.root_fd);
}
END_TEST

START_TEST(notifier_key_is_ftok)
{
	char dir[64], path[96];
	key_t key = 0;
	int fd, d;

	tmp_dir(dir, sizeof(dir), "ftok");
	snprintf(path, sizeof(path), "%s/_notifier", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0666);
	ck_assert_int_ge(fd, 0);
	close(fd);
	d = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(openj9_notifier_key(-1, d, &key), 0);
	ck_assert_int_eq(key, ftok(path, 0xa1));
	close(d);
}
END_TEST

/* A peer that sends one byte (never the closing NUL) every 100 ms for 4 s,
 * on sv[1]; the caller reads sv[0].  Returns the writer's pid. */
static pid_t drip_peer(int sv[2])
{
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		for (int i = 0; i < 40 && write(sv[1], "x", 1) == 1; i++)
			usleep(100 * 1000);
		_exit(0);
	}
	close(sv[1]);
	return pid;
}

/* Issue 17 row 2, OpenJ9 side: each chunk used to restart the timer, so a
 * VM dripping its greeting or reply kept jsym for as long as it liked (here
 * until the peer gave up after 4 s: -EPIPE); the message now has one
 * deadline. */
START_TEST(read_msg_has_a_deadline)
{
	int sv[2];
	pid_t pid = drip_peer(sv);
	long start = clock_ms();
	char *msg = NULL;
	size_t len;
	int rc;

	rc = openj9_read_msg(sv[0], 4096, 600, &msg, &len);
	ck_assert_msg(rc == -ETIMEDOUT, "rc %d after %ld ms", rc, clock_ms() - start);
	ck_assert_int_lt(clock_ms() - start, 1500);
	close(sv[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
END_TEST

/* A helper whose jsym died (the parent-death signal) ends its waits at
 * once, even an unbounded one, so its clean-up path runs. */
START_TEST(cancel_ends_an_unbounded_read)
{
	int sv[2];
	pid_t pid = drip_peer(sv);
	char *msg = NULL;
	size_t len;

	openj9_cancelled = 1;
	ck_assert_int_eq(openj9_read_msg(sv[0], 4096, -1, &msg, &len), -ETIMEDOUT);
	openj9_cancelled = 0;
	close(sv[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
END_TEST

Suite *openj9_suite(void)
{
	Suite *s = suite_create("openj9");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, props_basic);
	tcase_add_test(tc, props_escapes);
	tcase_add_test(tc, props_lines);
	tcase_add_test(tc, props_bounded);
	tcase_add_test(tc, translate_commands);
	tcase_add_test(tc, translate_refusals);
	tcase_add_test(tc, map_load_replies);
	tcase_add_test(tc, map_other_replies);
	tcase_add_test(tc, wire_formats);
	tcase_add_test(tc, find_vm_in_root);
	tcase_add_test(tc, notifier_key_is_ftok);
	tcase_add_test(tc, planted_nodes_not_opened);
	tcase_add_test(tc, replyinfo_short_write_names_no_stale_errno);
	tcase_add_test(tc, read_msg_has_a_deadline);
	tcase_add_test(tc, cancel_ends_an_unbounded_read);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_client.c - minimal driver of attach/openj9*.c for tests, standing
 * in for `jsym exec` where that is not wired: reads the target's ids,
 * $TMPDIR and attach dir from /proc, opens /proc/PID/root and the ipc and
 * net namespace files, enters those two namespaces, calls openj9_exec().
 *
 *   openj9_client [-t MS] [-r MS] [-v] [-f] [-C] PID [COMMAND ARGS...]
 *     -t  handshake timeout, -r  whole reply's timeout (<= 0: none;
 *         default: the -t value)
 *     -f  only find the VM and print its vmId
 *     -J  create the _notifier semaphore set the way jattach does (1 member,
 *         IPC_CREAT) in the target's ipc ns, then exit: for tests of the
 *         "set made by jattach" diagnosis
 *     -C  after the command, before exiting, check that the client left
 *         nothing behind: no fd leaked, and (seen from a forked child, for
 *         which our fcntl locks would conflict) _attachlock and every
 *         attachNotificationSync unlocked, no replyInfo, semaphore #0 at 0
 * Exit: 0 ok, 1 usage, 2 our failure, 3 the JVM refused, 4 agent code != 0,
 *       5 something was left behind (-C).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "openj9.h"
#include "openj9_int.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&b, &cap, '\x01', f); /* whole file: no 0x01 in /proc text */
	fclose(f);
	*len = n > 0 ? (size_t)n : 0;
	return b;
}

/* Value after "name" in a NUL-separated list (environ, cmdline). */
static const char *nul_list_find(const char *b, size_t len, const char *prefix)
{
	size_t i = 0, n = strlen(prefix);

	while (i < len) {
		const char *s = b + i;
		size_t l = strnlen(s, len - i);

		if (l >= n && strncmp(s, prefix, n) == 0)
			return s + n;
		i += l + 1;
	}
	return NULL;
}

static void step(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "openj9_client: %s\n", line);
}

static int enter(int pid, const char *ns)
{
	char p[64];
	struct stat a, b;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/ns/%s", pid, ns);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &a) < 0) {
		fprintf(stderr, "openj9_client: cannot open %s: %s\n", p, strerror(errno));
		return -1;
	}
	snprintf(p, sizeof(p), "/proc/self/ns/%s", ns);
	if (stat(p, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
		close(fd);
		return 0;
	}
	if (setns(fd, 0) < 0) {
		fprintf(stderr, "openj9_client: cannot enter %s namespace: %s\n", ns, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Is a write lock on dirfd/name held by process owner? */
static bool locked_by(int dirfd, const char *name, pid_t owner)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK && fl.l_pid == owner;
	close(fd);
	return held;
}

static int check_in_child(const struct openj9_target *t, pid_t parent)
{
	struct err_text err;
	char path[4200];
	int common = openj9_common_dir(t, path, sizeof(path), &err), bad = 0;
	struct dirent *e;
	key_t key;
	struct stat st;
	DIR *d;

	if (common < 0) {
		fprintf(stderr, "openj9_client: check: %s\n", err.msg);
		return 5;
	}
	if (locked_by(common, "_attachlock", parent)) {
		fprintf(stderr, "openj9_client: check: _attachlock still locked\n");
		bad = 1;
	}
	d = fdopendir(dup(common));
	while (d && (e = readdir(d))) {
		int vfd;

		if (openj9_skip_entry(e->d_name))
			continue;
		vfd = openat(common, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (vfd < 0)
			continue;
		if (fstatat(vfd, "replyInfo", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			fprintf(stderr, "openj9_client: check: %s/replyInfo left\n", e->d_name);
			bad = 1;
		}
		if (locked_by(vfd, "attachNotificationSync", parent)) {
			fprintf(stderr, "openj9_client: check: %s/attachNotificationSync still locked\n",
				e->d_name);
			bad = 1;
		}
		close(vfd);
	}
	if (d)
		closedir(d);
	if (openj9_notifier_key(-1, common, &key) == 0) {
		int id = semget(key, 2, 0), v = id < 0 ? -1 : semctl(id, 0, GETVAL);

		if (v != 0) {
			fprintf(stderr, "openj9_client: check: semaphore #0 value %d\n", v);
			bad = 1;
		}
	}
	close(common);
	if (!bad)
		fprintf(stderr, "openj9_client: check: clean\n");
	return bad ? 5 : 0;
}

/* -J: what jattach does: ftok(_notifier) and a 1-member set, IPC_CREAT. */
static int make_jattach_set(const struct openj9_target *t)
{
	struct err_text err;
	char path[4200];
	int common = openj9_common_dir(t, path, sizeof(path), &err), id = -1;
	key_t key;

	if (common < 0) {
		fprintf(stderr, "openj9_client: %s\n", err.msg);
		return 2;
	}
	if (openj9_notifier_key(-1, common, &key) == 0)
		id = semget(key, 1, IPC_CREAT | 0666);
	close(common);
	if (id < 0) {
		fprintf(stderr, "openj9_client: cannot create a 1-member set: %s\n", strerror(errno));
		return 2;
	}
	printf("%d\n", id);
	return 0;
}

/* -C: run the checks in a child so our own locks count as held. */
static int check_clean(const struct openj9_target *t, int fds_before)
{
	int fds = count_fds(), status;
	pid_t parent = getpid(), c;

	if (fds != fds_before) {
		fprintf(stderr, "openj9_client: check: %d fds open, %d before\n", fds, fds_before);
		return 5;
	}
	c = fork();
	if (c == 0)
		_exit(check_in_child(t, parent));
	if (c < 0 || waitpid(c, &status, 0) != c || !WIFEXITED(status))
		return 5;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct attach_log log = { step, NULL };
	struct openj9_target t = { .timeout_ms = 10000 };
	struct attach_reply rep;
	struct err_text err = { "" };
	char p[64], vmid[256], *status, *env, *cmdline, *line;
	size_t slen = 0, elen = 0, clen = 0;
	bool find_only = false, check = false, jattach_set = false, r_set = false;
	int c, pid, rc, ipc_fd, fds_before, bad = 0;

	while ((c = getopt(argc, argv, "+t:r:vfCJ")) != -1) {
		if (c == 't')
			t.timeout_ms = atoi(optarg);
		else if (c == 'r') {
			t.read_timeout_ms = atoi(optarg);
			r_set = true;
		}
		else if (c == 'v')
			t.log = &log;
		else if (c == 'f')
			find_only = true;
		else if (c == 'C')
			check = true;
		else if (c == 'J')
			jattach_set = true;
		else
			return 1;
	}
	if (!r_set)     /* the reply bounded like the handshake */
		t.read_timeout_ms = t.timeout_ms;
	if (optind >= argc || (!find_only && !jattach_set && optind + 1 >= argc)) {
		fprintf(stderr, "usage: openj9_client [-t MS] [-r MS] [-v] [-f] [-C] PID [COMMAND ARGS...]\n");
		return 1;
	}
	pid = atoi(argv[optind]);
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	status = slurp(p, &slen);
	snprintf(p, sizeof(p), "/proc/%d/environ", pid);
	env = slurp(p, &elen);
	snprintf(p, sizeof(p), "/proc/%d/cmdline", pid);
	cmdline = slurp(p, &clen);
	if (!status) {
		fprintf(stderr, "openj9_client: cannot read /proc/%d/status: %s\n", pid, strerror(errno));
		return 2;
	}
	t.nspid = pid;
	for (line = strtok(status, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned a, b;

		if (sscanf(line, "Uid: %u %u", &a, &b) == 2)
			t.uid = b;
		else if (sscanf(line, "Gid: %u %u", &a, &b) == 2)
			t.gid = b;
		else if (strncmp(line, "NStgid:", 7) == 0) {
			char *last = strrchr(line, '\t') ? strrchr(line, '\t') : strrchr(line, ' ');

			if (last)
				t.nspid = atoi(last + 1);
		}
	}
	t.tmpdir = env ? nul_list_find(env, elen, "TMPDIR=") : NULL;
	t.attach_dir = cmdline ? nul_list_find(cmdline, clen, "-Dcom.ibm.tools.attach.directory=")
			       : NULL;
	snprintf(p, sizeof(p), "/proc/%d/root", pid);
	t.root_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t.root_fd < 0) {
		fprintf(stderr, "openj9_client: cannot open %s: %s\n", p, strerror(errno));
		return 2;
	}
	/* open both namespace files first; ipc first so net's path still works */
	ipc_fd = enter(pid, "ipc");
	if (ipc_fd < 0 || enter(pid, "net") < 0)
		return 2;
	if (jattach_set)
		return make_jattach_set(&t);
	if (find_only) {
		rc = openj9_find_vm(&t, vmid, sizeof(vmid), &err);
		if (rc == 0)
			printf("%s\n", vmid);
		else
			fprintf(stderr, "openj9_client: %s\n", err.msg);
		return rc == 0 ? 0 : 2;
	}
	fds_before = count_fds();
	rc = openj9_exec(&t, argc - optind - 1, (const char *const *)argv + optind + 1,
			 STDOUT_FILENO, &rep, &err);
	if (check)
		bad = check_clean(&t, fds_before);
	if (rc < 0) {
		fprintf(stderr, "openj9_client: %s\n", err.msg[0] ? err.msg : strerror(-rc));
		return bad ? bad : 2;
	}
	if (bad)
		return bad;
	if (rep.agent_code_known && rep.agent_code != 0) {
		fprintf(stderr, "openj9_client: agent returned %d (%s)\n", rep.agent_code,
			rep.message);
		return 4;
	}
	if (rep.failed) {
		fprintf(stderr, "openj9_client: the JVM refused: %s\n", rep.message);
		return 3;
	}
	return 0;
}

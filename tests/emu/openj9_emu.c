/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openj9_emu.c - an OpenJ9 JVM's attach side, for tests (no JVM needed).
 *
 *   openj9_emu [--vmid ID] [--tmpdir DIR] [--display NAME] [--diag FILE]
 *              [--never-answer] [--reply-delay MS] [--log FILE]
 *              [-Dcom.ibm.tools.attach.X=V...]
 *
 * Like a JVM it also takes -Dcom.ibm.tools.attach.id=ID (= --vmid),
 * .directory=DIR (the common dir itself) and .displayName=NAME, so a
 * client reading the target's cmdline finds them where it would in a JVM's.
 *
 * Start-up per docs/protocols.md B1/B2/B4: common dir 01777 with _controller,
 * _attachlock, _notifier (0666); <vmid>/ 01711 with attachNotificationSync
 * (0666) and attachInfo (0600, properties); a SysV set of 2 semaphores keyed
 * by ftok(_notifier, 0xa1), created IPC_EXCL or opened with nsems 2.  Then
 * the wait loop of B5 in the main thread, one thread per attachment (B7/B8,
 * openj9_emu_serve.c).  It dlopens a dummy libj9vm29.so next to itself so
 * /proc/<pid>/maps looks like OpenJ9.  SIGTERM/SIGINT: remove our VM dir and
 * exit (works as PID 1).  --log lines are what the tests assert on.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "openj9_emu.h"

struct emu emu = { .semid = -1 };
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stopping;

void emu_log(const char *fmt, ...)
{
	va_list ap;
	FILE *f;

	if (!emu.log_path)
		return;
	pthread_mutex_lock(&log_lock);
	f = fopen(emu.log_path, "a");
	if (f) {
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		va_end(ap);
		fputc('\n', f);
		fclose(f);
	}
	pthread_mutex_unlock(&log_lock);
}

static void die(const char *what)
{
	emu_log("fatal %s: %s", what, strerror(errno));
	fprintf(stderr, "openj9_emu: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int grow(char **buf, size_t *len, size_t *cap, size_t need)
{
	if (*len + need + 1 > *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		char *b;

		while (c < *len + need + 1)
			c *= 2;
		b = realloc(*buf, c);
		if (!b)
			return -1;
		*buf = b;
		*cap = c;
	}
	return 0;
}

/* UTF-8 -> code point (invalid bytes read as themselves). */
static unsigned next_cp(const unsigned char **s)
{
	const unsigned char *p = *s;
	unsigned cp = *p++;

	if (cp >= 0xe0 && cp < 0xf0 && (p[0] & 0xc0) == 0x80 && (p[1] & 0xc0) == 0x80) {
		cp = ((cp & 0x0f) << 12) | ((unsigned)(p[0] & 0x3f) << 6) | (p[1] & 0x3f);
		p += 2;
	} else if (cp >= 0xc0 && cp < 0xe0 && (p[0] & 0xc0) == 0x80) {
		cp = ((cp & 0x1f) << 6) | (p[0] & 0x3f);
		p += 1;
	}
	*s = p;
	return cp;
}

/* One key or value the way Properties.saveConvert(escUnicode=true) does. */
static int escape(char **buf, size_t *len, size_t *cap, const char *s, bool is_key)
{
	const unsigned char *p = (const unsigned char *)s;
	bool first = true;

	while (*p) {
		unsigned cp = next_cp(&p);
		char tmp[8];
		int n;

		if (cp == ' ' && (is_key || first))
			n = snprintf(tmp, sizeof(tmp), "\\ ");
		else if (cp == '\t')
			n = snprintf(tmp, sizeof(tmp), "\\t");
		else if (cp == '\n')
			n = snprintf(tmp, sizeof(tmp), "\\n");
		else if (cp == '\r')
			n = snprintf(tmp, sizeof(tmp), "\\r");
		else if (cp == '\f')
			n = snprintf(tmp, sizeof(tmp), "\\f");
		else if (cp == '\\' || cp == '=' || cp == ':' || cp == '#' || cp == '!')
			n = snprintf(tmp, sizeof(tmp), "\\%c", (char)cp);
		else if (cp < 0x20 || cp > 0x7e)
			n = snprintf(tmp, sizeof(tmp), "\\u%04X", cp & 0xffff);
		else
			n = snprintf(tmp, sizeof(tmp), "%c", (char)cp);
		first = false;
		if (grow(buf, len, cap, (size_t)n))
			return -1;
		memcpy(*buf + *len, tmp, (size_t)n);
		*len += (size_t)n;
		(*buf)[*len] = '\0';
	}
	return 0;
}

int emu_prop(char **buf, size_t *len, size_t *cap, const char *key, const char *value)
{
	if (escape(buf, len, cap, key, true) || grow(buf, len, cap, 1))
		return -1;
	(*buf)[(*len)++] = '=';
	if (escape(buf, len, cap, value, false) || grow(buf, len, cap, 1))
		return -1;
	(*buf)[(*len)++] = '\n';
	(*buf)[*len] = '\0';
	return 0;
}

int emu_prop_header(char **buf, size_t *len, size_t *cap)
{
	char line[80];
	time_t now = time(NULL);
	struct tm tm;
	size_t n;

	gmtime_r(&now, &tm);
	n = strftime(line, sizeof(line), "#%a %b %d %H:%M:%S UTC %Y\n", &tm);
	if (grow(buf, len, cap, n))
		return -1;
	memcpy(*buf + *len, line, n + 1);
	*len += n;
	return 0;
}

static int fcntl_lock(int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };

	while (fcntl(fd, F_SETLKW, &fl) < 0) {
		if (errno != EINTR || stopping)
			return -1;
	}
	return 0;
}

/* Create (or open) a 0666 file in the common dir; chmod only what we own. */
static void touch(const char *dir, const char *name, mode_t mode)
{
	char p[1400];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		die(p);
	if (fstat(fd, &st) == 0 && (st.st_uid == geteuid() || geteuid() == 0))
		fchmod(fd, mode);
	close(fd);
}

static void write_advert(void)
{
	char *b = NULL, p[1500], uid[16], pid[16], reply[1500], sync[1500];
	size_t len = 0, cap = 0;
	struct passwd *pw = getpwuid(geteuid());
	int fd;

	snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(reply, sizeof(reply), "%s/replyInfo", emu.vmdir);
	snprintf(sync, sizeof(sync), "%s/attachNotificationSync", emu.vmdir);
	if (emu_prop_header(&b, &len, &cap) || emu_prop(&b, &len, &cap, "version", "0.1") ||
	    emu_prop(&b, &len, &cap, "userId", pw ? pw->pw_name : uid) ||
	    emu_prop(&b, &len, &cap, "userUid", uid) ||
	    emu_prop(&b, &len, &cap, "processId", pid) ||
	    emu_prop(&b, &len, &cap, "vmId", emu.vmid) ||
	    emu_prop(&b, &len, &cap, "displayName", emu.display) ||
	    emu_prop(&b, &len, &cap, "notifier", "_notifier") ||
	    emu_prop(&b, &len, &cap, "globalSemaphore", "true") ||
	    emu_prop(&b, &len, &cap, "replyFile", reply) ||
	    emu_prop(&b, &len, &cap, "attachNotificationSync", sync))
		die("attachInfo");
	snprintf(p, sizeof(p), "%s/attachInfo", emu.vmdir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0 || write(fd, b, len) != (ssize_t)len)
		die(p);
	close(fd);
	free(b);
}

/* <vmid>/ (01711), attachNotificationSync, attachInfo, under _controller. */
static void make_vm_dir(void)
{
	char p[1500], lockp[1200];
	struct stat st;
	int lk;

	snprintf(lockp, sizeof(lockp), "%s/_controller", emu.common);
	lk = open(lockp, O_RDWR | O_CLOEXEC);
	if (lk < 0 || fcntl_lock(lk, F_WRLCK) < 0)
		die(lockp);
	snprintf(p, sizeof(p), "%s/replyInfo", emu.vmdir);
	if (lstat(p, &st) == 0) { /* B2: creating the dir fails then */
		errno = EEXIST;
		die(p);
	}
	if (mkdir(emu.vmdir, 0700) < 0 && errno != EEXIST)
		die(emu.vmdir);
	if (chmod(emu.vmdir, 01711) < 0)
		die(emu.vmdir);
	touch(emu.vmdir, "attachNotificationSync", 0666);
	write_advert();
	fcntl_lock(lk, F_UNLCK);
	close(lk);
}

static void setup_common(const char *opt_tmp)
{
	const char *env = getenv("TMPDIR");
	struct stat st;
	char exe[1024];
	ssize_t n;

	if (opt_tmp)
		snprintf(emu.tmp, sizeof(emu.tmp), "%s", opt_tmp);
	else if (env && stat(env, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(emu.tmp, sizeof(emu.tmp), "%s", env);
	else
		snprintf(emu.tmp, sizeof(emu.tmp), "/tmp");
	if (emu.attach_dir)
		snprintf(emu.common, sizeof(emu.common), "%s", emu.attach_dir);
	else
		snprintf(emu.common, sizeof(emu.common), "%s/.com_ibm_tools_attach", emu.tmp);
	snprintf(emu.vmdir, sizeof(emu.vmdir), "%s/%s", emu.common, emu.vmid);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(emu.self_dir, sizeof(emu.self_dir), "%s", dirname(exe));

	if (mkdir(emu.common, 01777) < 0 && errno != EEXIST)
		die(emu.common);
	if (stat(emu.common, &st) == 0 && (st.st_uid == geteuid() || geteuid() == 0)) {
		chmod(emu.common, 01777);
		if (chown(emu.common, (uid_t)-1, getegid()) < 0)
			emu_log("warn chown common dir: %s", strerror(errno));
	}
	touch(emu.common, "_controller", 0666);
	touch(emu.common, "_attachlock", 0666);
	touch(emu.common, "_notifier", 0666);
}

static void setup_semaphore(void)
{
	struct semid_ds ds;
	char p[1200];
	key_t key;
	bool created = true;

	snprintf(p, sizeof(p), "%s/_notifier", emu.common);
	key = ftok(p, 0xa1);
	if (key == -1)
		die("ftok");
	emu.semid = semget(key, 2, IPC_CREAT | IPC_EXCL | 0666);
	if (emu.semid < 0 && errno == EEXIST) {
		created = false;
		emu.semid = semget(key, 2, 0666);
	}
	if (emu.semid < 0) { /* B4: e.g. EINVAL on a 1-member set */
		emu_log("semaphore key=0x%08x open failed: %s (attach API terminated)",
			(unsigned)key, strerror(errno));
		die("semget");
	}
	if (semctl(emu.semid, 0, IPC_STAT, &ds) < 0)
		die("semctl");
	emu_log("semaphore key=0x%08x semid=%d nsems=%lu created=%d", (unsigned)key, emu.semid,
		(unsigned long)ds.sem_nsems, created);
}

/* B5 step 2: dir and replyInfo must be ours alone. */
static bool owner_only(const struct stat *st)
{
	return (st->st_uid == geteuid() || geteuid() == 0) && !(st->st_mode & 066);
}

static void check_reply(void)
{
	char p[1500], buf[256], key[128];
	struct stat st;
	ssize_t n;
	int fd, port;

	if (stat(emu.vmdir, &st) < 0 || !owner_only(&st)) {
		emu_log("vmdir rejected (owner or mode)");
		return;
	}
	snprintf(p, sizeof(p), "%s/replyInfo", emu.vmdir);
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		emu_log("replyInfo absent");
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !owner_only(&st)) {
		emu_log("replyInfo rejected uid=%u mode=%04o", (unsigned)st.st_uid,
			(unsigned)(st.st_mode & 07777));
		close(fd);
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (sscanf(buf, "%127[^\n]\n%d", key, &port) != 2) {
		emu_log("replyInfo unparsable");
		return;
	}
	emu_log("replyInfo key=%s port=%d uid=%u mode=%04o%s", key, port, (unsigned)st.st_uid,
		(unsigned)(st.st_mode & 07777), emu.never_answer ? " never-answer" : "");
	if (port >= 0 && !emu.never_answer)
		emu_attach_start(key, port);
}

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Last VM out removes the semaphore set (no other VM dir left). */
static void maybe_remove_semaphore(void)
{
	DIR *d = opendir(emu.common);
	struct dirent *e;
	int others = 0;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && e->d_name[0] != '_')
			others++;
	closedir(d);
	if (!others && semctl(emu.semid, 0, IPC_RMID) == 0)
		emu_log("semaphore removed (last VM)");
}

static void cleanup_vm_dir(void)
{
	char p[1500];

	snprintf(p, sizeof(p), "%s/attachInfo", emu.vmdir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/attachNotificationSync", emu.vmdir);
	unlink(p);
	rmdir(emu.vmdir);
	maybe_remove_semaphore();
	emu_log("exit");
}

static void wait_loop(void)
{
	struct sembuf wait_op = { 0, -1, 0 };
	char p[1500];
	struct stat st;
	int sync_fd;

	emu_log("ready vmid=%s pid=%d common=%s", emu.vmid, (int)getpid(), emu.common);
	while (!stopping) {
		if (semop(emu.semid, &wait_op, 1) < 0) {
			if (errno == EINTR)
				continue;
			/* set removed (EIDRM/EINVAL): the attach API stops, the
			 * "JVM" keeps running, as a VM would */
			emu_log("semaphore gone (%s): attach API terminated", strerror(errno));
			while (!stopping)
				pause();
			break;
		}
		emu_log("woke");
		check_reply();
		snprintf(p, sizeof(p), "%s/attachInfo", emu.vmdir);
		if (stat(p, &st) < 0) { /* B5 step 3 */
			emu_log("advertisement missing, recreating");
			make_vm_dir();
		}
		/* B5 step 4: the attacher holds this lock until it was accepted. */
		snprintf(p, sizeof(p), "%s/attachNotificationSync", emu.vmdir);
		sync_fd = open(p, O_RDWR | O_CLOEXEC);
		if (sync_fd >= 0) {
			if (fcntl_lock(sync_fd, F_WRLCK) == 0) {
				fcntl_lock(sync_fd, F_UNLCK);
				emu_log("sync lock+unlock");
			}
			close(sync_fd);
		}
		usleep(300 * 1000);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vmid", required_argument, NULL, 'i' },
		{ "tmpdir", required_argument, NULL, 't' },
		{ "display", required_argument, NULL, 'd' },
		{ "diag", required_argument, NULL, 'g' },
		{ "never-answer", no_argument, NULL, 'n' },
		{ "reply-delay", required_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_stop };
	const char *opt_tmp = NULL;
	char lib[1100];
	int c, i, n = 1;

	emu.display = "openj9_emu";
	/* JVM-style -D properties first; the rest goes to getopt. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "-Dcom.ibm.tools.attach.id=", 26) == 0)
			emu.vmid = a + 26;
		else if (strncmp(a, "-Dcom.ibm.tools.attach.directory=", 33) == 0)
			emu.attach_dir = a + 33;
		else if (strncmp(a, "-Dcom.ibm.tools.attach.displayName=", 35) == 0)
			emu.display = a + 35;
		else
			argv[n++] = argv[i];
	}
	argc = n;
	argv[argc] = NULL;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': emu.vmid = optarg; break;
		case 't': opt_tmp = optarg; break;
		case 'd': emu.display = optarg; break;
		case 'g': emu.diag_path = optarg; break;
		case 'n': emu.never_answer = true; break;
		case 'r': emu.reply_delay_ms = atoi(optarg); break;
		case 'l': emu.log_path = optarg; break;
		case 'h':
			printf("usage: openj9_emu [--vmid ID] [--tmpdir DIR] [--display NAME] "
			       "[--diag FILE] [--never-answer] [--reply-delay MS] [--log FILE]\n");
			return 0;
		default:
			return 2;
		}
	}
	snprintf(emu.pidbuf, sizeof(emu.pidbuf), "%d", (int)getpid());
	if (!emu.vmid)
		emu.vmid = emu.pidbuf;
	sigaction(SIGTERM, &sa, NULL); /* no SA_RESTART: semop returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setup_common(opt_tmp);
	snprintf(lib, sizeof(lib), "%s/libj9vm29.so", emu.self_dir);
	if (!dlopen(lib, RTLD_NOW | RTLD_GLOBAL))
		emu_log("warn no %s: %s", lib, dlerror());
	make_vm_dir();
	setup_semaphore();
	wait_loop();
	cleanup_vm_dir();
	return 0;
}

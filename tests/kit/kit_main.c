/* SPDX-License-Identifier: Apache-2.0 */
/* tests/kit/kit_main.c - jsym-kit: the container kit's namespace helper.
 *
 *   jsym-kit start   --name N --rootfs DIR --state DIR --log FILE --pid-file FILE
 *                    [--uid U --gid G] [--cwd DIR] [--bind H:C[:ro]]... [--env K=V]...
 *                    [--tmp-size SIZE] [--tmp-ro] [--tmp-noexec] [--net] [--userns 0:HOST:COUNT]
 *                    -- CMD [ARGS...]
 *   jsym-kit sidecar --target PID --rootfs DIR --state DIR [--caps LIST]
 *                    [--bind H:C[:ro]]... [--env K=V]... -- CMD [ARGS...]
 *   LIST: comma-separated capability names replacing Docker's default set,
 *   or "+name,..." adding to it, or "none".
 *
 * start: this process (the keeper) clones CMD into new mount, pid, uts, ipc
 * (and net) namespaces, where it becomes PID 1 after the filesystem is set
 * up and credentials dropped.  Once CMD has been exec'd the keeper writes its
 * host PID to --pid-file, then stays to reap it and records the exit status
 * in STATE/exit.  Reaping matters: the host's PID 1 here may not.  With
 * --userns the container is rootless: a new user namespace owns the others,
 * container ids 0..COUNT-1 are host ids HOST.. (kit_userns.c has the order
 * of the steps), --uid and --gid are the container's view.
 *
 * sidecar: like `kubectl debug --target`: CMD joins the target's pid, net,
 * ipc and uts namespaces (a pod shares them), gets a mount namespace and root of its own and exactly
 * the capability set LIST; runs in the foreground, its status is ours.
 *
 * Both learn that the exec happened through a close-on-exec pipe: EOF means
 * exec succeeded, a message means the child failed first.
 */
#include "kit_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KIT_MAX_ENV 64
#define KIT_DEFAULT_CAPS "chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap," \
	"net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap"

struct env {
	const char *mode;	/* "start" or "sidecar" */
	const char *name, *rootfs, *state, *log, *pid_file, *cwd, *caps;
	pid_t target;
	uid_t uid;
	gid_t gid;
	int net;
	int has_userns;
	struct kit_userns userns;
	int go_fd;		/* userns: child's end of the "maps written" pipe */
	int log_fd;		/* start: CMD's stdout and stderr, opened by the keeper */
	struct kit_fs fs;
	int nenv;
	char *envp[KIT_MAX_ENV + 4];
	char **argv;
	int sync_fd;		/* child's end of the exec pipe */
	uint64_t capmask;
	int last_cap;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jsym-kit start --name N --rootfs DIR --state DIR --log FILE --pid-file FILE\n"
		"                [--uid U --gid G] [--cwd DIR] [--bind H:C[:ro]]... [--env K=V]...\n"
		"                [--tmp-size SIZE] [--tmp-ro] [--tmp-noexec] [--net] [--userns 0:HOST:COUNT]\n"
		"                -- CMD [ARGS...]\n"
		"       jsym-kit sidecar --target PID --rootfs DIR --state DIR [--caps LIST]\n"
		"                [--bind H:C[:ro]]... [--env K=V]... -- CMD [ARGS...]\n");
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "jsym-kit: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(125);
}

/* H:C or H:C:ro; C absolute. */
static void parse_bind(struct env *env, char *spec)
{
	struct kit_bind *b;
	char *c, *opt;

	if (env->fs.nbinds >= KIT_MAX_BINDS)
		die("too many --bind options (max %d)", KIT_MAX_BINDS);
	c = strchr(spec, ':');
	if (!c || c[1] != '/')
		die("bad --bind '%s' (want HOSTPATH:/CTPATH[:ro])", spec);
	*c++ = '\0';
	opt = strchr(c, ':');
	b = &env->fs.binds[env->fs.nbinds++];
	b->host = spec;
	b->ct = c;
	b->ro = 0;
	if (opt) {
		*opt++ = '\0';
		if (strcmp(opt, "ro") != 0 && strcmp(opt, "rw") != 0)
			die("bad --bind option '%s' (want ro or rw)", opt);
		b->ro = strcmp(opt, "ro") == 0;
	}
}

/* K=V replaces an earlier K. */
static void put_env(struct env *env, char *kv)
{
	size_t klen = strcspn(kv, "=");

	if (kv[klen] != '=' || klen == 0)
		die("bad --env '%s' (want KEY=VALUE)", kv);
	for (int i = 0; i < env->nenv; i++) {
		if (strncmp(env->envp[i], kv, klen + 1) == 0) {
			env->envp[i] = kv;
			return;
		}
	}
	if (env->nenv >= KIT_MAX_ENV)
		die("too many --env options (max %d)", KIT_MAX_ENV);
	env->envp[env->nenv++] = kv;
	env->envp[env->nenv] = NULL;
}

static unsigned long parse_num(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		die("bad %s '%s' (want a number)", what, s);
	return v;
}

static void parse_args(struct env *env, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "rootfs", required_argument, NULL, 'r' },
		{ "state", required_argument, NULL, 's' },
		{ "log", required_argument, NULL, 'l' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		{ "cwd", required_argument, NULL, 'w' },
		{ "bind", required_argument, NULL, 'b' },
		{ "env", required_argument, NULL, 'e' },
		{ "tmp-size", required_argument, NULL, 'S' },
		{ "tmp-ro", no_argument, NULL, 'R' },
		{ "tmp-noexec", no_argument, NULL, 'X' },
		{ "net", no_argument, NULL, 'N' },
		{ "userns", required_argument, NULL, 'U' },
		{ "target", required_argument, NULL, 't' },
		{ "caps", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'n': env->name = optarg; break;
		case 'r': env->rootfs = optarg; break;
		case 's': env->state = optarg; break;
		case 'l': env->log = optarg; break;
		case 'p': env->pid_file = optarg; break;
		case 'u': env->uid = (uid_t)parse_num(optarg, "--uid"); break;
		case 'g': env->gid = (gid_t)parse_num(optarg, "--gid"); break;
		case 'w': env->cwd = optarg; break;
		case 'b': parse_bind(env, optarg); break;
		case 'e': put_env(env, optarg); break;
		case 'S': env->fs.tmp_size = optarg; break;
		case 'R': env->fs.tmp_ro = 1; break;
		case 'X': env->fs.tmp_noexec = 1; break;
		case 'N': env->net = 1; break;
		case 'U':
			if (kit_userns_parse(optarg, &env->userns, err, sizeof(err)) < 0)
				die("%s", err);
			env->has_userns = 1;
			break;
		case 't': env->target = (pid_t)parse_num(optarg, "--target"); break;
		case 'c': env->caps = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(125);
		}
	}
	if (optind >= argc)
		die("%s: no command given after --", env->mode);
	env->argv = argv + optind;
	if (!env->rootfs || !env->state)
		die("%s: --rootfs and --state are required", env->mode);
	if (env->cwd[0] != '/')
		die("--cwd '%s' must be absolute", env->cwd);
}

/* Default environment under the caller's --env entries. */
static void default_env(struct env *env)
{
	static char path[] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	static char home_root[] = "HOME=/root", home_other[] = "HOME=/";
	static char host[HOST_NAME_MAX + 16];
	char *defaults[3] = { path, env->uid == 0 ? home_root : home_other, host };

	snprintf(host, sizeof(host), "HOSTNAME=%s", env->name ? env->name : "sidecar");
	for (int d = 0; d < 3; d++) {
		size_t klen = strcspn(defaults[d], "=") + 1;
		int seen = 0;

		for (int i = 0; i < env->nenv; i++)
			seen |= strncmp(env->envp[i], defaults[d], klen) == 0;
		if (!seen) {
			env->envp[env->nenv++] = defaults[d];
			env->envp[env->nenv] = NULL;
		}
	}
}

/* Report a child-side failure through the exec pipe and end the child. */
static void child_fail(const struct env *env, const char *msg)
{
	ssize_t n = write(env->sync_fd, msg, strlen(msg));

	(void)n;
	_exit(127);
}

/* Close inherited descriptors above stderr except keep (-1: none), so the
 * container gets nothing of its launcher's files and the keeper holds no
 * caller's pipe open. */
static void close_extra_fds(int keep)
{
#ifdef SYS_close_range
	int ok = 1;

	if (keep > 3)
		ok = syscall(SYS_close_range, 3U, (unsigned)keep - 1, 0U) == 0;
	if (ok && syscall(SYS_close_range, keep >= 3 ? (unsigned)keep + 1 : 3U, ~0U, 0U) == 0)
		return;
#endif
	for (int fd = 3; fd < 4096; fd++)
		if (fd != keep)
			close(fd);
}

static void child_exec(struct env *env)
{
	char err[PATH_MAX + 256];

	execvpe(env->argv[0], env->argv, env->envp);
	snprintf(err, sizeof(err), "cannot execute %s in %s: %s", env->argv[0], env->rootfs,
		 strerror(errno));
	child_fail(env, err);
}

static void start_child(struct env *env)
{
	char err[PATH_MAX + 256];
	int fd;

	/* Nothing can be created in a user namespace before its maps exist. */
	if (env->has_userns && kit_userns_wait_map(env->go_fd, err, sizeof(err)) < 0)
		child_fail(env, err);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		child_fail(env, "cannot open /dev/null");
	close(fd);
	if (dup2(env->log_fd, 1) < 0 || dup2(env->log_fd, 2) < 0)
		child_fail(env, "cannot redirect output to the log");
	close_extra_fds(env->sync_fd);
	if (sethostname(env->name, strlen(env->name)) < 0)
		child_fail(env, "cannot set the hostname");
	if (env->net && kit_net_lo_up(err, sizeof(err)) < 0)
		child_fail(env, err);
	if (kit_fs_enter(&env->fs, err, sizeof(err)) < 0)
		child_fail(env, err);
	if (chdir(env->cwd) < 0) {
		snprintf(err, sizeof(err), "cannot chdir to %s: %s", env->cwd, strerror(errno));
		child_fail(env, err);
	}
	/* Groups, then gid, then uid: after setuid we could change neither. */
	if (setgroups(0, NULL) < 0 || setresgid(env->gid, env->gid, env->gid) < 0 ||
	    setresuid(env->uid, env->uid, env->uid) < 0) {
		snprintf(err, sizeof(err), "cannot switch to uid %u gid %u: %s",
			 (unsigned)env->uid, (unsigned)env->gid, strerror(errno));
		child_fail(env, err);
	}
	/* After the credential change, which clears it: the container dies
	 * with its keeper, so a killed test leaves no orphan PID 1. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	child_exec(env);
}

static void sidecar_child(struct env *env)
{
	char err[PATH_MAX + 256];

	close_extra_fds(env->sync_fd);
	if (kit_fs_enter(&env->fs, err, sizeof(err)) < 0)
		child_fail(env, err);
	if (chdir(env->cwd) < 0)
		child_fail(env, "cannot chdir");
	if (kit_caps_apply(env->capmask, env->last_cap, err, sizeof(err)) < 0)
		child_fail(env, err);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	child_exec(env);
}

/* fork() that also creates namespaces; the child sees PID 1 if CLONE_NEWPID. */
static pid_t clone_child(unsigned long flags)
{
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
}

/* Wait for the child's exec; 0 on success, else print its reason. */
static int wait_exec(const struct env *env, int rfd, pid_t child)
{
	char msg[PATH_MAX + 256];
	size_t len = 0;
	ssize_t n;

	while ((n = read(rfd, msg + len, sizeof(msg) - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
		if (len == sizeof(msg) - 1)
			break;
	}
	close(rfd);
	if (len == 0)
		return 0;
	msg[len] = '\0';
	fprintf(stderr, "jsym-kit: %s %s: %s\n", env->mode, env->name ? env->name : "", msg);
	waitpid(child, NULL, 0);
	return -1;
}

static int wait_status(pid_t child)
{
	int st;

	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void write_file(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) < 0)
		fprintf(stderr, "jsym-kit: cannot write %s: %s\n", path, strerror(errno));
}

/* Clone the child, wait for its exec; its pid, or -1 (reason printed). */
static pid_t run(struct env *env, unsigned long flags, void (*child_fn)(struct env *))
{
	int sync[2], go[2] = { -1, -1 };
	pid_t child;

	if (pipe2(sync, O_CLOEXEC) < 0 || (env->has_userns && pipe2(go, O_CLOEXEC) < 0)) {
		perror("jsym-kit: pipe");
		return -1;
	}
	child = clone_child(flags);
	if (child < 0) {
		fprintf(stderr, "jsym-kit: cannot create namespaces (clone): %s "
			"(needs root: CAP_SYS_ADMIN)\n", strerror(errno));
		return -1;
	}
	if (child == 0) {
		close(sync[0]);
		env->sync_fd = sync[1];
		if (env->has_userns) {
			close(go[1]);
			env->go_fd = go[0];
		}
		child_fn(env);
		_exit(127);
	}
	close(sync[1]);
	if (env->has_userns) {
		char err[256];

		close(go[0]);
		if (kit_userns_release(child, &env->userns, go[1], err, sizeof(err)) < 0)
			fprintf(stderr, "jsym-kit: %s %s: %s\n", env->mode, env->name, err);
	}
	if (wait_exec(env, sync[0], child) < 0)
		return -1;
	return child;
}

static int cmd_start(struct env *env)
{
	unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC;
	char buf[PATH_MAX + 16];
	pid_t child;
	int status;

	if (!env->name || !env->log || !env->pid_file)
		die("%s: --name, --log and --pid-file are required", env->mode);
	if (env->net)
		flags |= CLONE_NEWNET;
	/* Opened here, where the path is reachable: a rootless child could
	 * not open a file in the caller's private state directory. */
	env->log_fd = open(env->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (env->log_fd < 0)
		die("%s %s: cannot open log %s: %s", env->mode, env->name, env->log,
		    strerror(errno));
	if (env->has_userns) {
		char err[PATH_MAX + 128];

		if (kit_userns_enter_state(&env->userns, env->state, err, sizeof(err)) < 0)
			die("%s %s: %s", env->mode, env->name, err);
		flags |= CLONE_NEWUSER;
		env->fs.state = ".";
		env->fs.userns = 1;
	}
	child = run(env, flags, start_child);
	close(env->log_fd);
	if (child < 0)
		return 125;
	/* The keeper leaves the caller's session, the container stays in it:
	 * a test runner that sweeps its session still finds (and ends) the
	 * container, while the keeper, orphaned once `$(kit_start ...)` has
	 * returned, is not mistaken for a leak in the moments before the
	 * host's init reaps it. */
	setsid();
	snprintf(buf, sizeof(buf), "%d\n", (int)child);
	write_file(env->pid_file, buf);
	status = wait_status(child);
	snprintf(buf, sizeof(buf), "%s/exit", env->state);
	{
		char text[16];

		snprintf(text, sizeof(text), "%d\n", status);
		write_file(buf, text);
	}
	return 0;
}

static int cmd_sidecar(struct env *env)
{
	static const struct { const char *ns; int type; } joins[] = {
		{ "pid", CLONE_NEWPID }, { "net", CLONE_NEWNET }, { "ipc", CLONE_NEWIPC },
		{ "uts", CLONE_NEWUTS },
	};
	enum { NJOIN = sizeof(joins) / sizeof(joins[0]) };
	int fds[NJOIN];
	char path[64], err[256];
	pid_t child;

	if (env->target <= 0)
		die("%s: --target PID is required", env->mode);
	/* "+a,b" adds to the default set, anything else replaces it. */
	if (kit_caps_parse(KIT_DEFAULT_CAPS, &env->capmask, err, sizeof(err)) < 0)
		die("%s", err);
	if (env->caps) {
		uint64_t more;
		int add = env->caps[0] == '+';

		if (kit_caps_parse(env->caps + add, &more, err, sizeof(err)) < 0)
			die("%s", err);
		env->capmask = add ? env->capmask | more : more;
	}
	env->last_cap = kit_caps_last();
	/* Open every namespace before joining any: after the first setns the
	 * /proc paths may no longer name the same things. */
	for (int i = 0; i < NJOIN; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)env->target, joins[i].ns);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			die("cannot open %s (is the target running?)", path);
	}
	for (int i = 0; i < NJOIN; i++) {
		if (setns(fds[i], joins[i].type) < 0) {
			fprintf(stderr, "jsym-kit: cannot join the %s namespace of %d: %s\n",
				joins[i].ns, (int)env->target, strerror(errno));
			return 125;
		}
		close(fds[i]);
	}
	child = run(env, CLONE_NEWNS, sidecar_child);
	if (child < 0)
		return 125;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	return wait_status(child);
}

int main(int argc, char **argv)
{
	struct env env = { .cwd = "/", .sync_fd = -1, .go_fd = -1, .log_fd = -1 };

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 125 : 0;
	}
	close_extra_fds(-1);
	env.mode = argv[1];
	parse_args(&env, argc - 1, argv + 1);
	env.fs.rootfs = env.rootfs;
	env.fs.state = env.state;
	default_env(&env);
	if (strcmp(env.mode, "start") == 0)
		return cmd_start(&env);
	if (strcmp(env.mode, "sidecar") == 0)
		return cmd_sidecar(&env);
	die("unknown mode '%s' (start or sidecar)", env.mode);
	return 125;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * all.c - the JVMs of one `jsym attach` (attaching.h): the command line's,
 * or every JVM /proc shows here grouped by container, and the pool that
 * attaches them with a fair share of its workers for each container.
 *
 * Why containers share: anything in a container can map a file named
 * libjvm.so and catch SIGQUIT, and each such process costs a worker up to
 * its limit (attaching_worker_limit_ms).  Taken in /proc order, a
 * container of many such fakes held every worker of --all and, past the
 * old cap of 4096 pids, pushed real JVMs out of the list without a word.
 * Now a container takes at most ATTACH_MAX_PER_CONTAINER places in the
 * list, runs at most its share of the workers at once (pool_run_groups),
 * and gets at most attaching_budget_ms() of their time; whatever is left
 * out is counted and said.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attaching_int.h"
#include "deploy.h"
#include "run.h"
#include "target.h"

int attaching_setup(struct attach_env *env, struct err_text *e)
{
	if (env->stop) {
		(void)deploy_find_builds(env->agent_dir, &env->builds, e); /* names only */
		e->msg[0] = '\0';
		return 0;
	}
	return deploy_find_builds(env->agent_dir, &env->builds, e);
}

/* The longest one JVM may take: watch_attach_limit_ms (base.h). */
int attaching_worker_limit_ms(const struct attach_env *env)
{
	return watch_attach_limit_ms(env->timeout_ms, env->read_timeout_ms);
}

/* Two JVMs' worth of the worker limit: a real JVM's attach takes well
 * under a second (30-attach-host), so 160 s at the defaults covers a
 * container of many JVMs, while one of fakes that each stall to the
 * limit is cut off after two of them (with the ones already running). */
long attaching_budget_ms(const struct attach_env *env)
{
	return 2L * attaching_worker_limit_ms(env);
}

void attach_scan_end(struct attach_scan *s)
{
	free(s->keys);
	s->keys = NULL;
}

void attaching_list_free(struct attach_list *list)
{
	free(list->pids);
	free(list->group);
	free(list->groups);
	memset(list, 0, sizeof(*list));
}

static void key_of(const struct attach_scan *s, const struct target *t,
		   struct container_key *k, char *name, size_t cap)
{
	struct stat st;

	memset(k, 0, sizeof(*k));
	if (fstatat(t->proc_fd, "ns/pid", &st, 0) != 0) {
		k->uid = (unsigned)t->st.uid[1];
		snprintf(name, cap, "uid %u, pid namespace unknown", k->uid);
		return;
	}
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	if (s->self_known && st.st_dev == s->self_ns.st_dev &&
	    st.st_ino == s->self_ns.st_ino) {
		k->uid = (unsigned)t->st.uid[1];
		snprintf(name, cap, "uid %u on the host", k->uid);
	} else {
		snprintf(name, cap, "pid:[%llu]", (unsigned long long)st.st_ino);
	}
}

/* The group of key k, added when new: its index, or -ENOMEM. */
static int group_of(struct attach_scan *s, const struct container_key *k, const char *name)
{
	struct attach_list *l = s->list;

	for (int g = 0; g < l->ngroups; g++)
		if (s->keys[g].dev == k->dev && s->keys[g].ino == k->ino &&
		    s->keys[g].uid == k->uid)
			return g;
	if (l->ngroups == s->cap_groups) {
		int cap = s->cap_groups ? 2 * s->cap_groups : 16;
		struct container_key *nk = realloc(s->keys, sizeof(*nk) * (size_t)cap);
		struct attach_group *ng;

		if (!nk)
			return -ENOMEM;
		s->keys = nk;
		ng = realloc(l->groups, sizeof(*ng) * (size_t)cap);
		if (!ng)
			return -ENOMEM;
		l->groups = ng;
		s->cap_groups = cap;
	}
	s->keys[l->ngroups] = *k;
	memset(&l->groups[l->ngroups], 0, sizeof(l->groups[0]));
	snprintf(l->groups[l->ngroups].container, sizeof(l->groups[0].container),
		 "%s", name);
	return l->ngroups++;
}

int attach_scan_add(struct attach_scan *s, pid_t pid, const struct container_key *k,
		    const char *name)
{
	struct attach_list *l = s->list;
	int g = group_of(s, k, name);

	if (g < 0)
		return g;
	l->groups[g].found++;
	if (l->groups[g].taken >= ATTACH_MAX_PER_CONTAINER || l->n >= ATTACH_MAX_ALL) {
		l->skipped++;
		return 0;
	}
	if (l->n == s->cap_pids) {
		int ncap = s->cap_pids ? 2 * s->cap_pids : 64;
		pid_t *np = realloc(l->pids, sizeof(*np) * (size_t)ncap);
		int *ngr;

		if (!np)
			return -ENOMEM;
		l->pids = np;
		ngr = realloc(l->group, sizeof(*ngr) * (size_t)ncap);
		if (!ngr)
			return -ENOMEM;
		l->group = ngr;
		s->cap_pids = ncap;
	}
	l->pids[l->n] = pid;
	l->group[l->n++] = g;
	l->groups[g].taken++;
	return 0;
}

/* What a look at one process in its child (target_visit_bounded) hands
 * back: fixed size, no pointers. */
struct seen {
	const struct attach_scan *s;    /* read only, the parent's copy */
	bool jvm;
	struct container_key k;
	char name[64];
};

static int look(struct target *t, void *out)
{
	struct seen *v = out;

	v->jvm = t->maps.kind != PROC_NOT_JVM;
	if (v->jvm)
		key_of(v->s, t, &v->k, v->name, sizeof(v->name));
	return 0;
}

/*
 * Every JVM visible from here (not jsym itself), in /proc order.  Each
 * process is looked at in a child with ATTACH_SCAN_BUDGET_MS: one whose
 * files stall the kernel (a FUSE file that never answers) is counted in
 * list->stalled and skipped, and the DaemonSet's loop goes on.
 */
static int scan_jvms(struct attach_list *list, struct err_text *e)
{
	struct attach_scan s = { .list = list };
	DIR *d = opendir("/proc");
	pid_t self = getpid(), pid;
	struct dirent *de;
	int rc = 0;

	if (!d)
		return err_set(e, -errno, "cannot read /proc: %s", strerror(errno));
	s.self_known = stat("/proc/self/ns/pid", &s.self_ns) == 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct seen v = { .s = &s };
		int r;

		if (text_parse_pid(de->d_name, &pid) || pid == self)
			continue;
		r = target_visit_bounded(pid, ATTACH_SCAN_BUDGET_MS, look, &v, sizeof(v));
		if (r < 0) {
			rc = err_set(e, r, "cannot fork to look at process %d: %s", (int)pid,
				     strerror(-r));
			break;
		}
		if (r == TARGET_VISIT_STALLED) {
			list->stalled++;
			continue;
		}
		if (r == TARGET_VISIT_DONE && v.jvm && attach_scan_add(&s, pid, &v.k, v.name))
			rc = err_set(e, -ENOMEM, "out of memory listing the JVMs");
	}
	closedir(d);
	attach_scan_end(&s);
	return rc;
}

int attaching_list(const struct attach_env *env, struct attach_list *list,
		   struct err_text *e)
{
	int rc;

	memset(list, 0, sizeof(*list));
	if (env->all) {
		rc = scan_jvms(list, e);
		if (rc)
			attaching_list_free(list);
		return rc;
	}
	list->pids = calloc((size_t)env->npids + 1, sizeof(pid_t));
	list->group = calloc((size_t)env->npids + 1, sizeof(int));
	list->groups = calloc(1, sizeof(*list->groups));
	if (!list->pids || !list->group || !list->groups) {
		attaching_list_free(list);
		return err_set(e, -ENOMEM, "out of memory");
	}
	memcpy(list->pids, env->pids, sizeof(pid_t) * (size_t)env->npids);
	list->n = env->npids;
	list->ngroups = 1;
	list->groups[0].found = list->groups[0].taken = env->npids;
	return 0;
}

/* What the pool's workers and progress hook are handed. */
struct run_ctx {
	struct attach_env *env;
	const struct attach_list *list;
};

static void pool_job(int idx, void *result, void *ctx)
{
	struct run_ctx *rc = ctx;

	attaching_one(rc->env, rc->list->pids[idx], result);
}

static void pool_progress(int done, int running, int total, void *ctx)
{
	struct run_ctx *rc = ctx;

	rc->env->hooks.progress(done, running, total, rc->env->hooks.ctx);
}

/* The outcome of each JVM whose worker gave none, or that was skipped. */
static void settle(const struct attach_env *env, const struct attach_list *list,
		   struct attach_outcome *out, const char *fate, const long *spent)
{
	for (int i = 0; i < list->n; i++) {
		struct attach_outcome *o = &out[i];

		if (fate[i] == POOL_DONE)
			continue;
		o->pid = list->pids[i];
		o->rc = fate[i] == POOL_SKIPPED ? -EBUSY : -EIO;
		o->exit = ATTACH_EXIT_FAIL;
		if (fate[i] == POOL_SKIPPED) {
			o->skipped = true;
			err_set(&o->err, o->rc, "not tried: the JVMs of its "
				"container (%s) had taken %ld ms of the workers, their "
				"share (at most %ld ms per container, so that no "
				"container can hold up the others); attach it by its "
				"pid", list->groups[list->group[i]].container,
				spent[list->group[i]], attaching_budget_ms(env));
		} else {
			err_set(&o->err, o->rc, "the worker for this JVM "
				"ended without a result: it was stopped after %d ms (the "
				"JVM's container stalled it), or it crashed (a jsym bug: "
				"please report it with -v output)",
				attaching_worker_limit_ms(env));
		}
	}
}

int attaching_run(struct attach_env *env, const struct attach_list *list,
		  struct attach_outcome *out, struct err_text *e)
{
	struct run_ctx ctx = { env, list };
	char *fate = calloc((size_t)list->n + 1, 1);
	long *spent = calloc((size_t)list->ngroups + 1, sizeof(long));
	struct pool_groups g = {
		.group = list->group, .ngroups = list->ngroups, .spent_ms = spent,
		.budget_ms = env->all ? attaching_budget_ms(env) : 0,
	};
	int ok = 0;

	if (!fate || !spent) {
		free(fate);
		free(spent);
		return err_set(e, -ENOMEM, "out of memory");
	}
	/* One JVM goes through the pool too (one worker): the worker's hard
	 * limit then holds for `jsym attach PID` and for an --all that found a
	 * single JVM, not only for many. */
	(void)pool_run_groups(list->n, env->jobs, attaching_worker_limit_ms(env), &g,
			      pool_job, sizeof(*out), out, fate,
			      list->n > 1 && env->hooks.progress ? pool_progress : NULL,
			      &ctx);
	settle(env, list, out, fate, spent);
	for (int i = 0; i < list->n; i++)
		ok += out[i].exit == 0;
	free(fate);
	free(spent);
	return ok;
}

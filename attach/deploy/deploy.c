/*
 * deploy.c - decide what a target JVM loads: the agent it already runs,
 * our own files when it sees the same inodes, or copies in its container;
 * and which libc's build, confirmed under the container's own loader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deploy.h"
#include "inroot.h"
#include "target.h"

/* Does the JVM see host file f as the very same inode (docs/protocols.md E1)? */
static bool visible_same(const struct target *t, const struct deploy_file *f)
{
	struct stat st;
	int fd = inroot_open(t->root_fd, f->path, O_PATH, 0, NULL);
	bool same;

	if (fd < 0)
		return false;
	same = fstat(fd, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino;
	close(fd);
	return same;
}

/* The build for the libc the JVM maps; from the loader's name if unknown. */
static int wanted_libc(const struct target *t, enum deploy_libc *l,
		       struct err_text *e)
{
	const char *base = strrchr(t->maps.loader, '/');

	if (t->maps.libc == PROC_LIBC_MUSL)
		*l = DEPLOY_MUSL;
	else if (t->maps.libc == PROC_LIBC_GLIBC)
		*l = DEPLOY_GLIBC;
	else if (base && !strncmp(base, "/ld-linux", 9))
		*l = DEPLOY_GLIBC;
	else
		return err_set(e, -ENOEXEC, "cannot tell which libc the JVM runs on "
			       "(neither glibc's nor musl's libc in its maps)");
	return 0;
}

static void paths_in(const char *dir, enum deploy_libc l, char *agent,
		     char *probe, size_t cap)
{
	snprintf(agent, cap, "%s/%s/%s", dir, deploy_libc_name(l), DEPLOY_AGENT_NAME);
	snprintf(probe, cap, "%s/%s/%s", dir, deploy_libc_name(l), DEPLOY_PROBE_NAME);
}

/*
 * Probe the wanted build, then (evidence only) the other one under the same
 * loader and probe program.  0 when the wanted build loads and the loader's
 * libc is the JVM's; else -ENOEXEC with e saying what the loader said.
 */
static int confirm(const struct target *t, const struct deploy_opts *o,
		   enum deploy_libc want, const char *agents[DEPLOY_NLIBC],
		   const char *probe, struct deploy_result *r,
		   const struct attach_log *log, struct err_text *e)
{
	enum deploy_libc other = want == DEPLOY_GLIBC ? DEPLOY_MUSL : DEPLOY_GLIBC;
	struct deploy_probe *p = &r->probe;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = deploy_run_probe(t, want, agents[want], probe, o->timeout_ms, p, log, e);
	if (rc)
		return rc;
	if (strncmp(p->runtime_libc, deploy_libc_name(want), strlen(deploy_libc_name(want))))
		return err_set(e, -ENOEXEC, "the JVM maps %s's libc, but its loader %s "
			       "runs the probe on '%s': refusing to guess which build "
			       "would work", deploy_libc_name(want), p->loader,
			       p->runtime_libc[0] ? p->runtime_libc : "nothing");
	if (!p->ok[want])
		return err_set(e, -ENOEXEC, "the %s build of the agent does not load in "
			       "the JVM's container (its loader %s, as uid %u): %s",
			       deploy_libc_name(want), p->loader, (unsigned)t->st.uid[1],
			       p->why[want]);
	if (agents[other])
		(void)deploy_run_probe(t, other, agents[other], probe, o->timeout_ms, p,
				       log, e);
	e->msg[0] = '\0';
	return 0;
}

int deploy_prepare(const struct target *t, const struct deploy_builds *b,
		   const struct deploy_opts *o, struct deploy_result *r,
		   const struct attach_log *log, struct err_text *e)
{
	char agent[DEPLOY_NLIBC][PATH_MAX], probe[PATH_MAX];
	const char *agents[DEPLOY_NLIBC];
	enum deploy_libc want = DEPLOY_GLIBC;
	int rc;

	memset(r, 0, sizeof(*r));
	if (t->maps.agent[0]) {
		if (t->maps.agent_deleted || !strncmp(t->maps.agent, "/memfd:", 7))
			return err_set(e, -EALREADY, "a jsym agent already runs in this "
				       "JVM, loaded from %s%s, which jsym cannot name to "
				       "refresh it; it keeps running (restart the JVM to load "
				       "another build)", t->maps.agent, t->maps.agent_deleted ?
				       " (since deleted)" : "");
		r->how = DEPLOY_ALREADY;
		r->libc = strstr(t->maps.agent, "/musl/") || t->maps.libc == PROC_LIBC_MUSL ?
			  DEPLOY_MUSL : DEPLOY_GLIBC;
		snprintf(r->load_path, sizeof(r->load_path), "%s", t->maps.agent);
		attach_step(log, "a jsym agent is already loaded from %s: loading it "
			    "again refreshes it (no second copy)", r->load_path);
		return 0;
	}
	rc = wanted_libc(t, &want, e);
	if (rc)
		return rc;
	r->libc = want;

	/* our own files, when the JVM sees the same inodes (a host JVM) */
	if (visible_same(t, &b->agent[want]) && visible_same(t, &b->probe[want])) {
		for (int l = 0; l < DEPLOY_NLIBC; l++)
			agents[l] = visible_same(t, &b->agent[l]) ? b->agent[l].path : NULL;
		attach_step(log, "the JVM sees jsym's own %s build (same inode): no copy",
			    deploy_libc_name(want));
		rc = o->no_probe ? 0 : confirm(t, o, want, agents, b->probe[want].path,
					       r, log, e);
		if (rc == 0) {
			r->how = DEPLOY_IN_PLACE;
			snprintf(r->load_path, sizeof(r->load_path), "%s", agents[want]);
			return 0;
		}
		attach_step(log, "in place it does not load (%s): copying instead", e->msg);
	}

	rc = deploy_place(t, b, o, r, log, e);
	if (rc)
		return rc;
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		paths_in(r->dir, l, agent[l], probe, sizeof(probe));
		agents[l] = agent[l];
	}
	paths_in(r->dir, want, agent[want], probe, sizeof(probe));
	rc = o->no_probe ? 0 : confirm(t, o, want, agents, probe, r, log, e);
	if (rc)
		return rc;
	r->how = DEPLOY_COPIED;
	snprintf(r->load_path, sizeof(r->load_path), "%s", agent[want]);
	return 0;
}

int deploy_clean(const struct target *t, const struct deploy_builds *b,
		 char *kept, size_t keptlen, struct err_text *e)
{
	const char *tmp = deploy_tmpdir(t);
	char name[64], path[PATH_MAX + 128];
	int tmpfd, dfd, removed = 0;

	if (kept && keptlen)
		kept[0] = '\0';
	deploy_dir_name(t, b, name, sizeof(name));
	tmpfd = inroot_open(t->root_fd, tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0, NULL);
	if (tmpfd < 0)
		return tmpfd == -ENOENT ? 0 : err_set(e, tmpfd, "cannot open the "
			"container's %s: %s", tmp, strerror(-tmpfd));
	dfd = openat(tmpfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		close(tmpfd);
		return 0;       /* nothing of ours there */
	}
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		const char *files[2] = { DEPLOY_AGENT_NAME, DEPLOY_PROBE_NAME };
		int sfd = openat(dfd, deploy_libc_name(l), O_RDONLY | O_DIRECTORY |
				 O_NOFOLLOW | O_CLOEXEC);

		if (sfd < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s/%s/%s", tmp, name,
				 deploy_libc_name(l), files[i]);
			if (!strcmp(path, t->maps.agent)) {
				if (kept && keptlen)
					snprintf(kept, keptlen, "%s", path);
				continue;
			}
			if (unlinkat(sfd, files[i], 0) == 0)
				removed++;
		}
		close(sfd);
		unlinkat(dfd, deploy_libc_name(l), AT_REMOVEDIR);
	}
	close(dfd);
	unlinkat(tmpfd, name, AT_REMOVEDIR);
	close(tmpfd);
	return removed;
}

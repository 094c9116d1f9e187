/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deploy.c - decide what a target JVM loads: the agent it already runs,
 * our own files when it sees the same inodes, copies in its container, or
 * a memfd when the container's temp dir cannot take them; and which libc's
 * build, confirmed under the container's own loader.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base.h"
#include "deploy.h"
#include "deploy_int.h"
#include "jsym_arch.h"
#include "target.h"

/* Does the JVM see host file f as the very same inode (docs/protocols.md E1)? */
static bool visible_same(const struct target *t, const struct deploy_file *f)
{
	struct stat st;
	int fd = confine_open(t->proc_fd, t->root_fd, f->path, O_PATH, 0, NULL);
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

/*
 * The JVM's architecture, from the ELF header of the libjvm.so it maps
 * (opened in its root), against this jsym's: the loader and the probe
 * would only fail later with "cannot open shared object file".  Not
 * /proc/<pid>/exe, which is the interpreter when the JVM runs under
 * qemu-user.  A header that cannot be read proves nothing: 0, and the probe
 * then speaks for itself.
 */
static int check_jvm_arch(const struct target *t, struct err_text *e)
{
	unsigned char h[20];
	unsigned machine;
	int fd;
	ssize_t n;

	if (!t->maps.jvm_lib[0])
		return 0;
	/* the mapped file only: a device, FIFO or FUSE file, or another
	 * library, put at the path since the JVM mapped it is never opened
	 * (and then proves nothing: the probe speaks) */
	fd = target_open_mapped(t, t->maps.jvm_lib, t->maps.jvm_lib_dev,
				t->maps.jvm_lib_ino, NULL);
	if (fd < 0)
		return 0;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) || h[EI_DATA] != ELFDATA2LSB)
		return 0;
	machine = (unsigned)h[18] | (unsigned)h[19] << 8;
	if (machine == JSYM_ELF_MACHINE)
		return 0;
	return jsym_arch_mismatch(e, -ENOEXEC, machine);
}

static void paths_in(const char *dir, enum deploy_libc l, char *agent,
		     char *probe, size_t cap)
{
	snprintf(agent, cap, "%s/%s/%s", dir, deploy_libc_name(l), DEPLOY_AGENT_NAME);
	snprintf(probe, cap, "%s/%s/%s", dir, deploy_libc_name(l), DEPLOY_PROBE_NAME);
}

/*
 * Probe the wanted build, then (evidence only) the other one under the same
 * loader and probe program; f[l] with neither a path nor bytes is skipped.
 * 0 when the wanted build loads and the loader's libc is the JVM's; else
 * -ENOEXEC with e saying what the loader said.
 */
static int confirm(const struct target *t, const struct deploy_opts *o,
		   enum deploy_libc want, const struct deploy_probe_files f[DEPLOY_NLIBC],
		   struct deploy_result *r, const struct attach_log *log,
		   struct err_text *e)
{
	enum deploy_libc other = want == DEPLOY_GLIBC ? DEPLOY_MUSL : DEPLOY_GLIBC;
	struct deploy_probe *p = &r->probe;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = deploy_run_probe(t, want, &f[want], o->timeout_ms, p, log, e);
	if (rc)
		return rc;
	if (!p->runtime_libc[0])        /* the probe never ran: say why */
		return err_set(e, -ENOEXEC, "cannot run the libc probe in the JVM's "
			       "container: %s", p->why[want][0] ? p->why[want] :
			       "it said nothing");
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
	if (o->evidence && (f[other].agent || f[other].agent_mem))
		(void)deploy_run_probe(t, other, &f[other], o->timeout_ms, p, log, e);
	e->msg[0] = '\0';
	return 0;
}

/* Copy refusals a memfd gets around: the temp dir is read-only, noexec, too
 * small, or holds something planted at jsym's names. */
static bool memfd_helps(int rc)
{
	return rc == -EROFS || rc == -EACCES || rc == -ENOSPC || rc == -EDQUOT ||
	       rc == -EEXIST || rc == -ELOOP || rc == -EPERM || rc == -ENOTDIR;
}

/* Where the agent will write (dir=, default /tmp), and whether it can. */
static void check_out_dir(const struct target *t, const struct deploy_opts *o,
			  struct deploy_result *r)
{
	const char *dir = o->out_dir && o->out_dir[0] ? o->out_dir : "/tmp";
	struct statvfs v;
	int fd;

	snprintf(r->out_dir, sizeof(r->out_dir), "%s", dir);
	r->out_dir_problem[0] = '\0';
	fd = confine_open(t->proc_fd, t->root_fd, dir, O_PATH | O_DIRECTORY, 0, NULL);
	if (fd < 0) {
		snprintf(r->out_dir_problem, sizeof(r->out_dir_problem), "%s",
			 fd == -ENOENT ? "does not exist" : fd == -ENOTDIR ?
			 "is not a directory" : "cannot be opened");
		return;
	}
	if (fstatvfs(fd, &v) == 0 && (v.f_flag & ST_RDONLY))
		snprintf(r->out_dir_problem, sizeof(r->out_dir_problem), "is read-only");
	close(fd);
}

/* The memfd hand-over (memfd.c, docs/protocols.md E5). */
static int deliver_memfd(const struct target *t, const struct deploy_builds *b,
			 const struct deploy_opts *o, enum deploy_libc want,
			 struct deploy_result *r, const struct attach_log *log,
			 struct err_text *e)
{
	struct deploy_probe_files f[DEPLOY_NLIBC];
	int rc;

	/* the JVM's open of the helper's fd is a ptrace-read check, which a
	 * helper in our user namespace fails from any other one (C5) */
	if (t->ns[TNS_USER].known && t->ns[TNS_USER].differs)
		return err_set(e, -EXDEV, "the JVM runs in another user namespace: it "
			       "could not open a memfd held by jsym's helper, so there "
			       "is no delivery without a writable, exec-able temp dir%s%s",
			       r->copy_refused[0] ? " (" : "", r->copy_refused[0] ?
			       r->copy_refused : "");
	for (int l = 0; l < DEPLOY_NLIBC; l++)
		f[l] = (struct deploy_probe_files){ .agent_mem = &b->agent[l],
						    .probe_mem = &b->probe[want] };
	rc = o->no_probe ? 0 : confirm(t, o, want, f, r, log, e);
	if (rc)
		return rc;
	rc = deploy_memfd_start(t, b, want, o->timeout_ms, &r->helper, log, e);
	if (rc)
		return rc;
	r->how = DEPLOY_MEMFD;
	snprintf(r->load_path, sizeof(r->load_path), "/proc/%d/fd/%d",
		 (int)r->helper.nspid, r->helper.fd);
	check_out_dir(t, o, r);
	attach_step(log, "delivery: memfd, nothing written in the container; the "
		    "JVM loads %s; the agent writes to %s%s%s", r->load_path,
		    r->out_dir, r->out_dir_problem[0] ? ", which " : "",
		    r->out_dir_problem);
	return 0;
}

static int prepare(struct target *t, const struct deploy_builds *b,
		   const struct deploy_opts *o, struct deploy_result *r,
		   const struct attach_log *log, struct err_text *e);

int deploy_prepare(struct target *t, const struct deploy_builds *b,
		   const struct deploy_opts *o, struct deploy_result *r,
		   const struct attach_log *log, struct err_text *e)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->helper.ctl = -1;
	r->lock_fd[0] = r->lock_fd[1] = -1;
	rc = deploy_lock_jvm(t, o->timeout_ms, r->lock_fd, log, e);
	/* under the lock: an agent another jsym just loaded shows now */
	if (rc == 0 && (r->lock_fd[0] >= 0 || r->lock_fd[1] >= 0))
		(void)target_reread_maps(t);
	if (rc == 0)
		rc = prepare(t, b, o, r, log, e);
	if (rc)
		deploy_finish(r);
	return rc;
}

/* The agent the JVM already maps: loaded again by its path (a refresh), or
 * not at all when that path cannot be named again.  0. */
static int reuse_running(const struct target *t, struct deploy_result *r,
			 const struct attach_log *log)
{
	r->how = DEPLOY_ALREADY;
	r->libc = strstr(t->maps.agent, "/musl/") || t->maps.libc == PROC_LIBC_MUSL ?
		  DEPLOY_MUSL : DEPLOY_GLIBC;
	snprintf(r->load_path, sizeof(r->load_path), "%s", t->maps.agent);
	/* a memfd is a new inode each time: loading another would map a
	 * second agent (E5); a deleted file cannot be named at all */
	if (t->maps.agent_deleted || !strncmp(t->maps.agent, "/memfd:", 7)) {
		r->not_reloaded = true;
		attach_step(log, "a jsym agent already runs from %s, which cannot "
			    "be named again: it keeps running, nothing is loaded",
			    r->load_path);
		return 0;
	}
	attach_step(log, "a jsym agent is already loaded from %s: loading it "
		    "again refreshes it (no second copy)", r->load_path);
	return 0;
}

static int prepare(struct target *t, const struct deploy_builds *b,
		   const struct deploy_opts *o, struct deploy_result *r,
		   const struct attach_log *log, struct err_text *e)
{
	char agent[DEPLOY_NLIBC][PATH_MAX], probe[DEPLOY_NLIBC][PATH_MAX];
	struct deploy_probe_files f[DEPLOY_NLIBC];
	enum deploy_libc want = DEPLOY_GLIBC;
	int rc;

	if (t->maps.agent[0])
		return reuse_running(t, r, log);
	rc = check_jvm_arch(t, e);
	if (rc == 0)
		rc = wanted_libc(t, &want, e);
	if (rc)
		return rc;
	r->libc = want;
	if (o->delivery == DEPLOY_DELIVER_MEMFD) {
		attach_step(log, "--delivery memfd: not copying");
		return deliver_memfd(t, b, o, want, r, log, e);
	}

	/* our own files, when the JVM sees the same inodes (a host JVM) */
	if (visible_same(t, &b->agent[want]) && visible_same(t, &b->probe[want])) {
		for (int l = 0; l < DEPLOY_NLIBC; l++)
			f[l] = (struct deploy_probe_files){
				.agent = visible_same(t, &b->agent[l]) ? b->agent[l].path : NULL,
				.probe = b->probe[want].path };
		attach_step(log, "the JVM sees jsym's own %s build (same inode): no copy",
			    deploy_libc_name(want));
		rc = o->no_probe ? 0 : confirm(t, o, want, f, r, log, e);
		if (rc == 0) {
			r->how = DEPLOY_IN_PLACE;
			snprintf(r->load_path, sizeof(r->load_path), "%s", f[want].agent);
			return 0;
		}
		attach_step(log, "in place it does not load (%s): copying instead", e->msg);
	}

	rc = deploy_place(t, b, o, r, log, e);
	if (rc && memfd_helps(rc) && o->delivery == DEPLOY_DELIVER_AUTO) {
		snprintf(r->copy_refused, sizeof(r->copy_refused), "%.*s",
			 (int)sizeof(r->copy_refused) - 1, e->msg);
		attach_step(log, "not copied: %s; delivering from a memfd instead", e->msg);
		e->msg[0] = '\0';
		rc = deliver_memfd(t, b, o, want, r, log, e);
		if (rc && rc != -EXDEV) {
			char why[sizeof(e->msg)];

			snprintf(why, sizeof(why), "%s", e->msg);
			err_set(e, rc, "%s; and delivering from a memfd instead failed: "
				"%s", r->copy_refused, why);
		}
		return rc;
	}
	if (rc)
		return rc;
	for (int l = 0; l < DEPLOY_NLIBC; l++)
		paths_in(r->dir, l, agent[l], probe[l], sizeof(agent[l]));
	for (int l = 0; l < DEPLOY_NLIBC; l++)
		f[l] = (struct deploy_probe_files){ .agent = agent[l], .probe = probe[want] };
	rc = o->no_probe ? 0 : confirm(t, o, want, f, r, log, e);
	if (rc)
		return rc;
	r->how = DEPLOY_COPIED;
	snprintf(r->load_path, sizeof(r->load_path), "%s", agent[want]);
	return 0;
}

/* Do two paths name the same place, repeated slashes aside ("/tmp/" as
 * TMPDIR makes "/tmp//jsym-...", which the JVM's maps show as
 * "/tmp/jsym-...")? */
static bool same_path(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a == '/' && *b == '/') {
			while (*a == '/')
				a++;
			while (*b == '/')
				b++;
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return *a == *b;
}

/* May name (in dfd) go: a regular file of the JVM's uid, one link, on the
 * temp dir's own file system (dev)?  Anything else at jsym's names stays. */
static bool ours_to_remove(int dfd, const char *name, const struct target *t, dev_t dev)
{
	struct stat st;

	return confine_stat(t->proc_fd, dfd, name, O_NOFOLLOW, &st, NULL) == 0 &&
	       S_ISREG(st.st_mode) &&
	       st.st_nlink == 1 && st.st_uid == t->st.uid[1] && st.st_dev == dev;
}

/* Remove tmp/name/{glibc,musl}/{agent,probe} but the file the JVM maps
 * (its path in *kept), then the directories left empty.  A directory
 * another jsym holds locked (placing or loading) is left alone when
 * `busy_ok`.  Files removed. */
static int clean_dir(const struct target *t, int tmpfd, const char *tmp, const char *name,
		     bool busy_ok, char *kept, size_t keptlen)
{
	char path[PATH_MAX + 128];
	int dfd, removed = 0;
	struct stat st;

	dfd = confine_open(t->proc_fd, tmpfd, name, O_DIRECTORY | O_NOFOLLOW, 0, NULL);
	if (dfd < 0)
		return 0;       /* nothing of ours there */
	if (fstat(dfd, &st) != 0 || (busy_ok && flock(dfd, LOCK_EX | LOCK_NB) != 0)) {
		close(dfd);
		return 0;
	}
	for (int l = 0; l < DEPLOY_NLIBC; l++) {
		const char *files[2] = { DEPLOY_AGENT_NAME, DEPLOY_PROBE_NAME };
		int sfd = confine_open(t->proc_fd, dfd, deploy_libc_name(l),
				       O_DIRECTORY | O_NOFOLLOW, 0, NULL);

		if (sfd < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s/%s/%s", tmp, name,
				 deploy_libc_name(l), files[i]);
			if (same_path(path, t->maps.agent)) {
				if (kept && keptlen)
					snprintf(kept, keptlen, "%s", path);
				continue;
			}
			if (ours_to_remove(sfd, files[i], t, st.st_dev) &&
			    unlinkat(sfd, files[i], 0) == 0)
				removed++;
		}
		close(sfd);
		unlinkat(dfd, deploy_libc_name(l), AT_REMOVEDIR);
	}
	close(dfd);
	unlinkat(tmpfd, name, AT_REMOVEDIR);
	return removed;
}

int deploy_clean(const struct target *t, const struct deploy_builds *b, bool all_versions,
		 char *kept, size_t keptlen, struct err_text *e)
{
	const char *tmp = deploy_tmpdir(t);
	char name[64];
	int tmpfd, rfd, removed = 0, seen = 0;
	struct dirent *d;
	DIR *dir;

	if (kept && keptlen)
		kept[0] = '\0';
	deploy_dir_name(t, b, name, sizeof(name));
	tmpfd = confine_open(t->proc_fd, t->root_fd, tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW,
			     0, NULL);
	if (tmpfd < 0)
		return tmpfd == -ENOENT ? 0 : err_set(e, tmpfd, "cannot open the "
			"container's %s: %s", tmp, strerror(-tmpfd));
	removed = clean_dir(t, tmpfd, tmp, name, false, kept, keptlen);
	/* and the copies another version of jsym made for this JVM (a
	 * sidecar's image, an upgraded DaemonSet): same JVM, other hash;
	 * the scan is bounded, as the directory is the container's, and a
	 * directory another jsym holds (placing, loading) is skipped */
	rfd = all_versions ? confine_open(t->proc_fd, tmpfd, ".", O_RDONLY | O_DIRECTORY,
					  0, NULL) : -1;
	dir = rfd < 0 ? NULL : fdopendir(rfd);
	if (!dir && rfd >= 0)
		close(rfd);
	while (dir && (d = readdir(dir)) && seen++ < DEPLOY_CLEAN_SCAN_MAX)
		if (strcmp(d->d_name, name) && deploy_dir_same_jvm(d->d_name, name))
			removed += clean_dir(t, tmpfd, tmp, d->d_name, true, kept, keptlen);
	if (dir)
		closedir(dir);
	close(tmpfd);
	return removed;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsym_lookup.c - the public API (include/jsym/lookup.h) over the address
 * index (lookup_lib.h): opaque handles, -errno results, frames innermost first.
 *
 * jsym_lookup_resolve is a profiler's hot path: it goes straight to the
 * radix index and the entry (lookup_int.h) and fills the caller's frames,
 * without the struct lookup_hit of lookup_find; nothing is allocated once
 * the index is built.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confine.h"
#include "jsym_lookup_int.h"
#include "lookup_int.h"

struct jsym_lookup {
	struct lookup *lk;
	int fd;            /* our own fd of the file; each struct lookup follows a dup */
	int is_journal;
	uint64_t until;    /* records up to this time; 0 = all */
	struct err_text err;
};

/* A fresh struct lookup following a dup of h->fd, read up to h->until. */
static long restart(struct jsym_lookup *h)
{
	int fd = fcntl(h->fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0) {
		err_set(&h->err, 0, "cannot duplicate the file descriptor: %s",
			strerror(errno));
		return -errno;
	}
	lookup_free(h->lk);
	if (!(h->lk = lookup_new())) {
		close(fd);
		err_set(&h->err, 0, "out of memory");
		return -ENOMEM;
	}
	(h->is_journal ? lookup_follow_journal : lookup_follow_map)(h->lk, fd);
	lookup_set_until(h->lk, h->until);
	return jsym_lookup_refresh(h);
}

static int open_fd(jsym_lookup **out, int fd, int is_journal)
{
	struct jsym_lookup *h = calloc(1, sizeof(*h));
	long rc;

	if (!h) {
		close(fd);
		return -ENOMEM;
	}
	h->fd = fd;
	h->is_journal = is_journal;
	rc = restart(h);
	if (rc < 0 && rc != -EBADMSG) {
		jsym_lookup_close(h);
		return (int)rc;
	}
	*out = h;
	return 0;
}

JSYM_API int jsym_lookup_open_pid(jsym_lookup **out, int pid, const char *dir)
{
	int is_journal = 0, fd;

	*out = NULL;
	if (pid <= 0)
		return -EINVAL;
	fd = lk_open_pid_files(pid, dir ? dir : "/tmp", &is_journal, NULL);
	if (fd < 0)
		return fd;
	return open_fd(out, fd, is_journal);
}

JSYM_API int jsym_lookup_open_files(jsym_lookup **out, const char *journal, const char *map)
{
	const char *path = journal ? journal : map;
	int fd;

	*out = NULL;
	if (!path)
		return -EINVAL;
	/* the caller's path, with the checks of a target's: a FIFO, device or
	 * FUSE file named there is refused before it is opened */
	fd = confine_open(-1, AT_FDCWD, path, O_RDONLY, 0, NULL);
	if (fd < 0)
		return fd;
	return open_fd(out, fd, journal != NULL);
}

JSYM_API long jsym_lookup_refresh(jsym_lookup *h)
{
	long n;

	h->err.msg[0] = '\0';
	n = lookup_refresh(h->lk, &h->err);
	return n == -EAGAIN ? 0 : n; /* header not written yet: nothing to apply */
}

JSYM_API int jsym_lookup_set_time(jsym_lookup *h, uint64_t ns)
{
	uint64_t was = h->until;
	long rc;

	if (!h->is_journal) {
		err_set(&h->err, 0, "a perf map has no times");
		return -EINVAL;
	}
	if (ns == was)
		return 0;
	h->until = ns;
	if (was == 0 || (ns != 0 && ns < was)) {
		rc = restart(h); /* back in time: read again from the start */
	} else {
		lookup_set_until(h->lk, ns);
		rc = jsym_lookup_refresh(h);
	}
	return rc < 0 ? (int)rc : 0;
}

static void put(struct jsym_frame *f, const struct lookup_frame *lf, uint32_t kind)
{
	f->name = lf->name;
	f->class_name = lf->class_name;
	f->method = lf->method;
	f->signature = lf->signature;
	f->file = lf->file;
	f->start = lf->start;
	f->size = lf->size;
	f->line = lf->line;
	f->bci = lf->bci;
	f->kind = kind;
	f->reserved = 0;
}

static uint32_t kind_of(int k)
{
	switch (k) {
	case LOOKUP_LOAD:
		return JSYM_FRAME_METHOD;
	case LOOKUP_STUB:
		return JSYM_FRAME_STUB;
	case LOOKUP_INLINE:
		return JSYM_FRAME_INLINED;
	default:
		return JSYM_FRAME_MAP;
	}
}

/* The entry alone, from the segment's copy of it (size bytes: e_size is
 * valid only when the copy is whole): a method without chains, a stub, a
 * map line. */
static void put_entry(struct jsym_frame *f, const struct lk_seg *s, uint64_t size)
{
	int load = s->kind == LOOKUP_LOAD;

	f->name = s->strs + s->o_name;
	f->class_name = load ? s->strs : "";
	f->method = load ? s->strs + s->o_method : "";
	f->signature = load ? s->strs + s->o_sig : "";
	f->file = "";
	f->start = s->e_start;
	f->size = size;
	f->line = 0;
	f->bci = -1;
	f->kind = kind_of(s->kind);
	f->reserved = 0;
}

JSYM_API int jsym_lookup_resolve(jsym_lookup *h, uint64_t addr, struct jsym_frame *frames,
				 size_t max)
{
	struct lookup *lk = h->lk;
	const struct lk_seg *s;
	const struct lk_ent *e;
	const struct lk_chain *c;
	long seg;
	int rc;

	if (lk->dirty && (rc = lk_rebuild(lk)) < 0) {
		err_set(&h->err, 0, "out of memory building the address index");
		return rc;
	}
	if ((seg = lk_seg_find(lk, addr)) < 0)
		return 0;
	s = &lk->seg[seg];
	if (s->whole) { /* most code: the segment alone answers */
		if (max)
			put_entry(&frames[0], s, s->e_size);
		return 1;
	}
	e = &lk->ents[s->ent];
	if (e->fx && (c = lk_chain_at(e->fx, addr))) {
		for (uint32_t k = 0; k < c->depth && k < max; k++) {
			struct lookup_frame lf = lk_chain_frame(e, c, c->depth - 1 - k);

			put(&frames[k], &lf, kind_of(lf.kind));
		}
		return (int)c->depth;
	}
	if (e->n_inl) { /* an old journal's INLINE ranges: names only */
		struct lookup_hit hit;

		if ((rc = lookup_find(lk, addr, &hit)) < 0)
			return rc;
		for (size_t k = 0; k < hit.n_inline && k < max; k++)
			put(&frames[k], &hit.inlined[k], JSYM_FRAME_INLINED);
		if (hit.n_inline < max)
			put_entry(&frames[hit.n_inline], s, e->end - e->start);
		return (int)hit.n_inline + 1;
	}
	if (max)
		put_entry(&frames[0], s, e->end - e->start);
	return 1;
}

JSYM_API int jsym_lookup_resolve_at(jsym_lookup *h, uint64_t addr, uint64_t ns,
				    struct jsym_frame *frames, size_t max)
{
	int rc = jsym_lookup_set_time(h, ns);

	return rc < 0 ? rc : jsym_lookup_resolve(h, addr, frames, max);
}

JSYM_API const char *jsym_lookup_error(const jsym_lookup *h)
{
	return h ? h->err.msg : "";
}

JSYM_API const char *jsym_lookup_version(void)
{
	return "1.0";
}

JSYM_API void jsym_lookup_close(jsym_lookup *h)
{
	if (!h)
		return;
	lookup_free(h->lk);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

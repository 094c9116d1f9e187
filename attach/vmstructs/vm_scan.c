/* SPDX-License-Identifier: Apache-2.0 */
/* vm_scan.c - a snapshot of a running JVM's code cache (vm_scan.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vm_blob.h"
#include "vm_scan.h"

#define SEG_FREE 0xff           /* segment map: no block uses this segment */
#define BLOB_COPY 1024          /* bytes of a blob header copied (>= blob_span) */
#define NAME_ROUNDS 8           /* links of a name's chain asked for ahead */
/* Blocks a batch read ahead (at most VM_AHEAD_RANGES): small batches keep
 * the walk and the namer close (the start and the end they do not share
 * are short); 1,024 took 4 ms more a map of 5,500 entries, 128 no less
 * than 256. */
#define AHEAD_BLOCKS 256

struct heap {
	uint64_t low, high;     /* reserved start, committed end */
	uint64_t segmap;        /* the segment map's start */
	unsigned log2seg;
	size_t nsegs;
	unsigned char *map;     /* copy of the segment map */
};

/*
 * A block the walk read ahead (read_ahead): its header and blob decoded
 * once, and its nmethod's names when they were found ahead, in the
 * batch's arena.
 */
struct ahead_block {
	size_t seg;             /* its first segment */
	int rc;                 /* the header: 0, or read_block's error */
	uint64_t nseg;
	bool used;
	int blob_rc;            /* used: the blob's read_blob result */
	struct vm_blob b;
	char blobname[256];
	int name_rc;            /* 0: named ahead (name_off, name_len, cm);
	                           -EAGAIN: to be named by the walk */
	bool cm_known;          /* cm read ahead (a name the kept cache has) */
	uint32_t name_off, name_len;
	uint64_t cm;
};

/* A batch read ahead: blk[0..n) by segment, from segment `from` up to
 * `to`, and the names found for them in its arena. */
struct ahead_batch {
	struct ahead_block *blk;        /* AHEAD_BLOCKS of them */
	size_t n, next, from, to;
	uint64_t seq;                   /* the walk's batches are numbered */
	unsigned heap;                  /* of ahead.heaps */
	enum { B_FREE, B_READ, B_NAMING, B_NAMED } state;
	bool formatted;                 /* its names formatted by the namer */
	char *names;
	size_t names_len, names_cap;
};

/*
 * The walk's read-ahead: batches numbered in the order they are read,
 * batch q in b[q % AHEAD_RING].  The walk's thread reads them (their
 * headers decoded) up to AHEAD_RING - 1 ahead of the one it takes blocks
 * from, on into the next heap (the namer is not left idle between two).
 * They are named in order by a second thread, the namer, through a
 * reader of its own (caches are not shared), or by the walk itself when
 * there is none.  The walk waits for a batch's names only when it
 * reaches the batch.  (Two namers, each with its own cache, read again
 * the pages the other had: 20% more CPU and a slower map.)
 */
#define AHEAD_RING 4
struct ahead {
	struct ahead_batch b[AHEAD_RING];
	uint64_t first, next;           /* batches [first, next) are queued;
	                                   first is the walk's */
	size_t checked;                 /* the snapshot's entries read again */
	struct vm_snapshot *s;          /* the snapshot (its idle hook) */
	size_t idled;                   /* s->settled at its last idle call */
	bool disordered;                /* the walk found entries out of order
	                                   or overlapping: none settled since */
	const struct heap *heaps;       /* the heaps walked, in order */
	unsigned nheaps, ph;            /* the next batch starts in heaps[ph] */
	size_t pos;                     /* at this segment */
	const struct vm_layout *l;
	struct vm_mem *mem;             /* the walk's reader */
	struct vm_name_cache *kept;     /* names kept across snapshots, or NULL */
	/* the namer */
	bool threaded, stop;
	struct vm_mem names_mem;        /* its reader */
	uint64_t want;                  /* the batch it names next */
	size_t ready;                   /* bytes of its cache made present */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* -E2BIG at a cap: the walk stops there (cap_reached), keeping the rest. */
static int add_name(struct vm_snapshot *s, const char *name, size_t n, uint32_t *off)
{
	size_t max = s->max_name_bytes ? s->max_name_bytes : VM_MAX_NAME_BYTES;

	if (s->names_len + n > max) {
		s->capped = "name bytes";
		return -E2BIG;
	}
	if (text_reserve(&s->names, &s->names_cap, s->names_len + n, 256 * 1024))
		return -ENOMEM;
	memcpy(s->names + s->names_len, name, n);
	*off = (uint32_t)s->names_len;
	s->names_len += n;
	return 0;
}

static int add_entry(struct vm_snapshot *s, const struct vm_entry *en)
{
	if (s->n >= (s->max_entries ? s->max_entries : VM_MAX_ENTRIES)) {
		s->capped = "entries";
		return -E2BIG;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct vm_entry *p = realloc(s->e, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->e = p;
		s->cap = cap;
	}
	s->e[s->n++] = *en;
	return 0;
}

/* The code heaps' addresses: CodeCache::_heaps, or the one _heap. */
static int find_heaps(struct vm_mem *m, const struct vm_layout *l, uint64_t *heaps, int *n,
		      struct err_text *e)
{
	uint64_t ga, len, data;
	int rc;

	*n = 0;
	if (!l->heaps_addr) {
		rc = vm_read_u64(m, l->heap_addr, &heaps[0]);
		if (rc)
			return err_set(e, rc, "cannot read CodeCache::_heap: %s", strerror(-rc));
		*n = heaps[0] ? 1 : 0;
		return 0;
	}
	rc = vm_read_u64(m, l->heaps_addr, &ga);
	if (rc == 0 && ga == 0)
		return err_set(e, -EAGAIN, "the JVM has no code heaps yet (still starting?)");
	if (rc == 0)
		rc = vm_read_uint(m, ga + l->ga_len.off, l->ga_len.width, &len);
	if (rc == 0)
		rc = vm_read_uint(m, ga + l->ga_data.off, l->ga_data.width, &data);
	if (rc)
		return err_set(e, rc, "cannot read CodeCache::_heaps: %s", strerror(-rc));
	len = (uint32_t)len;
	if (len == 0 || len > VM_MAX_HEAPS)
		return err_set(e, -EPROTO, "CodeCache::_heaps claims %llu heaps",
			       (unsigned long long)len);
	for (uint64_t i = 0; i < len; i++) {
		rc = vm_read_u64(m, data + i * 8, &heaps[i]);
		if (rc)
			return err_set(e, rc, "cannot read CodeCache::_heaps: %s", strerror(-rc));
	}
	*n = (int)len;
	return 0;
}

/* One heap's bounds and a copy of its segment map.  A heap whose committed
 * bytes pass `room` (what the cap on code-heap bytes leaves) is -E2BIG
 * before its map is allocated or read: a declared 4 GiB heap of 16-byte
 * segments has a 256 MiB map, and the cap must keep that from being made. */
static int open_heap(struct vm_mem *m, const struct vm_layout *l, uint64_t h, struct heap *hp,
		     uint64_t room, struct err_text *e)
{
	uint64_t mem = h + l->heap_memory, seg = h + l->heap_segmap, hb, log2;
	int rc;

	memset(hp, 0, sizeof(*hp));
	if ((rc = vm_read_uint(m, mem + l->vs_low_boundary.off, 8, &hp->low)) ||
	    (rc = vm_read_uint(m, mem + l->vs_high.off, 8, &hp->high)) ||
	    (rc = vm_read_uint(m, mem + l->vs_high_boundary.off, 8, &hb)) ||
	    (rc = vm_read_uint(m, seg + l->vs_low_boundary.off, 8, &hp->segmap)) ||
	    (rc = vm_read_uint(m, h + l->heap_log2seg.off, l->heap_log2seg.width, &log2)))
		return err_set(e, rc, "cannot read a CodeHeap: %s", strerror(-rc));
	log2 = (uint32_t)log2;
	if (hp->low == 0 || hp->high < hp->low || hp->high > hb || hb - hp->low > VM_MAX_HEAP_BYTES ||
	    log2 < 4 || log2 > 20)
		return err_set(e, -EPROTO, "a CodeHeap has implausible bounds (%#llx, "
			       "%#llx, %#llx, segment 2^%llu)", (unsigned long long)hp->low,
			       (unsigned long long)hp->high, (unsigned long long)hb,
			       (unsigned long long)log2);
	if (hp->high - hp->low > room)
		return -E2BIG;
	hp->log2seg = (unsigned)log2;
	hp->nsegs = (size_t)((hp->high - hp->low) >> log2);
	if (hp->nsegs == 0)
		return 0;
	hp->map = malloc(hp->nsegs);
	if (!hp->map)
		return err_set(e, -ENOMEM, "out of memory");
	/* in pieces: a fresh read of the whole map at once */
	for (size_t off = 0; off < hp->nsegs; off += 1u << 20) {
		size_t k = hp->nsegs - off < (1u << 20) ? hp->nsegs - off : 1u << 20;

		rc = vm_read_fresh(m, hp->segmap + off, hp->map + off, k);
		if (rc)
			return err_set(e, rc, "cannot read a CodeHeap's segment map: %s",
				       strerror(-rc));
	}
	return 0;
}

/* Read the block header at segment i: its length in segments and used. */
static int read_block(struct vm_mem *m, const struct vm_layout *l, const struct heap *hp,
		      size_t i, bool fresh, uint64_t *len, bool *used)
{
	unsigned char b[64];
	uint64_t at = hp->low + ((uint64_t)i << hp->log2seg);
	int rc;

	if (l->hb_size > sizeof(b))
		return -EINVAL;
	rc = fresh ? vm_read_fresh(m, at, b, l->hb_size) : vm_read(m, at, b, l->hb_size);
	if (rc)
		return rc;
	*len = vm_fld_get(b, l->hb_size, l->hb_length);
	*used = vm_fld_get(b, l->hb_size, l->hb_used) != 0;
	return 0;
}

/* The blob of a used block of nseg segments at segment i. */
static int read_blob(struct vm_mem *m, const struct vm_layout *l, const struct heap *hp,
		     size_t i, uint64_t nseg, bool fresh, struct vm_blob *b, char *name,
		     size_t cap);

/* Read and decode the block at segment i into ab (through the cache, and
 * the batch prefetched when it holds it); ab->name_rc -EAGAIN. */
static void decode_block(struct vm_mem *m, const struct vm_layout *l, const struct heap *hp,
			 size_t i, struct ahead_block *ab)
{
	ab->seg = i;
	ab->name_rc = -EAGAIN;
	ab->cm_known = false;
	ab->blob_rc = -EINVAL;
	ab->rc = read_block(m, l, hp, i, false, &ab->nseg, &ab->used);
	if (ab->rc == 0 && (ab->nseg == 0 || ab->nseg > hp->nsegs - i))
		ab->rc = -EINVAL;
	if (ab->rc == 0 && ab->used)
		ab->blob_rc = read_blob(m, l, hp, i, ab->nseg, false, &ab->b, ab->blobname,
					sizeof(ab->blobname));
}

/* Keep name[len] in the batch's arena for ab. */
static void keep_ahead(struct ahead_batch *ba, struct ahead_block *ab, uint64_t cm,
		       const char *name, size_t len)
{
	if (text_reserve(&ba->names, &ba->names_cap, ba->names_len + len, 256 * 1024))
		return;                 /* the walk names it instead */
	memcpy(ba->names + ba->names_len, name, len);
	ab->name_off = (uint32_t)ba->names_len;
	ab->name_len = (uint32_t)len;
	ab->cm = cm;
	ab->name_rc = 0;
	ba->names_len += len;
}

/* A method of a batch being named, and how far its name got. */
struct pending {
	struct ahead_block *ab;
	struct vm_name_walk w;
};

/* Prefetch what p[x]'s next step reads (when x < n): the cache's places
 * for its pages, or (data) their bytes.  Each step of a batch's methods
 * touches fresh cache memory: without these, a third of the namer's time
 * went to waiting for it. */
static void hint(const struct vm_mem *m, const struct vm_layout *l, const struct pending *p,
		 size_t n, size_t x, bool data)
{
	uint64_t addr[3];

	if (x >= n)
		return;
	for (int i = vm_name_next(l, p[x].ab->b.method, &p[x].w, addr); i-- > 0;)
		vm_mem_prefetch(m, addr[i], data);
}

/*
 * Name the live nmethods of the batch all together, one link of their
 * Method -> ConstMethod -> ConstantPool -> Symbol chains a round, each
 * round's lines in one batch (vm_lines_begin).  Only a shortcut: what it
 * misses the walk reads as before, so it checks little (a bogus Method*
 * costs a few lines).  Names the kept cache knows (same ConstMethod) are
 * not asked for.
 */
static void name_ahead(struct vm_mem *m, const struct vm_layout *l,
		       struct vm_name_cache *kept, struct ahead_batch *ba)
{
	struct pending *p;
	char name[4 * VM_MAX_NAME];
	size_t n = 0, len;

	if (!m->cache)
		return;                 /* reading nothing ahead: nothing to gain */
	p = malloc(AHEAD_BLOCKS * sizeof(*p));
	if (!p)
		return;
	for (size_t x = 0; x < ba->n; x++) {
		struct ahead_block *ab = &ba->blk[x];

		if (ab->rc == 0 && ab->used && ab->blob_rc == 0 && ab->b.nmethod && ab->b.alive)
			p[n++] = (struct pending){ .ab = ab, .w.raw = !ba->formatted };
	}
	if (n == 0 || vm_lines_begin(m))
		n = 0;
	for (int round = 0; n && round < NAME_ROUNDS; round++) {
		size_t k = 0;

		for (size_t x = 0; x < n; x++) {
			int rc;

			/* the CPU brings in what the next methods look at while
			 * this one is named: the cache's places for their pages
			 * 8 ahead, their bytes 4 ahead */
			hint(m, l, p, n, x + 8, false);
			hint(m, l, p, n, x + 4, true);
			rc = vm_method_name_from(m, l, p[x].ab->b.method, &p[x].w, name,
						 sizeof(name));

			/* once its ConstMethod is known: a name the cache has
			 * is not asked for */
			if (rc == -EAGAIN && p[x].w.done >= 1 && kept &&
			    vm_name_cache_get(kept, p[x].ab->b.method, p[x].w.cm, &len)) {
				/* the walk takes it from the cache, with this cm */
				p[x].ab->cm = p[x].w.cm;
				p[x].ab->cm_known = true;
			} else if (rc == -EAGAIN) {
				p[k++] = p[x];
			} else if (rc >= 0) {
				keep_ahead(ba, p[x].ab, p[x].w.cm, name, (size_t)rc);
			}
		}
		n = k;
		vm_lines_fill(m);
	}
	vm_lines_end(m);
	free(p);
}

/* Read the headers (block and blob) of the next blocks the segment map
 * shows from segment i, in a batch, and decode them into ba: up to ba->to,
 * the segment after the last one read. */
static void read_headers(struct vm_mem *m, const struct vm_layout *l, const struct heap *hp,
			 size_t i, struct ahead_batch *ba)
{
	struct vm_range r[AHEAD_BLOCKS];
	size_t seg[AHEAD_BLOCKS], n = 0, taken;

	ba->from = i;
	for (; i < hp->nsegs && n < AHEAD_BLOCKS; i++) {
		uint64_t at = hp->low + ((uint64_t)i << hp->log2seg);

		if (hp->map[i] != 0)
			continue;
		seg[n] = i;
		r[n].addr = at;
		r[n++].len = hp->high - at < l->hb_size + l->nm_span ? (size_t)(hp->high - at) :
			     l->hb_size + l->nm_span;
	}
	taken = n ? vm_prefetch(m, r, n) : 0;
	ba->to = taken < n ? seg[taken] : i;
	if (ba->to <= ba->from)
		ba->to = ba->from + 1;  /* nothing read: the walk reads on alone */
	ba->n = ba->next = ba->names_len = 0;
	for (size_t k = 0; k < taken; k++)
		decode_block(m, l, hp, seg[k], &ba->blk[ba->n++]);
}

/* Whether the batch after the namer's is read and waits for it (the
 * namer is the slower thread).  Called holding the lock. */
static bool behind(const struct ahead *a)
{
	const struct ahead_batch *next = &a->b[(a->want + 1) % AHEAD_RING];

	return next->state == B_READ && next->seq == a->want + 1;
}

/* The namer's thread: names the batches in order as they are read, until
 * told to stop. */
static void *namer(void *arg)
{
	struct ahead *a = arg;
	struct vm_mem mem;

	pthread_setname_np(pthread_self(), "jsym-namer");
	/* its reader is made here, while the walk reads the first batches,
	 * and handed over under the lock (make_ready looks at it); without a
	 * cache name_ahead names nothing, and the walk names every method */
	if (vm_mem_init(&mem, a->mem->read, a->mem->ctx, true) == 0)
		mem.readv = a->mem->readv;
	pthread_mutex_lock(&a->mu);
	a->names_mem = mem;
	for (;;) {
		struct ahead_batch *ba = &a->b[a->want % AHEAD_RING];

		while (!a->stop && !(ba->state == B_READ && ba->seq == a->want))
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		ba->state = B_NAMING;
		/* behind the walk, the Symbols' bytes as read (the walk formats
		 * them); else formatted here, work the walk's thread, the
		 * slower one then, is spared */
		ba->formatted = !behind(a);
		pthread_mutex_unlock(&a->mu);
		name_ahead(&a->names_mem, a->l, NULL, ba);
		pthread_mutex_lock(&a->mu);
		ba->state = B_NAMED;
		a->want++;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

static void lock(struct ahead *a)
{
	if (a->threaded)
		pthread_mutex_lock(&a->mu);
}

static void unlock(struct ahead *a)
{
	if (a->threaded)
		pthread_mutex_unlock(&a->mu);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14 */
#endif
/* The walk's thread, waiting, keeps the namer's cache present up to 4 MiB
 * ahead of the blocks the namer took, 2 MiB (a huge page) at a time: a
 * map's namer uses 10 to 16 MiB of it. */
#define READY_STEP (2u << 20)
#define READY_AHEAD READY_STEP

/* Make the next READY_STEP bytes of the namer's cache present (the
 * kernel zeroes them now, not when the namer first writes them): false
 * when they are far enough ahead, or cannot be.  Called holding the lock,
 * dropped meanwhile. */
static bool make_ready(struct ahead *a)
{
	size_t taken = (size_t)__atomic_load_n(&a->names_mem.blocks, __ATOMIC_RELAXED) * VM_PAGE;
	unsigned char *p = (unsigned char *)a->names_mem.cache_data;
	int rc;

	if (!p || a->ready > taken + READY_AHEAD ||
	    a->ready + READY_STEP > (size_t)VM_CACHE_LINES * VM_PAGE)
		return false;
	unlock(a);
	rc = madvise(p + a->ready, READY_STEP, MADV_POPULATE_WRITE);
	lock(a);
	/* older kernels: EINVAL, and no more tries */
	a->ready = rc ? (size_t)VM_CACHE_LINES * VM_PAGE : a->ready + READY_STEP;
	return true;
}

/* Call the snapshot's idle hook, when there is one and entries were
 * settled since its last call: false when not.  Called holding the lock,
 * dropped meanwhile. */
static bool idle(struct ahead *a)
{
	struct vm_snapshot *s = a->s;

	if (!s || !s->idle || s->settled == a->idled)
		return false;
	a->idled = s->settled;
	unlock(a);
	s->idle(s->idle_ctx, s);
	lock(a);
	return true;
}

/* Wait (holding the lock) until batch ba is named.  Meanwhile the walk's
 * thread lets the snapshot's user go on with the entries settled (idle),
 * and makes the namer's next cache pages present (they are taken in
 * order: vm_line_bytes). */
static void wait_named(struct ahead *a, const struct ahead_batch *ba)
{
	while (a->threaded && ba->state != B_NAMED && (idle(a) || make_ready(a)))
		;
	while (a->threaded && ba->state != B_NAMED)
		pthread_cond_wait(&a->cv, &a->mu);
}

/* Stop the namer and count its reads as the walk's. */
static void ahead_stop(struct ahead *a)
{
	if (!a->threaded)
		return;
	lock(a);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	unlock(a);
	pthread_join(a->thread, NULL);
	a->mem->syscalls += a->names_mem.syscalls;
	a->mem->bytes += a->names_mem.bytes;
	if (!a->mem->fatal)
		a->mem->fatal = a->names_mem.fatal;
	vm_mem_free(&a->names_mem);
	a->threaded = false;
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
}

/*
 * Set the read-ahead of a snapshot up: with the namer when j allows one
 * and no names are kept across snapshots (that cache is the walk's alone),
 * and its reader and thread can be had; without it the walk names each
 * batch itself.  0 or -ENOMEM.
 */
static int ahead_start(struct vm_jvm *j, const struct vm_layout *l, struct vm_name_cache *kept,
		       struct ahead *a)
{
	pthread_attr_t attr;

	for (int k = 0; k < AHEAD_RING; k++)
		if (!(a->b[k].blk = malloc(AHEAD_BLOCKS * sizeof(*a->b[k].blk))))
			return -ENOMEM;
	a->l = l;
	a->mem = &j->mem;
	a->kept = kept;
	if (!j->name_thread || kept || !j->mem.cache)
		return 0;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	/* the namer's frames hold about 50 KiB of buffers: more than some
	 * libcs' default stacks leave room for */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256u << 10);
	a->threaded = pthread_create(&a->thread, &attr, namer, a) == 0;
	pthread_attr_destroy(&attr);
	if (!a->threaded) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
	}
	return 0;
}

static void ahead_free(struct ahead *a)
{
	ahead_stop(a);
	for (int k = 0; k < AHEAD_RING; k++) {
		free(a->b[k].blk);
		free(a->b[k].names);
	}
}

/* Queue the next batch from segment a->pos of heaps[a->ph] (or the next
 * heap's start): read now, named by the namer (or now, without it).
 * False when every heap is read ahead. */
static bool produce(struct ahead *a)
{
	struct ahead_batch *ba = &a->b[a->next % AHEAD_RING];

	for (; a->ph < a->nheaps && a->pos >= a->heaps[a->ph].nsegs; a->ph++)
		a->pos = 0;
	if (a->ph >= a->nheaps)
		return false;
	read_headers(a->mem, a->l, &a->heaps[a->ph], a->pos, ba);
	ba->heap = a->ph;
	a->pos = ba->to;
	ba->seq = a->next++;
	ba->formatted = false;
	if (!a->threaded) {
		name_ahead(a->mem, a->l, a->kept, ba);
		ba->state = B_NAMED;
		return true;
	}
	lock(a);
	ba->state = B_READ;
	pthread_cond_broadcast(&a->cv);
	unlock(a);
	return true;
}

/* The walk's batch, or NULL when none is queued. */
static struct ahead_batch *current(struct ahead *a)
{
	return a->first < a->next ? &a->b[a->first % AHEAD_RING] : NULL;
}

/* Whether the walk, at segment i of heap h, is past batch ba. */
static bool passed(const struct ahead_batch *ba, unsigned h, size_t i)
{
	return ba->heap < h || (ba->heap == h && i >= ba->to);
}

/* The batch that holds segment i of heap h (named), or the one after it
 * (NULL: none): batches wholly before it are let go, the ring filled
 * again. */
static struct ahead_batch *batch_for(struct ahead *a, unsigned h, size_t i)
{
	struct ahead_batch *ba;

	lock(a);
	while ((ba = current(a)) != NULL && passed(ba, h, i)) {
		/* a batch being named is waited for before it is read into
		 * again */
		wait_named(a, ba);
		ba->state = B_FREE;
		a->first++;
	}
	unlock(a);
	if (!current(a)) {
		a->ph = h;              /* the walk went past all read ahead */
		a->pos = i;
	}
	while (a->next - a->first < AHEAD_RING && produce(a))
		;
	if (!(ba = current(a)))
		return NULL;
	lock(a);
	wait_named(a, ba);
	unlock(a);
	return ba;
}

/* The block at segment i: from the batch read ahead, else read now into
 * *scratch. */
static struct ahead_block *block_at(struct vm_jvm *j, const struct vm_layout *l,
				    struct ahead *a, unsigned h, size_t i,
				    struct ahead_block *scratch)
{
	struct ahead_batch *ba = batch_for(a, h, i);

	while (ba && ba->heap == h && ba->next < ba->n && ba->blk[ba->next].seg < i)
		ba->next++;
	if (ba && ba->heap == h && ba->next < ba->n && ba->blk[ba->next].seg == i)
		return &ba->blk[ba->next];
	decode_block(&j->mem, l, &a->heaps[h], i, scratch);
	return scratch;
}

/* The blob of a used block of nseg segments at segment i. */
static int read_blob(struct vm_mem *m, const struct vm_layout *l, const struct heap *hp,
		     size_t i, uint64_t nseg, bool fresh, struct vm_blob *b, char *name,
		     size_t cap)
{
	unsigned char hdr[BLOB_COPY];
	uint64_t block = hp->low + ((uint64_t)i << hp->log2seg);
	uint64_t room = (nseg << hp->log2seg) - l->hb_size;
	size_t n = l->nm_span < room ? l->nm_span : (size_t)room;
	int rc;

	if (l->nm_span > sizeof(hdr) || n < l->blob_span)
		return -EINVAL;
	rc = fresh ? vm_read_fresh(m, block + l->hb_size, hdr, n) :
		     vm_read(m, block + l->hb_size, hdr, n);
	if (rc)
		return rc;
	rc = vm_read_cstr(m, vm_fld_get(hdr, n, l->cb_name), name, cap);
	return vm_blob_decode(l, block + l->hb_size, hdr, n, room, rc < 0 ? NULL : name, b);
}

/*
 * The names of ab's nmethod: *name points at them (*len bytes), named
 * ahead or now into out[cap].  The kept cache answers first, and learns
 * every name found.
 */
static int name_of(struct vm_jvm *j, const struct vm_layout *l, struct ahead *a,
		   const struct ahead_block *ab, char *out, size_t cap, const char **name,
		   size_t *len)
{
	struct vm_name_cache *nc = a->kept;
	uint64_t method = ab->b.method, cm = ab->cm;
	bool have_cm = ab->name_rc == 0 || ab->cm_known;
	int rc;

	if (!have_cm)
		have_cm = vm_read_u64(&j->mem, method + l->m_const_method.off, &cm) == 0;
	if (have_cm && nc && (*name = vm_name_cache_get(nc, method, cm, len)) != NULL) {
		nc->hits++;
		return 0;
	}
	*name = out;
	if (ab->name_rc == 0 && current(a)->formatted) {
		/* formatted by a namer ahead of the walk */
		*name = current(a)->names + ab->name_off;
		rc = (int)ab->name_len;
	} else if (ab->name_rc == 0) {
		/* read ahead as the Symbols' bytes: formatted here, by the
		 * walk, while a namer reads on */
		rc = vm_method_names_raw(current(a)->names + ab->name_off, ab->name_len, out,
					 cap);
	} else {
		rc = vm_method_name(&j->mem, l, method, &cm, out, cap);
	}
	if (rc < 0)
		return rc;
	*len = (size_t)rc;
	if (nc) {
		nc->misses++;
		vm_name_cache_put(nc, method, cm, *name, *len);
	}
	return 0;
}

/* prev's entry at start, or NULL (prev is sorted by start). */
static const struct vm_entry *prev_at(const struct vm_snapshot *prev, uint64_t start)
{
	size_t lo = 0, hi = prev ? prev->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (prev->e[mid].start == start)
			return &prev->e[mid];
		if (prev->e[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The entry just read is the blob prev had there: same block, code, Method
 * and name.  Then it keeps prev's id and needs no revalidation. */
static void match_prev(const struct vm_snapshot *prev, const struct vm_snapshot *s,
		       struct vm_entry *en)
{
	const struct vm_entry *p = prev_at(prev, en->start);

	if (p && p->blob == en->blob && p->size == en->size && p->method == en->method &&
	    p->block_len == en->block_len && p->java == en->java && p->log2seg == en->log2seg &&
	    p->name_len == en->name_len &&
	    !memcmp(prev->names + p->name, s->names + en->name, en->name_len)) {
		en->id = p->id;
		en->known = true;
	}
}

static void revalidate(struct vm_jvm *j, const struct vm_layout *l, struct vm_snapshot *s,
		       size_t *from);

/* The entries read again are settled while the walk's order holds: each
 * starts at or after the end of the one before. */
static void settle_checked(struct ahead *a, struct vm_snapshot *s)
{
	for (size_t k = s->settled ? s->settled : 1; !a->disordered && k < a->checked; k++)
		a->disordered = s->e[k].start < s->e[k - 1].start + s->e[k - 1].size;
	if (!a->disordered)
		s->settled = a->checked;
}

/* A live blob with code: named (its method's name for an nmethod) and
 * added to s.  0, or -errno (-ENOMEM, -E2BIG: the walk ends). */
static int add_blob(struct vm_jvm *j, const struct vm_layout *l, struct ahead *a,
		    const struct ahead_block *ab, unsigned log2seg,
		    const struct vm_snapshot *prev, struct vm_snapshot *s)
{
	const struct vm_blob *b = &ab->b;
	const char *name = ab->blobname;
	size_t nlen = strlen(name) + 1;
	char out[4 * VM_MAX_NAME];
	struct vm_entry en;
	int rc = 0;

	if (b->nmethod)
		rc = name_of(j, l, a, ab, out, sizeof(out), &name, &nlen);
	if (rc == 0 && s->display_only)
		nlen = strnlen(name, nlen - 1) + 1;
	en = (struct vm_entry){ .start = b->code_begin, .size = b->code_size,
				.blob = b->addr, .method = b->method,
				.block_len = ab->nseg, .java = b->nmethod,
				.log2seg = (uint8_t)log2seg,
				.name_len = (uint32_t)nlen };
	if (rc == 0)
		rc = add_name(s, name, nlen, &en.name);
	if (rc == 0) {
		match_prev(prev, s, &en);
		rc = add_entry(s, &en);
	}
	return rc;
}

static int walk_heap(struct vm_jvm *j, const struct vm_layout *l, struct ahead *a,
		     const struct vm_snapshot *prev, unsigned h, struct vm_snapshot *s)
{
	const struct heap *hp = &a->heaps[h];
	struct ahead_block scratch;
	size_t i = 0;

	while (i < hp->nsegs) {
		const struct ahead_block *ab;
		const struct vm_blob *b;
		bool ok = true;
		int rc;

		if (hp->map[i] == SEG_FREE) {
			i++;
			continue;
		}
		if (hp->map[i] != 0) {
			/* inside a block: the previous length lied; next start */
			s->resyncs++;
			while (i < hp->nsegs && hp->map[i] != 0)
				i++;
			continue;
		}
		/* the entries of a batch, once the walk leaves it, are read
		 * again while the namer names the next ones */
		if (current(a) && passed(current(a), h, i)) {
			revalidate(j, l, s, &a->checked);
			settle_checked(a, s);
		}
		ab = block_at(j, l, a, h, i, &scratch);
		b = &ab->b;
		rc = ab->rc;
		for (uint64_t k = 1; rc == 0 && k < ab->nseg; k++)
			if (hp->map[i + k] == 0 || hp->map[i + k] == SEG_FREE)
				rc = -EINVAL;   /* another block starts inside it */
		if (rc) {
			s->resyncs++;
			i++;
			continue;
		}
		s->blocks++;
		if (ab->used) {
			rc = ab->blob_rc;
			if (rc == 0 && !b->alive) {
				s->dead++;
				ok = false;
			} else if (rc == 0 && b->code_size) {
				rc = add_blob(j, l, a, ab, hp->log2seg, prev, s);
				if (rc == -E2BIG)
					return rc;
			} else {
				ok = false;
			}
			if (rc == -ENOMEM)
				return rc;
			if (rc && ok)
				s->dropped++;   /* unreadable or implausible: left out */
		}
		i += ab->nseg;
	}
	return 0;
}

/* Read en's block and blob again, past the cache: 0 when they still say
 * the same, else -ESTALE or -errno.  names: the snapshot en belongs to. */
static int still_there(struct vm_jvm *j, const struct vm_layout *l,
		       const struct vm_snapshot *names, const struct vm_entry *en)
{
	char blobname[256];
	/* the block alone, as a heap of one block starting at it */
	struct heap hp = { .low = en->blob - l->hb_size, .log2seg = en->log2seg,
			   .nsegs = (size_t)en->block_len };
	struct vm_blob b;
	uint64_t nseg;
	bool used;
	int rc = read_block(&j->mem, l, &hp, 0, true, &nseg, &used);

	if (rc == 0 && (!used || nseg != en->block_len))
		rc = -ESTALE;
	if (rc == 0)
		rc = read_blob(&j->mem, l, &hp, 0, nseg, true, &b, blobname, sizeof(blobname));
	if (rc == 0 && (!b.alive || b.nmethod != en->java || b.code_begin != en->start ||
			b.code_size != en->size || b.method != en->method ||
			(!b.nmethod && strcmp(blobname, vm_entry_name(names, en)))))
		rc = -ESTALE;
	return rc;
}

/* Read the blocks of the new entries from s->e[k] on again, in a batch:
 * the entry after the last one read. */
static size_t reread_ahead(struct vm_mem *m, const struct vm_layout *l,
			   const struct vm_snapshot *s, size_t k)
{
	struct vm_range r[VM_AHEAD_RANGES];
	size_t at[VM_AHEAD_RANGES], n = 0, taken;

	for (; k < s->n && n < VM_AHEAD_RANGES; k++) {
		const struct vm_entry *en = &s->e[k];
		uint64_t room = (en->block_len << en->log2seg) - l->hb_size;

		if (en->known)
			continue;
		at[n] = k;
		r[n].addr = en->blob - l->hb_size;
		r[n++].len = l->hb_size + (room < l->nm_span ? (size_t)room : l->nm_span);
	}
	taken = n ? vm_prefetch(m, r, n) : 0;
	return taken < n ? at[taken] : k;
}

/* Read every new entry from s->e[*from] on again, past the cache: keep it
 * only when its block and blob still say the same.  Known ones were
 * checked when they were new, and the walk just found them unchanged.
 * *from then is s->n. */
static void revalidate(struct vm_jvm *j, const struct vm_layout *l, struct vm_snapshot *s,
		       size_t *from)
{
	size_t out = *from, ahead = *from;

	if (*from >= s->n)
		return;                 /* nothing new: the cache is kept */
	vm_mem_refresh(&j->mem);
	for (size_t k = *from; k < s->n; k++) {
		if (k >= ahead)
			ahead = reread_ahead(&j->mem, l, s, k);
		if (s->e[k].known) {
			s->known++;
		} else if (still_there(j, l, s, &s->e[k])) {
			s->dropped++;
			continue;
		}
		s->e[out++] = s->e[k];
	}
	s->n = *from = out;
}

static bool has_id(const struct vm_snapshot *s, const struct vm_entry *p)
{
	for (size_t k = 0; k < s->n; k++)
		if (s->e[k].start == p->start)
			return s->e[k].id == p->id;
	return false;
}

/* After a walk that had to resynchronise: an entry of prev that it missed
 * may still be there, skipped over by a lying length.  Read it again and
 * keep it (with its id) when it is.  s is not sorted yet. */
static int carry_over(struct vm_jvm *j, const struct vm_layout *l,
		      const struct vm_snapshot *prev, struct vm_snapshot *s)
{
	for (size_t k = 0; k < prev->n; k++) {
		const struct vm_entry *p = &prev->e[k];
		struct vm_entry en = *p;
		int rc;

		if (!p->id || has_id(s, p) || still_there(j, l, prev, p))
			continue;
		rc = add_name(s, prev->names + p->name, p->name_len, &en.name);
		if (rc == 0)
			rc = add_entry(s, &en);
		if (rc)
			return rc;
		s->carried++;
	}
	return 0;
}

/* Walked in address order (heaps too, as a rule): then no sort is needed. */
static bool sorted(const struct vm_snapshot *s)
{
	for (size_t k = 1; k < s->n; k++)
		if (s->e[k].start < s->e[k - 1].start)
			return false;
	return true;
}

static int by_start(const void *a, const void *b)
{
	const struct vm_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int vm_snapshot_take(struct vm_jvm *j, const struct vm_layout *l, struct vm_name_cache *nc,
		     struct vm_snapshot *s, struct err_text *e)
{
	return vm_snapshot_rescan(j, l, nc, NULL, s, e);
}

/* The code heaps, opened (bounds, segment maps) up to the cap on their
 * bytes, into hp[*nh], in address order (JDK 17 lists its heaps
 * otherwise): walked so, the entries come sorted, and settle as they are
 * checked.  Every heap is opened before any is walked: the read-ahead
 * goes on from one to the next.  0 or -errno with e set; hp[0..*nh) are
 * the caller's to free either way. */
static int open_heaps(struct vm_jvm *j, const struct vm_layout *l, struct vm_snapshot *s,
		      struct heap *hp, unsigned *nh, struct err_text *e)
{
	uint64_t heaps[VM_MAX_HEAPS], code_bytes = 0;
	uint64_t max_code = s->max_code_bytes ? s->max_code_bytes : VM_MAX_CODE_BYTES;
	int n = 0, rc = find_heaps(&j->mem, l, heaps, &n, e);

	*nh = 0;
	for (int h = 0; rc == 0 && h < n && !s->capped; h++) {
		rc = open_heap(&j->mem, l, heaps[h], &hp[*nh], max_code - code_bytes, e);
		if (rc == -E2BIG) {
			s->capped = "code heap bytes";   /* this heap not read */
			rc = 0;
		} else if (rc == 0) {
			code_bytes += hp[*nh].high - hp[*nh].low;
			(*nh)++;
		} else {
			free(hp[*nh].map);
		}
	}
	for (unsigned h = 1; h < *nh; h++)
		for (unsigned k = h; k > 0 && hp[k].low < hp[k - 1].low; k--) {
			struct heap t = hp[k];

			hp[k] = hp[k - 1];
			hp[k - 1] = t;
		}
	return rc;
}

/* Sorted by start (when the walk's order broke), and without overlaps:
 * they cannot come from one consistent heap, the later one is dropped. */
static void put_in_order(struct vm_snapshot *s)
{
	size_t out = 1;

	if (!sorted(s))
		qsort(s->e, s->n, sizeof(*s->e), by_start);
	for (size_t k = 1; k < s->n; k++) {
		if (s->e[k].start < s->e[out - 1].start + s->e[out - 1].size)
			s->dropped++;
		else
			s->e[out++] = s->e[k];
	}
	if (s->n)
		s->n = out;
}

int vm_snapshot_rescan(struct vm_jvm *j, const struct vm_layout *l, struct vm_name_cache *nc,
		       const struct vm_snapshot *prev, struct vm_snapshot *s,
		       struct err_text *e)
{
	struct heap hp[VM_MAX_HEAPS];
	struct ahead a = { .s = s };
	unsigned nh = 0;
	int rc;

	s->n = 0;
	s->names_len = 0;
	s->heaps = 0;
	s->blocks = 0;
	s->dead = s->dropped = s->resyncs = s->carried = 0;
	s->known = 0;
	s->settled = 0;
	s->partial = false;
	s->capped = NULL;
	vm_mem_refresh(&j->mem);
	rc = open_heaps(j, l, s, hp, &nh, e);
	/* the namer, once there is something to name */
	if (rc == 0 && nh && (rc = ahead_start(j, l, nc, &a)) != 0)
		err_set(e, rc, "out of memory");
	a.heaps = hp;
	a.nheaps = nh;
	for (unsigned h = 0; rc == 0 && h < nh; h++) {
		s->heaps++;
		rc = walk_heap(j, l, &a, prev, h, s);
		if (rc == -ENOMEM)
			err_set(e, rc, "out of memory");
		if (rc == -E2BIG) {
			rc = 0;                 /* s->capped says which */
			break;
		}
	}
	ahead_free(&a);
	for (unsigned h = 0; h < nh; h++)
		free(hp[h].map);
	if (rc)
		return rc;
	revalidate(j, l, s, &a.checked);
	/* has_id is linear: bounded by the rare walks that resynchronised */
	if (prev && s->resyncs && !s->capped && (rc = carry_over(j, l, prev, s)) &&
	    rc != -E2BIG)
		return err_set(e, -ENOMEM, "out of memory");
	/* what was carried over is checked too: in order, or all unsettled */
	a.checked = s->n;
	settle_checked(&a, s);
	if (a.disordered)
		s->settled = 0;
	put_in_order(s);
	s->partial = s->dropped || s->resyncs || s->capped;
	if (j->mem.fatal)
		return err_set(e, j->mem.fatal, "reading the JVM's memory failed: %s",
			       strerror(-j->mem.fatal));
	return 0;
}

void vm_entry_parts(const struct vm_snapshot *s, const struct vm_entry *en, const char **klass,
		    const char **method, const char **sig)
{
	const char *p = s->names + en->name, *end = p + en->name_len;

	*klass = *method = *sig = "";
	if (!en->java)
		return;
	p += strlen(p) + 1;
	if (p < end)
		*klass = p, p += strlen(p) + 1;
	if (p < end)
		*method = p, p += strlen(p) + 1;
	if (p < end)
		*sig = p;
}

void vm_snapshot_free(struct vm_snapshot *s)
{
	free(s->e);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

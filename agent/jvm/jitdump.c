/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jitdump.c - encode perf's jitdump records and keep the dump file open and
 * mapped (jitdump.h).  Fields are written in host byte order, as perf's
 * own JVMTI agent writes them; perf swaps them when the magic reads
 * backwards.
 */
#include "jitdump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsym_arch.h"
#include "outfile.h"

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

int jitdump_put_header(struct bbuf *b, uint32_t pid, uint64_t ts)
{
	int err = 0;
	unsigned char *p = bbuf_reserve(b, JITDUMP_HEADER_SIZE, &err);

	if (!p)
		return err;
	memset(p, 0, JITDUMP_HEADER_SIZE);
	put32(p, JITDUMP_MAGIC);
	put32(p + 4, JITDUMP_VERSION);
	put32(p + 8, JITDUMP_HEADER_SIZE);
	put32(p + 12, JSYM_ELF_MACHINE); /* perf checks it against its own */
	put32(p + 20, pid);          /* pad1 at 16 stays 0 */
	put64(p + 24, ts);
	put64(p + 32, 0);            /* flags: no arch timestamps */
	b->len += JITDUMP_HEADER_SIZE;
	return 0;
}

size_t jitdump_code_load_size(const char *name, uint64_t size)
{
	return JITDUMP_LOAD_FIXED + strlen(name ? name : "") + 1 + (size_t)size;
}

int jitdump_put_code_load(struct bbuf *b, uint64_t ts, uint32_t pid, uint32_t tid,
			  uint64_t addr, uint64_t size, uint64_t index, const char *name)
{
	size_t nlen = strlen(name ? name : "") + 1;
	size_t total = jitdump_code_load_size(name, size);
	unsigned char *p;
	int err = 0;

	if (size == 0 || size > JITDUMP_MAX_CODE || !addr)
		return -EINVAL;
	p = bbuf_reserve(b, total, &err);
	if (!p)
		return err;
	put32(p, JITDUMP_CODE_LOAD);
	put32(p + 4, (uint32_t)total);
	put64(p + 8, ts);
	put32(p + 16, pid);
	put32(p + 20, tid);
	put64(p + 24, addr);         /* vma: where the code runs */
	put64(p + 32, addr);         /* code_addr: the same, nothing relocates */
	put64(p + 40, size);
	put64(p + 48, index);
	memcpy(p + JITDUMP_LOAD_FIXED, name ? name : "", nlen);
	memcpy(p + JITDUMP_LOAD_FIXED + nlen, (const void *)(uintptr_t)addr, size);
	b->len += total;
	return 0;
}

int jitdump_put_debug_info(struct bbuf *b, uint64_t ts, uint64_t code_addr,
			   const struct jitdump_line *e, size_t n)
{
	size_t total = JITDUMP_DEBUG_FIXED, pos;
	unsigned char *p;
	int err = 0;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		total += JITDUMP_DEBUG_ENTRY + strlen(e[i].file ? e[i].file : "") + 1;
		if (total > JITDUMP_MAX_RECORD)
			return -EINVAL;
	}
	p = bbuf_reserve(b, total, &err);
	if (!p)
		return err;
	put32(p, JITDUMP_CODE_DEBUG_INFO);
	put32(p + 4, (uint32_t)total);
	put64(p + 8, ts);
	put64(p + 16, code_addr);
	put64(p + 24, (uint64_t)n);
	pos = JITDUMP_DEBUG_FIXED;
	for (size_t i = 0; i < n; i++) {
		const char *f = e[i].file ? e[i].file : "";
		size_t flen = strlen(f) + 1;

		put64(p + pos, e[i].addr);
		put32(p + pos + 8, e[i].line);
		put32(p + pos + 12, 0);      /* discriminator: none */
		memcpy(p + pos + JITDUMP_DEBUG_ENTRY, f, flen);
		pos += JITDUMP_DEBUG_ENTRY + flen;
	}
	b->len += total;
	return 0;
}

size_t jitdump_unwinding_size(size_t data_len)
{
	return JITDUMP_UNWIND_FIXED + ((data_len + 7) & ~(size_t)7);
}

int jitdump_put_unwinding(struct bbuf *b, uint64_t ts, const void *data, size_t eh_frame_size,
			  size_t hdr_size)
{
	size_t len = eh_frame_size + hdr_size, total = jitdump_unwinding_size(len);
	unsigned char *p;
	int err = 0;

	if (!eh_frame_size || !hdr_size || len > JITDUMP_MAX_UNWIND)
		return -EINVAL;
	p = bbuf_reserve(b, total, &err);
	if (!p)
		return err;
	put32(p, JITDUMP_CODE_UNWINDING_INFO);
	put32(p + 4, (uint32_t)total);
	put64(p + 8, ts);
	put64(p + 16, len);                    /* unwinding_size: both tables */
	put64(p + 24, hdr_size);               /* eh_frame_hdr_size: the last part */
	put64(p + 32, (len + 7) & ~(size_t)7); /* mapped_size: perf maps the tables
						  too, or libunwind cannot read them */
	memcpy(p + JITDUMP_UNWIND_FIXED, data, len);
	memset(p + JITDUMP_UNWIND_FIXED + len, 0, total - JITDUMP_UNWIND_FIXED - len);
	b->len += total;
	return 0;
}

int jitdump_put_close(struct bbuf *b, uint64_t ts)
{
	int err = 0;
	unsigned char *p = bbuf_reserve(b, JITDUMP_PREFIX_SIZE, &err);

	if (!p)
		return err;
	put32(p, JITDUMP_CODE_CLOSE);
	put32(p + 4, JITDUMP_PREFIX_SIZE);
	put64(p + 8, ts);
	b->len += JITDUMP_PREFIX_SIZE;
	return 0;
}

/* The per-pid subdirectory: perf inject writes one jitted-<pid>-<n>.so per
 * record next to the dump, which must not land in /tmp itself. */
static int open_subdir(int dirfd, const char *sub, struct err_text *why)
{
	int fd;

	if (mkdirat(dirfd, sub, 0755) < 0 && errno != EEXIST) {
		int err = -errno;

		err_set(why, 0, "cannot create %s: %s", sub, strerror(-err));
		return err;
	}
	fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		err_set(why, 0, "%s is not a directory we may use (%s): refusing it "
			 "(remove it and load the agent again)", sub,
			 err == -ELOOP ? "a symlink" : strerror(-err));
		return err == -ENOTDIR ? -EPERM : err;
	}
	return fd;
}

int jitdump_open(struct jitdump_file *f, int dirfd, int pid, int append,
		 struct err_text *why)
{
	char sub[64], name[64];
	struct stat st;
	long pg = sysconf(_SC_PAGESIZE);
	int dfd, fd;
	void *m;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	snprintf(sub, sizeof(sub), "jsym-jit-%d", pid);
	snprintf(name, sizeof(name), "jit-%d.dump", pid);
	dfd = open_subdir(dirfd, sub, why);
	if (dfd < 0)
		return dfd;
	fd = outfile_open(dfd, name, O_RDWR | O_APPEND, why);
	close(dfd);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 ||
	    (!(append && st.st_size >= JITDUMP_HEADER_SIZE) && ftruncate(fd, 0) < 0)) {
		int err = -errno;

		err_set(why, 0, "cannot start %s/%s: %s", sub, name, strerror(-err));
		close(fd);
		return err;
	}
	f->fd = fd;
	f->size = append && st.st_size >= JITDUMP_HEADER_SIZE ? (uint64_t)st.st_size : 0;
	if (why)
		why->msg[0] = '\0';
	f->marker_len = pg > 0 ? (size_t)pg : 4096;
	m = mmap(NULL, f->marker_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		err_set(why, 0, "cannot map %s/%s executable: %s (a noexec mount? perf "
			 "record will not see the dump: give dir= on a filesystem that allows "
			 "exec)", sub, name, strerror(errno));
		return 0;
	}
	f->marker = m;
	return 0;
}

void jitdump_close(struct jitdump_file *f)
{
	if (f->marker)
		munmap(f->marker, f->marker_len);
	if (f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

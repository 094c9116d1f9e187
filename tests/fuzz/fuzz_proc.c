/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_proc.c - libFuzzer harness: hostile bytes through every /proc parser
 * of attach/proc/proc.c (status, stat, maps, cmdline, environ, release, the JDK
 * home derivation, maps re-rooted for a chroot), jdk_version.c (libjvm.so's
 * VM string, the version and its verdict) and proc_ct.c (container ids).
 * The buffers are not NUL-terminated, as in real reads.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jdk_version.h"
#include "proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size heap copy, so ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	struct proc_status st;
	struct proc_maps_facts mf;
	struct proc_jvm_opts o;
	char ver[32], home[512];
	uint64_t start;
	char state;
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (proc_parse_status(buf, size, &st) == 0) {
		if (st.ngroups > PROC_MAX_GROUPS || st.ngroups < -1)
			abort();
		if (memchr(st.name, '\0', sizeof(st.name)) == NULL)
			abort();
		(void)proc_catches_signal(&st, SIGQUIT);
	}
	(void)proc_parse_stat(buf, size, &state, &start);
	proc_parse_maps(buf, size, &mf);
	if (memchr(mf.jvm_lib, '\0', sizeof(mf.jvm_lib)) == NULL)
		abort();
	memset(&o, 0, sizeof(o));
	proc_parse_environ(buf, size, &o);
	proc_parse_cmdline(buf, size, &o);
	if (o.n_argfiles < 0 || o.n_argfiles > PROC_MAX_ARGFILES)
		abort();
	for (int i = 0; i < o.n_argfiles; i++)
		if (!memchr(o.argfiles[i], '\0', sizeof(o.argfiles[i])))
			abort();
	proc_parse_argfile(buf, size, &o);
	if (!memchr(o.tmpdir, '\0', sizeof(o.tmpdir)) ||
	    !memchr(o.attach_dir, '\0', sizeof(o.attach_dir)) ||
	    !memchr(o.alt_tmpdir, '\0', sizeof(o.alt_tmpdir)))
		abort();
	r = proc_parse_release(buf, size, ver, sizeof(ver));
	if (r > 0 && !memchr(ver, '\0', sizeof(ver)))
		abort();
	if (mf.jvm_lib[0])
		(void)proc_jdk_home(mf.jvm_lib, home, sizeof(home));
	r = jdk_parse_vm_info(buf, size, ver, sizeof(ver));
	if (r > 0 && !memchr(ver, '\0', sizeof(ver)))
		abort();
	if (r > 0) {
		struct jdk_version jv;
		struct err_text why;

		if (jdk_parse_version(ver, &jv) != 0 || jv.major != r)
			abort();
		(void)jdk_agent_verdict(r, ver, &why);
		if (!memchr(why.msg, '\0', sizeof(why.msg)))
			abort();
	}
	/* a chroot's maps re-rooted: the paths stay terminated and absolute */
	if (mf.loader[0] && proc_maps_in_root(&mf, "/srv/ct") > 0 &&
	    (mf.loader[0] != '/' || !memchr(mf.loader, '\0', sizeof(mf.loader))))
		abort();
	/* a cgroup path (NUL-terminated text here): 12 hex digits or nothing */
	if (size > 0 && !memchr(buf, '\0', size)) {
		char *path = malloc(size + 1), id[PROC_CT_ID_LEN + 1];

		if (path) {
			memcpy(path, buf, size);
			path[size] = '\0';
			r = proc_container_id(path, id, sizeof(id));
			if ((r == 0 && strlen(id) != PROC_CT_ID_LEN) || (r != 0 && id[0]))
				abort();
			free(path);
		}
	}
	free(buf);
	return 0;
}

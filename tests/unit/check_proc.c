/* SPDX-License-Identifier: Apache-2.0 */
/* check_proc.c - /proc parsers (attach/proc/proc.c), including hostile input. */
#include <errno.h>
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "proc.h"

extern Suite *proc_suite(void); /* listed in the runner by tests/tests.mk */

#define S(lit) lit, sizeof(lit) - 1

static const char status_tabs[] =
	"Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\n"
	"Ngid:\t0\nPid:\t4242\nPPid:\t1\nTracerPid:\t0\n"
	"Uid:\t0\t1000\t1000\t1000\nGid:\t0\t1001\t1001\t1001\n"
	"FDSize:\t256\nGroups:\t4 24 27 \nNStgid:\t4242\t17\t1\n"
	"NSpid:\t4242\t17\t1\nSigQ:\t0/63448\nSigPnd:\t0000000000000000\n"
	"SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
	"SigCgt:\t0000000000000004\n";

START_TEST(status_tabs_nested_ns)
{
	struct proc_status st;

	ck_assert_int_eq(proc_parse_status(status_tabs, strlen(status_tabs), &st), 0);
	ck_assert_uint_eq(st.uid[1], 1000);    /* effective = 2nd field */
	ck_assert_uint_eq(st.uid[0], 0);
	ck_assert_uint_eq(st.gid[1], 1001);
	ck_assert_int_eq(st.nspid, 1);         /* last NStgid value */
	ck_assert_int_eq(st.ns_levels, 3);
	ck_assert(proc_catches_signal(&st, SIGQUIT));
	ck_assert(!proc_catches_signal(&st, SIGTERM));
	ck_assert_int_eq(st.ngroups, 3);
	ck_assert_uint_eq(st.groups[2], 27);
	ck_assert_str_eq(st.name, "java");
}
END_TEST

START_TEST(status_spaces_no_trailing_newline)
{
	static const char s[] = "Tgid: 7\nUid: 1 2 3 4\nGid:   5  6 7 8\n"
				"NStgid: 7\nSigCgt: 0000000181005ccf";
	struct proc_status st;

	ck_assert_int_eq(proc_parse_status(S(s), &st), 0);
	ck_assert_uint_eq(st.uid[1], 2);
	ck_assert_uint_eq(st.gid[1], 6);
	ck_assert_int_eq(st.nspid, 7);
	ck_assert(proc_catches_signal(&st, SIGQUIT));
	ck_assert_int_eq(st.ngroups, -1);      /* no Groups: line */
}
END_TEST

START_TEST(status_of_a_thread)
{
	static const char s[] = "Tgid:\t4242\nPid:\t4250\nUid:\t0\t0\t0\t0\n"
				"Gid:\t0\t0\t0\t0\nNStgid:\t4242\t1\n";
	struct proc_status st;

	ck_assert_int_eq(proc_parse_status(S(s), &st), 0);
	ck_assert_int_eq(st.tgid, 4242);
	ck_assert_int_eq(st.pid, 4250);        /* a thread: caller uses tgid */
	ck_assert_int_eq(st.nspid, 1);
}
END_TEST

START_TEST(status_old_kernel_uses_tgid)
{
	static const char s[] = "Tgid:\t99\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n";
	struct proc_status st;

	ck_assert_int_eq(proc_parse_status(S(s), &st), 0);
	ck_assert_int_eq(st.nspid, 99);
	ck_assert_int_eq(st.ns_levels, 0);
	ck_assert(!proc_catches_signal(&st, SIGQUIT));   /* no SigCgt line */
}
END_TEST

START_TEST(status_malformed)
{
	struct proc_status st;

	/* missing Gid */
	ck_assert_int_eq(proc_parse_status(S("Tgid:\t1\nUid:\t0\t0\t0\t0\n"), &st),
			 -EPROTO);
	/* three ids only */
	ck_assert_int_eq(proc_parse_status(S("Tgid:\t1\nUid:\t0\t0\t0\nGid:\t0\t0\t0\t0\n"),
					   &st), -EPROTO);
	/* uid larger than 32 bits */
	ck_assert_int_eq(proc_parse_status(S("Tgid:\t1\nUid:\t0\t99999999999\t0\t0\n"
					     "Gid:\t0\t0\t0\t0\n"), &st), -EPROTO);
	/* (uid_t)-1 is not an id */
	ck_assert_int_eq(proc_parse_status(S("Tgid:\t1\nUid:\t0\t4294967295\t0\t0\n"
					     "Gid:\t0\t0\t0\t0\n"), &st), -EPROTO);
	/* NStgid garbage */
	ck_assert_int_eq(proc_parse_status(S("NStgid:\t1\tx\nUid:\t0\t0\t0\t0\n"
					     "Gid:\t0\t0\t0\t0\n"), &st), -EPROTO);
	/* NStgid 0 */
	ck_assert_int_eq(proc_parse_status(S("NStgid:\t0\nUid:\t0\t0\t0\t0\n"
					     "Gid:\t0\t0\t0\t0\n"), &st), -EPROTO);
	/* no pid at all */
	ck_assert_int_eq(proc_parse_status(S("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"),
					   &st), -EPROTO);
	ck_assert_int_eq(proc_parse_status(S(""), &st), -EPROTO);
	ck_assert_int_eq(proc_parse_status(NULL, 0, &st), -EINVAL);
}
END_TEST

START_TEST(status_sigcgt_too_long_and_nul)
{
	static const char s[] = "Tgid:\t1\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
				"SigCgt:\t00000000000000000004\n";
	static const char z[] = "Tgid:\t1\nUid:\t0\t0\0\t0\t0\nGid:\t0\t0\t0\t0\n";
	struct proc_status st;

	ck_assert_int_eq(proc_parse_status(S(s), &st), 0);
	ck_assert(!st.has_sigcgt);     /* 20 hex digits: not trusted */
	ck_assert(!proc_catches_signal(&st, SIGQUIT));
	ck_assert_int_eq(proc_parse_status(S(z), &st), -EPROTO);
}
END_TEST

START_TEST(status_too_many_groups)
{
	char buf[4096];
	struct proc_status st;
	int n = snprintf(buf, sizeof(buf), "Tgid:\t1\nUid:\t0\t0\t0\t0\n"
			 "Gid:\t0\t0\t0\t0\nGroups:");

	for (int i = 0; i < PROC_MAX_GROUPS + 1; i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %d", i);
	ck_assert_int_eq(proc_parse_status(buf, (size_t)n, &st), 0);
	ck_assert_int_eq(st.ngroups, -1);
}
END_TEST

START_TEST(stat_comm_with_parens)
{
	static const char s[] = "4242 (ja) va (x) S 1 4242 4242 0 -1 4194560 1 0 0 0 "
				"3 4 0 0 20 0 25 0 123456789 1000 100\n";
	uint64_t start;
	char state;

	ck_assert_int_eq(proc_parse_stat(S(s), &state, &start), 0);
	ck_assert_int_eq(state, 'S');
	ck_assert_uint_eq(start, 123456789);
}
END_TEST

START_TEST(stat_malformed)
{
	uint64_t start;
	char state;

	ck_assert_int_eq(proc_parse_stat(S("4242 java S 1 2"), &state, &start), -EPROTO);
	ck_assert_int_eq(proc_parse_stat(S("1 (a) S 1 2 3"), &state, &start), -EPROTO);
	ck_assert_int_eq(proc_parse_stat(S("1 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 "
					   "99999999999999999999999 5"), &state, &start),
			 -EPROTO);
	ck_assert_int_eq(proc_parse_stat(S("1 (a) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 "
					   "5 5"), &state, &start), -EPROTO);
	ck_assert_int_eq(proc_parse_stat(S("1 (a)  S"), &state, &start), -EPROTO);
}
END_TEST

static const char maps_hotspot[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1 /usr/lib/jvm/java-17-openjdk-amd64/bin/java\n"
	"7f0000000000-7f0000100000 r-xp 00000000 08:01 2    /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so\n"
	"7f0000200000-7f0000300000 r-xp 00000000 08:01 3    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f0000400000-7f0000401000 rw-p 00000000 00:00 0 \n"
	"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0    [stack]\n";

START_TEST(maps_hotspot_glibc)
{
	struct proc_maps_facts mf;

	ck_assert_int_eq(proc_parse_maps(S(maps_hotspot), &mf), 0);
	ck_assert_int_eq(mf.kind, PROC_HOTSPOT);
	ck_assert_int_eq(mf.libc, PROC_LIBC_GLIBC);
	ck_assert_str_eq(mf.jvm_lib,
			 "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so");
	/* the file mapped: 08:01 2, and a device of a 12-bit major, 20-bit minor */
	ck_assert_uint_eq((uint64_t)mf.jvm_lib_dev, (uint64_t)makedev(8, 1));
	ck_assert_uint_eq(mf.jvm_lib_ino, 2);
	static const char big[] =
		"7f0000000000-7f0000100000 r-xp 00000000 103:10005 123456789012 /j/lib/server/libjvm.so\n";
	ck_assert_int_eq(proc_parse_maps(S(big), &mf), 0);
	ck_assert_uint_eq((uint64_t)mf.jvm_lib_dev, (uint64_t)makedev(0x103, 0x10005));
	ck_assert_uint_eq(mf.jvm_lib_ino, 123456789012ull);
	static const char bad[] =
		"7f0000000000-7f0000100000 r-xp 00000000 zz:01 5 /j/lib/server/libjvm.so\n";
	ck_assert_int_eq(proc_parse_maps(S(bad), &mf), 0);
	ck_assert_str_eq(mf.jvm_lib, "/j/lib/server/libjvm.so");
	ck_assert_uint_eq(mf.jvm_lib_ino, 0);     /* unknown: never opened */
}
END_TEST

START_TEST(maps_openj9_musl)
{
	static const char s[] =
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /opt/j9/lib/default/libjvm.so\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 4 /opt/j9/lib/default/libj9vm29.so\n"
		"7f0000300000-7f0000400000 r-xp 00000000 08:01 5 /lib/ld-musl-x86_64.so.1\n";
	struct proc_maps_facts mf;

	ck_assert_int_eq(proc_parse_maps(S(s), &mf), 0);
	ck_assert_int_eq(mf.kind, PROC_OPENJ9);
	ck_assert_int_eq(mf.libc, PROC_LIBC_MUSL);
	ck_assert_str_eq(mf.jvm_lib, "/opt/j9/lib/default/libj9vm29.so");
}
END_TEST

START_TEST(maps_loader_and_agent)
{
	/* Debian's musl package: the loader link resolves to a libc.so in a
	 * musl directory; a jsym agent already mapped from a copy; a memfd
	 * agent, deleted, is not taken over the first one */
	static const char deb_musl[] =
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /opt/jdk/lib/server/libjvm.so\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 3 /usr/lib/x86_64-linux-musl/libc.so\n"
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 4 /tmp/jsym-0123456789ab-42/musl/libjsym-agent.so\n"
		"7f0000300000-7f0000400000 r-xp 00000000 00:01 5 /memfd:jsym-agent-musl (deleted)\n";
	static const char glibc[] =
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /opt/jdk/lib/server/libjvm.so\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 3 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 4 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
		"7f0000300000-7f0000400000 r-xp 00000000 00:01 5 /memfd:jsym-agent-glibc (deleted)\n";
	/* a libc.so.6 shim on musl (gcompat): musl wins, musl's loader */
	static const char shim[] =
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 3 /lib/libc.so.6\n"
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 4 /lib/ld-musl-x86_64.so.1\n"
		"7f0000300000-7f0000400000 r-xp 00000000 08:01 5 /lib/libc.so\n";
	struct proc_maps_facts mf;

	ck_assert_int_eq(proc_parse_maps(S(deb_musl), &mf), 0);
	ck_assert_int_eq(mf.libc, PROC_LIBC_MUSL);
	ck_assert_str_eq(mf.loader, "/usr/lib/x86_64-linux-musl/libc.so");
	ck_assert_str_eq(mf.agent, "/tmp/jsym-0123456789ab-42/musl/libjsym-agent.so");
	ck_assert(!mf.agent_deleted);

	ck_assert_int_eq(proc_parse_maps(S(glibc), &mf), 0);
	ck_assert_int_eq(mf.libc, PROC_LIBC_GLIBC);
	ck_assert_str_eq(mf.loader, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
	ck_assert_str_eq(mf.agent, "/memfd:jsym-agent-glibc");
	ck_assert(mf.agent_deleted);

	ck_assert_int_eq(proc_parse_maps(S(shim), &mf), 0);
	ck_assert_int_eq(mf.libc, PROC_LIBC_MUSL);
	ck_assert_str_eq(mf.loader, "/lib/ld-musl-x86_64.so.1");
	ck_assert_str_eq(mf.agent, "");
}
END_TEST

START_TEST(maps_rerooted_for_a_chrooted_jvm)
{
	/* the musl emulator chrooted at /srv/ct of its mount namespace, maps
	 * read from the host: the namespace's names, the JVM's are below */
	static const char chrooted[] =
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /srv/ct/opt/jdk/lib/server/libjvm.so\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 4 /srv/ct/lib/ld-musl-x86_64.so.1\n"
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 5 /srv/ct/tmp/jsym-0123456789ab-1-7/musl/libjsym-agent.so\n";
	/* a library mapped before the chroot, and a memfd agent */
	static const char outside[] =
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /srv/ctx/lib/server/libjvm.so\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 4 /srv/ct\n"
		"7f0000300000-7f0000400000 r-xp 00000000 00:01 5 /memfd:jsym-agent-musl (deleted)\n";
	struct proc_maps_facts mf;

	ck_assert_int_eq(proc_parse_maps(S(chrooted), &mf), 0);
	ck_assert_int_eq(proc_maps_in_root(&mf, "/srv/ct"), 3);
	ck_assert_str_eq(mf.jvm_lib, "/opt/jdk/lib/server/libjvm.so");
	ck_assert_str_eq(mf.loader, "/lib/ld-musl-x86_64.so.1");
	ck_assert_str_eq(mf.agent, "/tmp/jsym-0123456789ab-1-7/musl/libjsym-agent.so");
	/* once: the paths are the JVM's now */
	ck_assert_int_eq(proc_maps_in_root(&mf, "/srv/ct/"), 0);
	ck_assert_str_eq(mf.loader, "/lib/ld-musl-x86_64.so.1");

	/* "/" and "" (root unreadable) change nothing, nor does a relative name */
	ck_assert_int_eq(proc_parse_maps(S(chrooted), &mf), 0);
	ck_assert_int_eq(proc_maps_in_root(&mf, "/"), 0);
	ck_assert_int_eq(proc_maps_in_root(&mf, ""), 0);
	ck_assert_int_eq(proc_maps_in_root(&mf, "srv"), 0);
	ck_assert_str_eq(mf.loader, "/srv/ct/lib/ld-musl-x86_64.so.1");

	/* a sibling directory with the same prefix is not below the root */
	ck_assert_int_eq(proc_parse_maps(S(outside), &mf), 0);
	ck_assert_int_eq(proc_maps_in_root(&mf, "/srv/ct"), 0);
	ck_assert_str_eq(mf.jvm_lib, "/srv/ctx/lib/server/libjvm.so");
	ck_assert_str_eq(mf.agent, "/memfd:jsym-agent-musl");
	ck_assert_int_eq(proc_maps_in_root(NULL, "/"), -EINVAL);
	ck_assert_int_eq(proc_maps_in_root(&mf, NULL), -EINVAL);
}
END_TEST

START_TEST(container_id_of_each_runtime)
{
	/* cgroup paths as /proc/<pid>/cgroup shows them under each runtime and
	 * cgroup driver (the ids are made up, the shapes are the runtimes') */
#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	static const char *const with_id[] = {
		"/docker/" ID,                                          /* Docker, cgroupfs */
		"/system.slice/docker-" ID ".scope",                    /* Docker, systemd */
		"/user.slice/user-1000.slice/user@1000.service/docker-" ID ".scope", /* rootless */
		"/kubepods/besteffort/pod8d3c2b0e-4f1a-4a55-9d47-2b7f0c1e9a11/" ID, /* containerd */
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d3c2b0e_4f1a_4a55_9d47_2b7f0c1e9a11.slice/cri-containerd-" ID ".scope",
		"/k8s.io/" ID,                                          /* containerd, its namespace */
		"/kubepods/burstable/pod8d3c2b0e-4f1a-4a55-9d47-2b7f0c1e9a11/crio-" ID, /* CRI-O */
		"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8d3c.slice/crio-" ID ".scope",
		"/libpod_parent/libpod-" ID,                            /* podman, cgroupfs */
		"/machine.slice/libpod-" ID ".scope",                   /* podman, systemd */
		"/machine.slice/libpod-" ID ".scope/container",         /* podman, v2 leaf */
		"/system.slice/docker-" ID ".scope/init.scope",         /* systemd inside */
	};
	static const char *const without[] = {
		"/", "", "/user.slice/user-0.slice/session-3.scope",
		"/machine.slice/libpod-conmon-" ID ".scope",            /* podman's conmon */
		"/kubepods.slice/crio-conmon-" ID ".scope",             /* CRI-O's conmon */
		"/docker/" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde", /* 63 */
		"/docker/" "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
		"/docker/" ID "0",
		"/docker-" ID ".scopes",
	};
	char out[PROC_CT_ID_LEN + 1];

	for (size_t i = 0; i < sizeof(with_id) / sizeof(with_id[0]); i++) {
		ck_assert_msg(proc_container_id(with_id[i], out, sizeof(out)) == 0,
			      "no id in %s", with_id[i]);
		ck_assert_str_eq(out, "0123456789ab");
	}
	for (size_t i = 0; i < sizeof(without) / sizeof(without[0]); i++) {
		ck_assert_msg(proc_container_id(without[i], out, sizeof(out)) == -ENOENT,
			      "an id in %s", without[i]);
		ck_assert_str_eq(out, "");
	}
	/* the deepest id wins: a runtime nested in a container (kind, DinD) */
	ck_assert_int_eq(proc_container_id("/docker/" ID "/docker/"
					   "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
					   out, sizeof(out)), 0);
	ck_assert_str_eq(out, "fedcba987654");
	ck_assert_int_eq(proc_container_id("/docker/" ID, out, PROC_CT_ID_LEN), -EINVAL);
	ck_assert_int_eq(proc_container_id(NULL, out, sizeof(out)), -EINVAL);
#undef ID
}
END_TEST

START_TEST(cgroup_path_of_a_proc_file)
{
	/* hybrid cgroup v1: the unified line last; v2: one line; v1 only */
	static const char hybrid[] =
		"4:memory:/docker/abc\n1:name=systemd:/docker/abc\n0::/docker/abc\n";
	static const char v1[] = "2:memory:/kubepods/x\n1:cpu:/kubepods/y";
	char out[64];

	ck_assert_int_eq(proc_cgroup_path(S(hybrid), out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/docker/abc");
	ck_assert_int_eq(proc_cgroup_path(S(v1), out, sizeof(out)), 0);
	ck_assert_str_eq(out, "1:cpu:/kubepods/y");
	ck_assert_int_eq(proc_cgroup_path("0::/\n", 5, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/");
	ck_assert_int_eq(proc_cgroup_path("\n\n", 2, out, sizeof(out)), -ENOENT);
	ck_assert_str_eq(out, "");
	/* cut at the buffer, terminated */
	ck_assert_int_eq(proc_cgroup_path(S(hybrid), out, 6), 0);
	ck_assert_str_eq(out, "/dock");
	ck_assert_int_eq(proc_cgroup_path(NULL, 0, out, sizeof(out)), -EINVAL);
}
END_TEST

START_TEST(other_container_without_ns_links)
{
#define JVM "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define CAR "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	/* the namespaces decide when they could be compared */
	ck_assert(proc_other_container(1, 0, "/", "/"));
	ck_assert(proc_other_container(0, 1, "/", "/"));
	ck_assert(proc_other_container(-1, 1, "/", "/"));
	ck_assert(!proc_other_container(0, 0, "/docker/" JVM, "/"));
	/* a sidecar without CAP_SYS_PTRACE (issue 25): the ns links are
	 * refused, the cgroup file is not; its id says container */
	ck_assert(proc_other_container(-1, -1, "/docker/" JVM, "/docker/" CAR));
	ck_assert(proc_other_container(-1, -1,
		"/kubepods/besteffort/pod8d3c2b0e-4f1a-4a55-9d47-2b7f0c1e9a11/" JVM,
		"/kubepods/besteffort/pod8d3c2b0e-4f1a-4a55-9d47-2b7f0c1e9a11/" CAR));
	ck_assert(proc_other_container(-1, -1, "/docker/" JVM, ""));
	ck_assert(proc_other_container(-1, 0, "/docker/" JVM, "/"));
	/* jsym's own container, or no id at all: not another container */
	ck_assert(!proc_other_container(-1, -1, "/docker/" JVM, "/docker/" JVM));
	ck_assert(!proc_other_container(-1, -1, "/user.slice/session-3.scope", "/"));
	ck_assert(!proc_other_container(-1, -1, "/", "/docker/" CAR));
	ck_assert(!proc_other_container(-1, -1, NULL, NULL));
#undef JVM
#undef CAR
}
END_TEST

START_TEST(maps_glibc_before_2_34)
{
	/* Debian 11, RHEL 8: the sonames link to versioned files, and the maps
	 * show those; a library that only looks similar is no libc */
	static const char bullseye[] =
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 3 /usr/lib/x86_64-linux-gnu/libpthread-2.31.so\n"
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 4 /usr/lib/x86_64-linux-gnu/libc-2.31.so\n"
		"7f0000300000-7f0000400000 r-xp 00000000 08:01 5 /usr/lib/x86_64-linux-gnu/ld-2.31.so\n";
	static const char lookalikes[] =
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /opt/jdk/lib/server/libjvm.so\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 3 /opt/app/libc-client.so\n"
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 4 /opt/app/libc-2..so\n"
		"7f0000300000-7f0000400000 r-xp 00000000 08:01 5 /opt/app/ld-2.so\n"
		"7f0000400000-7f0000500000 r-xp 00000000 08:01 6 /opt/app/ld-2.31.so.bak\n";
	struct proc_maps_facts mf;

	ck_assert_int_eq(proc_parse_maps(S(bullseye), &mf), 0);
	ck_assert_int_eq(mf.kind, PROC_HOTSPOT);
	ck_assert_int_eq(mf.libc, PROC_LIBC_GLIBC);
	ck_assert_str_eq(mf.loader, "/usr/lib/x86_64-linux-gnu/ld-2.31.so");

	ck_assert_int_eq(proc_parse_maps(S(lookalikes), &mf), 0);
	ck_assert_int_eq(mf.libc, PROC_LIBC_UNKNOWN);
	ck_assert_str_eq(mf.loader, "");
}
END_TEST

START_TEST(maps_not_jvm_by_name)
{
	/* a binary called java, a file named like libjvm.so.bak, a path
	 * with spaces and (deleted): none makes a process a JVM */
	static const char s[] =
		"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1 /usr/bin/java\n"
		"7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /tmp/libjvm.so.bak\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:01 3 /tmp/a b/libc.so.6 (deleted)\n"
		"7f0000200000-7f0000300000 r-xp 00000000 08:01 4 libjvm.so\n"
		"garbage\n\n\n7f 7f 7f";
	struct proc_maps_facts mf;

	ck_assert_int_eq(proc_parse_maps(S(s), &mf), 0);
	ck_assert_int_eq(mf.kind, PROC_NOT_JVM);
	ck_assert_int_eq(mf.libc, PROC_LIBC_GLIBC);  /* deleted still glibc */
	ck_assert_str_eq(mf.jvm_lib, "");
}
END_TEST

START_TEST(maps_huge_path_truncated_safely)
{
	size_t n = 5000;
	char *s = malloc(n + 64);
	struct proc_maps_facts mf;
	int k = snprintf(s, 64, "7f00-7f01 r-xp 0 08:01 2 /");

	memset(s + k, 'a', n);
	memcpy(s + k + n - 10, "/libjvm.so", 10);
	ck_assert_int_eq(proc_parse_maps(s, (size_t)k + n, &mf), 0);
	ck_assert_int_eq(mf.kind, PROC_HOTSPOT);
	ck_assert_str_eq(mf.jvm_lib, "");           /* too long to keep */
	free(s);
}
END_TEST

START_TEST(cmdline_flags)
{
	static const char s[] = "java\0-Xmx64m\0-XX:+DisableAttachMechanism\0-cp\0-Xrs\0"
				"Main\0-Xrs\0-XX:-DisableAttachMechanism";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(s), &o), 0);
	ck_assert(o.disable_attach);
	ck_assert(!o.xrs);       /* -cp's value and the app's args are not ours */
}
END_TEST

START_TEST(cmdline_jar_and_last_wins)
{
	static const char s[] = "/opt/java/bin/java\0-Xrs\0-XX:+DisableAttachMechanism\0"
				"-XX:-DisableAttachMechanism\0-jar\0app.jar\0-XX:+DisableAttachMechanism";
	static const char none[] = "java";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(s), &o), 0);
	ck_assert(o.xrs);
	ck_assert(!o.disable_attach);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(none), &o), 0);
	ck_assert_int_eq(proc_parse_cmdline(S(""), &o), 0);
	ck_assert(!o.xrs && !o.disable_attach);
}
END_TEST

/* An arm64 JVM under qemu-user: the emulator's words come first. */
START_TEST(cmdline_under_emulator)
{
	static const char binfmt_p[] = "/usr/libexec/qemu-binfmt/aarch64-binfmt-P\0"
		"/usr/lib/jvm/java-17-openjdk-arm64/bin/java\0java\0-Xrs\0"
		"-XX:+DisableAttachMechanism\0Main";
	static const char binfmt[] = "/usr/bin/qemu-aarch64-static\0"
		"/usr/lib/jvm/java-17-openjdk-arm64/bin/java\0-XX:+DisableAttachMechanism\0Main";
	static const char by_hand[] = "qemu-aarch64\0-L\0/srv/arm64\0-cpu\0max\0"
		"/srv/arm64/bin/java\0-Xrs\0-jar\0app.jar\0-XX:+DisableAttachMechanism";
	static const char not_emu[] = "/opt/qemu-tools/java\0-Xrs\0Main";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(binfmt_p), &o), 0);
	ck_assert(o.xrs && o.disable_attach);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(binfmt), &o), 0);
	ck_assert(o.disable_attach);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(by_hand), &o), 0);
	ck_assert(o.xrs && !o.disable_attach);   /* after -jar: the app's */
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(not_emu), &o), 0);
	ck_assert(o.xrs);
}
END_TEST

START_TEST(cmdline_records_argfiles)
{
	static const char s[] = "java\0@opts\0@/etc/jvm.args\0@@literal\0@\0"
				"--disable-@files\0@later\0Main\0@app";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(s), &o), 0);
	ck_assert_int_eq(o.n_argfiles, 2);
	ck_assert_str_eq(o.argfiles[0], "opts");
	ck_assert_str_eq(o.argfiles[1], "/etc/jvm.args");
}
END_TEST

START_TEST(argfile_options)
{
	/* quoting, comments, a -cp value that looks like a flag, CRLF */
	static const char a[] = "# JVM flags\r\n-Xmx64m \"-XX:+Disable\\\nAttach\"\n"
				"-cp '-Xrs'\t-XX:+DisableAttach'Mechanism' # trailing\n";
	static const char b[] = "-Xrs\nMain -XX:+DisableAttachMechanism\n";
	static const char c[] = "-XX:+DisableAttachMechanism \"unterminated";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_argfile(S(a), &o), 0);
	ck_assert(o.disable_attach);
	ck_assert(!o.xrs);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_argfile(S(b), &o), 0);
	ck_assert(o.xrs);
	ck_assert(!o.disable_attach);   /* after the main class: the app's */
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_argfile(S(c), &o), 0);
	ck_assert(o.disable_attach);
	ck_assert_int_eq(proc_parse_argfile(NULL, 0, &o), -EINVAL);
}
END_TEST

START_TEST(environ_options_and_tmpdir)
{
	static const char s[] = "PATH=/bin\0JAVA_TOOL_OPTIONS=-Xmx1g  -Xrs\t-Dx=y\0"
				"TMPDIR=/var/tmp\0JDK_JAVA_OPTIONS=-XX:+DisableAttachMechanism";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_environ(S(s), &o), 0);
	ck_assert(o.environ_read);
	ck_assert(o.xrs);
	ck_assert(o.disable_attach);
	ck_assert_str_eq(o.tmpdir, "/var/tmp");
}
END_TEST

START_TEST(environ_hostile)
{
	char big[600];
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	memcpy(big, "TMPDIR=", 7);
	memset(big + 7, 'x', sizeof(big) - 7);
	ck_assert_int_eq(proc_parse_environ(big, sizeof(big), &o), 0);
	ck_assert_str_eq(o.tmpdir, "");     /* too long: not kept, not cut */
	ck_assert_int_eq(proc_parse_environ(S("JAVA_TOOL_OPTIONS="), &o), 0);
	ck_assert_int_eq(proc_parse_environ(S("\0\0\0"), &o), 0);
	ck_assert_int_eq(proc_parse_environ(NULL, 0, &o), -EINVAL);
}
END_TEST

START_TEST(attach_dir_option)
{
	static const char s[] = "java\0-Dcom.ibm.tools.attach.directory=/x/y\0Main";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_cmdline(S(s), &o), 0);
	ck_assert_str_eq(o.attach_dir, "/x/y");
}
END_TEST

START_TEST(maps_perfdata_dir)
{
	/* JDK 28 with -XX:AltTempDir=/alt maps /alt/hsperfdata_<user>/<pid> */
	static const char m[] =
		"7f9cab664000-7f9cab66c000 rw-s 00000000 fe:00 10961194   /alt/hsperfdata_uid1000/1\n";
	static const char tmp[] =
		"7f00-7f01 rw-s 00000000 fe:00 1   /tmp/hsperfdata_app/4242\n";
	/* deleted, not digits, at the root, another directory name */
	static const char no[] =
		"7f00-7f01 rw-s 00000000 fe:00 1   /x/hsperfdata_a/7 (deleted)\n"
		"7f00-7f01 rw-s 00000000 fe:00 1   /x/hsperfdata_a/7a\n"
		"7f00-7f01 rw-s 00000000 fe:00 1   /hsperfdata_a/7\n"
		"7f00-7f01 rw-s 00000000 fe:00 1   /x/perfdata_a/7\n";
	struct proc_maps_facts mf;

	ck_assert_int_eq(proc_parse_maps(S(m), &mf), 0);
	ck_assert_str_eq(mf.perfdata_dir, "/alt");
	ck_assert_int_eq(proc_parse_maps(S(tmp), &mf), 0);
	ck_assert_str_eq(mf.perfdata_dir, "/tmp");
	ck_assert_int_eq(proc_parse_maps(S(no), &mf), 0);
	ck_assert_str_eq(mf.perfdata_dir, "");
}
END_TEST

START_TEST(alt_temp_dir_option)
{
	/* JDK 28's -XX:AltTempDir: the command line after the environment,
	 * the last word wins, an empty value or one after the main class is
	 * not the JVM's */
	static const char env[] = "JAVA_TOOL_OPTIONS=-XX:AltTempDir=/env\0"
				  "JDK_JAVA_OPTIONS=-Xmx1g -XX:AltTempDir=/jdkenv";
	static const char cmd[] = "java\0-XX:AltTempDir=/a\0-XX:AltTempDir=/b\0Main\0"
				  "-XX:AltTempDir=/app";
	static const char empty[] = "java\0-XX:AltTempDir=\0Main";
	struct proc_jvm_opts o;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_environ(S(env), &o), 0);
	ck_assert_str_eq(o.alt_tmpdir, "/jdkenv");
	ck_assert_int_eq(proc_parse_cmdline(S(cmd), &o), 0);
	ck_assert_str_eq(o.alt_tmpdir, "/b");
	ck_assert_int_eq(proc_parse_cmdline(S(empty), &o), 0);
	ck_assert_str_eq(o.alt_tmpdir, "");
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(proc_parse_argfile(S("-XX:AltTempDir='/with space'\nMain"), &o), 0);
	ck_assert_str_eq(o.alt_tmpdir, "/with space");
}
END_TEST

START_TEST(release_versions)
{
	char v[32];

	ck_assert_int_eq(proc_parse_release(S("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"17.0.9\"\n"),
					    v, sizeof(v)), 17);
	ck_assert_str_eq(v, "17.0.9");
	ck_assert_int_eq(proc_parse_release(S("JAVA_VERSION=\"1.8.0_412\""), v, sizeof(v)), 8);
	ck_assert_int_eq(proc_parse_release(S("JAVA_VERSION=\"25\""), v, sizeof(v)), 25);
	ck_assert_int_eq(proc_parse_release(S("JAVA_VERSION=\"\"\n"), v, sizeof(v)), -EPROTO);
	ck_assert_int_eq(proc_parse_release(S("JAVA_VERSION=\"17"), v, sizeof(v)), -EPROTO);
	ck_assert_int_eq(proc_parse_release(S("JAVA_VERSION=\"abc\""), v, sizeof(v)), -EPROTO);
	ck_assert_int_eq(proc_parse_release(S("OTHER=1\n"), v, sizeof(v)), -ENOENT);
	ck_assert_int_eq(proc_parse_release(S("JAVA_VERSION=\"99999999999\""), v, sizeof(v)),
			 -EPROTO);
	ck_assert_int_eq(proc_parse_release(S("JAVA_VERSION=\"17.0.9\""), v, 4), -ENAMETOOLONG);
}
END_TEST

START_TEST(jdk_home_layouts)
{
	char h[256];

	ck_assert_int_eq(proc_jdk_home("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so",
				       h, sizeof(h)), 0);
	ck_assert_str_eq(h, "/usr/lib/jvm/java-17-openjdk-amd64");
	ck_assert_int_eq(proc_jdk_home("/opt/jdk8/jre/lib/amd64/server/libjvm.so", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "/opt/jdk8");
	ck_assert_int_eq(proc_jdk_home("/opt/j9/lib/default/libj9vm29.so", h, sizeof(h)), 0);
	ck_assert_str_eq(h, "/opt/j9");
	ck_assert_int_eq(proc_jdk_home("libjvm.so", h, sizeof(h)), -EINVAL);
	ck_assert_int_eq(proc_jdk_home("/libjvm.so", h, sizeof(h)), -EINVAL);
	ck_assert_int_eq(proc_jdk_home("/a/b/libjvm.so", h, 5), -ENAMETOOLONG);
}
END_TEST

Suite *proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("parsers");

	tcase_add_test(tc, status_tabs_nested_ns);
	tcase_add_test(tc, status_spaces_no_trailing_newline);
	tcase_add_test(tc, status_of_a_thread);
	tcase_add_test(tc, status_old_kernel_uses_tgid);
	tcase_add_test(tc, status_malformed);
	tcase_add_test(tc, status_sigcgt_too_long_and_nul);
	tcase_add_test(tc, status_too_many_groups);
	tcase_add_test(tc, stat_comm_with_parens);
	tcase_add_test(tc, stat_malformed);
	tcase_add_test(tc, maps_hotspot_glibc);
	tcase_add_test(tc, maps_openj9_musl);
	tcase_add_test(tc, maps_loader_and_agent);
	tcase_add_test(tc, maps_rerooted_for_a_chrooted_jvm);
	tcase_add_test(tc, container_id_of_each_runtime);
	tcase_add_test(tc, cgroup_path_of_a_proc_file);
	tcase_add_test(tc, other_container_without_ns_links);
	tcase_add_test(tc, maps_glibc_before_2_34);
	tcase_add_test(tc, maps_not_jvm_by_name);
	tcase_add_test(tc, maps_huge_path_truncated_safely);
	tcase_add_test(tc, cmdline_flags);
	tcase_add_test(tc, cmdline_jar_and_last_wins);
	tcase_add_test(tc, cmdline_under_emulator);
	tcase_add_test(tc, cmdline_records_argfiles);
	tcase_add_test(tc, argfile_options);
	tcase_add_test(tc, environ_options_and_tmpdir);
	tcase_add_test(tc, environ_hostile);
	tcase_add_test(tc, attach_dir_option);
	tcase_add_test(tc, alt_temp_dir_option);
	tcase_add_test(tc, maps_perfdata_dir);
	tcase_add_test(tc, release_versions);
	tcase_add_test(tc, jdk_home_layouts);
	suite_add_tcase(s, tc);
	return s;
}

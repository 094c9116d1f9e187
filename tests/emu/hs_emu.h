/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_emu.h - shared state of the HotSpot JVM emulator (test tool).
 *
 * The emulator plays a JDK 17 HotSpot JVM on Linux for the tests: the attach
 * side of docs/protocols.md A2-A8 (hs_emu_listen.c, hs_emu_ops.c), a JavaVM /
 * jvmtiEnv / JNIEnv surface wide enough for libjsym-agent.so (hs_emu_vm.c,
 * hs_emu_jvmti.c, hs_emu_jvmti_query.c, hs_emu_jni.c, hs_emu_stubs.c) and a
 * synthetic JIT that posts CompiledMethodLoad/Unload and
 * DynamicCodeGenerated and writes the truth (hs_emu_gen.c, hs_emu_catalog.c).
 * docs/emulators.md describes it from the outside.
 *
 * It includes no header of attach/ or agent/ (only jni.h and jvmti.h), so
 * it can disagree with the project's code and the tests notice.
 */
#ifndef JSYM_HS_EMU_H
#define JSYM_HS_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jvmti.h>

#define HS_EMU_JAVA_VERSION "17.0.99"

struct hs_opts {
	const char *libjvm;     /* --libjvm: file named libjvm.so, dlopened */
	const char *truth;      /* --truth: live code, perf-map lines */
	const char *log;        /* --log: what the tests assert on */
	unsigned events;        /* --events: code events after attach, then idle */
	unsigned rate;          /* --rate: events per second, 0 = no pause */
	unsigned initial;       /* --initial: methods compiled before any attach */
	unsigned stubs;         /* --stubs: stubs generated at start */
	unsigned reuse_pct;     /* --reuse: loads that take a freed slot */
	unsigned unload_pct;    /* --unload: share of unloads among events */
	unsigned late_pct;      /* --late-unload: replace with the unload posted late */
	unsigned stub_pct;      /* --stub-events: new stubs among events */
	unsigned truth_ms;      /* --truth-ms: least time between truth rewrites */
	unsigned seed;          /* --seed */
	bool inline_info;       /* --inline-info: compile_info with inline records */
	bool jvmti_strict;      /* --strict: abort on a missing JVMTI function too */
};

struct hs_emu {
	struct hs_opts o;
	char home[1024];        /* java.home: the libjvm path minus lib/server */
	pid_t pid;              /* our own getpid() (the nspid of a container) */
	uid_t euid;
	gid_t egid;
};

extern struct hs_emu emu;

/* hs_emu.c ---------------------------------------------------------------- */

/* Append "hs_emu: <text>" to the --log file; thread-safe, never fails. */
void emu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Say what went wrong on stderr and in the log, then abort(): for JNI/JVMTI
 * misuse and missing functions, which a test must not miss. */
_Noreturn void emu_abort(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "Full thread dump ..." text into buf (NUL-terminated, truncated). */
void emu_thread_dump(char *buf, size_t cap);
/* SIGQUIT without an attach request: the dump on our stdout, as HotSpot. */
void emu_print_thread_dump(void);

/* hs_emu_listen.c: the attach listener ---------------------------------- */

/* SIGQUIT arrived (called on the signal-dispatcher thread): start the
 * listener if the trigger is valid, else print a thread dump (A2). */
void listener_on_sigquit(void);
/* Remove /tmp/.java_pid<pid> (at exit, as HotSpot does). */
void listener_shutdown(void);

/* hs_emu_ops.c: the attach operations ----------------------------------- */

/* A reply body being built (malloc'd p). */
struct out {
	char *p;
	size_t len, cap;
};

void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Run the request s[] = { "1", name, arg0, arg1, arg2 } on the calling
 * (listener) thread; the reply body goes to *o.  Returns the result code
 * of the reply's first line (0, or -1 = JNI_ERR). */
int ops_run(char *const s[5], struct out *o);
/* Agent_OnUnload of every library whose Agent_OnAttach returned 0. */
void listener_unload_agents(void);

/* hs_emu_vm.c: JavaVM, threads, objects -------------------------------- */

enum emu_obj_kind { OBJ_CLASS = 1, OBJ_STRING, OBJ_THREAD };

/* Header of everything handed out as a jobject/jclass/jstring. */
struct emu_obj {
	uint32_t magic;
	enum emu_obj_kind kind;
};

struct emu_class {
	struct emu_obj hdr;     /* jclass points here */
	const char *sig;        /* JVMTI class signature: "Lpkg/Cls;" */
	const char *internal;   /* FindClass name: "pkg/Cls" */
};

struct emu_method {
	uint32_t magic;         /* jmethodID points here */
	const struct emu_class *cls;
	const char *name;
	const char *sig;
	const char *expect;     /* the agent's display name, written by hand */
};

struct emu_string {
	struct emu_obj hdr;
	char *utf;
};

struct emu_thread_obj {
	struct emu_obj hdr;     /* a java.lang.Thread not yet started */
	char *name;
	bool started;
};

#define EMU_OBJ_MAGIC 0x4f424a21u
#define EMU_METHOD_MAGIC 0x4d544821u

/* The one JavaVM of this process. */
JavaVM *vm_javavm(void);
/* Make the calling thread a "Java thread" with its own JNIEnv (named for
 * thread dumps); idempotent.  vm_detach_thread() undoes it. */
JNIEnv *vm_attach_thread(const char *name);
void vm_detach_thread(void);
/* The calling thread's JNIEnv, or NULL when it is not attached. */
JNIEnv *vm_current_env(void);
/* Start a detached pthread that attaches as NAME and runs fn(arg).
 * Returns 0 or -errno. */
int vm_start_thread(const char *name, void (*fn)(void *), void *arg);
/* A new object of that kind (size: of its struct), registered as live;
 * aborts when out of memory or when too many are live (a leak of local
 * references). */
struct emu_obj *vm_obj_new(enum emu_obj_kind kind, size_t size);
/* NULL unless p is one of our live objects of that kind (classes: the
 * catalogue's). */
struct emu_obj *vm_obj(const void *p, enum emu_obj_kind kind);
/* Free a live string or thread object: 0, or -ENOENT if p is none. */
int vm_obj_free(const void *p);
/* Names of the attached threads, for thread dumps. */
void vm_thread_names(char *buf, size_t cap);

/* hs_emu_jni.c: the JNI function table --------------------------------- */

const struct JNINativeInterface_ *jni_table(void);

/* hs_emu_jvmti.c: jvmtiEnv and event posting ---------------------------- */

/* GetEnv(JVMTI_VERSION_*): a new environment, or NULL if all are in use. */
jvmtiEnv *jvmti_new_env(void);
/* True once some live env has CompiledMethodLoad, CompiledMethodUnload and
 * DynamicCodeGenerated enabled with callbacks set. */
bool jvmti_events_ready(void);
/* Post to every env that enabled the event (target == NULL), or to target
 * only (GenerateEvents); runs the callbacks on the calling thread, which
 * must be attached. */
void jvmti_post_load(jvmtiEnv *target, const struct emu_method *m, uint64_t start,
		     uint64_t size, const void *compile_info);
void jvmti_post_unload(const struct emu_method *m, uint64_t start);
void jvmti_post_stub(jvmtiEnv *target, const char *name, uint64_t start, uint64_t size);
/* True if e is a live env of ours. */
bool jvmti_env_ok(jvmtiEnv *e);

/* hs_emu_jvmti_query.c: memory, methods, classes ------------------------ */

jvmtiError JNICALL jvmti_allocate(jvmtiEnv *e, jlong size, unsigned char **mem);
jvmtiError JNICALL jvmti_deallocate(jvmtiEnv *e, unsigned char *mem);
jvmtiError JNICALL jvmti_get_method_name(jvmtiEnv *e, jmethodID method, char **name,
					 char **sig, char **generic);
jvmtiError JNICALL jvmti_get_method_declaring_class(jvmtiEnv *e, jmethodID method,
						    jclass *klass);
jvmtiError JNICALL jvmti_get_class_signature(jvmtiEnv *e, jclass klass, char **sig,
					     char **generic);
/* Allocate()d blocks not yet Deallocate()d. */
long jvmti_outstanding(void);

/* hs_emu_stubs.c: every slot we do not implement ---------------------- */

/* Fill a function table of n pointer slots with loud stubs. */
void stubs_fill_jni(void *table, size_t n);
void stubs_fill_jvmti(void *table, size_t n);

/* hs_emu_catalog.c: the classes and methods this JVM knows ------------- */

void catalog_init(void);
size_t catalog_count(void);             /* methods the JIT may compile */
const struct emu_method *catalog_method(size_t i);
const struct emu_class *catalog_find_class(const char *internal);
const struct emu_method *catalog_find_method(const struct emu_class *c,
					     const char *name, const char *sig);
/* NULL unless p is a jmethodID we handed out. */
const struct emu_method *catalog_method_of(const void *p);
/* NULL unless p is a jclass we handed out. */
const struct emu_class *catalog_class_of(const void *p);

/* hs_emu_gen.c: the synthetic JIT -------------------------------------- */

/* Reserve the code cache, compile the --initial methods and the --stubs
 * (no env can have seen them), write the first truth.  Returns 0 or -errno. */
int gen_init(void);
/* Start the generator thread: it waits for jvmti_events_ready(), posts
 * --events events, writes the truth, then idles. */
int gen_start(void);
/* Stop generating, write the final truth. */
void gen_stop(void);
/* GenerateEvents: replay the live methods (load) or stubs to one env. */
void gen_replay(jvmtiEnv *env, jvmtiEvent kind);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * floor_agent.c - the overhead floor for tests/bench/agent_overhead.sh: a
 * JVMTI agent that asks for what jsym's agent asks for (the capability, the
 * three code events) and does nothing in its callbacks.  Whatever the JVM
 * spends to post CompiledMethodLoad (building compile_info), Unload and
 * DynamicCodeGenerated is in this floor; jsym's own cost is the ratio to it.
 */
#include <string.h>

#include <jvmti.h>

#define EXPORT __attribute__((visibility("default")))

static void JNICALL on_load(jvmtiEnv *j, jmethodID m, jint size, const void *addr, jint n,
			    const jvmtiAddrLocationMap *map, const void *info)
{
}

static void JNICALL on_unload(jvmtiEnv *j, jmethodID m, const void *addr)
{
}

static void JNICALL on_dynamic(jvmtiEnv *j, const char *name, const void *addr, jint len)
{
}

EXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	static const jvmtiEvent ev[] = { JVMTI_EVENT_COMPILED_METHOD_LOAD,
					 JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
					 JVMTI_EVENT_DYNAMIC_CODE_GENERATED };
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;
	jvmtiEnv *jvmti;

	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
		return JNI_ERR;
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	memset(&cb, 0, sizeof(cb));
	cb.CompiledMethodLoad = on_load;
	cb.CompiledMethodUnload = on_unload;
	cb.DynamicCodeGenerated = on_dynamic;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
	    (*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof(cb)) != JVMTI_ERROR_NONE)
		return JNI_ERR;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev[i], NULL))
			return JNI_ERR;
	return JNI_OK;
}

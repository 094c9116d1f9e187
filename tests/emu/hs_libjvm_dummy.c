/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_libjvm_dummy.c - built as <libc>-build/tests/emu/hsjdk/lib/server/libjvm.so
 * and dlopened by hs_emu at start, so /proc/<pid>/maps of the emulator names
 * a libjvm.so inside a JDK layout (<home>/release next to it says
 * JAVA_VERSION="17.0.99").  That is how jsym recognises a HotSpot JVM and
 * reads its version.  It does nothing.
 */
int hs_libjvm_dummy_marker(void);

int hs_libjvm_dummy_marker(void)
{
	return 17;
}

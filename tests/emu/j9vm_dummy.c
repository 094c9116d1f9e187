/* SPDX-License-Identifier: Apache-2.0 */
/*
 * j9vm_dummy.c - built as libj9vm29.so and dlopened by openj9_emu at start,
 * so /proc/<pid>/maps of the emulator shows the library name by which
 * jsym recognises an OpenJ9 JVM.  It does nothing.
 */
int j9vm_dummy_marker(void);

int j9vm_dummy_marker(void)
{
	return 29;
}

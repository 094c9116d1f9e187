/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_agent_names.c - the agent's text parsers on arbitrary input:
 * descriptors (names.c), the option string (options.c), /proc/self/stat
 * (procinfo.c).  Inputs come from the JVM or the attacher; none may crash,
 * overrun or leave an unterminated output.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "options.h"
#include "procinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct err_text err = { "" };
	char out[64];
	struct agent_opts o;
	size_t cut;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* first NUL-free part: class signature; the rest: method descriptor */
	cut = strlen(s);
	names_class_external(s, (int)(size & 31), out, sizeof(out));
	if (strlen(out) >= sizeof(out))
		abort();
	names_method_display(out, "m", cut < size ? s + cut + 1 : s, out, sizeof(out));
	names_method_display("C", "m", s, out, 1);
	options_parse(s, &o, &err);
	if (strnlen(o.dir, sizeof(o.dir)) == sizeof(o.dir))
		abort();
	(void)procinfo_parse_starttime(s);
	free(s);
	return 0;
}

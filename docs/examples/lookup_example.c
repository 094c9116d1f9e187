/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lookup_example.c - a program outside jsym that links libjsym-lookup and
 * uses only its public header, <jsym/lookup.h>.  Built by `make` into
 * glibc-build/examples/ and musl-build/examples/; run by
 * tests/integration/26-inline-lines.sh.
 *
 *   jsym-lookup-example --pid PID [--dir DIR] [--at NS] ADDR...
 *   jsym-lookup-example --journal FILE | --map FILE [--at NS] ADDR...
 *
 * Prints each address, then its Java stack innermost first, one frame a
 * line, in the form `jsym resolve` uses under an address:
 *
 *   0x7f3c1d4a7c40
 *       InlineWork$Inner.step (InlineWork.java:18) [inlined]
 *       InlineWork$Outer.run (InlineWork.java:34)
 *
 * Build it elsewhere with:
 *   cc lookup_example.c $(pkg-config --cflags --libs jsym-lookup)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jsym/lookup.h>

#define MAX_FRAMES 64

static void print_frame(const struct jsym_frame *f)
{
	if (f->class_name[0])
		printf("    %s.%s", f->class_name, f->method);
	else
		printf("    %s", f->name);
	if (f->file[0] || f->line > 0) {
		printf(" (%s", f->file[0] ? f->file : "?");
		if (f->line > 0)
			printf(":%d", (int)f->line);
		putchar(')');
	}
	puts(f->kind == JSYM_FRAME_INLINED ? " [inlined]" : "");
}

int main(int argc, char **argv)
{
	const char *journal = NULL, *map = NULL, *dir = NULL;
	struct jsym_frame frames[MAX_FRAMES];
	unsigned long long at = 0;
	jsym_lookup *lk;
	int pid = 0, i, rc;

	for (i = 1; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		if (strcmp(argv[i], "--pid") == 0)
			pid = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else if (strcmp(argv[i], "--journal") == 0)
			journal = argv[i + 1];
		else if (strcmp(argv[i], "--map") == 0)
			map = argv[i + 1];
		else if (strcmp(argv[i], "--at") == 0)
			at = strtoull(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (i >= argc || (!pid && !journal && !map)) {
		fprintf(stderr, "usage: %s --pid PID [--dir DIR] | --journal FILE | --map FILE "
				"[--at NS] ADDR...\n", argv[0]);
		return 1;
	}
	rc = pid ? jsym_lookup_open_pid(&lk, pid, dir) : jsym_lookup_open_files(&lk, journal, map);
	if (rc < 0) {
		fprintf(stderr, "jsym-lookup-example: cannot open the symbol files: %s\n",
			strerror(-rc));
		return 2;
	}
	if (at && (rc = jsym_lookup_set_time(lk, at)) < 0) {
		fprintf(stderr, "jsym-lookup-example: --at: %s\n", jsym_lookup_error(lk));
		jsym_lookup_close(lk);
		return 2;
	}
	for (; i < argc; i++) {
		uint64_t addr = strtoull(argv[i], NULL, 16);
		int n = jsym_lookup_resolve(lk, addr, frames, MAX_FRAMES);

		printf("0x%" PRIx64 "%s\n", addr, n == 0 ? "  ??" : "");
		for (int k = 0; k < n && k < MAX_FRAMES; k++)
			print_frame(&frames[k]);
	}
	jsym_lookup_close(lk);
	return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* cli_map_print.c - what `jsym map --tables` prints. */
#include <stdio.h>

#include "cli.h"
#include "termtext.h"
#include "vm_tables.h"

/* --tables: the names are C strings read from the JVM's memory (its
 * vmStructs tables), target text like any other: escaped (termtext.h). */
void cli_map_tables(const struct vm_tables *t)
{
	char a[256], b[256], c[256];

	for (int i = 0; i < t->nfields; i++) {
		const struct vm_field *f = &t->fields[i];

		term_str(a, sizeof(a), f->type);
		term_str(b, sizeof(b), f->name);
		term_str(c, sizeof(c), f->type_string);
		if (f->is_static)
			printf("field %s::%s %s static @0x%llx\n", a, b, c,
			       (unsigned long long)f->address);
		else
			printf("field %s::%s %s +%llu\n", a, b, c, (unsigned long long)f->offset);
	}
	for (int i = 0; i < t->ntypes; i++)
		printf("type %s : %s size %llu\n", term_str(a, sizeof(a), t->types[i].name),
		       term_str(b, sizeof(b), t->types[i].super),
		       (unsigned long long)t->types[i].size);
	for (int i = 0; i < t->nints; i++)
		printf("int %s = %lld\n", term_str(a, sizeof(a), t->ints[i].name),
		       (long long)t->ints[i].value);
	for (int i = 0; i < t->nlongs; i++)
		printf("long %s = %lld\n", term_str(a, sizeof(a), t->longs[i].name),
		       (long long)t->longs[i].value);
}

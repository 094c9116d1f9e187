/* SPDX-License-Identifier: Apache-2.0 */
/* vm_tables_text.c - HotSpot's serviceability tables as text, for
 * `jsym map --tables` (vm_tables_text.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base.h"
#include "vm_tables_text.h"

/* printf into the growing text at *text (len *n, room *cap). */
static int appendf(char **text, size_t *n, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int appendf(char **text, size_t *n, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	char *grown;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(*text + *n, *cap - *n, fmt, ap);
		va_end(ap);
		if (k < 0)
			return -EINVAL;
		if ((size_t)k < *cap - *n) {
			*n += (size_t)k;
			return 0;
		}
		grown = realloc(*text, *cap * 2 + (size_t)k);
		if (!grown)
			return -ENOMEM;
		*text = grown;
		*cap = *cap * 2 + (size_t)k;
	}
}

/* --tables: the names are C strings read from the JVM's memory (its
 * vmStructs tables), target text like any other: escaped (termtext.c). */
long vm_tables_text(const struct vm_tables *t, char **text)
{
	size_t n = 0, cap = 4096;
	char a[256], b[256], c[256];
	int rc = 0;

	*text = malloc(cap);
	if (!*text)
		return -ENOMEM;
	**text = '\0';
	for (int i = 0; rc == 0 && i < t->nfields; i++) {
		const struct vm_field *f = &t->fields[i];

		term_str(a, sizeof(a), f->type);
		term_str(b, sizeof(b), f->name);
		term_str(c, sizeof(c), f->type_string);
		if (f->is_static)
			rc = appendf(text, &n, &cap, "field %s::%s %s static @0x%llx\n", a, b, c,
				     (unsigned long long)f->address);
		else
			rc = appendf(text, &n, &cap, "field %s::%s %s +%llu\n", a, b, c,
				     (unsigned long long)f->offset);
	}
	for (int i = 0; rc == 0 && i < t->ntypes; i++)
		rc = appendf(text, &n, &cap, "type %s : %s size %llu\n",
			     term_str(a, sizeof(a), t->types[i].name),
			     term_str(b, sizeof(b), t->types[i].super),
			     (unsigned long long)t->types[i].size);
	for (int i = 0; rc == 0 && i < t->nints; i++)
		rc = appendf(text, &n, &cap, "int %s = %lld\n",
			     term_str(a, sizeof(a), t->ints[i].name),
			     (long long)t->ints[i].value);
	for (int i = 0; rc == 0 && i < t->nlongs; i++)
		rc = appendf(text, &n, &cap, "long %s = %lld\n",
			     term_str(a, sizeof(a), t->longs[i].name),
			     (long long)t->longs[i].value);
	if (rc) {
		free(*text);
		*text = NULL;
		return rc;
	}
	return (long)n;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vm_blob.h - one HotSpot CodeBlob, decoded from a copy of its header.
 *
 * The scan (vm_scan.c) copies a blob's first vm_layout.blob_span bytes out
 * of the target and hands them here with the room its heap block gives it.
 * Nothing in the copy is trusted: sizes and code bounds must lie inside
 * the block, pointers must be plausible.  Pure function of its inputs: the
 * libFuzzer harness (tests/fuzz/fuzz_vm_blob.c) drives it directly.
 */
#ifndef JSYM_VM_BLOB_H
#define JSYM_VM_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm_layout.h"

struct vm_blob {
	uint64_t addr;          /* the blob (CodeBlob*) */
	uint64_t code_begin;    /* code_begin(): what perf maps start at */
	uint64_t code_size;     /* code_end() - code_begin() */
	uint64_t name_ptr;      /* CodeBlob::_name */
	uint64_t method;        /* nmethod: its Method*; else 0 */
	bool nmethod;
	bool alive;             /* not an nmethod, or one Compiler.perfmap lists */
};

/*
 * Decode the blob at addr from hdr[len] (len >= l->blob_span; an nmethod
 * needs l->nm_span) inside a block leaving `room` bytes from
 * addr.  name: the string at _name, already read (NULL: unreadable), used
 * to tell an nmethod where the JDK has no CodeBlob::_kind ("nmethod").
 * Returns 0, or -EINVAL when the copy cannot be a blob of that block.
 */
int vm_blob_decode(const struct vm_layout *l, uint64_t addr, const unsigned char *hdr,
		   size_t len, uint64_t room, const char *name, struct vm_blob *b);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* The entry of attach/proc, exported to the layers above it: the one header
 * of the folder they may include (docs/architecture.md, "Layers"). */
#include "../target.h"

/*
 * boxtag.h - is an instance one of ours?  The rule of box_is_tagged()
 * (src/box/box.c) for a typed instance: user.box=1, or the legacy tool's
 * user.claudebox=1 (then *legacy is set).
 */
#ifndef BOX_HOST_BOXTAG_H
#define BOX_HOST_BOXTAG_H

#include <stddef.h>
#include <string.h>

#include "incus/instance.h"

static inline int
host_box_tagged(const struct incus_instance *in, int *legacy)
{
	const char *tag = incus_kv_get(&in->config, "user.box");
	const char *old = incus_kv_get(&in->config, "user.claudebox");

	if (legacy != NULL)
		*legacy = 0;
	if (tag != NULL && strcmp(tag, "1") == 0)
		return 1;
	if (old != NULL && strcmp(old, "1") == 0) {
		if (legacy != NULL)
			*legacy = 1;
		return 1;
	}
	return 0;
}

#endif

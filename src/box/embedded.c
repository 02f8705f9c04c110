/* embedded.c - looking up files compiled into the binary. */
#include "box/embedded.h"

#include <string.h>

const struct embedded_file *
embedded_find(const struct embedded_file *t, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(t[i].path, path) == 0)
			return &t[i];
	return NULL;
}

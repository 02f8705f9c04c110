/*
 * embedded.h - files compiled into the binary at build time
 * (src/tools/embed.c writes the table from templates/).
 */
#ifndef BOX_EMBEDDED_H
#define BOX_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *path;	/* relative to templates/: "blank/box.env" */
	const unsigned char *data;
	size_t len;
};

extern const struct embedded_file embedded_templates[];
extern const size_t embedded_templates_count;

#endif

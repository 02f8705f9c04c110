/*
 * embedded.h - files compiled into the binary at build time
 * (src/tools/embed.c writes the tables from templates/ and host/).
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
/* host/: the firewall unit, the installer */
extern const struct embedded_file embedded_host[];
extern const size_t embedded_host_count;

/* The embedded file at path in table t[0..n), or NULL. */
const struct embedded_file *embedded_find(const struct embedded_file *t,
    size_t n, const char *path);

#endif

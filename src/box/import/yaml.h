/*
 * yaml.h - a strict reader for the YAML an Incus export holds.
 *
 * Only the subset gopkg.in/yaml.v2 writes when it marshals the backup
 * structs: block mappings and sequences ("- " items at the key's own
 * indentation or deeper), plain scalars (folded over several lines when
 * long), single- and double-quoted scalars, literal block scalars ("|",
 * "|-", "|+", an indentation digit), and the empty flow forms "{}" and
 * "[]".  Everything else YAML allows - anchors, aliases, tags, merge keys,
 * comments, directives, several documents, complex keys, folded ">",
 * non-empty flow collections, tabs for indentation, a byte order mark,
 * invalid UTF-8, duplicate keys - is refused: the file is hostile, and a
 * construct this reader is not certain to read exactly as the daemon does
 * must never pass.
 *
 * Bounds: YAML_MAX_DEPTH nesting, YAML_MAX_NODES nodes, YAML_MAX_KEYS
 * entries in one mapping.
 */
#ifndef BOX_YAML_H
#define BOX_YAML_H

#include <stddef.h>

#define YAML_MAX_DEPTH	32
#define YAML_MAX_NODES	(1 << 17)
#define YAML_MAX_KEYS	8192
#define YAML_MAX_KEY	1024		/* bytes in one key */

enum yaml_type { YAML_NULL = 1, YAML_STR, YAML_MAP, YAML_SEQ };

struct yaml_node {
	unsigned char type;	/* enum yaml_type */
	unsigned char plain;	/* a plain (unquoted, unblocked) scalar */
	int child;		/* first child; maps: key, value, key, ... */
	int next;		/* next sibling, or -1 */
	size_t off, len;	/* scalars: text in the arena */
};

struct yaml_doc {
	struct yaml_node *node;
	int n, cap;
	char *arena;
	size_t alen, acap;
	int line;		/* on failure: the 1-based line */
	const char *why;	/* on failure: what was wrong */
};

/* Parse buf[0..n): 0, -EBOX_PROTO (why/line say more), -ENOMEM. */
int yaml_parse(struct yaml_doc *d, const char *buf, size_t n);
void yaml_free(struct yaml_doc *d);

int yaml_type(const struct yaml_doc *d, int i);
int yaml_child(const struct yaml_doc *d, int i);	/* or -1 */
int yaml_next(const struct yaml_doc *d, int i);		/* or -1 */
/* A mapping's value for key, or -1 (absent / not a mapping). */
int yaml_get(const struct yaml_doc *d, int map, const char *key);
/* A scalar's text (NUL-terminated), "" for null, NULL for collections. */
const char *yaml_str(const struct yaml_doc *d, int i, size_t *len);
/* What yaml.v2 decodes into a Go string: "" for a null, else the text. */
int yaml_is_null(const struct yaml_doc *d, int i);
/* YAML 1.1 booleans as yaml.v2 resolves plain scalars: 1, 0, or -1. */
int yaml_bool(const struct yaml_doc *d, int i);

#endif

/*
 * json.h - a strict RFC 8259 parser into a flat tape, and a writer.
 *
 * Why a tape: box reads whole daemon replies (200 instances with state is
 * about 1 MB) and picks a few fields out of each object.  The tape is one
 * array of 20-byte tokens that point into the caller's buffer; strings are
 * left escaped in place and decoded only when asked for, so parsing
 * allocates one array and copies nothing, and `box list --json` can print
 * an instance's raw bytes straight from the reply.
 *
 * Strictness: UTF-8 is validated (no overlongs, no surrogates, nothing past
 * U+10FFFF), \u escapes must pair surrogates correctly, numbers follow the
 * RFC grammar, nesting deeper than JSON_MAX_DEPTH fails, and nothing but
 * white space may follow the top value.  A document of more than
 * JSON_MAX_TOKENS tokens fails with -EBOX_TOOBIG.
 *
 * Duplicate keys: accepted by the parser, refused on lookup.  json_get()
 * scans every member, and if the key it is asked for appears twice it
 * returns JSON_DUP instead of picking one: two readers of the same reply
 * can never disagree about which value counts, and the parser does not pay
 * a quadratic check on objects nobody reads.
 */
#ifndef BOX_JSON_H
#define BOX_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define JSON_MAX_DEPTH	64
#define JSON_MAX_TOKENS	(4u << 20)

enum json_type {
	JSON_NULL = 1, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING,
	JSON_ARRAY, JSON_OBJECT
};

#define JSON_NONE	(-1)	/* json_get(): no such key / not an object */
#define JSON_DUP	(-2)	/* json_get(): the key appears more than once */

struct json_tok {
	uint32_t type;		/* enum json_type */
	uint32_t start;		/* offset of the first byte (strings: after the quote) */
	uint32_t len;		/* bytes (strings: between the quotes) */
	uint32_t next;		/* next sibling's index; 0 for the last */
	uint32_t count;		/* arrays: elements; objects: members */
};

struct json_doc {
	const char *src;
	size_t src_len;
	struct json_tok *tok;	/* heap; tok[0] is the top value */
	size_t ntok, cap;
};

/* Parse src[0..n). On failure the message names the byte offset. */
int json_parse(struct json_doc *d, const char *src, size_t n,
    struct box_err *e);
void json_free(struct json_doc *d);

static inline int
json_type(const struct json_doc *d, int i)
{
	return i >= 0 && (size_t)i < d->ntok ? (int)d->tok[i].type : 0;
}

/* Children: arrays hold values; objects hold key, value, key, value... */
int json_child(const struct json_doc *d, int i);	/* first, or -1 */
int json_next(const struct json_doc *d, int i);		/* sibling, or -1 */
int json_count(const struct json_doc *d, int i);	/* elements / members */

/* Member value by key, JSON_NONE, or JSON_DUP (see above). */
int json_get(const struct json_doc *d, int obj, const char *key);
/* Walk a dotted path of plain keys: "state.network". */
int json_path(const struct json_doc *d, int i, const char *dotted);

/* String compare without decoding into a buffer (escapes handled). */
int json_streq(const struct json_doc *d, int i, const char *s);
/*
 * Decode a string token into buf (NUL-terminated).  Returns its length,
 * -ENOSPC when it does not fit (buf then holds a truncated prefix), or
 * -EINVAL when i is not a string.
 */
int json_str(const struct json_doc *d, int i, char *buf, size_t cap);
/* Convenience: value of key as a string, or def when absent/not a string. */
const char *json_gets(const struct json_doc *d, int obj, const char *key,
    char *buf, size_t cap, const char *def);
/* A string token decoded into a fresh heap string, or NULL (not a string,
 * out of memory).  A decoded string is never longer than its source. */
char *json_strdup(const struct json_doc *d, int i);
/* Integer value (number token without fraction/exponent). */
int json_int(const struct json_doc *d, int i, long long *out);
/* Raw bytes of any value (strings include their quotes). */
const char *json_raw(const struct json_doc *d, int i, size_t *len);

/*
 * The writer: appends to a heap buffer it grows up to max bytes.  Errors are
 * sticky (the first wins; later calls do nothing) and reported by
 * json_w_finish().  Commas and colons are placed automatically.
 */
struct json_w {
	char *buf;
	size_t len, cap, max;
	int err;
	int depth;
	unsigned char first[JSON_MAX_DEPTH + 1];	/* nothing written at level yet */
	unsigned char after_key;
};

void json_w_init(struct json_w *w, size_t max);
void json_w_obj(struct json_w *w);		/* { */
void json_w_arr(struct json_w *w);		/* [ */
void json_w_end(struct json_w *w, char close);	/* } or ] */
void json_w_key(struct json_w *w, const char *k);
void json_w_str(struct json_w *w, const char *s);
void json_w_strn(struct json_w *w, const char *s, size_t n);
void json_w_int(struct json_w *w, long long v);
void json_w_bool(struct json_w *w, int v);
void json_w_null(struct json_w *w);
/* 0 with *out = NUL-terminated text (caller frees), or -errno. */
int json_w_finish(struct json_w *w, char **out, size_t *len);
void json_w_free(struct json_w *w);

#endif

/*
 * secret.h - the credential door's secrets: stored on the host, never in
 * a box.  Room box/secret/: the store, the grants on instances and the
 * use log; host/door/ serves them, cmd/secret.c is the verb.
 *
 * The store is a directory only its owner (root) can enter (0700, owned
 * by the caller, not a symlink), one file per secret, <name>.secret,
 * 0600, written whole to a temporary name and renamed.  A value never
 * leaves the store but through secret_load() into the door's memory: no
 * Incus key, log line, --json or error message carries it.
 *
 * A grant is the name list SECRET_GRANT_KEY on the instance ("a,b");
 * the door reads it on every request (from its table, refreshed).  A
 * clone, fork or import leaves it behind (secret_source_key()), and a
 * restore keeps the box's list as it is (a snapshot's does not return).
 */
#ifndef BOX_SECRET_H
#define BOX_SECRET_H

#include <stddef.h>

#include "util/err.h"

#define SECRET_DIR	"/var/lib/box/secrets"
#define SECRET_GRANT_KEY "user.box.secrets"
#define SECRET_NAMEMAX	63
#define SECRET_HOSTMAX	253
#define SECRET_HDRMAX	64
#define SECRET_VALMAX	4096
#define SECRET_GRANTMAX	16		/* names on one box */
#define SECRET_FILEMAX	(SECRET_VALMAX + 512)
#define SECRET_MAX	256		/* secrets in one store */

enum secret_scheme {
	SECRET_BEARER = 0,	/* Authorization: Bearer <value> */
	SECRET_BASIC = 1,	/* Authorization: Basic base64(<value>) */
	SECRET_RAW = 2,		/* <header>: <value> */
};

struct secret {
	char name[SECRET_NAMEMAX + 1];
	char host[SECRET_HOSTMAX + 1];	/* lower-case name, no port */
	unsigned port;			/* 443 unless the record says */
	char header[SECRET_HDRMAX + 1];
	int scheme;			/* enum secret_scheme */
	char value[SECRET_VALMAX + 1];
	size_t vlen;
};

/* A secret's name: [A-Za-z0-9][A-Za-z0-9._-]*, at most SECRET_NAMEMAX,
 * never "." or "..": 1 or 0. */
int secret_name_ok(const char *s);
/* An upstream host: LDH labels with dots, lower-cased in place, an
 * optional ":port" split into *port (443 without).  1 or 0. */
int secret_host_ok(char *s, unsigned *port);
/* An HTTP header name (a token, at most SECRET_HDRMAX): 1 or 0. */
int secret_header_ok(const char *s);
/* A value: printable ASCII (0x20-0x7e), no blank at either end, 1 to
 * SECRET_VALMAX bytes: 1 or 0.  It is put into a header line. */
int secret_value_ok(const char *s, size_t n);
/* "bearer", "basic", "raw" to enum secret_scheme, or -1. */
int secret_scheme_of(const char *s);
const char *secret_scheme_name(int scheme);

/*
 * The record's text (the file's whole content) <-> s.  Parse is strict:
 * the lines "box-secret 1", "host", "header", "scheme", "value" in this
 * order, each once, nothing after; every field checked as above.  0, or
 * -EINVAL (why says which line, never the value).  Format: its length,
 * or -ENOSPC.
 */
int secret_parse(const char *text, size_t n, struct secret *s, char *why,
    size_t cap);
int secret_format(const struct secret *s, char *buf, size_t cap);

/*
 * The header line the door sends upstream for s, "Name: value" without
 * CRLF, into buf: its length, or -ENOSPC.
 */
int secret_header_line(const struct secret *s, char *buf, size_t cap);

/*
 * The store at dir: made when missing (0700); refused when it is not a
 * directory owned by the caller, or group/other can enter it.
 */
int secret_store_open(const char *dir, struct box_err *e);
/* Write s (replace: 0 it must not exist yet, 1 it may). */
int secret_store_put(const char *dir, const struct secret *s, int replace,
    struct box_err *e);
/* Read the secret name: 0, -ENOENT (said in e), or a failure. */
int secret_load(const char *dir, const char *name, struct secret *s,
    struct box_err *e);
/* Remove it: 0 or -ENOENT. */
int secret_store_rm(const char *dir, const char *name, struct box_err *e);
/* The names in the store, sorted (heap: free(*names)); *n of them. */
int secret_store_names(const char *dir, char (**names)[SECRET_NAMEMAX + 1],
    size_t *n, struct box_err *e);

/*
 * A value from a file the caller owns that group and other cannot read
 * (O_NOFOLLOW; a trailing newline dropped): 0, or a usage error.
 */
int secret_read_file(const char *path, char *buf, size_t cap, size_t *n,
    struct box_err *e);
/* A value from fd (stdin) up to its end, bounded: 0 or an error. */
int secret_read_fd(int fd, char *buf, size_t cap, size_t *n,
    struct box_err *e);

/*
 * The grant list's text ("a,b") <-> names.  Parse: each name checked,
 * no duplicates, at most SECRET_GRANTMAX; *n.  0 or -EINVAL.  Has: 1 when
 * the list text holds name.  Edit: add or take name off list, into out:
 * 1 changed, 0 already so, -E2BIG full.
 */
int secret_grants_parse(const char *list,
    char names[][SECRET_NAMEMAX + 1], size_t *n);
int secret_grants_has(const char *list, const char *name);
int secret_grants_edit(const char *list, const char *name, int add,
    char *out, size_t cap);

/* What a copy (clone, fork, import) leaves behind: the grant key. */
int secret_source_key(const char *key);

/*
 * The use log: one JSON line per request the door answered, in the
 * store's directory (SECRET_LOG), the older half kept as SECRET_LOG ".1"
 * once it passes SECRET_LOG_MAX bytes (so the newest are kept).  Every
 * string in it is printable ASCII without '"' or '\\' (the door
 * percent-encodes the path), so a line is read back without unescaping.
 */
#define SECRET_LOG	"use.log"
#define SECRET_LOG_MAX	(1 << 20)
#define SECRET_PATHMAX	256		/* of a path, as logged */

struct secret_use {
	long long t_ms;			/* unix time, ms */
	char box[64];
	char secret[SECRET_NAMEMAX + 1];
	char method[16];
	char host[SECRET_HOSTMAX + 1];
	char path[SECRET_PATHMAX + 1];	/* without the query */
	int status;			/* the upstream's, or the door's */
	long long in, out;		/* body bytes from and to the box */
	long long ms;
};

/* u as one line with its newline, into buf: its length or -ENOSPC. */
int secret_use_format(const struct secret_use *u, char *buf, size_t cap);
/* One line (without its newline) back: 0 or -EINVAL. */
int secret_use_parse(const char *line, size_t n, struct secret_use *u);
/* Append u to dir's log (rotating it first when full): 0 or -errno. */
int secret_log_append(const char *dir, const struct secret_use *u);
/*
 * Every readable line of dir's log, oldest first, to fn (box NULL: all;
 * else that box's only).  Unreadable lines are counted in *bad.
 */
int secret_log_each(const char *dir, const char *box,
    void (*fn)(const struct secret_use *u, const char *line, void *ctx),
    void *ctx, size_t *bad, struct box_err *e);

/* --- grants on instances (grant.c; the daemon) --------------------------- */

struct incus;

/*
 * Add (grant) or take off (revoke) name on box's grant list: 1 changed,
 * 0 it already was so.  Grant refuses a name the store at dir does not
 * hold; revoke takes any name off.
 */
int secret_grant(struct incus *c, const char *dir, const char *box,
    const char *name, int add, struct box_err *e);

/* Each box (tagged) and its grant list text ("" none), to fn. */
int secret_grants_each(struct incus *c,
    void (*fn)(const char *box, const char *list, void *ctx), void *ctx,
    struct box_err *e);

#endif

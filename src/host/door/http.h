/*
 * http.h - the door's strict HTTP/1.1 readers (prefix dh_), pure (the unit tests and
 * fuzz_door drive them): a box's request head, the chunked framing of a
 * body, an upstream's response head.
 *
 * A request head is refused (-EINVAL, why names the rule) for: a line
 * over DH_LINEMAX, more than DH_MAXHDR headers, a head over the
 * caller's buffer; a bare CR or LF (every line ends CRLF); obs-fold (a
 * line starting with a blank); a header name that is no token or a
 * blank before its colon; a control byte in a value; a method that is
 * no token, CONNECT, or a target that is not origin-form ("/..."):
 * absolute-form and authority-form never; a version other than
 * HTTP/1.1 or HTTP/1.0; Content-Length and Transfer-Encoding both;
 * either twice; a Content-Length that is not digits, or over 2^53; a
 * Transfer-Encoding other than exactly "chunked".
 */
#ifndef BOX_DOOR_HTTP_H
#define BOX_DOOR_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define DH_LINEMAX	8192
#define DH_MAXHDR	64
#define DH_HEADMAX	32768

struct dh_hdr {
	const char *name, *value;	/* into the head; not NUL-terminated */
	size_t nlen, vlen;
};

struct dh_req {
	const char *method, *target;
	size_t mlen, tlen;
	int minor;			/* HTTP/1.<minor> */
	struct dh_hdr h[DH_MAXHDR];
	size_t nh;
	int chunked;			/* Transfer-Encoding: chunked */
	int has_len;
	uint64_t len;			/* Content-Length */
	size_t head_len;		/* bytes of the head, its blank line in */
};

/*
 * The end of a head in buf[0..n): its length (through CRLFCRLF), 0 when
 * it has not all arrived, -EINVAL when what has arrived already breaks a
 * rule that needs no more bytes to judge (a bare LF, a line too long).
 */
long dh_head_end(const char *buf, size_t n);

/* Parse the head buf[0..n) (as dh_head_end measured it) into r. */
int dh_req_parse(const char *buf, size_t n, struct dh_req *r,
    char *why, size_t cap);

/* Case-insensitive: does h's name equal name? */
int dh_hdr_is(const struct dh_hdr *h, const char *name);

/*
 * The chunked framing of a body, fed as it arrives: how many of p[0..n)
 * belong to the body (all of them while it goes on; fewer once its last
 * chunk and trailers end, *done set), or -EINVAL for a framing broken
 * (a size that is no hex or over 2^40, a bare LF, a line too long, no
 * CRLF after a chunk's data).
 */
struct dh_chunked {
	int st;
	uint64_t left;		/* data bytes left in this chunk */
	unsigned line;		/* bytes of the current framing line */
	int digits;
	int done;
};
long dh_chunked_feed(struct dh_chunked *c, const char *p, size_t n);

/*
 * An upstream's response head: the status (100-599) and the headers,
 * refused like a request head for bare CR/LF, obs-fold, counts and
 * lengths.  The door passes the response on with any header whose value
 * holds the secret's value replaced (http_redact).
 */
struct dh_resp {
	int status;
	struct dh_hdr h[DH_MAXHDR];
	size_t nh;
	size_t head_len;
};
int dh_resp_parse(const char *buf, size_t n, struct dh_resp *r,
    char *why, size_t cap);

/*
 * Write r's head again into out, each header whose value contains
 * secret[0..slen) (slen > 0) with its value "[redacted by box]": the
 * length, or -ENOSPC.  *redacted counts them.
 */
long dh_resp_redact(const char *head, const struct dh_resp *r,
    const char *secret, size_t slen, char *out, size_t cap, int *redacted);

#endif

/*
 * dns.h - the DNS wire format (RFC 1035, EDNS RFC 6891, Extended DNS
 * Errors RFC 8914), read strictly and built into caller buffers.
 *
 * Pure and bounded: no allocation, no I/O, no printing.  Every read is
 * checked against the message length; a name is at most DNS_NAME_WIRE
 * octets once decompressed and follows at most DNS_MAXJUMP compression
 * pointers, each pointing strictly before the one that led to it, so a
 * loop cannot be built.
 *
 * A name's text form is lower-case, dotted, without the trailing dot
 * ("." for the root); any octet that is not [a-z0-9-_] after folding A-Z
 * is written \DDD (as in zone files), so a label holding a dot or a
 * byte of its own can never read like another name.
 */
#ifndef BOX_DNS_H
#define BOX_DNS_H

#include <stddef.h>
#include <stdint.h>

#define DNS_PORT	53
#define DNS_HDRLEN	12
#define DNS_NAME_WIRE	255		/* octets, decompressed */
#define DNS_NAME_TEXT	(DNS_NAME_WIRE * 4 + 2)	/* worst-case escaping */
#define DNS_MAXJUMP	32		/* compression pointers per name */
#define DNS_MAXMSG	65535
#define DNS_UDP_MIN	512		/* a client without EDNS */
#define DNS_UDP_OURS	1232		/* what we offer and ask for */
#define DNS_MAXADDR	64		/* A records taken from one answer */
#define DNS_MAXCHAIN	8		/* CNAMEs followed in one answer */
#define DNS_EDE_TEXTMAX	400

/* Header flags. */
#define DNS_F_QR	0x8000u
#define DNS_F_AA	0x0400u
#define DNS_F_TC	0x0200u
#define DNS_F_RD	0x0100u
#define DNS_F_RA	0x0080u
#define DNS_F_AD	0x0020u
#define DNS_F_CD	0x0010u
#define DNS_OPCODE(f)	(((f) >> 11) & 15u)
#define DNS_RCODE(f)	((f) & 15u)

enum dns_type {
	DNS_T_A = 1, DNS_T_NS = 2, DNS_T_CNAME = 5, DNS_T_SOA = 6,
	DNS_T_PTR = 12, DNS_T_TXT = 16, DNS_T_AAAA = 28, DNS_T_OPT = 41,
	DNS_T_IXFR = 251, DNS_T_AXFR = 252, DNS_T_ANY = 255,
};
enum dns_class { DNS_C_IN = 1, DNS_C_CH = 3, DNS_C_HS = 4 };
enum dns_rcode {
	DNS_R_NOERROR = 0, DNS_R_FORMERR = 1, DNS_R_SERVFAIL = 2,
	DNS_R_NXDOMAIN = 3, DNS_R_NOTIMP = 4, DNS_R_REFUSED = 5,
};
/* EDNS option codes and RFC 8914 info-codes. */
#define DNS_OPT_EDE		15
#define DNS_EDE_OTHER		0
#define DNS_EDE_BLOCKED		15
#define DNS_EDE_PROHIBITED	18
#define DNS_EDE_NOT_SUPPORTED	21	/* "Not Supported" */

struct dns_hdr {
	uint16_t id, flags, qd, an, ns, ar;
};

/* The one question of a query. */
struct dns_question {
	char name[DNS_NAME_TEXT];	/* text form (see above) */
	unsigned char wire[DNS_NAME_WIRE];	/* as sent, decompressed */
	size_t wlen;
	uint16_t type, cls;
	int labels;			/* 0 for the root */
};

/* A query as a client sent it. */
struct dns_query {
	struct dns_hdr h;
	struct dns_question q;
	int edns;			/* an OPT record came */
	uint16_t udp;			/* its payload size (>= 512), else 512 */
	uint8_t version;		/* its EDNS version */
	int dnssec_ok;			/* its DO bit */
};

/* One resource record, its rdata left in the message. */
struct dns_rr {
	char name[DNS_NAME_TEXT];
	uint16_t type, cls;
	uint32_t ttl;
	uint16_t rdlen;
	size_t rdoff;			/* rdata at m[rdoff..rdoff+rdlen) */
};

/* An address an answer gave for the question's name (or its CNAMEs). */
struct dns_addr {
	uint32_t addr;			/* host order */
	uint32_t ttl;
};

/* What an upstream answer says. */
struct dns_answer {
	struct dns_hdr h;
	int rcode;			/* with EDNS's extended bits */
	size_t naddr;
	struct dns_addr a[DNS_MAXADDR];
	size_t dropped;			/* A records beyond DNS_MAXADDR */
	int edns;
};

/* Header of m[0..n): 0, or -EBADMSG when shorter than a header. */
int dns_hdr_read(const unsigned char *m, size_t n, struct dns_hdr *h);

/*
 * The name at *off in m[0..n), its text in out[0..cap) (cap >=
 * DNS_NAME_TEXT fits any), its decompressed wire form in wire (NULL: not
 * wanted; DNS_NAME_WIRE octets) with *wlen, and *labels.  *off moves past
 * the name where it sits (a pointer's target is not skipped).  0, or
 * -EBADMSG (out of bounds, a label type other than 0 and pointer, too
 * long, too many or forward pointers), -ENOSPC (cap too small).
 */
int dns_name_read(const unsigned char *m, size_t n, size_t *off, char *out,
    size_t cap, unsigned char *wire, size_t *wlen, int *labels);

/* One RR at *off (moved past it): 0 or -EBADMSG. */
int dns_rr_read(const unsigned char *m, size_t n, size_t *off,
    struct dns_rr *rr);

/*
 * A query: QR clear, exactly one question, no answer or authority
 * records, at most one OPT (at the root, in the additional section), no
 * octet after the last record.  0; -EINVAL when m holds no header (drop
 * it); -EBADMSG when malformed (answer FORMERR: the header read is in
 * q->h).
 */
int dns_query_parse(const unsigned char *m, size_t n, struct dns_query *q);

/*
 * An upstream answer to the query q sent with id: QR set, the id, and the
 * same question (name compared without case, type and class).  Collects
 * the A records (class IN) owned by the question's name or a name a
 * CNAME of the chain from it leads to (at most DNS_MAXCHAIN links).
 * 0, or -EBADMSG (malformed, or not an answer to that question).
 */
int dns_answer_parse(const unsigned char *m, size_t n,
    const struct dns_question *q, uint16_t id, struct dns_answer *a);

/*
 * The query box sends upstream for q: id, RD, the question exactly as
 * the client wrote it, and an OPT offering DNS_UDP_OURS with the client's
 * DO bit.  Its length, or -ENOSPC.
 */
int dns_build_query(const struct dns_query *q, uint16_t id,
    unsigned char *out, size_t cap);

/*
 * An answer of our own to q: its id, opcode and RD, QR and RA set, extra
 * flags (DNS_F_TC, DNS_F_AA) or-ed in, rcode, the question echoed (when
 * with_q: a query whose question did not parse gets none), no records.
 * When the query had EDNS: an OPT (DNS_UDP_OURS) carrying, when ede >= 0,
 * an Extended DNS Error with info-code ede and text (UTF-8, at most
 * DNS_EDE_TEXTMAX octets; NULL: none).  Its length, or -ENOSPC /
 * -EINVAL (text too long).
 */
int dns_build_reply(const struct dns_query *q, int with_q, unsigned flags,
    int rcode, int ede, const char *text, unsigned char *out, size_t cap);

/*
 * Read the EDE options of the OPT record in m (a reply): 1 and the first
 * one's info-code and text (truncated to cap-1, NUL-ended; bytes that are
 * not printable ASCII become '?'), 0 when none.  -EBADMSG when malformed.
 */
int dns_ede_read(const unsigned char *m, size_t n, int *code, char *text,
    size_t cap);

#endif

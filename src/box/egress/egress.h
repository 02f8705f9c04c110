/*
 * egress.h - a box's egress policy, as stored on its instance.
 *
 * The instance key user.box.egress holds one of:
 *   (absent) | "open"          today's contract: the whole internet
 *   "allow:<p>[,<p>...]"       only the addresses the gateway's resolver
 *                              answered for those names (deny the rest)
 * where each pattern <p> is a lower-case DNS name ("pypi.org") or "*."
 * and a name ("*.npmjs.org"): at most EGRESS_MAXPAT patterns, each at
 * most 253 characters, no duplicates.  Anything else is refused: the
 * value is read by the firewall code and written into dnsmasq's config,
 * so it is checked to the letter (labels of [a-z0-9-], 1..63 long, not
 * starting or ending in '-', at least two labels, the last not numeric).
 *
 * What a pattern admits is what dnsmasq's nftset matching can express: a
 * domain and every name under it.  So "pypi.org" also admits
 * "files.pypi.org", and "*.npmjs.org" also admits "npmjs.org" itself.
 */
#ifndef BOX_EGRESS_H
#define BOX_EGRESS_H

#include <stddef.h>

#define EGRESS_KEY	"user.box.egress"
#define EGRESS_MAXPAT	64
#define EGRESS_PATMAX	253		/* characters of one pattern */
#define EGRESS_TEXTMAX	(6 + EGRESS_MAXPAT * (EGRESS_PATMAX + 1) + 1)

enum egress_mode { EGRESS_OPEN = 0, EGRESS_ALLOW = 1 };

struct egress {
	int mode;			/* enum egress_mode */
	int n;				/* patterns, when ALLOW (>= 1) */
	char pat[EGRESS_MAXPAT][EGRESS_PATMAX + 1];
};

/*
 * Parse a stored value (NULL or "" is open).  0, or -EINVAL with why (a
 * sentence naming the part refused) in why[0..cap).
 */
int egress_parse(const char *s, struct egress *p, char *why, size_t cap);

/* The stored form: "open" or "allow:a,b".  0 or -ENOSPC. */
int egress_format(const struct egress *p, char *buf, size_t cap);

/*
 * What people paste for a name, made one (in place): a scheme
 * (https://), a path, query or fragment, user info, a :port and upper
 * case are dropped.  1 when s changed, with note saying from what and
 * why ("'https://GitHub.com/x' read as github.com (scheme, path, case
 * dropped ...)"); 0 when s was a name already.  egress_parse and
 * egress_pattern_ok still judge the result.
 */
int egress_normalise(char *s, char *note, size_t ncap);

/* One pattern alone, as egress_parse checks it: 0 or -EINVAL (why). */
int egress_pattern_ok(const char *pat, char *why, size_t cap);

/*
 * Add a pattern (an open policy becomes allow with it; already there:
 * nothing changes), or remove one (not there: -ENOENT; the last one:
 * -ENOTEMPTY, since "allow:" names at least one pattern).
 */
int egress_add(struct egress *p, const char *pat, char *why, size_t cap);
int egress_remove(struct egress *p, const char *pat);

/*
 * A box's policy as its instance holds it, parsed once where it is read
 * (egress_policy_from; egress_policy_of in egress_sync.h for an instance)
 * and passed on as this value.  A stored value that does not parse is not
 * valid, and then pol is allow with no names: nothing allowed, which is
 * what the kernel enforces for it.  Code asks valid and pol; the text
 * people read is egress_policy_text's, and nothing compares it.
 */
struct egress_policy {
	struct egress pol;
	int valid;			/* 0: the stored value did not parse */
};

/* What box shows for a stored value that does not parse. */
#define EGRESS_INVALID_TEXT	"invalid (nothing allowed)"

/* From a stored value (NULL or "": open).  0, or -EINVAL (not valid). */
int egress_policy_from(const char *stored, struct egress_policy *ep);

/* What box shows for it: "open", "allow:a,b", "invalid (nothing
 * allowed)", or "allow:(N names)" when the list does not fit cap. */
void egress_policy_text(const struct egress_policy *ep, char *buf,
    size_t cap);

/* The domain dnsmasq matches for a pattern: "*.x" -> "x". */
const char *egress_domain(const char *pat);

/* 1 when domain d is dom or lies under it ("a.b.c" under "b.c"). */
int egress_covers(const char *dom, const char *d);

#endif

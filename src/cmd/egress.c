/*
 * box egress <box> [show | open | allow <name>... | deny <name>...]
 *            [--log] [--json]
 *
 * The box's egress policy, stored on its instance (user.box.egress) and
 * enforced in the host kernel (box/egress/egress_sync.h).  allow adds names to
 * the allowlist (an open box becomes allow with exactly those); deny
 * takes names off it (the last one stays: "allow:" names at least one,
 * and a box that should reach nothing is better off without the NIC);
 * open goes back to the contract's internet.  Names, not addresses: the
 * kernel learns the addresses from the gateway's answers.  A change holds
 * at once: the box's address set is replaced and its flows to addresses
 * no longer allowed are ended.  --log: what the kernel refused, newest
 * first, with a name only when the address's reverse name resolves back
 * to it ("unverified: <name>" when it does not).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box/box.h"
#include "box/bridge.h"
#include "box/egress/egress.h"
#include "box/egress/refusals.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "host/resolver/resolver.h"
#include "host/stack/egress_host.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "incus/json.h"
#include "util/clock.h"
#include "util/opt.h"
#include "util/text.h"

#define LOG_SHOW	64	/* destinations printed */

static int
store(struct incus *c, const char *box, const struct egress *p,
    struct box_err *e)
{
	char *v = malloc(EGRESS_TEXTMAX);
	struct incus_kvs kv = { 0 };
	int rc;

	if (v == NULL || egress_format(p, v, EGRESS_TEXTMAX) < 0) {
		free(v);
		return err_set(e, -ENOMEM, "the policy does not fit");
	}
	rc = incus_kv_set(&kv, EGRESS_KEY, v);
	free(v);
	if (rc < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_instance_patch(c, box, &kv, NULL, NULL, 0, e);
	incus_kv_free(&kv);
	return rc;
}

/* The names of argv (each may also be a comma list) onto p. */
static int
edit(struct egress *p, int allow, char **names, int n, struct box_err *e)
{
	char why[200], one[EGRESS_PATMAX + 2];
	int i, rc;

	if (n == 0)
		return err_usage(e, "%s needs at least one name (e.g. box "
		    "egress <box> %s pypi.org)", allow ? "allow" : "deny",
		    allow ? "allow" : "deny");
	for (i = 0; i < n; i++) {
		const char *q = names[i];

		while (*q != '\0') {
			size_t l = strcspn(q, ",");

			if (l == 0 || l > EGRESS_PATMAX)
				return err_usage(e, "'%s': not a name",
				    names[i]);
			memcpy(one, q, l);
			one[l] = '\0';
			q += l + (q[l] == ',');
			if (egress_normalise(one, why, sizeof(why)))
				fprintf(stderr, "box: note: %s\n", why);
			if (allow) {
				if ((rc = egress_add(p, one, why,
				    sizeof(why))) < 0)
					return err_usage(e, "egress: %s", why);
				continue;
			}
			rc = egress_remove(p, one);
			if (rc == -ENOENT)
				return err_usage(e, "'%s' is not on the "
				    "allowlist", one);
			if (rc == -ENOTEMPTY)
				return err_usage(e, "'%s' is the last name on "
				    "the allowlist; allow another first, or "
				    "open the box (box egress <box> open)",
				    one);
		}
	}
	return 0;
}

static void
json_policy(struct json_w *w, const struct egress *p, const char *text)
{
	int i;

	json_w_key(w, "policy");
	json_w_str(w, text);
	json_w_key(w, "mode");
	json_w_str(w, p->mode == EGRESS_ALLOW ? "allow" : "open");
	json_w_key(w, "patterns");
	json_w_arr(w);
	for (i = 0; p->mode == EGRESS_ALLOW && i < p->n; i++)
		json_w_str(w, p->pat[i]);
	json_w_end(w, ']');
}

/* "2026-12-01 22:36 UTC", in the caller's buf. */
static const char *
when(long long t, char *buf, size_t cap)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, cap, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, cap, "%lld", t);
	return buf;
}

static int
show(struct incus *c, const char *box, const struct egress_policy *ep,
    int json, struct box_err *e)
{
	const struct egress *p = &ep->pol;
	char *text = malloc(EGRESS_TEXTMAX + 32);
	struct egfw_box *b = NULL;
	struct egfw_held h;
	char tbuf[40];
	size_t n = 0, i, extra;
	int rc, found = -1, held = 0, readable, checked = 1;
	struct box_err ke;

	memset(&h, 0, sizeof(h));
	if (text == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	egress_policy_text(ep, text, EGRESS_TEXTMAX + 32);
	readable = ep->valid;
	if ((rc = egress_gather(c, &b, &n, NULL, e)) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (strcmp(b[i].name, box) == 0)
			found = (int)i;
	err_clear(&ke);
	if (found >= 0 && b[found].pol.mode == EGRESS_ALLOW) {
		struct egfw_held *all = calloc(n, sizeof(*all));

		if (all != NULL && egfw_read(b, n, all, &extra, &ke) == 0) {
			h = all[found];
			held = h.rules_ok && h.sets_ok && h.contents_ok;
			if (!held && h.why[0] == '\0')
				snprintf(h.why, sizeof(h.why), "%s",
				    b[found].has_mac ? "not held" :
				    "its NIC has no MAC yet");
		} else {
			checked = 0;
			snprintf(h.why, sizeof(h.why), "the kernel could not "
			    "be read: %.160s", ke.msg[0] ? ke.msg : "no memory");
		}
		free(all);
	}
	if (json) {
		struct json_w w;

		json_w_init(&w, 1 << 20);
		json_w_obj(&w);
		json_w_key(&w, "name");
		json_w_str(&w, box);
		json_policy(&w, p, text);
		json_w_key(&w, "kernel");
		json_w_obj(&w);
		json_w_key(&w, "enforced");
		json_w_bool(&w, p->mode == EGRESS_ALLOW || !readable);
		json_w_key(&w, "held");
		json_w_bool(&w, held);
		json_w_key(&w, "addresses");
		json_w_int(&w, (long long)h.naddr);
		json_w_key(&w, "named");
		json_w_int(&w, (long long)h.nnamed);
		json_w_key(&w, "stray");
		json_w_int(&w, (long long)h.nstray);
		json_w_key(&w, "refused");
		json_w_int(&w, (long long)h.refused);
		json_w_key(&w, "refused_since");
		if (h.since > 0)
			json_w_int(&w, h.since);
		else
			json_w_null(&w);
		json_w_key(&w, "why");
		if (h.why[0] && !held)
			json_w_str(&w, h.why);
		else
			json_w_null(&w);
		json_w_end(&w, '}');
		json_w_end(&w, '}');
		rc = model_flush(&w, e);
	} else {
		printf("egress %s: %s\n", box, text);
		if (p->mode != EGRESS_ALLOW && readable)
			printf("  kernel: nothing to hold (open: the "
			    "contract's internet)\n");
		else if (held)
			printf("  kernel: held — %zu address%s answered for "
			    "its names (%zu named by the name that put it "
			    "there), %llu packet%s refused%s%s\n", h.naddr,
			    h.naddr == 1 ? "" : "es", h.nnamed,
			    (unsigned long long)h.refused,
			    h.refused == 1 ? "" : "s", h.since > 0 ?
			    " since " : "", h.since > 0 ? when(h.since, tbuf,
			    sizeof(tbuf)) : "");
		else if (!checked)
			printf("  kernel: not checked — %s (sudo box egress %s "
			    "show reads it)\n", h.why, box);
		else
			printf("  kernel: NOT HELD — %s (fix: sudo box firewall "
			    "apply, or set the policy again)\n", h.why);
	}
out:
	free(b);
	free(text);
	return rc;
}

static const char *
proto_name(uint8_t p, char *buf, size_t cap)
{
	if (p == 6)
		return "tcp";
	if (p == 17)
		return "udp";
	if (p == 1)
		return "icmp";
	snprintf(buf, cap, "proto-%u", p);
	return buf;
}

/* "12s", "4m05s", "1h02m" */
static const char *
ago(uint64_t ms, char *buf, size_t cap)
{
	unsigned long long t = (unsigned long long)(ms / 1000);

	if (t < 60)
		snprintf(buf, cap, "%llus", t);
	else if (t < 3600)
		snprintf(buf, cap, "%llum%02llus", t / 60, t % 60);
	else
		snprintf(buf, cap, "%lluh%02llum", t / 3600, t / 60 % 60);
	return buf;
}

static int
show_log(struct incus *c, const char *box, int json, struct box_err *e)
{
	struct refusals lg;
	char a[20], pb[16], ab[24], tbuf[40];
	char shown[4 * PTR_NAME_MAX + 16];
	size_t i;
	int rc;

	if ((rc = refusals_read(c, box, EGFW_LOG_SIZE, &lg, e)) < 0)
		goto out;
	if (json) {
		struct json_w w;

		json_w_init(&w, 1 << 20);
		json_w_obj(&w);
		json_w_key(&w, "name");
		json_w_str(&w, box);
		json_w_key(&w, "refused_packets");
		json_w_int(&w, (long long)lg.refused);
		json_w_key(&w, "refused_since");
		if (lg.since > 0)
			json_w_int(&w, lg.since);
		else
			json_w_null(&w);
		json_w_key(&w, "destinations");
		json_w_arr(&w);
		for (i = 0; i < lg.n && i < LOG_SHOW; i++) {
			const struct refusal *f = &lg.v[i];
			struct in_addr ia = { htonl(f->r.addr) };

			inet_ntop(AF_INET, &ia, a, sizeof(a));
			json_w_obj(&w);
			json_w_key(&w, "address");
			json_w_str(&w, a);
			json_w_key(&w, "proto");
			json_w_str(&w, proto_name(f->r.proto, pb, sizeof(pb)));
			json_w_key(&w, "port");
			if (f->r.proto == 6 || f->r.proto == 17)
				json_w_int(&w, f->r.port);
			else
				json_w_null(&w);
			json_w_key(&w, "name");
			if (f->confirmed)
				json_w_str(&w, f->ptr);
			else
				json_w_null(&w);
			json_w_key(&w, "ptr");
			if (f->ptr[0])
				json_w_str(&w, f->ptr);
			else
				json_w_null(&w);
			json_w_key(&w, "seconds_ago");
			json_w_int(&w, (long long)(f->r.age_ms / 1000));
			json_w_key(&w, "refusals");
			json_w_int(&w, (long long)f->r.hits);
			json_w_end(&w, '}');
		}
		json_w_end(&w, ']');
		json_w_key(&w, "more");
		json_w_int(&w, (long long)(lg.total > LOG_SHOW ?
		    lg.total - LOG_SHOW : 0));
		json_w_end(&w, '}');
		rc = model_flush(&w, e);
		goto out;
	}
	printf("refused for %s: %llu packet%s%s%s, %zu destination%s among "
	    "the last %d refusals (newest first)\n", box,
	    (unsigned long long)lg.refused, lg.refused == 1 ? "" : "s",
	    lg.since > 0 ? " since " : "", lg.since > 0 ? when(lg.since,
	    tbuf, sizeof(tbuf)) : "",
	    lg.total, lg.total == 1 ? "" : "s", EGFW_LOG_SLOTS);
	for (i = 0; i < lg.n && i < LOG_SHOW; i++) {
		const struct refusal *f = &lg.v[i];
		struct in_addr ia = { htonl(f->r.addr) };
		char port[16] = "";

		inet_ntop(AF_INET, &ia, a, sizeof(a));
		if (f->r.proto == 6 || f->r.proto == 17)
			snprintf(port, sizeof(port), "/%u", f->r.port);
		if (f->confirmed)
			snprintf(shown, sizeof(shown), "%.253s", f->ptr);
		else if (f->ptr[0])
			snprintf(shown, sizeof(shown), "unverified: %.253s",
			    f->ptr);
		else
			snprintf(shown, sizeof(shown), "-");
		text_shown_in(shown, sizeof(shown));	/* a PTR is anyone's */
		printf("  %-15s %s%-6s %-30s %s ago\n", a,
		    proto_name(f->r.proto, pb, sizeof(pb)), port, shown,
		    ago(f->r.age_ms, ab, sizeof(ab)));
	}
out:
	refusals_free(&lg);
	return rc;
}

int
cmd_egress(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_instance in;
	struct egress_policy *ep = NULL;
	struct egress *p;
	struct incus c;
	struct egfw_report rep;
	char *text = NULL;
	const char *what, *box;
	long long t0;
	int rc, json, want_log;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_WORDS("show|open|allow|deny", 0, 1, "show open allow deny",
		    "show: the policy, and whether the kernel holds it (the "
		    "default); allow: add names (an open box then reaches only "
		    "those); deny: take names off the allowlist (not the last "
		    "one); open: back to the internet"),
		OPT_ARG("<name>", 0, OPT_ANY, OC_NONE, "the names allow and "
		    "deny take"),
		OPT_FLAG("--log", NULL, &want_log, "what the kernel refused "
		    "in the last hour, newest first, named when the gateway's "
		    "resolver knows it"),
		OPT_FLAG("--json", NULL, &json, "the policy (or the log) as "
		    "JSON"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	box = res.pos[0];
	what = res.npos > 1 ? res.pos[1] : "show";
	if (strcmp(what, "show") != 0 && strcmp(what, "open") != 0 &&
	    strcmp(what, "allow") != 0 && strcmp(what, "deny") != 0)
		return err_usage(e, "egress: '%s' is not show, open, allow or "
		    "deny", what);
	if ((strcmp(what, "show") == 0 || strcmp(what, "open") == 0) &&
	    res.npos > 2)
		return err_usage(e, "egress %s takes no names", what);
	if (want_log && strcmp(what, "show") != 0)
		return err_usage(e, "--log reads the log; it changes nothing");
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	ep = malloc(sizeof(*ep));
	text = malloc(EGRESS_TEXTMAX + 32);
	if (ep == NULL || text == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	p = &ep->pol;
	if ((rc = box_get(&c, box, 0, &in, NULL, e)) < 0)
		goto out;
	egress_policy_of(&in, ep);
	incus_instance_free(&in);
	if (want_log) {
		rc = show_log(&c, box, json, e);
		goto out;
	}
	if (strcmp(what, "show") == 0) {
		rc = show(&c, box, ep, json, e);
		goto out;
	}
	/* a stored value that did not parse is edited as if open */
	if (!ep->valid || strcmp(what, "open") == 0)
		p->mode = EGRESS_OPEN;
	if (strcmp(what, "open") != 0 && (rc = edit(p, strcmp(what, "allow")
	    == 0, res.pos + 2, res.npos - 2, e)) < 0)
		goto out;
	ep->valid = 1;
	t0 = clock_ms();
	if ((rc = store(&c, box, p, e)) < 0)
		goto out;
	if ((rc = egress_sync_kick(&c, &rep, e)) < 0) {
		err_context(e, "the policy is stored on %s but the kernel "
		    "does not hold it", box);
		goto out;
	}
	egress_format(p, text, EGRESS_TEXTMAX + 32);
	if (!json)
		fprintf(stderr, "box: egress %s is now %s (kernel%s in "
		    "%lld ms)\n", box, text, rep.resolver == 1 ? " and "
		    "resolver" : "", clock_ms() - t0);
	if (!json && rep.resolver < 0) {
		text_shown_in(rep.resolver_why, sizeof(rep.resolver_why));
		fprintf(stderr, "box: WARN box's resolver did not read the "
		    "new policy (%s): it answers by the old one until its "
		    "next read (%d s)\n", rep.resolver_why, RSV_REFRESH_MS /
		    1000);
	}
	if (!json && rep.flows_ended > 0)
		fprintf(stderr, "box: %zu flow%s to addresses no longer "
		    "allowed ended\n", rep.flows_ended,
		    rep.flows_ended == 1 ? "" : "s");
	rc = show(&c, box, ep, json, e);
out:
	free(ep);
	free(text);
	incus_close(&c);
	return rc;
}

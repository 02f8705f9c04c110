/*
 * box resolver run --listen A.B.C.1 --upstream A [...] - box's own
 * resolver for boxes, in the foreground (host/resolver/resolver.h); what
 * the boot unit (or setup-host, where no systemd runs) starts.  Internal:
 * not listed in box help.
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "host/resolver/resolver.h"
#include "util/opt.h"

int
cmd_resolver(int argc, char **argv, struct box_err *e)
{
	const char *listen = NULL, *open_source = NULL;
	struct opt_list up = { { NULL }, 0 };
	struct opt_result res;
	struct rsv_conf c;
	int rc, inflight = -1, qps = -1, tcp = -1, noview = 0, nofeed = 0;
	int notcp = 0, inline_feed = 0;
	const struct opt rows[] = {
		OPT_WORDS("run", 1, 1, "run", NULL),
		OPT_NEED("--listen", "A.B.C.1[:port]", &listen, OC_NONE,
		    "the gateway's address: the boxes' /24 is its"),
		OPT_LIST("--upstream", "A.B.C.D[:port]", &up, OC_NONE,
		    "a pinned resolver to forward to (1 to 4)"),
		OPT_INT("--inflight", "n", &inflight, 1, RSV_MAXPEND,
		    "queries in flight per box (32)"),
		OPT_INT("--qps", "n", &qps, 0, 1000000,
		    "queries a second per box, 0 for no limit (200)"),
		OPT_INT("--tcp", "n", &tcp, 1, RSV_MAXCONN,
		    "TCP connections per box (4)"),
		OPT_FLAG("--no-view", NULL, &noview,
		    "forward every name for every box (a test's control)"),
		OPT_FLAG("--no-tcp-retry", NULL, &notcp,
		    "pass an upstream's truncated answer on as it is (a "
		    "test's control)"),
		OPT_FLAG("--no-feed", NULL, &nofeed,
		    "do not feed the allow boxes' egress sets"),
		OPT_FLAG("--feed-inline", NULL, &inline_feed,
		    "feed each address on the answering thread, one "
		    "transaction each (a test's control)"),
		OPT_STR("--open-source", "A.B.C.D/N", &open_source, OC_NONE,
		    "sources in this prefix are one open box (the bench)"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if ((rc = rsv_conf_parse(listen, up.v, up.n, open_source, &c, e)) < 0)
		return rc;
	if (inflight > 0)
		c.inflight = inflight;
	if (qps >= 0)
		c.qps = qps;
	if (tcp > 0)
		c.tcp = tcp;
	c.view = !noview;
	c.tcp_retry = !notcp;
	c.feed = nofeed ? NULL : rsv_feed_egress;
	c.feed_close = rsv_feed_close;
	if (inline_feed && !nofeed) {
		c.feed = NULL;
		c.feed_inline = rsv_feed_each;
	}
	return resolver_run(&c, e);
}

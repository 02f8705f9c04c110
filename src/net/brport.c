/* brport.c - the bridge port isolated flag (see brport.h). */
#include "net/brport.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>

#include <linux/rtnetlink.h>

int
brport_isolated_msg(void *buf, size_t cap, int ifindex, int on, uint32_t seq)
{
	struct ifinfomsg ifi;
	struct nl_buf b;
	void *h;
	size_t nest;

	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_BRIDGE;
	ifi.ifi_index = ifindex;
	nl_buf_init(&b, buf, cap);
	nl_msg_begin(&b, RTM_SETLINK, NLM_F_ACK, seq);
	if ((h = nl_msg_extra(&b, sizeof(ifi))) != NULL)
		memcpy(h, &ifi, sizeof(ifi));
	nest = nl_nest_begin(&b, IFLA_PROTINFO);
	nl_put_u8(&b, IFLA_BRPORT_ISOLATED, on ? 1 : 0);
	nl_nest_end(&b, nest);
	nl_msg_end(&b);
	if (nl_buf_err(&b) < 0)
		return nl_buf_err(&b);
	return (int)b.len;
}

int
brport_set_isolated(struct nl_sock *s, int ifindex, const char *name, int on,
    struct box_err *e)
{
	unsigned char buf[64];
	char what[64];
	int n;

	n = brport_isolated_msg(buf, sizeof(buf), ifindex, on,
	    nl_seq_take(s, 1));
	if (n < 0)
		return err_set(e, n, "building the bridge port request");
	snprintf(what, sizeof(what), "setting isolated %s on %s",
	    on ? "on" : "off", name);
	return nl_request(s, buf, (size_t)n, NULL, NULL, NULL, what, e);
}

int
link_up_msg(void *buf, size_t cap, int ifindex, int up, uint32_t seq)
{
	struct ifinfomsg ifi;
	struct nl_buf b;
	void *h;

	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	ifi.ifi_index = ifindex;
	ifi.ifi_change = IFF_UP;
	ifi.ifi_flags = up ? IFF_UP : 0;
	nl_buf_init(&b, buf, cap);
	nl_msg_begin(&b, RTM_NEWLINK, NLM_F_ACK, seq);
	if ((h = nl_msg_extra(&b, sizeof(ifi))) != NULL)
		memcpy(h, &ifi, sizeof(ifi));
	nl_msg_end(&b);
	if (nl_buf_err(&b) < 0)
		return nl_buf_err(&b);
	return (int)b.len;
}

int
link_set_up(struct nl_sock *s, int ifindex, const char *name, int up,
    struct box_err *e)
{
	unsigned char buf[64];
	char what[64];
	int n;

	n = link_up_msg(buf, sizeof(buf), ifindex, up, nl_seq_take(s, 1));
	if (n < 0)
		return err_set(e, n, "building the link request");
	snprintf(what, sizeof(what), "setting %s %s", name, up ? "up" : "down");
	return nl_request(s, buf, (size_t)n, NULL, NULL, NULL, what, e);
}

/* neigh.c - forget one IPv4 neighbour entry (see neigh.h). */
#include "net/neigh.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

int
neigh_del_msg(void *buf, size_t cap, int ifindex, uint32_t addr,
    uint32_t seq)
{
	struct ndmsg nd;
	struct nl_buf b;
	void *h;

	memset(&nd, 0, sizeof(nd));
	nd.ndm_family = AF_INET;
	nd.ndm_ifindex = ifindex;
	nd.ndm_state = NUD_PERMANENT;	/* as iproute2 sends it; ignored */
	nl_buf_init(&b, buf, cap);
	nl_msg_begin(&b, RTM_DELNEIGH, NLM_F_ACK, seq);
	if ((h = nl_msg_extra(&b, sizeof(nd))) != NULL)
		memcpy(h, &nd, sizeof(nd));
	nl_put_be32(&b, NDA_DST, addr);
	nl_msg_end(&b);
	if (nl_buf_err(&b) < 0)
		return nl_buf_err(&b);
	return (int)b.len;
}

int
neigh_del(struct nl_sock *s, int ifindex, uint32_t addr, struct box_err *e)
{
	unsigned char buf[64];
	char what[64], a[INET_ADDRSTRLEN];
	struct in_addr ia = { htonl(addr) };
	int n;

	n = neigh_del_msg(buf, sizeof(buf), ifindex, addr, nl_seq_take(s, 1));
	if (n < 0)
		return err_set(e, n, "building the neighbour request");
	inet_ntop(AF_INET, &ia, a, sizeof(a));
	snprintf(what, sizeof(what), "forgetting the neighbour %s", a);
	return nl_request(s, buf, (size_t)n, NULL, NULL, NULL, what, e);
}

/*
 * Unit tests for the guard: net/nlmon's reader of notifications (known
 * answers written from linux/netfilter/nf_tables.h and rtnetlink.h's
 * layouts, as the kernel multicasts them), the judgement of a look at the
 * kernel (host/guard/judge.c, views written by hand), the log line
 * reader, and the reader of a daemon's argv file (host/stack/sysd.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/guard/guard.h"
#include "host/stack/sysd.h"
#include "net/nlmon.h"
#include "t.h"

/* One datagram: DELTABLE inet box, NEWCHAIN ip docker with a hook, then
 * NEWGEN (id 7, pid 1234, "nft"), then RTM_NEWLINK for a bridge port. */
static const unsigned char dgram[] = {
	/* len 28, type 0x0a02 (NFTABLES << 8 | DELTABLE), seq 0, pid 0 */
	0x1c, 0x00, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00,			/* nfgenmsg: inet */
	0x08, 0x00, 0x01, 0x00, 'b', 'o', 'x', 0x00,	/* NFTA_TABLE_NAME */
	/* len 44, type 0x0a03 (NEWCHAIN) */
	0x2c, 0x00, 0x00, 0x00, 0x03, 0x0a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00,			/* nfgenmsg: ip */
	0x0b, 0x00, 0x01, 0x00, 'd', 'o', 'c', 'k', 'e', 'r', 0x00, 0x00,
	0x0c, 0x00, 0x04, 0x80,			/* NFTA_CHAIN_HOOK, nested */
	0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02,	/* hooknum 2 */
	/* len 44, type 0x0a0f (NEWGEN) */
	0x2c, 0x00, 0x00, 0x00, 0x0f, 0x0a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x07,	/* GEN_ID 7 */
	0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0xd2,	/* PROC_PID */
	0x08, 0x00, 0x03, 0x00, 'n', 'f', 't', 0x00,	/* PROC_NAME */
	/* len 32, RTM_NEWLINK (16), ifinfomsg AF_BRIDGE (7), index 9 */
	0x20, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

TEST(nlmon_reads_notifications)
{
	struct nlmon_sum s;

	memset(&s, 0, sizeof(s));
	CHECK_INT(nlmon_add(dgram, sizeof(dgram), "box", &s), 4);
	CHECK_INT(s.nft, 3);
	CHECK_INT(s.nft_box, 1);
	CHECK_INT(s.nft_del, 1);
	CHECK_INT(s.base_foreign, 1);
	CHECK_STR(s.foreign_table, "docker");
	CHECK_INT(s.gens, 1);
	CHECK_INT(s.gen_id, 7);
	CHECK_INT(s.proc_pid, 1234);
	CHECK_STR(s.proc_name, "nft");
	CHECK_INT(s.links, 1);
	CHECK_INT(s.brports, 1);
	CHECK_INT(s.bad, 0);
}

TEST(nlmon_refuses_bad_lengths)
{
	unsigned char b[sizeof(dgram)];
	struct nlmon_sum s;

	memcpy(b, dgram, sizeof(b));
	b[28] = 0xff;		/* the second message runs past the end */
	memset(&s, 0, sizeof(s));
	CHECK_INT(nlmon_add(b, sizeof(b), "box", &s), -EBOX_PROTO);
	CHECK_INT(s.nft, 1);	/* what came before still counts */
	memcpy(b, dgram, sizeof(b));
	b[20] = 0x40;		/* the table name's attribute overruns */
	memset(&s, 0, sizeof(s));
	CHECK_INT(nlmon_add(b, sizeof(b), "box", &s), 4);
	CHECK_INT(s.bad, 1);
	CHECK_INT(s.nft_box, 0);
}

static void
clean_view(struct guard_view *v)
{
	memset(v, 0, sizeof(*v));
	v->fw_read = 1;
	v->fw.ok = 1;
	v->arp = 1;
	v->rln = 0;
	v->rln_want = 0;
	v->nports = 2;
	snprintf(v->ports[0].name, 16, "veth1");
	v->ports[0].isolated = 1;
	snprintf(v->ports[1].name, 16, "veth2");
	v->ports[1].isolated = 1;
}

TEST(guard_judges_by_content)
{
	static struct guard_view v;
	char what[GUARD_TEXT];

	clean_view(&v);
	CHECK_INT(guard_judge(&v, what, sizeof(what)), 0);
	CHECK_STR(what, "");
	v.fw.ok = 0;
	v.fw.ndiff = 1;
	snprintf(v.fw.diff[0], FW_DIFFLEN, "table inet box is ABSENT");
	CHECK_INT(guard_judge(&v, what, sizeof(what)), GD_RULES);
	CHECK_STR(what, "table inet box is ABSENT");
	clean_view(&v);
	v.ports[1].isolated = 0;
	CHECK_INT(guard_judge(&v, what, sizeof(what)), GD_PORTS);
	CHECK_STR(what, "port veth2 is NOT isolated");
	v.ports[1].isolated = -1;	/* the kernel did not say: no guess */
	CHECK_INT(guard_judge(&v, what, sizeof(what)), 0);
	clean_view(&v);
	v.rln = 1;
	CHECK_INT(guard_judge(&v, what, sizeof(what)), GD_RLN);
	v.rln_want = 1;			/* a VM door needs it */
	CHECK_INT(guard_judge(&v, what, sizeof(what)), 0);
	v.rln_want = -1;		/* unknown: off is the safe side */
	CHECK_INT(guard_judge(&v, what, sizeof(what)), GD_RLN);
	clean_view(&v);
	v.arp = 0;
	snprintf(v.arp_why, sizeof(v.arp_why), "arp_ignore is 0");
	v.fw_read = 0;
	CHECK_INT(guard_judge(&v, what, sizeof(what)), GD_RULES | GD_ARP);
	CHECK_STR(what, "the rules could not be read; ARP sysctls: "
	    "arp_ignore is 0");
	v.arp = -1;			/* no bridge: nothing to set */
	CHECK_INT(guard_judge(&v, what, 8), GD_RULES);
	CHECK(strlen(what) < 8);
}

TEST(guard_log_lines)
{
	static const char ok[] = "1796662718\theal\t41\tnft[20542]\tinet box "
	    "forward: rule \"x\" is MISSING\t43 rules in one batch";
	struct guard_event ev;

	CHECK_INT(guard_event_parse(ok, strlen(ok), &ev), 1);
	CHECK_INT(ev.at, 1796662718);
	CHECK_STR(ev.kind, "heal");
	CHECK_INT(ev.window_ms, 41);
	CHECK_STR(ev.by, "nft[20542]");
	CHECK_STR(ev.back, "43 rules in one batch");
	CHECK_INT(guard_event_parse(ok, 30, &ev), 0);	/* cut short */
	CHECK_INT(guard_event_parse("x\theal\t1\t\ta\tb", 12, &ev), 0);
	CHECK_INT(guard_event_parse("1\tboom\t1\t\ta\tb", 13, &ev), 0);
	CHECK_INT(guard_event_parse("1\tclose\t-1\t\ta\t", 14, &ev), 1);
	CHECK_INT(ev.window_ms, -1);
}

/* The argv file a detached daemon leaves (host/stack/sysd.h), which the
 * guard starts it again from. */
TEST(guard_daemon_argv)
{
	char *argv[5];
	char ok[] = "/usr/local/libexec/box/box-firewall\0resolver\0run\0";
	char two[] = "/b\0x\0y\0z\0";
	char rel[] = "box\0run\0", empty[] = "/b\0\0run\0", open_[] = "/b\0r";

	CHECK_INT(sysd_argv_parse(ok, sizeof(ok) - 1, argv, 4), 3);
	CHECK_STR(argv[0], "/usr/local/libexec/box/box-firewall");
	CHECK_STR(argv[2], "run");
	CHECK(argv[3] == NULL);
	CHECK_INT(sysd_argv_parse(two, sizeof(two) - 1, argv, 4), -EINVAL);
	CHECK_INT(sysd_argv_parse(two, sizeof(two) - 1, argv, 5), 4);
	CHECK_INT(sysd_argv_parse(rel, sizeof(rel) - 1, argv, 4), -EINVAL);
	CHECK_INT(sysd_argv_parse(empty, sizeof(empty) - 1, argv, 4), -EINVAL);
	CHECK_INT(sysd_argv_parse(open_, sizeof(open_) - 1, argv, 4), -EINVAL);
	CHECK_INT(sysd_argv_parse(ok, 0, argv, 4), -EINVAL);
	CHECK_INT(sysd_argv_parse(ok, 1, argv, 4), -EINVAL);
}

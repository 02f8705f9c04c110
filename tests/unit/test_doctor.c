/*
 * box doctor's pure parts: the nested-box signature on pictures of a host,
 * a box and a poisoned box; the dnsmasq command line, configuration and
 * lease file; if_inet6; the report and the merge of a box's own report
 * (which is untrusted).  The DNS client's parts: test_dnsq.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/doctor/doctor.h"
#include "net/brport.h"
#include "t.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static void
local(struct dr_net *n, const char *dev, uint32_t a, int plen)
{
	n->local[n->nlocal].a = a;
	n->local[n->nlocal].plen = (uint8_t)plen;
	snprintf(n->local[n->nlocal].dev, sizeof(n->local[0].dev), "%s", dev);
	n->nlocal++;
}

static void
conn(struct dr_net *n, const char *dev, uint32_t net, int plen)
{
	n->conn[n->nconn].net = net;
	n->conn[n->nconn].plen = (uint8_t)plen;
	snprintf(n->conn[n->nconn].dev, sizeof(n->conn[0].dev), "%s", dev);
	n->nconn++;
}

static void
gateway(struct dr_net *n, const char *dev, uint32_t gw)
{
	n->has_gw = 1;
	n->gw = gw;
	snprintf(n->gw_dev, sizeof(n->gw_dev), "%s", dev);
}

TEST(doctor_signature_host_is_clean)
{
	struct dr_net n;
	char why[320];

	memset(&n, 0, sizeof(n));
	gateway(&n, "eth0", IP(192, 0, 2, 1));
	local(&n, "eth0", IP(192, 0, 2, 2), 24);
	local(&n, "boxnet", IP(10, 88, 0, 1), 24);
	conn(&n, "eth0", IP(192, 0, 2, 0), 24);
	conn(&n, "boxnet", IP(10, 88, 0, 0), 24);
	CHECK_INT(dr_net_judge(&n, why, sizeof(why)), 0);
	CHECK(strstr(why, "192.0.2.1 on eth0") != NULL);
}

TEST(doctor_signature_box_is_clean)
{
	struct dr_net n;
	char why[320];

	memset(&n, 0, sizeof(n));
	gateway(&n, "eth0", IP(10, 88, 0, 1));
	local(&n, "eth0", IP(10, 88, 0, 23), 24);
	local(&n, "lo", IP(127, 0, 0, 1), 8);
	conn(&n, "eth0", IP(10, 88, 0, 0), 24);
	CHECK_INT(dr_net_judge(&n, why, sizeof(why)), 0);
}

TEST(doctor_signature_poisoned_box)
{
	struct dr_net n;
	char why[320];

	/* A box stack built inside a box: its bridge took the gateway. */
	memset(&n, 0, sizeof(n));
	gateway(&n, "eth0", IP(10, 88, 0, 1));
	local(&n, "eth0", IP(10, 88, 0, 23), 24);
	local(&n, "boxnet", IP(10, 88, 0, 1), 24);
	conn(&n, "eth0", IP(10, 88, 0, 0), 24);
	conn(&n, "boxnet", IP(10, 88, 0, 0), 24);
	CHECK_INT(dr_net_judge(&n, why, sizeof(why)),
	    DR_SIG_GW_LOCAL | DR_SIG_DUP_ROUTE);
	CHECK(strstr(why, "10.88.0.1 is held as a LOCAL address (on boxnet)")
	    != NULL);
	CHECK(strstr(why, "10.88.0.0/24 has connected routes on eth0 and "
	    "boxnet") != NULL);
}

TEST(doctor_signature_each_alone)
{
	struct dr_net n;
	char why[320];

	memset(&n, 0, sizeof(n));
	gateway(&n, "eth0", IP(10, 88, 0, 1));
	local(&n, "eth0", IP(10, 88, 0, 1), 32);	/* the gateway, held */
	conn(&n, "eth0", IP(10, 88, 0, 0), 24);
	CHECK_INT(dr_net_judge(&n, why, sizeof(why)), DR_SIG_GW_LOCAL);

	memset(&n, 0, sizeof(n));
	gateway(&n, "eth0", IP(10, 88, 0, 1));
	conn(&n, "eth0", IP(10, 88, 0, 0), 24);
	conn(&n, "br9", IP(10, 88, 0, 0), 24);
	conn(&n, "br7", IP(10, 89, 0, 0), 24);	/* another subnet: fine */
	CHECK_INT(dr_net_judge(&n, why, sizeof(why)), DR_SIG_DUP_ROUTE);

	memset(&n, 0, sizeof(n));
	CHECK_INT(dr_net_judge(&n, why, sizeof(why)), 0);
	CHECK(strstr(why, "no IPv4 default route") != NULL);
}

TEST(doctor_dnsmasq_argv)
{
	static const char incus[] = "dnsmasq\0--keep-in-foreground\0"
	    "--strict-order\0--interface=boxnet\0--listen-address=10.88.0.1\0"
	    "--dhcp-leasefile=/var/lib/incus/networks/boxnet/dnsmasq.leases\0"
	    "--conf-file=/var/lib/incus/networks/boxnet/dnsmasq.raw\0-u\0"
	    "nobody\0";
	static const char other[] = "/usr/sbin/dnsmasq\0--interface=boxtest0\0";
	static const char notdns[] = "sh\0-c\0--interface=boxnet\0";
	static const char prefix[] = "dnsmasq\0--interface=boxnet2\0";
	struct dr_dnsmasq d;

	CHECK_INT(dr_dnsmasq_argv(incus, sizeof(incus), "boxnet", &d), 1);
	CHECK_STR(d.conf, "/var/lib/incus/networks/boxnet/dnsmasq.raw");
	CHECK_STR(d.listen, "10.88.0.1");
	CHECK_STR(d.leases, "/var/lib/incus/networks/boxnet/dnsmasq.leases");
	CHECK_INT(dr_dnsmasq_argv(other, sizeof(other), "boxnet", &d), 0);
	CHECK_INT(dr_dnsmasq_argv(other, sizeof(other), "boxtest0", &d), 1);
	CHECK_INT(dr_dnsmasq_argv(notdns, sizeof(notdns), "boxnet", &d), 0);
	CHECK_INT(dr_dnsmasq_argv(prefix, sizeof(prefix), "boxnet", &d), 0);
	/* No trailing NUL, an empty buffer. */
	CHECK_INT(dr_dnsmasq_argv(incus, sizeof(incus) - 1, "boxnet", &d), 1);
	CHECK_INT(dr_dnsmasq_argv("", 0, "boxnet", &d), 0);
}

TEST(doctor_dns_conf)
{
	static const char raw[] = "no-resolv\nserver=203.0.113.10\n"
	    "  server=1.1.1.1  \r\n# server=9.9.9.9\ndhcp-ignore-names\n"
	    "domain-needed\n";
	struct dr_dns d;

	dr_dns_parse(raw, strlen(raw), &d);
	CHECK_INT(d.no_resolv, 1);
	CHECK_INT(d.nserver, 2);
	CHECK_STR(d.server[0], "203.0.113.10");
	CHECK_STR(d.server[1], "1.1.1.1");
	CHECK_INT(d.ignore_names, 1);
	CHECK_INT(d.domain_needed, 1);
	CHECK_INT(d.dhcp_dns, 0);
	dr_dns_parse("", 0, &d);
	CHECK_INT(d.no_resolv, 0);
	CHECK_INT(d.nserver, 0);
	dr_dns_parse("dhcp-option=6,100.100.100.100", 29, &d);
	CHECK_INT(d.dhcp_dns, 1);
	dr_dns_parse("dhcp-option=option:dns-server,1.2.3.4\n", 38, &d);
	CHECK_INT(d.dhcp_dns, 1);
}

TEST(doctor_leases)
{
	static const char l[] = "1796052030 10:66:6a:ae:cb:c2 10.88.0.201 web "
	    "01:10:66\n1796052022 10:66:6a:8b:31:2f 10.88.0.192 * 01:10\n"
	    "1796052029 10:66:6a:9e:bc:b4 10.88.0.190 db-2 *\n"
	    "1 2 3 a.b.example *\n1 2 3 -bad *\n1 2 3 x\\y *\n"
	    "1 2 3 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa *\n"
	    "duid 00:01:00:01\n";
	char names[8][64];

	CHECK_INT(dr_leases_names(l, strlen(l), names, 8), 2);
	CHECK_STR(names[0], "web");
	CHECK_STR(names[1], "db-2");
	CHECK_INT(dr_leases_names(l, strlen(l), names, 1), 1);
}

TEST(doctor_inet6)
{
	static const char none[] =
	    "00000000000000000000000000000001 01 80 10 80       lo\n"
	    "fe80000000000000126a6afffe7be5fd 2c 40 20 80     eth0\n";
	static const char global[] =
	    "fe80000000000000126a6afffe7be5fd 2c 40 20 80     eth0\n"
	    "fd420000000000000000000000000005 2c 40 00 00     eth0\n";
	char dev[16];

	CHECK_INT(dr_inet6_global(none, strlen(none), dev, sizeof(dev)), 0);
	CHECK_INT(dr_inet6_global(global, strlen(global), dev, sizeof(dev)), 1);
	CHECK_STR(dev, "eth0");
}

TEST(doctor_report_json_and_merge)
{
	static const char boxrep[] = "box-doctor-report 1\nwhere inside\n"
	    "c lease\ns pass\nt eth0 holds 10.88.0.5/24\n"
	    "c routing\ns fail\nt dropped\033]0;pwned\007 x\nf on the host\n"
	    "end 2\n";
	static const char badstatus[] = "box-doctor-report 1\nc x\n"
	    "s great\nt \nend 1\n";
	struct dr_report r;
	struct box_err e;
	char where[32], *out;

	CHECK_INT(dr_report_init(&r), 0);
	dr_add(&r, "incus", "incus", DR_PASS, NULL, "answers on %s", "sock");
	err_clear(&e);
	CHECK_INT(dr_merge_box(&r, "box web", boxrep, strlen(boxrep), where,
	    sizeof(where), &e), 0);
	CHECK_STR(where, "inside");
	CHECK_INT(r.n, 3);
	CHECK_INT(r.fails, 1);
	CHECK_STR(r.f[1].id, "box.lease");
	CHECK_STR(r.f[2].subject, "box web");
	CHECK_STR(r.f[2].fix, "on the host");
	/* The box's escape sequences do not survive. */
	CHECK(strchr(r.f[2].text, '\033') == NULL);
	CHECK(strchr(r.f[2].text, '\007') == NULL);
	err_clear(&e);
	CHECK_INT(dr_merge_box(&r, "box web", badstatus, strlen(badstatus),
	    where, sizeof(where), &e), -EBOX_PROTO);
	err_clear(&e);
	CHECK(dr_merge_box(&r, "box web", "[1]", 3, where, sizeof(where),
	    &e) < 0);
	CHECK_INT(r.n, 3);
	CHECK_INT(dr_report_json(&r, &out), 0);
	CHECK(strstr(out, "\"verdict\":\"problems\"") != NULL);
	CHECK(strstr(out, "\"id\":\"box.routing\"") != NULL);
	free(out);
	dr_report_free(&r);
}

/* What a box hands the host reads back as what it found, and nothing a
 * box could bend: a record cut short, a line that is not ours, a repeat. */
TEST(doctor_report_lines_round_trip)
{
	static const char *const bad[] = {
		"box-doctor-report 2\nend 0\n",		/* another version */
		"where inside\nend 0\n",		/* no magic */
		"box-doctor-report 1\nc lease\ns pass\nt x\n",	/* no end */
		"box-doctor-report 1\nc lease\ns pass\nend 2\n",	/* count */
		"box-doctor-report 1\nc lease\ns pass\nend 1\nc x\n",
		"box-doctor-report 1\nc lease\ns pass\ns fail\nend 1\n",
		"box-doctor-report 1\nc lease\nt x\ns pass\nend 1\n",
		"box-doctor-report 1\nc lease\nt x\nend 1\n",	/* no status */
		"box-doctor-report 1\nc Lease!\ns pass\nend 1\n",
		"box-doctor-report 1\nc lease\ns pass\nsecond line\nend 1\n",
		"box-doctor-report 1\nc lease\ns pass\nend 1\nwhere host\n",
		"box-doctor-report 1\nwhere a\nwhere b\nend 0\n",
		"box-doctor-report 1\nend -0\n",
		"box-doctor-report 1\nend 0x0\n",
	};
	struct dr_report r, back;
	struct box_err e;
	char where[32], *rec;
	size_t len, i;

	CHECK_INT(dr_report_init(&r), 0);
	CHECK_INT(dr_report_init(&back), 0);
	r.where = DR_INSIDE;
	dr_add(&r, "lease", "this box", DR_PASS, NULL, "eth0 holds %s",
	    "10.88.0.4/24");
	dr_add(&r, "dns", "this box", DR_FAIL, "box doctor --fix on the host",
	    "no answer\nfrom %s", "10.88.0.1");
	dr_add(&r, "ipv6", "this box", DR_WARN, NULL, "%s", "");
	CHECK_INT(dr_report_lines(&r, &rec, &len), 0);
	CHECK(strstr(rec, "\nend 3\n") != NULL);
	err_clear(&e);
	CHECK_INT(dr_merge_box(&back, "box web", rec, len, where,
	    sizeof(where), &e), 0);
	CHECK_STR(where, "inside");
	CHECK_INT(back.n, 3);
	CHECK_INT(back.fails, 1);
	CHECK_INT(back.warns, 1);
	CHECK_STR(back.f[1].id, "box.dns");
	/* escaped where the box's doctor took it (its newline as \n), then
	 * again where this host took the box's word (the backslash) */
	CHECK_STR(back.f[1].text, "no answer\\\\nfrom 10.88.0.1");
	CHECK_STR(back.f[1].fix, "box doctor --fix on the host");
	CHECK_STR(back.f[2].text, "");
	CHECK_STR(back.f[2].fix, "");
	/* cut anywhere before its end, the record is refused */
	for (i = 0; i + 1 < len; i++) {
		dr_report_reset(&back);
		err_clear(&e);
		CHECK_INT(dr_merge_box(&back, "box web", rec, i, where,
		    sizeof(where), &e), -EBOX_PROTO);
		CHECK_INT(back.n, 0);
	}
	free(rec);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dr_report_reset(&back);
		err_clear(&e);
		CHECK_INT(dr_merge_box(&back, "box web", bad[i],
		    strlen(bad[i]), where, sizeof(where), &e), -EBOX_PROTO);
		CHECK_INT(back.n, 0);	/* nothing half-merged */
	}
	dr_report_free(&r);
	dr_report_free(&back);
}

TEST(doctor_report_caps)
{
	struct dr_report r;
	int i;

	CHECK_INT(dr_report_init(&r), 0);
	for (i = 0; i < DR_MAX + 5; i++)
		dr_add(&r, "x", "s", DR_FAIL, NULL, "%d", i);
	CHECK_INT(r.n, DR_MAX);
	CHECK_INT(r.dropped, 5);
	CHECK_INT(r.fails, DR_MAX + 5);	/* counted, even when not kept */
	dr_report_free(&r);
}

TEST(doctor_brport_message)
{
	/* What `bridge link set dev <port> isolated on` sends (iproute2 6.1,
	 * read with strace): RTM_SETLINK, REQUEST|ACK, an AF_BRIDGE ifinfomsg,
	 * IFLA_PROTINFO (nested) holding IFLA_BRPORT_ISOLATED = 1. */
	static const unsigned char want[] = {
		0x2c, 0, 0, 0, 0x13, 0, 0x05, 0, 7, 0, 0, 0, 0, 0, 0, 0,
		7, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x0c, 0, 0x0c, 0x80, 0x05, 0, 0x21, 0, 1, 0, 0, 0,
	};
	unsigned char buf[64];
	int n = brport_isolated_msg(buf, sizeof(buf), 42, 1, 7);

	CHECK(n > 0);
	CHECK_MEM(buf, (size_t)n, want, sizeof(want));
	CHECK_INT(brport_isolated_msg(buf, 20, 42, 1, 7), -ENOSPC);
}

/*
 * One box's flood cannot push another's findings out: at most DR_BOX_MAX
 * per box, and a FAIL past a cap takes a lesser finding's place.
 */
TEST(doctor_report_caps_per_box_and_keeps_fails)
{
	struct dr_report r;
	int i, a = 0, bfail = 0, afail = 0;

	CHECK_INT(dr_report_init(&r), 0);
	for (i = 0; i < 520; i++)
		dr_add(&r, "box.flood", "box a", DR_PASS, NULL, "pass %d", i);
	dr_add(&r, "box.late", "box a", DR_FAIL, NULL, "a's own FAIL, late");
	dr_add(&r, "box.filter", "box b", DR_FAIL, NULL, "b's FAIL");
	dr_add(&r, "box.port", "box b", DR_PASS, NULL, "b's PASS");
	for (i = 0; i < r.n; i++) {
		a += strcmp(r.f[i].subject, "box a") == 0;
		afail += strcmp(r.f[i].id, "box.late") == 0;
		bfail += strcmp(r.f[i].id, "box.filter") == 0;
	}
	CHECK_INT(a, DR_BOX_MAX);
	CHECK_INT(afail, 1);
	CHECK_INT(bfail, 1);
	CHECK_INT(r.f[r.n - 1].status, DR_PASS);	/* b's PASS, kept too */
	CHECK_STR(r.f[r.n - 1].subject, "box b");
	CHECK_INT(r.dropped, 520 + 1 - DR_BOX_MAX);
	CHECK_INT(r.fails, 2);
	/* the whole report full: a FAIL still takes a PASS's place */
	dr_report_reset(&r);
	for (i = 0; i < DR_MAX; i++)
		dr_add(&r, "x", "host", DR_PASS, NULL, "pass %d", i);
	dr_add(&r, "y", "host", DR_FAIL, NULL, "the FAIL");
	CHECK_INT(r.n, DR_MAX);
	CHECK_STR(r.f[r.n - 1].id, "y");
	CHECK(dr_last(&r) == &r.f[r.n - 1]);
	dr_add(&r, "z", "host", DR_PASS, NULL, "one more pass");
	CHECK(dr_last(&r) == NULL);
	dr_report_free(&r);
}

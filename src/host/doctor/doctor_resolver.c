/*
 * doctor_resolver.c - doctor's word on box's own resolver (host/resolver/),
 * from ground truth, when the bridge hands DNS to it (the default; its unit
 * installed, raw.dnsmasq port=0; with BOX_RESOLVER=dnsmasq, a WARN naming
 * what the boxes lose):
 *   resolver.own      it answers the host's probe on the gateway's :53
 *                     (unit.h: REFUSED with its own EDE text)
 *   resolver.sockets  the gateway's udp and tcp :53 are held by box's
 *                     resolver and nothing else (/proc/net/{udp,tcp} and
 *                     each socket's owner in /proc/<pid>/fd): not dnsmasq
 *   resolver.view     each running box, probed from its own network
 *                     namespace: an allow box's query for a name off its
 *                     list comes back NXDOMAIN with the EDE naming that box,
 *                     an open box's "localhost" NXDOMAIN as a box's (not
 *                     REFUSED as no box's): the resolver knows each box and
 *                     its policy.  No probe leaves the host.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/egress/egress_sync.h"
#include "host/doctor/doctor_int.h"
#include "host/stack/resolver_unit.h"
#include "incus/instance.h"
#include "net/dns.h"

#define S_RSV		"resolver"
#define MAXPROBE	32

static int
line_in(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\0' ||
		    p[n] == '\n'))
			return 1;
		p += n;
	}
	return 0;
}

/* The inodes of sockets bound to gw:53 in /proc/net/<file> (tcp: only
 * listening ones). */
static int
inodes(const char *file, uint32_t gw, int tcp, unsigned long *v, int max)
{
	char path[64], line[512], want[16];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/net/%s", file);
	/* the kernel writes the address as the host-order word of the
	 * network-order bytes: on little-endian, 10.88.0.1 is 0100580A */
	{
		uint32_t be = htonl(gw);
		unsigned char *b = (unsigned char *)&be;

		snprintf(want, sizeof(want), "%02X%02X%02X%02X:0035", b[3], b[2],
		    b[1], b[0]);
	}
	if ((f = fopen(path, "r")) == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL && n < max) {
		char local[64], st[8];
		unsigned long ino;

		if (sscanf(line, " %*d: %63s %*s %7s %*s %*s %*s %*s %*s %lu",
		    local, st, &ino) != 3)
			continue;
		if (strcmp(local, want) != 0 || (tcp && strcmp(st, "0A") != 0))
			continue;
		v[n++] = ino;
	}
	fclose(f);
	return n;
}

/* The pid holding socket inode ino, or 0. */
static int
owner(unsigned long ino)
{
	char want[48], path[600], link[64];
	DIR *d = opendir("/proc"), *fd;
	struct dirent *p, *q;
	int pid = 0;

	if (d == NULL)
		return 0;
	snprintf(want, sizeof(want), "socket:[%lu]", ino);
	while (pid == 0 && (p = readdir(d)) != NULL) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		if ((fd = opendir(path)) == NULL)
			continue;
		while ((q = readdir(fd)) != NULL) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
			    p->d_name, q->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				if (strcmp(link, want) == 0) {
					pid = atoi(p->d_name);
					break;
				}
			}
		}
		closedir(fd);
	}
	closedir(d);
	return pid;
}

/* argv[0] and argv[1..2] of pid: 1 when it is box's resolver. */
static int
is_resolver(int pid, char *what, size_t cap)
{
	char path[64], cmd[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	snprintf(what, cap, "pid %d", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	cmd[n] = '\0';
	snprintf(what, cap, "pid %d (%.60s)", pid, cmd);
	{
		size_t l = strlen(cmd);

		return (size_t)n > l + 13 &&
		    memcmp(cmd + l + 1, "resolver\0run", 13) == 0;
	}
}

static void
check_sockets(struct dh_ctx *h, uint32_t gw)
{
	unsigned long v[8];
	char what[128], bad[300] = "";
	int nu, nt, i, ok = 1;

	nu = inodes("udp", gw, 0, v, 4);
	nt = nu < 0 ? -1 : inodes("tcp", gw, 1, v + nu, 4);
	if (nu < 0 || nt < 0) {
		dr_add(h->r, "resolver.sockets", S_RSV, DR_WARN, "run box "
		    "doctor as root", "/proc/net is unreadable: who holds "
		    "the gateway's port 53 was NOT verified");
		return;
	}
	for (i = 0; i < nu + nt; i++) {
		int pid = owner(v[i]);

		if (pid == 0 || !is_resolver(pid, what, sizeof(what))) {
			ok = 0;
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
			    "%s%s %s", bad[0] ? ", " : "", i < nu ? "udp" :
			    "tcp", pid ? what : "(owner unreadable)");
		}
	}
	if (ok && nu == 1 && nt == 1)
		dr_add(h->r, "resolver.sockets", S_RSV, DR_PASS, NULL, "the "
		    "gateway's udp and tcp port 53 are held by box's resolver "
		    "alone (dnsmasq serves DHCP only)");
	else
		dr_add(h->r, "resolver.sockets", S_RSV, DR_FAIL, "box "
		    "setup-host", "the gateway's port "
		    "53: %d udp and %d tcp sockets%s%s: box's resolver must "
		    "hold exactly one of each, nothing else", nu, nt,
		    bad[0] ? ", not box's resolver's: " : "", bad);
}

/* One query from the network namespace of pid to gw:53: 0 with rcode,
 * EDE code and text, or -1 (no answer). */
static int
ask_from(long long pid, uint32_t gw, const char *name, int *rcode, int *ede,
    char *text, size_t cap)
{
	struct {
		int rcode, ede;
		char text[DNS_EDE_TEXTMAX + 1];
	} res;
	int pfd[2], status;
	pid_t child;
	ssize_t got;

	if (pipe(pfd) < 0)
		return -1;
	fflush(NULL);
	if ((child = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (child == 0) {
		unsigned char q[300], r[1024];
		struct sockaddr_in to;
		struct pollfd p;
		char path[64];
		size_t o = 12;
		const char *s = name;
		ssize_t n;
		int ns, fd;

		close(pfd[0]);
		memset(&res, 0, sizeof(res));
		snprintf(path, sizeof(path), "/proc/%lld/ns/net", pid);
		if ((ns = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
		    setns(ns, CLONE_NEWNET) < 0)
			_exit(1);
		memset(q, 0, sizeof(q));
		q[0] = 0x64; q[1] = 0x72; q[2] = 1; q[5] = 1; q[11] = 1;
		while (*s != '\0' && o < 250) {
			size_t l = strcspn(s, ".");

			q[o++] = (unsigned char)l;
			memcpy(q + o, s, l);
			o += l;
			s += l + (s[l] == '.');
		}
		q[o++] = 0;
		q[o++] = 0; q[o++] = 1; q[o++] = 0; q[o++] = 1;
		memcpy(q + o, "\0\0\x29\x04\xd0\0\0\0\0\0\0", 11);
		o += 11;
		memset(&to, 0, sizeof(to));
		to.sin_family = AF_INET;
		to.sin_addr.s_addr = htonl(gw);
		to.sin_port = htons(DNS_PORT);
		if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
		    connect(fd, (void *)&to, sizeof(to)) < 0 ||
		    send(fd, q, o, 0) != (ssize_t)o)
			_exit(1);
		p.fd = fd;
		p.events = POLLIN;
		if (poll(&p, 1, 1500) <= 0 ||
		    (n = recv(fd, r, sizeof(r), 0)) < DNS_HDRLEN ||
		    r[0] != q[0] || r[1] != q[1])
			_exit(1);
		res.rcode = r[3] & 15;
		res.ede = -1;
		(void)dns_ede_read(r, (size_t)n, &res.ede, res.text,
		    sizeof(res.text));
		(void)write(pfd[1], &res, sizeof(res));
		_exit(0);
	}
	close(pfd[1]);
	got = read(pfd[0], &res, sizeof(res));
	close(pfd[0]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(res))
		return -1;
	*rcode = res.rcode;
	*ede = res.ede;
	snprintf(text, cap, "%s", res.text);
	return 0;
}

static void
check_views(struct dh_ctx *h, uint32_t gw)
{
	struct egfw_box *b = NULL;
	struct box_err e;
	size_t n = 0, i;
	int probed = 0, bad = 0;

	err_clear(&e);
	if (egress_gather(&h->c, &b, &n, NULL, &e) < 0) {
		dr_add(h->r, "resolver.view", S_RSV, DR_WARN, NULL, "the boxes "
		    "could not be read (%s): no box's view was probed", e.msg);
		return;
	}
	for (i = 0; i < n && probed < MAXPROBE; i++) {
		struct incus_inst_state st;
		char text[DNS_EDE_TEXTMAX + 1], want[160];
		const char *name;
		int rcode, ede, allow = b[i].pol.mode == EGRESS_ALLOW, ok;

		err_clear(&e);
		memset(&st, 0, sizeof(st));
		if (incus_instance_state(&h->c, b[i].name, &st, &e) < 0 ||
		    st.pid <= 0) {
			incus_state_free(&st);
			continue;	/* not running: nothing to ask from */
		}
		/* No probe leaves the host: both are answered by the view. */
		name = allow ? "box-doctor-view.invalid" : "localhost";
		probed++;
		if (ask_from(st.pid, gw, name, &rcode, &ede, text,
		    sizeof(text)) < 0) {
			incus_state_free(&st);
			bad++;
			dr_add(h->r, "resolver.view", "box", DR_FAIL, "box "
			    "setup-host", "%s: its query "
			    "to the gateway's port 53 got no answer: it has no "
			    "DNS", b[i].name);
			continue;
		}
		incus_state_free(&st);
		if (allow)
			snprintf(want, sizeof(want), "box %s may resolve only",
			    b[i].name);
		else
			snprintf(want, sizeof(want), "localhost is not "
			    "resolved for boxes");
		ok = rcode == DNS_R_NXDOMAIN && ede == DNS_EDE_BLOCKED &&
		    strncmp(text, want, strlen(want)) == 0;
		if (ok)
			dr_add(h->r, "resolver.view", "box", DR_PASS, NULL,
			    "%s: box's resolver knows it as %s (asked from its "
			    "own network for %s: NXDOMAIN, EDE 15 '%.60s...')",
			    b[i].name, allow ? "an allow box" : "an open box",
			    name, text);
		else {
			bad++;
			dr_add(h->r, "resolver.view", "box", DR_FAIL, "box "
			    "setup-host", "%s: asked "
			    "from its own network for %s, the gateway said "
			    "rcode %d, EDE %d '%.80s', not %s's view (%s)",
			    b[i].name, name, rcode, ede, text, allow ?
			    "an allow box" : "an open box", want);
		}
	}
	free(b);
	if (probed == 0)
		dr_add(h->r, "resolver.view", S_RSV, DR_INFO, NULL, "no box "
		    "runs: no box's view was probed");
}

static void
fixable(struct dr_report *r)
{
	struct dr_finding *f = dr_last(r);

	if (f != NULL)
		f->fixable = 1;
}

int
dh_own_resolver(const char *raw)
{
	return access(RSVD_UNIT_PATH, F_OK) == 0 || line_in(raw, "port=0");
}

void
dh_check_own_resolver(struct dh_ctx *h)
{
	const char *raw = h->net_exists ? incus_kv_or(&h->net.config,
	    "raw.dnsmasq", "") : "";
	char why[200];
	uint32_t gw;
	int rc;

	/* setup-host's unit is its record of the choice (BOX_RESOLVER). */
	if (!dh_own_resolver(raw)) {
		dr_add(h->r, "resolver.own", S_RSV, DR_WARN, "box setup-host "
		    "(without BOX_RESOLVER=dnsmasq)", "the boxes' DNS is "
		    "Incus's dnsmasq's (BOX_RESOLVER=dnsmasq), so they have "
		    "%s", RSVD_LOST);
		return;
	}
	if (!line_in(raw, "port=0")) {
		dr_add(h->r, "resolver.own", S_RSV, DR_FAIL, "box doctor --fix",
		    "%s is installed but raw.dnsmasq lacks port=0: dnsmasq "
		    "claims the boxes' DNS (%s)", RSVD_UNIT, RSVD_LOST);
		fixable(h->r);
	}
	gw = h->live_gw != 0 ? h->live_gw : h->cfg_net | 1;
	rc = rsvd_probe(gw, 1500, why, sizeof(why));
	if (rc == 1)
		dr_add(h->r, "resolver.own", S_RSV, DR_PASS, NULL, "box's "
		    "resolver answers on %s:53 (the host's probe refused with "
		    "its own EDE)%s", h->gw, line_in(raw, "port=0") ?
		    "; dnsmasq's DNS is off (port=0)" : "");
	else {
		dr_add(h->r, "resolver.own", S_RSV, DR_FAIL, "box doctor --fix "
		    "(or box setup-host)", "%s on %s:53: the boxes have "
		    "no DNS (it fails closed: dnsmasq's DNS is off)", rc == 0 ?
		    "something else answers" : "nothing answers", h->gw);
		fixable(h->r);
	}
	check_sockets(h, gw);
	if (h->daemon)
		check_views(h, gw);
}

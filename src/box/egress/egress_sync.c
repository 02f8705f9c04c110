/* egress_sync.c - policies from the instances to the kernel (see
 * egress_sync.h). */
#include "box/egress/egress_sync.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/box.h"
#include "box/bridge.h"
#include "box/lease.h"
#include "box/remote/remote.h"
#include "incus/instance.h"
#include "incus/json.h"
#include "incus/network.h"
#include "model/names.h"

#define TAGGED "config.user.box+eq+1+or+config.user.claudebox+eq+1"
#define RAW_MAX (512u << 10)

const char *
egress_state_path(void)
{
	const char *p = getenv("BOX_EGRESS_STATE");

	return p != NULL && p[0] == '/' ? p : EGRESS_STATE_DEFAULT;
}

int
egress_policy_of(const struct incus_instance *in, struct egress_policy *ep)
{
	return egress_policy_from(incus_kv_get(&in->config, EGRESS_KEY), ep);
}

void
egress_effective_of(const struct incus_instance *in, char *buf, size_t cap)
{
	struct egress_policy *ep = malloc(sizeof(*ep));

	if (ep == NULL) {
		snprintf(buf, cap, "%s", EGRESS_INVALID_TEXT);
		return;
	}
	egress_policy_of(in, ep);
	egress_policy_text(ep, buf, cap);
	free(ep);
}

/* The box's address, for ending its flows: the one Incus pinned to its
 * MAC (ipv4_filtering binds the NIC to it), else its lease. */
static void
box_addr(struct egfw_box *b)
{
	struct lease_pin pin;
	struct leases l = { 0 };
	int i;

	b->has_addr = 0;
	if (!b->has_mac)
		return;
	if (lease_read_pin(CONTRACT_BRIDGE, b->name, CONTRACT_NIC, b->mac,
	    &pin) == 0 && pin.state == 1) {
		b->addr = pin.addr;
		b->has_addr = 1;
		return;
	}
	if (lease_read(CONTRACT_BRIDGE, &l) < 0)
		return;
	for (i = 0; i < l.n; i++)
		if (memcmp(l.v[i].mac, b->mac, 6) == 0) {
			b->addr = l.v[i].addr;
			b->has_addr = 1;
		}
	lease_free(&l);
}

int
egress_gather(struct incus *c, struct egfw_box **out, size_t *n, int *bad,
    struct box_err *e)
{
	struct incus_instance_list l;
	struct egress_policy *ep = NULL;
	struct egfw_box *v;
	size_t i, k = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (bad != NULL)
		*bad = 0;
	if ((rc = incus_instance_list(c, TAGGED, 0, &l, e)) < 0)
		return rc;
	v = calloc(l.n > 0 ? l.n : 1, sizeof(*v));
	if (v == NULL || (ep = malloc(sizeof(*ep))) == NULL) {
		free(v);
		incus_instance_list_free(&l);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < l.n; i++) {
		const struct incus_instance *in = &l.v[i];
		struct egfw_box *b = &v[k];

		if (!box_tagged(in, NULL) || !box_name_ok(in->name))
			continue;
		snprintf(b->name, sizeof(b->name), "%s", in->name);
		if (egress_policy_of(in, ep) < 0 && bad != NULL)
			(*bad)++;
		b->pol = ep->pol;
		b->has_mac = egfw_parse_mac(incus_kv_or(&in->config,
		    "volatile." CONTRACT_NIC ".hwaddr", ""), b->mac) == 0;
		box_addr(b);
		k++;
	}
	free(ep);
	incus_instance_list_free(&l);
	*out = v;
	*n = k;
	return 0;
}

/* --- raw.dnsmasq -------------------------------------------------------------- */

static int
sync_dnsmasq(struct incus *c, const struct egfw_box *b, size_t n,
    int *changed, struct box_err *e)
{
	char *cur = malloc(RAW_MAX), *want = malloc(RAW_MAX);
	char *lines = malloc(RAW_MAX);
	struct incus_network net;
	int rc;
	size_t o;

	if (cur == NULL || want == NULL || lines == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = egfw_dnsmasq(b, n, lines, RAW_MAX)) < 0) {
		rc = err_set(e, rc, "the resolver's egress lines: %s",
		    err_str(rc));
		goto out;
	}
	if ((rc = incus_network_get(c, CONTRACT_BRIDGE, &net, e)) < 0)
		goto out;
	snprintf(cur, RAW_MAX, "%s", incus_kv_or(&net.config, "raw.dnsmasq",
	    ""));
	incus_network_free(&net);
	egfw_dnsmasq_strip(cur, want, RAW_MAX);
	o = strlen(want);
	if (lines[0] != '\0') {
		if (o + strlen(lines) + 2 > RAW_MAX) {
			rc = err_set(e, -ENOSPC, "the resolver's egress lines "
			    "do not fit in raw.dnsmasq");
			goto out;
		}
		snprintf(want + o, RAW_MAX - o, "%s%s", o ? "\n" : "", lines);
	}
	/* Incus re-runs the bridge's setup on the change, which races with
	 * boxes starting and stopping (a veth gone while it lists them):
	 * such a failure changed nothing, so it is tried again. */
	*changed = strcmp(cur, want) != 0;
	for (int tries = 0; strcmp(cur, want) != 0 && tries < 4; tries++) {
		if (tries > 0) {
			err_clear(e);
			usleep(300 * 1000);
		}
		if ((rc = bridge_patch_dnsmasq(c, want, e)) == 0)
			break;
	}
	if (rc < 0)
		err_context(e, "setting boxnet's raw.dnsmasq (the kernel "
		    "already holds the rules)");
out:
	free(cur);
	free(want);
	free(lines);
	return rc;
}

/* --- the state file ------------------------------------------------------------ */

static void
fmt_mac(const unsigned char m[6], char out[18])
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
	    m[3], m[4], m[5]);
}

static int
save_state(const struct egfw_box *b, size_t n, struct box_err *e)
{
	const char *path = egress_state_path();
	char tmp[512], dir[512], mac[18], *pol = malloc(EGRESS_TEXTMAX);
	char *slash;
	FILE *f;
	size_t i;
	int fd, ok = 1;

	if (pol == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		free(pol);
		return err_set(e, -errno, "writing %s: %s", tmp,
		    strerror(errno));
	}
	fprintf(f, "# box egress state: written by box, read by `box "
	    "firewall apply` at boot\nv1\n");
	for (i = 0; i < n; i++) {
		if (b[i].pol.mode != EGRESS_ALLOW || !b[i].has_mac)
			continue;
		fmt_mac(b[i].mac, mac);
		if (b[i].pol.n == 0)
			snprintf(pol, EGRESS_TEXTMAX, "none");
		else if (egress_format(&b[i].pol, pol, EGRESS_TEXTMAX) < 0)
			continue;
		fprintf(f, "%s %s %s\n", b[i].name, mac, pol);
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		ok = 0;
	if (fclose(f) != 0)
		ok = 0;
	free(pol);
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return err_set(e, -EIO, "writing %s failed", path);
	}
	return 0;
}

int
egress_state_parse(const char *text, size_t len, struct egfw_box *b,
    size_t max, size_t *n)
{
	char line[EGRESS_TEXTMAX + 128];
	size_t o = 0, l;
	int v1 = 0;

	*n = 0;
	while (o < len) {
		char name[64], mac[24], *pol;
		const char *nl = memchr(text + o, '\n', len - o);

		l = nl != NULL ? (size_t)(nl - (text + o)) : len - o;
		if (l < sizeof(line)) {
			memcpy(line, text + o, l);
			line[l] = '\0';
		} else {
			line[0] = '#';
			line[1] = '\0';
		}
		o += l + (nl != NULL);
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (!v1) {
			if (strcmp(line, "v1") != 0)
				return -EINVAL;
			v1 = 1;
			continue;
		}
		if (*n >= max)
			return -ENOSPC;
		pol = strchr(line, ' ');
		if (pol == NULL || sscanf(line, "%63s %23s", name, mac) != 2 ||
		    (pol = strchr(pol + 1, ' ')) == NULL)
			continue;
		pol++;
		memset(&b[*n], 0, sizeof(b[*n]));
		if (!box_name_ok(name) || egfw_parse_mac(mac, b[*n].mac) < 0)
			continue;
		snprintf(b[*n].name, sizeof(b[*n].name), "%s", name);
		b[*n].has_mac = 1;
		if (strcmp(pol, "none") == 0 ||
		    egress_parse(pol, &b[*n].pol, NULL, 0) < 0 ||
		    b[*n].pol.mode != EGRESS_ALLOW) {
			/* unreadable or not allow: nothing allowed */
			b[*n].pol.mode = EGRESS_ALLOW;
			b[*n].pol.n = 0;
		}
		(*n)++;
	}
	return v1 ? 0 : -EINVAL;
}

int
egress_emit_saved(struct nft_batch *bt, size_t *nboxes)
{
	struct egfw_box *b = NULL;
	char *text = NULL;
	ssize_t got;
	size_t n = 0;
	int fd, rc = 0;

	*nboxes = 0;
	fd = open(egress_state_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	text = malloc(EGRESS_STATE_MAX);
	b = calloc(EGFW_MAXBOXES, sizeof(*b));
	if (text == NULL || b == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	got = read(fd, text, EGRESS_STATE_MAX);
	if (got < 0 || (size_t)got >= EGRESS_STATE_MAX) {
		rc = got < 0 ? -errno : -EFBIG;
		goto out;
	}
	if ((rc = egress_state_parse(text, (size_t)got, b, EGFW_MAXBOXES,
	    &n)) < 0)
		goto out;
	rc = egfw_emit(bt, b, n, NULL, 0);
	*nboxes = n;
out:
	close(fd);
	free(text);
	free(b);
	return rc;
}

/* --- sync ---------------------------------------------------------------------- */

/* Which boxes lost a name since the last sync (the saved state): their
 * unnamed elements may be the lost name's, so they go. */
static void
mark_shrunk(struct egfw_box *b, size_t n)
{
	struct egfw_box *old = calloc(EGFW_MAXBOXES, sizeof(*old));
	char *text = malloc(EGRESS_STATE_MAX);
	size_t nold = 0, i, j;
	ssize_t got = -1;
	int fd, k;

	for (i = 0; i < n; i++)
		b[i].shrank = 1;
	fd = open(egress_state_path(), O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && text != NULL)
		got = read(fd, text, EGRESS_STATE_MAX);
	if (fd >= 0)
		close(fd);
	if (old == NULL || got < 0 || (size_t)got >= EGRESS_STATE_MAX ||
	    egress_state_parse(text, (size_t)got, old, EGFW_MAXBOXES,
	    &nold) < 0)
		nold = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < nold; j++) {
			if (strcmp(b[i].name, old[j].name) != 0 ||
			    b[i].pol.mode != EGRESS_ALLOW)
				continue;
			b[i].shrank = 0;
			for (k = 0; k < old[j].pol.n; k++)
				if (!egfw_covers(&b[i],
				    egress_domain(old[j].pol.pat[k])))
					b[i].shrank = 1;
			if (old[j].pol.n == 0 && b[i].pol.n > 0)
				b[i].shrank = 0;
		}
	free(old);
	free(text);
}

int
egress_sync_report(struct incus *c, struct egfw_report *rep,
    struct box_err *e)
{
	struct egfw_box *b = NULL;
	struct egfw_report more;
	struct box_err quiet;
	uint32_t net = 0, ns;
	size_t n = 0;
	int rc, changed = 0;

	if (geteuid() != 0) {
		err_set(e, -EPERM, "an egress policy is enforced in the "
		    "kernel, which needs root");
		err_fix(e, "run it with sudo");
		return -EPERM;
	}
	if ((rc = egress_gather(c, &b, &n, NULL, e)) < 0)
		return rc;
	mark_shrunk(b, n);
	err_clear(&quiet);
	if (bridge_net(c, &net, &quiet) < 0)
		net = 0;
	ns = bridge_name_server(c, net);	/* box's resolver answers the host
					   no names: its upstream, then */
	rc = egfw_apply(b, n, ns, rep, e);
	if (rc == 0)
		rc = sync_dnsmasq(c, b, n, &changed, e);
	/* The resolver fed the sets by its old lines until it restarted:
	 * what it added meanwhile is judged again, and its flows ended. */
	if (rc == 0 && changed) {
		rc = egfw_refill(b, n, ns, &more, e);
		if (rep != NULL) {
			rep->removed += more.removed;
			rep->flows_ended += more.flows_ended;
		}
	}
	if (rc == 0)
		rc = save_state(b, n, e);
	free(b);
	return rc;
}

int
egress_sync(struct incus *c, struct box_err *e)
{
	return egress_sync_report(c, NULL, e);
}

/* Did the last sync enforce any box?  (Its state file names one.) */
static int
state_has_boxes(void)
{
	char line[256];
	FILE *f = fopen(egress_state_path(), "r");
	int any = 0;

	if (f == NULL)
		return 0;
	while (!any && fgets(line, sizeof(line), f) != NULL)
		any = line[0] != '#' && strncmp(line, "v1", 2) != 0 &&
		    line[0] != '\n';
	fclose(f);
	return any;
}

int
egress_sync_if(struct incus *c, int needed, struct box_err *e)
{
	/*
	 * Through --remote the rules live in the daemon host's kernel: a box
	 * to enforce is refused (it is not started open); rules only to take
	 * away (a removed box's, matched by its MAC) wait for the next sync
	 * there (box egress, setup-host, doctor --fix).
	 */
	if (remote_active())
		return needed ? remote_kernel_only("an egress policy of allow",
		    e) : 0;
	if (!needed) {
		/* a box that was enforced may be gone or opened: only root
		 * can take its rules away, and only they would change */
		if (!state_has_boxes() || geteuid() != 0)
			return 0;
	}
	return egress_sync(c, e);
}

/*
 * An imported box has no MAC until it starts (Incus picks one then), and
 * its rules are matched by MAC: so box picks it first, in Incus's own
 * prefix (00:16:3e), and the box starts already enforced.
 */
static int
give_mac(struct incus *c, const char *name, struct box_err *e)
{
	unsigned char r[3];
	char key[64], mac[32];
	struct incus_kvs cfg = { 0 };
	int fd, rc;

	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) < 0 ||
	    read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
		if (fd >= 0)
			close(fd);
		return err_set(e, -EIO, "no random bytes for %s's MAC", name);
	}
	close(fd);
	snprintf(key, sizeof(key), "volatile.%s.hwaddr", CONTRACT_NIC);
	snprintf(mac, sizeof(mac), "00:16:3e:%02x:%02x:%02x", r[0], r[1],
	    r[2]);
	if ((rc = incus_kv_set(&cfg, key, mac)) == 0)
		rc = incus_instance_patch(c, name, &cfg, NULL, NULL, 30,
		    e);
	else
		err_set(e, rc, "out of memory");
	incus_kv_free(&cfg);
	if (rc < 0)
		err_context(e, "giving %s a MAC its egress rules can match",
		    name);
	return rc;
}

int
egress_sync_box(struct incus *c, const char *name, struct box_err *e)
{
	struct egfw_box *b = NULL;
	size_t n = 0, i;
	int rc, needed = 0, found = 0;

	if ((rc = egress_gather(c, &b, &n, NULL, e)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if (strcmp(b[i].name, name) == 0) {
			found = 1;
			needed = b[i].pol.mode == EGRESS_ALLOW;
			if (needed && !b[i].has_mac) {
				free(b);
				if ((rc = give_mac(c, name, e)) < 0)
					return rc;
				return egress_sync_box(c, name, e);
			}
		}
	free(b);
	if (!found)
		return 0;
	return egress_sync_if(c, needed, e);
}

/*
 * up.c - bringing a fresh copy of a box up (clone, fork, import): started,
 * a machine identity of its own, answering, and an address that no other
 * instance holds (see up.h).  It sits above waits.c and identity.c, which
 * it composes; neither calls back into it.
 */
#include "box/life/up.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "box/lease.h"
#include "box/life/identity.h"
#include "box/life/life.h"
#include "box/life/waits.h"
#include "box/narrate.h"
#include "incus/instance.h"
#include "model/ip4text.h"
#include "util/clock.h"

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void
step(struct progress *p, const char **stage, const char *name,
    const char *what)
{
	*stage = name;
	if (p != NULL) {
		progress_clear(p);
		progress_start(p, what);
		progress_note(p, "");
	}
}

/*
 * Start it; then wait for its guest agent to run a command (when agent)
 * and give a VM a machine identity of its own (online: it runs).
 */
static int
start_steps(struct incus *c, const char *name, int vm, int agent,
    long long deadline, struct progress *p, const char **stage,
    struct box_err *e)
{
	int rc;

	step(p, stage, "start", "starting it");
	if ((rc = life_state(c, name, "start", 0, 0, e)) < 0)
		return rc;
	if (agent) {
		step(p, stage, "agent", "waiting for the instance to answer");
		if ((rc = life_wait_agent(c, name, deadline, p, e)) < 0)
			return rc;
	}
	if (vm) {
		step(p, stage, "identity", "giving it a machine identity of "
		    "its own");
		if ((rc = life_new_machine_id_online(c, name, deadline, p,
		    e)) < 0)
			return rc;
	}
	return 0;
}

/* An address of its own from DHCP, which no other instance holds: done. */
static int
lease_steps(struct incus *c, const char *name, long long deadline,
    struct progress *p, const char **stage, char *addr, size_t cap,
    struct box_err *e)
{
	char who[128];
	int rc;

	step(p, stage, "address", "waiting for an address of its own");
	if ((rc = life_wait_address(c, name, deadline, p, addr, cap, e)) < 0)
		return rc;
	if ((rc = life_address_holder(c, name, addr, who, sizeof(who), e)) < 0)
		return rc;
	if (who[0] != '\0')
		return err_set(e, -EADDRINUSE, "%s came up on %s, which %s "
		    "holds too", name, addr, who);
	if (p != NULL)
		progress_clear(p);
	return 0;
}

/*
 * The address Incus pinned for the box's first NIC on a managed network:
 * its static DHCP entry (dnsmasq.hosts/<inst>.<dev>), written as the NIC
 * starts; dnsmasq leases that address to that MAC alone, and the NIC's
 * filter lets the box use no other.  1 with addr, net and the entry's
 * file name; 0 when there is none (yet); < 0 when the box cannot be read.
 */
static int
pinned(struct incus *c, const char *name, const struct incus_instance *pre,
    char *addr, size_t cap, char *net, size_t ncap, char *self, size_t scap,
    uint32_t *a, struct box_err *e)
{
	struct incus_instance got;
	const struct incus_instance *in = pre;
	struct lease_pin pin;
	char key[96], inst[80];
	const char *nw;
	size_t i;
	int rc, found = 0;

	if (in == NULL) {
		if ((rc = incus_instance_get(c, name, 0, &got, e)) < 0)
			return rc;
		in = &got;
	}
	/* Incus names the entry <project>_<instance> outside the default */
	if (in->project[0] == '\0' || strcmp(in->project, "default") == 0)
		snprintf(inst, sizeof(inst), "%s", in->name);
	else
		snprintf(inst, sizeof(inst), "%.39s_%.39s", in->project,
		    in->name);
	for (i = 0; i < in->expanded_devices.n && !found; i++) {
		const struct incus_device *d = &in->expanded_devices.v[i];

		nw = incus_kv_get(&d->kv, "network");
		if (strcmp(incus_kv_or(&d->kv, "type", ""), "nic") != 0 ||
		    nw == NULL || strlen(d->name) > 32)
			continue;
		snprintf(key, sizeof(key), "volatile.%s.hwaddr", d->name);
		if (lease_read_pin_hw(nw, inst, d->name, incus_kv_get(
		    &in->config, key), &pin) < 0 || pin.state != 1)
			continue;
		found = 1;
		*a = pin.addr;
		ip4_fmt(pin.addr, addr, cap);
		snprintf(net, ncap, "%s", nw);
		snprintf(self, scap, "%s.%s", inst, d->name);
	}
	if (in == &got)
		incus_instance_free(&got);
	return found;
}

int
life_clone_up(struct incus *c, const char *name, int vm,
    const struct incus_instance *pre, long long deadline, struct progress *p,
    const char **stage, char *addr, size_t cap, int *leased,
    struct box_err *e)
{
	char net[64], self[192], who[192];
	long long until;
	uint32_t a = 0;
	int rc;

	*leased = 0;
	if ((rc = start_steps(c, name, vm, vm, deadline, p, stage, e)) < 0)
		return rc;
	step(p, stage, "address", "reading the address Incus pinned for it");
	/*
	 * Written as its NIC starts: there when the start returns (a moment
	 * more at most); none by then is a NIC with no pin, or a box on
	 * another cluster member, whose files are not this host's.
	 */
	until = clock_ms() + 300;
	while ((rc = pinned(c, name, vm ? NULL : pre, addr, cap, net,
	    sizeof(net), self, sizeof(self), &a, e)) == 0 &&
	    clock_ms() < until && clock_ms() < deadline &&
	    !life_interrupted())
		sleep_ms(20);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		rc = lease_pin_holder(net, self, a, who, sizeof(who));
		if (rc < 0)
			return err_set(e, rc, "reading network %s's pinned "
			    "addresses: %s", net, strerror(-rc));
		if (who[0] != '\0')
			return err_set(e, -EADDRINUSE, "%s was pinned to %s, "
			    "which %s is pinned to too", name, addr, who);
		if (p != NULL)
			progress_clear(p);
		return 0;
	}
	/* no pin (a NIC off a managed network, no filtering): its lease */
	if ((rc = lease_steps(c, name, deadline, p, stage, addr, cap, e)) < 0)
		return rc;
	*leased = 1;
	return 0;
}

int
life_copy_up(struct incus *c, const char *name, int vm, int id_done,
    long long deadline, struct progress *p, const char **stage, char *addr,
    size_t cap, struct box_err *e)
{
	int rc;

	if (!vm && !id_done) {
		step(p, stage, "identity", "giving it a machine identity of "
		    "its own");
		if ((rc = life_new_machine_id_offline(c, name, e)) < 0)
			return rc;
	}
	if ((rc = start_steps(c, name, vm, 1, deadline, p, stage, e)) < 0)
		return rc;
	return lease_steps(c, name, deadline, p, stage, addr, cap, e);
}

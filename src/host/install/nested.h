/*
 * nested.h - am I on a host, inside an Incus instance, or inside a box?
 *
 * Why this exists: a box stack built inside a box puts a second bridge on
 * the guest's own uplink subnet and takes its gateway address; the guest's
 * networking then fails in bursts that look like flaky internet (the #80
 * outage).  The installer and setup-host ask this module before they build
 * anything, and `box whereami` shows its answer.
 *
 * Two steps.  nested_probe() gathers facts from the running system and
 * never fails: what it cannot read it records as unknown.  nested_classify()
 * is pure: facts in, a verdict and the evidence lines out, so tests feed it
 * pictures of a host, a plain instance and a box.
 *
 * Signals, strongest first:
 *   - the guest API socket /dev/incus/sock answering as Incus (GET /1.0),
 *     and the instance's own user.box / user.claudebox stamp read through it
 *     (only user.* keys are visible there; only root inside may ask);
 *   - a NIC of the instance attached to the Incus network boxnet/claudenet
 *     (GET /1.0/devices on the guest API);
 *   - container=lxc in /proc/1/environ or /run/systemd/container, and the
 *     DMI board an Incus VM presents (LinuxContainers / Incus);
 *   - the network: the default gateway, or a client address (not the .1 a
 *     bridge holds), inside the box subnet range: 10.87.0.0/24 (legacy),
 *     10.88.0.0/24, and 10.89.0.0-10.127.255.255 (where setup-host
 *     auto-picks and where BOX_SUBNET pins usually land).  The range is
 *     deliberately wide, so on its own it is only a hint: it turns
 *     "inside an Incus instance" into "inside a box", never "host" into
 *     anything.
 */
#ifndef BOX_NESTED_H
#define BOX_NESTED_H

#include <stddef.h>
#include <stdint.h>

#define NESTED_GUESTAPI	"/dev/incus/sock"
#define NESTED_MAX_ADDRS 64
#define NESTED_MAX_EVIDENCE 24

enum nested_verdict { NESTED_HOST = 0, NESTED_INSTANCE, NESTED_BOX };

/* What the guest API socket did. */
enum nested_gapi {
	GAPI_ABSENT = 0,	/* no socket */
	GAPI_INCUS,		/* GET /1.0 answered as Incus */
	GAPI_REFUSED,		/* present, but only root may ask (401/EACCES) */
	GAPI_MUTE,		/* present, no usable answer */
};

struct nested_facts {
	int gapi;			/* enum nested_gapi */
	char gapi_detail[96];		/* why MUTE/REFUSED */
	char instance_type[32];		/* "container", "virtual-machine" */
	char location[64];		/* the Incus host's name */
	int stamp;			/* 1 user.box=1, 2 user.claudebox=1,
					   0 neither, -1 not readable */
	char stamp_detail[96];		/* why not readable */
	char nic[16], nic_network[32];	/* a NIC on boxnet/claudenet */
	char container[32];		/* container=... value, "" if none */
	char container_src[40];		/* where it was read */
	int environ_unreadable;		/* /proc/1/environ: no permission */
	char hint[64];			/* /.dockerenv and the like */
	int dmi_incus;			/* VM board says LinuxContainers/Incus */
	int net_read;			/* 1 routes/addresses were read */
	char net_detail[96];		/* why not */
	int has_gw;
	uint32_t gw;			/* host order */
	char gw_dev[16];
	int naddr;
	struct {
		char ifname[16];
		uint32_t addr;		/* host order */
		uint8_t plen;
		int bridge;		/* the interface is a bridge */
	} addr[NESTED_MAX_ADDRS];
};

/* Evidence weights: what a line proves. */
enum nested_weight {
	NW_INFO = 0,		/* context; proves nothing */
	NW_NET,			/* a network hint: box-like uplink */
	NW_INSTANCE,		/* inside an Incus (or LXC) instance */
	NW_BOX,			/* inside a box, whatever else is seen */
};

struct nested_evidence {
	const char *signal;	/* "guestapi", "stamp", "nic", "container",
				   "dmi", "uplink", "address", "bridge",
				   "hint", "network" */
	int weight;		/* enum nested_weight */
	char text[200];
};

struct nested_report {
	int verdict;		/* enum nested_verdict */
	int n;
	struct nested_evidence ev[NESTED_MAX_EVIDENCE];
};

/* 1 when a (host order) lies in the box subnet range described above. */
int nested_box_range(uint32_t a);

/* Gather facts; never fails.  gapi_path is NESTED_GUESTAPI in the binary. */
void nested_probe(struct nested_facts *f, const char *gapi_path);

/* Facts to verdict and evidence lines (pure). */
void nested_classify(const struct nested_facts *f, struct nested_report *r);

/* "host", "instance", "box" and the sentence for each. */
const char *nested_verdict_name(int v);
const char *nested_verdict_text(int v);

#endif

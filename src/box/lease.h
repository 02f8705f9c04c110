/*
 * lease.h - a running box's address from its network's own DHCP records,
 * without asking the daemon for every instance's runtime state.
 *
 * Incus runs one dnsmasq per managed bridge and keeps its files under
 * $INCUS_DIR/networks/<net>/ (INCUS_DIR defaults to /var/lib/incus):
 *   dnsmasq.leases           "<expiry> <mac> <ipv4> <host> <client-id>"
 *   dnsmasq.hosts/<inst>.<dev>  "MAC,IP[,name]", the address Incus pinned
 *                               (ipv4_filtering binds the NIC to it)
 * A lease proves the box asked for its address only if dnsmasq granted it
 * after the box last started: expiry - lease time >= last_used_at.  A lease
 * from before (the box restarted and has not asked again), a lease for an
 * address other than the pinned one, or two leases for one MAC give no
 * address, with the reason: an address is shown only when it is right.
 */
#ifndef BOX_LEASE_H
#define BOX_LEASE_H

#include <stddef.h>
#include <stdint.h>

#define LEASE_FILE_MAX (1u << 20)	/* larger: not read (the full path) */

struct lease {
	long long expiry;	/* unix seconds; 0 = infinite */
	unsigned char mac[6];
	uint32_t addr;		/* host order */
};

struct leases {
	struct lease *v;	/* heap */
	int n;
};

/*
 * Parse a dnsmasq lease file.  Lines that are not IPv4 leases (the "duid"
 * line, IPv6 leases, anything malformed) are skipped: a MAC whose line was
 * skipped simply has no lease, so nothing wrong can be shown.  0 or -ENOMEM.
 */
int lease_parse(const char *text, size_t n, struct leases *l);
void lease_free(struct leases *l);

/* dnsmasq's lease time: "3600", "45m", "1h", "2d", "1w"; "infinite" -> 0. */
int lease_duration(const char *s, long long *secs);

/* "2026-12-01T09:50:01.121407676Z" -> unix seconds (fraction dropped). */
int lease_iso_time(const char *iso, long long *secs);

/* The static allocation Incus pinned, as read from dnsmasq.hosts/. */
struct lease_pin {
	int state;		/* 0 none (no file), 1 this MAC's, -1 another MAC's */
	uint32_t addr;
};

/*
 * The verdict for one NIC: 1 and *addr when the address is known to be
 * right; 0 with why (a sentence) when none can be shown; -ENOTSUP when
 * the records cannot tell (an infinite lease time: ask the daemon).  started is the
 * instance's last start (unix s), duration the network's lease time
 * (seconds, > 0).
 */
int lease_judge(const struct leases *l, const unsigned char mac[6],
    long long started, long long duration, const struct lease_pin *pin,
    uint32_t *addr, char *why, size_t cap);

/* $INCUS_DIR/networks/<net>/<file> into buf. */
int lease_path(const char *net, const char *file, char *buf, size_t cap);

/* Read <net>'s lease file: 0, or -errno (unreadable, too large). */
int lease_read(const char *net, struct leases *l);

/* Read the pin of inst's NIC dev on net (absent: state 0). 0 or -errno. */
int lease_read_pin(const char *net, const char *inst, const char *dev,
    const unsigned char mac[6], struct lease_pin *pin);

/* The same, the MAC as Incus writes it ("10:66:6a:..."): -EINVAL if not. */
int lease_read_pin_hw(const char *net, const char *inst, const char *dev,
    const char *hw, struct lease_pin *pin);

/*
 * Another NIC's pin on net holding addr (host order): the instance part
 * of its file's name ("<inst>" or "<project>_<inst>") into who, "" when
 * none.  self ("<inst>.<dev>") is skipped; at most LEASE_PINS_MAX files
 * are read.  0, or -errno when the directory cannot be read.
 */
#define LEASE_PINS_MAX 4096
int lease_pin_holder(const char *net, const char *self, uint32_t addr,
    char *who, size_t cap);

/*
 * The lease time of the IPv4 range in Incus's record of the network's
 * dnsmasq (dnsmasq.pid: its arguments): 0 and *secs (0 = infinite), or
 * -ENOENT / -EINVAL.
 */
int lease_time_from_record(const char *text, size_t n, long long *secs);
int lease_read_time(const char *net, long long *secs);

#endif

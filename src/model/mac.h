/*
 * mac.h - a NIC's MAC address as text, and the dnsmasq static allocation
 * line Incus writes for a NIC with a pinned address ("MAC,IP[,name]").
 * box/ reads them to find a box's lease and where it is; doctor reads them
 * to judge a port's filter against its pin.
 *
 * Part of the model floor (src/model/): names and pure rules that box/ and
 * host/ both use, below both, depending on nothing but libc.
 */
#ifndef BOX_MAC_H
#define BOX_MAC_H

#include <stddef.h>
#include <stdint.h>

/* "aa:bb:cc:dd:ee:ff" -> 6 bytes; -EINVAL otherwise. */
int mac_parse(const char *s, unsigned char mac[6]);

/*
 * A dnsmasq static allocation line as Incus writes it ("MAC,IP" and
 * optionally ",name"): 0 and *addr (host order) when its MAC is mac,
 * -ESRCH when it is another MAC's, -EINVAL when it is not such a line.
 */
int mac_static_parse(const char *text, size_t n, const unsigned char mac[6],
    uint32_t *addr);

#endif

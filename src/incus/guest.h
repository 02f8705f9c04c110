/*
 * guest.h - the guest API (/dev/incus/sock), asked from inside an instance.
 *
 * Typed reads of what box asks the guest API: who is answering (GET /1.0),
 * a config key of our own instance, and its NICs.  The bodies are raw (no
 * envelope); the decoders are pure and bounded (fuzz_json drives them).
 *
 * Every question goes over one kept-alive connection.  Incus 6.0.4 reads
 * its table of guest connections without the lock while another connection
 * opens or closes (lxc/incus#3618, fixed upstream after 6.0.4), and the Go
 * runtime kills the whole daemon for it: every box on the host with it.  A
 * connection per request made that race with our own previous one; one
 * connection never opens or closes while a request of ours is being served.
 */
#ifndef BOX_GUEST_H
#define BOX_GUEST_H

#include <stddef.h>

#include "incus/transport.h"
#include "util/err.h"

#define INCUS_GUEST_TIMEOUT_MS	10000	/* the daemon finds us by pid: slow
					   when busy */
#define INCUS_GUEST_MAX_BODY	(64u << 10)	/* /1.0/devices of a big
						   instance */

struct incus_guest;

struct incus_guest_info {
	char instance_type[32];	/* "container", "virtual-machine" */
	char location[64];	/* the Incus host's name */
};

struct incus_guest_nic {
	char name[16];		/* the device name */
	char network[32];	/* its managed network, "" if none */
};

/*
 * A client for the guest API at sock (heap, never NULL but on -ENOMEM);
 * dialled through d (NULL: the unix socket) on first use.
 */
int incus_guest_open(struct incus_guest **g, const char *sock,
    const struct dialer *d, struct box_err *e);
void incus_guest_close(struct incus_guest *g);

/*
 * Who answers: 0 Incus (info filled); -EACCES refused (connecting, or 401/
 * 403: only root inside may ask); -EBOX_PROTO JSON that is not Incus's;
 * other < 0 no usable answer.  e says why in every case.
 */
int incus_guest_info(struct incus_guest *g, struct incus_guest_info *info,
    struct box_err *e);

/*
 * Our instance's config key (first line of the value into val): 1 set,
 * 0 not set (404), < 0 unreadable (e says why).
 */
int incus_guest_config(struct incus_guest *g, const char *key, char *val,
    size_t cap, struct box_err *e);

/* Our instance's NICs (at most max): how many, or < 0. */
int incus_guest_nics(struct incus_guest *g, struct incus_guest_nic *out,
    size_t max, struct box_err *e);

/*
 * The decoders, pure, of a 200 answer's body.  parse_info: 1 Incus's
 * (info filled), 0 JSON that is not Incus's, -EBOX_PROTO not JSON.
 * parse_nics: how many NICs were stored, or < 0 not JSON.
 */
int incus_guest_parse_info(const char *body, size_t n,
    struct incus_guest_info *info);
int incus_guest_parse_nics(const char *body, size_t n,
    struct incus_guest_nic *out, size_t max, struct box_err *e);

#endif

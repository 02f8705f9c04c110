/*
 * door.h - the credential door: box's HTTP/1.1 service on boxnet's
 * gateway address (host/door/).  One service, routed by path through
 * one table (door.c's routes[]): /s/<secret>/<path> is the credential
 * proxy (proxy.c); other rooms mount their paths in the same table.
 *
 * A box is known by the source address of its connection alone (the
 * bridge's binding sets let no box send with another's address), looked
 * up in the table of boxes and their grants the door re-reads from the
 * daemon.  Per request: the grant is checked, the request is read
 * strictly (http.h), the secret's header set by the host (any the box
 * sent replaced), and the request forwarded over TLS (BearSSL: the
 * host's CA bundle, SNI, the name checked, TLS 1.2+) to the secret's
 * host, resolved by the host's name server and refused when it is not
 * a public address (addr.h).  Bodies stream both ways through bounded
 * buffers.  Every answered request is one line of the use log.
 *
 * Not to be confused with box/door.h: a box's exposures (box expose).
 */
#ifndef BOX_HOST_DOOR_H
#define BOX_HOST_DOOR_H

#define DOOR_PORT	7480		/* on the gateway; the contract admits
					   it from boxes only */
#define DOOR_NAME	"box.internal"	/* box's resolver answers it */
#define DOOR_MAXCONN	256		/* connections, all boxes */
#define DOOR_BOXCONN	16		/* ...one box */
#define DOOR_RATE	50		/* requests a second per box, burst 2x */
#define DOOR_IDLE_MS	15000		/* a box's request head, or a silence */
#define DOOR_UP_MS	30000		/* the upstream's first answer */
#define DOOR_STREAM_MS	300000		/* silence in a streamed body */
#define DOOR_REFRESH_MS	5000		/* the boxes and grants re-read */
/* Only under BOX_DOOR_TEST=1: a PEM file of trust anchors used instead
 * of the host's bundle (the integration test's own CA), and the secret
 * hosts' addresses not judged (the test's upstream lives in the
 * documentation range anyway; the judging is unit-tested). */
#define DOOR_TEST_ENV	"BOX_DOOR_TEST"
#define DOOR_TEST_CA	"BOX_DOOR_TEST_CA"
#define DOOR_CA_BUNDLE	"/etc/ssl/certs/ca-certificates.crt"

#include <stdint.h>

#include "util/err.h"

struct door_conf {
	uint32_t listen;		/* host order: the gateway */
	uint16_t port;
	uint32_t net;			/* the boxes' /24 */
	uint32_t dns;			/* the host's name server, host order */
	const char *store;		/* the secret store */
	const char *ca_file;		/* trust anchors (PEM) */
	const char *bridge;
	/* Only under the test flag: sources in open_net/open_plen are the
	 * box named "test", granted every secret (plen 0: none); a host
	 * name pinned to an address (pin_host NULL: none) instead of DNS;
	 * no address judged (check_addr 0). */
	uint32_t open_net;
	int open_plen;
	const char *pin_host;
	uint32_t pin_addr;
	int check_addr;
};

/* Serve until SIGTERM/SIGINT: 0, or a failure to start (e). */
int door_run(const struct door_conf *c, struct box_err *e);

/* The URL a box uses for secret: http://box.internal:7480/s/<secret> */
#define DOOR_URL_FMT	"http://" DOOR_NAME ":%d/s/%s"

#endif

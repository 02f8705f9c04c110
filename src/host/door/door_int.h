/*
 * door_int.h - what the door's files share (door.c serves, proxy.c
 * forwards): one box's connection and its request.
 */
#ifndef BOX_DOOR_INT_H
#define BOX_DOOR_INT_H

#include <stddef.h>
#include <stdint.h>

#include "box/secret/secret.h"
#include "host/door/door.h"
#include "host/door/http.h"
#include "host/door/tls.h"

struct door_req {
	const struct door_conf *conf;
	const struct tls_anchors *ta;
	int fd;				/* the box's connection */
	uint32_t src;			/* its address */
	char box[64];
	char grants[SECRET_GRANTMAX * (SECRET_NAMEMAX + 1) + 1];
	int all_granted;		/* the test's open prefix */
	char head[DH_HEADMAX];
	size_t have;			/* bytes read into head */
	struct dh_req r;
	struct secret_use use;
};

/* The door's own answer to the box (closes nothing): status and text. */
void door_reply(struct door_req *q, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write all of p to the box by deadline: 0 or < 0. */
int door_send(int fd, const void *p, size_t n, long long deadline);

/* /s/<secret>/<path>: the credential proxy (proxy.c). */
void door_proxy(struct door_req *q);

#endif

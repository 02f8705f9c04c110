/*
 * fwdata.h - the firewall's own data that the host decides, persisted:
 * the operator's blocklist (prefixes the forward chain drops, added with
 * BOX_BLOCK at setup-host or `box firewall block add|rm`) and the per-box
 * connection cap (BOX_CONN_MAX, `box firewall apply --conn-max`).
 *
 * Every firewall apply and read builds the contract's environment from
 * this file and the kernel's uplink prefixes (fw_env in firewall.h), so
 * what was applied is what is read back, by content.  Written atomically
 * (a temp file in the same directory, fsync, rename); root-owned 0600.
 */
#ifndef BOX_FWDATA_H
#define BOX_FWDATA_H

#include <stddef.h>
#include <stdint.h>

#include "host/stack/contract.h"
#include "util/err.h"

#define FWDATA_PATH_DEFAULT	"/var/lib/box/firewall.data"
#define FWDATA_MAXBLOCK		32	/* the rest of CONTRACT_MAXNAMED is
					   for the uplink's prefixes */
#define FWDATA_TEXTMAX		8192

struct fwdata {
	uint32_t conn_max;		/* 0: CONTRACT_CONN_MAX */
	struct {
		uint32_t addr;		/* host order, host bits clear */
		uint8_t plen;
	} block[FWDATA_MAXBLOCK];
	size_t nblock;
};

/* BOX_FIREWALL_DATA when it is an absolute path, else the default. */
const char *fwdata_path(void);

/* Pure: text (n bytes) into d.  -EINVAL names nothing: a line that is
 * not "v1", a comment, "conn-max N" or "block A.B.C.D/L", or too many. */
int fwdata_parse(const char *text, size_t n, struct fwdata *d);
/* d as the file's text into buf: 0 or -ENOSPC. */
int fwdata_format(const struct fwdata *d, char *buf, size_t cap);

/* Read the file (absent: the defaults, 0). */
int fwdata_load(struct fwdata *d, struct box_err *e);
int fwdata_save(const struct fwdata *d, struct box_err *e);

/* "A.B.C.D/L" (or a bare address: /32) into addr/plen, host bits
 * cleared.  -EINVAL otherwise. */
int fwdata_prefix_parse(const char *s, uint32_t *addr, uint8_t *plen);

/* Add (no duplicate; -ENOSPC when full) or remove (-ENOENT) a prefix. */
int fwdata_block_add(struct fwdata *d, uint32_t addr, uint8_t plen);
int fwdata_block_rm(struct fwdata *d, uint32_t addr, uint8_t plen);

/*
 * setup-host's environment: BOX_BLOCK (prefixes separated by commas or
 * spaces; set and empty clears the list) and BOX_CONN_MAX, merged into the
 * file.  Unset: the file stays.  A bad value is a usage error (exit 2).
 */
int fwdata_from_env(struct box_err *e);

#endif

/*
 * box secret-door run --listen A.B.C.1[:port] - the credential door in
 * the foreground (host/door/door.h); what the boot unit starts.
 * Internal: not listed in box help.  The test flag (BOX_DOOR_TEST=1)
 * alone opens the --test-* rows and BOX_DOOR_TEST_CA.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/secret/secret.h"
#include "cmd/cmd.h"
#include "host/door/door.h"
#include "model/names.h"
#include "util/opt.h"

static int
addr_port(const char *s, uint32_t *a, uint16_t *port, struct box_err *e)
{
	char buf[32], *colon;
	struct in_addr ia;

	snprintf(buf, sizeof(buf), "%s", s);
	if ((colon = strchr(buf, ':')) != NULL) {
		long p = strtol(colon + 1, NULL, 10);

		if (p < 1 || p > 65535)
			return err_usage(e, "'%s': not A.B.C.D[:port]", s);
		*port = (uint16_t)p;
		*colon = '\0';
	}
	if (inet_pton(AF_INET, buf, &ia) != 1)
		return err_usage(e, "'%s': not A.B.C.D[:port]", s);
	*a = ntohl(ia.s_addr);
	return 0;
}

/* pinname: the caller's, as long as c lives (c->pin_host points in). */
static int
test_rows(struct door_conf *c, const char *open, const char *pin,
    char *pinname, size_t cap, struct box_err *e)
{
	const char *flag = getenv(DOOR_TEST_ENV), *ca = getenv(DOOR_TEST_CA);
	uint16_t dummy = 0;
	char *eq, buf[32];
	int rc;

	if (flag == NULL || strcmp(flag, "1") != 0) {
		if (open != NULL || pin != NULL)
			return err_usage(e, "--test-open and --test-pin are "
			    "for tests only (%s=1)", DOOR_TEST_ENV);
		return 0;
	}
	if (ca != NULL && ca[0] != '\0')
		c->ca_file = ca;
	if (open != NULL) {
		snprintf(buf, sizeof(buf), "%s", open);
		if ((eq = strchr(buf, '/')) == NULL)
			return err_usage(e, "--test-open A.B.C.D/N");
		*eq = '\0';
		c->open_plen = atoi(eq + 1);
		if (c->open_plen < 1 || c->open_plen > 32 ||
		    (rc = addr_port(buf, &c->open_net, &dummy, e)) < 0)
			return err_usage(e, "--test-open A.B.C.D/N");
	}
	if (pin != NULL) {
		snprintf(pinname, cap, "%s", pin);
		if ((eq = strchr(pinname, '=')) == NULL)
			return err_usage(e, "--test-pin host=A.B.C.D");
		*eq = '\0';
		if ((rc = addr_port(eq + 1, &c->pin_addr, &dummy, e)) < 0)
			return rc;
		c->pin_host = pinname;
	}
	return 0;
}

int
cmd_secret_door(int argc, char **argv, struct box_err *e)
{
	const char *listen = NULL, *dns = NULL, *store = NULL, *open = NULL;
	const char *pin = NULL;
	char pinname[SECRET_HOSTMAX + 1];
	int nocheck = 0;
	struct opt_result res;
	struct door_conf c;
	uint16_t dport = 53;
	int rc;
	const struct opt rows[] = {
		OPT_WORDS("run", 1, 1, "run", NULL),
		OPT_NEED("--listen", "A.B.C.1[:port]", &listen, OC_NONE,
		    "the gateway's address: the boxes' /24 is its"),
		OPT_STR("--dns", "A.B.C.D", &dns, OC_NONE, "the host's name "
		    "server the secrets' hosts are asked of (resolv.conf's)"),
		OPT_STR("--store", "dir", &store, OC_NONE, "the secret store "
		    "(" SECRET_DIR ")"),
		OPT_STR("--test-open", "A.B.C.D/N", &open, OC_NONE, NULL),
		OPT_STR("--test-pin", "host=A.B.C.D", &pin, OC_NONE, NULL),
		OPT_SECRET("--test-no-addr-check", &nocheck),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	memset(&c, 0, sizeof(c));
	c.port = DOOR_PORT;
	c.store = store != NULL ? store : SECRET_DIR;
	c.ca_file = DOOR_CA_BUNDLE;
	c.bridge = CONTRACT_BRIDGE;
	c.check_addr = 1;
	if ((rc = addr_port(listen, &c.listen, &c.port, e)) < 0)
		return rc;
	c.net = c.listen & 0xffffff00u;
	if (dns != NULL && (rc = addr_port(dns, &c.dns, &dport, e)) < 0)
		return rc;
	if ((rc = test_rows(&c, open, pin, pinname, sizeof(pinname), e)) < 0)
		return rc;
	if (nocheck && c.pin_host == NULL)
		return err_usage(e, "--test-no-addr-check goes with --test-pin");
	c.check_addr = !nocheck;
	return door_run(&c, e);
}

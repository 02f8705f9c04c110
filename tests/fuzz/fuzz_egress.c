/*
 * fuzz_egress - what the egress policy reads that it did not write: the
 * stored policy (an instance key anyone with the daemon can set; it ends
 * up in dnsmasq's config and the kernel), the state file the boot unit
 * reads, the kernel's set and element dumps, and the resolver's PTR
 * and A answers.  The first byte picks the reader.  A parsed policy must format
 * back to itself and hold only what the parser allows; the resolver's
 * lines built from it may hold no newline but their own; a PTR name is
 * printable LDH; element keys stay within their bound.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box/egress/egress.h"
#include "box/egress/egress_fw.h"
#include "box/egress/egress_sync.h"
#include "box/egress/ptr.h"
#include "net/nft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct egress pol, again;
static struct egfw_box boxes[8];
static char text[EGRESS_TEXTMAX + 64], out[EGRESS_TEXTMAX + 64];
static char lines[1 << 17];
static unsigned char batch[1 << 17];
static struct nft_batch bt;
static struct nft_set_elem elems[16], plan[8];
static struct egfw_refused refused[8];

static void
policy(const uint8_t *p, size_t n)
{
	size_t i;
	int k;

	if (n >= sizeof(text))
		n = sizeof(text) - 1;
	memcpy(text, p, n);
	text[n] = '\0';
	if (egress_parse(text, &pol, NULL, 0) != 0)
		return;
	if (egress_format(&pol, out, sizeof(out)) != 0)
		abort();
	if (egress_parse(out, &again, NULL, 0) != 0 || again.n != pol.n ||
	    again.mode != pol.mode)
		abort();
	for (k = 0; k < pol.n; k++)
		for (i = 0; pol.pat[k][i] != '\0'; i++)
			if (strchr("abcdefghijklmnopqrstuvwxyz0123456789-.*",
			    pol.pat[k][i]) == NULL)
				abort();
	memset(&boxes[0], 0, sizeof(boxes[0]));
	memcpy(boxes[0].name, "f", 2);
	boxes[0].pol = pol;
	boxes[0].has_mac = 1;
	if (egfw_dnsmasq(boxes, 1, lines, sizeof(lines)) == 0)
		for (i = 0; lines[i] != '\0'; i++)
			if (lines[i] == '\n' &&
			    strncmp(lines + i + 1, "nftset=/", 8) != 0)
				abort();
}

static void
state(const uint8_t *p, size_t n)
{
	size_t nb = 0, i;

	if (egress_state_parse((const char *)p, n, boxes, 8, &nb) < 0 &&
	    nb > 8)
		abort();
	for (i = 0; i < nb; i++)
		if (memchr(boxes[i].name, '\0', sizeof(boxes[i].name)) == NULL)
			abort();
	nft_batch_init(&bt, batch, sizeof(batch), 1);
	(void)egfw_emit(&bt, boxes, nb, NULL, 0);
	(void)egfw_dnsmasq(boxes, nb, lines, sizeof(lines));
}

static void
dumps(const uint8_t *p, size_t n)
{
	struct nl_msg m;
	size_t off = 0, ne = 0, dropped = 0, i;
	char name[NFT_NAMELEN];

	while (nl_msg_at(p, n, &off, &m) > 0) {
		(void)nft_parse_setelems(&m, "box", "el-f", elems, 16, &ne,
		    &dropped);
		(void)nft_parse_set(&m, "box", name, sizeof(name));
		(void)nft_parse_set_comment(&m, "box", "el-f", name,
		    sizeof(name));
		if (memchr(name, '\0', sizeof(name)) == NULL)
			abort();
	}
	if (ne > 16)
		abort();
	for (i = 0; i < ne; i++)
		if (elems[i].klen == 0 || elems[i].klen > NFT_SET_KEYMAX ||
		    elems[i].dlen > NFT_SET_KEYMAX ||
		    memchr(elems[i].comment, '\0',
		    sizeof(elems[i].comment)) == NULL)
			abort();
	/* What the kernel's elements become: the log's destinations, and
	 * the set diff against a policy, both bounded. */
	if (egfw_log_fold(elems, ne, 3600000, refused, 8) > 8)
		abort();
	memset(&boxes[0], 0, sizeof(boxes[0]));
	(void)egress_parse("allow:a.test,*.b.test", &boxes[0].pol, NULL, 0);
	boxes[0].shrank = (int)(n & 1);
	if (egfw_plan(&boxes[0], elems, ne, elems, ne, plan, 8, NULL) > 8)
		abort();
}

/* The resolver's A answers: first two bytes the id. */
static void
answers(const uint8_t *p, size_t n)
{
	uint32_t a[8], t[8];
	int k;

	if (n < 2)
		return;
	k = ptr_a_reply(p + 2, n - 2, (uint16_t)(p[0] << 8 | p[1]), a, t, 8);
	if (k > 8)
		abort();
}

static void
ptr(const uint8_t *p, size_t n)
{
	char name[PTR_NAME_MAX];
	size_t i;

	if (n < 2)
		return;
	if (ptr_reply(p + 2, n - 2, (uint16_t)(p[0] << 8 | p[1]), name,
	    sizeof(name)) != 1)
		return;
	for (i = 0; name[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789-_.",
		    name[i]) == NULL)
			abort();
}

static void
strip(const uint8_t *p, size_t n)
{
	if (n >= sizeof(text))
		n = sizeof(text) - 1;
	memcpy(text, p, n);
	text[n] = '\0';
	egfw_dnsmasq_strip(text, out, sizeof(out));
	if (strstr(out, "nftset=") == out || strstr(out, "\nnftset=") != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0] % 6) {
	case 0:
		policy(data + 1, size - 1);
		break;
	case 1:
		state(data + 1, size - 1);
		break;
	case 2:
		dumps(data + 1, size - 1);
		break;
	case 3:
		ptr(data + 1, size - 1);
		break;
	case 5:
		answers(data + 1, size - 1);
		break;
	default:
		strip(data + 1, size - 1);
	}
	return 0;
}

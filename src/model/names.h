/*
 * names.h - the names of the host stack's objects and the box tag, stated
 * once for the whole tree.  The contract (host/stack/contract.h) builds,
 * checks and removes the objects; box/ mints boxes onto them, checks a
 * profile by name and stamps the tag; cmd/ and host/install/ name them in
 * what they print.
 *
 * Part of the model floor (src/model/): names and pure rules that box/ and
 * host/ both use, below both, depending on nothing but libc.
 */
#ifndef BOX_NAMES_H
#define BOX_NAMES_H

/* --- object names ---------------------------------------------------------- */

#define CONTRACT_BRIDGE		"boxnet"
#define CONTRACT_ACL		"box-isolate"
#define CONTRACT_PROFILE	"box-net"
#define CONTRACT_POOL		"default"	/* Incus's own, when it has one */
#define CONTRACT_OWN_POOL	"box"		/* box's btrfs pool on a loop file */
#define CONTRACT_NFT_TABLE	"box"		/* inet box, bridge box */
#define CONTRACT_NIC		"eth0"
/* On an Incus cluster: the group of the members holding the contract
 * (setup-host joins it once the member's firewall is read back; new
 * boxes are placed with target=@box). */
#define CONTRACT_GROUP		"box"
/* inet box's regular chain for the boxes' egress policies (the forward
 * chain jumps to it), and dnsmasq's cache cap that those rely on. */
#define CONTRACT_EGRESS_CHAIN	"egress"
#define CONTRACT_DNS_CACHE_TTL	"300"

/* The legacy stack's names (teardown removes them too). */
#define CONTRACT_LEGACY_NFT_TABLE "claudebox"

/*
 * The legacy (pre-0.4, "claudebox") stack, as migrate-host re-homes its
 * boxes and retires it: the tag its boxes carry, its bridge (10.87.0.0/24),
 * profile and ACL, and the boot unit and script of its firewall.
 */
#define CONTRACT_LEGACY_TAG	"user.claudebox"
#define CONTRACT_LEGACY_BRIDGE	"claudenet"
#define CONTRACT_LEGACY_PROFILE	"claude-dev"
#define CONTRACT_LEGACY_ACL	"claude-isolate"
#define CONTRACT_LEGACY_UNIT	"claudebox-firewall.service"
#define CONTRACT_LEGACY_UNIT_PATH "/etc/systemd/system/" CONTRACT_LEGACY_UNIT
#define CONTRACT_LEGACY_UNIT_WANTS \
	"/etc/systemd/system/multi-user.target.wants/" CONTRACT_LEGACY_UNIT
#define CONTRACT_LEGACY_SCRIPT	"/usr/local/sbin/claudebox-firewall"

/* --- the box tag ---------------------------------------------------------- */

/*
 * Every instance box minted carries BOX_TAG=1 (the legacy stack's boxes
 * CONTRACT_LEGACY_TAG=1); box acts on no other instance.  The stamps
 * under BOX_TAG "." (user.box.template, .user, .owner, .egress, ...)
 * say where a box came from.  box_tagged() (box/box.h) is the one check.
 */
#define BOX_TAG			"user.box"
#define BOX_TAG_VALUE		"1"

#endif

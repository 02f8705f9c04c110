/*
 * verbs.c - the verb table and the help it renders.  Adding a verb means
 * one row here and one file in src/cmd/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/opt.h"

const struct verb box_verbs[] = {
	{ "new", cmd_new,
	  "mint a box from a template, or clone one",
	  "Mints a box: an Incus instance on the box-net profile only, tagged\n"
	  "user.box=1 and stamped with where it came from (template, image and\n"
	  "its fingerprint, user, mode asked and got, box version, time).  It\n"
	  "waits, within BOX_LAUNCH_TIMEOUT seconds (600), for the instance to\n"
	  "answer and for cloud-init to finish, reports cloud-init's own verdict\n"
	  "(a failure or a finish with errors names the module its log blames;\n"
	  "a finish with errors keeps the box and says it may lack what the\n"
	  "template asked for), records the user the box really has (root when\n"
	  "the image made no template user, said), takes a 'pristine'\n"
	  "snapshot (not on a dir pool, or with BOX_SNAPSHOT_PRISTINE=0), runs\n"
	  "the template's rig role if it names one and marks 'bootstrapped'.\n"
	  "A stage that fails is named, and the half-made box removed.\n",
	  0, VG_BOXES },
	{ "templates", cmd_templates,
	  "list the templates a box can be minted from",
	  "Lists the templates compiled into this binary (or, when BOX_TEMPLATES\n"
	  "names a directory, the templates in it) with their descriptions.\n",
	  0, VG_BOXES },
	{ "list", cmd_list,
	  "list boxes: name, state, type, address, snapshots, template",
	  "Lists the instances box minted (tagged user.box=1, or the legacy\n"
	  "user.claudebox=1) and nothing else, without waiting for the daemon\n"
	  "to collect every instance's runtime state: the instance list, each\n"
	  "pool's volume list (snapshots), and the network's DHCP records on the\n"
	  "host ($INCUS_DIR/networks/<net>/, /var/lib/incus by default).\n"
	  "STATE is always shown; ADDRESS only while the box runs, and only when\n"
	  "it is known to be right: the lease its MAC holds, granted since the\n"
	  "box last started, on the address Incus pinned for it (box info says\n"
	  "why a running box shows none).  Where those records cannot be read\n"
	  "(not root, a NIC not on a managed network) box asks the daemon for\n"
	  "everything instead and says so once on stderr.\n",
	  0, VG_BOXES },
	{ "info", cmd_info,
	  "everything about one box: state, address, provenance, snapshots",
	  "Shows a box's state, type and address (as box list finds it, and why\n"
	  "a running box shows none), the exposures it has open,\n"
	  "where it came from (the provenance stamps written when it was minted,\n"
	  "cloned or imported) and its snapshots.  Instances box did not mint\n"
	  "are refused.\n",
	  0, VG_BOXES },
	{ "shell", cmd_shell,
	  "a login shell in the box, as its user",
	  "Opens an interactive login shell inside the box as the box's user\n"
	  "(the user its template created; root for boxes without one), with the\n"
	  "login environment, so the tools the template installed are found.\n"
	  "The terminal follows window resizes; Ctrl-C goes to the box.  box\n"
	  "exits with the shell's exit status.\n", 0, VG_BOXES },
	{ "root", cmd_root,
	  "a root login shell in the box (or one command as root)",
	  "Opens a login shell as root inside the box, or runs one command as\n"
	  "root.  It needs neither sudo nor the box's user: Incus runs it as\n"
	  "uid 0 and the shell is started directly, never through su, so it\n"
	  "works on a box whose user is missing or broken.  Exit status as for\n"
	  "exec.\n", 0, VG_BOXES },
	{ "exec", cmd_exec,
	  "run a command in the box as its user; exit with its status",
	  "Runs one command inside the box as the box's user, with a login\n"
	  "environment.  stdin is forwarded (end of input reaches the command),\n"
	  "stdout and stderr stay separate, and box exits with the command's\n"
	  "status (128+N when a signal ended it).  When stdin and stdout are a\n"
	  "terminal the command gets one.  A command's own flags go after --.\n",
	  0, VG_BOXES },
	{ "tmux", cmd_tmux,
	  "attach to (or create) a tmux session in the box",
	  "Attaches to the named tmux session inside the box (default: main),\n"
	  "creating it when it does not exist, as the box's user.\n",
	  0, VG_BOXES },
	{ "snapshot", cmd_snapshot,
	  "snapshot a box's disk (label defaults to manual-<time>)",
	  "Takes a stateless snapshot of the box's disk and prints its label\n"
	  "(default manual-<unix time>).  A conventional label after logging in\n"
	  "to an agent: authed.  Roll back with box restore; clone one with\n"
	  "box new --from <box>/<label>.\n", 0, VG_LIFECYCLE },
	{ "restore", cmd_restore,
	  "roll a box back to a snapshot (asks first)",
	  "Rolls the box back to a snapshot, discarding everything since it was\n"
	  "taken; a running box is stopped and started again around it.  Asks\n"
	  "on a terminal; without one, --force is required (exit 2 otherwise).\n"
	  "BOX_YES is deliberately not honoured.\n",
	  V_DESTRUCTIVE, VG_LIFECYCLE },
	{ "export", cmd_export,
	  "write a stopped box (and its snapshots) to a file",
	  "Writes the box's whole disk, with its snapshots unless\n"
	  "--instance-only, to <file> (default <box>-<UTC time>.tar.gz), and its\n"
	  "SHA-256 to <file>.sha256.  The box must be stopped.  The file appears\n"
	  "only once complete; an existing one is kept unless --force.  It holds\n"
	  "the box's secrets (logins, keys, history): treat it as a credential.\n",
	  0, VG_LIFECYCLE },
	{ "import", cmd_import,
	  "bring an exported box back, re-homed on this host",
	  "Checks the file against <file>.sha256 and vets its config (beside\n"
	  "the upload) before the daemon has it whole (a\n"
	  "truncated, corrupted or refused export creates nothing: the last\n"
	  "bytes are withheld), under --name or the name recorded inside, then\n"
	  "re-homes it: the box-net profile only, fresh MAC addresses and\n"
	  "machine identity, no doors of its source's, import stamps beside\n"
	  "the untouched mint stamp.  A name already taken is refused.\n",
	  0, VG_LIFECYCLE },
	{ "rename", cmd_rename,
	  "rename a stopped box (its snapshots follow)",
	  NULL, 0, VG_LIFECYCLE },
	{ "down", cmd_down,
	  "stop a box, or every box (gracefully; --force: at once)",
	  "Asks the box to shut down and gives it 30 seconds, then stops it the\n"
	  "hard way (and says so).  --force stops it at once, asking nothing.\n"
	  "'all' stops every box, one after the other; one that fails is said\n"
	  "and the rest still go down (exit 1 then).  Already stopped is fine.\n",
	  0, VG_LIFECYCLE },
	{ "start", cmd_start,
	  "start a stopped box, or every box",
	  "Starts the box; 'all' starts every stopped box.  Already running\n"
	  "is fine.\n", 0, VG_LIFECYCLE },
	{ "restart", cmd_restart,
	  "stop a box the way down does, then start it",
	  "Stops the box as 'box down' does (30 seconds to shut down, then\n"
	  "forcibly; --force: at once) and starts it again.  A stopped box is\n"
	  "just started.  'all' restarts every running box and leaves stopped\n"
	  "ones stopped.  'all' is never a box's name: new, rename and import\n"
	  "refuse it.\n", 0, VG_LIFECYCLE },
	{ "rm", cmd_rm,
	  "delete a box and all its snapshots (asks first)",
	  "Deletes the box and its snapshots (export is the only way to keep\n"
	  "one), and the ACL rules its doors opened.  Asks on a terminal;\n"
	  "without one, --force is required (exit 2 otherwise).  BOX_YES is\n"
	  "deliberately not honoured.\n", V_DESTRUCTIVE, VG_LIFECYCLE },
	{ "egress", cmd_egress,
	  "the names a box may reach (open: the internet), and what it was "
	  "refused",
	  "A box's egress policy travels with it (user.box.egress): open (the\n"
	  "default: the internet, as the contract always had it) or allow:\n"
	  "only the addresses the gateway's resolver answered for the names on\n"
	  "its allowlist, enforced in the host kernel (every port and protocol\n"
	  "to those addresses; DNS only through the gateway; the rest dropped\n"
	  "and logged).  A name also admits the names under it (pypi.org\n"
	  "admits files.pypi.org); *.name is the same, name included.\n\n"
	  "Set at mint with box new --egress allow:a,b or a template's\n"
	  "BOX_EGRESS.  A change applies to new connections: a flow opened\n"
	  "before it continues until it ends.  An address that serves many\n"
	  "names (a CDN's) admits all of them.  Changing it needs root.\n",
	  0, VG_BOXES },
	{ "expose", cmd_expose,
	  "open a door from the host's 127.0.0.1 to a box port",
	  "Makes 127.0.0.1:<host-port> on this host (default: the same port)\n"
	  "reach <port> in the box, and nothing wider: the listen address is\n"
	  "always loopback.  A container's door is a relay into the box's own\n"
	  "loopback (the box's ingress stays shut); a VM's is a NAT to its\n"
	  "pinned address plus an allow for exactly that port on the box-isolate\n"
	  "network ACL.\n", 0, VG_BOXES },
	{ "incus", cmd_incus,
	  "the escape hatch: run the incus client on a box",
	  "Runs `incus <args...>` with every {} replaced by the box's instance\n"
	  "name (or the name appended when there is no {}), after checking the\n"
	  "box is one.  The command is echoed; one that touches profiles,\n"
	  "networks, devices or security.* is flagged, since it can move the box\n"
	  "off the isolation stack.  This is the only verb that needs the incus\n"
	  "client installed.\n", 0, VG_BOXES },
	{ "setup-host", cmd_setup_host,
	  "build or converge the host stack (bridge, ACL, profile, firewall)",
	  "Builds the host stack boxes live on, or converges it when it exists:\n"
	  "the storage pool, the boxnet bridge (IPv4 NAT, no IPv6, DNS pinned to\n"
	  "BOX_DNS, never the host's resolvers), the box-isolate ACL on it, the\n"
	  "box-net profile (port-isolated NIC and root disk), and the host\n"
	  "firewall, sent to the kernel as one netlink batch and read back.\n"
	  "Run it twice and nothing changes.\n\n"
	  "The subnet is decided before anything changes: 10.88.0.0/24 unless\n"
	  "something here claims it; an existing bridge is kept as it is; inside\n"
	  "a box (the default gateway or an interface already on 10.88.0.0/24)\n"
	  "the first free subnet from 10.89.0.0/24 to 10.127.0.0/24 is used and\n"
	  "said loudly.  BOX_SUBNET=a.b.c.0/24 pins it: honoured, or refused with\n"
	  "nothing changed.\n"
	  "A pin outside RFC 1918 (10/8, 172.16/12, 192.168/16) is refused (exit 2).\n\n"
	  "Environment: BOX_SUBNET, BOX_DNS (default \"1.1.1.1 8.8.8.8\").\n",
	  V_PRIV, VG_HOST },
	{ "teardown-host", cmd_teardown_host,
	  "remove every box and the host stack, then prove nothing is left",
	  "Removes every box (one at a time), the box-net profile, the boxnet\n"
	  "bridge, the box-isolate ACL, the host firewall tables and the boot\n"
	  "unit, then checks that none of them survives and names any that did.\n"
	  "Asks on a terminal; --yes (or BOX_YES=1) answers for you, and without\n"
	  "either it refuses.  BOX_YES: 1, yes, true are yes; 0, no, false, empty\n"
	  "are no; any other value is a usage error (exit 2).\n",
	  V_PRIV | V_DESTRUCTIVE, VG_HOST },
	{ "migrate-host", cmd_migrate_host,
	  "re-home legacy (claudebox) boxes onto the hardened stack; retire it",
	  "Re-homes a legacy box (tagged user.claudebox=1, not user.box=1)\n"
	  "onto the hardened stack, in an order where it is a box under one\n"
	  "tag or the other at every step: stamped user.box=1, stopped, moved\n"
	  "to the box-net profile alone (its own NICs and old doors left\n"
	  "behind, its MAC kept: it is the box's network identity, and the\n"
	  "lease Incus pins is per MAC), started, verified from inside (a\n"
	  "lease in boxnet's subnet; the gateway's DNS answering it; whether a\n"
	  "public name resolves is reported), and only then untagged\n"
	  "user.claudebox.  A failure puts it back on its old profiles,\n"
	  "running again if it was, with both tags; run it again to resume.\n\n"
	  "Environment: BOX_MIGRATE_TIMEOUT (seconds from start to verified,\n"
	  "120), BOX_MIGRATE_PROBE_NAME (default BOX_DOCTOR_PROBE_NAME, else\n"
	  "deb.debian.org), BOX_MIGRATE_ONLY (a name prefix: --all-boxes takes\n"
	  "only the legacy boxes whose names start with it).\n",
	  V_PRIV, VG_HOST },
	{ "firewall", cmd_firewall,
	  "show the host firewall as the kernel holds it, or re-apply it",
	  "show (the default) reads every rule of box's nft tables back from\n"
	  "the kernel and compares its expressions with the contract\n"
	  "(src/host/contract.c): a changed verdict, port or address, a rule\n"
	  "missing, added or out of order is named; exit 1 when anything\n"
	  "differs.  apply sends the contract in one netlink batch and reads\n"
	  "it back; it needs only the kernel, not the daemon.  The subnet comes\n"
	  "from --subnet (the boot unit passes it), else the bridge, else the\n"
	  "daemon.  Inside a box apply refuses unless BOX_ALLOW_NESTED=1.\n",
	  0, VG_HOST },
	{ "grant", cmd_grant,
	  "give a user boxes of their own (the restricted tier; root)",
	  "Gives an existing user the restricted tier: boxes in a project of\n"
	  "their own (user-<uid>), reached through incus-user's socket\n"
	  "(unix.socket.user), on the hardened boxnet only.  Idempotent: each\n"
	  "run converges, through the API: boxnet must exist; incus-user must\n"
	  "serve its socket (where systemd runs, incus-user.socket is enabled\n"
	  "and started; elsewhere it must already run, as\n"
	  "/usr/libexec/incus/incus-user --group incus); the private bridge\n"
	  "incus-user would make (incusbr-<uid>) is made first with\n"
	  "ipv4.address=none and ipv6.address=none, so nothing probes for a\n"
	  "subnet; the user joins the group 'incus'; incus-user is asked once\n"
	  "AS the user, so it makes the project and the trust entry\n"
	  "incus-user-<uid>; the project's default profile loses its NIC, the\n"
	  "project is restricted to boxnet with snapshots and backups allowed,\n"
	  "its box-net profile is written from the contract (the host's keys);\n"
	  "and all of it is read back, box-net from the user's own side.  A\n"
	  "failure after this run added the group removes it again (checked\n"
	  "in the group database) and says so.  Sessions the user already has\n"
	  "get the group at their next login.\n", 0, VG_HOST },
	{ "revoke", cmd_revoke,
	  "take the restricted tier away (--purge: and everything it made)",
	  "Removes the user from the group 'incus' first (checked in the group\n"
	  "database), which closes incus-user's socket to new sessions.\n"
	  "Sessions already running keep it until they end: a bare revoke\n"
	  "names them, and keeps the user's boxes (still running).\n",
	  V_DESTRUCTIVE, VG_HOST },
	{ "doctor", cmd_doctor,
	  "check the isolation contract from ground truth, here or in a box",
	  "On a host: checks each layer as the kernel, the process table and\n"
	  "the daemon hold it, not as any config says it should be: the\n"
	  "kernel's isolated flag on every port of boxnet, box's nft tables, a\n"
	  "dnsmasq really serving boxnet, what it forwards to and whether it\n"
	  "answers the names boxes send in DHCP, the bridge's keys, the\n"
	  "box-isolate ACL against the gateway the kernel holds, the\n"
	  "box-net profile, each box's whole shape (one NIC with the profile's\n"
	  "keys, the root disk, no other device but its doors, no privilege,\n"
	  "no raw.* key); this machine's routes for the\n"
	  "nested-box signature (its default gateway held locally, two routes\n"
	  "to its uplink subnet).  Then, in every running box (or those named),\n"
	  "it runs the in-box checks by pushing itself in for the run.\n\n"
	  "Inside a box (an agent asking): says so, and checks what the box\n"
	  "sees: the nested-box signature, its lease, routing by address and\n"
	  "DNS by name (DNS fine and routing broken is the nested-box\n"
	  "fingerprint), no global IPv6, the gateway dropping it.  It never\n"
	  "repairs from inside.\n\n"
	  "One PASS/WARN/FAIL line per check, with the fix; exit 0 when nothing\n"
	  "fails (clean, or fresh: no stack yet), 1 otherwise.\n\n"
	  "Environment: BOX_DNS; BOX_DOCTOR_PROBE_ADDR (a.b.c.d:port, default\n"
	  "1.1.1.1:443) and BOX_DOCTOR_PROBE_NAME (default deb.debian.org), the\n"
	  "public address and name the in-box probes try.\n", 0, VG_HOST },
	{ "verify", cmd_verify,
	  "prove the isolation contract live, from inside one box",
	  "Probes every clause of the contract from inside a running box and\n"
	  "reports what it OBSERVED, never what the configuration says: box\n"
	  "pushes itself into the box and sends from there, and listens on\n"
	  "boxnet meanwhile for the frames a box must not get past its port.\n\n"
	  "  egress    policy open (user.box.egress absent or open): the\n"
	  "            internet by address and by name connect; policy\n"
	  "            allow:<pattern>,...: an allowed name connects, a name\n"
	  "            the policy does not allow does not\n"
	  "  host      the gateway (TCP, ICMP) and every address of this\n"
	  "            host, read over rtnetlink (TCP, and TCP 53): dropped\n"
	  "  lan       the host's default gateway and an address of its\n"
	  "            subnet: dropped\n"
	  "  sibling   every other address boxnet's leases hold (TCP, ICMP)\n"
	  "  ipv6      no global IPv6 address or route in the box; an echo to\n"
	  "            every node on the link gets no answer\n"
	  "  forged    a datagram from a forged source (and from a sibling's\n"
	  "            address): it must not reach the host's bridge\n"
	  "  arp       a forged ARP claiming the gateway's and a sibling's\n"
	  "            address: it must not reach the host's bridge\n\n"
	  "Verdicts: connected, refused (a RST came back: the packet\n"
	  "arrived), dropped (silence), unreachable, reply, none (no such name,\n"
	  "no address), arrived / did not arrive (seen on the bridge).  When\n"
	  "the egress baseline (the internet, or the allowed name) does not\n"
	  "connect, no isolation verdict is trusted: they are unjudged.  Exit\n"
	  "0 when every probe held, 1 on any breach, failure or unjudged one.\n"
	  "Root (to listen on the bridge); the box must be running.\n\n"
	  "The targets that are not this host's own are aimed by environment\n"
	  "(tests point every one of them at namespaces of their own):\n"
	  "  BOX_VERIFY_INET_ADDR    a.b.c.d[:port], default 1.1.1.1:443; also\n"
	  "                          where the forged datagrams are sent\n"
	  "  BOX_VERIFY_INET_NAME    name[:port], default deb.debian.org:443\n"
	  "  BOX_VERIFY_ALLOWED      name[:port], default the policy's first\n"
	  "                          pattern without a wildcard, :443\n"
	  "  BOX_VERIFY_REFUSED      name[:port], default example.com:443\n"
	  "  BOX_VERIFY_LAN_GATEWAY  a.b.c.d[:port], default this host's\n"
	  "                          default gateway, :80\n"
	  "  BOX_VERIFY_LAN_ADDR     a.b.c.d[:port], default the first other\n"
	  "                          address of the uplink's subnet, :22\n"
	  "  BOX_VERIFY_FORGE_SRC    a.b.c.d, default 198.18.0.99\n"
	  "  BOX_VERIFY_FORGE_PORT   default 9\n"
	  "  BOX_VERIFY_HOST_PORT    the port tried on the host's addresses,\n"
	  "                          default 22\n"
	  "  BOX_VERIFY_SIBLING_PORT default 22\n"
	  "  BOX_VERIFY_SIBLING      the sibling address the forged frames\n"
	  "                          claim, default the first in the leases\n"
	  "  BOX_VERIFY_TIMEOUT_MS   how long silence is waited for, default\n"
	  "                          2000\n", 0, VG_HOST },
	{ "whereami", cmd_whereami,
	  "on a host, inside an Incus instance, or inside a box?",
	  "Says whether this machine is a host, an Incus instance or a box, with\n"
	  "the evidence: the guest API socket /dev/incus/sock (and the instance's\n"
	  "user.box stamp read through it), container=lxc, the DMI board of an\n"
	  "Incus VM, and a default gateway or client address inside the box\n"
	  "subnet range (10.87.0.0/24, 10.88.0.0/24, 10.89-10.127).  Also says\n"
	  "whether the Incus daemon here has boxes and a box host stack.  Never\n"
	  "build a box host stack inside a box: its bridge would take over the\n"
	  "guest's own uplink (the #80 outage).  Exit status 0 whatever it "
	  "finds.\n",
	  0, VG_HOST },
	{ "versions", cmd_versions,
	  "the installed versions: which is the default, which is running",
	  "Lists <root>/versions/ of the install this box runs from (or of\n"
	  "BOX_HOME), marking the default (<root>/current) and the running one,\n"
	  "with where each came from.\n", 0, VG_INSTALL },
	{ "use", cmd_use,
	  "make an installed version the default",
	  "Points <root>/current at versions/<version> in one atomic step and\n"
	  "checks the result.  Refused while any box exists: boxes are never\n"
	  "switched to another version behind their owner's back.\n",
	  0, VG_INSTALL },
	{ "uninstall", cmd_uninstall,
	  "remove one version, or the whole install",
	  "With a version: removes it (never the default).  Without, or with\n"
	  "--all: removes the PATH links into the install, then the install\n"
	  "root; refused while boxes exist.  --purge-host first takes the box\n"
	  "host stack and its boxes down with 'box teardown-host'.  Asks first;\n"
	  "--force or BOX_YES=1 mean yes; no terminal and neither: exit 2.\n"
	  "BOX_YES: 1, yes, true are yes; 0, no, false, empty are no; any other\n"
	  "value is a usage error (exit 2).\n"
	  "Ends by checking that nothing it removed is still there.\n",
	  V_PRIV | V_DESTRUCTIVE, VG_INSTALL },
	{ "completion", cmd_completion,
	  "shell completion for box, written from its verb table",
	  "Prints a completion script for the shell named: verbs and their\n"
	  "aliases, each verb's options, and box names (asked of box list when\n"
	  "you press tab).  Load it with\n"
	  "  bash  source <(box completion bash)\n"
	  "  zsh   box completion zsh > \"${fpath[1]}/_box\"\n"
	  "  fish  box completion fish > ~/.config/fish/completions/box.fish\n"
	  "make install puts all three where the shells look.\n",
	  0, VG_INSTALL },
	{ "help", cmd_help,
	  "this help, or one command's (--man: the manual page, as roff)",
	  NULL, 0, VG_INSTALL },
	{ "version", cmd_version,
	  "print the version",
	  NULL, 0, VG_INSTALL },
	{ "status", cmd_status,
	  "deprecated: use 'box list'",
	  NULL, V_HIDDEN, VG_INSTALL },
	{ NULL, NULL, NULL, NULL, 0, 0 }
};

/*
 * The words people type for a verb because another tool taught them
 * (docker, incus, git, ssh).  Each runs the verb it names, as if spelled
 * so; `box help` lists them.  A word is never also a verb's name.
 */
const struct verb_alias box_aliases[] = {
	{ "create",	"new" },
	{ "launch",	"new" },
	{ "ls",		"list" },
	{ "ps",		"list" },
	{ "show",	"info" },
	{ "sh",		"shell" },
	{ "ssh",	"shell" },
	{ "run",	"exec" },
	{ "up",		"start" },
	{ "stop",	"down" },
	{ "halt",	"down" },
	{ "reboot",	"restart" },
	{ "delete",	"rm" },
	{ "remove",	"rm" },
	{ "destroy",	"rm" },
	{ "snap",	"snapshot" },
	{ "check",	"doctor" },
	{ NULL,		NULL }
};

static const struct verb *
verb_named(const char *name)
{
	const struct verb *v;

	for (v = box_verbs; v->name != NULL; v++)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

const struct verb *
verb_find(const char *name)
{
	const struct verb_alias *a;
	const struct verb *v = verb_named(name);

	if (v != NULL)
		return v;
	for (a = box_aliases; a->word != NULL; a++)
		if (strcmp(a->word, name) == 0)
			return verb_named(a->verb);
	return NULL;
}

/*
 * Closest listed verb or alias.  An alias that wins suggests the verb it
 * stands for.  Destructive verbs must be one edit away: `box up` is two
 * edits from `rm`, and a suggestion is something people run.
 */
const struct verb *
verb_suggest(const char *name)
{
	const struct verb *v, *best = NULL;
	const struct verb_alias *a;
	size_t len = strlen(name);
	/* within two edits, and never a total rewrite of a short word */
	int bestd = len > 2 ? 3 : (int)len, d;

	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		d = str_distance(name, v->name, 2);
		if ((v->flags & V_DESTRUCTIVE) && d > 1)
			continue;
		if (d < bestd) {
			bestd = d;
			best = v;
		}
	}
	for (a = box_aliases; a->word != NULL; a++) {
		v = verb_named(a->verb);
		if (v == NULL)
			continue;
		d = str_distance(name, a->word, 2);
		if ((v->flags & V_DESTRUCTIVE) && d > 1)
			continue;
		if (d < bestd) {
			bestd = d;
			best = v;
		}
	}
	return best;
}

const char *
box_version_string(void)
{
	static char buf[4200];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		snprintf(self, sizeof(self), "unknown path");
	else
		self[n] = '\0';
	snprintf(buf, sizeof(buf), "box %s (%s)", BOX_VERSION, self);
	return buf;
}

struct syn {
	char *buf;
	size_t size;
};

static void
syn_hook(const char *verb, const struct opt *rows, void *ctx)
{
	struct syn *s = ctx;

	(void)verb;
	opt_synopsis(rows, s->buf, s->size);
}

int
verb_synopsis(const struct verb *v, char *buf, size_t size)
{
	struct syn s = { buf, size };

	if (size > 0)
		buf[0] = '\0';
	return opt_describe(v->name, v->fn, syn_hook, &s) ? 0 : -ENOENT;
}

/* "usage: box new --name <box> [--template <t>] ...", broken before "[". */
static void
usage_line(const char *name, const char *syn)
{
	int col = printf("usage: box %s", name);
	const char *p = syn, *q;

	while (*p != '\0') {
		q = strstr(p + 1, " [");
		if (q == NULL)
			q = p + strlen(p);
		if (col + (q - p) + 1 > 78 && col > 20)
			col = printf("\n           %*s", (int)strlen(name), "");
		col += printf(" %.*s", (int)(q - p), p);
		p = *q ? q + 1 : q;
	}
	putchar('\n');
}

static void
usage_hook(const char *verb, const struct opt *rows, void *ctx)
{
	const struct verb *v = ctx;
	char syn[400];

	(void)verb;
	opt_synopsis(rows, syn, sizeof(syn));
	usage_line(v->name, syn);
	putchar('\n');
	fputs(v->page != NULL ? v->page : v->summary, stdout);
	if (v->page == NULL)
		putchar('\n');
	opt_help(rows, stdout);
}

/* The page, then the rows' own help: both from what the verb parses. */
void
verb_usage(const struct verb *v)
{
	if (opt_describe(v->name, v->fn, usage_hook, (void *)v))
		return;
	printf("usage: box %s\n\n", v->name);
	fputs(v->page != NULL ? v->page : v->summary, stdout);
	if (v->page == NULL)
		putchar('\n');
}

static const char *const verb_groups[] = {
	[VG_BOXES]	= "BOXES",
	[VG_LIFECYCLE]	= "LIFECYCLE",
	[VG_HOST]	= "THE HOST",
	[VG_INSTALL]	= "THIS PROGRAM",
	[VG_OTHER]	= "MORE",
};

/*
 * Every environment variable box reads, once: `box help` and box.1 list
 * this table, and tests/cli/run.sh fails when the source reads one that
 * is not in it.  Verb pages say how a verb uses the ones it reads.  A
 * name ending in '*' stands for the family.
 */
struct box_env {
	const char *names;	/* "BOX_CPU, BOX_MEMORY": the same text */
	const char *text;
};

static const struct box_env box_env[] = {
	{ "INCUS_SOCKET", "the daemon's socket (default "
	  "$INCUS_DIR/unix.socket)" },
	{ "INCUS_DIR", "the daemon's directory (/var/lib/incus)" },
	{ "BOX_PROJECT", "the Incus project (default: the daemon's)" },
	{ "BOX_IO_TIMEOUT", "seconds to wait on one daemon reply (30)" },
	{ "BOX_LAUNCH_TIMEOUT", "seconds a mint may take (600)" },
	{ "BOX_TEMPLATES", "a directory of templates to use instead" },
	{ "BOX_IMAGE, BOX_CPU, BOX_MEMORY, BOX_DISK", "a mint's image and "
	  "resources (see box help new)" },
	{ "BOX_SNAPSHOT_PRISTINE", "0: no 'pristine' snapshot at mint" },
	{ "RIG_REPO, RIG_REF", "where a template's rig role comes from" },
	{ "BOX_YES", "1/yes/true answer yes where a verb says so" },
	{ "BOX_SUBNET, BOX_DNS", "setup-host's subnet pin and the boxes' "
	  "resolvers (default 1.1.1.1 8.8.8.8)" },
	{ "BOX_ALLOW_NESTED", "1: build a host stack even inside a box" },
	{ "BOX_EGRESS_STATE", "the egress state file (an absolute path)" },
	{ "BOX_DOCTOR_PROBE_ADDR, BOX_DOCTOR_PROBE_NAME", "the public address "
	  "and name doctor probes" },
	{ "BOX_VERIFY_*", "verify's targets and timeout (see box help "
	  "verify)" },
	{ "BOX_MIGRATE_TIMEOUT, BOX_MIGRATE_PROBE_NAME, BOX_MIGRATE_ONLY",
	  "migrate-host (see box help migrate-host)" },
	{ "BOX_HOME, BOX_BIN", "the install root and where its links go" },
	{ "BOX_SHARE", "install.sh: where box.1 and the completions go "
	  "(default: share/ beside BOX_BIN)" },
	{ "BOX_INSTALL_SOURCE, BOX_RELEASE_URL", "install.sh: a local "
	  "release, or where to fetch one" },
	{ "BOX_VERSION, BOX_REINSTALL", "install.sh: which version, and "
	  "replacing one whose bytes differ" },
	{ "BOX_SKIP_SETUP_HOST", "install.sh: do not offer box setup-host" },
	{ "HOME", "where a user's install lives (~/.local/share/box)" },
	{ "TERM", "passed to a box's terminal session" },
	{ "BOX_DOCTOR_INSIDE, BOX_DOCTOR_REPORT", "set by box for its own "
	  "in-box runs; not for you" },
	{ "BOX_MIGRATE_INSIDE, BOX_MIGRATE_GATEWAY", "the same, for "
	  "migrate-host" },
	{ NULL, NULL }
};

/* The table as text: names, then their line from column 25, wrapped. */
const char *
box_environment_text(void)
{
	static char buf[4096];
	const struct box_env *v;
	size_t at = 0;
	FILE *f;

	if (buf[0] != '\0')
		return buf;
	if ((f = fmemopen(buf, sizeof(buf) - 1, "w")) == NULL)
		return "";
	for (v = box_env; v->names != NULL; v++) {
		const char *t = v->text;
		int col = fprintf(f, "  %s", v->names);

		if (col > 24) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%*s", 25 - col, "");
		while (*t != '\0') {
			int n = (int)strlen(t), cut = n;

			if (n > 78 - 25) {
				for (cut = 78 - 25; cut > 0 && t[cut] != ' ';
				    cut--)
					;
				if (cut == 0)
					cut = n;
			}
			fprintf(f, "%.*s\n", cut, t);
			t += cut;
			while (*t == ' ')
				t++;
			if (*t != '\0')
				fprintf(f, "%25s", "");
		}
	}
	at = (size_t)ftell(f);
	fclose(f);
	buf[at < sizeof(buf) ? at : sizeof(buf) - 1] = '\0';
	return buf;
}

const char *
verb_group_title(int g)
{
	if (g < 0 || g >= (int)(sizeof(verb_groups) / sizeof(verb_groups[0])))
		g = VG_OTHER;
	return verb_groups[g];
}

static void
usage_group(int g)
{
	const struct verb *v;
	int any = 0;

	for (v = box_verbs; v->name != NULL; v++) {
		if ((v->flags & V_HIDDEN) || v->group != g)
			continue;
		if (!any++)
			printf("\n%s\n", verb_groups[g]);
		printf("  %-14s %s\n", v->name, v->summary);
	}
}

static void
usage_aliases(void)
{
	const struct verb_alias *a;
	const char *last = NULL;
	int col = 0;

	fputs("\nALIASES", stdout);
	for (a = box_aliases; a->word != NULL; a++) {
		if (last == NULL || strcmp(last, a->verb) != 0) {
			if (col > 56)
				col = 0;
			col += printf("%s%s: %s", col ? ";  " : "\n  ",
			    a->verb, a->word);
		} else
			col += printf(", %s", a->word);
		last = a->verb;
	}
	fputs("\n", stdout);
}

void
box_usage(void)
{
	int g;

	printf("box %s — network-isolated, throwaway Incus boxes for coding "
	    "agents\n\n", BOX_VERSION);
	fputs("USAGE\n  box <command> [<args>] [options]\n", stdout);
	for (g = VG_BOXES; g <= VG_INSTALL; g++)
		usage_group(g);
	usage_group(VG_OTHER);
	usage_aliases();
	puts("\nOPTIONS (after the command)\n"
	    "  -h, --help     help for that command\n"
	    "  -V, --version  print the version\n"
	    "  --json         machine-readable output, where offered\n");
	fputs("ENVIRONMENT\n", stdout);
	fputs(box_environment_text(), stdout);
	puts("\nEXIT STATUS\n"
	    "  0 ok, 1 it went wrong, 2 you asked wrong\n\n"
	    "THE MODEL\n"
	    "  A box reaches the public internet and nothing else: not the host,\n"
	    "  not the LAN, not another box.  box only ever touches instances it\n"
	    "  minted (tagged user.box=1).");
}

int
cmd_help(int argc, char **argv, struct box_err *e)
{
	const struct verb *v;
	struct opt_result res;
	int rc, man;
	const struct opt rows[] = {
		OPT_ARG("<command>", 0, 1, OC_VERB, "one command's page"),
		OPT_FLAG("--man", NULL, &man, "the manual page, as roff (man "
		    "-l reads it)"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (man && res.npos > 0)
		return err_usage(e, "help takes a command or --man, not both");
	if (man) {
		box_manpage();
		return 0;
	}
	if (res.npos == 0) {
		box_usage();
		return 0;
	}
	v = verb_find(res.pos[0]);
	if (v == NULL) {
		v = verb_suggest(res.pos[0]);
		if (v != NULL)
			return err_usage(e, "unknown command: %s — did you "
			    "mean '%s'?", res.pos[0], v->name);
		return err_usage(e, "unknown command: %s", res.pos[0]);
	}
	verb_usage(v);
	return 0;
}

int
cmd_version(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = { OPT_END };
	struct opt_result res;
	int rc;

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	puts(box_version_string());
	return 0;
}

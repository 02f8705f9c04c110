/*
 * vet.h - what an imported box may carry: the allowlist.
 *
 * An export is a file from anywhere.  Incus restores whatever instance and
 * snapshot config it holds, so box decides, key by key and device by
 * device, what a box may come back with (the table is in vet.c).  The same
 * rules run twice: over the YAML inside the file before anything is sent
 * (vet_export.c), and over what the daemon actually holds after the upload
 * and before the box is ever started (so a reader that disagrees with the
 * daemon's cannot let anything through).
 *
 * The rules see one flat view of an instance or snapshot, built from
 * either source; every refusal becomes one item of one message.
 */
#ifndef BOX_VET_H
#define BOX_VET_H

#include <stddef.h>

#define VET_MAX_ITEMS	64
#define VET_ITEM	192

struct vet_kv {
	const char *k, *v;
};

struct vet_dev {
	const char *name;
	const struct vet_kv *kv;
	int n;
};

enum vet_profiles {
	VET_PROFILES_IGNORE,	/* the instance in the file: re-homed anyway */
	VET_PROFILES_BOXNET,	/* exactly the box profile (after re-homing) */
	VET_PROFILES_SUBSET,	/* a snapshot: none, or the box profile */
};

struct vet_inst {
	const char *snapshot;		/* its name, or NULL: the instance */
	const char *where;		/* the label, or NULL: from snapshot */
	const struct vet_kv *cfg;
	int ncfg;
	const struct vet_dev *dev;
	int ndev;
	int stateful;			/* 0, 1, or -1: unreadable */
	const char *const *profiles;
	int nprof;
	enum vet_profiles prof_rule;
	/*
	 * A snapshot volume's own backup.yaml: Incus writes it when the config
	 * changes, not when a start clears volatile.apply_template, so a copy
	 * taken after the first start may still carry it (the daemon reads
	 * that copy only for `incus admin recover`; restore rewrites it).
	 */
	int stale_copy;
};

struct vet {
	char item[VET_MAX_ITEMS][VET_ITEM];
	int n;				/* items held */
	int more;			/* items that did not fit */
	int id_template;		/* vet_export: a container export whose
					 * machine-id the daemon may template
					 * (vet_export.h) */
	unsigned long long bound;	/* in: refuse an export that unpacks
					 * to more (0: no bound) */
	unsigned long long unpacked;	/* out: what its members unpack to */
};

void vet_init(struct vet *v);

/* Record one refusal (printf-style); duplicates are recorded once. */
void vet_add(struct vet *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Check one instance or snapshot. */
void vet_inst(struct vet *v, const struct vet_inst *in);

/*
 * Why a config key may not come back (on the instance, or on a snapshot),
 * or NULL when it may: "" for a key outside the allowlist, else a short
 * reason about its value.
 */
const char *vet_key(const char *key, const char *value, int snapshot);

/*
 * A local NIC a box may hold: eth0, every key of the contract's NIC
 * (host/stack/contract.h) with its value, a pinned ipv4.address, nothing
 * else (what `box expose` writes for a VM's door).  1 or 0.
 */
int vet_pin_ok(const struct vet_dev *d);

/* A snapshot name the daemon joins into paths: [A-Za-z0-9][A-Za-z0-9._-]* */
int vet_snapshot_name_ok(const char *name);

/* "a (instance), b (snapshot s0), ..." into buf; the bytes it needed. */
size_t vet_list(const struct vet *v, char *buf, size_t cap);

#endif

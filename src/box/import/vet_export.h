/*
 * vet_export.h - read an export the way the daemon will, and vet it.
 *
 * Where Incus 6.0.4 takes an instance's config from on import
 * (internal/server/backup/backup_info.go, cmd/incusd/instances_post.go,
 * api_internal.go internalImportFromBackup):
 *
 *   backup/index.yaml            GetInfo: name, type, snapshots, optimized
 *                                and config: (container, snapshots,
 *                                volume: the storage volume records and
 *                                the project limits check come from here)
 *   backup/container/backup.yaml GetInfo's fallback when index.yaml has no
 *   backup/virtual-machine/      config:, and - unpacked into the new
 *     backup.yaml                volume - the file internalImportFromBackup
 *                                creates the instance AND its snapshot
 *                                records from (config, devices, profiles)
 *   backup/snapshots/<s>/        each snapshot volume's own copy, read by
 *     backup.yaml (and           `incus admin recover`
 *     virtual-machine-snapshots)
 *
 * So the whole archive is read (gzip streamed, or plain tar), every one of
 * those members is parsed with yaml.h and vetted with vet.h, and the
 * archive itself must be one the daemon's two tar readers (Go's
 * archive/tar for GetInfo, GNU tar for the unpack) cannot read
 * differently: clean member names, no duplicate or non-regular config
 * member, no directory on the way to one that is anything but a
 * directory, PAX/GNU long names understood or refused, nothing after the
 * end-of-archive blocks but zeros.  Optimized (driver-specific binary)
 * exports and other compressions are refused: box cannot see inside them.
 */
#ifndef BOX_VET_EXPORT_H
#define BOX_VET_EXPORT_H

#include <stddef.h>

#include "box/life/vet.h"
#include "incus/backup.h"
#include "util/err.h"

#define VET_DOC_MAX	(16u << 20)	/* one YAML member */
#define VET_DOCS_MAX	(64u << 20)	/* all of them */
#define VET_MAX_SNAPS	1024
#define VET_PAX_MAX	(64u << 10)
#define VET_NAME_MAX	4096

/*
 * Read and vet the export open at fd (box import opens the file once and
 * reads everything from that one descriptor: nothing reopens its path).
 * stream 0: pread from its start, the descriptor's offset untouched;
 * stream 1: read to its end (a pipe carrying the upload's own bytes).
 * 0: read (v holds what is refused, if anything; name the instance name
 * recorded, "" if none).  < 0: the file could not be read as an export
 * box understands (e says why) - also a refusal.
 */
int vet_export_fd(int fd, int stream, struct vet *v, char *name,
    size_t cap, struct box_err *e);

/*
 * v->id_template, set by the two readers above: 1 when the daemon can be
 * asked to write /etc/machine-id from an instance template at first start
 * (box/import/import_id.h) without following anything the file planted.  The
 * daemon writes metadata.yaml and templates/<t> on the host, as root,
 * through whatever symlink the file unpacked there (seen: a host file
 * rewritten, a host directory written into), and Incus 6.0.4 without the
 * CVE-2026-23954 fix renders the template's target through them too.  So
 * each of these must be, in the archive, at most one member of the plain
 * kind named, never a link:
 *
 *   backup/container/rootfs, rootfs/etc, templates   directories
 *   backup/container/rootfs/etc/machine-id,          regular files
 *     metadata.yaml, templates/box-identity.tpl
 *   backup/container/rootfs/var/lib/dbus/machine-id  only the symlink
 *                                                    "/etc/machine-id"
 *                                                    (left alone: inside
 *                                                    the box it is the
 *                                                    new id)
 *
 * Anything else leaves it 0 and import writes the identity the slow way
 * (the files API); it is not a refusal.
 */

/*
 * Only the name recorded in backup/index.yaml (the first member Incus
 * writes), read without the rest of the file, so that the vet can run
 * beside the upload (box/import/vet_bg.h) when no --name is given.  Nothing is
 * vetted: the whole vet must still agree on the name.  0 with name, or
 * < 0 (no index first, unreadable: vet the whole file first instead).
 */
int vet_export_name(int fd, char *name, size_t cap);

/*
 * The members of a plain tar in[0..n) as the walk above reads them, each
 * handed to fn (its name without a trailing '/', type, size, link target
 * or ""), for the differential fuzzer (tests/fuzz/fuzz_tar.c): 0 when the
 * walk reads the whole archive, < 0 when it refuses it.
 */
typedef void (*vet_member_fn)(void *ctx, const char *name, char type,
    long long size, const char *link);
int vet_tar_members(const unsigned char *in, size_t n, vet_member_fn fn,
    void *ctx);

/*
 * The daemon's view: the instance as re-homed and every snapshot record
 * (incus/backup.h incus_backup_index_get), each judged as the export's
 * own records are.  0, or -ENOMEM.
 */
int vet_daemon_index(const struct incus_backup_index *ix, struct vet *v);

/*
 * Whether a member name (no trailing slash) is one of the config
 * documents above (index.yaml, the instance's or a snapshot's
 * backup.yaml): >= 0, else -1.
 */
int vet_export_doc_kind(const char *name);
/*
 * A container's own config from its backup/container/backup.yaml
 * text[0..n) (a granted user's import makes the box from an image:
 * box/import/reframe.h): every config key but volatile.* added to cfg, and the
 * root disk's size, if it has one, in size ("" if not).  0, -EBOX_PROTO
 * (unreadable), -ENOMEM.  Not a vet: the box made from it is vetted as
 * the daemon holds it.
 */
int vet_export_ct_config(const char *text, size_t n, struct incus_kvs *cfg,
    char *size, size_t cap);

#endif

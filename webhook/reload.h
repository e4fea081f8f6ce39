/*
 * What the webhook serves with, and keeping it current: the configuration, the inventory and the serving
 * certificate, each reloaded when its files change.
 *
 * Reading and parsing the configuration and inventory is the caller's loader (gpa_reload_loader_t): `gpuadmit
 * serve` passes the CLI's (cli/input/load.h), so an --inventory directory is read exactly as the verbs read it. The
 * files of the inventory are listed again on every poll: a file added to or removed from an inventory
 * directory reloads it as a change to one of its files does.
 *
 * Change detection polls stat() of each path (which follows symlinks) and its realpath(): Kubernetes updates a
 * mounted Secret or ConfigMap by swapping the `..data` symlink to a new directory, which changes the resolved
 * target and its inode even when size and mtime look the same. A same-size rewrite in place within one tick of the
 * file system's clock changes none of these: while a file's mtime is recent (under 2 s old when last checked) its
 * bytes are hashed on every poll too (reload.c, SETTLE_SECONDS). A file that fails to load is logged and
 * counted (gpuadmit_reloads_total{result="failure"}); what was in force stays in force.
 *
 * Readers: the configuration and inventory are reference-counted. A worker holds references to the pair that
 * was current when it last looked and swaps them when the generation counter moves, so a request always runs
 * against one consistent pair that cannot be freed under it. Every retain and release goes through one lock,
 * so the engine's reference counts need not be atomic.
 */
#ifndef GPA_WEBHOOK_RELOAD_H
#define GPA_WEBHOOK_RELOAD_H

#include <stddef.h>
#include <stdint.h>

#include "policy/config.h"
#include "inventory/inventory.h"
#include "tls.h"

/*
 * How paths become files, a configuration and an inventory. Each function returns its result or -1 / NULL with
 * a one-line reason in err; `ctx` is passed to each.
 * - files: the files `paths` stand for (a directory: the manifests in it), as a new array of new strings
 *   (the reloader frees both with free()), in a stable order.
 * - config: a new configuration from one file.
 * - inventory: one new inventory from every file that `files` listed, read with `cfg` (the configuration it will
 *   be used with: decoding reads its names), which is why a new configuration reloads the inventory too.
 */
typedef struct st_gpa_reload_loader_t {
    int (*files)(void *ctx, const char *const *paths, size_t npaths, char ***files, size_t *nfiles, char *err, size_t errsize);
    gpa_config_t *(*config)(void *ctx, const char *path, char *err, size_t errsize);
    gpa_inventory_t *(*inventory)(void *ctx, const gpa_config_t *cfg, const char *const *files, size_t nfiles, char *err,
                                  size_t errsize);
    void *ctx;
} gpa_reload_loader_t;

typedef struct st_gpa_reload_opts_t {
    const gpa_reload_loader_t *loader; /* required, borrowed for the reloader's lifetime */
    const char *config;                /* NULL: the defaults, never reloaded */
    const char *const *inventory;      /* files or directories; may be empty: no inventory (NULL for the engine) */
    size_t ninventory;
    const char *cert, *key; /* watched for gpa_tls_reload() */
} gpa_reload_opts_t;

/* A reader's view: the pair in use and the generation it came from. Zero-initialize before first use. */
typedef struct st_gpa_snapshot_t {
    gpa_config_t *config;
    gpa_inventory_t *inventory;
    uint64_t generation;
} gpa_snapshot_t;

/*
 * Loads the configuration and inventory for the first time and records the watched files' state. `tls` (borrowed)
 * is reloaded when cert or key change. Returns 0, or -1 with a one-line reason in err: a server must not start
 * on a file it cannot read.
 */
int gpa_reload_init(const gpa_reload_opts_t *opts, gpa_tls_t *tls, char *err, size_t errsize);
/*
 * Puts an inventory from elsewhere in force (serve --cluster-inventory's live view), taking the caller's
 * reference; NULL means no inventory (the infeasible rule is silent). Thread-safe.
 */
void gpa_reload_set_inventory(gpa_inventory_t *inv);
/* A new reference to the configuration in force, or NULL before gpa_reload_init (the caller releases). */
gpa_config_t *gpa_reload_config(void);
/* Checks every watched file once and reloads what changed (logging and counting each outcome). */
void gpa_reload_poll(void);
/* Brings a reader's snapshot up to the current generation; cheap when nothing changed (one atomic load). */
void gpa_reload_refresh(gpa_snapshot_t *snap);
/* Drops a reader's references (at thread exit). */
void gpa_reload_forget(gpa_snapshot_t *snap);
/* Releases the current pair and forgets the watched files. */
void gpa_reload_dispose(void);

#endif

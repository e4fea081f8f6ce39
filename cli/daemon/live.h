/*
 * gpuadmit serve --cluster-inventory (docs/cluster.md): the inventory of the infeasible rule kept current from the
 * cluster. Three reflectors (Nodes, Koordinator Devices, Pods; cluster/reflector.h) feed a live view
 * (cluster/view.h); a publisher thread resolves the view into a new inventory when it changed (at most every
 * max(100 ms, 4x the last build)) and puts it in force with gpa_reload_set_inventory(), as a reloaded file is.
 *
 * Readiness: /readyz answers 503 until Nodes and Pods were listed once and Devices were listed or found not
 * served; meanwhile no inventory is in force (infeasible is silent). Staleness: when a watch has been broken
 * for longer than the limit, the inventory in force is marked advisory: infeasible warns and denies nothing
 * (logged once, gauge gpuadmit_cluster_stale). Every Pod event is also judged as `gpuadmit audit` judges it
 * (gpa_audit_check_opts(1): as if created now, mutations first) and its findings counted in
 * gpuadmit_audit_violations{rule,namespace}. Node templates (--inventory files beside the cluster) join every inventory published;
 * their files are watched like the server's and a change publishes a new inventory.
 *
 * The threads are started with SIGTERM and SIGINT blocked (gpa_server_run waits for them on its own thread).
 */
#ifndef GPA_CLI_LIVE_H
#define GPA_CLI_LIVE_H
#include <stdint.h>

#include "inventory/inventory.h"
#include "base/error.h"
#include "kubeconfig.h"
#include "policy/engine.h"

typedef struct st_gpa_live_opts_t {
    gpa_kube_options_t kube;
    uint64_t stale_after_ms;           /* --inventory-stale-after (default 5m) */
    int serve_before_sync;             /* --serve-before-sync: /readyz does not wait for the first sync */
    gpa_inventory_t *templates;        /* node templates from --inventory files (templates only), or NULL: every inventory
                                          published takes them (gpa_inventory_set_templates); retained by gpa_live_start */
    const char *const *template_paths; /* those files or directories (borrowed): checked every reload_every_ms and */
    size_t ntemplate_paths;            /* read again when they change; a bad change keeps the templates in force */
    uint64_t reload_every_ms;          /* --reload-interval */
} gpa_live_opts_t;

typedef struct st_gpa_live_t gpa_live_t;

/* Resolves the target and starts watching. Returns the new live inventory, or NULL with err. */
gpa_live_t *gpa_live_start(const gpa_live_opts_t *opts, gpa_error_t *err);
/* Stops every thread and frees it all (the inventory in force stays with the reloader). NULL is fine. */
void gpa_live_stop(gpa_live_t *l);

/*
 * How a stored object is judged, by `gpuadmit audit` and for gpuadmit_audit_violations alike: would it be admitted
 * if it were created now (CREATE, validation), the mutations first unless `mutate` is 0 (audit --no-mutate: as
 * stored). No inventory: the caller sets one if it has one.
 */
gpa_check_opts_t gpa_audit_check_opts(int mutate);

#endif

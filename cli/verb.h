/*
 * What the verbs that judge inputs object by object (validate, mutate, fit) share besides their options (opts.h):
 * loading the configuration and inventory; walking the inputs object by object; one JSON
 * array of elements; and the exit code from what could not be read and what was refused (README.md#the-cli). Each verb
 * keeps its own options, its per-object work and its output.
 */
#ifndef GPA_CLI_VERB_H
#define GPA_CLI_VERB_H

#include <jansson.h>
#include <stddef.h>

#include "base/arena.h"
#include "policy/config.h"
#include "policy/engine.h"
#include "inventory/inventory.h"
#include "kube/model.h"
#include "opts.h"

/*
 * --inventory F beside a live cluster (fit --cluster, explain): `files` (the verb's inventory as loaded, borrowed;
 * NULL without --inventory) may hold node templates only, the cluster having the nodes and its Pods the usage.
 * Returns 0, or -1 after saying why on stderr as "VERB: ...". The caller then gives the cluster's inventory the
 * files' templates (gpa_inventory_set_templates).
 */
int gpa_verb_templates_only(const char *verb, const gpa_inventory_t *files);

typedef struct st_gpa_verb_t gpa_verb_t;

/*
 * Called once per object read. `obj` and `source` ("file" or "file#N") live until the callback returns;
 * vb->scratch is the callback's to clear and use.
 */
typedef void (*gpa_verb_object_cb)(gpa_verb_t *vb, const char *source, gpa_object_t *obj);

struct st_gpa_verb_t {
    gpa_config_t *cfg;    /* one reference: --config, or the defaults */
    gpa_inventory_t *inv; /* one reference, or NULL without --inventory */
    int json;             /* the output is one JSON array (opened by gpa_verb_walk, closed by _finish) */
    size_t printed;       /* JSON elements printed so far */
    size_t unreadable;    /* inputs, documents or objects that could not be read (reported on stderr) */
    /* The same, for the summary: paths or files not read at all; documents (or objects) not read, and the files they are in. */
    size_t unreadable_files, unreadable_docs, unreadable_doc_files;
    char *file_;             /* the file being walked (heap copy) */
    char *last_failed_file_; /* the file of the last unreadable document (heap copy), to count files once */
    gpa_arena_t scratch;     /* per object: cleared and used by the callback */
    gpa_verb_object_cb on_object;
    void *ctx; /* the verb's own state, for the callback */
    /* DRA (kube/dra.h): the classes, claims and templates of the same input (the files read before the walk; stdin's
     * as they come), over the inventory's; the objects are decoded with them known (decode.known = &known). */
    gpa_dra_known_t known;
    gpa_decode_opts_t decode;
    gpa_arena_t known_arena_;
};

/*
 * Loads the configuration and, when any --inventory was given, the inventory (errors reported on stderr as
 * "file:line: reason"); `on_object` is NULL for a verb that does not walk (audit, explain, review). Returns 0, or -1;
 * gpa_verb_dispose() is due in either case.
 */
int gpa_verb_init(gpa_verb_t *vb, const gpa_verb_opts_t *o, gpa_verb_object_cb on_object, void *ctx);
/* Replaces the verb's inventory by `inv` (its reference taken; NULL: none), the known DRA objects now standing on
 * inv's (fit --cluster and explain, which read the cluster after the files). The old one is released. */
void gpa_verb_set_inventory(gpa_verb_t *vb, gpa_inventory_t *inv);
/* Releases the configuration, the inventory and the scratch arena. */
void gpa_verb_dispose(gpa_verb_t *vb);

/*
 * Opens the JSON array (when vb->json), then reads every path (files, directories, "-") and calls
 * vb->on_object for each object of each document, List items flattened. With the dra dialect on, the files are
 * read once before (quietly) for their DeviceClasses, ResourceClaims and ResourceClaimTemplates (vb->known); stdin,
 * which can be read only once, adds its own as they come (docs/decisions.md). What cannot be read or decoded is
 * reported on stderr and counted in vb->unreadable; the walk goes on.
 */
void gpa_verb_walk(gpa_verb_t *vb, char *const *paths, size_t npaths);

/* A DeviceClass, ResourceClaim or ResourceClaimTemplate becomes known (a copy, in the verb's arena), unless one of
 * its kind, namespace and name already is; any other object is ignored. (audit: what it lists from the cluster.) */
void gpa_verb_know(gpa_verb_t *vb, const gpa_object_t *obj);
/* Indexes what is known so far (kube/dra.h, gpa_dra_known_seal): finds in it are O(1); later ones are scanned. */
void gpa_verb_seal_known(gpa_verb_t *vb);

/*
 * gpa_check() of one object in vb->scratch (cleared first), with vb->known as what the cluster holds when opts
 * says nothing (opts->known NULL). Returns 0 with *verdict filled, or -1 after reporting the error on stderr and
 * counting the object as unreadable.
 */
int gpa_verb_check(gpa_verb_t *vb, const char *source, gpa_object_t *obj, const gpa_check_opts_t *opts, gpa_verdict_t *verdict);

/*
 * Prints one element of the JSON array (",\n" between elements) and takes `el` (NULL accepted). When it cannot
 * be encoded, says "SOURCE: cannot encode the WHAT of NAME as JSON" on stderr and counts it as unreadable.
 */
void gpa_verb_print_json(gpa_verb_t *vb, json_t *el, const char *source, const char *what, const char *name);

/*
 * Closes the JSON array, or prints `summary` (when not NULL) as the last line of text, with how much could not
 * be read appended when so ("; 2 documents in 1 file could not be read (see stderr)"). Returns the exit code: 2 when anything could
 * not be read, else 1 when `refused` (denied objects, Pods that do not fit) is not 0, else 0.
 */
int gpa_verb_finish(gpa_verb_t *vb, size_t refused, const char *summary);

#endif

/*
 * Decoding: from document trees (value.h) to the typed model (model.h).
 *
 * Which objects a document holds: the document itself; every item of a `List` (recursively); for an
 * AdmissionReview, use gpa_review_* (review.h) instead, which reads request.object/oldObject.
 * Which Pod specs an object holds: the paths its kind's entry of the workloads table names (kube/workloads.h,
 * docs/rules.md#objects), found by API group and kind; any other kind decodes with no Pod specs (admitted untouched).
 *
 * Read only what is needed: in a kind of the table, metadata must be a mapping and its namespace a string (it
 * decides exclusion), and every path the rules read must have its shape (a template a mapping with a spec, a
 * Pod spec with a list of containers, containers mappings, resources and their requests and limits mappings,
 * the mGPU annotation a string, nodeSelector a mapping, node affinity as Kubernetes writes it); anything else
 * (labels, other annotations, names, a nodeSelector value, any field of any other kind) is never an error.
 *
 * Errors: a bad shape on a needed path fails with err at that node (document/schema.h wording, the path into the
 * object). A GPU value of the wrong type is not a decode error: it decodes as an amount with status GPA_Q_SYNTAX
 * and malformed-quantity reports it. A GPU value is parsed as Kubernetes' Quantity.UnmarshalJSON does, white
 * space around it trimmed (" 2" is 2). All model memory comes from `a`, which must be the arena that owns the tree.
 */
#ifndef GPA_DECODE_H
#define GPA_DECODE_H

#include "document/json.h"
#include "kube/dra.h"
#include "kube/model.h"
#include "kube/workloads.h"

/*
 * What decoding needs beyond the document, one value passed to every reader (the engine, the front ends, the
 * inventory loader): which kinds to read, which names the dialects give their resources, which dialects are on,
 * and which extended resources DeviceClasses serve. A configuration holds its part (gpa_config_t.decode); a front
 * end that knows DeviceClasses copies it and sets `known`. All borrowed for the call; NULL (the whole value) means
 * the defaults: the built-in kinds, HAMi's default names, every dialect, no DeviceClass known.
 */
typedef struct st_gpa_decode_opts_t {
    const gpa_workloads_t *workloads; /* kinds read besides the built-in table; NULL: none */
    const gpa_hami_names_t *hami;     /* HAMi's names to intern; NULL: HAMi's defaults */
    unsigned dialects;                /* GPA_DIALECT_* bits; without GPA_DIALECT_DRA nothing of kube/dra.h is read */
    /* The DeviceClasses known (kube/dra.h): a container's extended resource that one of them maps, or any
     * GPA_DRA_IMPLICIT_PREFIX name, is read as a DRA use of that class, not as a vendor or HAMi amount. NULL: none
     * known (only the implicit names are read as DRA). */
    const gpa_dra_known_t *known;
} gpa_decode_opts_t;

/* The defaults (every dialect, built-in kinds, HAMi's names, no class known). */
extern const gpa_decode_opts_t gpa_decode_opts_default;

typedef struct st_gpa_objects_t {
    gpa_object_t **items;
    size_t len, cap;
} gpa_objects_t;

/*
 * Decodes one object (not a List) with `opts` (borrowed for the call; NULL: gpa_decode_opts_default).
 * Returns 0 and sets *out, or -1 with err filled.
 */
int gpa_decode_object_with(gpa_arena_t *a, const gpa_decode_opts_t *opts, gpa_value_t *doc, gpa_object_t **out, gpa_error_t *err);
/* Appends the objects of one document (List items flattened, in order) to out; `opts` as above. */
int gpa_decode_document_with(gpa_arena_t *a, const gpa_decode_opts_t *opts, gpa_value_t *doc, gpa_objects_t *out, gpa_error_t *err);
/* Names an error found inside `where` (a path: "items[3]", "request.object"): err->path becomes
 * "where.path" ("where" alone for an error at the node itself). Left as is when it would not fit. */
void gpa_decode_error_within(gpa_error_t *err, const char *where);
/*
 * Adds to `object` (the filter node of an object that will be decoded with `opts`, borrowed for the call) every
 * path decoding reads in any kind of the table: what it names, where it says what (who the object is, its Pod
 * templates, Pod specs and ResourceRequirements, and in those only the fields the rules read). An object parsed
 * with that filter decodes exactly as the whole object does (same model, same errors at the same paths): the
 * webhook builds nothing of a review's env, volumes, managedFields and the like (docs/webhook.md#limits).
 */
void gpa_decode_filter(gpa_arena_t *a, const gpa_decode_opts_t *opts, gpa_json_filter_t *object);
/* The same with the built-in table alone (inventories, tests). */
int gpa_decode_object(gpa_arena_t *a, gpa_value_t *doc, gpa_object_t **out, gpa_error_t *err);
int gpa_decode_document(gpa_arena_t *a, gpa_value_t *doc, gpa_objects_t *out, gpa_error_t *err);
/* Item `index` of a List read one item at a time, decoded as gpa_decode_document_with decodes that List's items
 * (`opts` as above), errors' paths prefixed "items[index]". */
int gpa_decode_item(gpa_arena_t *a, const gpa_decode_opts_t *opts, gpa_value_t *item, size_t index, gpa_objects_t *out,
                    gpa_error_t *err);

/* A NodeSelector (a mapping at `path`, e.g. a ResourceSlice's spec.nodeSelector): its nodeSelectorTerms, read as a Pod's
 * required node affinity is (kube/model.h gpa_node_term_t), into a. Returns 0, or -1 with err. */
int gpa_decode_node_selector(gpa_arena_t *a, const gpa_value_t *selector, const char *path, gpa_node_term_t **out, size_t *n,
                             gpa_error_t *err);

#endif

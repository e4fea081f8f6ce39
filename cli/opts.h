/*
 * The options the verbs share, read in one place so that each means one thing in every verb: --config,
 * --inventory, -o, the cluster's --kubeconfig/--context and -n/-A. A verb says which of them it takes and
 * lists only its own beside them; gpa_verb_getopt() records the shared ones and hands it the rest.
 *
 *     static const struct option own[] = {{"now", no_argument, NULL, OPT_NOW}, {NULL, 0, NULL, 0}};
 *     gpa_verb_opts_t o;
 *     gpa_verb_opts_init(&o, GPA_OPT_CONFIG | GPA_OPT_OUTPUT, own, "text");
 *     while ((c = gpa_verb_getopt(argc, argv, &o)) != -1) ... OPT_NOW, 'h' or '?' ...
 *     static const char *const formats[] = {"text", "json", NULL};
 *     if (gpa_verb_opts_check("fit", &o, formats, GPA_NEED_PATH, argc) != 0) ...
 *     gpa_verb_opts_dispose(&o);
 */
#ifndef GPA_CLI_OPTS_H
#define GPA_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "kubeconfig.h"

/* The shared options a verb takes. */
enum {
    GPA_OPT_CONFIG = 1 << 0,    /* --config F */
    GPA_OPT_INVENTORY = 1 << 1, /* --inventory F, repeatable */
    GPA_OPT_OUTPUT = 1 << 2,    /* -o, --output FMT */
    GPA_OPT_CLUSTER = 1 << 3,   /* --kubeconfig F, --context C */
    GPA_OPT_NAMESPACE = 1 << 4, /* -n, --namespace NS and -A, --all-namespaces (one or the other) */
};

/* The first code a verb's own options may return: clear of the shared options' and of getopt's. */
#define GPA_OPT_OWN 0x200

/* What gpa_verb_opts_check() requires besides well-formed options. */
enum {
    GPA_NEED_PATH = 1 << 0,      /* a PATH after the options */
    GPA_NEED_INVENTORY = 1 << 1, /* at least one --inventory */
};

/* The shared options as given; every string is borrowed from argv. */
typedef struct st_gpa_verb_opts_t {
    const char *config;       /* --config F, or NULL for the defaults */
    const char **inventories; /* --inventory F, in order (heap array: gpa_verb_opts_dispose) */
    size_t ninventories;
    const char *output;      /* -o FMT as given, else the verb's default */
    gpa_kube_options_t kube; /* --kubeconfig, --context */
    const char *ns;          /* -n NS, or NULL */
    int all;                 /* -A */
    /* the shared options the verb takes, then its own: what getopt_long() reads */
    struct option longopts_[24];
    char shortopts_[8];
} gpa_verb_opts_t;

/*
 * Prepares `o` for a verb taking the shared options in `takes` (GPA_OPT_*) and its own `own` (long options ended
 * by a zeroed one, their codes GPA_OPT_OWN and up; NULL for none), -o defaulting to `output`. --help and -h are
 * always taken.
 */
void gpa_verb_opts_init(gpa_verb_opts_t *o, unsigned takes, const struct option *own, const char *output);
/*
 * getopt_long() over the options of gpa_verb_opts_init(): records the shared ones and returns the next other one
 * (an own code, 'h' for --help, '?' for what getopt reported as bad), or -1 at the end (operands from optind).
 * The first call starts at argv[1].
 */
int gpa_verb_getopt(int argc, char **argv, gpa_verb_opts_t *o);
/*
 * The checks after the parse, the first failure said on stderr as "VERB: ...": -o is one of `formats` (a NULL-ended
 * list; NULL when the verb takes no -o), -n and -A are not both given, and what `need` asks (GPA_NEED_*) is there.
 * Returns 0 or -1.
 */
int gpa_verb_opts_check(const char *verb, const gpa_verb_opts_t *o, const char *const *formats, unsigned need, int argc);
/* The index of o->output in `formats` (after gpa_verb_opts_check(): always found). */
int gpa_verb_output(const gpa_verb_opts_t *o, const char *const *formats);
/*
 * The cluster --kubeconfig and --context name, and in it the namespace -n and -A choose (when `ns` is not NULL): NULL
 * for all, -n's, else the context's (or the service account's), else "default". Returns 0, or -1 after saying why on
 * stderr as "VERB: file:line: ..."; gpa_kube_target_dispose() is due after 0.
 */
int gpa_verb_target(const char *verb, const gpa_verb_opts_t *o, gpa_kube_target_t *t, const char **ns);
/* Frees the inventory list (not the strings, which are argv's). */
void gpa_verb_opts_dispose(gpa_verb_opts_t *o);

/* The help of the options every verb that reads the cluster shares (audit, explain, fit --cluster): one text, so that
 * no verb's --help drifts from how the options are read (cluster/kubeconfig.h). */
#define GPA_HELP_KUBECONFIG                                                                                                        \
    "  --kubeconfig F        (default: the service account in a Pod, else $KUBECONFIG, ~/.kube/config)\n"                          \
    "  --context C           kubeconfig context (default: current-context)\n"

#endif

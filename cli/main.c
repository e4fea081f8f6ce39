/*
 * gpuadmit: one binary, one verb per file (cli/<verb>.c). main only dispatches: it owns no options of its own
 * besides --help and --version, so a verb's behaviour is read in one place.
 */
#include <stdio.h>
#include <string.h>

#include "base/distance.h"
#include "cli.h"

#ifndef GPA_VERSION
#define GPA_VERSION "unknown"
#endif

/* The verb table. Legend: name as typed, the function (argv[0] = name), one line for --help. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *doc;
} verbs[] = {
    {"validate", gpa_cmd_validate, "the cluster's verdict for each object (mutation, then validation)"},
    {"mutate", gpa_cmd_mutate, "the mutated objects, or their JSON Patches"},
    {"review", gpa_cmd_review, "answer one AdmissionReview exactly as the webhook would"},
    {"audit", gpa_cmd_audit, "judge every Pod and workload the cluster holds, as validate does"},
    {"explain", gpa_cmd_explain, "why GPU Pods are Pending: could each ever be placed, and why not now, node by node"},
    {"fit", gpa_cmd_fit, "dry-run placement of each Pod on an inventory"},
    {"test", gpa_cmd_test, "run gpuadmit-test.yaml test suites"},
    {"serve", gpa_cmd_serve, "the TLS admission webhook"},
    {"certs", gpa_cmd_certs, "a CA and a serving certificate for the webhook"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gpuadmit <verb> [options] ...\n"
                 "       gpuadmit version | --version | --help\n\n"
                 "GPU-share admission control for Kubernetes.\n\nverbs:\n");
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        fprintf(out, "  %-9s %s\n", verbs[i].name, verbs[i].doc);
    fprintf(out, "  %-9s %s\n", "version", "print the version");
    fprintf(out, "\n`gpuadmit <verb> --help` describes a verb's options.\n"
                 "exit codes: 0 all admitted, 1 something denied or a test failed, 2 usage error or unreadable input\n");
}

/* The verb a mistyped one most likely meant: the fewest edits (case aside), at most 2 and fewer than the typed
 * verb's length, so "x" suggests nothing; NULL when none is that near. */
static const char *nearest_verb(const char *typed)
{
    const char *best = NULL;
    size_t best_d = 3, len = strlen(typed);
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]) + 1; i++) {
        const char *name = i < sizeof(verbs) / sizeof(verbs[0]) ? verbs[i].name : "version";
        size_t d = gpa_edit_distance(typed, len, name, strlen(name), 1);
        if (d < best_d && d < len) {
            best_d = d;
            best = name;
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return GPA_EXIT_USAGE;
    }
    const char *verb = argv[1];
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
        usage(stdout);
        return GPA_EXIT_OK;
    }
    if (strcmp(verb, "--version") == 0 || strcmp(verb, "version") == 0) {
        printf("gpuadmit %s\n", GPA_VERSION);
        return GPA_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        if (strcmp(verb, verbs[i].name) == 0)
            return verbs[i].run(argc - 1, argv + 1);
    const char *near = nearest_verb(verb);
    if (near != NULL)
        fprintf(stderr, "gpuadmit: unknown verb '%s'; did you mean '%s'?\n\n", verb, near);
    else
        fprintf(stderr, "gpuadmit: unknown verb '%s'\n\n", verb);
    usage(stderr);
    return GPA_EXIT_USAGE;
}

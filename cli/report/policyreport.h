/*
 * `gpuadmit audit -o policyreport` (docs/cluster.md#policy-reports): an audited object's findings as the policy
 * report Kyverno and Policy Reporter read. One report per object with a finding, named after the object's UID, in
 * its namespace (a cluster-scoped object gets the cluster-scoped kind), `scope` the object, one result per finding
 * (`fail` for deny, `warn` for warn and for "no room now"), the summary counted; printed as one YAML document
 * ("---" first) that `kubectl apply -f -` takes.
 */
#ifndef GPA_CLI_POLICYREPORT_H
#define GPA_CLI_POLICYREPORT_H

#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "kube/model.h"
#include "policy/verdict.h"

typedef enum en_gpa_report_api_t {
    GPA_REPORT_API_WGPOLICY,    /* wgpolicyk8s.io/v1alpha2 PolicyReport / ClusterPolicyReport (the default) */
    GPA_REPORT_API_OPENREPORTS, /* openreports.io/v1alpha1 Report / ClusterReport */
} gpa_report_api_t;

/* "wgpolicyk8s" or "openreports" (as --report-api spells them) into *api; -1 for any other name. */
int gpa_report_api_parse(const char *name, gpa_report_api_t *api);

/*
 * Prints obj's report to out when v has a finding; `now` (seconds since the epoch) stamps each result. Returns 1
 * when a report was printed, 0 when there was nothing to report. Everything is borrowed; `a` holds scratch.
 */
int gpa_policyreport_print(FILE *out, gpa_arena_t *a, gpa_report_api_t api, const gpa_object_t *obj, const gpa_verdict_t *v,
                           int64_t now);

#endif

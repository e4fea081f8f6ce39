/*
 * Check tests for cli/report/policyreport.c: the report's kind follows the object's scope and the API asked for, results
 * map deny to fail and warn (and "no room now") to warn, the summary counts them, and an object without a UID or
 * without findings is handled (the schema checks of real reports are tests/e2e/run_policyreport.py's).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "report/policyreport.h"
#include "run.h"

static gpa_violation_t finding(const char *rule, gpa_action_t action, int not_now, const char *container)
{
    gpa_violation_t f = {.rule = rule,
                         .action = action,
                         .not_now = not_now,
                         .container = container,
                         .path = "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources",
                         .resources = {"koordinator.sh/gpu-core", "koordinator.sh/gpu-memory"},
                         .nresources = 2,
                         .message = "a message"};
    return f;
}

/* A cluster-scoped object (ns "") with three findings: deny, warn, and a deny that is only "no room now". */
static const char *print(gpa_report_api_t api, const char *metadata, size_t nfindings, int *printed)
{
    static gpa_violation_t items[3];
    items[0] = finding("core-range", GPA_ACTION_DENY, 0, "trainer");
    items[1] = finding("core-without-memory", GPA_ACTION_WARN, 0, NULL);
    items[2] = finding("infeasible", GPA_ACTION_DENY, 1, "trainer");
    gpa_object_t obj = {.api_version = "trainer.kubeflow.org/v1alpha1",
                        .kind = "ClusterTrainingRuntime",
                        .ns = "",
                        .name = "rt",
                        .root = json(metadata)};
    gpa_verdict_t v = {.violations = {.items = items, .len = nfindings, .cap = nfindings}};
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(out);
    *printed = gpa_policyreport_print(out, &arena, api, &obj, &v, 1795687200);
    fclose(out);
    const char *s = gpa_arena_strndup(&arena, buf, len);
    free(buf);
    return s;
}

#define HAS(s, what) ck_assert_msg(strstr((s), (what)) != NULL, "no \"%s\" in:\n%s", (what), (s))
#define HASNT(s, what) ck_assert_msg(strstr((s), (what)) == NULL, "\"%s\" in:\n%s", (what), (s))

START_TEST(cluster_scoped_object)
{
    int printed;
    const char *s = print(GPA_REPORT_API_WGPOLICY, "{\"metadata\":{\"name\":\"rt\",\"uid\":\"u-1\"}}", 3, &printed);
    ck_assert_int_eq(printed, 1);
    HAS(s, "---\napiVersion: wgpolicyk8s.io/v1alpha2\nkind: ClusterPolicyReport\nmetadata:\n  name: u-1\n  labels:\n");
    HASNT(s, "namespace:");
    HAS(s, "scope:\n  apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: ClusterTrainingRuntime\n  name: rt\n  uid: u-1\n");
    HAS(s, "summary:\n  pass: 0\n  fail: 1\n  warn: 2\n  error: 0\n  skip: 0\n");
    HAS(s, "rule: core-range\n  result: fail\n");
    HAS(s, "rule: infeasible\n  result: warn\n"); /* no room now never fails */
    HAS(s, "    resources: koordinator.sh/gpu-core,koordinator.sh/gpu-memory\n");
    HAS(s, "timestamp:\n    seconds: 1795687200\n    nanos: 0\n");
    s = print(GPA_REPORT_API_OPENREPORTS, "{\"metadata\":{\"uid\":\"u-1\"}}", 3, &printed);
    HAS(s, "apiVersion: openreports.io/v1alpha1\nkind: ClusterReport\n");
    HAS(s, "\nsource: gpuadmit\n");
}
END_TEST

START_TEST(no_uid_no_owner_and_no_findings_no_report)
{
    int printed;
    const char *s = print(GPA_REPORT_API_WGPOLICY, "{\"metadata\":{\"name\":\"rt\"}}", 1, &printed);
    HAS(s, "  name: gpuadmit-clustertrainingruntime-rt\n");
    HASNT(s, "ownerReferences");
    HASNT(s, "uid:");
    s = print(GPA_REPORT_API_WGPOLICY, "{\"metadata\":{\"uid\":\"u-1\"}}", 0, &printed);
    ck_assert_int_eq(printed, 0);
    ck_assert_str_eq(s, "");
}
END_TEST

START_TEST(report_api_names)
{
    gpa_report_api_t api = GPA_REPORT_API_WGPOLICY;
    ck_assert_int_eq(gpa_report_api_parse("openreports", &api), 0);
    ck_assert_int_eq(api, GPA_REPORT_API_OPENREPORTS);
    ck_assert_int_eq(gpa_report_api_parse("wgpolicyk8s", &api), 0);
    ck_assert_int_eq(api, GPA_REPORT_API_WGPOLICY);
    ck_assert_int_eq(gpa_report_api_parse("kyverno", &api), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("policyreport");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, cluster_scoped_object);
    tcase_add_test(tc, no_uid_no_owner_and_no_findings_no_report);
    tcase_add_test(tc, report_api_names);
    suite_add_tcase(s, tc);
    return gpa_test_run(s);
}

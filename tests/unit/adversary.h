/*
 * A deterministic generator of adversarial admission inputs for the bounds guard (tests/unit/test_bounds.c):
 * AdmissionReview bodies whose object is shaped like a known attack on one ceiling, and inventories to judge
 * them on. Seeded (splitmix64), never the clock: a seed names the same bytes on every run and machine.
 * Header-only; every text is built into a caller-owned gpa_buf_t (gpa_buf_dispose when done).
 */
#ifndef GPA_TEST_ADVERSARY_H
#define GPA_TEST_ADVERSARY_H

#include <stdint.h>
#include <stdio.h>

#include "base/buf.h"

typedef struct st_gpa_adv_t {
    uint64_t state;
} gpa_adv_t;

/* splitmix64: the next 64 bits of the seeded sequence. */
static inline uint64_t gpa_adv_next(gpa_adv_t *g)
{
    uint64_t z = (g->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value in [0, n), n > 0 (the modulo bias is irrelevant to a shape). */
static inline uint64_t gpa_adv_below(gpa_adv_t *g, uint64_t n)
{
    return gpa_adv_next(g) % n;
}

/* The opening of a validating AdmissionReview v1 of `kind` (group/version split from api_version), up to and
 * including `"object":`; the caller writes the object and closes with gpa_adv_review_close. */
static inline void gpa_adv_review_open(gpa_buf_t *b, const char *group, const char *version, const char *kind)
{
    gpa_buf_printf(b,
                   "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"adv\","
                   "\"kind\":{\"group\":\"%s\",\"version\":\"%s\",\"kind\":\"%s\"},\"operation\":\"CREATE\","
                   "\"namespace\":\"d\",\"object\":",
                   group, version, kind);
}

static inline void gpa_adv_review_close(gpa_buf_t *b)
{
    gpa_buf_puts(b, "}}");
}

/* One container asking `resource` for `count` (a quantity text), named c<i>. */
static inline void gpa_adv_container(gpa_buf_t *b, size_t i, const char *resource, const char *count)
{
    gpa_buf_printf(b, "%s{\"name\":\"c%zu\",\"resources\":{\"limits\":{\"%s\":\"%s\"}}}", i > 0 ? "," : "", i, resource, count);
}

/* A Pod spec of `containers` containers of random GPU asks (one to 8 cards, or a huge count when `huge`), pinned
 * by nodeSelector to the hostname n<host> when host >= 0. */
static inline void gpa_adv_pod_spec(gpa_adv_t *g, gpa_buf_t *b, size_t containers, long host, int huge)
{
    gpa_buf_puts(b, "{");
    if (host >= 0)
        gpa_buf_printf(b, "\"nodeSelector\":{\"kubernetes.io/hostname\":\"n%04ld\"},", host);
    gpa_buf_puts(b, "\"containers\":[");
    for (size_t i = 0; i < containers; i++) {
        char count[24];
        snprintf(count, sizeof count, "%llu", huge ? 1ull << 31 : (unsigned long long)(1 + gpa_adv_below(g, 8)));
        gpa_adv_container(b, i, "nvidia.com/gpu", count);
    }
    gpa_buf_puts(b, "]}");
}

/* A Volcano Job of `tasks` tasks, each one Pod template of `containers` containers pinned to its own hostname. */
static inline void gpa_adv_volcano_job(gpa_adv_t *g, gpa_buf_t *b, size_t tasks, size_t containers)
{
    gpa_adv_review_open(b, "batch.volcano.sh", "v1alpha1", "Job");
    gpa_buf_puts(b, "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\","
                    "\"namespace\":\"d\"},\"spec\":{\"tasks\":[");
    for (size_t t = 0; t < tasks; t++) {
        gpa_buf_printf(b, "%s{\"name\":\"t%zu\",\"replicas\":%llu,\"template\":{\"spec\":", t > 0 ? "," : "", t,
                       (unsigned long long)(1 + gpa_adv_below(g, 1000)));
        gpa_adv_pod_spec(g, b, containers, (long)gpa_adv_below(g, 10000), 0);
        gpa_buf_puts(b, "}}");
    }
    gpa_buf_puts(b, "]}}");
    gpa_adv_review_close(b);
}

/* A RayCluster of a head and `groups` worker groups, each on its own hostname, asking `gpus` GPUs a worker. */
static inline void gpa_adv_ray_cluster(gpa_adv_t *g, gpa_buf_t *b, size_t groups, const char *gpus)
{
    gpa_adv_review_open(b, "ray.io", "v1", "RayCluster");
    gpa_buf_puts(b, "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{\"name\":\"r\",\"namespace\":\"d\"},"
                    "\"spec\":{\"headGroupSpec\":{\"rayStartParams\":{},\"template\":{\"spec\":{\"containers\":[{\"name\":"
                    "\"head\"}]}}},\"workerGroupSpecs\":[");
    for (size_t i = 0; i < groups; i++) {
        gpa_buf_printf(b,
                       "%s{\"groupName\":\"g%zu\",\"replicas\":%llu,\"rayStartParams\":{},\"template\":{\"spec\":"
                       "{\"nodeSelector\":{\"kubernetes.io/hostname\":\"n%04llu\"},\"containers\":[",
                       i > 0 ? "," : "", i, (unsigned long long)(1 + gpa_adv_below(g, 100)),
                       (unsigned long long)gpa_adv_below(g, 10000));
        gpa_adv_container(b, 0, "nvidia.com/gpu", gpus);
        gpa_buf_puts(b, "]}}}");
    }
    gpa_buf_puts(b, "]}}");
    gpa_adv_review_close(b);
}

/* A Pod whose annotations hold a nvidia.com/use-gpuuuid list of about `bytes` bytes of random UUIDs, with
 * `containers` HAMi containers (nvidia.com/gpu and gpumem), and deep but legal nesting: `depth` levels of a
 * label-free object under an annotation-free field the engine skips (metadata.labels stay flat). */
static inline void gpa_adv_hami_pod(gpa_adv_t *g, gpa_buf_t *b, size_t bytes, size_t containers, size_t depth)
{
    gpa_adv_review_open(b, "", "v1", "Pod");
    gpa_buf_puts(b, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"d\","
                    "\"annotations\":{\"nvidia.com/use-gpuuuid\":\"");
    for (size_t at = b->len, i = 0; b->len - at < bytes; i++)
        gpa_buf_printf(b, "%sGPU-%08llx-0000-0000-0000-%012llx", i > 0 ? "," : "",
                       (unsigned long long)(gpa_adv_next(g) & 0xffffffffu),
                       (unsigned long long)(gpa_adv_next(g) & 0xffffffffffffull));
    gpa_buf_puts(b, "\"}},\"spec\":{\"containers\":[");
    for (size_t i = 0; i < containers; i++)
        gpa_buf_printf(b,
                       "%s{\"name\":\"c%zu\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"%llu\",\"nvidia.com/gpumem\":"
                       "\"%llu\"}}}",
                       i > 0 ? "," : "", i, (unsigned long long)(1 + gpa_adv_below(g, 8)),
                       (unsigned long long)(256 + gpa_adv_below(g, 4096)));
    gpa_buf_puts(b, "],\"x-nested\":");
    for (size_t i = 0; i < depth; i++)
        gpa_buf_puts(b, "{\"a\":");
    gpa_buf_puts(b, "0");
    for (size_t i = 0; i < depth; i++)
        gpa_buf_puts(b, "}");
    gpa_buf_puts(b, "}}");
    gpa_adv_review_close(b);
}

/* A Pod of `containers` containers each asking nvidia.com/gpu 2^31 and volcano's gpu.shared 2^40. */
static inline void gpa_adv_huge_pod(gpa_buf_t *b, size_t containers)
{
    gpa_adv_review_open(b, "", "v1", "Pod");
    gpa_buf_puts(b, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"},\"spec\":"
                    "{\"containers\":[");
    for (size_t i = 0; i < containers; i++)
        gpa_buf_printf(b,
                       "%s{\"name\":\"c%zu\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"2147483648\","
                       "\"volcano.sh/gpu.shared\":\"1099511627776\"}}}",
                       i > 0 ? "," : "", i);
    gpa_buf_puts(b, "]}}");
    gpa_adv_review_close(b);
}

/* An inventory (JSON Node list text, as gpa_inventory_parse reads it) of `nodes` Nodes n0000.. labelled with their
 * hostname; every `hami_every`-th one (0: none) registers `cards` HAMi cards of `slots` slots each. */
static inline void gpa_adv_nodes(gpa_adv_t *g, gpa_buf_t *b, size_t nodes, size_t hami_every, size_t cards, uint64_t slots)
{
    for (size_t n = 0; n < nodes; n++) {
        gpa_buf_printf(b,
                       "%s{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n%04zu\",\"labels\":"
                       "{\"kubernetes.io/hostname\":\"n%04zu\"}",
                       n > 0 ? "\n---\n" : "", n, n);
        if (hami_every != 0 && n % hami_every == 0) {
            gpa_buf_puts(b, ",\"annotations\":{\"hami.io/node-nvidia-register\":\"[");
            for (size_t c = 0; c < cards; c++)
                gpa_buf_printf(b,
                               "%s{\\\"id\\\":\\\"GPU-%zu-%zu\\\",\\\"count\\\":%llu,\\\"devmem\\\":%llu,\\\"devcore\\\":100,"
                               "\\\"type\\\":\\\"NVIDIA-A100\\\",\\\"mode\\\":\\\"hami-core\\\",\\\"health\\\":true}",
                               c > 0 ? "," : "", n, c, (unsigned long long)slots,
                               (unsigned long long)(16384 + gpa_adv_below(g, 65536)));
            gpa_buf_puts(b, "]\"}");
        }
        gpa_buf_printf(b, "},\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"%llu\"}}}",
                       (unsigned long long)(1 + gpa_adv_below(g, 8)));
    }
}

#endif

/*
 * What the scheduler would write for a placement (annotate.h): the annotation formats are docs/allocator.md's.
 */
#include "alloc/annotate.h"
#include "base/buf.h"
#include "kube/quantity.h"
#include "kube/resource.h"

#include <inttypes.h>
#include <stdlib.h>

typedef GPA_VEC(gpa_pair_t) pair_vec_t;

static void annotate_mgpu(gpa_arena_t *a, const gpa_placement_t *p, pair_vec_t *out)
{
    for (size_t i = 0; i < p->nshares; i++) {
        const gpa_container_t *c = p->shares[i].container;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= p->shares[j].container == c;
        if (seen || c == NULL)
            continue;
        gpa_buf_t b = GPA_BUF_INIT;
        for (size_t j = i; j < p->nshares; j++)
            if (p->shares[j].container == c)
                gpa_buf_printf(&b, "%s%d", b.len > 0 ? "," : "", (int)p->shares[j].minor);
        gpa_pair_t *pair = gpa_vec_push(a, out);
        pair->key = gpa_arena_printf(a, "%s%s", GPA_ANNOTATION_GPU_INDEX_PREFIX, c->name);
        pair->value = gpa_arena_strdup(a, b.base != NULL ? b.base : "");
        gpa_buf_dispose(&b);
    }
}

typedef struct st_minor_sum_t {
    int32_t minor;
    int64_t core, mem, total;
} minor_sum_t;

static int cmp_minor_sum(const void *x, const void *y)
{
    const minor_sum_t *a = x, *b = y;
    return a->minor < b->minor ? -1 : a->minor > b->minor;
}

/* Koordinator's device-allocated: one entry per device, the Pod's shares on it summed. */
static const char *device_allocated(gpa_arena_t *a, const gpa_placement_t *p, const gpa_node_t *node)
{
    minor_sum_t *sums = gpa_arena_calloc(a, p->nshares + 1, sizeof(*sums));
    size_t n = 0;
    for (size_t i = 0; i < p->nshares; i++) {
        size_t j = 0;
        while (j < n && sums[j].minor != p->shares[i].minor)
            j++;
        if (j == n) {
            sums[n++] = (minor_sum_t){.minor = p->shares[i].minor};
            for (size_t d = 0; d < node->ngpus; d++)
                if (node->gpus[d].minor == p->shares[i].minor)
                    sums[j].total = node->gpus[d].memory;
        }
        sums[j].core += p->shares[i].core;
        sums[j].mem = gpa_sat_add_i64(sums[j].mem, p->shares[i].memory_bytes);
    }
    qsort(sums, n, sizeof(*sums), cmp_minor_sum);
    gpa_buf_t b = GPA_BUF_INIT;
    gpa_buf_puts(&b, "{\"gpu\":[");
    for (size_t j = 0; j < n; j++) {
        char mem[32];
        int64_t ratio = sums[j].total > 0 ? gpa_mul_ceil_div_i64(sums[j].mem, 100, sums[j].total) : 100;
        gpa_quantity_format(sums[j].mem, 1, mem);
        gpa_buf_printf(&b,
                       "%s{\"minor\":%d,\"resources\":{\"koordinator.sh/gpu-core\":\"%" PRId64
                       "\",\"koordinator.sh/gpu-memory\":\"%s\",\"koordinator.sh/gpu-memory-ratio\":\"%" PRId64 "\"}}",
                       j > 0 ? "," : "", (int)sums[j].minor, sums[j].core, mem, ratio);
    }
    gpa_buf_puts(&b, "]}");
    const char *s = gpa_arena_strdup(a, b.base);
    gpa_buf_dispose(&b);
    return s;
}

void gpa_annotate_placement(gpa_arena_t *a, const gpa_request_t *req, const gpa_node_t *node, gpa_placement_t *out)
{
    pair_vec_t pairs = {0};
    unsigned d = 0;
    for (size_t k = 0; k < req->napp_groups; k++)
        d |= (unsigned)req->groups[k].dialect;
    if (out->nshares == 0)
        return;
    if (d & GPA_DIALECT_MGPU)
        annotate_mgpu(a, out, &pairs);
    else if ((d & GPA_DIALECT_KOORDINATOR) || node->koordinator) {
        gpa_pair_t *p = gpa_vec_push(a, &pairs);
        p->key = GPA_ANNOTATION_DEVICE_ALLOCATED;
        p->value = device_allocated(a, out, node);
    }
    out->annotations = pairs.items;
    out->nannotations = pairs.len;
}

/*
 * Private to the allocator (alloc.c): why a node does not fit, in words, and how close it came. Each call
 * fills one gpa_node_reason_t: its reason (one line, arena-owned) and its rank (how far the node got: labels
 * < dialect or request < healthy devices < capacity < together) with, within a rank, how near it came.
 */
#ifndef GPA_EXPLAIN_H
#define GPA_EXPLAIN_H

#include <stddef.h>

#include "base/arena.h"
#include "alloc/nodes.h"
#include "alloc/placement.h"
#include "alloc/search.h"

/* Why a node gpa_nodes_check refused is out. */
void gpa_explain_refusal(gpa_arena_t *a, const gpa_request_t *req, const gpa_node_t *node, const gpa_nodes_refusal_t *why,
                         gpa_node_reason_t *r);
/* Among nodes refused by their labels (gpa_nodes_labels), how near the node came (higher = nearer): the ranking of
 * gpa_explain_closest within labels, so that one refused node can speak for all of them. */
int64_t gpa_explain_labels_nearness(const gpa_node_t *node, const gpa_nodes_refusal_t *why);
/* Why group k (an init container's first group) does not fit the node alone; restarts s on the node's devices. */
void gpa_explain_group(gpa_arena_t *a, gpa_search_t *s, const gpa_node_t *node, size_t k, gpa_node_reason_t *r);
/* Why the app shares do not fit the node: the first group that cannot fit alone, else "together"; restarts s. */
void gpa_explain_app(gpa_arena_t *a, gpa_search_t *s, const gpa_node_t *node, gpa_node_reason_t *r);
/*
 * The closest node's reason, "node: reason" (arena-owned): the node that got furthest, then came nearest
 * within its rank, then the lowest name (a node before a template); a template's reads "template T: reason";
 * "the inventory has no GPU nodes" when p has no reason at all.
 */
const char *gpa_explain_closest(gpa_arena_t *a, const gpa_placement_t *p);
/*
 * A Pod no node has room for that a new node of template T would hold (arena-owned): "fits a new node of template
 * T", then the closest node's reason in p when there is one ("fits a new node of template T; a10-0: ..."). The
 * template comes first: a webhook's warnings are cut at 120 bytes, and it is what the Pod's owner needs to read.
 */
const char *gpa_explain_with_template(gpa_arena_t *a, const gpa_placement_t *p, const char *template_name);

#endif

/*
 * The syntax tree gpa_cel_parse builds and gpa_cel_eval walks. Private to rules/cel/.
 *
 * Operators are calls with a fixed op, so the evaluator has one switch; a call the evaluator does not know keeps its
 * name (GPA_CEL_OP_CALL) and evaluates to unknown.
 */
#ifndef GPA_CEL_AST_H
#define GPA_CEL_AST_H

#include "cel/cel.h"

typedef enum en_gpa_cel_node_kind_t {
    GPA_CEL_N_LITERAL, /* value */
    GPA_CEL_N_IDENT,   /* name (a leading '.' is kept in the name) */
    GPA_CEL_N_SELECT,  /* args[0].name; `optional` for .?name; `test` for the has() macro */
    GPA_CEL_N_INDEX,   /* args[0][args[1]]; `optional` for [?e] */
    GPA_CEL_N_CALL,    /* op, name; target (a receiver call) in args[0] when `receiver`; then the arguments */
    GPA_CEL_N_LIST,    /* args: the items */
    GPA_CEL_N_MAP,     /* args: key, value, key, value... */
    GPA_CEL_N_STRUCT,  /* name { field: value }: a message, outside the subset */
} gpa_cel_node_kind_t;

typedef enum en_gpa_cel_op_t {
    GPA_CEL_OP_CALL, /* a named function */
    GPA_CEL_OP_AND,
    GPA_CEL_OP_OR,
    GPA_CEL_OP_NOT,
    GPA_CEL_OP_NEG,
    GPA_CEL_OP_COND,
    GPA_CEL_OP_EQ,
    GPA_CEL_OP_NE,
    GPA_CEL_OP_LT,
    GPA_CEL_OP_LE,
    GPA_CEL_OP_GT,
    GPA_CEL_OP_GE,
    GPA_CEL_OP_IN,
    GPA_CEL_OP_ADD,
    GPA_CEL_OP_SUB,
    GPA_CEL_OP_MUL,
    GPA_CEL_OP_DIV,
    GPA_CEL_OP_MOD,
} gpa_cel_op_t;

struct st_gpa_cel_node_t {
    gpa_cel_node_kind_t kind;
    gpa_cel_op_t op;
    unsigned column; /* 1-based byte offset of the node in its source */
    int receiver, optional, test;
    const char *name; /* IDENT, SELECT, CALL, STRUCT */
    size_t name_len;
    gpa_cel_value_t value; /* LITERAL */
    const gpa_cel_node_t **args;
    size_t nargs;
};

#endif

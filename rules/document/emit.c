/*
 * Emitters for the document tree.
 *
 * JSON: our own writer. Numbers are written verbatim (their literal text), strings through
 * gpa_buf_json_string, so a parsed tree is written back exactly; object members keep their order.
 *
 * YAML: libyaml's emitter, block style, one document without a "---" marker (callers that write several
 * put "---\n" between them). A string that would read back as something else when written plain ("true",
 * "1", "null", "", "0x10", "<<" ...) is double-quoted, so emit -> parse gives the same tree. Strings holding
 * newlines are written as literal blocks where libyaml can. Should libyaml refuse the tree (a hand-made
 * string that is not UTF-8), the document is written as indented JSON instead, which is YAML too.
 */
#include "document/emit.h"

#include "document/yaml.h"

#include <stdint.h>
#include <string.h>
#include <yaml.h>

/* ---- JSON ------------------------------------------------------------------------------------------- */

static void newline_indent(gpa_buf_t *out, int indent, int level)
{
    gpa_buf_putc(out, '\n');
    for (int i = 0; i < indent * level; i++)
        gpa_buf_putc(out, ' ');
}

static void emit_json(gpa_buf_t *out, const gpa_value_t *v, int indent, int level)
{
    if (v == NULL) {
        gpa_buf_append(out, "null", 4);
        return;
    }
    switch (v->type) {
    case GPA_VNULL:
        gpa_buf_append(out, "null", 4);
        return;
    case GPA_VBOOL:
        gpa_buf_puts(out, v->u.boolean ? "true" : "false");
        return;
    case GPA_VNUMBER:
        gpa_buf_append(out, v->u.str.ptr, v->u.str.len);
        return;
    case GPA_VSTRING:
        gpa_buf_json_string(out, v->u.str.ptr, v->u.str.len);
        return;
    case GPA_VARRAY:
        gpa_buf_putc(out, '[');
        for (size_t i = 0; i < v->u.array.len; i++) {
            if (i != 0)
                gpa_buf_putc(out, ',');
            if (indent > 0)
                newline_indent(out, indent, level + 1);
            emit_json(out, v->u.array.items[i], indent, level + 1);
        }
        if (indent > 0 && v->u.array.len != 0)
            newline_indent(out, indent, level);
        gpa_buf_putc(out, ']');
        return;
    case GPA_VOBJECT:
        gpa_buf_putc(out, '{');
        for (size_t i = 0; i < v->u.object.len; i++) {
            const gpa_member_t *m = &v->u.object.members[i];
            if (i != 0)
                gpa_buf_putc(out, ',');
            if (indent > 0)
                newline_indent(out, indent, level + 1);
            gpa_buf_json_string(out, m->key != NULL ? m->key : "", m->key != NULL ? m->key_len : 0);
            gpa_buf_append(out, indent > 0 ? ": " : ":", indent > 0 ? 2 : 1);
            emit_json(out, m->value, indent, level + 1);
        }
        if (indent > 0 && v->u.object.len != 0)
            newline_indent(out, indent, level);
        gpa_buf_putc(out, '}');
        return;
    }
}

void gpa_value_emit_json(gpa_buf_t *out, const gpa_value_t *v, int indent)
{
    emit_json(out, v, indent < 0 ? 0 : indent, 0);
}

/* ---- YAML ------------------------------------------------------------------------------------------- */

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    gpa_buf_append(data, buffer, size);
    return 1;
}

static int emit_scalar(yaml_emitter_t *e, const char *s, size_t n, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)(n ? s : ""), (int)n, 1, 1, style))
        return -1;
    return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

/* A string that must stay a string: quoted when plain would read back as another type. */
static int emit_string(yaml_emitter_t *e, const char *s, size_t n)
{
    if (n > (size_t)INT32_MAX)
        return -1;
    yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
    if (gpa_yaml_plain_type(s, n) != GPA_VSTRING)
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    else if (memchr(s, '\n', n) != NULL)
        style = YAML_LITERAL_SCALAR_STYLE; /* libyaml falls back to quoting where a block cannot hold it */
    return emit_scalar(e, s, n, style);
}

static int emit_yaml(yaml_emitter_t *e, const gpa_value_t *v)
{
    yaml_event_t ev;
    if (v == NULL)
        return emit_scalar(e, "null", 4, YAML_PLAIN_SCALAR_STYLE);
    switch (v->type) {
    case GPA_VNULL:
        return emit_scalar(e, "null", 4, YAML_PLAIN_SCALAR_STYLE);
    case GPA_VBOOL:
        return v->u.boolean ? emit_scalar(e, "true", 4, YAML_PLAIN_SCALAR_STYLE)
                            : emit_scalar(e, "false", 5, YAML_PLAIN_SCALAR_STYLE);
    case GPA_VNUMBER:
        return emit_scalar(e, v->u.str.ptr, v->u.str.len, YAML_PLAIN_SCALAR_STYLE);
    case GPA_VSTRING:
        return emit_string(e, v->u.str.ptr, v->u.str.len);
    case GPA_VARRAY:
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        if (!yaml_emitter_emit(e, &ev))
            return -1;
        for (size_t i = 0; i < v->u.array.len; i++) {
            if (emit_yaml(e, v->u.array.items[i]) != 0)
                return -1;
        }
        yaml_sequence_end_event_initialize(&ev);
        return yaml_emitter_emit(e, &ev) ? 0 : -1;
    case GPA_VOBJECT:
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        if (!yaml_emitter_emit(e, &ev))
            return -1;
        for (size_t i = 0; i < v->u.object.len; i++) {
            const gpa_member_t *m = &v->u.object.members[i];
            if (emit_string(e, m->key != NULL ? m->key : "", m->key != NULL ? m->key_len : 0) != 0 || emit_yaml(e, m->value) != 0)
                return -1;
        }
        yaml_mapping_end_event_initialize(&ev);
        return yaml_emitter_emit(e, &ev) ? 0 : -1;
    }
    return -1;
}

static int emit_document(yaml_emitter_t *e, const gpa_value_t *v)
{
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if (!yaml_emitter_emit(e, &ev))
        return -1;
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    if (!yaml_emitter_emit(e, &ev) || emit_yaml(e, v) != 0)
        return -1;
    yaml_document_end_event_initialize(&ev, 1);
    if (!yaml_emitter_emit(e, &ev))
        return -1;
    yaml_stream_end_event_initialize(&ev);
    return yaml_emitter_emit(e, &ev) && yaml_emitter_flush(e) ? 0 : -1;
}

void gpa_value_emit_yaml(gpa_buf_t *out, const gpa_value_t *v)
{
    size_t start = out->len;
    yaml_emitter_t e;
    if (!yaml_emitter_initialize(&e)) {
        gpa_value_emit_json(out, v, 2);
        gpa_buf_putc(out, '\n');
        return;
    }
    yaml_emitter_set_output(&e, write_handler, out);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_indent(&e, 2);
    yaml_emitter_set_width(&e, -1);
    int r = emit_document(&e, v);
    yaml_emitter_delete(&e);
    if (r != 0) {
        out->len = start;
        if (out->base != NULL)
            out->base[start] = '\0';
        gpa_value_emit_json(out, v, 2);
        gpa_buf_putc(out, '\n');
    }
}

/*
 * A readable rendering of syntax trees: calls as name(args), selections with their field,
 * has() tests as `operand.field~test-only`, comprehensions spelled out. Parser tests compare
 * against it.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

typedef struct buf {
    cel_arena_t *a;
    char *s;
    size_t len, cap;
} buf_t;

static void
put(buf_t *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 64) + n;
        char *bigger = cel_arena_alloc(b->a, cap);
        if (b->len > 0)
            memcpy(bigger, b->s, b->len);
        b->s = bigger, b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void
puts_(buf_t *b, const char *s)
{
    put(b, s, strlen(s));
}

static void
put_quoted(buf_t *b, const char *prefix, const char *s, size_t n)
{
    puts_(b, prefix);
    puts_(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            put(b, esc, 2);
        } else if (c < 0x20 || c == 0x7f || (prefix[0] == 'b' && c >= 0x80)) {
            puts_(b, cel__arena_sprintf(b->a, "\\x%02x", c));
        } else {
            put(b, (const char *)&c, 1);
        }
    }
    puts_(b, "\"");
}

static void
dump_const(buf_t *b, const cel_value_t *v)
{
    switch (v->kind) {
    case CEL_NULL:
        puts_(b, "null");
        break;
    case CEL_BOOL:
        puts_(b, v->v.b ? "true" : "false");
        break;
    case CEL_INT:
        puts_(b, cel__arena_sprintf(b->a, "%lld", (long long)v->v.i));
        break;
    case CEL_UINT:
        puts_(b, cel__arena_sprintf(b->a, "%lluu", (unsigned long long)v->v.u));
        break;
    case CEL_DOUBLE:
        puts_(b, cel__arena_sprintf(b->a, "%.17gd", v->v.d));
        break;
    default:
        put_quoted(b, v->kind == CEL_BYTES ? "b" : "", v->v.str.data, v->v.str.len);
        break;
    }
}

static void dump(buf_t *b, const cel__node_t *n);

static void
dump_list(buf_t *b, cel__node_t **items, const bool *opt, int n)
{
    for (int i = 0; i < n; i++) {
        puts_(b, i ? ", " : "");
        puts_(b, opt != NULL && opt[i] ? "?" : "");
        dump(b, items[i]);
    }
}

static void
dump_entries(buf_t *b, const cel__node_t *n)
{
    for (int i = 0; i < n->u.map.n; i++) {
        puts_(b, i ? ", " : "");
        puts_(b, n->u.map.optional[i] ? "?" : "");
        if (n->kind == CEL__N_STRUCT)
            puts_(b, n->u.map.keys[i]->u.constant.v.str.data);
        else
            dump(b, n->u.map.keys[i]);
        puts_(b, ": ");
        dump(b, n->u.map.vals[i]);
    }
}

static void
dump_comp(buf_t *b, const cel__node_t *n)
{
    puts_(b, "__comprehension__(");
    puts_(b, n->u.comp.iter_var);
    if (n->u.comp.iter_var2 != NULL) {
        puts_(b, ", ");
        puts_(b, n->u.comp.iter_var2);
    }
    puts_(b, ", ");
    dump(b, n->u.comp.range);
    puts_(b, ", ");
    puts_(b, n->u.comp.accu_var);
    const cel__node_t *rest[] = {n->u.comp.init, n->u.comp.cond, n->u.comp.step, n->u.comp.result};
    for (int i = 0; i < 4; i++) {
        puts_(b, ", ");
        dump(b, rest[i]);
    }
    puts_(b, ")");
}

static void
dump(buf_t *b, const cel__node_t *n)
{
    switch (n->kind) {
    case CEL__N_CONST:
        dump_const(b, &n->u.constant);
        break;
    case CEL__N_IDENT:
        puts_(b, n->u.ident.root ? "." : "");
        puts_(b, n->u.ident.name);
        break;
    case CEL__N_SELECT:
        dump(b, n->u.select.operand);
        puts_(b, ".");
        puts_(b, n->u.select.field);
        puts_(b, n->u.select.test_only ? "~test-only" : "");
        break;
    case CEL__N_CALL:
        if (n->u.call.target != NULL) {
            dump(b, n->u.call.target);
            puts_(b, ".");
        }
        puts_(b, n->u.call.name);
        puts_(b, "(");
        dump_list(b, n->u.call.args, NULL, n->u.call.nargs);
        puts_(b, ")");
        break;
    case CEL__N_LIST:
        puts_(b, "[");
        dump_list(b, n->u.list.elems, n->u.list.optional, n->u.list.n);
        puts_(b, "]");
        break;
    case CEL__N_MAP:
    case CEL__N_STRUCT:
        puts_(b, n->kind == CEL__N_STRUCT ? n->u.map.type_name : "");
        puts_(b, "{");
        dump_entries(b, n);
        puts_(b, "}");
        break;
    case CEL__N_COMP:
        dump_comp(b, n);
        break;
    }
}

char *
cel__node_dump(cel_arena_t *a, const cel__node_t *n)
{
    buf_t b = {.a = a};
    puts_(&b, "");
    dump(&b, n);
    return b.s;
}

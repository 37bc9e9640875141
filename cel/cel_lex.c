/*
 * The lexer: turns CEL source text into tokens. String and bytes literals are unescaped here
 * (into the parse arena), so the parser sees their values.
 */
#include "cel.h"

#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

static const char *const reserved_words[] = {
    "as",  "break", "const",   "continue",  "else",   "for", "function", "if",    "import",
    "let", "loop",  "package", "namespace", "return", "var", "void",     "while", NULL,
};

bool
cel__lex_reserved(const char *s, size_t len)
{
    for (int i = 0; reserved_words[i] != NULL; i++) {
        if (strlen(reserved_words[i]) == len && memcmp(reserved_words[i], s, len) == 0)
            return true;
    }
    return false;
}

const char *
cel__tok_name(cel__tok_kind_t k)
{
    static const char *const names[] = {
        [CEL__T_EOF] = "end of input",
        [CEL__T_ERROR] = "error",
        [CEL__T_INT] = "integer",
        [CEL__T_UINT] = "unsigned integer",
        [CEL__T_DOUBLE] = "number",
        [CEL__T_STRING] = "string",
        [CEL__T_BYTES] = "bytes",
        [CEL__T_IDENT] = "identifier",
        [CEL__T_QIDENT] = "quoted identifier",
        [CEL__T_TRUE] = "'true'",
        [CEL__T_FALSE] = "'false'",
        [CEL__T_NULL] = "'null'",
        [CEL__T_IN] = "'in'",
        [CEL__T_LPAREN] = "'('",
        [CEL__T_RPAREN] = "')'",
        [CEL__T_LBRACKET] = "'['",
        [CEL__T_RBRACKET] = "']'",
        [CEL__T_LBRACE] = "'{'",
        [CEL__T_RBRACE] = "'}'",
        [CEL__T_DOT] = "'.'",
        [CEL__T_COMMA] = "','",
        [CEL__T_COLON] = "':'",
        [CEL__T_QUESTION] = "'?'",
        [CEL__T_NOT] = "'!'",
        [CEL__T_MINUS] = "'-'",
        [CEL__T_PLUS] = "'+'",
        [CEL__T_STAR] = "'*'",
        [CEL__T_SLASH] = "'/'",
        [CEL__T_PERCENT] = "'%'",
        [CEL__T_EQ] = "'=='",
        [CEL__T_NE] = "'!='",
        [CEL__T_LT] = "'<'",
        [CEL__T_LE] = "'<='",
        [CEL__T_GT] = "'>'",
        [CEL__T_GE] = "'>='",
        [CEL__T_AND] = "'&&'",
        [CEL__T_OR] = "'||'",
    };
    return names[k];
}

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool
is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void
tok_error(cel__token_t *t, size_t pos, const char *msg)
{
    t->kind = CEL__T_ERROR;
    t->pos = pos;
    t->msg = msg;
}

static void
skip_space(cel__lexer_t *lx)
{
    const char *s = lx->src;
    while (lx->pos < lx->len) {
        char c = s[lx->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '/') {
            while (lx->pos < lx->len && s[lx->pos] != '\n')
                lx->pos++;
        } else {
            break;
        }
    }
}

/* Read `n` hex digits at s[*i]; -1 if fewer are there. */
static long
read_hex(const char *s, size_t len, size_t *i, int n)
{
    long v = 0;
    for (int k = 0; k < n; k++) {
        if (*i >= len || hex_val(s[*i]) < 0)
            return -1;
        v = v * 16 + hex_val(s[(*i)++]);
    }
    return v;
}

/* One escape sequence after the backslash at s[*i - 1]: appends its bytes to out. */
static const char *
unescape_one(const char *s, size_t len, size_t *i, bool bytes, char *out, size_t *o)
{
    static const char simple_from[] = "abfnrtv\\'\"`?";
    static const char simple_to[] = "\a\b\f\n\r\t\v\\'\"`?";
    if (*i >= len)
        return "unterminated escape sequence";
    char c = s[(*i)++];
    const char *p = strchr(simple_from, c);
    if (p != NULL && c != '\0') {
        out[(*o)++] = simple_to[p - simple_from];
        return NULL;
    }
    long v;
    if (c == 'x' || c == 'X') {
        v = read_hex(s, len, i, 2);
    } else if (c == 'u' || c == 'U') {
        if (bytes)
            return "unicode escapes are not allowed in bytes literals";
        v = read_hex(s, len, i, c == 'u' ? 4 : 8);
        if (v >= 0xD800 && v <= 0xDFFF)
            return "surrogate code point in escape sequence";
        if (v > 0x10FFFF)
            return "code point out of range in escape sequence";
    } else if (c >= '0' && c <= '3') {
        v = c - '0';
        for (int k = 0; k < 2; k++) {
            if (*i >= len || s[*i] < '0' || s[*i] > '7')
                return "invalid octal escape sequence";
            v = v * 8 + (s[(*i)++] - '0');
        }
    } else {
        return "invalid escape sequence";
    }
    if (v < 0)
        return "invalid hex escape sequence";
    if (bytes)
        out[(*o)++] = (char)v;
    else
        *o += cel__utf8_encode((uint32_t)v, out + *o);
    return NULL;
}

/* A quoted literal starting at the quote s[pos]; `raw`/`bytes` from its prefix. */
static void
lex_quoted(cel__lexer_t *lx, cel__token_t *t, size_t start, bool raw, bool bytes)
{
    const char *s = lx->src;
    size_t i = lx->pos;
    char q = s[i];
    bool triple = i + 2 < lx->len && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    /* The body never grows when unescaped: every escape is at least as long as its value. */
    char *out = cel_arena_alloc(lx->arena, lx->len - i + 1);
    size_t o = 0;
    for (;;) {
        if (i >= lx->len) {
            tok_error(t, start, "unterminated string literal");
            return;
        }
        char c = s[i];
        if (c == q && (!triple || (i + 2 < lx->len && s[i + 1] == q && s[i + 2] == q))) {
            i += triple ? 3 : 1;
            break;
        }
        if (!triple && (c == '\n' || c == '\r')) {
            tok_error(t, i, "newline in string literal");
            return;
        }
        if (c == '\\' && !raw) {
            size_t at = i++;
            const char *why = unescape_one(s, lx->len, &i, bytes, out, &o);
            if (why != NULL) {
                tok_error(t, at, why);
                return;
            }
            continue;
        }
        out[o++] = c;
        i++;
    }
    if (!bytes && !cel__utf8_valid(out, o)) {
        tok_error(t, start, "invalid UTF-8 in string literal");
        return;
    }
    t->kind = bytes ? CEL__T_BYTES : CEL__T_STRING;
    t->str = out;
    t->len = o;
    lx->pos = i;
}

static void
lex_number(cel__lexer_t *lx, cel__token_t *t)
{
    const char *s = lx->src;
    size_t i = lx->pos, start = lx->pos;
    bool is_double = false;
    if (s[i] == '0' && i + 1 < lx->len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        while (i < lx->len && hex_val(s[i]) >= 0)
            i++;
        if (i == start + 2) {
            tok_error(t, start, "invalid hex literal");
            return;
        }
        t->base = 16;
        t->str = s + start + 2;
        t->len = i - start - 2;
    } else {
        while (i < lx->len && is_digit(s[i]))
            i++;
        if (i + 1 < lx->len && s[i] == '.' && is_digit(s[i + 1])) {
            is_double = true;
            for (i++; i < lx->len && is_digit(s[i]);)
                i++;
        }
        if (i < lx->len && (s[i] == 'e' || s[i] == 'E')) {
            size_t j = i + 1;
            if (j < lx->len && (s[j] == '+' || s[j] == '-'))
                j++;
            if (j < lx->len && is_digit(s[j])) {
                is_double = true;
                for (i = j; i < lx->len && is_digit(s[i]);)
                    i++;
            }
        }
        t->base = 10;
        t->str = s + start;
        t->len = i - start;
    }
    if (is_double) {
        char *text = cel_arena_strndup(lx->arena, s + start, i - start);
        t->kind = CEL__T_DOUBLE;
        t->d = strtod(text, NULL);
    } else if (i < lx->len && (s[i] == 'u' || s[i] == 'U')) {
        t->kind = CEL__T_UINT;
        i++;
    } else {
        t->kind = CEL__T_INT;
    }
    lx->pos = i;
}

/* An identifier, keyword, or a string with an r/b prefix. */
static void
lex_word(cel__lexer_t *lx, cel__token_t *t)
{
    const char *s = lx->src;
    size_t start = lx->pos, i = lx->pos;
    bool raw = false, bytes = false;
    for (int k = 0; k < 2 && i < lx->len; k++, i++) {
        char c = s[i];
        if ((c == 'r' || c == 'R') && !raw)
            raw = true;
        else if ((c == 'b' || c == 'B') && !bytes)
            bytes = true;
        else
            break;
        if (i + 1 < lx->len && (s[i + 1] == '\'' || s[i + 1] == '"')) {
            lx->pos = i + 1;
            lex_quoted(lx, t, start, raw, bytes);
            return;
        }
    }
    i = start;
    while (i < lx->len && (is_ident_start(s[i]) || is_digit(s[i])))
        i++;
    size_t n = i - start;
    t->str = s + start;
    t->len = n;
    lx->pos = i;
    t->kind = CEL__T_IDENT;
    if (n == 4 && memcmp(t->str, "true", 4) == 0)
        t->kind = CEL__T_TRUE;
    else if (n == 5 && memcmp(t->str, "false", 5) == 0)
        t->kind = CEL__T_FALSE;
    else if (n == 4 && memcmp(t->str, "null", 4) == 0)
        t->kind = CEL__T_NULL;
    else if (n == 2 && memcmp(t->str, "in", 2) == 0)
        t->kind = CEL__T_IN;
}

static void
lex_backquoted(cel__lexer_t *lx, cel__token_t *t)
{
    const char *s = lx->src;
    size_t i = lx->pos + 1;
    while (i < lx->len && s[i] != '`') {
        char c = s[i];
        if (!is_ident_start(c) && !is_digit(c) && c != '.' && c != '-' && c != '/' && c != ' ') {
            tok_error(t, i, "invalid character in quoted identifier");
            return;
        }
        i++;
    }
    if (i >= lx->len || i == lx->pos + 1) {
        tok_error(t, lx->pos, "unterminated or empty quoted identifier");
        return;
    }
    t->kind = CEL__T_QIDENT;
    t->str = s + lx->pos + 1;
    t->len = i - lx->pos - 1;
    lx->pos = i + 1;
}

/* Operators and punctuation; two-character ones first. */
static bool
lex_punct(cel__lexer_t *lx, cel__token_t *t)
{
    static const struct {
        const char *text;
        cel__tok_kind_t kind;
    } ops[] = {
        {"==", CEL__T_EQ},      {"!=", CEL__T_NE},    {"<=", CEL__T_LE},
        {">=", CEL__T_GE},      {"&&", CEL__T_AND},   {"||", CEL__T_OR},
        {"(", CEL__T_LPAREN},   {")", CEL__T_RPAREN}, {"[", CEL__T_LBRACKET},
        {"]", CEL__T_RBRACKET}, {"{", CEL__T_LBRACE}, {"}", CEL__T_RBRACE},
        {".", CEL__T_DOT},      {",", CEL__T_COMMA},  {":", CEL__T_COLON},
        {"?", CEL__T_QUESTION}, {"!", CEL__T_NOT},    {"-", CEL__T_MINUS},
        {"+", CEL__T_PLUS},     {"*", CEL__T_STAR},   {"/", CEL__T_SLASH},
        {"%", CEL__T_PERCENT},  {"<", CEL__T_LT},     {">", CEL__T_GT},
    };
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        size_t n = strlen(ops[k].text);
        if (lx->pos + n <= lx->len && memcmp(lx->src + lx->pos, ops[k].text, n) == 0) {
            t->kind = ops[k].kind;
            lx->pos += n;
            return true;
        }
    }
    return false;
}

void
cel__lex_next(cel__lexer_t *lx, cel__token_t *t)
{
    memset(t, 0, sizeof(*t));
    skip_space(lx);
    t->pos = lx->pos;
    if (lx->pos >= lx->len) {
        t->kind = CEL__T_EOF;
    } else {
        char c = lx->src[lx->pos];
        if (is_digit(c) || (c == '.' && lx->pos + 1 < lx->len && is_digit(lx->src[lx->pos + 1])))
            lex_number(lx, t);
        else if (c == '\'' || c == '"')
            lex_quoted(lx, t, lx->pos, false, false);
        else if (is_ident_start(c))
            lex_word(lx, t);
        else if (c == '`')
            lex_backquoted(lx, t);
        else if (!lex_punct(lx, t))
            tok_error(t, lx->pos, "unexpected character");
    }
    t->end = lx->pos;
}

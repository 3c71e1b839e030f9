/* fuzz/mutate_structure.c: libFuzzer's custom mutator for the evidence targets. Byte
 * mutations of a JSON run almost always break its syntax, so they test the parser and
 * little else; half of the mutations here are made on the parsed run instead, of the kinds
 * a hostile pull request would make: summaries scaled against their samples, verdicts
 * flipped against their errors, derived figures and ratios changed, strings replaced by
 * text that would act on a terminal, a markdown page or a gnuplot script, names made long,
 * arrays and implementations multiplied, members deleted or given another type. The
 * other half are libFuzzer's own byte mutations. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* xorshift64*: the mutation is a function of libFuzzer's seed, so a crash reproduces */
static uint64_t g_state;
static uint64_t next(void)
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * 2685821657736338717ULL;
}
static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

/* Every object and array of the document (depth first), to pick one from. */
typedef struct {
    json_t **v;
    size_t n, cap;
} nodes;

static void collect(json_t *x, nodes *ns)
{
    if (!json_is_object(x) && !json_is_array(x)) return;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 256;
        json_t **v = realloc(ns->v, cap * sizeof *v);
        if (!v) return;
        ns->v = v;
        ns->cap = cap;
    }
    ns->v[ns->n++] = x;
    if (json_is_object(x)) {
        const char *k;
        json_t *v;
        json_object_foreach(x, k, v) collect(v, ns);
    } else {
        size_t i;
        json_t *v;
        json_array_foreach(x, i, v) collect(v, ns);
    }
}

static const char *const HOSTILE[] = {
    "a|b", "line\nnext", "`touch /tmp/fuzz_pwned`", "'; system('touch /tmp/fuzz_pwned'); '",
    "\x1b[2J\x1b]0;title\x07", "<script>alert(1)</script>", "](javascript:alert(1))", "# heading",
    ("\xe2\x80\xae" "evil"), /* U+202E, then "evil": one string, split to end the escape */
    "\xff\xfe", "..", "../../etc/passwd", "", "@team", "$x$", "\\", "\"",
    "nvidia-h200", "unknown", "0123456789abcdef0123456789abcdef01234567",
};

static json_t *hostile_string(void)
{
    size_t k = below(sizeof HOSTILE / sizeof HOSTILE[0] + 2);
    if (k < sizeof HOSTILE / sizeof HOSTILE[0]) return json_stringn_nocheck(HOSTILE[k], strlen(HOSTILE[k]));
    size_t len = k == sizeof HOSTILE / sizeof HOSTILE[0] ? 127 : 1500 + below(3000);
    char *s = malloc(len + 1);
    if (!s) return json_string("x");
    for (size_t i = 0; i < len; i++) s[i] = (char)('a' + below(26));
    s[len] = '\0';
    json_t *j = json_string(s);
    free(s);
    return j;
}

static double factor(void)
{
    static const double f[] = { 3.0, 0.5, 1.0001, 0.01, 100.0, -1.0, 0.0, 1e308, 1e-300 };
    return f[below(sizeof f / sizeof f[0])];
}

/* One structural change to x (an object or an array of the run). */
static void mutate_node(json_t *doc, json_t *x)
{
    size_t n = json_is_object(x) ? json_object_size(x) : json_array_size(x);
    if (n == 0) return;
    size_t pick = below(n);
    const char *key = NULL;
    json_t *v = NULL;
    if (json_is_object(x)) {
        void *it = json_object_iter(x);
        for (size_t i = 0; i < pick && it; i++) it = json_object_iter_next(x, it);
        if (!it) return;
        key = json_object_iter_key(it);
        v = json_object_iter_value(it);
    } else {
        v = json_array_get(x, pick);
    }
    json_t *nv = NULL;
    switch (below(8)) {
    case 0:   /* a number scaled, a string replaced, a flag flipped */
        if (json_is_number(v)) nv = json_real(json_number_value(v) * factor());
        else if (json_is_string(v)) nv = hostile_string();
        else if (json_is_boolean(v)) nv = json_boolean(!json_is_true(v));
        break;
    case 1:   /* another type */
        nv = below(2) ? json_null() : json_string("x");
        break;
    case 2:   /* deleted */
        if (key) json_object_del(x, key);
        else json_array_remove(x, pick);
        return;
    case 3:   /* an array multiplied: sizes, sample counts, rows */
        if (json_is_array(v) && json_array_size(v) > 0) {
            size_t times = 2 + below(200);
            json_t *grown = json_array();
            for (size_t t = 0; t < times; t++) json_array_extend(grown, v);
            nv = grown;
        }
        break;
    case 4:   /* every number of an object (a timing mode's summaries) scaled together */
        if (json_is_object(v)) {
            double f = factor();
            const char *k;
            json_t *m;
            json_object_foreach(v, k, m)
                if (json_is_real(m)) json_object_set_new(v, k, json_real(json_number_value(m) * f));
        }
        return;
    case 5:   /* a verdict that says pass */
        if (json_is_object(v) && json_object_get(v, "pass")) json_object_set_new(v, "pass", json_true());
        return;
    case 6: { /* implementations multiplied under long names, each with a row */
        json_t *impls = json_object_get(doc, "implementations"), *rows = json_object_get(doc, "results");
        json_t *im = json_array_get(impls, below(json_array_size(impls)));
        json_t *row = json_array_get(rows, below(json_array_size(rows)));
        size_t times = 1 + below(100);
        for (size_t t = 0; im && row && t < times; t++) {
            char name[160];
            snprintf(name, sizeof name, "%0*zu", 100 + (int)below(28), t);
            json_t *a = json_deep_copy(im), *b = json_deep_copy(row);
            json_object_set_new(a, "name", json_string(name));
            json_object_set_new(b, "impl", json_string(name));
            json_array_append_new(impls, a);
            json_array_append_new(rows, b);
        }
        return;
    }
    default: /* a member copied from elsewhere in the run */
        if (key) nv = hostile_string();
        break;
    }
    if (!nv) return;
    if (key) json_object_set_new(x, key, nv);
    else json_array_set_new(x, pick, nv);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    g_state = 0x9e3779b97f4a7c15ULL ^ seed;
    if (below(2) == 0) return LLVMFuzzerMutate(data, size, max_size);
    json_t *doc = json_loadb((const char *)data, size, 0, NULL);
    if (!doc) return LLVMFuzzerMutate(data, size, max_size);
    for (size_t k = 1 + below(3); k > 0; k--) {
        nodes ns = { 0 };   /* collected again each time: a change may free what was listed */
        collect(doc, &ns);
        if (ns.n) mutate_node(doc, ns.v[below(ns.n)]);
        free(ns.v);
    }
    char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    size_t len = text ? strlen(text) : 0;
    if (!text || len > max_size) {   /* too large for this run's limit: bytes instead */
        free(text);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    memcpy(data, text, len);
    free(text);
    return len;
}

/* gate/code_paths.c: a rung's code paths from its init notes, and one shape per path
 * (code_paths.h). */
#include "gate/code_paths.h"

#include <ctype.h>
#include <string.h>

/* A number attached to one of these names a choice ("bm=128", "pingpong-176", "sm_90a",
 * "libcudnn.so.9"): it is part of the path. */
static int attaches(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '=' || c == '-' || c == '.' || c == '/';
}

void code_path_of_note(const char *note, char *key, size_t len)
{
    if (!len) return;
    size_t o = 0;
    const char *s = note ? note : "";
    for (size_t i = 0; s[i] && o + 1 < len;) {
        if (isdigit((unsigned char)s[i]) && (i == 0 || !attaches(s[i - 1]))) {
            size_t j = i;
            while (isdigit((unsigned char)s[j]) || s[j] == '.') j++;   /* "1.25" and "3." whole */
            if (!attaches(s[j])) {
                key[o++] = '#';
                i = j;
                continue;
            }
        }
        key[o++] = s[i++];
    }
    key[o] = '\0';
}

static const char *side(const code_path_probe *p, int head)
{
    return head ? p->head_key : p->base_key;
}

/* 1 when some probe reached (fixed or chosen) has this side's key */
static int reached(const code_path_probe *p, size_t n, int head, const char *k)
{
    for (size_t i = 0; i < n; i++)
        if ((p[i].fixed || p[i].chosen) && !strcmp(side(&p[i], head), k)) return 1;
    return 0;
}

/* Whether b is the better shape than a to time a path or a move: within the cap beats
 * over it, then the larger within, the smaller over. */
static int better(const code_path_probe *a, const code_path_probe *b, double work_cap)
{
    int in_a = a->work <= work_cap, in_b = b->work <= work_cap;
    return (in_b && !in_a) || (in_a && in_b && b->work > a->work) || (!in_a && !in_b && b->work < a->work);
}

size_t code_paths_choose(code_path_probe *p, size_t n, double work_cap)
{
    size_t added = 0;
    for (size_t i = 0; i < n; i++) p[i].chosen = 0;
    for (int head = 0; head <= 1; head++)
        for (size_t i = 0; i < n; i++) {
            const char *k = side(&p[i], head);
            if (reached(p, n, head, k)) continue;
            /* the largest shape of this path within the cap, else the smallest over it */
            size_t best = n;
            for (size_t j = i; j < n; j++) {
                if (strcmp(side(&p[j], head), k)) continue;
                if (best == n) {
                    best = j;
                    continue;
                }
                if (better(&p[best], &p[j], work_cap)) best = j;
            }
            p[best].chosen = 1;
            added++;
        }
    return added;
}

static int same_move(const code_path_probe *a, const code_path_probe *b)
{
    return !strcmp(a->base_key, b->base_key) && !strcmp(a->head_key, b->head_key);
}

size_t code_paths_choose_moved(code_path_probe *p, size_t n, double work_cap)
{
    size_t marked = 0;
    for (size_t i = 0; i < n; i++) p[i].chosen = 0;
    for (size_t i = 0; i < n; i++) {
        if (!p[i].note_moved) continue;
        size_t j = 0;   /* a move seen before is handled */
        while (j < i && !(p[j].note_moved && same_move(&p[j], &p[i]))) j++;
        if (j < i) continue;
        size_t best = i;
        for (size_t k = i + 1; k < n; k++)
            if (p[k].note_moved && same_move(&p[k], &p[i]) && better(&p[best], &p[k], work_cap)) best = k;
        p[best].chosen = 1;
        marked++;
    }
    return marked;
}

size_t code_paths_distinct(const code_path_probe *p, size_t n, int head, size_t *first, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && strcmp(side(&p[j], head), side(&p[i], head))) j++;
        if (j < i) continue;
        if (m < cap) first[m] = i;
        m++;
    }
    return m;
}

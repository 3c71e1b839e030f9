/* core/text_safe.h: the one rule for text that comes from evidence or a config and is
 * printed (a terminal, a markdown page, the PR comment, a gnuplot script).
 *
 * Two halves. When a file is read, text_check refuses a string that is too long, is not
 * UTF-8, or holds a character that acts on whatever displays it (a control character,
 * an escape sequence's introducer, a bidirectional override); after it, a string printed
 * to a terminal is only text. Where a string is written into a format with its own
 * syntax, text_escape writes it so that the format reads it as text and nothing else:
 * markdown gets every character it gives a meaning as a numeric entity, gnuplot a
 * single-quoted string (the only kind inside which gnuplot substitutes no `command`). */
#ifndef ATTNLADDER_CORE_TEXT_SAFE_H
#define ATTNLADDER_CORE_TEXT_SAFE_H
#include <stddef.h>
#include <stdio.h>

/* Length limits (bytes) of the strings of evidence and config, by what they hold. */
#define TEXT_MAX_LABEL 128    /* a GPU name, a version, a metric name: one table cell */
#define TEXT_MAX_LINE 1024    /* free text: a title, a reason, a kernel's signature */

/* 0 when s has at most max bytes of valid UTF-8 (no overlong form, no surrogate) and no
 * C0 or C1 control character, DEL, line or paragraph separator or bidirectional control;
 * else -1 and `why` says what and at which byte. */
int text_check(const char *s, size_t max, char *why, size_t whylen);

/* 1 when s is not empty and every byte is an ASCII letter or digit or one of `extra`
 * (the allow-list of a field with a known form: a commit, a version, a UUID). */
int text_only(const char *s, const char *extra);

typedef enum {
    TEXT_TERMINAL,   /* what text_check would refuse becomes '?' */
    TEXT_MARKDOWN,   /* and & < > " ' ` \ * [ ] | ~ @ $ # ! as &#NN;, so no table cell,
                        heading, link, emphasis, HTML, mention or math can start; a line's
                        first character also when it could open a block (- + = . digits) */
    TEXT_GNUPLOT,    /* a single-quoted string, quotes included; a ' in it is joined on
                        as "'" ('it'."'".'s'), the one character gnuplot cannot take
                        inside single quotes everywhere */
} text_ctx;

/* s written for ctx into buf: always terminated (when len > 0) and, when cut, cut at a
 * character's boundary with a gnuplot string still closed. Returns the length the whole
 * needs, as snprintf does: a return >= len means it was cut. NULL is written as "". */
size_t text_escape(char *buf, size_t len, const char *s, text_ctx ctx);
/* The same into a stream, never cut; 0 or -1 on a write error. */
int text_put(FILE *f, const char *s, text_ctx ctx);

#endif

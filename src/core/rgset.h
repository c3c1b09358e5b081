/* rgset.h -- a set of NVML read groups (enum gm_read_group, metrics.h):
 * which groups a sample collects.
 *
 * A bitset of GM_RGSET_NBITS bits in as many 64-bit words as that takes, so
 * the number of read groups has no fixed limit: the words grow with
 * GM_RG__COUNT.  It holds read groups only; the NVML source's options that
 * used to share a word with them (GPM priming, NVLink links one by one) are
 * flags of their own (source/nvml.h).  A struct is copied by value, so a set
 * can be returned and assigned like the uint64_t it replaces.
 *
 * GM_RGSET_NBITS defaults to GM_RG__COUNT; a test may define it (larger)
 * before the first include to exercise several words.  The helpers check
 * nothing about indices: an index must be below GM_RGSET_NBITS.
 */
#ifndef GM_CORE_RGSET_H
#define GM_CORE_RGSET_H

#include <stddef.h>
#include <stdint.h>

#ifndef GM_RGSET_NBITS
#include "metrics.h"
#define GM_RGSET_NBITS GM_RG__COUNT
#endif

#define GM_RGSET_WORDS (((GM_RGSET_NBITS) + 63) / 64)

struct gm_rgset {
    uint64_t w[GM_RGSET_WORDS];
};

/* The empty set, as an initializer or a value. */
#define GM_RGSET_EMPTY ((struct gm_rgset){{0}})

/* Adds group g to s. */
static inline void gm_rgset_add(struct gm_rgset *s, unsigned g)
{
    s->w[g / 64] |= UINT64_C(1) << (g % 64);
}

/* Removes group g from s. */
static inline void gm_rgset_del(struct gm_rgset *s, unsigned g)
{
    s->w[g / 64] &= ~(UINT64_C(1) << (g % 64));
}

/* Whether s holds group g. */
static inline int gm_rgset_has(const struct gm_rgset *s, unsigned g)
{
    return (s->w[g / 64] >> (g % 64)) & 1;
}

/* Adds every group of b to a. */
static inline void gm_rgset_union(struct gm_rgset *a, const struct gm_rgset *b)
{
    for (unsigned k = 0; k < GM_RGSET_WORDS; k++)
        a->w[k] |= b->w[k];
}

/* Whether s holds no group. */
static inline int gm_rgset_empty(const struct gm_rgset *s)
{
    for (unsigned k = 0; k < GM_RGSET_WORDS; k++)
        if (s->w[k])
            return 0;
    return 1;
}

/* Whether a and b hold the same groups. */
static inline int gm_rgset_equal(const struct gm_rgset *a, const struct gm_rgset *b)
{
    for (unsigned k = 0; k < GM_RGSET_WORDS; k++)
        if (a->w[k] != b->w[k])
            return 0;
    return 1;
}

/* The set of the n groups g[0 .. n). */
static inline struct gm_rgset gm_rgset_list(const int *g, size_t n)
{
    struct gm_rgset s = GM_RGSET_EMPTY;
    for (size_t k = 0; k < n; k++)
        gm_rgset_add(&s, (unsigned)g[k]);
    return s;
}

/* The set of the groups named: GM_RGSET_OF(GM_RG_NAME, GM_RG_UUID). */
#define GM_RGSET_OF(...)                                                                           \
    gm_rgset_list((const int[]){__VA_ARGS__}, sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

/* Every group 0 .. GM_RGSET_NBITS - 1. */
static inline struct gm_rgset gm_rgset_all(void)
{
    struct gm_rgset s = GM_RGSET_EMPTY;
    for (unsigned g = 0; g < (unsigned)(GM_RGSET_NBITS); g++)
        gm_rgset_add(&s, g);
    return s;
}

/* The smallest group of s that is >= from, or -1 when there is none:
 * for (int g = gm_rgset_next(&s, 0); g >= 0; g = gm_rgset_next(&s, g + 1)). */
static inline int gm_rgset_next(const struct gm_rgset *s, unsigned from)
{
    for (unsigned g = from; g < (unsigned)(GM_RGSET_NBITS); g++)
        if (gm_rgset_has(s, g))
            return (int)g;
    return -1;
}

#endif /* GM_CORE_RGSET_H */

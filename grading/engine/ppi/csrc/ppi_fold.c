/* PPI's session-level fold in C (SPEC S10): an optional compiled twin of
 * grading/engine/ppi/bulk.py (PPIBulkFold.apply_rows), loaded with ctypes by
 * grading/engine/ppi/cbulk.py.
 *
 * C99, libc and libm only. Members are dense integer ids the caller assigns (-1: an unknown
 * player); many sessions go in one call as flat arrays (per session: seq, day, month, two-winner
 * flag, first row, row count; per row: the two members, score (NaN: none), boards (-1: not
 * reported), direction (0 none, 1 NS, 2 EW) and whether the row is the session's host pair).
 * The arithmetic is PPIBulkFold's, operation for operation (same order, so the same rounding;
 * built with -ffp-contract=off so no multiply-add is fused): the figures are bit-equal.
 *
 * Sessions with travellers are rated board by board on the Python side with the member state
 * read here (pf_member) and their changes handed back (pf_record), so one state serves both.
 *
 * Build: cc -O2 -std=c99 -ffp-contract=off -shared -fPIC -o libppi_fold.so ppi_fold.c -lm
 * Every pointer handed in is owned by the caller and only read during the call, except the
 * output buffers of pf_points_take and pf_dump; the fold's own state is freed by pf_free.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PF_ABI 2 /* bumped whenever an entry point changes (checked by the loader) */
#define NEW_PPI 50.0
#define DEFAULT_BOARDS 24 /* boards a pair played when the file does not say (S3.7) */
#define HALVED_BELOW 46.0 /* m halved when a < 46 (S10) */
#define BAD_INPUT -2       /* a member id below -1, a direction code not 0-2, rows out of range */

typedef struct {
    int32_t month, boards;
} MonthBoards;

typedef struct {
    double ppi;
    int64_t boards; /* k before the next event */
    int64_t last_seq;
    int64_t stamp;  /* the event that last gave this member a term */
    MonthBoards *months; /* boards per month, ascending months: grows with the months played */
    int32_t n_months, cap_months;
    int32_t last_day; /* the last event's date (proleptic ordinal) */
    int32_t term;     /* the member's term in the current event (valid when stamp matches) */
    int32_t rated;    /* changed by an event */
} Member;

/* One rated member of the event being folded: partner's PPI, opponents' average, the session
 * percentage and the boards counted (ppi.bulk._session_level), then the change. */
typedef struct {
    int32_t id;
    int64_t n;
    double b, opp, p, delta;
} Term;

typedef struct {
    Member *m;
    int32_t n_members;
    int32_t n_rated;
    int64_t event;
    double harmonic[302]; /* H[x] = sum of 1/i for 30 <= i < x: the boards where m = k */
    Term *terms;
    int32_t cap_terms;
    /* the points of the events since the last pf_points_take */
    int32_t *pt_id, *pt_n, *pt_k;
    int64_t *pt_seq;
    double *pt_ppi;
    int64_t n_points, cap_points;
} Fold;

static int grow(void **p, int64_t need, size_t size) {
    void *q = realloc(*p, (size_t)need * size);
    if (q == NULL) return -1;
    *p = q;
    return 0;
}

static int reserve_members(Fold *f, int32_t id) {
    if (id < f->n_members) return 0;
    int64_t cap = f->n_members ? f->n_members : 1024;
    while (cap <= id) cap *= 2;
    if (grow((void **)&f->m, cap, sizeof(Member))) return -1;
    for (int64_t i = f->n_members; i < cap; i++) {
        Member *m = &f->m[i];
        memset(m, 0, sizeof(Member));
        m->ppi = NEW_PPI;
        m->stamp = -1;
    }
    f->n_members = (int32_t)cap;
    return 0;
}

static int reserve_terms(Fold *f, int64_t need) {
    if (need <= f->cap_terms) return 0;
    int64_t cap = f->cap_terms ? f->cap_terms : 64;
    while (cap < need) cap *= 2;
    if (grow((void **)&f->terms, cap, sizeof(Term))) return -1;
    f->cap_terms = (int32_t)cap;
    return 0;
}

static int reserve_points(Fold *f, int64_t more) {
    int64_t need = f->n_points + more;
    if (need <= f->cap_points) return 0;
    int64_t cap = f->cap_points ? f->cap_points : 4096;
    while (cap < need) cap *= 2;
    if (grow((void **)&f->pt_id, cap, 4) || grow((void **)&f->pt_n, cap, 4) ||
        grow((void **)&f->pt_k, cap, 4) || grow((void **)&f->pt_seq, cap, 8) ||
        grow((void **)&f->pt_ppi, cap, 8))
        return -1;
    f->cap_points = cap;
    return 0;
}

/* ------------------------------------------------------------------ a member's months */

static int64_t boards_in(const Member *m, int32_t month) {
    for (int32_t i = m->n_months - 1; i >= 0 && m->months[i].month >= month; i--)
        if (m->months[i].month == month) return m->months[i].boards;
    return 0;
}

/* w: boards in the previous 3 calendar months (S10), added as _Member.w adds them */
static int64_t member_w(const Member *m, int32_t month) {
    return boards_in(m, month - 3) + boards_in(m, month - 2) + boards_in(m, month - 1);
}

static int months_add(Member *m, int32_t month, int64_t n) {
    int32_t i = m->n_months;
    while (i > 0 && m->months[i - 1].month > month) i--; /* (usually the last month) */
    if (i > 0 && m->months[i - 1].month == month) {
        m->months[i - 1].boards += (int32_t)n;
        return 0;
    }
    if (m->n_months == m->cap_months) {
        int32_t cap = m->cap_months ? 2 * m->cap_months : 8;
        if (grow((void **)&m->months, cap, sizeof(MonthBoards))) return -1;
        m->cap_months = cap;
    }
    memmove(&m->months[i + 1], &m->months[i], (size_t)(m->n_months - i) * sizeof(MonthBoards));
    m->months[i].month = month;
    m->months[i].boards = (int32_t)n;
    m->n_months++;
    return 0;
}

/* ------------------------------------------------------------------ the formulas (S10) */

/* m beyond 300 boards, from w, before halving (ppi_weight(301, w, 50)) */
static double m_from_w(int64_t w) {
    if (w < 150) return 300.0;
    if (w <= 300) return 2.0 * (double)w;
    return 600.0;
}

/* the sum of 1/m over n boards from k, before halving (bulk._inverse_m_sum) */
static double inverse_m_sum(const Fold *f, int64_t k, int64_t n, int64_t w) {
    if (k > 300) return (double)n / m_from_w(w);
    double total = 0.0;
    int64_t low = 30 - k > 0 ? 30 - k : 0;
    if (n < low) low = n;
    if (low) total += (double)low / 30.0;
    int64_t first = k > 30 ? k : 30, last = k + n - 1 < 300 ? k + n - 1 : 300;
    if (last >= first) total += f->harmonic[last + 1] - f->harmonic[first];
    int64_t high = k + n - (k > 301 ? k : 301);
    if (high > 0) total += (double)high / m_from_w(w);
    return total;
}

/* ------------------------------------------------------------------ one event */

static void put_term(Fold *f, int32_t id, int32_t *n_terms, double b, double opp, double p,
                     int64_t n) {
    Member *m = &f->m[id];
    Term *t;
    if (m->stamp == f->event) { /* in two pairs: the last pair's figures (a dict's overwrite) */
        t = &f->terms[m->term];
    } else {
        m->stamp = f->event;
        m->term = *n_terms;
        t = &f->terms[(*n_terms)++];
        t->id = id;
    }
    t->b = b;
    t->opp = opp;
    t->p = p;
    t->n = n;
}

static int by_member(const void *x, const void *y) {
    int32_t a = ((const Term *)x)->id, b = ((const Term *)y)->id;
    return (a > b) - (a < b);
}

/* The event's changes applied in the members' order (PPIBulkFold._record); the terms are
 * sorted in place (no state shared between folds: ctypes calls run without the GIL). */
static int record(Fold *f, int64_t seq, int32_t day, int32_t month, int32_t n_terms) {
    int32_t kept = 0;
    for (int32_t i = 0; i < n_terms; i++)
        if (f->terms[i].n > 0) f->terms[kept++] = f->terms[i];
    qsort(f->terms, (size_t)kept, sizeof(Term), by_member);
    if (reserve_points(f, kept)) return -1;
    for (int32_t j = 0; j < kept; j++) {
        const Term *t = &f->terms[j];
        Member *m = &f->m[t->id];
        m->ppi = m->ppi + t->delta;
        m->boards += t->n;
        if (months_add(m, month, t->n)) return -1;
        m->last_seq = seq;
        m->last_day = day;
        if (!m->rated) {
            m->rated = 1;
            f->n_rated++;
        }
        int64_t at = f->n_points++;
        f->pt_id[at] = t->id;
        f->pt_seq[at] = seq;
        f->pt_ppi[at] = m->ppi;
        f->pt_n[at] = (int32_t)t->n;
        f->pt_k[at] = (int32_t)m->boards;
    }
    return kept;
}

static const int8_t FACING[3] = {0, 2, 1};

/* One session without travellers (PPIBulkFold.apply_rows with _session_level): returns the
 * members it changed, -1 when out of memory, BAD_INPUT for a row it cannot read (before any
 * change). */
static int32_t fold_session(Fold *f, int64_t seq, int32_t day, int32_t month, int two_winner,
                            int64_t first, int32_t count, const int32_t *ra, const int32_t *rb,
                            const double *score, const int32_t *boards, const int8_t *dir,
                            const int8_t *host) {
    int64_t pairs_of[3] = {0, 0, 0}, known[3] = {0, 0, 0};
    double total[3] = {0.0, 0.0, 0.0};
    int8_t seen[3]; /* directions in the order their first known pair came (a dict's) */
    int n_seen = 0;
    int64_t end = first + count;
    for (int64_t r = first; r < end; r++) {
        int32_t hi = ra[r] > rb[r] ? ra[r] : rb[r];
        if (ra[r] < -1 || rb[r] < -1 || dir[r] < 0 || dir[r] > 2) return BAD_INPUT;
        if (hi >= 0 && reserve_members(f, hi)) return -1;
    }
    if (reserve_terms(f, 2 * (int64_t)count)) return -1;
    for (int64_t r = first; r < end; r++) {
        int d = dir[r];
        pairs_of[d]++;
        if (ra[r] >= 0 && rb[r] >= 0) {
            if (known[d]++ == 0) seen[n_seen++] = (int8_t)d;
            total[d] += f->m[ra[r]].ppi + f->m[rb[r]].ppi;
        }
    }
    int64_t everyone = count - 1, others_known = known[0] + known[1] + known[2] - 1;
    double all_total = 0.0;
    for (int i = 0; i < n_seen; i++) all_total += total[seen[i]];
    f->event++;
    int32_t n_terms = 0;
    for (int64_t r = first; r < end; r++) {
        int32_t a = ra[r], b = rb[r];
        if (a < 0 || b < 0 || host[r] || isnan(score[r])) continue;
        double pa = f->m[a].ppi, pb = f->m[b].ppi, opp_sum;
        int64_t opponents, n_known;
        if (two_winner && dir[r] != 0) {
            int facing = FACING[dir[r]];
            opponents = pairs_of[facing];
            n_known = known[facing];
            opp_sum = total[facing];
        } else {
            opponents = everyone;
            n_known = others_known;
            opp_sum = all_total - (pa + pb);
        }
        if (n_known <= 0) continue;
        int64_t reported = boards[r] < 0 ? DEFAULT_BOARDS : boards[r];
        int64_t n = (int64_t)floor((double)(reported * n_known) / (double)opponents + 0.5);
        double opp = opp_sum / (double)(2 * n_known);
        put_term(f, a, &n_terms, pb, opp, score[r], n);
        put_term(f, b, &n_terms, pa, opp, score[r], n);
    }
    for (int32_t i = 0; i < n_terms; i++) {
        Term *t = &f->terms[i];
        if (t->n <= 0) continue;
        const Member *m = &f->m[t->id];
        double a = m->ppi;
        double inverse = inverse_m_sum(f, m->boards, t->n, member_w(m, month));
        if (a < HALVED_BELOW) inverse *= 2.0; /* m halved (S10) */
        t->delta = (t->p - ((a + t->b - t->opp - t->opp) / 2 + 50)) * inverse;
    }
    return record(f, seq, day, month, n_terms);
}

/* ------------------------------------------------------------------ the entry points */

int pf_abi(void) { return PF_ABI; }

void *pf_new(void) {
    Fold *f = calloc(1, sizeof(Fold));
    if (f == NULL) return NULL;
    for (int i = 31; i < 302; i++) f->harmonic[i] = f->harmonic[i - 1] + 1.0 / (i - 1);
    return f;
}

void pf_free(void *p) {
    Fold *f = p;
    if (f == NULL) return;
    for (int32_t i = 0; i < f->n_members; i++) free(f->m[i].months);
    free(f->m);
    free(f->terms);
    free(f->pt_id);
    free(f->pt_n);
    free(f->pt_k);
    free(f->pt_seq);
    free(f->pt_ppi);
    free(f);
}

/* n_sessions sessions without travellers, in processing order; their rows in ra..host
 * (n_rows). Returns the members changed in all, -1 when out of memory, BAD_INPUT (the sessions
 * before the bad one folded). */
int64_t pf_apply(void *p, int32_t n_sessions, const int64_t *seq, const int32_t *day,
                 const int32_t *month, const int8_t *two_winner, const int64_t *first,
                 const int32_t *count, int64_t n_rows, const int32_t *ra, const int32_t *rb,
                 const double *score, const int32_t *boards, const int8_t *dir,
                 const int8_t *host) {
    Fold *f = p;
    int64_t changed = 0;
    for (int32_t s = 0; s < n_sessions; s++) {
        if (first[s] < 0 || count[s] < 0 || first[s] + count[s] > n_rows) return BAD_INPUT;
        int32_t c = fold_session(f, seq[s], day[s], month[s], two_winner[s], first[s], count[s],
                                 ra, rb, score, boards, dir, host);
        if (c < 0) return c;
        changed += c;
    }
    return changed;
}

/* A member's PPI, boards and w for an event in month (a member never changed: 50, 0, 0).
 * Returns whether the member is rated. */
int32_t pf_member(void *p, int32_t id, int32_t month, double *ppi, int64_t *boards,
                  int64_t *w) {
    Fold *f = p;
    if (id < 0 || id >= f->n_members) {
        *ppi = NEW_PPI;
        *boards = *w = 0;
        return 0;
    }
    const Member *m = &f->m[id];
    *ppi = m->ppi;
    *boards = m->boards;
    *w = member_w(m, month);
    return m->rated;
}

/* One event rated on the Python side (board by board): each member's change and boards
 * counted, applied as fold_session applies its own. Returns the members changed, -1 when out
 * of memory. */
int32_t pf_record(void *p, int64_t seq, int32_t day, int32_t month, int32_t n, const int32_t *id,
                  const double *delta, const int32_t *counted) {
    Fold *f = p;
    if (reserve_terms(f, n)) return -1;
    for (int32_t i = 0; i < n; i++) {
        if (reserve_members(f, id[i])) return -1;
        f->terms[i].id = id[i];
        f->terms[i].delta = delta[i];
        f->terms[i].n = counted[i];
    }
    return record(f, seq, day, month, n);
}

int32_t pf_rated(void *p) { return ((Fold *)p)->n_rated; }

int64_t pf_points(void *p) { return ((Fold *)p)->n_points; }

/* The points since the last call (the arrays hold pf_points()), then forgotten. */
void pf_points_take(void *p, int32_t *id, int64_t *seq, double *ppi, int32_t *n, int32_t *k) {
    Fold *f = p;
    size_t count = (size_t)f->n_points;
    memcpy(id, f->pt_id, count * 4);
    memcpy(seq, f->pt_seq, count * 8);
    memcpy(ppi, f->pt_ppi, count * 8);
    memcpy(n, f->pt_n, count * 4);
    memcpy(k, f->pt_k, count * 4);
    f->n_points = 0;
}

/* Month entries of every rated member (the size of pf_dump's months). */
int64_t pf_months(void *p) {
    Fold *f = p;
    int64_t total = 0;
    for (int32_t i = 0; i < f->n_members; i++)
        if (f->m[i].rated) total += f->m[i].n_months;
    return total;
}

/* Each rated member in id order: id, PPI, boards, last event (seq, day), its month count, and
 * its months as (month, boards) pairs one after the other. Returns the members written. */
int32_t pf_dump(void *p, int32_t *id, double *ppi, int64_t *boards, int64_t *last_seq,
                int32_t *last_day, int32_t *n_months, int32_t *months) {
    Fold *f = p;
    int32_t j = 0;
    int64_t at = 0;
    for (int32_t i = 0; i < f->n_members; i++) {
        const Member *m = &f->m[i];
        if (!m->rated) continue;
        id[j] = i;
        ppi[j] = m->ppi;
        boards[j] = m->boards;
        last_seq[j] = m->last_seq;
        last_day[j] = m->last_day;
        n_months[j] = m->n_months;
        for (int32_t q = 0; q < m->n_months; q++) {
            months[at++] = m->months[q].month;
            months[at++] = m->months[q].boards;
        }
        j++;
    }
    return j;
}

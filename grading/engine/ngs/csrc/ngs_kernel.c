/* The NGS ledger fold in C (SPEC S3-S6, S14.3-S14.10): an optional compiled twin of
 * grading/engine/ngs/kernel.py (KernelReplay), loaded with ctypes by
 * grading/engine/ngs/ckernel.py.
 *
 * C99, libc and libm only. The window logic is a line-by-line port of ngs_fast.WindowState
 * (same operations in the same order, so the same rounding); the inline session grading is a
 * port of KernelReplay._graded_inline (MP, Butler, cross-IMP) plus aggregate pairs
 * (ngs_session's _fill_aggregate_means). Sessions of any other kind are graded by the Python
 * side with ngs_session.grade_session, using standings read from this state (ck_player_info,
 * ck_pship_info), and come back as "pre-graded" operations that only add entries.
 *
 * Build: cc -O2 -std=c99 -shared -fPIC -o libngs_kernel.so ngs_kernel.c -lm
 * (-DCK_NO_PREFETCH turns the prefetching off; -DCK_DIST=n sets its distance in operations.)
 * Every pointer handed in is owned by the caller and only read during the call, except the
 * output buffers of Batch; the kernel's own state is freed by ck_free.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CK_ABI 9 /* bumped whenever Batch or an entry point changes (checked by the loader) */
#ifndef CK_DIST
#define CK_DIST 1
#endif

#if defined(__GNUC__) && !defined(CK_NO_PREFETCH)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif
#define REBUILD_EVERY 512
#define MATURE 2
#define EVOLVING 1
#define PROVISIONAL 0
#define OUT_OF_DATE 3

/* one live history entry; aux is the partner id (players) or the career pad (partnerships) */
typedef struct {
    int32_t d, seq, x;
    float f;
    double g;
    double aux;
} Entry;

typedef struct {
    int32_t p, c;
} PCount;

/* Laid out for the cache (issue 31): what every standing and every added entry reads comes
 * first (the prefetching fetches the first three lines of each subject ahead). */
typedef struct {
    Entry *e;
    int32_t n, cap;
    int32_t exists, track;
    int32_t lo, low, lo_d, k, cut0, cs, reach, ops;
    int32_t last_d, last_seq; /* the last entry's date and sequence (E[n-1]) */
    int64_t cfull, tpos, b3;
    double a0, a0g, a1, a1g;
    int64_t total;
    double initial;
    PCount *cnt; /* partner counts over [cut0, n) (players only) */
    int32_t ncnt, capcnt;
    int32_t rlo;
    int64_t rsum;
} Subj;

/* a partnership hash slot: key (a<<32|b) with a<b ids, value the index (-1: empty); key
 * and value side by side, so a probe touches one cache line */
typedef struct {
    uint32_t a, b; /* the key: a < b */
    int32_t val;
} HSlot;

typedef struct {
    int32_t seq, d, live;
    int64_t start; /* into the version pool: graded player ids then partnership ids */
    int32_t np, nq;
} Version;

typedef struct {
    /* parameters */
    int32_t window, years, padding, mature;
    double restart, gain, rpcf;
    int32_t share_num, share_den, default_boards, min_boards; /* min_boards < 0: none */
    double f_butler, f_cross, f_aggregate;
    int32_t known_by_players, known_num, known_den;
    /* players by id, partnerships by index */
    Subj *players;
    int32_t nplayers, capplayers, nplayers_state;
    Subj *pships;
    int32_t npships, cappships;
    int32_t *pa_of, *pb_of; /* partnership ends */
    /* partnership hash: key (a<<32|b) with a<b ids -> index */
    HSlot *hslots;
    int64_t hcap, hused;
    /* versions */
    Version *versions;
    int32_t nversions, capversions;
    int32_t *pool;
    int64_t npool, cappool;
    /* live dates: count by ordinal */
    int32_t *datecnt;
    int32_t capdates;
    int32_t latest; /* -1: none */
    int64_t ndates;
    /* 3-year lower bound cache by ordinal */
    int32_t *lowcache;
    int32_t caplow;
    /* statistics */
    int64_t graded, partnership_graded, sessions;
    /* scratch for one session */
    int32_t *stamp, *slot; /* by player id */
    int32_t capstamp, curstamp;
    /* per-session scratch (standings, rows, graded records, partnership records) */
    void *st, *rows;
    int64_t capst, caprows;
    int32_t *r_me, *r_pa, *r_x, *q_pid, *q_a, *q_b, *q_x;
    double *r_sg, *q_sg, *q_avg;
    int64_t capr, capq;
    /* per pair of the batch: its partnership's index once found (-1: not found yet; an index
     * never changes, so a found one stays right), filled ahead by the prefetching */
    int32_t *pidc;
    int64_t cappidc;
    int32_t err;
} K;

/* ------------------------------------------------------------------ calendar (S14.6) */

static const int DBM[13] = {0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
static const int DIM[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

static int is_leap(int y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

static int32_t ymd2ord(int y, int m, int d) {
    int y1 = y - 1;
    return y1 * 365 + y1 / 4 - y1 / 100 + y1 / 400 + DBM[m] + (m > 2 && is_leap(y)) + d;
}

static void ord2ymd(int32_t ord, int *yy, int *mm, int *dd) {
    int n = ord - 1;
    int n400 = n / 146097;
    n %= 146097;
    int year = n400 * 400 + 1;
    int n100 = n / 36524;
    n %= 36524;
    int n4 = n / 1461;
    n %= 1461;
    int n1 = n / 365;
    n %= 365;
    year += n100 * 100 + n4 * 4 + n1;
    if (n1 == 4 || n100 == 4) {
        *yy = year - 1;
        *mm = 12;
        *dd = 31;
        return;
    }
    int leap = n1 == 3 && (n4 != 24 || n100 == 3);
    int month = (n + 50) >> 5;
    int preceding = DBM[month] + (month > 2 && leap);
    if (preceding > n) {
        month -= 1;
        preceding -= DIM[month] + (month == 2 && leap);
    }
    n -= preceding;
    *yy = year;
    *mm = month;
    *dd = n + 1;
}

static int32_t years_before(int32_t ord, int years) {
    int y, m, d;
    ord2ymd(ord, &y, &m, &d);
    y -= years;
    if (y < 1) return 0;
    if (m == 2 && d == 29 && !is_leap(y)) d = 28;
    return ymd2ord(y, m, d);
}

static int grow(void **p, int64_t *cap, int64_t need, size_t size) {
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 16;
    while (c < need) c += c / 2 + 16;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return -1;
    memset((char *)q + (size_t)(*cap) * size, 0, (size_t)(c - *cap) * size);
    *p = q;
    *cap = c;
    return 0;
}

/* grow() without zeroing the new capacity: for arrays whose every element is written before it
 * is read (the partnerships, the version pool), so that the slack is never touched and costs
 * no resident memory (issue 31: the national fold's peak) */
static int grow_raw(void **p, int64_t *cap, int64_t need, size_t size) {
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 16;
    while (c < need) c += c / 2 + 16;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int grow32(void **p, int32_t *cap, int64_t need, size_t size) {
    int64_t c = *cap;
    int r = grow(p, &c, need, size);
    *cap = (int32_t)c;
    return r;
}

static int32_t low_of(K *k, int32_t ord) {
    if (ord >= k->caplow) {
        if (grow32((void **)&k->lowcache, &k->caplow, (int64_t)ord + 1, sizeof(int32_t))) {
            k->err = 1;
            return years_before(ord, k->years);
        }
    }
    int32_t v = k->lowcache[ord];
    if (v == 0) v = k->lowcache[ord] = years_before(ord, k->years);
    return v;
}

/* ------------------------------------------------------------------ window state */

static void subj_init(Subj *s, double initial, int track) {
    memset(s, 0, sizeof(Subj));
    s->initial = initial;
    s->reach = -1;
    s->lo = -1;
    s->track = track;
    s->exists = 1;
}

static PCount *cnt_find(Subj *s, int32_t p) {
    for (int32_t i = 0; i < s->ncnt; i++)
        if (s->cnt[i].p == p) return &s->cnt[i];
    return NULL;
}

static void cnt_inc(K *k, Subj *s, int32_t p) {
    PCount *c = cnt_find(s, p);
    if (c) {
        c->c++;
        return;
    }
    if (grow32((void **)&s->cnt, &s->capcnt, (int64_t)s->ncnt + 1, sizeof(PCount))) {
        k->err = 1;
        return;
    }
    s->cnt[s->ncnt].p = p;
    s->cnt[s->ncnt].c = 1;
    s->ncnt++;
}

static void cnt_dec(Subj *s, int32_t p) {
    PCount *c = cnt_find(s, p);
    if (!c) return;
    if (--c->c == 0) *c = s->cnt[--s->ncnt];
}

static void trim(K *k, Subj *s) {
    int64_t W = k->window;
    Entry *E = s->e;
    int32_t n = s->n;
    while (s->cfull > W) {
        if (s->track)
            for (int32_t i = s->cut0; i < s->k; i++) cnt_dec(s, (int32_t)E[i].aux);
        int32_t kk = s->k;
        int32_t dk = E[kk].d;
        int32_t k2 = kk;
        double s0 = 0.0, s0g = 0.0;
        int64_t xb = 0;
        while (k2 < n && E[k2].d == dk) {
            double v = (double)E[k2].f * E[k2].x;
            s0 += v;
            s0g += v * E[k2].g;
            xb += E[k2].x;
            k2++;
        }
        double m = (double)(s->tpos - s->cfull) + xb / 2.0;
        s->a0 -= s0;
        s->a0g -= s0g;
        s->a1 -= s0 * m;
        s->a1g -= s0g * m;
        s->cfull -= xb;
        s->k = k2;
        s->cut0 = kk;
    }
    if (s->cfull == W && s->cut0 < s->k) {
        if (s->track)
            for (int32_t i = s->cut0; i < s->k; i++) cnt_dec(s, (int32_t)E[i].aux);
        s->cut0 = s->k;
    }
}

static void reach_from(K *k, Subj *s, int32_t c) {
    Entry *E = s->e;
    int32_t rlo = c;
    int64_t rsum = 0;
    s->reach = -1;
    for (int32_t i = c; i < s->n; i++) {
        rsum += E[i].x;
        int32_t lw = low_of(k, E[i].d);
        while (E[rlo].d <= lw) {
            rsum -= E[rlo].x;
            rlo++;
        }
        if (rsum >= k->padding) {
            s->reach = i;
            break;
        }
    }
    s->rlo = rlo;
    s->rsum = rsum;
}

static void careers_from_scratch(K *k, Subj *s) {
    Entry *E = s->e;
    int32_t cs = 0;
    for (int32_t i = s->n - 1; i > 0; i--) {
        if (E[i - 1].d <= low_of(k, E[i].d)) {
            cs = i;
            break;
        }
    }
    s->cs = cs;
    reach_from(k, s, cs);
}

/* Histories grow by half from 2 entries: most partnerships play a handful of sessions, and a
 * national ledger holds millions of them. */
static int reserve_entries(K *k, Subj *s) {
    if (s->n < s->cap) return 0;
    int64_t c = s->cap < 2 ? 2 : (int64_t)s->cap + s->cap / 2 + 1;
    if (c > INT32_MAX) c = INT32_MAX;
    Entry *e = realloc(s->e, (size_t)c * sizeof(Entry));
    if (!e || c <= s->n) {
        if (e) s->e = e;
        k->err = 1;
        return -1;
    }
    s->e = e;
    s->cap = (int32_t)c;
    return 0;
}

static void subj_insert(K *k, Subj *s, Entry en) {
    if (reserve_entries(k, s)) return;
    Entry *E = s->e;
    int32_t n = s->n;
    /* bisect_right on dates */
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (en.d < E[mid].d)
            hi = mid;
        else
            lo = mid + 1;
    }
    int32_t at = lo;
    while (at > 0 && E[at - 1].d == en.d && E[at - 1].seq > en.seq) at--;
    memmove(&E[at + 1], &E[at], (size_t)(n - at) * sizeof(Entry));
    E[at] = en;
    s->n = n + 1;
    s->last_d = E[n].d;
    s->last_seq = E[n].seq;
    s->total += en.x;
    s->lo = -1;
    if (at <= s->cs)
        careers_from_scratch(k, s);
    else if (s->reach < 0 || s->reach >= at)
        reach_from(k, s, s->cs);
}

static void subj_add(K *k, Subj *s, int32_t seq, int32_t d, int32_t x, double g, float f,
                     double aux) {
    int32_t n = s->n;
    Entry en;
    en.d = d;
    en.seq = seq;
    en.x = x;
    en.f = f;
    en.g = g;
    en.aux = aux;
    if (n && (d < s->last_d || (d == s->last_d && seq < s->last_seq))) {
        subj_insert(k, s, en);
        return;
    }
    if (reserve_entries(k, s)) return;
    Entry *E = s->e;
    int32_t prev_d = s->last_d;
    E[n] = en;
    s->n = n + 1;
    s->last_d = d;
    s->last_seq = seq;
    s->total += x;
    int32_t lowd = low_of(k, d);
    if (n == 0 || prev_d <= lowd) { /* a new career (S14.7) */
        s->cs = n;
        s->reach = -1;
        s->rlo = n;
        s->rsum = 0;
    }
    if (s->reach < 0) {
        int64_t rsum = s->rsum + x;
        int32_t rlo = s->rlo;
        while (E[rlo].d <= lowd) {
            rsum -= E[rlo].x;
            rlo++;
        }
        s->rsum = rsum;
        s->rlo = rlo;
        if (rsum >= k->padding) s->reach = n;
    }
    if (s->lo < 0) return;
    s->ops++;
    if (d <= s->low || s->ops > REBUILD_EVERY) {
        s->lo = -1;
        return;
    }
    if (s->lo == n) s->lo_d = d;
    double fx = (double)f * x;
    double fxg = fx * g;
    if (n && prev_d == d) { /* the latest same-day block grows */
        if (s->k >= n) {
            s->lo = -1;
            return;
        }
        int32_t b = n - 1;
        while (b > s->k && E[b - 1].d == d) b--;
        double s0 = 0.0, s0g = 0.0;
        int64_t xb = 0;
        for (int32_t i = b; i < n; i++) {
            double v = (double)E[i].f * E[i].x;
            s0 += v;
            s0g += v * E[i].g;
            xb += E[i].x;
        }
        double m = (double)s->tpos - xb / 2.0;
        s->a0 -= s0;
        s->a0g -= s0g;
        s->a1 -= s0 * m;
        s->a1g -= s0g * m;
        s0 += fx;
        s0g += fxg;
        s->tpos += x;
        m = (double)s->tpos - (xb + x) / 2.0;
        s->a0 += s0;
        s->a0g += s0g;
        s->a1 += s0 * m;
        s->a1g += s0g * m;
    } else {
        s->tpos += x;
        double m = (double)s->tpos - x / 2.0;
        s->a0 += fx;
        s->a0g += fxg;
        s->a1 += fx * m;
        s->a1g += fxg * m;
    }
    s->cfull += x;
    s->b3 += x;
    if (s->track) cnt_inc(k, s, (int32_t)aux);
    if (s->cfull >= k->window) trim(k, s);
}

static int subj_remove(K *k, Subj *s, int32_t seq) {
    Entry *E = s->e;
    int32_t at;
    for (at = s->n - 1; at >= 0; at--)
        if (E[at].seq == seq) break;
    if (at < 0) return 0;
    s->total -= E[at].x;
    memmove(&E[at], &E[at + 1], (size_t)(s->n - at - 1) * sizeof(Entry));
    s->n--;
    s->lo = -1;
    int32_t n = s->n;
    if (n) {
        s->last_d = E[n - 1].d;
        s->last_seq = E[n - 1].seq;
    }
    if (n == 0) {
        s->cs = 0;
        s->reach = -1;
        s->rlo = 0;
        s->rsum = 0;
    } else if (at < s->cs) {
        s->cs--;
        if (s->reach >= 0)
            s->reach--;
        else
            s->rlo = (s->rlo - 1 > s->cs) ? s->rlo - 1 : s->cs;
    } else if (at == s->cs && at >= n) {
        careers_from_scratch(k, s);
    } else if (at < n && at > s->cs && E[at - 1].d <= low_of(k, E[at].d)) {
        s->cs = at;
        reach_from(k, s, at);
    } else if (s->reach < 0 || s->reach >= at) {
        reach_from(k, s, s->cs);
    }
    return 1;
}

static void rebuild(K *k, Subj *s, int32_t low) {
    Entry *E = s->e;
    int64_t W = k->window;
    int32_t n = s->n;
    int32_t lo = 0, hi = n;
    while (lo < hi) { /* bisect_right(D, low) */
        int32_t mid = (lo + hi) / 2;
        if (low < E[mid].d)
            hi = mid;
        else
            lo = mid + 1;
    }
    int64_t b3 = 0;
    for (int32_t i = lo; i < n; i++) b3 += E[i].x;
    int64_t cfull = 0;
    int32_t j = n, cut0 = -1;
    while (j > lo) {
        int32_t i = j - 1;
        int32_t dj = E[i].d;
        int64_t xb = E[i].x;
        while (i > lo && E[i - 1].d == dj) {
            i--;
            xb += E[i].x;
        }
        if (cfull + xb <= W) {
            cfull += xb;
            j = i;
            continue;
        }
        if (cfull < W) cut0 = i;
        break;
    }
    int32_t kk = j;
    if (cut0 < 0) cut0 = kk;
    double a0 = 0.0, a0g = 0.0, a1 = 0.0, a1g = 0.0;
    int64_t tpos = 0;
    int32_t i = kk;
    while (i < n) {
        int32_t di = E[i].d;
        double s0 = 0.0, s0g = 0.0;
        int64_t xb = 0;
        while (i < n && E[i].d == di) {
            double v = (double)E[i].f * E[i].x;
            s0 += v;
            s0g += v * E[i].g;
            xb += E[i].x;
            i++;
        }
        tpos += xb;
        double m = (double)tpos - xb / 2.0;
        a0 += s0;
        a0g += s0g;
        a1 += s0 * m;
        a1g += s0g * m;
    }
    s->lo = lo;
    s->lo_d = lo < n ? E[lo].d : INT32_MAX;
    s->low = low;
    s->k = kk;
    s->cut0 = cut0;
    s->cfull = cfull;
    s->tpos = tpos;
    s->a0 = a0;
    s->a0g = a0g;
    s->a1 = a1;
    s->a1g = a1g;
    s->b3 = b3;
    s->ops = 0;
    if (s->track) {
        s->ncnt = 0;
        for (int32_t q = cut0; q < n; q++) cnt_inc(k, s, (int32_t)E[q].aux);
    }
}

static void expire(K *k, Subj *s, int32_t low) {
    (void)k;
    Entry *E = s->e;
    int32_t n = s->n;
    int32_t lo = s->lo;
    while (lo < n && E[lo].d <= low) {
        if (lo < s->cut0) {
            s->b3 -= E[lo].x;
            lo++;
        } else if (lo < s->k) {
            for (int32_t i = lo; i < s->k; i++) {
                s->b3 -= E[i].x;
                if (s->track) cnt_dec(s, (int32_t)E[i].aux);
            }
            lo = s->cut0 = s->k;
        } else {
            int32_t kk = s->k;
            int32_t dk = E[kk].d;
            double s0 = 0.0, s0g = 0.0;
            int64_t xb = 0;
            while (kk < n && E[kk].d == dk) {
                double v = (double)E[kk].f * E[kk].x;
                s0 += v;
                s0g += v * E[kk].g;
                xb += E[kk].x;
                if (s->track) cnt_dec(s, (int32_t)E[kk].aux);
                kk++;
            }
            double m = (double)(s->tpos - s->cfull) + xb / 2.0;
            s->a0 -= s0;
            s->a0g -= s0g;
            s->a1 -= s0 * m;
            s->a1g -= s0g * m;
            s->cfull -= xb;
            s->b3 -= xb;
            lo = s->k = s->cut0 = kk;
        }
    }
    s->lo = lo;
    s->lo_d = lo < n ? E[lo].d : INT32_MAX;
    s->low = low;
}

/* (grade, status code, boards in 3 years, padding) on as_of (>= the latest entry) */
static double subj_current(K *k, Subj *s, int32_t as_of, double restart, int32_t *code,
                           int64_t *boards, int64_t *padding) {
    int32_t n = s->n;
    if (n == 0) {
        *code = PROVISIONAL;
        *boards = 0;
        *padding = k->padding;
        return s->initial;
    }
    int32_t low = low_of(k, as_of);
    /* as ngs_fast.WindowState._at; entries before lo are all dated <= s->low, so the
     * entry before lo can only be later than low when low went back */
    if (s->lo < 0)
        rebuild(k, s, low);
    else if (low < s->low) {
        if (s->lo > 0 && s->e[s->lo - 1].d > low) rebuild(k, s, low);
    } else if (low > s->low && s->lo_d <= low)
        expire(k, s, low);
    else if (low > s->low)
        s->low = low; /* nothing leaves the window */
    int reached = s->reach >= 0;
    if (s->lo >= n) {
        *code = reached ? OUT_OF_DATE : PROVISIONAL;
        *boards = 0;
        *padding = k->padding;
        return isnan(restart) ? k->restart : restart;
    }
    int64_t W = k->window;
    int64_t h = W - s->tpos;
    double num = (double)h * s->a0g + s->a1g;
    double den = (double)h * s->a0 + s->a1;
    int32_t cut0 = s->cut0, kk = s->k;
    Entry *E = s->e;
    if (cut0 < kk) {
        int64_t xb = 0;
        for (int32_t i = cut0; i < kk; i++) xb += E[i].x;
        int64_t kept = W - s->cfull;
        double height = (double)(W - s->cfull) - kept / 2.0;
        for (int32_t i = cut0; i < kk; i++) {
            double w = (double)E[i].f * ((double)(E[i].x * kept) / (double)xb) * height;
            num += w * E[i].g;
            den += w;
        }
    }
    int64_t b3 = s->b3;
    if (reached) {
        if (b3 >= k->mature)
            *code = MATURE;
        else if (b3 >= k->padding)
            *code = EVOLVING;
        else
            *code = OUT_OF_DATE;
        *boards = b3;
        *padding = 0;
        return num / den;
    }
    int64_t pad_boards = k->padding - b3;
    int64_t before = b3 < W ? b3 : W;
    double w = (double)pad_boards * ((double)(W - before) - pad_boards / 2.0);
    double pad;
    if (s->cs == 0)
        pad = s->initial;
    else {
        double p = s->track ? NAN : E[s->cs].aux;
        pad = isnan(p) ? k->restart : p;
    }
    num += w * pad;
    den += w;
    *code = PROVISIONAL;
    *boards = b3;
    *padding = pad_boards;
    return num / den;
}

static int subj_regular_with(K *k, Subj *s, int32_t partner) {
    if (!s->track || partner < 0 || !(s->lo >= 0 && s->lo < s->n)) return 0;
    PCount *c = cnt_find(s, partner);
    int64_t cc = c ? c->c : 0;
    return cc * k->share_den > (int64_t)k->share_num * (s->n - s->cut0);
}

static int32_t subj_regular_partner(K *k, Subj *s) {
    if (!s->track || !(s->lo >= 0 && s->lo < s->n)) return -1;
    int64_t sessions = s->n - s->cut0;
    for (int32_t i = 0; i < s->ncnt; i++)
        if (s->cnt[i].p >= 0 && (int64_t)s->cnt[i].c * k->share_den > k->share_num * sessions)
            return s->cnt[i].p;
    return -1;
}

/* ------------------------------------------------------------------ kernel state */

static uint64_t hmix(uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return key;
}

static int32_t pship_find(K *k, int32_t a, int32_t b) {
    if (!k->hcap) return -1;
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    uint64_t key = ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
    int64_t mask = k->hcap - 1;
    int64_t i = (int64_t)(hmix(key) & (uint64_t)mask);
    const HSlot *h = k->hslots;
    while (h[i].val >= 0) {
        if (h[i].a == (uint32_t)a && h[i].b == (uint32_t)b) return h[i].val;
        i = (i + 1) & mask;
    }
    return -1;
}

static int hash_put(K *k, uint64_t key, int32_t v) {
    if ((k->hused + 1) * 2 > k->hcap) {
        int64_t ncap = k->hcap ? k->hcap * 2 : 1024;
        HSlot *nh = malloc((size_t)ncap * sizeof(HSlot));
        if (!nh) return -1;
        for (int64_t i = 0; i < ncap; i++) nh[i].val = -1, nh[i].a = nh[i].b = 0;
        for (int64_t i = 0; i < k->hcap; i++) {
            if (k->hslots[i].val < 0) continue;
            uint64_t hk = ((uint64_t)k->hslots[i].a << 32) | k->hslots[i].b;
            int64_t j = (int64_t)(hmix(hk) & (uint64_t)(ncap - 1));
            while (nh[j].val >= 0) j = (j + 1) & (ncap - 1);
            nh[j] = k->hslots[i];
        }
        free(k->hslots);
        k->hslots = nh;
        k->hcap = ncap;
    }
    int64_t mask = k->hcap - 1;
    int64_t i = (int64_t)(hmix(key) & (uint64_t)mask);
    while (k->hslots[i].val >= 0) i = (i + 1) & mask;
    k->hslots[i].a = (uint32_t)(key >> 32);
    k->hslots[i].b = (uint32_t)key;
    k->hslots[i].val = v;
    k->hused++;
    return 0;
}

static int32_t pship_create(K *k, int32_t a, int32_t b, double initial) {
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    int32_t cap = k->cappships;
    int64_t c64 = cap;
    if (grow_raw((void **)&k->pships, &c64, (int64_t)k->npships + 1, sizeof(Subj))) {
        k->err = 1;
        return -1;
    }
    k->cappships = (int32_t)c64;
    if (k->cappships != cap) { /* the ends arrays follow the capacity */
        int32_t *na = realloc(k->pa_of, (size_t)k->cappships * sizeof(int32_t));
        if (na) k->pa_of = na;
        int32_t *nb = realloc(k->pb_of, (size_t)k->cappships * sizeof(int32_t));
        if (nb) k->pb_of = nb;
        if (!na || !nb) {
            k->err = 1;
            return -1;
        }
    }
    int32_t idx = k->npships++;
    subj_init(&k->pships[idx], initial, 0);
    k->pa_of[idx] = a;
    k->pb_of[idx] = b;
    uint64_t key = ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
    if (hash_put(k, key, idx)) k->err = 1;
    return idx;
}

static int reserve_players(K *k, int32_t n) {
    if (n <= k->nplayers) return 0;
    if (grow32((void **)&k->players, &k->capplayers, n, sizeof(Subj))) return -1;
    if (grow32((void **)&k->stamp, &k->capstamp, n, sizeof(int32_t))) return -1;
    int32_t cs = k->capstamp;
    int32_t *ns = realloc(k->slot, (size_t)cs * sizeof(int32_t));
    if (!ns) return -1;
    k->slot = ns;
    k->nplayers = n;
    return 0;
}

static void date_added(K *k, int32_t d) {
    if (d >= k->capdates &&
        grow32((void **)&k->datecnt, &k->capdates, (int64_t)d + 1, sizeof(int32_t))) {
        k->err = 1;
        return;
    }
    k->datecnt[d]++;
    k->ndates++;
    if (k->latest < 0 || d > k->latest) k->latest = d;
}

static void date_removed(K *k, int32_t d) {
    k->datecnt[d]--;
    k->ndates--;
    if (k->datecnt[d] == 0 && d == k->latest) {
        if (k->ndates == 0) {
            k->latest = -1;
        } else {
            int32_t x = d - 1;
            while (x > 0 && k->datecnt[x] == 0) x--;
            k->latest = x;
        }
    }
}

/* ------------------------------------------------------------------ a batch of operations */

typedef struct {
    int32_t n_ops;
    /* per operation */
    const int32_t *kind; /* 0 inline process, 1 withdraw, 2 pre-graded process */
    const int32_t *seq, *vidx, *date, *scoring; /* scoring: 0 MP, 1 Butler, 2 cross-IMP, 3 agg */
    const double *first, *factor;
    const int32_t *pstart, *npairs; /* into the pair arrays */
    const int32_t *rstart, *nrec;   /* pre-graded: into the record arrays */
    const int32_t *qstart, *nq;     /* pre-graded: into the partnership record arrays */
    /* per pair */
    const int32_t *pab;    /* the two players' ids of each pair, interleaved (-1: unknown) */
    const int32_t *boards; /* <= 0: not reported (default_boards, S3.7) */
    const double *score;             /* NaN: no score */
    const double *dmean;             /* aggregate direction mean, NaN: none (may be NULL) */
    const int8_t *flags;             /* group (0 field, 1 NS, 2 EW) | 4 host */
    /* pre-graded records */
    const int32_t *r_me, *r_partner, *r_x;
    const double *r_sg;
    const int32_t *q_a, *q_b, *q_x;
    const double *q_sg, *q_avg;
    int32_t n_ids; /* player ids in use */
    /* outputs */
    double *out_sg; /* graded player-session grades in order (may be NULL) */
    int64_t n_out;
    int32_t *out_ref; /* reference date of each op (may be NULL) */
    /* record mode (may be NULL): player records and partnership session grades */
    int32_t *rec_id;
    double *rec_val; /* REC_VALUES per record: grade_before, sopp, excess, sg, adjustment,
                        score term, par, partner's grade (NaN: None) */
    int64_t n_rec;
    int32_t *ps_id;
    double *ps_sg;
    int64_t n_ps;
    /* write mode (may be NULL; needs rec_id): what a refold stores (cfold.WritingReplay,
     * grading/engine/ngs/foldout.py). Per record: REC_FIGURES floats in foldout.RECORD_FIGURES
     * order, the partner's id (-1 none), the pair's index in its session, the boards counted,
     * whether the file gave them, the reason code (foldout.REASONS); per pair of the batch's
     * pair columns: the PAIR_FIGURES, known and host flags; per operation: the SoF. */
    double *rec_fig;
    int32_t *rec_partner, *rec_pair, *rec_boards;
    int8_t *rec_reported, *rec_reason;
    double *pair_fig;
    int8_t *pair_known, *pair_host;
    double *out_sof;
} Batch;

typedef struct {
    double g;
    int32_t code;
    int64_t total;
    Subj *ws;
} Standing;

typedef struct {
    int32_t group, x, ia, ib, host, has_term;
    double term, ga, gb, own, mean; /* mean: aggregate with a score, else NaN */
} Row;

#define REC_VALUES 8
#define REC_FIGURES 10 /* foldout.RECORD_FIGURES */
#define PAIR_FIGURES 4 /* foldout.PAIR_FIGURES */

/* The result that gives zero excess, in the session's units (S3.5); NaN: none (no SOpp, or an
 * aggregate pair without a score). A known pair's own value is (ga + gb) / 2. */
static double pair_par(const K *k, int32_t kind, const Row *row, double sopp, int has_sopp) {
    if (!has_sopp) return NAN;
    double edge = (row->own + row->own) / 2 - sopp;
    if (kind == 0) return 50.0 + edge;
    if (kind == 1) return row->x * edge / k->f_butler;
    if (kind == 2) return row->x * edge / k->f_cross;
    if (isnan(row->mean)) return NAN;
    return row->mean + k->f_aggregate * row->x * edge;
}


/* foldout.REASONS */
#define R_GRADED 0
#define R_PARTNER_UNKNOWN 1
#define R_HOST 2
#define R_NO_OPPONENTS 3
#define R_NO_SCORE 4
#define R_PARTNER_NEW 5

/* One member record of an inline session: the old record values (rec_val) and/or the write
 * mode's (rec_fig...); grade_after is filled once the session is added (NaN here). */
static void put_record(Batch *b, int32_t me, int32_t partner, int32_t pair, const Row *row,
                       int reported, int reason, double factor, const double *v8) {
    int64_t j = b->n_rec++;
    b->rec_id[j] = me;
    if (b->rec_val) memcpy(&b->rec_val[REC_VALUES * j], v8, REC_VALUES * sizeof(double));
    if (!b->rec_fig) return;
    double *f = &b->rec_fig[REC_FIGURES * j];
    /* RECORD_FIGURES: grade_before, partner_grade, sopp, score_term, excess,
     * regular_adjustment, par, session_grade, grade_after, factor; v8: grade before, SOpp,
     * excess, session grade, adjustment, score term, par, partner's grade */
    f[0] = v8[0];
    f[1] = v8[7];
    f[2] = v8[1];
    f[3] = v8[5];
    f[4] = v8[2];
    f[5] = v8[4];
    f[6] = v8[6];
    f[7] = v8[3];
    f[8] = NAN;
    f[9] = factor;
    b->rec_partner[j] = partner;
    b->rec_pair[j] = pair;
    b->rec_boards[j] = row->x;
    b->rec_reported[j] = (int8_t)reported;
    b->rec_reason[j] = (int8_t)reason;
}

static int version_begin(K *k, int32_t vidx, int32_t seq, int32_t d) {
    if (vidx >= k->capversions &&
        grow32((void **)&k->versions, &k->capversions, (int64_t)vidx + 1, sizeof(Version)))
        return -1;
    if (vidx >= k->nversions) k->nversions = vidx + 1;
    Version *v = &k->versions[vidx];
    v->seq = seq;
    v->d = d;
    v->live = 1;
    v->start = k->npool;
    v->np = v->nq = 0;
    return 0;
}

static void pool_push(K *k, int32_t x) {
    if (k->npool >= k->cappool &&
        grow_raw((void **)&k->pool, &k->cappool, k->npool + 1, sizeof(int32_t))) {
        k->err = 1;
        return;
    }
    k->pool[k->npool++] = x;
}

static void create_known(K *k, const Batch *b, int32_t o, double first) {
    int32_t p0 = b->pstart[o], np = b->npairs[o];
    for (int32_t i = p0; i < p0 + np; i++) {
        int32_t ia = b->pab[2 * i], ib = b->pab[2 * i + 1];
        if (ia < 0 || ib < 0) continue;
        if (!k->players[ia].exists) subj_init(&k->players[ia], first, 1), k->nplayers_state++;
        if (!k->players[ib].exists) subj_init(&k->players[ib], first, 1), k->nplayers_state++;
    }
}

static void process_inline(K *k, Batch *b, int32_t o, int32_t ref) {
    int32_t p0 = b->pstart[o], np = b->npairs[o];
    int32_t kind = b->scoring[o];
    int32_t d = b->date[o], seq = b->seq[o];
    double first = b->first[o];
    float factor = (float)b->factor[o];
    if (grow(&k->st, &k->capst, 2 * (int64_t)np + 2, sizeof(Standing)) ||
        grow(&k->rows, &k->caprows, (int64_t)np + 1, sizeof(Row))) {
        k->err = 1;
        return;
    }
    Standing *g_st = k->st;
    int32_t nst = 0;
    k->curstamp++;
    if (k->curstamp == INT32_MAX) {
        memset(k->stamp, 0, (size_t)k->capstamp * sizeof(int32_t));
        k->curstamp = 1;
    }
    int32_t stamp = k->curstamp;
    /* aggregate: the comparison groups' mean scores (S3.3, S14.12) */
    double agg_sum[3] = {0.0, 0.0, 0.0};
    int32_t agg_n[3] = {0, 0, 0};
    if (kind == 3) {
        for (int32_t i = p0; i < p0 + np; i++) {
            double sc = b->score[i];
            if (isnan(sc)) continue;
            int grp = b->flags[i] & 3;
            agg_sum[grp] += sc;
            agg_n[grp]++;
        }
    }
    /* group sums in first-appearance order, as the Python dicts */
    double known_sum[3] = {0.0, 0.0, 0.0}, unknown_sum[3] = {0.0, 0.0, 0.0};
    int32_t known_n[3] = {0, 0, 0};
    int32_t korder[3], nk = 0, uorder[3], nu = 0, kseen[3] = {0, 0, 0}, useen[3] = {0, 0, 0};
    Row *rows = k->rows;
    for (int32_t r = 0; r < np; r++) {
        int32_t i = p0 + r;
        int32_t na = b->pab[2 * i], nb = b->pab[2 * i + 1];
        int32_t ids[2] = {na, nb};
        for (int q = 0; q < 2; q++) {
            int32_t num = ids[q];
            if (num < 0 || k->stamp[num] == stamp) continue;
            k->stamp[num] = stamp;
            k->slot[num] = nst;
            Standing *s = &g_st[nst++];
            Subj *ws = &k->players[num];
            if (!ws->exists) {
                s->g = first;
                s->code = 0;
                s->total = 0;
                s->ws = NULL;
            } else {
                int64_t bb, pp;
                s->g = subj_current(k, ws, ref, NAN, &s->code, &bb, &pp);
                s->total = ws->total;
                s->ws = ws;
            }
        }
        int32_t bo = b->boards[i];
        int32_t x = bo > 0 ? bo : k->default_boards;
        double score = b->score[i];
        Row *row = &rows[r];
        row->x = x;
        row->ia = na;
        row->ib = nb;
        row->host = (b->flags[i] & 4) != 0;
        int32_t grp = b->flags[i] & 3;
        row->group = grp;
        row->mean = NAN;
        if (isnan(score)) {
            row->has_term = 0;
            row->term = 0.0;
        } else {
            row->has_term = 1;
            if (kind == 0)
                row->term = score - 50.0;
            else if (kind == 1)
                row->term = k->f_butler * score / x;
            else if (kind == 2)
                row->term = k->f_cross * score / x;
            else {
                double mean = (b->dmean && !isnan(b->dmean[i])) ? b->dmean[i]
                                                                 : agg_sum[grp] / agg_n[grp];
                row->term = (score - mean) / (k->f_aggregate * x);
                row->mean = mean;
            }
        }
        if (na >= 0 && nb >= 0) {
            double ga = g_st[k->slot[na]].g, gb = g_st[k->slot[nb]].g;
            if (!kseen[grp]) kseen[grp] = 1, korder[nk++] = grp;
            known_sum[grp] = known_sum[grp] + (ga + gb);
            known_n[grp] += 2;
            row->ga = ga;
            row->gb = gb;
            row->own = (ga + gb) / 2;
        } else {
            if (!useen[grp]) useen[grp] = 1, uorder[nu++] = grp;
            unknown_sum[grp] = unknown_sum[grp] + 2 * (row->has_term ? row->term : 0.0);
            row->ga = row->gb = NAN;
            row->own = 0.0;
        }
    }
    if (nu) { /* unknown players' h_u (S3.8) */
        int32_t total_known = 0;
        double ks = 0.0, us = 0.0;
        for (int q = 0; q < nk; q++) total_known += known_n[korder[q]];
        for (int q = 0; q < nk; q++) ks += known_sum[korder[q]];
        for (int q = 0; q < nu; q++) us += unknown_sum[uorder[q]];
        double field_sof = (ks + us) / total_known;
        for (int32_t r = 0; r < np; r++) {
            Row *row = &rows[r];
            if (row->ia >= 0 && row->ib >= 0) continue;
            int32_t grp = row->group;
            int32_t m = known_n[grp];
            double sof = m ? (known_sum[grp] + unknown_sum[grp]) / m : field_sof;
            row->own = (row->has_term ? row->term : 0.0) + sof;
        }
    }
    double totals[3] = {0.0, 0.0, 0.0};
    int32_t counts[3] = {0, 0, 0};
    for (int32_t r = 0; r < np; r++) {
        totals[rows[r].group] += rows[r].own;
        counts[rows[r].group]++;
    }
    /* records, then partnerships (S3.4, S6) */
    int32_t nrecs = 0;
    int64_t rec0 = b->n_rec;
    if (b->out_sof) { /* the SoF: the average of every pair's value (S3.8) */
        double all = 0.0;
        for (int32_t r = 0; r < np; r++) all += rows[r].own;
        b->out_sof[o] = all / np;
    }
    if (2 * (int64_t)np > k->capr) {
        int64_t c = 2 * (int64_t)np + 64;
        int32_t *a1 = realloc(k->r_me, (size_t)c * sizeof(int32_t));
        if (a1) k->r_me = a1;
        int32_t *a2 = realloc(k->r_pa, (size_t)c * sizeof(int32_t));
        if (a2) k->r_pa = a2;
        int32_t *a3 = realloc(k->r_x, (size_t)c * sizeof(int32_t));
        if (a3) k->r_x = a3;
        double *a4 = realloc(k->r_sg, (size_t)c * sizeof(double));
        if (a4) k->r_sg = a4;
        if (!a1 || !a2 || !a3 || !a4) {
            k->err = 1;
            return;
        }
        k->capr = c;
    }
    if ((int64_t)np > k->capq) {
        int64_t c = (int64_t)np + 32;
        int32_t *a1 = realloc(k->q_pid, (size_t)c * sizeof(int32_t));
        if (a1) k->q_pid = a1;
        int32_t *a2 = realloc(k->q_a, (size_t)c * sizeof(int32_t));
        if (a2) k->q_a = a2;
        int32_t *a3 = realloc(k->q_b, (size_t)c * sizeof(int32_t));
        if (a3) k->q_b = a3;
        int32_t *a4 = realloc(k->q_x, (size_t)c * sizeof(int32_t));
        if (a4) k->q_x = a4;
        double *a5 = realloc(k->q_sg, (size_t)c * sizeof(double));
        if (a5) k->q_sg = a5;
        double *a6 = realloc(k->q_avg, (size_t)c * sizeof(double));
        if (a6) k->q_avg = a6;
        if (!a1 || !a2 || !a3 || !a4 || !a5 || !a6) {
            k->err = 1;
            return;
        }
        k->capq = c;
    }
    int32_t *r_me = k->r_me, *r_pa = k->r_pa, *r_x = k->r_x, *q_pid = k->q_pid;
    int32_t *q_a = k->q_a, *q_b = k->q_b, *q_x = k->q_x;
    double *r_sg = k->r_sg, *q_sg = k->q_sg, *q_avg = k->q_avg;
    int32_t nq = 0;
    for (int32_t r = 0; r < np; r++) {
        Row *row = &rows[r];
        int32_t grp = row->group;
        int32_t c = counts[grp];
        int has_sopp = c > 1;
        double sopp = has_sopp ? (totals[grp] - row->own) / (c - 1) : NAN;
        int has_excess = has_sopp && row->has_term;
        double excess = has_excess ? row->term + sopp - row->own : NAN;
        int reported = b->boards[p0 + r] > 0;
        if (b->pair_fig) {
            double *f = &b->pair_fig[PAIR_FIGURES * (p0 + r)];
            f[0] = row->has_term ? row->term : NAN;
            f[1] = sopp;
            f[2] = pair_par(k, kind, row, sopp, has_sopp);
            f[3] = excess;
            b->pair_known[p0 + r] = row->ia >= 0 && row->ib >= 0;
            b->pair_host[p0 + r] = (int8_t)row->host;
        }
        int got = 0;
        for (int q = 0; q < 2; q++) {
            int32_t me = q ? row->ib : row->ia;
            int32_t partner = q ? row->ia : row->ib;
            if (me < 0) continue;
            Standing *mine = &g_st[k->slot[me]];
            if (partner < 0) {
                if (b->rec_id) {
                    double v[REC_VALUES] = {mine->g, NAN, NAN, NAN, 0.0, NAN, NAN, NAN};
                    put_record(b, me, -1, r, row, reported, R_PARTNER_UNKNOWN, factor, v);
                }
                continue;
            }
            Standing *theirs = &g_st[k->slot[partner]];
            double adjustment = 0.0;
            if (mine->ws && theirs->ws && subj_regular_with(k, mine->ws, partner) &&
                subj_regular_with(k, theirs->ws, me))
                adjustment = k->rpcf * (theirs->g - mine->g) / 2;
            double sg = NAN;
            int reason = row->host        ? R_HOST
                         : !has_sopp      ? R_NO_OPPONENTS
                         : !row->has_term ? R_NO_SCORE
                         : (k->min_boards >= 0 && mine->code == MATURE &&
                            theirs->total < k->min_boards)
                             ? R_PARTNER_NEW
                             : R_GRADED;
            if (reason == R_GRADED) {
                sg = mine->g + adjustment + k->gain * excess;
                r_me[nrecs] = me;
                r_pa[nrecs] = partner;
                r_x[nrecs] = row->x;
                r_sg[nrecs] = sg;
                nrecs++;
                got++;
            }
            if (b->rec_id) {
                double v[REC_VALUES] = {mine->g,
                                        sopp,
                                        excess,
                                        sg,
                                        adjustment,
                                        row->has_term ? row->term : NAN,
                                        pair_par(k, kind, row, sopp, has_sopp),
                                        theirs->g};
                put_record(b, me, partner, r, row, reported, reason, factor, v);
            }
        }
        if (got == 2) {
            double average = (row->ga + row->gb) / 2;
            int32_t pid = k->pidc[p0 + r];
            if (pid < 0) pid = k->pidc[p0 + r] = pship_find(k, row->ia, row->ib);
            double before = average;
            if (pid >= 0) {
                int32_t cc;
                int64_t bb, pp;
                before = subj_current(k, &k->pships[pid], ref, average, &cc, &bb, &pp);
            }
            q_pid[nq] = pid;
            q_a[nq] = row->ia;
            q_b[nq] = row->ib;
            q_x[nq] = row->x;
            q_sg[nq] = before + k->gain * (row->term + sopp - before);
            q_avg[nq] = average;
            nq++;
        }
    }
    create_known(k, b, o, first);
    if (version_begin(k, b->vidx[o], seq, d)) {
        k->err = 1;
        return;
    }
    Version *v = &k->versions[b->vidx[o]];
    for (int32_t j = 0; j < nrecs; j++) {
        subj_add(k, &k->players[r_me[j]], seq, d, r_x[j], r_sg[j], factor, (double)r_pa[j]);
        pool_push(k, r_me[j]);
        if (b->out_sg) b->out_sg[b->n_out] = r_sg[j];
        b->n_out++;
    }
    v->np = nrecs;
    k->graded += nrecs;
    for (int32_t j = 0; j < nq; j++) {
        int32_t pid = q_pid[j] >= 0 ? q_pid[j] : pship_find(k, q_a[j], q_b[j]);
        if (pid < 0) pid = pship_create(k, q_a[j], q_b[j], q_avg[j]);
        if (pid < 0) return;
        subj_add(k, &k->pships[pid], seq, d, q_x[j], q_sg[j], factor, q_avg[j]);
        pool_push(k, pid);
        if (b->ps_id) {
            b->ps_id[b->n_ps] = pid;
            b->ps_sg[b->n_ps] = q_sg[j];
            b->n_ps++;
        }
    }
    v->nq = nq;
    k->partnership_graded += nq;
    k->sessions++;
    date_added(k, d);
    if (b->rec_fig) /* each member's grade after the step, on the reference date (S5.2) */
        for (int64_t j = rec0; j < b->n_rec; j++) {
            Subj *s = &k->players[b->rec_id[j]];
            int32_t cc;
            int64_t bb, pp;
            if (s->exists) b->rec_fig[REC_FIGURES * j + 8] = subj_current(k, s, ref, NAN, &cc, &bb, &pp);
        }
}

static void process_pregraded(K *k, Batch *b, int32_t o) {
    int32_t d = b->date[o], seq = b->seq[o];
    float factor = (float)b->factor[o];
    create_known(k, b, o, b->first[o]);
    if (version_begin(k, b->vidx[o], seq, d)) {
        k->err = 1;
        return;
    }
    Version *v = &k->versions[b->vidx[o]];
    int32_t r0 = b->rstart[o], nr = b->nrec[o];
    for (int32_t j = r0; j < r0 + nr; j++) {
        subj_add(k, &k->players[b->r_me[j]], seq, d, b->r_x[j], b->r_sg[j], factor,
                 (double)b->r_partner[j]);
        pool_push(k, b->r_me[j]);
        if (b->out_sg) b->out_sg[b->n_out] = b->r_sg[j];
        b->n_out++;
    }
    v->np = nr;
    k->graded += nr;
    int32_t q0 = b->qstart[o], nq = b->nq[o];
    for (int32_t j = q0; j < q0 + nq; j++) {
        int32_t pid = pship_find(k, b->q_a[j], b->q_b[j]);
        if (pid < 0) pid = pship_create(k, b->q_a[j], b->q_b[j], b->q_avg[j]);
        if (pid < 0) return;
        subj_add(k, &k->pships[pid], seq, d, b->q_x[j], b->q_sg[j], factor, b->q_avg[j]);
        pool_push(k, pid);
        if (b->ps_id) {
            b->ps_id[b->n_ps] = pid;
            b->ps_sg[b->n_ps] = b->q_sg[j];
            b->n_ps++;
        }
    }
    v->nq = nq;
    k->partnership_graded += nq;
    k->sessions++;
    date_added(k, d);
}

static void withdraw(K *k, Batch *b, int32_t o) {
    int32_t vi = b->vidx[o];
    if (vi < 0 || vi >= k->nversions || !k->versions[vi].live) {
        k->err = 2;
        return;
    }
    Version *v = &k->versions[vi];
    v->live = 0;
    int32_t *ids = &k->pool[v->start];
    for (int32_t j = 0; j < v->np; j++) subj_remove(k, &k->players[ids[j]], v->seq);
    for (int32_t j = 0; j < v->nq; j++) subj_remove(k, &k->pships[ids[v->np + j]], v->seq);
    date_removed(k, v->d);
}

/* ------------------------------------------------------------------ entry points */

int ck_abi(void) { return CK_ABI; }

int32_t ck_years_before(int32_t ord, int32_t years) { return years_before(ord, years); }

void *ck_new(const int32_t *ip, const double *dp) {
    K *k = calloc(1, sizeof(K));
    if (!k) return NULL;
    k->window = ip[0];
    k->years = ip[1];
    k->padding = ip[2];
    k->mature = ip[3];
    k->share_num = ip[4];
    k->share_den = ip[5];
    k->default_boards = ip[6];
    k->min_boards = ip[7];
    k->known_by_players = ip[8];
    k->known_num = ip[9];
    k->known_den = ip[10];
    k->restart = dp[0];
    k->gain = dp[1];
    k->rpcf = dp[2];
    k->f_butler = dp[3];
    k->f_cross = dp[4];
    k->f_aggregate = dp[5];
    k->latest = -1;
    return k;
}

static void free_subj(Subj *s) {
    free(s->e);
    free(s->cnt);
}

void ck_free(void *p) {
    K *k = p;
    if (!k) return;
    for (int32_t i = 0; i < k->nplayers; i++)
        if (k->players[i].exists) free_subj(&k->players[i]);
    for (int32_t i = 0; i < k->npships; i++) free_subj(&k->pships[i]);
    free(k->players);
    free(k->pships);
    free(k->pa_of);
    free(k->pb_of);
    free(k->hslots);
    free(k->pidc);
    free(k->versions);
    free(k->pool);
    free(k->datecnt);
    free(k->lowcache);
    free(k->stamp);
    free(k->slot);
    free(k->st);
    free(k->rows);
    free(k->r_me);
    free(k->r_pa);
    free(k->r_x);
    free(k->r_sg);
    free(k->q_pid);
    free(k->q_a);
    free(k->q_b);
    free(k->q_x);
    free(k->q_sg);
    free(k->q_avg);
    free(k);
}

/* Memory-latency hiding: a national ledger's histories do not fit in any cache, so the
 * subjects of the operations ahead are fetched in three stages: (A) player structs and
 * partnership hash slots, (B) player entries and partnership structs, (C) partnership
 * entries. Each stage reads only what the stage before fetched. */
static void prefetch_entries_of(const Subj *s) {
    if (!s->e || s->n == 0) return;
    PREFETCH(&s->e[s->n < s->cap ? s->n : s->n - 1]);
    if (s->lo >= 0 && s->lo < s->n) PREFETCH(&s->e[s->lo]);
    if (s->cut0 > s->lo && s->cut0 < s->n) PREFETCH(&s->e[s->cut0]);
}

static int prefetchable(const K *k, const Batch *b, int32_t o) {
    return o < b->n_ops && b->kind[o] == 0 && b->n_ids <= k->nplayers;
}

static void prefetch_a(K *k, const Batch *b, int32_t o) {
    if (!prefetchable(k, b, o)) return;
    int32_t p0 = b->pstart[o], np = b->npairs[o];
    for (int32_t i = p0; i < p0 + np; i++) {
        int32_t ia = b->pab[2 * i], ib = b->pab[2 * i + 1];
        if (ia >= 0) {
            PREFETCH(&k->players[ia]);
            PREFETCH((const char *)&k->players[ia] + 64);
            PREFETCH((const char *)&k->players[ia] + 128);
        }
        if (ib >= 0) {
            PREFETCH(&k->players[ib]);
            PREFETCH((const char *)&k->players[ib] + 64);
            PREFETCH((const char *)&k->players[ib] + 128);
        }
        if (ia >= 0 && ib >= 0 && k->hcap) {
            int32_t lo = ia < ib ? ia : ib, hi = ia < ib ? ib : ia;
            uint64_t key = ((uint64_t)(uint32_t)lo << 32) | (uint32_t)hi;
            int64_t j = (int64_t)(hmix(key) & (uint64_t)(k->hcap - 1));
            PREFETCH(&k->hslots[j]);
        }
    }
}

static void prefetch_b(K *k, const Batch *b, int32_t o) {
    if (!prefetchable(k, b, o)) return;
    int32_t p0 = b->pstart[o], np = b->npairs[o];
    for (int32_t i = p0; i < p0 + np; i++) {
        int32_t ia = b->pab[2 * i], ib = b->pab[2 * i + 1];
        if (ia >= 0) {
            const Subj *s = &k->players[ia];
            prefetch_entries_of(s);
            if (s->cnt) PREFETCH(s->cnt);
        }
        if (ib >= 0) {
            const Subj *s = &k->players[ib];
            prefetch_entries_of(s);
            if (s->cnt) PREFETCH(s->cnt);
        }
        if (ia >= 0 && ib >= 0) {
            int32_t pid = pship_find(k, ia, ib);
            k->pidc[i] = pid;
            if (pid >= 0) {
                PREFETCH(&k->pships[pid]);
                PREFETCH((const char *)&k->pships[pid] + 64);
                PREFETCH((const char *)&k->pships[pid] + 128);
            }
        }
    }
}

static void prefetch_c(K *k, const Batch *b, int32_t o) {
    if (!prefetchable(k, b, o)) return;
    int32_t p0 = b->pstart[o], np = b->npairs[o];
    for (int32_t i = p0; i < p0 + np; i++) {
        int32_t ia = b->pab[2 * i], ib = b->pab[2 * i + 1];
        if (ia >= 0 && ib >= 0) {
            int32_t pid = k->pidc[i];
            if (pid >= 0) prefetch_entries_of(&k->pships[pid]);
        }
    }
}

/* Runs a batch; returns the number of operations performed (== n_ops unless an error). */
int32_t ck_run(void *p, Batch *b) {
    K *k = p;
    if (reserve_players(k, b->n_ids)) {
        k->err = 1;
        return 0;
    }
    int64_t n_pairs = 0; /* the batch's pair columns: up to the last operation's pairs */
    for (int32_t o = 0; o < b->n_ops; o++)
        if (b->kind[o] != 1 && (int64_t)b->pstart[o] + b->npairs[o] > n_pairs)
            n_pairs = (int64_t)b->pstart[o] + b->npairs[o];
    if (grow((void **)&k->pidc, &k->cappidc, n_pairs + 1, sizeof(int32_t))) {
        k->err = 1;
        return 0;
    }
    for (int64_t i = 0; i < n_pairs; i++) k->pidc[i] = -1;
    int32_t o;
    for (o = 0; o < b->n_ops && !k->err; o++) {
        int32_t kind = b->kind[o];
        if (kind == 3) { /* a version not graded: its reference date only (S14.9) */
            int32_t d = b->date[o];
            if (b->out_ref) b->out_ref[o] = (k->latest < 0 || d > k->latest) ? d : k->latest;
            continue;
        }
        if (kind == 1) {
            withdraw(k, b, o);
            if (b->out_ref) {
                int32_t vi = b->vidx[o];
                b->out_ref[o] = k->latest >= 0 ? k->latest : k->versions[vi].d;
            }
            continue;
        }
        prefetch_a(k, b, o + 2 * CK_DIST + 1);
        prefetch_b(k, b, o + CK_DIST + 1);
        prefetch_c(k, b, o + 1);
        int32_t d = b->date[o];
        int32_t ref = (k->latest < 0 || d > k->latest) ? d : k->latest;
        if (b->out_ref) b->out_ref[o] = ref;
        if (kind == 0)
            process_inline(k, b, o, ref);
        else
            process_pregraded(k, b, o);
    }
    return k->err ? -k->err : o;
}

int32_t ck_latest(void *p) { return ((K *)p)->latest; }

void ck_stats(void *p, int64_t *out) {
    K *k = p;
    out[0] = k->graded;
    out[1] = k->partnership_graded;
    out[2] = k->sessions;
    out[3] = k->nplayers_state;
    out[4] = k->npships;
    int64_t entries = 0;
    for (int32_t i = 0; i < k->nplayers; i++) entries += k->players[i].cap;
    for (int32_t i = 0; i < k->npships; i++) entries += k->pships[i].cap;
    out[5] = entries * (int64_t)sizeof(Entry);
}

int32_t ck_has_player(void *p, int32_t id) {
    K *k = p;
    return id >= 0 && id < k->nplayers && k->players[id].exists;
}

/* (grade, code, boards in window, padding, graded boards ever, regular partner id, sessions
 * in window); returns 0 if the player has no state */
int32_t ck_player_info(void *p, int32_t id, int32_t as_of, double *g, int64_t *out) {
    K *k = p;
    if (id < 0 || id >= k->nplayers || !k->players[id].exists) return 0;
    Subj *s = &k->players[id];
    int32_t code;
    int64_t boards, padding;
    *g = subj_current(k, s, as_of, NAN, &code, &boards, &padding);
    out[0] = code;
    out[1] = boards;
    out[2] = padding;
    out[3] = s->total;
    out[4] = subj_regular_partner(k, s);
    out[5] = (s->lo >= 0 && s->lo < s->n) ? s->n - s->cut0 : 0;
    return 1;
}

/* partnership of ids a, b: its index or -1 */
int32_t ck_pship_find(void *p, int32_t a, int32_t b) { return pship_find(p, a, b); }

int32_t ck_pship_info(void *p, int32_t pid, int32_t as_of, double restart, double *g,
                      int64_t *out) {
    K *k = p;
    if (pid < 0 || pid >= k->npships) return 0;
    Subj *s = &k->pships[pid];
    int32_t code;
    int64_t boards, padding;
    *g = subj_current(k, s, as_of, restart, &code, &boards, &padding);
    out[0] = code;
    out[1] = boards;
    out[2] = padding;
    out[3] = k->pa_of[pid];
    out[4] = k->pb_of[pid];
    out[5] = (s->lo >= 0 && s->lo < s->n) ? s->n - s->cut0 : 0;
    return 1;
}

/* a partnership's two player ids (no window work) */
int32_t ck_pship_ends(void *p, int32_t pid, int32_t *a, int32_t *b) {
    K *k = p;
    if (pid < 0 || pid >= k->npships) return 0;
    *a = k->pa_of[pid];
    *b = k->pb_of[pid];
    return 1;
}

/* a version's graded player ids then partnership indexes; returns np, sets *nq */
int32_t ck_version(void *p, int32_t vidx, int32_t *out, int32_t cap, int32_t *nq) {
    K *k = p;
    if (vidx < 0 || vidx >= k->nversions) return -1;
    Version *v = &k->versions[vidx];
    *nq = v->nq;
    int32_t total = v->np + v->nq;
    for (int32_t j = 0; j < total && j < cap; j++) out[j] = k->pool[v->start + j];
    return v->np;
}

/* ------------------------------------------------------------------ bulk reads (issue 18) */

/* grades of players ids[0..n) on as_of (no earlier than their latest entry); NaN: no state */
void ck_grades(void *p, int32_t n, const int32_t *ids, int32_t as_of, double *out) {
    K *k = p;
    for (int32_t j = 0; j < n; j++) {
        int32_t id = ids[j];
        out[j] = NAN;
        if (id < 0 || id >= k->nplayers || !k->players[id].exists) continue;
        int32_t cc;
        int64_t bb, pp;
        out[j] = subj_current(k, &k->players[id], as_of, NAN, &cc, &bb, &pp);
    }
}

/* the grades of the partnerships of players a[j], b[j] on as_of[j] (no earlier than their
 * latest entry), each asked in turn as ck_pship_find and ck_pship_info would be; found[j] 0
 * where there is no such partnership (replay --check reads 1.3 million this way) */
void ck_pship_grades(void *p, int32_t n, const int32_t *a, const int32_t *b,
                     const int32_t *as_of, double restart, double *out, int8_t *found) {
    K *k = p;
    for (int32_t j = 0; j < n; j++) {
        int32_t pid = pship_find(k, a[j], b[j]);
        found[j] = pid >= 0;
        out[j] = NAN;
        if (pid < 0) continue;
        int32_t cc;
        int64_t bb, pp;
        out[j] = subj_current(k, &k->pships[pid], as_of[j], restart, &cc, &bb, &pp);
    }
}

/* every player with a live entry, in id order, on as_of (foldout.CurrentOut); each output
 * holds nplayers; returns the count */
int32_t ck_dump_players(void *p, int32_t as_of, int32_t *id, double *g, int8_t *status,
                        int32_t *boards, int32_t *sessions, double *initial, int32_t *last) {
    K *k = p;
    int32_t m = 0;
    for (int32_t i = 0; i < k->nplayers; i++) {
        Subj *s = &k->players[i];
        if (!s->exists || s->n == 0) continue;
        int32_t code;
        int64_t bb, pp;
        g[m] = subj_current(k, s, as_of, NAN, &code, &bb, &pp);
        id[m] = i;
        status[m] = (int8_t)code;
        boards[m] = (int32_t)bb;
        sessions[m] = (s->lo >= 0 && s->lo < s->n) ? s->n - s->cut0 : 0;
        initial[m] = s->initial;
        last[m] = s->last_d;
        m++;
    }
    return m;
}

static void ends_by_rank(const K *k, int32_t pid, const int32_t *rank, int32_t *a, int32_t *b) {
    int32_t x = k->pa_of[pid], y = k->pb_of[pid];
    if (rank && rank[x] > rank[y]) {
        int32_t t = x;
        x = y;
        y = t;
    }
    *a = x;
    *b = y;
}

/* every partnership with a live entry, in the order met, on as_of (foldout.PartnershipsOut);
 * ends ordered by rank[id] (the members' numbers' order; NULL: by id); each output holds
 * npships; returns the count */
int32_t ck_dump_pships(void *p, int32_t as_of, const int32_t *rank, int32_t *a, int32_t *b,
                       double *g, int8_t *status, double *initial, int32_t *boards,
                       int32_t *together, int32_t *sessions, int32_t *last) {
    K *k = p;
    int32_t m = 0;
    for (int32_t i = 0; i < k->npships; i++) {
        Subj *s = &k->pships[i];
        if (s->n == 0) continue;
        int32_t code;
        int64_t bb, pp;
        g[m] = subj_current(k, s, as_of, NAN, &code, &bb, &pp);
        ends_by_rank(k, i, rank, &a[m], &b[m]);
        status[m] = (int8_t)code;
        initial[m] = s->initial;
        boards[m] = (int32_t)bb;
        together[m] = (int32_t)s->total;
        sessions[m] = s->n;
        last[m] = s->last_d;
        m++;
    }
    return m;
}

/* The subjects, numbered: players with state in id order, then every partnership in the
 * order met. out[0]: all subjects; out[1]: the live entries of subjects [s0, s1). */
void ck_history_size(void *p, int32_t s0, int32_t s1, int64_t *out) {
    K *k = p;
    int64_t j = 0, entries = 0;
    for (int32_t i = 0; i < k->nplayers; i++) {
        if (!k->players[i].exists) continue;
        if (j >= s0 && j < s1) entries += k->players[i].n;
        j++;
    }
    for (int32_t i = 0; i < k->npships; i++, j++)
        if (j >= s0 && j < s1) entries += k->pships[i].n;
    out[0] = j;
    out[1] = entries;
}

/* each subject's live entries, in the order ck_dump_histories numbers the subjects (players
 * that exist, then partnerships): out holds ck_history_size's out[0] counts. So a caller can
 * cut the histories into batches of about as many entries each (memory holds one batch). */
void ck_history_counts(void *p, int32_t *out) {
    K *k = p;
    int64_t j = 0;
    for (int32_t i = 0; i < k->nplayers; i++)
        if (k->players[i].exists) out[j++] = k->players[i].n;
    for (int32_t i = 0; i < k->npships; i++) out[j++] = k->pships[i].n;
}

/* subjects [s0, s1) (ck_history_size) and their live entries (foldout.HistoriesOut): entries
 * in (date, seq) order per subject, esub the subject's number, epos its place in its version
 * (players, then partnerships). Returns the subjects written, or -1 when out of memory. */
int32_t ck_dump_histories(void *p, const int32_t *rank, int32_t s0, int32_t s1, int32_t *sa,
                          int32_t *sb, double *sinit, int32_t *esub, int32_t *eseq,
                          int32_t *epos, int32_t *edate, int32_t *eboards, double *egrade,
                          double *efactor, int32_t *epartner, double *epad) {
    K *k = p;
    int32_t maxseq = 0;
    for (int32_t vi = 0; vi < k->nversions; vi++)
        if (k->versions[vi].live && k->versions[vi].seq > maxseq) maxseq = k->versions[vi].seq;
    int32_t *vof = malloc(((size_t)maxseq + 1) * sizeof(int32_t)); /* live seq -> version */
    if (!vof) return -1;
    for (int32_t q = 0; q <= maxseq; q++) vof[q] = -1;
    for (int32_t vi = 0; vi < k->nversions; vi++)
        if (k->versions[vi].live) vof[k->versions[vi].seq] = vi;
    int32_t j = 0, m = 0;
    int64_t at = 0;
    for (int32_t pass = 0; pass < 2; pass++) {
        int32_t count = pass ? k->npships : k->nplayers;
        for (int32_t i = 0; i < count; i++) {
            Subj *s = pass ? &k->pships[i] : &k->players[i];
            if (!pass && !s->exists) continue;
            if (j < s0 || j >= s1) {
                j++;
                continue;
            }
            if (pass)
                ends_by_rank(k, i, rank, &sa[m], &sb[m]);
            else
                sa[m] = i, sb[m] = -1;
            sinit[m] = s->initial;
            for (int32_t q = 0; q < s->n; q++, at++) {
                Entry *e = &s->e[q];
                esub[at] = j;
                eseq[at] = e->seq;
                edate[at] = e->d;
                eboards[at] = e->x;
                egrade[at] = e->g;
                efactor[at] = (double)e->f;
                epartner[at] = pass ? -1 : (int32_t)e->aux;
                epad[at] = pass ? e->aux : NAN;
                epos[at] = -1;
                int32_t vi = e->seq <= maxseq ? vof[e->seq] : -1;
                if (vi < 0) continue;
                Version *v = &k->versions[vi];
                const int32_t *ids = &k->pool[v->start];
                int32_t lo = pass ? v->np : 0, hi = pass ? v->np + v->nq : v->np;
                for (int32_t r = lo; r < hi; r++)
                    if (ids[r] == i) {
                        epos[at] = r;
                        break;
                    }
            }
            j++;
            m++;
        }
    }
    free(vof);
    return m;
}

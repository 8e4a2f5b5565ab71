/* Reading a session's pairs into the compiled kernel's pair columns (issue 31): the C twin of
 * grading/engine/ngs/cpairs.py PairColumns.add_session + add_means, for the sessions C grades
 * itself. Optional, like ngs_kernel.c: built against the running interpreter's headers and
 * loaded with ctypes.PyDLL (the GIL is held; the objects are only read).
 *
 * Build: cc -O2 -shared -fPIC -I<python include> -o libngs_marshal.so ngs_marshal.c
 *
 * cm_pairs returns the number of pairs written, or a negative code, with no Python exception
 * set, whenever the Python reader must be used instead (-1: a membership number without an
 * id yet; -2: anything unexpected: a non-tuple, a failing attribute, a non-numeric score).
 * Whatever it wrote is then overwritten by the Python reader.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#define CM_ABI 1

static PyObject *s_players, *s_number, *s_rateable, *s_score, *s_boards, *s_direction,
    *s_pair_id, *s_dmean;

static int names(void) {
    if (s_players) return 0;
    s_players = PyUnicode_InternFromString("players");
    s_number = PyUnicode_InternFromString("number");
    s_rateable = PyUnicode_InternFromString("rateable");
    s_score = PyUnicode_InternFromString("score");
    s_boards = PyUnicode_InternFromString("boards");
    s_direction = PyUnicode_InternFromString("direction");
    s_pair_id = PyUnicode_InternFromString("pair_id");
    s_dmean = PyUnicode_InternFromString("direction_mean");
    return (s_players && s_number && s_rateable && s_score && s_boards && s_direction &&
            s_pair_id && s_dmean)
               ? 0
               : -1;
}

int cm_abi(void) { return CM_ABI; }

/* A float column's value (None: NaN); -1 on anything else than an int or a float. */
static int as_double(PyObject *v, double *out) {
    if (v == Py_None) {
        *out = NAN;
        return 0;
    }
    if (PyFloat_CheckExact(v)) {
        *out = PyFloat_AS_DOUBLE(v);
        return 0;
    }
    if (!PyFloat_Check(v) && !PyLong_Check(v)) return -1;
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    *out = d;
    return 0;
}

/* pairs: the session's tuple of PairEntry; ids: number -> id (None -> -1); host: the
 * requested host pair's id or None; two: a two-winner movement; agg: aggregate (direction
 * means read, else NaN); ns: Direction.NS. Writes n pairs at pab (2 per pair), boards, score,
 * dmean, flags; res[0] the known pairs (S14.3), res[1] the known players. */
int32_t cm_pairs(PyObject *pairs, PyObject *ids, PyObject *host, int32_t two, int32_t agg,
                 PyObject *ns, int32_t *pab, int32_t *boards, double *score, double *dmean,
                 int8_t *flags, int32_t *res) {
    if (names() || !PyTuple_Check(pairs) || !PyDict_Check(ids)) goto odd;
    Py_ssize_t n = PyTuple_GET_SIZE(pairs);
    int32_t known = 0, players = 0, first_host = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(pairs, i);
        PyObject *people = PyObject_GetAttr(pair, s_players);
        if (!people) goto odd;
        if (!PyTuple_Check(people) || PyTuple_GET_SIZE(people) != 2) {
            Py_DECREF(people);
            goto odd;
        }
        int32_t got[2];
        int rateable = 1;
        for (int q = 0; q < 2; q++) {
            PyObject *person = PyTuple_GET_ITEM(people, q);
            PyObject *num = PyObject_GetAttr(person, s_number);
            if (!num) {
                Py_DECREF(people);
                goto odd;
            }
            PyObject *id = PyDict_GetItemWithError(ids, num); /* borrowed */
            Py_DECREF(num);
            if (!id) {
                Py_DECREF(people);
                if (PyErr_Occurred()) goto odd;
                return -1;
            }
            long v = PyLong_AsLong(id);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(people);
                goto odd;
            }
            got[q] = (int32_t)v;
            if (rateable) {
                PyObject *r = PyObject_GetAttr(person, s_rateable);
                if (!r) {
                    Py_DECREF(people);
                    goto odd;
                }
                int t = PyObject_IsTrue(r);
                Py_DECREF(r);
                if (t < 0) {
                    Py_DECREF(people);
                    goto odd;
                }
                rateable = t;
            }
        }
        Py_DECREF(people);
        pab[2 * i] = got[0];
        pab[2 * i + 1] = got[1];
        players += (got[0] >= 0) + (got[1] >= 0);
        known += got[0] >= 0 && got[1] >= 0;
        if (!rateable && first_host < 0) first_host = (int32_t)i;
        PyObject *v = PyObject_GetAttr(pair, s_score);
        if (!v) goto odd;
        int bad = as_double(v, &score[i]);
        Py_DECREF(v);
        if (bad) goto odd;
        v = PyObject_GetAttr(pair, s_boards);
        if (!v) goto odd;
        if (v == Py_None) {
            boards[i] = 0;
        } else {
            long b = PyLong_Check(v) ? PyLong_AsLong(v) : -1;
            if (!PyLong_Check(v) || (b == -1 && PyErr_Occurred()) || b > INT32_MAX ||
                b < INT32_MIN) {
                Py_DECREF(v);
                goto odd;
            }
            boards[i] = (int32_t)b;
        }
        Py_DECREF(v);
        int8_t f = 0;
        if (two) {
            v = PyObject_GetAttr(pair, s_direction);
            if (!v) goto odd;
            f = v == Py_None ? 0 : v == ns ? 1 : 2;
            Py_DECREF(v);
        }
        flags[i] = f;
        if (agg) {
            v = PyObject_GetAttr(pair, s_dmean);
            if (!v) goto odd;
            bad = as_double(v, &dmean[i]);
            Py_DECREF(v);
            if (bad) goto odd;
        } else {
            dmean[i] = NAN;
        }
    }
    /* the host pair (S3.9, S14.4): the requested one, else the first pair not rateable; every
     * pair of that id is flagged, and counts as known (its unknown players do not) */
    PyObject *hid = NULL;
    if (host != Py_None) {
        hid = host;
        Py_INCREF(hid);
    } else if (first_host >= 0) {
        hid = PyObject_GetAttr(PyTuple_GET_ITEM(pairs, first_host), s_pair_id);
        if (!hid) goto odd;
    }
    if (hid) {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *pid = PyObject_GetAttr(PyTuple_GET_ITEM(pairs, i), s_pair_id);
            if (!pid) {
                Py_DECREF(hid);
                goto odd;
            }
            int eq = PyObject_RichCompareBool(pid, hid, Py_EQ);
            Py_DECREF(pid);
            if (eq < 0) {
                Py_DECREF(hid);
                goto odd;
            }
            if (eq) {
                flags[i] |= 4;
                if (pab[2 * i] < 0 || pab[2 * i + 1] < 0) known++;
            }
        }
        Py_DECREF(hid);
    }
    res[0] = known;
    res[1] = players;
    return (int32_t)n;
odd:
    PyErr_Clear();
    return -2;
}

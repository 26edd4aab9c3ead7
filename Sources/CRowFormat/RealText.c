// REALs as SQLite's printf renders them ("%!.15g"), without printf for most values.
//
// printf (sqlite3_str_vappendf) was an eighth of a million-row query's time. SQLite (3.43 on) finds
// a value's digits (sqlite3FpDecode) as an 18- or 19-digit integer, good to less than one
// unit of its last digit, and rounds it half up at the first digit dropped. So where the exact decimal
// expansion of the value is not within that error of a tie, its correctly rounded digits are
// SQLite's; here they come from one exact product (Dekker's) with a power of ten that a double
// holds exactly. Near a tie, out of that range, and in exponent form, SQLite itself writes
// the value. The same holds for the round-trip test: where the 15 digits are clearly inside
// or clearly outside the value's rounding interval, strtod would say the same.
// `RealTextTests` checks every path against sqlite3_snprintf and strtod over seeded sweeps.
#include "RowFormat.h"
#include "RowFormatInternal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Dekker's product needs every product rounded on its own: a fused multiply-add (which
// compilers may form on arm64, where it is an instruction) would change its error term.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

static const double exact_powers[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static const uint64_t integer_powers[18] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
};

/// Powers of ten from 1e-8 (index 0) to 1e17, to find a value's decimal exponent without log10.
static const double exponent_bounds[26] = {
    1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4,
    1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
};

/// The power of ten of `a`'s first digit, from -8 to 16, or 99 outside. A bound that is not
/// exact can put it one off; the digit count then catches it (the slow path writes it).
static int decimal_exponent(double a) {
    if (a < exponent_bounds[0] || a >= exponent_bounds[25]) return 99;
    int low = 0, high = 25; // exponent_bounds[low] <= a < exponent_bounds[high]
    while (high - low > 1) {
        int middle = (low + high) / 2;
        if (a >= exponent_bounds[middle]) low = middle; else high = middle;
    }
    return low - 8;
}

/// `a * b` as `*high + *low` exactly (Dekker's product, without relying on an FMA unit).
static void exact_product(double a, double b, double *high, double *low) {
    const double split = 134217729.0; // 2^27 + 1
    double p = a * split, q = b * split;
    double a1 = p - (p - a), a2 = a - a1;
    double b1 = q - (q - b), b2 = b - b1;
    *high = a * b;
    *low = ((a1 * b1 - *high) + a1 * b2 + a2 * b1) + a2 * b2;
}

/// A positive value's first `digits` significant digits, correctly rounded: `digits` is
/// 15 or 17, `exponent` the power of ten of the first digit, and `residue` the rounded
/// integer less the exact scaled value, with `scale` the power of ten it was scaled by.
typedef struct decimal {
    uint64_t digits;
    int exponent;
    double residue;
    double scale;
} decimal;

/// SQLite's own digits may differ from the correctly rounded ones this near a tie: its 18 or
/// 19 digits are off by less than one unit of the last, in units of the 15th or 17th digit.
static double tie_margin(int digits) {
    return digits == 15 ? 2e-3 : 0.12;
}

/// floor() of a value within the range of int64, without a call into libm.
static double floor_small(double x) {
    double truncated = (double)(int64_t)x;
    return truncated > x ? truncated - 1 : truncated;
}

/// Whether `a` (positive, finite) has provable digits; fills `out` when it has.
static int decimal_of(double a, int digits, decimal *out) {
    int exponent = decimal_exponent(a);
    int shift = digits - 1 - exponent;
    if (shift < 0 || shift > 22) return 0;
    double scale = exact_powers[shift];
    double product, error; // a * scale == product + error exactly
    exact_product(a, scale, &product, &error);
    double whole = (double)(uint64_t)product; // product < 1e17: exact
    double fraction = (product - whole) + error;
    double carry = floor_small(fraction);
    fraction -= carry;
    if (fabs(fraction - 0.5) < tie_margin(digits)) return 0;
    uint64_t n = (uint64_t)whole + (uint64_t)(int64_t)carry + (fraction > 0.5 ? 1 : 0);
    // Rounded up to the next power of ten, or an exponent that log10 missed by one: rare.
    if (n < integer_powers[digits - 1] || n >= integer_powers[digits]) return 0;
    out->digits = n;
    out->exponent = exponent;
    out->residue = (double)((int64_t)n - (int64_t)whole) - (fraction + carry);
    out->scale = scale;
    return 1;
}

/// Writes `d` in fixed notation as "%!.Ng" does (trailing zeros dropped, ".0" kept) when its
/// exponent is in printf's fixed range; returns the length, or 0 for the exponent form.
static int write_fixed(const decimal *d, int digits, int negative, char *buffer) {
    if (d->exponent < -4 || d->exponent >= digits) return 0;
    uint64_t n = d->digits;
    int length = digits;
    while (n % 100 == 0) n /= 100, length -= 2;
    if (n % 10 == 0) n /= 10, length -= 1;
    char text[20];
    rowformat_digits(n, text, length);
    char *at = buffer;
    if (negative) *at++ = '-';
    if (d->exponent < 0) {
        memcpy(at, "0.0000", 6);
        at += 1 - d->exponent;
        memcpy(at, text, (size_t)length);
        return (int)(at + length - buffer);
    }
    int whole = d->exponent + 1;
    if (length > whole) {
        memcpy(at, text, (size_t)whole);
        at[whole] = '.';
        memcpy(at + whole + 1, text + whole, (size_t)(length - whole));
        return (int)(at + length + 1 - buffer);
    }
    memcpy(at, text, (size_t)length);
    memset(at + length, '0', (size_t)(whole - length));
    memcpy(at + whole, ".0", 2);
    return (int)(at + whole + 2 - buffer);
}

/// Whether the 15 digits read back (strtod) as `a`: 1 yes, 0 no, -1 too near the edge of
/// the value's rounding interval to say (or a power of two, whose interval is lopsided).
static int reads_back(double a, const decimal *d) {
    int binary_exponent;
    double mantissa = frexp(a, &binary_exponent);
    if (mantissa == 0.5) return -1;
    double half_unit = ldexp(0.5, binary_exponent - 53) * d->scale;
    double distance = fabs(d->residue);
    if (distance < half_unit * (1 - 1e-6)) return 1;
    if (distance > half_unit * (1 + 1e-6)) return 0;
    return -1;
}

/// SQLite's printf, as `csqlcipher_format_real` calls it.
static int format_slowly(double value, int round_trip, char *buffer) {
    sqlite3_snprintf(40, buffer, "%!.15g", value);
    if (round_trip && strtod(buffer, 0) != value) sqlite3_snprintf(40, buffer, "%!.17g", value);
    return (int)strlen(buffer);
}

/// The fast path for `digits` digits; 0 when the slow one must write the value.
static int format_digits(double value, int digits, char *buffer, decimal *d) {
    double a = fabs(value);
    if (!decimal_of(a, digits, d)) return 0;
    return write_fixed(d, digits, value < 0, buffer);
}

int rowformat_real(double value, int round_trip, char *buffer) {
    if (value == 0) {
        int negative = round_trip && signbit(value);
        memcpy(buffer, negative ? "-0.0" : "0.0", negative ? 5 : 4);
        return negative ? 4 : 3;
    }
    // The proof is about SQLite's rounding since 3.43 (sqlite3FpDecode); an older library
    // writes every value itself.
    if (!isfinite(value) || sqlite3_libversion_number() < 3043000) return format_slowly(value, round_trip, buffer);
    decimal d;
    int length = format_digits(value, 15, buffer, &d);
    if (length == 0) return format_slowly(value, round_trip, buffer);
    if (!round_trip) return length;
    int back = reads_back(fabs(value), &d);
    if (back == 1) return length;
    if (back < 0) return format_slowly(value, round_trip, buffer);
    length = format_digits(value, 17, buffer, &d);
    return length > 0 ? length : format_slowly(value, round_trip, buffer);
}

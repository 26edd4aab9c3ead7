#ifndef ROWFORMAT_INTERNAL_H
#define ROWFORMAT_INTERNAL_H

#include "RowFormat.h"

/// An output window: bytes are written at `at` up to `end`; a write that does not fit sets
/// `overflow` and writes nothing more.
typedef struct rowformat_out {
    uint8_t *at;
    uint8_t *end;
    int overflow;
} rowformat_out;

/// One value of a row: its storage class (SQLITE_INTEGER …), and the value of that class.
typedef struct rowformat_value {
    int type;
    int64_t integer;
    double real;
    const uint8_t *bytes;
    size_t length;
} rowformat_value;

/// A row as csv, CRLF at the end.
void rowformat_csv_row(rowformat_out *out, const rowformat_value *values, const rowformat_layout *layout);

/// A row as a json object; `first` says whether it is the result set's first (no comma before it).
void rowformat_json_row(rowformat_out *out, const rowformat_value *values, const rowformat_layout *layout, int first);

/// Writes the last `length` decimal digits of `n` (with leading zeros) at `text`.
void rowformat_digits(uint64_t n, char *text, int length);

/// Appends `length` bytes if they fit; otherwise marks the window overflowed.
static inline void rowformat_put(rowformat_out *out, const void *bytes, size_t length) {
    if ((size_t)(out->end - out->at) < length) {
        out->overflow = 1;
        return;
    }
    for (size_t i = 0; i < length; i++) out->at[i] = ((const uint8_t *)bytes)[i];
    out->at += length;
}

/// Whether `length` more bytes fit; marks the window overflowed when they do not.
static inline int rowformat_room(rowformat_out *out, size_t length) {
    if ((size_t)(out->end - out->at) >= length) return 1;
    out->overflow = 1;
    return 0;
}

/// A blob (or text) in an encoding: raw, hex or base64.
void rowformat_encoded(rowformat_out *out, const uint8_t *bytes, size_t length, int encoding);

/// Whether the bytes are well-formed UTF-8 (`UTF8Validation`).
int rowformat_valid_utf8(const uint8_t *bytes, size_t length);

#endif

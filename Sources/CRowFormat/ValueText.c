// Integers, blobs and UTF-8 checks for the row writers: no printf, no allocation.
#include "RowFormatInternal.h"
#include <string.h>

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void rowformat_digits(uint64_t n, char *text, int length) {
    int at = length;
    while (at >= 2) {
        memcpy(text + at - 2, digit_pairs + 2 * (n % 100), 2);
        n /= 100;
        at -= 2;
    }
    if (at == 1) text[0] = (char)('0' + n % 10);
}

int rowformat_integer(int64_t value, char *buffer) {
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    int length = 1;
    for (uint64_t bound = 10; length < 20 && magnitude >= bound; bound *= 10) length++;
    int sign = value < 0;
    if (sign) buffer[0] = '-';
    rowformat_digits(magnitude, buffer + sign, length);
    return length + sign;
}

static const char hex_digits[] = "0123456789abcdef";
static const char base64_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(uint8_t *to, const uint8_t *bytes, size_t length) {
    size_t i = 0;
    for (; i + 3 <= length; i += 3, to += 4) {
        uint32_t chunk = (uint32_t)bytes[i] << 16 | (uint32_t)bytes[i + 1] << 8 | bytes[i + 2];
        to[0] = (uint8_t)base64_digits[chunk >> 18 & 63];
        to[1] = (uint8_t)base64_digits[chunk >> 12 & 63];
        to[2] = (uint8_t)base64_digits[chunk >> 6 & 63];
        to[3] = (uint8_t)base64_digits[chunk & 63];
    }
    size_t left = length - i;
    if (left == 0) return;
    uint32_t chunk = (uint32_t)bytes[i] << 16 | (left == 2 ? (uint32_t)bytes[i + 1] << 8 : 0);
    to[0] = (uint8_t)base64_digits[chunk >> 18 & 63];
    to[1] = (uint8_t)base64_digits[chunk >> 12 & 63];
    to[2] = left == 2 ? (uint8_t)base64_digits[chunk >> 6 & 63] : '=';
    to[3] = '=';
}

void rowformat_encoded(rowformat_out *out, const uint8_t *bytes, size_t length, int encoding) {
    if (encoding == ROWFORMAT_BLOB_HEX) {
        if (!rowformat_room(out, 2 * length)) return;
        for (size_t i = 0; i < length; i++) {
            out->at[2 * i] = (uint8_t)hex_digits[bytes[i] >> 4];
            out->at[2 * i + 1] = (uint8_t)hex_digits[bytes[i] & 15];
        }
        out->at += 2 * length;
    } else if (encoding == ROWFORMAT_BLOB_BASE64) {
        size_t size = (length + 2) / 3 * 4;
        if (!rowformat_room(out, size)) return;
        put_base64(out->at, bytes, length);
        out->at += size;
    } else {
        rowformat_put(out, bytes, length);
    }
}

/// The length of the UTF-8 sequence that starts at `bytes[0]` (a byte from 0x80 up), or 0
/// when it is not well formed (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
static size_t sequence_length(const uint8_t *bytes, size_t left) {
    uint8_t lead = bytes[0], low = 0x80, high = 0xBF;
    size_t count;
    if (lead >= 0xC2 && lead <= 0xDF) count = 1;
    else if (lead == 0xE0) count = 2, low = 0xA0;
    else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) count = 2;
    else if (lead == 0xED) count = 2, high = 0x9F;
    else if (lead == 0xF0) count = 3, low = 0x90;
    else if (lead >= 0xF1 && lead <= 0xF3) count = 3;
    else if (lead == 0xF4) count = 3, high = 0x8F;
    else return 0;
    if (left < count + 1 || bytes[1] < low || bytes[1] > high) return 0;
    for (size_t i = 2; i <= count; i++) {
        if (bytes[i] < 0x80 || bytes[i] > 0xBF) return 0;
    }
    return count + 1;
}

int rowformat_valid_utf8(const uint8_t *bytes, size_t length) {
    size_t i = 0;
    while (i < length) {
        if (bytes[i] < 0x80) {
            i++;
            continue;
        }
        size_t step = sequence_length(bytes + i, length - i);
        if (step == 0) return 0;
        i += step;
    }
    return 1;
}

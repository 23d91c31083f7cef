// UTF-8 checks the tokenizer needs: making arbitrary input bytes well-formed before encoding, and
// finding a multi-byte character that byte-fallback tokens have only partly produced yet.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace snapdoc::utf8 {

// Length of the well-formed UTF-8 sequence starting at s[0] (1..4), or 0 if none starts there
// (stray continuation byte, overlong form, surrogate, code point above U+10FFFF, truncation).
std::size_t sequence_length(std::string_view s);

bool is_valid(std::string_view s);

// Every byte that does not belong to a well-formed sequence becomes U+FFFD, one per byte. This is
// the rule SentencePiece applies itself (in its normalizer and when decoding byte pieces), so
// sanitizing first changes no token of valid text and makes invalid input a defined case.
std::string sanitize(std::string_view s);

// How many bytes at the end of `s` (0..3) are the start of a multi-byte sequence that more bytes
// could still complete: a lead byte followed by fewer continuation bytes than it announces. Judged
// by the bit patterns alone, so it never under-counts what a decoder might still join.
std::size_t incomplete_tail(std::string_view s);

}  // namespace snapdoc::utf8

// Quoting file content in an error message safely: bytes from a file (a tensor name, a JSON
// parser's "last read" token, a bad value) may hold NULs, control characters, escape sequences
// or megabytes. Every message that quotes file content goes through printable_excerpt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace snapdoc {

inline constexpr std::size_t kMessageExcerptBytes = 160;

// `bytes` as one printable line: control bytes (NUL, newline, ESC, DEL) become \xNN, invalid
// UTF-8 bytes become \xNN, and anything past `max_bytes` is cut with "... (N bytes)".
std::string printable_excerpt(std::string_view bytes, std::size_t max_bytes = kMessageExcerptBytes);

// 101465 -> "101,465" (token counts in messages and tables).
std::string with_commas(int64_t n);

}  // namespace snapdoc

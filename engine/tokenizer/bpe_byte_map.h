// GPT-2's byte <-> Unicode mapping, which byte-level BPE vocabularies (GPT-2, Llama 3, Qwen,
// Mistral-Nemo) are written in: every byte is one visible code point, so a token's stored text
// ("Ġthe", "Ċ") is UTF-8 of those code points, not of the bytes it stands for. Printable Latin-1
// bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves; the other 68 map to U+0100.. in byte order
// (OpenAI's bytes_to_unicode in GPT-2's encoder.py; the same table in HF tokenizers and llama.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace snapdoc::byte_level {

// The code point byte `b` is written as.
uint32_t byte_to_code_point(uint8_t b);
// UTF-8 of byte_to_code_point(b) for every byte of `bytes` ("the" -> "the", " a" -> "Ġa").
std::string encode(std::string_view bytes);
// The bytes a stored token text stands for, or nullopt if it holds a code point outside the
// mapping (then it is not byte-level text) or is not well-formed UTF-8.
std::optional<std::string> decode(std::string_view text);

}  // namespace snapdoc::byte_level

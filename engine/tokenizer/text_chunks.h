// Cutting a long text into pieces that can be tokenized independently. SentencePiece's BPE gets
// slower per token as one input grows (1.1 MB of text encodes at under half the per-token speed of
// a few KB), and independent pieces can also be encoded on several threads.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace snapdoc {

// Consecutive views covering `text` exactly, each ending just after a '\n' (except possibly the
// last) and at least `target_bytes` long where the text allows: a cut is made at the first newline
// at or after `target_bytes` into the current piece. A text without newlines stays one piece.
std::vector<std::string_view> split_after_newlines(std::string_view text, std::size_t target_bytes);

}  // namespace snapdoc

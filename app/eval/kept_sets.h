// What a compressed cache keeps of the document, per (layer, cache head): the kept prefix positions
// plus the window's document positions. Used to carry one selection over to another question
// (compress once, query-agnostic), to compare kept sets between questions, and to check whether a
// needle survived compression.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/kv/selection.h"

namespace snapdoc::eval {

// [layer][cache head] -> ascending document positions (< document_tokens).
using DocKeep = std::vector<std::vector<std::vector<int32_t>>>;

// The document positions `sel` keeps (kept prefix positions and window positions below
// document_tokens). An uncompressed selection keeps every position.
DocKeep document_keep(const Selection& sel, int document_tokens, int n_layers, int cache_heads);

// A selection for a new prompt (prompt_len, window) over the same document that keeps exactly
// `keep` of the document (positions inside the new window are kept by the window anyway).
std::shared_ptr<const Selection> selection_from_keep(const DocKeep& keep, const SnapKvConfig& config, int prompt_len,
                                                     int window, int group);

// Mean over (layer, head) of |a ∩ b| / |a ∪ b|.
double mean_jaccard(const DocKeep& a, const DocKeep& b);

// Fraction of (layer, head) pairs that keep every one of `positions` (NaN if positions is empty).
double needle_recall(const DocKeep& keep, std::span<const int32_t> positions);

// Where `needle` (a token sequence) first occurs in `ids`, as its positions; empty if absent.
std::vector<int32_t> find_tokens(std::span<const int32_t> ids, std::span<const int32_t> needle);

}  // namespace snapdoc::eval

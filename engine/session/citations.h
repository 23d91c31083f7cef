// Citations: which passages of the document an answer drew on. After an answer is generated its
// tokens are run once over the stored document + turn K/V (no document re-prefill: only the answer
// rows go through the layers) and used as a SnapKV observation window over the document
// (Backend::window_scores). Per (layer, query head) the scores are normalised to a distribution
// over the document (attention sinks left out), averaged over heads and layers, and the result
// (one score per document token) is grouped into passages.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace snapdoc {

struct Citation {
    int first_token = 0;  // document token indices (positions in the document part), inclusive
    int last_token = 0;
    double weight = 0;    // share of the answer's document attention that falls in the passage (0..1)
    // How far the passage stands out from the diffuse background: its peak (smoothed) attention
    // over the mean per-token attention of the document (1 = background level).
    double lift = 0;
    // True when no passage stood out (lift < CitationOptions::min_lift) and this one, the strongest,
    // is shown alone as a weak citation.
    bool weak = false;
    // Citations come strongest first: by the passage's peak attention (see find_citations).
};

struct CitationOptions {
    int max_citations = 5;
    // Only passages whose peak is at least this many times the document's mean per-token attention
    // are cited (citation_salience.h); a flat distribution shows only its strongest, marked weak.
    double min_lift = 10.0;
    int sink_tokens = 4;      // the first positions (BOS, template opening) soak up attention; not scored
    int smooth_kernel = 5;    // moving average over positions before peaks are picked (odd)
    float threshold = 0.2f;   // positions at >= threshold × the highest smoothed score join a passage
    int merge_gap = 8;        // passages closer than this many tokens merge into one
    int max_passage = 96;     // no passage is longer (a longer run keeps the part around its peak;
                              // growing to sentence bounds and merging stop at it)
};

// Adds one layer's window scores (out of Backend::window_scores: [n_heads × doc_len], summed over
// the answer rows) to `acc` (doc_len entries): each head's scores over positions >= sink_tokens are
// normalised to sum 1, then added with weight 1 / (n_heads × n_layers). `head_writes` (n_heads
// flags for this layer, ModelConfig::head_writes; empty: all) leaves out heads that write nothing:
// where they looked did not shape the answer.
void accumulate_answer_attention(std::span<const float> layer_scores, int n_heads, int doc_len, int n_layers,
                                 int sink_tokens, std::vector<float>& acc,
                                 std::span<const uint8_t> head_writes = {});

// Passages from per-position scores: smoothed, thresholded, neighbours merged, each passage grown
// to the sentence bounds in `sentence_end` (optional: sentence_end[i] true when token i ends a
// sentence or line), ranked by their strongest smoothed stretch (so a sharp passage outranks a wide
// diffuse one), at most max_citations. Weights are each passage's share of the total score (so
// they need not fall in rank order).
std::vector<Citation> find_citations(std::span<const float> attention, const CitationOptions& options,
                                     std::span<const uint8_t> sentence_end = {});

}  // namespace snapdoc

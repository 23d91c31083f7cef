// Settings of SnapKV compression (Li et al., NeurIPS 2024) and its budget policies.
#pragma once

#include <string>
#include <string_view>

namespace snapdoc {

enum class Pooling { Max, Avg };
// kv-head: one kept set per KV head, chosen by the mean of the group's pooled scores (memory per
// KV head). query-head: the authors' reference behaviour, KV repeated per query head before
// selection, each query head keeps its own set (memory × group size).
enum class GqaMode { KvHead, QueryHead };
// uniform: B per layer; pyramid: PyramidKV's linear schedule (more in lower layers, same total);
// adaptive: AdaKV, per layer the heads share heads×(B−W) by a global top-k with a per-head floor.
enum class BudgetPolicy { Uniform, Pyramid, Adaptive };

struct SnapKvConfig {
    bool enabled = true;   // false: keep the full cache ("--full")
    int budget = 1024;     // B: kept positions per head per layer, window included
    int window = 32;       // W: observation window (last W prompt tokens)
    int kernel = 7;        // pooling kernel (odd)
    Pooling pooling = Pooling::Max;
    GqaMode gqa = GqaMode::KvHead;
    BudgetPolicy policy = BudgetPolicy::Uniform;
    float pyramid_beta = 20.0f;
    float adaptive_floor = 0.2f;  // alpha: each head keeps at least alpha·(B−W)

    // Throws Error for B <= W, an even or non-positive kernel, W < 1, bad beta/alpha.
    void validate() const;
};

std::string_view pooling_name(Pooling p);
std::string_view gqa_mode_name(GqaMode g);
std::string_view budget_policy_name(BudgetPolicy p);
Pooling parse_pooling(std::string_view s);          // "max" | "avg"
GqaMode parse_gqa_mode(std::string_view s);         // "kv-head" | "query-head"
BudgetPolicy parse_budget_policy(std::string_view s);  // "uniform" | "pyramid" | "adaptive"

}  // namespace snapdoc

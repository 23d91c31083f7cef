// Progress of a layer-major document prefill, reported once per chunk (a 100K-token document on a
// CPU spends minutes in one layer, so per-layer progress sat still; issue 12). `fraction` is the
// share of the prefill's *work* done, not of its rows: a chunk deep in the document attends over
// more keys and costs more, so a row count would run ahead of the clock.
#pragma once

#include <concepts>
#include <functional>
#include <type_traits>
#include <utility>

namespace snapdoc {

struct PrefillProgress {
    int layer = 0;         // the layer the last chunk ran through (0-based)
    int total_layers = 0;
    int layers_done = 0;   // layers finished (their K/V are in the store)
    int rows_done = 0;     // rows of `layer` finished
    int rows_total = 0;    // document tokens
    double fraction = 0;   // work done / work of the whole prefill, in [0, 1], cost-weighted
};

// The callback a prefill takes. It accepts the per-chunk form `void(const PrefillProgress&)` and,
// for callers written against the earlier per-layer callback, `void(int done_layers, int
// total_layers)`, which is then called once per finished layer as before.
class PrefillProgressFn {
public:
    PrefillProgressFn() = default;
    PrefillProgressFn(std::nullptr_t) {}

    template <typename F>
        requires std::invocable<F&, const PrefillProgress&>
    PrefillProgressFn(F f) {
        if constexpr (std::is_constructible_v<bool, const F&>)
            if (!static_cast<bool>(f)) return;  // an empty std::function stays "no callback"
        fn_ = std::move(f);
    }

    template <typename F>
        requires(!std::invocable<F&, const PrefillProgress&> && std::invocable<F&, int, int>)
    PrefillProgressFn(F f) {
        if constexpr (std::is_constructible_v<bool, const F&>)
            if (!static_cast<bool>(f)) return;
        fn_ = [f = std::move(f)](const PrefillProgress& p) mutable {
            if (p.rows_done == p.rows_total) f(p.layers_done, p.total_layers);
        };
    }

    explicit operator bool() const { return static_cast<bool>(fn_); }
    void operator()(const PrefillProgress& p) const {
        if (fn_) fn_(p);
    }

private:
    std::function<void(const PrefillProgress&)> fn_;
};

}  // namespace snapdoc

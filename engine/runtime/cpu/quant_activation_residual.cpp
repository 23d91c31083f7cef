#include "engine/runtime/cpu/quant_activation_residual.h"

namespace snapdoc::cpu {

namespace {

// Values [0, count) of one block: level q[i] stands for value at[i] of the block.
void residual_block(const float* x, float d, const int8_t* q, const int* at, int count, float* r) {
    const double dd = d;
    for (int i = 0; i < count; ++i) {
        const int v = at ? at[i] : i;
        r[v] = static_cast<float>(static_cast<double>(x[v]) - dd * q[i]);
    }
}

// ActBlock256Nibbles keeps each 128 levels as values [0..31, 64..95, 32..63, 96..127].
struct NibbleOrder {
    int at[256];
    NibbleOrder() {
        for (int run = 0; run < 8; ++run)
            for (int i = 0; i < 32; ++i) at[32 * run + i] = nibble_order_run_start(run) + i;
    }
};

}  // namespace

void activation_residual(ActFormat f, const float* x, const void* act, float* r, int64_t n) {
    switch (f) {
        case ActFormat::Blocks32: {
            const auto* b = static_cast<const ActBlock32*>(act);
            for (int64_t k = 0; k < n / 32; ++k) residual_block(x + 32 * k, b[k].d, b[k].q, nullptr, 32, r + 32 * k);
            return;
        }
        case ActFormat::Blocks256: {
            const auto* b = static_cast<const ActBlock256*>(act);
            for (int64_t k = 0; k < n / 256; ++k)
                residual_block(x + 256 * k, b[k].d, b[k].q, nullptr, 256, r + 256 * k);
            return;
        }
        case ActFormat::Blocks256Nibbles: {
            static const NibbleOrder order;
            const auto* b = static_cast<const ActBlock256Nibbles*>(act);
            for (int64_t k = 0; k < n / 256; ++k)
                residual_block(x + 256 * k, b[k].d, b[k].q, order.at, 256, r + 256 * k);
            return;
        }
    }
}

}  // namespace snapdoc::cpu

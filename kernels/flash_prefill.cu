#include "kernels/attention.h"
#include "kernels/flash_attention_tile.cuh"
#include "kernels/flash_prefill.h"

namespace snapdoc::kernels {

cudaError_t flash_attention(const FlashAttentionArgs& args, cudaStream_t stream) {
    const KvLayerView& c = args.cache;
    if (args.n <= 0) return cudaSuccess;
    if (c.n_heads <= 0 || c.n_heads > kMaxCacheHeads || args.n_heads % c.n_heads != 0 || c.head_dim <= 0 ||
        c.head_dim > kMaxHeadDim || args.sliding_window < 0)
        return cudaErrorInvalidValue;
    flash::TileArgs t;
    t.q = args.q;
    t.q_stride = args.q_stride;
    t.q_pos = args.q_pos;
    t.n = args.n;
    t.n_heads = args.n_heads;
    t.scale = args.scale;
    t.sliding_window = args.sliding_window;
    t.cache = c;
    t.out = args.out;
    t.out_stride = args.out_stride;
    t.lse = args.lse;
    const int group = args.n_heads / c.n_heads;
    const dim3 grid(detail::ceil_div(static_cast<int64_t>(args.n) * group, flash::kItems), c.n_heads);
    // head_dim past 64 (and below 128) runs in the 128 tile, zero-padded like every shorter head.
    if (c.head_dim <= 64)
        SNAPDOC_LAUNCH(grid, flash::kWarps * 32, 0, stream, flash::attention_tile_kernel<64, true>)(t);
    else
        SNAPDOC_LAUNCH(grid, flash::kWarps * 32, 0, stream, flash::attention_tile_kernel<128, true>)(t);
    return cudaGetLastError();
}

}  // namespace snapdoc::kernels

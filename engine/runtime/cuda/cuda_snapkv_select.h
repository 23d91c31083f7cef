// SnapKV's selection of one layer on the device (Backend::snapkv_select_layer for the CUDA
// backend): the window scores go up once, pooling and the top-k run in kernels/snapkv.h, and only
// what the host must see comes back — the pooled scores (the inspector's heatmaps) and the kept
// positions (a few KiB of indices). The kept sets and pooled scores equal engine/kv/selection's
// bit for bit: the same arithmetic for pooling, ties at the cut-off to the lowest positions (AdaKV:
// the lowest (head, position)).
#pragma once

#include "engine/kv/selection.h"
#include "engine/runtime/cuda/cuda_check.h"

namespace snapdoc::cuda {

class CudaSnapKvSelect {
public:
    explicit CudaSnapKvSelect(cudaStream_t stream) : stream_(stream) {}
    // As select_layer(scores, layer, selection) (engine/kv/selection.h).
    void select_layer(const WindowScores& scores, int layer, Selection& selection);

private:
    cudaStream_t stream_;
    DeviceBuffer scores_, pooled_, masked_, kept_, global_;
};

}  // namespace snapdoc::cuda

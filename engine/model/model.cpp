#include "engine/model/model.h"

#include "engine/model/head_writes.h"

#include <cstring>
#include <fstream>
#include <unordered_set>

#include "engine/common/error.h"
#include "engine/model/finite_weights.h"
#include "engine/model/gguf_model.h"
#include "engine/model/hf_model.h"
#include "engine/model/mapped_file.h"

namespace snapdoc {

namespace {

// Every distinct weight tensor once (a tied output head is the embedding matrix itself).
template <typename F>
void for_each_unique(const ModelWeights& w, F&& f) {
    std::unordered_set<const void*> seen;
    auto visit = [&](const TensorView& v) {
        if (v.valid() && seen.insert(v.data).second) f(v);
    };
    visit(w.tok_embeddings);
    for (const LayerWeights& l : w.layers) {
        for (const TensorView* v : l.views()) visit(*v);
    }
    visit(w.out_norm);
    visit(w.output);
}

}  // namespace

int64_t Model::parameter_count() const {
    int64_t n = 0;
    for_each_unique(weights, [&](const TensorView& v) { n += v.numel(); });
    return n;
}

std::vector<const TensorView*> Model::unique_weights() const {
    std::vector<const TensorView*> out;
    for_each_unique(weights, [&](const TensorView& v) { out.push_back(&v); });
    return out;
}

int64_t Model::weight_bytes() const {
    int64_t n = 0;
    for_each_unique(weights, [&](const TensorView& v) { n += static_cast<int64_t>(v.nbytes); });
    return n;
}

namespace {

Model load_any_format(const std::filesystem::path& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) throw FormatError("model path '" + path.string() + "' does not exist");
    if (std::filesystem::is_directory(status)) return load_hf_model(path);

    // A path to a Hugging Face folder's config.json or weights means the folder.
    const std::string filename = path.filename().string();
    if (filename == "config.json" || path.extension() == ".safetensors") {
        const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
        if (std::filesystem::exists(dir / "config.json", ec)) return load_hf_model(dir);
    }

    // Mapped first (the guarded open refuses FIFOs and devices without blocking), then sniffed.
    auto file = MappedFile::open(path);
    if (file->size() >= 4 && std::memcmp(file->data(), "GGUF", 4) == 0) return load_gguf_model(std::move(file));
    throw FormatError("'" + path.string() +
                      "' is neither a GGUF file (it does not start with 'GGUF') nor a Hugging Face model folder");
}

}  // namespace

Model load_model(const std::filesystem::path& path) {
    Model m = load_any_format(path);
    check_finite_weights(m);  // norms and biases; the matrices are checked by the first forward
    m.config.head_writes = heads_that_write(m.config, m.weights);
    return m;
}

}  // namespace snapdoc

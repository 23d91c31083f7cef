#include "tests/support/gguf_split_writer.h"

#include <stdexcept>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_split.h"
#include "engine/model/gguf_writer.h"

namespace snapdoc::testing {

std::vector<std::filesystem::path> write_gguf_split(const std::filesystem::path& src,
                                                    const std::filesystem::path& dir, const std::string& prefix,
                                                    int count) {
    const GgufFile in = GgufFile::open(src);
    const auto& tensors = in.tensors();
    if (count < 1 || static_cast<std::size_t>(count) > tensors.size())
        throw std::runtime_error("write_gguf_split: cannot split " + std::to_string(tensors.size()) + " tensors in " +
                                 std::to_string(count));
    std::vector<std::filesystem::path> out;
    const std::size_t per = (tensors.size() + count - 1) / count;
    for (int i = 0; i < count; ++i) {
        GgufWriter w;
        w.set_u16("split.no", static_cast<uint16_t>(i));
        w.set_u16("split.count", static_cast<uint16_t>(count));
        if (i == 0) {
            w.set_i32("split.tensors.count", static_cast<int32_t>(tensors.size()));
            for (const auto& e : in.entries()) w.set(e.key, in.value(e.key));
        }
        const std::size_t begin = i * per, end = std::min(tensors.size(), begin + per);
        for (std::size_t t = begin; t < end; ++t) {
            const auto& info = tensors[t];
            if (!info.nbytes) throw std::runtime_error("write_gguf_split: tensor " + info.name + " of unknown size");
            const uint8_t* data = in.tensor_data(info);
            w.add_tensor_raw(info.name, info.shape(), info.ggml_type, std::vector<uint8_t>(data, data + *info.nbytes));
        }
        out.push_back(dir / gguf_shard_file_name(prefix, i + 1, count));
        w.write(out.back());
    }
    return out;
}

}  // namespace snapdoc::testing

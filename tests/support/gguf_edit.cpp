#include "tests/support/gguf_edit.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_writer.h"

namespace snapdoc::testing {

void rewrite_gguf(const std::filesystem::path& src, const std::filesystem::path& dst, const GgufEdit& edit) {
    const GgufFile in = GgufFile::open(src);
    GgufWriter out;
    for (const auto& e : in.entries()) {
        std::string key = e.key;
        GgufMetaValue value = in.value(e.key);
        if (edit.meta && !edit.meta(key, value)) continue;
        out.set(key, std::move(value));
    }
    for (const auto& [key, value] : edit.add_meta) out.set(key, value);
    for (const auto& t : in.tensors()) {
        if (!t.nbytes) throw std::runtime_error("rewrite_gguf: tensor " + t.name + " has a type of unknown size");
        std::string name = t.name;
        std::vector<int64_t> shape = t.shape();
        uint32_t type = t.ggml_type;
        const uint8_t* data = in.tensor_data(t);
        std::vector<uint8_t> bytes(data, data + *t.nbytes);
        if (edit.tensor && !edit.tensor(name, shape, type, bytes)) continue;
        out.add_tensor_raw(name, shape, type, std::move(bytes));
    }
    out.write(dst);
}

std::string read_file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace snapdoc::testing

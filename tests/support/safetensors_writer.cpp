#include "tests/support/safetensors_writer.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace snapdoc::testing {

namespace {

using nlohmann::json;

const char* st_dtype(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        default: break;  // block types exist only in GGUF
    }
    throw std::invalid_argument("safetensors cannot store " + std::string(dtype_name(t)));
}

int64_t numel_of(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

}  // namespace

void write_raw_safetensors(const std::filesystem::path& file, const std::string& header, const std::string& data,
                           std::optional<uint64_t> header_length) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    const uint64_t len = header_length.value_or(header.size());
    out.write(reinterpret_cast<const char*>(&len), sizeof len);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) throw std::runtime_error("cannot write " + file.string());
}

void write_safetensors(const std::filesystem::path& file, const std::vector<StTensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    json header = json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::string data;
    for (const StTensor& t : tensors) {
        const int64_t n = numel_of(t.shape);
        if (static_cast<int64_t>(t.values.size()) != n) {
            throw std::invalid_argument("tensor " + t.name + ": value count does not match its shape");
        }
        const std::size_t begin = data.size();
        data.resize(begin + dtype_row_bytes(t.dtype, n));
        quantize_row(t.dtype, t.values.data(), data.data() + begin, n);
        header[t.name] = {{"dtype", st_dtype(t.dtype)}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned, as the format recommends
    write_raw_safetensors(file, text, data);
}

void write_safetensors_checkpoint(const std::filesystem::path& dir, const std::vector<StTensor>& tensors, int shards) {
    std::filesystem::create_directories(dir);
    if (shards <= 1) {
        write_safetensors(dir / "model.safetensors", tensors);
        return;
    }
    json weight_map = json::object();
    std::size_t next = 0;
    uint64_t total = 0;
    for (int s = 0; s < shards; ++s) {
        // Contiguous, nearly equal groups of tensors.
        const std::size_t end = tensors.size() * static_cast<std::size_t>(s + 1) / static_cast<std::size_t>(shards);
        char name[64];
        std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", s + 1, shards);
        std::vector<StTensor> part(tensors.begin() + static_cast<std::ptrdiff_t>(next),
                                   tensors.begin() + static_cast<std::ptrdiff_t>(end));
        for (const StTensor& t : part) {
            weight_map[t.name] = name;
            total += dtype_row_bytes(t.dtype, numel_of(t.shape));
        }
        write_safetensors(dir / name, part);
        next = end;
    }
    const json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
    std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
}

}  // namespace snapdoc::testing

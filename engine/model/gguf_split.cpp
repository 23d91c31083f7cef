#include "engine/model/gguf_split.h"

#include <charconv>
#include <cstdio>

#include "engine/common/error.h"

namespace snapdoc {

namespace {

constexpr std::string_view kSplitNo = "split.no", kSplitCount = "split.count",
                           kSplitTensors = "split.tensors.count";

bool parse_digits(std::string_view s, int& out) {
    if (s.size() != 5) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// split.no / split.count of a file (0 and 1 when it has none).
struct SplitKeys {
    int64_t no = 0, count = 1;
};
SplitKeys split_keys(const GgufFile& g) {
    SplitKeys k;
    k.count = g.get_int_opt(kSplitCount).value_or(1);
    k.no = g.get_int_opt(kSplitNo).value_or(0);
    return k;
}

}  // namespace

std::optional<GgufShardName> parse_gguf_shard_name(std::string_view name) {
    // PREFIX-NNNNN-of-MMMMM.gguf: 5 + 4 + 5 + 5 characters after the prefix.
    constexpr std::size_t kTail = 1 + 5 + 4 + 5 + 5;
    if (name.size() <= kTail) return std::nullopt;
    const std::string_view tail = name.substr(name.size() - kTail);
    if (tail[0] != '-' || tail.substr(6, 4) != "-of-" || tail.substr(15) != ".gguf") return std::nullopt;
    GgufShardName s;
    if (!parse_digits(tail.substr(1, 5), s.index) || !parse_digits(tail.substr(10, 5), s.count)) return std::nullopt;
    if (s.count < 1 || s.index < 1 || s.index > s.count) return std::nullopt;
    s.prefix = std::string(name.substr(0, name.size() - kTail));
    return s;
}

std::string gguf_shard_file_name(std::string_view prefix, int index, int count) {
    char tail[32];
    std::snprintf(tail, sizeof tail, "-%05d-of-%05d.gguf", index, count);
    return std::string(prefix) + tail;
}

GgufSet GgufSet::open(std::shared_ptr<const MappedFile> file) {
    GgufSet set;
    GgufFile first = GgufFile::parse(std::move(file));
    const SplitKeys keys = split_keys(first);
    if (keys.count == 1 && keys.no == 0) {
        set.shards_.push_back(std::move(first));
        set.index_tensors();
        return set;
    }
    const std::string opened = first.name();
    const std::filesystem::path path = first.mapping()->path();
    if (keys.count < 1 || keys.count > 99999 || keys.no < 0 || keys.no >= keys.count)
        throw FormatError("GGUF file '" + opened + "': split.no " + std::to_string(keys.no) + " / split.count " +
                          std::to_string(keys.count) + " is not a shard of a split set");
    const auto name = parse_gguf_shard_name(path.filename().string());
    const int count = static_cast<int>(keys.count);
    if (!name || name->count != count || name->index != keys.no + 1)
        throw FormatError("GGUF file '" + opened + "' is shard " + std::to_string(keys.no + 1) + " of " +
                          std::to_string(count) + " of a split model, but its name does not say so (expected " +
                          gguf_shard_file_name(name ? name->prefix : path.stem().string(), static_cast<int>(keys.no) + 1, count) +
                          "), so its other shards cannot be found");
    const std::filesystem::path dir = path.parent_path();
    const std::string set_name = (dir / gguf_shard_file_name(name->prefix, 1, count)).string();
    for (int i = 0; i < count; ++i) {
        if (i == keys.no) {
            set.shards_.push_back(std::move(first));  // moved once; `keys` still holds its numbers
            continue;
        }
        const std::filesystem::path shard = dir / gguf_shard_file_name(name->prefix, i + 1, count);
        std::error_code ec;
        if (!std::filesystem::exists(shard, ec))
            throw FormatError("split GGUF '" + set_name + "': shard " + std::to_string(i + 1) + " of " +
                              std::to_string(count) + " ('" + shard.filename().string() + "') is missing");
        set.shards_.push_back(GgufFile::open(shard));
        const SplitKeys k = split_keys(set.shards_.back());
        if (k.count != count || k.no != i)
            throw FormatError("split GGUF '" + set_name + "': '" + shard.filename().string() + "' says it is shard " +
                              std::to_string(k.no + 1) + " of " + std::to_string(k.count) + ", not " +
                              std::to_string(i + 1) + " of " + std::to_string(count) +
                              " (a shard of another set?)");
    }
    const GgufFile& meta = set.shards_.front();
    std::size_t total = 0;
    for (const GgufFile& s : set.shards_) total += s.tensors().size();
    if (const auto declared = meta.get_int_opt(kSplitTensors); declared && *declared != static_cast<int64_t>(total))
        throw FormatError("split GGUF '" + set_name + "' has " + std::to_string(total) + " tensors in its " +
                          std::to_string(count) + " shards, but split.tensors.count says " + std::to_string(*declared));
    set.index_tensors();
    return set;
}

void GgufSet::index_tensors() {
    for (const GgufFile& s : shards_)
        for (const GgufFile::TensorInfo& t : s.tensors()) {
            if (!tensors_.emplace(t.name, Tensor{&s, &t}).second)
                throw FormatError("split GGUF '" + shards_.front().name() + "': tensor '" + t.name +
                                  "' is in two shards (the second: '" + s.name() + "')");
        }
}

const GgufSet::Tensor* GgufSet::find_tensor(std::string_view name) const {
    const auto it = tensors_.find(std::string(name));
    return it == tensors_.end() ? nullptr : &it->second;
}

std::vector<std::string> GgufSet::tensor_names() const {
    std::vector<std::string> out;
    for (const GgufFile& s : shards_)
        for (const GgufFile::TensorInfo& t : s.tensors()) out.push_back(t.name);
    return out;
}

std::vector<std::filesystem::path> gguf_model_files(const std::filesystem::path& path) {
    const auto name = parse_gguf_shard_name(path.filename().string());
    if (!name || name->count == 1) return {path};
    std::vector<std::filesystem::path> out;
    for (int i = 1; i <= name->count; ++i) out.push_back(path.parent_path() / gguf_shard_file_name(name->prefix, i, name->count));
    return out;
}

}  // namespace snapdoc

#include "engine/model/safetensors_checkpoint.h"

#include <map>

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/message_text.h"
#include "engine/common/json_input.h"
#include "engine/model/read_file.h"

namespace snapdoc {

namespace {

using nlohmann::json;

// A shard must be a plain file name inside the folder: an index naming "../x" or "/etc/x" is refused.
bool plain_file_name(const std::string& s) {
    return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
           s.find('\\') == std::string::npos && s.find('\0') == std::string::npos;
}

}  // namespace

SafetensorsCheckpoint SafetensorsCheckpoint::open_folder(const std::filesystem::path& dir) {
    SafetensorsCheckpoint ck;
    const auto index_path = dir / "model.safetensors.index.json";
    const auto single_path = dir / "model.safetensors";
    std::error_code ec;

    // weight_map entries, checked against the shards once they are open.
    std::vector<std::pair<std::string, std::string>> expected;
    if (std::filesystem::exists(index_path, ec)) {
        const std::string what = "'" + index_path.string() + "'";
        const json index = parse_json_input(read_small_file(index_path), what + " is ");
        if (!index.is_object()) throw FormatError(what + " is not a JSON object");
        const auto wm = index.find("weight_map");
        if (wm == index.end() || !wm->is_object()) throw FormatError(what + " has no \"weight_map\" object");
        std::map<std::string, std::size_t> shard_ids;  // sorted: shards open in name order
        for (const auto& [tensor, shard] : wm->items()) {
            if (!shard.is_string() || !plain_file_name(shard.get<std::string>())) {
                throw FormatError(what + ": weight_map entry '" + tensor + "' must name a file in the same folder");
            }
            shard_ids.emplace(shard.get<std::string>(), 0);
            expected.emplace_back(tensor, shard.get<std::string>());
        }
        if (shard_ids.empty()) throw FormatError(what + ": \"weight_map\" is empty");
        for (auto& [shard, id] : shard_ids) {
            id = ck.files_.size();
            ck.files_.push_back(SafetensorsFile::open(dir / shard));
        }
    } else if (std::filesystem::exists(single_path, ec)) {
        ck.files_.push_back(SafetensorsFile::open(single_path));
    } else {
        throw FormatError("no model.safetensors or model.safetensors.index.json in '" + dir.string() + "'");
    }

    for (std::size_t f = 0; f < ck.files_.size(); ++f) {
        for (const auto& t : ck.files_[f].tensors()) {
            if (!ck.tensor_file_.emplace(t.name, f).second) {
                throw FormatError("tensor '" + printable_excerpt(t.name) + "' appears in two shards ('" +
                                  ck.files_[ck.tensor_file_[t.name]].name() + "' and '" + ck.files_[f].name() + "')");
            }
        }
    }
    for (const auto& [tensor, shard] : expected) {
        const SafetensorsFile* file = nullptr;
        if (ck.find(tensor, &file) == nullptr || file->mapping()->path().filename() != shard) {
            throw FormatError("'" + index_path.string() + "' places tensor '" + tensor + "' in '" + shard +
                              "', but that shard does not contain it");
        }
    }
    return ck;
}

const SafetensorsFile::TensorInfo* SafetensorsCheckpoint::find(std::string_view name, const SafetensorsFile** file) const {
    auto it = tensor_file_.find(std::string(name));
    if (it == tensor_file_.end()) return nullptr;
    if (file != nullptr) *file = &files_[it->second];
    return files_[it->second].find(name);
}

std::vector<std::shared_ptr<const MappedFile>> SafetensorsCheckpoint::mappings() const {
    std::vector<std::shared_ptr<const MappedFile>> out;
    out.reserve(files_.size());
    for (const auto& f : files_) out.push_back(f.mapping());
    return out;
}

}  // namespace snapdoc

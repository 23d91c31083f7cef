// The weights of a Hugging Face folder: one `model.safetensors`, or shards listed by
// `model.safetensors.index.json` ("weight_map": tensor name -> shard file). Each shard is mapped once.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/model/safetensors_file.h"

namespace snapdoc {

class SafetensorsCheckpoint {
public:
    // Throws FormatError naming the folder or file when the weights are missing or malformed.
    static SafetensorsCheckpoint open_folder(const std::filesystem::path& dir);

    const std::vector<SafetensorsFile>& files() const { return files_; }
    // The tensor's entry (and, if `file` is non-null, the file holding it), or nullptr.
    const SafetensorsFile::TensorInfo* find(std::string_view name, const SafetensorsFile** file = nullptr) const;
    std::vector<std::shared_ptr<const MappedFile>> mappings() const;

private:
    std::vector<SafetensorsFile> files_;
    std::unordered_map<std::string, std::size_t> tensor_file_;  // tensor name -> index in files_
};

}  // namespace snapdoc

// The models folder: MODELS/{owner}/{name}/{file} for files from the hub, where MODELS is
// $SNAPDOC_MODELS_DIR, else $XDG_DATA_HOME/snapdoc/models, else ~/.local/share/snapdoc/models.
// Lists what is there (complete files only: .part/.part.json/.lock are the download engine's),
// deletes, and finds the local copy of a model reference without touching the network. Qt-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/hub/model_ref.h"

namespace snapdoc::hub {

std::filesystem::path default_models_dir();

// One model on disk: a single .gguf or a complete shard set of one repository.
struct LocalModel {
    std::string repo;                          // "owner/name"
    std::string quant;                         // from the file name; "" if none
    std::vector<std::filesystem::path> files;  // absolute; shards in index order
    int64_t size_bytes = 0;                    // all files together
    bool complete = true;                      // false: a shard set with shards missing
    const std::filesystem::path& path() const { return files.front(); }  // what load_model opens
    std::string file_name() const;                                       // first file's path inside the repo
};

class ModelStore {
public:
    explicit ModelStore(std::filesystem::path dir = default_models_dir());
    const std::filesystem::path& dir() const { return dir_; }

    // dir/{repo}/{file}; checks the repo id and file path (no escaping the folder).
    std::filesystem::path file_path(std::string_view repo, std::string_view file) const;

    // Every complete .gguf (or shard set) under the folder, sorted by repo then file name.
    // A missing folder is an empty list.
    std::vector<LocalModel> list() const;
    std::vector<LocalModel> list(std::string_view repo) const;

    // The local model a reference names, if it is fully on disk: REPO:QUANT (or REPO alone, with
    // the same default pick as the hub listing) or REPO + FILE. No network.
    std::optional<LocalModel> find(const ModelRef& ref) const;

    // Deletes the model's files (and any .part/.part.json of them), then empty folders up to dir.
    // Throws Error when a download of one of them is in progress (its lock is held).
    void remove(const LocalModel& model) const;

    // Bytes held by unfinished downloads (.part files) of a repo ("" = all), for the UI's list.
    int64_t partial_bytes(std::string_view repo = {}) const;

private:
    std::filesystem::path dir_;
};

}  // namespace snapdoc::hub

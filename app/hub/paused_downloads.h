// Downloads left unfinished by an earlier run (paused, or cut off by quitting or a crash), found
// from the download engine's sidecars in the models folder: each .part.json names its repository,
// revision and the whole set it belongs to, so the download is listed after a restart and resumes
// with a click, without finding the same repository and quantization on the hub again. Qt-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app/hub/download.h"

namespace snapdoc::hub {

struct PausedDownload {
    std::string repo;
    std::string revision;
    std::vector<RemoteFile> files;  // the whole set, in set order
    int64_t bytes_done = 0;         // .part bytes plus the set's files already complete
    int64_t bytes_total = -1;       // -1 when a file's size is unknown
    // "Qwen/Qwen2.5-0.5B-Instruct-GGUF Q4_K_M" (the quantization from the file name, else the file).
    std::string title() const;
};

// Every unfinished download under `models_dir`, sorted by repository then first file; a set with
// several partial files is listed once. Sidecars that are unreadable, name a path outside the
// folder, or belong to an old engine that did not record the set of a shard file are skipped.
// A missing folder is an empty list.
std::vector<PausedDownload> find_paused_downloads(const std::filesystem::path& models_dir);

// The request that resumes it (Download picks up the .part files where they stopped).
DownloadRequest resume_request(const PausedDownload& paused, const HubEndpoint& endpoint,
                               const std::filesystem::path& models_dir);

}  // namespace snapdoc::hub

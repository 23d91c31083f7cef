// The one call the CLI's -m hf://... and `pull` use: the local copy of a model reference if it is
// complete, else list the repo on the hub, pick the file(s) and download them (resuming any .part).
#pragma once

#include <atomic>
#include <filesystem>
#include <vector>

#include "app/hub/download.h"
#include "app/hub/hub_endpoint.h"
#include "app/hub/model_ref.h"
#include "app/hub/model_store.h"

namespace snapdoc::hub {

// Which files of the hub repo `ref` names (fetches the tree). Throws Error in words.
struct RemoteChoice {
    std::string revision;
    GgufChoice choice;
};
RemoteChoice resolve_remote(const HubEndpoint& ep, const ModelRef& ref,
                            const std::atomic<bool>* cancel = nullptr);

// A DownloadRequest for a resolved choice into `store`.
DownloadRequest make_request(const HubEndpoint& ep, const ModelRef& ref, const RemoteChoice& remote,
                             const ModelStore& store);

struct FetchOutcome {
    DownloadResult result;   // state Done: files are the local paths (first = what to load)
    bool was_local = false;  // true when nothing was downloaded
};
// Local copy, else download on the calling thread. `pause_flag`, when it becomes true (Ctrl-C),
// pauses the download (result Paused: .part + sidecar kept, a rerun resumes).
FetchOutcome fetch_model(const HubEndpoint& ep, const ModelRef& ref, const ModelStore& store,
                         const Download::ProgressCallback& on_progress, const std::atomic<bool>* pause_flag,
                         DownloadOptions options = {});

}  // namespace snapdoc::hub

#include "app/hub/model_fetch.h"

#include <thread>

#include "engine/common/error.h"

namespace snapdoc::hub {

RemoteChoice resolve_remote(const HubEndpoint& ep, const ModelRef& ref, const std::atomic<bool>* cancel) {
    RemoteChoice rc;
    rc.revision = ref.revision.empty() ? std::string(kDefaultRevision) : ref.revision;
    const auto files = fetch_repo_tree(ep, ref.repo, rc.revision, cancel);
    const auto choices = gguf_choices(files);
    rc.choice = ref.file.empty() ? pick_choice(choices, ref.quant, ref.repo)
                                 : choice_for_file(choices, ref.file, ref.repo);
    if (!rc.choice.complete)
        throw Error(ref.repo + ": the shard set of " + rc.choice.first_path() + " is incomplete on the hub");
    return rc;
}

DownloadRequest make_request(const HubEndpoint& ep, const ModelRef& ref, const RemoteChoice& remote,
                             const ModelStore& store) {
    DownloadRequest r;
    r.endpoint = ep;
    r.repo = ref.repo;
    r.revision = remote.revision;
    r.files = remote.choice.files;
    r.models_dir = store.dir();
    return r;
}

FetchOutcome fetch_model(const HubEndpoint& ep, const ModelRef& ref, const ModelStore& store,
                         const Download::ProgressCallback& on_progress, const std::atomic<bool>* pause_flag,
                         DownloadOptions options) {
    FetchOutcome out;
    if (auto local = store.find(ref)) {
        out.was_local = true;
        out.result.state = DownloadState::Done;
        out.result.files = local->files;
        return out;
    }
    const RemoteChoice remote = resolve_remote(ep, ref, pause_flag);
    Download d(make_request(ep, ref, remote, store), std::move(options));
    d.start(on_progress);
    // The flag is set by a signal handler (Ctrl-C); pause() is called from here, a normal thread.
    while (!d.wait_for(std::chrono::milliseconds(50)))
        if (pause_flag && pause_flag->load()) d.pause();
    out.result = d.wait();
    return out;
}

}  // namespace snapdoc::hub

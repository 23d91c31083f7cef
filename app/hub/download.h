// Downloads one model (a file, or a shard set) from the hub into the models folder, on libcurl.
//
// On disk, beside the final file MODELS/{repo}/{file}:
//   {file}.part       the bytes so far (appended to; never visible under the final name)
//   {file}.part.json  sidecar: url, repo, revision, expected size, sha256, etag (so a paused or
//                     killed download resumes in a new process)
//   {file}.lock       flock()ed while a process downloads the file; holds that process's pid
// The final name appears (rename, atomic in one directory) only when the size matches and the
// sha256 (when the hub gave one) matches; then the sidecar and lock go. A sha256 mismatch keeps
// the .part and says so with both hashes; the next start deletes it and restarts from zero.
//
// Transfers resume with Range; a server that answers 200 to a Range request, or whose ETag changed
// since the sidecar was written, restarts the file from byte 0 (said in the progress message).
// Transient failures (connection errors, cut transfers, 5xx/429, a stall: no byte for
// `stall_timeout`) are retried by themselves with exponential backoff; the attempt count resets
// whenever an attempt made progress, so only `max_attempts` failures in a row without a byte give up.
// 401/403/404, a full disk and a hash mismatch are not retried.
//
// The sha256 is computed while bytes arrive; on resume the existing .part is hashed once first
// (OpenSSL's SHA-256 uses SHA-NI: 1,646 MiB per CPU second on the dev machine; RESULTS.md).
// Proxies: libcurl reads http_proxy / https_proxy / HTTPS_PROXY / ALL_PROXY / no_proxy itself.
//
// Threading: start() runs the download on a worker thread the Download owns. The progress and
// done callbacks are called on that worker thread (never concurrently with each other); a GUI must
// forward them to its own thread (e.g. a queued signal) and must not call wait() or destroy the
// Download from inside a callback. pause() and cancel() may be called from any thread (also from
// inside a callback), return at once (an atomic store + curl_multi_wakeup; not from a signal
// handler: set a flag there and call pause() from a thread), and take effect within ~100 ms even
// in the middle of a stalled transfer; the done callback then reports Paused or Cancelled. Qt-free.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/hub/hub_endpoint.h"
#include "app/hub/hub_tree.h"

namespace snapdoc::hub {

enum class DownloadState {
    Idle,         // constructed, not started
    Checking,     // lock, free disk, hashing an existing .part
    Downloading,  // bytes flowing
    Retrying,     // waiting out a backoff after a transient failure (message says why)
    Verifying,    // final size/sha256 check and the rename
    Paused,       // stopped by pause(); .part and sidecar kept; start() again (or a new Download) resumes
    Cancelled,    // stopped by cancel(); .part and sidecar removed
    Done,         // every file is in the models folder, checked (DownloadResult::checks says how)
    Failed,       // gave up; DownloadResult::error says why in words
};
const char* state_name(DownloadState s);  // "downloading", "paused", ...

// Why a download failed (the UI picks a button from it, e.g. "Set token" for NeedsToken).
enum class DownloadError {
    None,
    NeedsToken,    // 401/403: a token, or accepting the licence on the model page, is needed
    NotFound,      // 404: no such repository, revision or file
    DiskFull,      // not enough free space before starting, or ENOSPC while writing
    HashMismatch,  // sha256 of the complete file differs from the hub's; the .part is kept
    Busy,          // another process is downloading this file (lock held) and wait_for_lock is false
    Network,       // transient failures went on past max_attempts
    Server,        // a response that makes no sense (wrong size, bad Content-Range)
    Io,            // a local file error (permission, ...)
};

struct DownloadProgress {
    DownloadState state = DownloadState::Idle;
    int64_t bytes_done = 0;       // over the whole set, including bytes from earlier sessions
    int64_t bytes_total = -1;     // over the whole set; -1 while unknown
    double bytes_per_second = 0;  // smoothed over the last few seconds of this session
    double eta_seconds = -1;      // -1 while unknown
    int file_index = 0;           // 0-based index of the file being worked on
    int file_count = 0;
    std::string file;     // its repository path
    int attempt = 0;      // failures in a row so far (0 while all goes well)
    std::string message;  // a line for the user: "stalled for 20 s; retrying (2 of 6)"
};

// How a downloaded file was checked: its sha256 against the hub's listing, or only its size when
// the listing gave no sha256 (a plain git file, not LFS). Only Sha256 may be called "verified".
enum class FileCheck { Sha256, SizeOnly };
// "verified" when every file's sha256 was checked, else "size checked" (what the CLI prints).
const char* check_words(const std::vector<FileCheck>& checks);

struct DownloadResult {
    DownloadState state = DownloadState::Idle;  // Done, Paused, Cancelled or Failed
    DownloadError error_kind = DownloadError::None;
    std::string error;                         // one line in words when Failed
    std::vector<std::filesystem::path> files;  // the final paths (in set order) when Done
    std::vector<FileCheck> checks;             // how each of `files` was checked, when Done
};

struct DownloadRequest {
    HubEndpoint endpoint;
    std::string repo;  // "owner/name"
    std::string revision = std::string(kDefaultRevision);
    std::vector<RemoteFile> files;     // from the tree listing (sizes, sha256); one set
    std::filesystem::path models_dir;  // ModelStore::dir(); files go to models_dir/repo/path
};

struct DownloadOptions {
    // A transfer that fails (a network outage, a stall, a 5xx) is retried with backoff until it
    // has gone `give_up_after` without a byte of progress: an outage of minutes (a train tunnel,
    // a router restart) is ridden out, and the message says for how long it keeps trying.
    std::chrono::milliseconds give_up_after{std::chrono::minutes(10)};
    int max_attempts = 0;                            // failures in a row without progress (0: no count cap)
    std::chrono::milliseconds backoff_initial{500};  // doubled per failure...
    std::chrono::milliseconds backoff_max{30000};    // ...up to this
    std::chrono::milliseconds stall_timeout{20000};  // no byte for this long -> retry
    std::chrono::milliseconds connect_timeout{15000};
    std::chrono::milliseconds progress_interval{200};  // at most one progress call per interval
    bool wait_for_lock = false;  // true: wait for another process's download of a file, then reuse it
    // Bytes free for a new file in `dir` (default: statvfs f_bavail * f_frsize). Tests inject one.
    std::function<int64_t(const std::filesystem::path& dir)> free_space;
    // Kept free beyond the download, so the machine is not left with a full disk.
    int64_t reserve_bytes = int64_t{64} << 20;
};

class Download {
public:
    using ProgressCallback = std::function<void(const DownloadProgress&)>;
    using DoneCallback = std::function<void(const DownloadResult&)>;

    explicit Download(DownloadRequest request, DownloadOptions options = {});
    ~Download();  // pause()s a running download (its .part survives) and joins the worker
    Download(const Download&) = delete;
    Download& operator=(const Download&) = delete;

    // Starts (or, after Paused/Failed, resumes) on the worker thread; returns at once. Either
    // callback may be empty. Calling it while running is a no-op.
    void start(ProgressCallback on_progress = {}, DoneCallback on_done = {});
    void pause();   // any thread; the result becomes Paused
    void cancel();  // any thread; the result becomes Cancelled and the .part/sidecar are deleted
    void resume() { start(on_progress_, on_done_); }  // start() again with the same callbacks

    // Blocks until the worker finishes and returns its result (Idle if never started). Not from
    // inside a callback.
    DownloadResult wait();
    bool wait_for(std::chrono::milliseconds timeout);  // true when not running (finished or idle)
    bool running() const;
    DownloadProgress progress() const;  // the latest snapshot, from any thread
    const DownloadRequest& request() const { return request_; }

    // Runs the whole download on the calling thread (the CLI), returning its result.
    DownloadResult run(ProgressCallback on_progress = {});

private:
    struct Worker;
    DownloadRequest request_;
    DownloadOptions options_;
    ProgressCallback on_progress_;
    DoneCallback on_done_;
    std::shared_ptr<Worker> worker_;
};

// The paths the engine keeps beside a final file (exposed for the store's listing and for tests).
std::filesystem::path part_path(const std::filesystem::path& final_path);     // final + ".part"
std::filesystem::path sidecar_path(const std::filesystem::path& final_path);  // final + ".part.json"
std::filesystem::path lock_path(const std::filesystem::path& final_path);     // final + ".lock"

}  // namespace snapdoc::hub

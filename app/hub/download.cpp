#include "app/hub/download.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "app/hub/download_files.h"
#include "app/hub/http_request.h"
#include "app/hub/transfer.h"
#include "engine/common/error.h"
#include "engine/model/model_summary.h"

namespace fs = std::filesystem;

namespace snapdoc::hub {

const char* check_words(const std::vector<FileCheck>& checks) {
    for (FileCheck c : checks)
        if (c != FileCheck::Sha256) return "size checked";
    return "verified";
}

const char* state_name(DownloadState s) {
    switch (s) {
        case DownloadState::Idle:
            return "idle";
        case DownloadState::Checking:
            return "checking";
        case DownloadState::Downloading:
            return "downloading";
        case DownloadState::Retrying:
            return "retrying";
        case DownloadState::Verifying:
            return "verifying";
        case DownloadState::Paused:
            return "paused";
        case DownloadState::Cancelled:
            return "cancelled";
        case DownloadState::Done:
            return "done";
        case DownloadState::Failed:
            return "failed";
    }
    return "?";
}

fs::path part_path(const fs::path& final_path) {
    return final_path.string() + ".part";
}
fs::path sidecar_path(const fs::path& final_path) {
    return final_path.string() + ".part.json";
}
fs::path lock_path(const fs::path& final_path) {
    return final_path.string() + ".lock";
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kStopPause = 1;
constexpr int kStopCancel = 2;
// A server whose file keeps changing under us (new ETag on each request) is not worth chasing forever.
constexpr int kMaxRestartsPerFile = 4;

// Ends the download with a result (caught in Worker::run).
struct Finish {
    DownloadState state;
    DownloadError kind;
    std::string message;
};

[[noreturn]] void fail(DownloadError kind, std::string message) {
    throw Finish{DownloadState::Failed, kind, std::move(message)};
}

bool transient_status(long status) {
    return status >= 500 || status == 429 || status == 408;
}

std::string seconds_text(std::chrono::milliseconds ms) {
    char buf[32];
    if (ms >= std::chrono::minutes(2))
        std::snprintf(buf, sizeof buf, "%lld min", static_cast<long long>(ms.count() / 60000));
    else
        std::snprintf(buf, sizeof buf, "%.1f s", ms.count() / 1000.0);
    return buf;
}

}  // namespace

struct Download::Worker {
    DownloadRequest req;
    DownloadOptions opt;
    ProgressCallback on_progress;
    CURLM* multi = nullptr;
    std::atomic<int> stop{0};
    std::atomic<bool> running{false};
    std::thread thread;
    std::mutex mu;  // guards progress, result, and the backoff wait
    std::condition_variable cv;
    DownloadProgress progress;
    DownloadResult result;

    // Speed over the last few seconds of this session.
    std::deque<std::pair<Clock::time_point, int64_t>> samples;
    Clock::time_point last_report{};
    int64_t bytes_before_file = 0;  // finished files of the set

    Worker(DownloadRequest r, DownloadOptions o) : req(std::move(r)), opt(std::move(o)) {
        curl_global_once();
        multi = curl_multi_init();
        if (!opt.free_space) opt.free_space = statvfs_free_bytes;
    }
    ~Worker() { curl_multi_cleanup(multi); }

    void request_stop(int how) {
        int expected = 0;
        if (!stop.compare_exchange_strong(expected, how) && how == kStopCancel) stop.store(kStopCancel);
        curl_multi_wakeup(multi);
        std::lock_guard<std::mutex> lock(mu);
        cv.notify_all();
    }

    void check_stop() {
        if (const int s = stop.load())
            throw Finish{s == kStopCancel ? DownloadState::Cancelled : DownloadState::Paused,
                         DownloadError::None, ""};
    }

    // Reports now if `force` or the interval has passed; computes speed and ETA.
    void report(DownloadState state, int64_t bytes_done, const std::string& message, bool force) {
        const auto now = Clock::now();
        DownloadProgress p;
        {
            std::lock_guard<std::mutex> lock(mu);
            if (!force && now - last_report < opt.progress_interval) return;
            last_report = now;
            samples.emplace_back(now, bytes_done);
            while (samples.size() > 2 && now - samples.front().first > std::chrono::seconds(5))
                samples.pop_front();
            progress.state = state;
            progress.bytes_done = bytes_done;
            progress.message = message;
            const double dt = std::chrono::duration<double>(now - samples.front().first).count();
            if (state == DownloadState::Downloading && dt > 0.2)
                progress.bytes_per_second = static_cast<double>(bytes_done - samples.front().second) / dt;
            else if (state != DownloadState::Downloading)
                progress.bytes_per_second = 0;
            progress.eta_seconds =
                progress.bytes_per_second > 0 && progress.bytes_total >= 0
                    ? static_cast<double>(progress.bytes_total - bytes_done) / progress.bytes_per_second
                    : -1;
            p = progress;
        }
        if (on_progress) on_progress(p);
    }

    void set_file(int index, const std::string& file) {
        std::lock_guard<std::mutex> lock(mu);
        progress.file_index = index;
        progress.file = file;
    }
    void set_attempt(int attempt) {
        std::lock_guard<std::mutex> lock(mu);
        progress.attempt = attempt;
    }

    fs::path final_path(const RemoteFile& f) const { return req.models_dir / req.repo / f.path; }

    DownloadResult run();
    void check_free_space();
    fs::path download_file(int index, const RemoteFile& f);
    void download_locked(const RemoteFile& f, const fs::path& final);  // with the file's lock held
    void transfer_loop(const RemoteFile& f, const fs::path& final, PartWriter& part, Sidecar& sc);
    void backoff(int failures, int64_t bytes_done, const std::string& why);
};

DownloadResult Download::Worker::run() {
    DownloadResult r;
    {
        std::lock_guard<std::mutex> lock(mu);
        progress = DownloadProgress{};
        progress.file_count = static_cast<int>(req.files.size());
        int64_t total = 0;
        for (const auto& f : req.files) total = (total < 0 || f.size_bytes < 0) ? -1 : total + f.size_bytes;
        progress.bytes_total = total;
        samples.clear();
    }
    bytes_before_file = 0;
    try {
        if (req.files.empty()) fail(DownloadError::NotFound, "nothing to download from " + req.repo);
        check_repo_id(req.repo);
        for (const auto& f : req.files) check_repo_file_path(f.path);
        check_free_space();
        for (int i = 0; i < static_cast<int>(req.files.size()); ++i) {
            r.files.push_back(download_file(i, req.files[i]));
            r.checks.push_back(req.files[i].sha256.empty() ? FileCheck::SizeOnly : FileCheck::Sha256);
            bytes_before_file += std::max<int64_t>(req.files[i].size_bytes, 0);
        }
        r.state = DownloadState::Done;
        report(DownloadState::Done, bytes_before_file, "done", true);
    } catch (const Finish& f) {
        r.state = f.state;
        r.error_kind = f.kind;
        r.error = f.message;
        r.files.clear();
    } catch (const std::exception& e) {
        // Error (a local file problem), or anything else from the standard library: never let it
        // leave the worker thread (that would terminate the app).
        r.state = DownloadState::Failed;
        r.error_kind = DownloadError::Io;
        r.error = e.what();
        r.files.clear();
    }
    if (r.state != DownloadState::Done) {
        DownloadProgress last;
        {
            std::lock_guard<std::mutex> lock(mu);
            progress.state = r.state;
            progress.bytes_per_second = 0;
            progress.eta_seconds = -1;
            progress.message = r.state == DownloadState::Failed ? r.error : state_name(r.state);
            last = progress;
        }
        if (on_progress) on_progress(last);
    }
    return r;
}

void Download::Worker::check_free_space() {
    int64_t need = 0;
    std::error_code ec;
    for (const auto& f : req.files) {
        const fs::path final = final_path(f);
        if (f.size_bytes < 0 ||
            (fs::exists(final, ec) && static_cast<int64_t>(fs::file_size(final, ec)) == f.size_bytes))
            continue;
        const auto part = part_path(final);
        const int64_t have = fs::exists(part, ec) ? static_cast<int64_t>(fs::file_size(part, ec)) : 0;
        need += std::max<int64_t>(f.size_bytes - have, 0);
    }
    const fs::path dir = req.models_dir / req.repo;
    fs::create_directories(dir, ec);
    if (ec)
        fail(DownloadError::Io, "cannot create the models folder '" + dir.string() + "': " + ec.message());
    const int64_t free = opt.free_space(dir);
    if (free >= 0 && need + opt.reserve_bytes > free)
        fail(DownloadError::DiskFull, "not enough free disk space for " + req.repo + " in '" + dir.string() +
                                          "': it needs " + format_bytes(need) + " more, and " +
                                          format_bytes(free) + " are free (" +
                                          format_bytes(opt.reserve_bytes) + " are kept in reserve)");
}

fs::path Download::Worker::download_file(int index, const RemoteFile& f) {
    check_stop();
    set_file(index, f.path);
    set_attempt(0);
    const fs::path final = final_path(f);
    std::error_code ec;
    fs::create_directories(final.parent_path(), ec);
    if (ec) fail(DownloadError::Io, "cannot create '" + final.parent_path().string() + "': " + ec.message());

    // The engine's own files beside the model: a link planted at one of their names is refused
    // before anything is opened (the opens below use O_NOFOLLOW as well, for a link planted later).
    for (const fs::path& p : {part_path(final), sidecar_path(final), lock_path(final)})
        if (std::string why = not_a_plain_file(p); !why.empty()) fail(DownloadError::Io, why);

    // Another process on the same file: wait for it (then use its result) or say who it is.
    long holder = 0;
    std::optional<FileLock> lock = FileLock::try_acquire(lock_path(final), &holder);
    while (!lock) {
        if (!opt.wait_for_lock)
            fail(DownloadError::Busy, f.path + " is already being downloaded by process " +
                                          std::to_string(holder) + " (lock " + lock_path(final).string() +
                                          ")");
        report(DownloadState::Checking, bytes_before_file,
               "waiting for process " + std::to_string(holder) + ", which is downloading " + f.path, false);
        std::unique_lock<std::mutex> l(mu);
        cv.wait_for(l, std::chrono::milliseconds(100), [&] { return stop.load() != 0; });
        l.unlock();
        check_stop();
        lock = FileLock::try_acquire(lock_path(final), &holder);
    }
    // Only verified files get the final name, so one of the right size is done.
    if (fs::exists(final, ec) &&
        (f.size_bytes < 0 || static_cast<int64_t>(fs::file_size(final, ec)) == f.size_bytes)) {
        lock->release_and_remove();
        return final;
    }
    try {
        download_locked(f, final);
    } catch (const Finish& finish) {
        if (finish.state == DownloadState::Cancelled) {
            fs::remove(part_path(final), ec);
            fs::remove(sidecar_path(final), ec);
        }
        lock->release_and_remove();
        throw;
    } catch (...) {
        lock->release_and_remove();
        throw;
    }
    lock->release_and_remove();
    return final;
}

void Download::Worker::download_locked(const RemoteFile& f, const fs::path& final) {
    std::error_code ec;
    const fs::path part_file = part_path(final), side_file = sidecar_path(final);
    const std::string url = resolve_url(req.endpoint, req.repo, req.revision, f.path);
    Sidecar sc;
    std::string why_restart;
    if (fs::exists(part_file, ec)) {
        const auto old = read_sidecar(side_file);
        const int64_t have = static_cast<int64_t>(fs::file_size(part_file, ec));
        if (!old)
            why_restart = "a .part without its sidecar (origin unknown)";
        else if (!old->bad_sha256.empty())
            why_restart = "the earlier copy failed its sha256 check";
        else if (old->size_bytes != f.size_bytes || old->sha256 != f.sha256)
            why_restart = "the file changed on the hub since the .part was started";
        else if (f.size_bytes >= 0 && have > f.size_bytes)
            why_restart = "the .part is longer than the file";
        if (why_restart.empty()) sc = *old;
    }
    if (!why_restart.empty()) fs::remove(part_file, ec);
    sc.url = url;
    sc.repo = req.repo;
    sc.revision = req.revision;
    sc.file = f.path;
    sc.size_bytes = f.size_bytes;
    sc.sha256 = f.sha256;
    sc.set = req.files;
    write_sidecar(side_file, sc);

    const int fd = ::open(part_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        fail(DownloadError::Io, "cannot write '" + part_file.string() + "': " +
                                    (errno == ELOOP ? std::string("it is a symbolic link (remove it and retry)")
                                                    : std::string(std::strerror(errno))));
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    Sha256 hash;
    PartWriter part{fd, 0, &hash};
    struct stat st {};
    ::fstat(fd, &st);
    part.size = st.st_size;
    if (part.size > 0) {
        // Resuming: the hash state is not persisted, so the bytes already here are hashed once
        // (~3 CPU seconds for 5 GB at the measured 1.6 GiB/s; RESULTS.md).
        report(DownloadState::Checking, bytes_before_file + part.size,
               "checking the " + format_bytes(part.size) + " already downloaded", true);
        sha256_update_from_file(hash, part_file, part.size);
    } else if (!why_restart.empty()) {
        report(DownloadState::Checking, bytes_before_file, "starting " + f.path + " over: " + why_restart,
               true);
    }

    transfer_loop(f, final, part, sc);

    // Complete: verify, then publish under the final name.
    report(DownloadState::Verifying, bytes_before_file + part.size,
           (f.sha256.empty() ? "checking the size of " : "verifying ") + f.path, true);
    if (f.size_bytes >= 0 && part.size != f.size_bytes)
        fail(DownloadError::Server, f.path + ": got " + std::to_string(part.size) +
                                        " bytes, the hub's listing says " + std::to_string(f.size_bytes));
    const std::string got = hash.hex();
    if (!f.sha256.empty() && got != f.sha256) {
        sc.bad_sha256 = got;
        write_sidecar(side_file, sc);
        fail(DownloadError::HashMismatch, f.path + ": sha256 mismatch: the hub lists " + f.sha256 +
                                              ", the download is " + got + "; the bytes are kept in '" +
                                              part_file.string() +
                                              "' for inspection (the next download starts it over)");
    }
    if (::fsync(fd) != 0)
        fail(DownloadError::Io, "cannot sync '" + part_file.string() + "': " + std::strerror(errno));
    fs::rename(part_file, final, ec);
    if (ec) fail(DownloadError::Io, "cannot move '" + part_file.string() + "' into place: " + ec.message());
    if (const int dfd = ::open(final.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);  // the rename survives a power cut
        ::close(dfd);
    }
    fs::remove(side_file, ec);
}

void Download::Worker::backoff(int failures, int64_t bytes_done, const std::string& why) {
    auto wait = opt.backoff_initial;
    for (int i = 1; i < failures && wait < opt.backoff_max; ++i) wait *= 2;
    wait = std::min(wait, opt.backoff_max);
    const std::string limit = opt.max_attempts > 0 ? " of " + std::to_string(opt.max_attempts)
                                                   : "; trying for up to " + seconds_text(opt.give_up_after) +
                                                         " without progress";
    report(DownloadState::Retrying, bytes_done,
           why + "; retrying in " + seconds_text(wait) + " (attempt " + std::to_string(failures + 1) + limit + ")",
           true);
    std::unique_lock<std::mutex> l(mu);
    cv.wait_for(l, wait, [&] { return stop.load() != 0; });
}

void Download::Worker::transfer_loop(const RemoteFile& f, const fs::path& final, PartWriter& part,
                                     Sidecar& sc) {
    int failures = 0, restarts = 0;
    auto last_progress = std::chrono::steady_clock::now();
    const fs::path side_file = sidecar_path(final);
    for (;;) {
        check_stop();
        if (f.size_bytes >= 0 && part.size == f.size_bytes && part.size > 0) return;  // all here already
        TransferRequest tr;
        tr.url = sc.url;
        tr.endpoint = &req.endpoint;
        tr.expected_etag = part.size > 0 ? sc.etag : "";
        tr.expected_size = f.size_bytes;
        tr.stall_timeout = opt.stall_timeout;
        tr.connect_timeout = opt.connect_timeout;
        tr.stop = &stop;
        tr.on_bytes = [&](int64_t in_part) {
            report(DownloadState::Downloading, bytes_before_file + in_part, "", false);
        };
        report(DownloadState::Downloading, bytes_before_file + part.size, "", true);
        const TransferOutcome out = run_transfer(multi, tr, part);
        // A full disk first: the sidecar update below would fail on it too, less clearly.
        if (out.end == TransferEnd::WriteError) {
            if (out.errno_value == ENOSPC || out.errno_value == EDQUOT)
                fail(DownloadError::DiskFull,
                     "the disk filled up while writing '" + part_path(final).string() + "' (" +
                         format_bytes(part.size) + " kept; free some space and resume)");
            fail(DownloadError::Io, "cannot write '" + part_path(final).string() + "': " + out.detail);
        }
        if (!out.etag.empty() && out.etag != sc.etag && out.end != TransferEnd::EtagChanged) {
            sc.etag = out.etag;
            write_sidecar(side_file, sc);
        }
        const std::string done_text = format_bytes(part.size);
        switch (out.end) {
            case TransferEnd::Complete:
                return;
            case TransferEnd::Stopped:
                check_stop();
                continue;
            case TransferEnd::EtagChanged:
            case TransferEnd::BadResponse:
                if (++restarts > kMaxRestartsPerFile)
                    fail(DownloadError::Server, f.path + ": " + out.detail + " (gave up after " +
                                                    std::to_string(kMaxRestartsPerFile) + " fresh starts)");
                report(DownloadState::Retrying, bytes_before_file,
                       out.detail + "; starting " + f.path + " over", true);
                part.restart_from_zero();
                sc.etag = out.end == TransferEnd::EtagChanged ? out.etag : "";
                write_sidecar(side_file, sc);
                continue;
            case TransferEnd::WriteError:
                break;  // handled above
            case TransferEnd::HttpStatus:
                if (out.status == 401 || out.status == 403)
                    fail(DownloadError::NeedsToken,
                         http_status_message(out.status, req.endpoint, req.repo, f.path));
                if (out.status == 404)
                    fail(DownloadError::NotFound, http_status_message(404, req.endpoint, req.repo, f.path));
                if (out.status == 416 && part.size > 0) {
                    // Our offset is past the server's end: the .part is not what it serves now.
                    part.restart_from_zero();
                    if (++restarts > kMaxRestartsPerFile)
                        fail(DownloadError::Server, f.path + ": HTTP 416 repeatedly");
                    continue;
                }
                if (!transient_status(out.status))
                    fail(DownloadError::Server,
                         http_status_message(out.status, req.endpoint, req.repo, f.path));
                break;
            case TransferEnd::Stalled:
            case TransferEnd::NetworkError:
                break;
        }
        // Transient: retry with backoff; progress in this attempt resets the count and the clock.
        failures = out.bytes_received > 0 ? 1 : failures + 1;
        if (out.bytes_received > 0) last_progress = std::chrono::steady_clock::now();
        set_attempt(failures);
        std::string why = out.end == TransferEnd::Stalled      ? "stalled (" + out.detail + ")"
                          : out.end == TransferEnd::HttpStatus ? "the server answered " + out.detail
                                                               : "transfer failed (" + out.detail + ")";
        why += " at " + done_text;
        const auto without_progress = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - last_progress);
        if ((opt.max_attempts > 0 && failures >= opt.max_attempts) || without_progress >= opt.give_up_after)
            fail(DownloadError::Network, f.path + ": " + why + "; gave up after " + std::to_string(failures) +
                                             " attempts in a row over " + seconds_text(without_progress) +
                                             " without progress (" + done_text +
                                             " kept in the .part; retry to resume)");
        backoff(failures, bytes_before_file + part.size, why);
    }
}

Download::Download(DownloadRequest request, DownloadOptions options)
    : request_(std::move(request)), options_(std::move(options)) {
    worker_ = std::make_shared<Worker>(request_, options_);
}

Download::~Download() {
    pause();
    if (worker_->thread.joinable()) worker_->thread.join();
}

void Download::start(ProgressCallback on_progress, DoneCallback on_done) {
    Worker& w = *worker_;
    if (w.running.load()) return;
    if (w.thread.joinable()) w.thread.join();
    on_progress_ = std::move(on_progress);
    on_done_ = std::move(on_done);
    w.on_progress = on_progress_;
    w.stop.store(0);
    w.running.store(true);
    w.thread = std::thread([&w, done = on_done_] {
        DownloadResult r = w.run();
        {
            std::lock_guard<std::mutex> lock(w.mu);
            w.result = r;
        }
        w.running.store(false);
        if (done) done(r);
    });
}

void Download::pause() {
    if (worker_->running.load()) worker_->request_stop(kStopPause);
}

void Download::cancel() {
    Worker& w = *worker_;
    if (w.running.load()) {
        w.request_stop(kStopCancel);  // the worker deletes the .part and sidecar as it stops
        return;
    }
    // Not running: discard what a paused (or failed) download left behind.
    std::error_code ec;
    for (const auto& f : request_.files) {
        const fs::path final = w.final_path(f);
        long holder = 0;
        auto lock = FileLock::try_acquire(lock_path(final), &holder);
        if (!lock) continue;  // another process owns that .part
        fs::remove(part_path(final), ec);
        fs::remove(sidecar_path(final), ec);
        lock->release_and_remove();
    }
    std::lock_guard<std::mutex> lock(w.mu);
    w.result = DownloadResult{};
    w.result.state = DownloadState::Cancelled;
    w.progress.state = DownloadState::Cancelled;
}

DownloadResult Download::wait() {
    if (worker_->thread.joinable()) worker_->thread.join();
    std::lock_guard<std::mutex> lock(worker_->mu);
    return worker_->result;
}

bool Download::wait_for(std::chrono::milliseconds timeout) {
    const auto until = Clock::now() + timeout;
    while (worker_->running.load()) {
        if (Clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

bool Download::running() const {
    return worker_->running.load();
}

DownloadProgress Download::progress() const {
    std::lock_guard<std::mutex> lock(worker_->mu);
    return worker_->progress;
}

DownloadResult Download::run(ProgressCallback on_progress) {
    Worker& w = *worker_;
    if (w.running.load()) throw Error("this download is already running");
    if (w.thread.joinable()) w.thread.join();
    w.on_progress = std::move(on_progress);
    w.stop.store(0);
    w.running.store(true);
    DownloadResult r = w.run();
    {
        std::lock_guard<std::mutex> lock(w.mu);
        w.result = r;
    }
    w.running.store(false);
    return r;
}

}  // namespace snapdoc::hub

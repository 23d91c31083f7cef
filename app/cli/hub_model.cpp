#include "app/cli/hub_model.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "app/cli/model_setup.h"
#include "app/common/resource_paths.h"
#include "app/hub/hub_endpoint.h"
#include "app/hub/hub_page_url.h"
#include "app/hub/model_fetch.h"
#include "app/hub/model_store.h"
#include "engine/common/error.h"
#include "engine/model/model_summary.h"

namespace snapdoc::cli {

std::vector<FlagSpec> hub_flags() {
    return {{{"--hf-repo", "-hf"}}, {{"--hf-file", "-hff"}}, {{"--hf-token", "-hft"}}, {{"--hf-endpoint"}}};
}

std::optional<hub::ModelRef> hub_ref_from_args(const Args& args) {
    const std::string m = args.str("model");
    if (args.has("hf-repo")) {
        if (!m.empty()) throw Error("give either -m or --hf-repo, not both");
        return args.has("hf-file") ? hub::parse_model_ref(args.str("hf-repo"), args.str("hf-file"))
                                   : hub::parse_model_ref(args.str("hf-repo"));
    }
    if (args.has("hf-file")) throw Error("--hf-file needs --hf-repo");
    if (hub::is_hf_uri(m) || hub::is_hub_page_url(m)) return hub::parse_model_ref(m);
    return std::nullopt;
}

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string eta_text(double s) {
    if (s < 0) return "--";
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
    else
        std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
    return buf;
}

}  // namespace

ProgressPrinter::ProgressPrinter() : tty_(::isatty(STDERR_FILENO) == 1) {}

void ProgressPrinter::operator()(const hub::DownloadProgress& p) {
    const bool news = !p.message.empty() && p.message != last_message_;
    const double t = now_seconds();
    if (!news && t - last_print_ < (tty_ ? 0.25 : 5.0) && p.state == hub::DownloadState::Downloading) return;
    last_print_ = t;
    if (news) {
        last_message_ = p.message;
        if (open_line_) std::fputc('\n', stderr);
        open_line_ = false;
        std::fprintf(stderr, "%s\n", p.message.c_str());
        if (p.state != hub::DownloadState::Downloading) return;
    }
    if (p.state != hub::DownloadState::Downloading) return;
    const double pct = p.bytes_total > 0 ? 100.0 * p.bytes_done / p.bytes_total : 0;
    std::fprintf(stderr, "%s%s [%d/%d] %5.1f%%  %s / %s  %s/s  ETA %s%s", tty_ ? "\r" : "", p.file.c_str(),
                 p.file_index + 1, p.file_count, pct, format_bytes(p.bytes_done).c_str(),
                 p.bytes_total >= 0 ? format_bytes(p.bytes_total).c_str() : "?",
                 format_bytes(static_cast<int64_t>(p.bytes_per_second)).c_str(),
                 eta_text(p.eta_seconds).c_str(), tty_ ? "\x1b[K" : "\n");
    open_line_ = tty_;
}

void ProgressPrinter::finish() {
    if (open_line_) std::fputc('\n', stderr);
    open_line_ = false;
}

std::vector<std::filesystem::path> pull_model(const Args& args, const hub::ModelRef& ref,
                                              std::vector<hub::FileCheck>* checks) {
    const hub::HubEndpoint ep = hub::resolve_endpoint(args.str("hf-endpoint"), args.str("hf-token"));
    const hub::ModelStore store;
    const auto& interrupted = install_interrupt_flag();
    ProgressPrinter printer;
    const auto out = hub::fetch_model(
        ep, ref, store, [&](const hub::DownloadProgress& p) { printer(p); }, &interrupted);
    printer.finish();
    const hub::DownloadResult& r = out.result;
    if (r.state == hub::DownloadState::Paused) {
        std::fprintf(
            stderr, "download of %s paused; the partial file is kept in %s, run the same command to resume\n",
            ref.to_string().c_str(), (store.dir() / ref.repo).c_str());
        throw Cancelled();
    }
    if (r.state != hub::DownloadState::Done)
        throw Error(r.error.empty() ? "download did not finish" : r.error);
    if (!out.was_local)
        std::fprintf(stderr, "downloaded %s to %s\n", ref.to_string().c_str(), r.files.front().c_str());
    if (checks) *checks = r.checks;
    return r.files;
}

std::filesystem::path model_path_from_args(const Args& args) {
    if (const auto ref = hub_ref_from_args(args)) return pull_model(args, *ref).front();
    // "demo": the bundled demo model (app/common/resource_paths.h), wherever the program is installed.
    return resolve_model_spec(args.required("model"));
}

}  // namespace snapdoc::cli

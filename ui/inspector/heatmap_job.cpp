#include "ui/inspector/heatmap_job.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>

#include "ui/inspector/selection_analysis.h"

namespace snapdoc::ui {

std::shared_ptr<const Selection> baseline_at(const HeatmapBaseline& b, const SnapKvConfig& config,
                                             bool* own_settings) {
    *own_settings = false;
    if (b.at_current && same_settings(b.at_current->config, config)) return b.at_current;
    if (b.scores && b.scores->window == std::min(config.window, b.scores->prompt_len)) {
        try {
            return select_positions(config, *b.scores);
        } catch (const std::exception&) {
            // Settings the earlier prompt cannot take (e.g. a budget not above its window): as it was.
        }
    }
    *own_settings = true;
    return b.own;
}

HeatmapResult render_heatmap(const HeatmapRequest& req) {
    HeatmapResult r;
    const Selection& s = *req.snapshot.selection;
    r.selection = req.snapshot.selection;
    auto resolve = [&](const HeatmapBaseline& b, bool* own) -> std::shared_ptr<const Selection> {
        if (b.serial == 0) return nullptr;
        for (const auto& [serial, sel] : r.resolved)
            if (serial == b.serial) return sel;
        auto sel = baseline_at(b, s.config, own);
        if (sel && !*own && sel != b.at_current) r.resolved.emplace_back(b.serial, sel);
        return sel;
    };
    if (const auto prev = resolve(req.stability, &r.stability_own_settings))
        r.stability = kept_overlap(*prev, s, req.snapshot.document_tokens);
    const auto compare = resolve(req.compare, &r.diff_own_settings);
    QElapsedTimer timer;
    timer.start();
    if (compare && diff_comparable(*compare, s)) {
        r.image = render_diff_heatmap(*compare, s, req.snapshot.document_tokens, req.layout);
        r.diff = true;
    } else {
        r.image = render_retention_heatmap(s, req.layout);
    }
    r.render_ms = timer.nsecsElapsed() / 1e6;
    r.geometry = heatmap_geometry(s, req.layout);
    r.head_counts = std::make_shared<const std::vector<uint16_t>>(kept_head_counts(s));
    r.strips = strip_count(s);
    if (req.minimap_width > 0)
        r.minimap = render_minimap(*r.head_counts, r.strips, s.n_prefix(), req.minimap_width, req.minimap_height);
    return r;
}

HeatmapJob::HeatmapJob(QObject* parent) : QObject(parent) {
    qRegisterMetaType<HeatmapResult>();
    connect(&watcher_, &QFutureWatcher<HeatmapResult>::finished, this, &HeatmapJob::on_done);
}

HeatmapJob::~HeatmapJob() {
    watcher_.waitForFinished();
}

void HeatmapJob::request(const SelectionSnapshot& snapshot, const HeatmapLayout& layout) {
    HeatmapRequest r;
    r.snapshot = snapshot;
    r.layout = layout;
    request(r);
}

void HeatmapJob::request(const HeatmapRequest& req) {
    if (!req.snapshot.valid()) return;
    // One render at a time; the newest request waits and replaces any older waiting one.
    if (watcher_.isRunning()) {
        pending_ = true;
        pending_request_ = req;
        return;
    }
    const uint64_t serial = ++next_serial_;
    watcher_.setFuture(QtConcurrent::run([req, serial] {
        HeatmapResult r = render_heatmap(req);
        r.serial = serial;
        return r;
    }));
}

void HeatmapJob::on_done() {
    const HeatmapResult result = watcher_.result();
    if (pending_) {
        // Start the newest request first, then still show this result: it is newer than what is on
        // screen, and while the view is dragged every result would otherwise be superseded.
        pending_ = false;
        HeatmapRequest next = std::move(pending_request_);
        pending_request_ = {};
        request(next);
    }
    emit finished(result);
}

}  // namespace snapdoc::ui

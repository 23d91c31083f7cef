#include "ui/inspector/heatmap_job.h"

#include <QtConcurrent/QtConcurrentRun>

#include "ui/inspector/selection_analysis.h"

namespace snapdoc::ui {

namespace {

HeatmapResult render(uint64_t serial, std::shared_ptr<const Selection> selection, HeatmapLayout layout) {
    HeatmapResult r;
    r.serial = serial;
    r.image = render_retention_heatmap(*selection, layout);
    r.geometry = heatmap_geometry(*selection, layout);
    r.head_counts = std::make_shared<const std::vector<uint16_t>>(kept_head_counts(*selection));
    r.strips = strip_count(*selection);
    return r;
}

}  // namespace

HeatmapJob::HeatmapJob(QObject* parent) : QObject(parent) {
    qRegisterMetaType<HeatmapResult>();
    connect(&watcher_, &QFutureWatcher<HeatmapResult>::finished, this, &HeatmapJob::on_done);
}

HeatmapJob::~HeatmapJob() {
    watcher_.waitForFinished();
}

void HeatmapJob::request(const SelectionSnapshot& snapshot, const HeatmapLayout& layout) {
    if (!snapshot.valid()) return;
    // One render at a time; the newest request waits and replaces any older waiting one.
    if (watcher_.isRunning()) {
        pending_ = true;
        pending_snapshot_ = snapshot;
        pending_layout_ = layout;
        return;
    }
    watcher_.setFuture(QtConcurrent::run(render, ++next_serial_, snapshot.selection, layout));
}

void HeatmapJob::on_done() {
    const HeatmapResult result = watcher_.result();
    if (pending_) {
        pending_ = false;
        request(pending_snapshot_, pending_layout_);
        pending_snapshot_ = {};
        return;  // superseded: only the newest result is shown
    }
    emit finished(result);
}

}  // namespace snapdoc::ui

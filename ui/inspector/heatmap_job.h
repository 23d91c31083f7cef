// Renders the retention heatmap and the per-position head counts for a snapshot on Qt's thread
// pool, never on the GUI thread. Only the newest request's result is delivered: a result that
// arrives after a newer request (the budget slider moved again) is dropped.
#pragma once

#include <QFutureWatcher>
#include <QImage>
#include <QObject>
#include <cstdint>
#include <memory>
#include <vector>

#include "ui/inspector/heatmap_render.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

struct HeatmapResult {
    uint64_t serial = 0;
    QImage image;
    HeatmapGeometry geometry;
    // Strips keeping each prompt position (document shading), and the strip count.
    std::shared_ptr<const std::vector<uint16_t>> head_counts;
    int strips = 0;
};

class HeatmapJob : public QObject {
    Q_OBJECT
public:
    explicit HeatmapJob(QObject* parent = nullptr);
    ~HeatmapJob() override;

    void request(const SelectionSnapshot& snapshot, const HeatmapLayout& layout);
    bool busy() const { return watcher_.isRunning(); }

signals:
    void finished(const snapdoc::ui::HeatmapResult& result);

private:
    void on_done();

    QFutureWatcher<HeatmapResult> watcher_;
    uint64_t next_serial_ = 0;
    bool pending_ = false;
    SelectionSnapshot pending_snapshot_;
    HeatmapLayout pending_layout_;
};

}  // namespace snapdoc::ui

Q_DECLARE_METATYPE(snapdoc::ui::HeatmapResult)
